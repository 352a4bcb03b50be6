"""An 8-bit `tl.dot` with a K block under 32 is Triton's compile error, as expect_clean says (generator/kernels/
triton_dot.py); a 16-bit one compiles."""
from __future__ import annotations

import numpy as np
import pytest

from generator.catalog.tasks import make_task
from generator.catalog.ops import OPS
from generator.catalog.variants import variants_for
from generator.kernels import compilers, render
from generator.kernels.audit import Candidate, judge
from generator.kernels.faults import expect_clean
from generator.kernels.style import draw_style
from generator.sim.feedback import feedback_text
from generator.sim.workbench import Workbench

# (op, dtype, gpu, what an unedited naive render at BLOCK_K = 16 does); e4m3 below cc 89 is refused first
CASES = [("int8_gemm", "int8", "h100", "triton_dot_shape"), ("moe_grouped_gemm", "fp8", "h100", "triton_dot_shape"),
         ("fp8_gemm", "fp8", "a100", "triton_fp8_unsupported"), ("gemm_fp16", "fp16", "h100", None)]


def _naive(op, dtype, gpu, block_k, seed=0):
    task = make_task(op, "triton", gpu, dtype, OPS[op].shapes[0])
    v = next(v for v in variants_for(op, "triton", dtype) if v.tag == "naive")
    params = {"BLOCK_K": block_k}
    source = render(task, v, params, style=draw_style(np.random.default_rng(seed), "triton"))
    return task, v, source, expect_clean(source, task, v, params)


def test_expect_clean_refuses_only_8bit_dots_under_32():
    for op, dtype, gpu, kind in CASES:
        assert _naive(op, dtype, gpu, 16)[3].kind == kind, (op, dtype, gpu)
        assert _naive(op, dtype, gpu, 32)[3].kind == (kind if kind == "triton_fp8_unsupported" else None)
    int4 = _naive("int4_gemm", "int4", "h100", 16)[3]     # dequantized to fp16 before its dot
    assert int4.status == "ok"


def test_engineer_skips_refused_dot_shapes_once_read():
    wb = Workbench(make_task("int8_gemm", "triton", "h100", "int8", OPS["int8_gemm"].shapes[0]), None)
    base = wb.defaults("naive")
    assert wb.over_limit("naive", tuple({**base, "BLOCK_K": 16}.items()))
    assert not wb.over_limit("naive", tuple({**base, "BLOCK_K": 32}.items()))


@pytest.mark.compiler
@pytest.mark.skipif(compilers.triton_unavailable() is not None, reason="Triton unavailable")
def test_real_triton_agrees_with_the_whole_report():
    cases = [_naive(op, dtype, gpu, 16, seed=i) for i, (op, dtype, gpu, _) in enumerate(CASES)]
    outcomes = compilers.compile_triton([c[2] for c in cases], jobs=2)
    for (task, v, source, expected), out in zip(cases, outcomes):
        block = feedback_text(None, expected) if expected.status == "compile_error" else ""
        verdict = judge(Candidate(task.op, source, expected, {}, block), out)
        assert verdict.agree, (task.op, verdict.why, out.output)
        assert verdict.full_block in (None, True), verdict.block_diff
        if expected.kind == "triton_dot_shape":
            assert verdict.full_block and "K >= 32" in out.output
