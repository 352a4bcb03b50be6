"""A wrong stride spoils the same outputs whatever the engineer calls the index it multiplies: a session's style
renames template names (a Triton GEMM's `offs_m` written `rm`, `rowsM`, ...), and both the workbench's draw and the
report check read the product's index back as the template's name (knowing only the template's names modelled 113
of 822 such edits of styled Triton GEMM / GEMV renders, against 104 of 137 unstyled: the rest drew another kind)."""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

from generator.catalog.ops import OPS
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import legal_on, variants_for
from generator.check import reports
from generator.kernels import render, scanner
from generator.kernels.faults import _make_wrong_stride, _stride_sites
from generator.kernels.style import draw_style, template_name
from generator.kernels.templating import EXTENSIONS, TEMPLATE_ROOT, alternatives, template_path
from generator.sim import feedback, stride_shift


def _wrong_strides(task, variant, style):
    """Each wrong-stride edit the render allows: its product and the region feedback names (None: not modelled)."""
    source = render(task, variant, {}, style=style)
    sites = _stride_sites(source)
    for i in range(len(sites)):
        expected = _make_wrong_stride(source, sites, (i, None))[1]
        yield expected, feedback.failure_region(task, expected, variant, {})


def _spoils(region):
    return region and (region.axis, region.count, region.first)


def test_every_styled_render_spoils_what_the_unstyled_one_does():
    """Over every catalog (op, impl, variant) and three drawn styles that write its main template: the edits of a
    styled render spoil the same outputs, as many times, as the template's own names do."""
    rng = np.random.default_rng(5)
    seen, renamed = set(), 0
    for task in all_tasks():
        for variant in variants_for(task.op, task.impl, task.dtype):
            if (task.op, task.impl, variant.tag) in seen or not legal_on(variant, task.gpu, task.dtype):
                continue
            seen.add((task.op, task.impl, variant.tag))
            plain = Counter(_spoils(region) for _expected, region in _wrong_strides(task, variant, None))
            written = alternatives(template_path(task.impl, variant.kernel_class, variant.tag, op=task.op))
            for style in (draw_style(rng, task.impl) for _ in range(3)):
                if style.pick(written) != written[0]:
                    continue        # another way to write the technique: other sites
                styled = list(_wrong_strides(task, variant, style))
                assert Counter(_spoils(region) for _expected, region in styled) == plain, (task, variant.tag, style)
                for expected, region in styled:
                    index = expected.message.partition(" * ")[0]
                    renamed += region is not None and template_name(index, task.impl) != index
    assert renamed > 100


def _gemm_report(style):
    """The report of the wrong stride edited into `X * stride_am` (X: A's row index) of a Triton GEMM in `style`."""
    task = next(t for t in all_tasks() if t.op == "gemm_fp16" and t.impl == "triton")
    variant = next(v for v in variants_for(task.op, task.impl) if v.tag == "naive")
    expected = next(e for e, _region in _wrong_strides(task, variant, style) if " * stride_am ->" in e.message)
    return task, expected.message, feedback.feedback_text(task, expected, variant=variant, params={})


def test_the_report_check_reads_a_renamed_index_as_the_templates():
    """The styled edit is the unstyled one in the style's names and moves the same outputs: its report is the
    unstyled one (no name shows: a harness sees only the output), and the report check accepts it; stating
    another axis of the output, or one the op has not, is a false report."""
    rng = np.random.default_rng(11)
    style = next(s for s in (draw_style(rng, "triton") for _ in range(50)) if s.name("offs_m", "triton") == "rm")
    task, product, styled = _gemm_report(style)
    _task, plain_product, plain = _gemm_report(None)
    assert product == plain_product.replace("offs_m", "rm") and styled == plain and "rm" not in styled
    assert reports.problem(task, "wrong_result", styled, None, 1.0, None) is None
    assert "has 4096 columns" in reports.problem(
        task, "wrong_result", styled.replace(" rows", " columns"), None, 1.0, None)
    assert "no modelled fault leaves queries" in reports.problem(
        task, "wrong_result", styled.replace(" rows", " queries"), None, 1.0, None)


def test_no_template_writes_a_synonym_of_an_index_stride_shift_models():
    """Reading a name back as the template's is true only where no template writes that name for something else:
    none of the names a style may give a modelled index (`rm` for `offs_m`) is a template's own."""
    misread = {}
    for path in TEMPLATE_ROOT.rglob("*"):
        lang = path.relative_to(TEMPLATE_ROOT).parts[0]
        if path.suffix not in EXTENSIONS.get(lang, ()):
            continue
        for name in set(re.findall(r"[A-Za-z_]\w*", scanner.code_view(path.read_text(), lang))):
            word = template_name(name, lang)
            if word != name and any(stride_shift.axis_of(op, word) for op in OPS):
                misread[name] = path.relative_to(TEMPLATE_ROOT)
    assert not misread
