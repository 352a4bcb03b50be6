"""What the task turn states as the signature is in every kernel a row holds: every op x impl x dtype x variant
renders it verbatim, and so does a drawn style (CUDA: less the `__restrict__` a style without it drops). The
system prompt tells the model to keep it, so a render that lacks it would teach that the interface may be
ignored (row audit: 76 % of kernelinfer kernels did, until the signature named what renders define)."""
from __future__ import annotations

import numpy as np
import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.catalog.variants import variants_for
from generator.kernels import render
from generator.kernels.style import draw_style

CASES = [(op.name, impl, dtype) for op in OPS.values() for impl in op.impls for dtype in op.dtypes]


@pytest.mark.parametrize("op, impl, dtype", CASES)
def test_every_render_defines_the_signature_the_task_states(op, impl, dtype):
    task = make_task(op, impl, "h100", dtype, OPS[op].shapes[0])
    stated = OPS[op].signature(impl, dtype)
    rng = np.random.default_rng(len(op) * 7 + len(dtype))
    for variant in variants_for(op, impl, dtype):
        assert stated in render(task, variant, {}).text, (variant.tag, stated)
        style = draw_style(rng, impl)
        kept = stated if impl == "triton" or style.restrict else stated.replace(" __restrict__", "")
        assert kept in render(task, variant, {}, style=style).text, (variant.tag, style, kept)
