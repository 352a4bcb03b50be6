"""The slot values a render fills in are cached per configuration and declaration form: what comes out is what
computing them afresh gives, in every form, and equal keys of other types (True == 1) do not share an entry."""
from __future__ import annotations

import random

import numpy as np

from generator import kernels
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for
from generator.kernels import render, style as styling, templating
from generator.kernels.style import draw_style


def _fresh(task, variant, params, style) -> str:
    """The render with its slot values computed afresh (the uncached composition)."""
    tuned = kernels.full_params(variant, params)
    bound, param_slots, _filename, _arch = kernels._bound(task, variant, templating.TEMPLATE_ROOT, style)
    values = {"TUNED_CONSTANTS": templating.tuned_constants(tuned, task.impl) if style is None
              else styling.constants_text(tuned, task.impl, style.constants)}
    if param_slots:
        values.update(templating.literals(tuned, task.impl))
    return bound.fill(values)


def test_cached_slot_values_render_what_fresh_ones_do_in_every_form():
    rand, rng = random.Random(7), np.random.default_rng(7)
    forms = set()
    for task in rand.sample(all_tasks(), 40):
        variant = rand.choice(variants_for(task.op, task.impl, task.dtype))
        style = draw_style(rng, task.impl) if rand.random() < 0.8 else None
        forms.add(style and style.constants)
        for _ in range(3):      # the second and third ask the cache what the first (or an earlier task) left
            params = {name: rand.choice(values) for name, values in variant.params.items()}
            assert render(task, variant, params, style=style).text == _fresh(task, variant, params, style)
            assert render(task, variant, params, style=style).text == _fresh(task, variant, params, style)
    assert len(forms) >= 5      # most declaration forms (and the templates' own, None) were exercised


def test_a_flag_and_an_int_of_equal_value_keep_their_own_literals():
    for value, line in ((True, "EVEN = True"), (1, "EVEN = 1"), (True, "EVEN = True")):
        values = kernels._slot_values((("EVEN", value),), (type(value),), "triton", None, True)
        assert values == {"TUNED_CONSTANTS": line, "EVEN": str(value)}
