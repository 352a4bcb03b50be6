"""Feedback text: the RESULT line, tool diagnostics as printed, correctness and benchmark reports."""
from __future__ import annotations

import re

import numpy as np
import pytest

from generator.sim import feedback
from generator.sim.workbench import sig
from generator.kernels.faults import Expected
from generator.catalog.hardware import GPUS
from generator.catalog.tasks import all_tasks

TASK = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == "cuda" and t.gpu == "h100")


def _rng(i=0):
    return np.random.default_rng(np.random.SeedSequence([99, i]))


@pytest.mark.parametrize("seconds,line", [(0, "[t+0:00:00] RESULT ok"), (3725.9, "[t+1:02:05] RESULT ok"),
                                          (36000, "[t+10:00:00] RESULT ok")])
def test_result_line(seconds, line):
    assert feedback.result_line(seconds, "ok") == line


def test_nvcc_error_is_printed_like_nvcc():
    exp = Expected("compile_error", "undefined_identifier", "nvcc", 18,
                   'k.cu(18): error: identifier "scael" is undefined',
                   "      y[row] = __float2half(acc * scael);\n                                  ^")
    assert feedback.feedback_text(TASK, exp) == (
        'k.cu(18): error: identifier "scael" is undefined\n'
        "      y[row] = __float2half(acc * scael);\n"
        "                                  ^\n\n"
        '1 error detected in the compilation of "k.cu".')
    three = Expected("compile_error", "missing_semicolon", "nvcc", 10, 'k.cu(10): error: expected a ";"',
                     "      float acc = 0.0f;\n      ^", n_errors=3)
    assert feedback.feedback_text(TASK, three).endswith('3 errors detected in the compilation of "k.cu".')


def test_ptxas_triton_and_launch_failures():
    ptxas = Expected("compile_error", "arch_unsupported", "ptxas", None,
                     "ptxas /tmp/tmpxft_00001234_00000000-6_k.ptx, line 148; error   : Instruction 'wgmma.fence' "
                     "not supported on .target 'sm_80'", "ptxas fatal   : Ptx assembly aborted due to errors")
    assert feedback.feedback_text(TASK, ptxas).splitlines()[-1] == "ptxas fatal   : Ptx assembly aborted due to errors"
    tri = Expected("compile_error", "triton_compilation_error", "triton", 12, "at 3:25:",
                   "def k(x):\n    pid = 1\n    offs = pid * BLOCK + tl.arange(0, 96)\n                         ^\n"
                   "arange's range must be a power of 2")
    text = feedback.feedback_text(TASK, tri)
    assert text.startswith("triton.compiler.errors.CompilationError: at 3:25:\ndef k(x):")
    assert text.endswith("arange's range must be a power of 2")
    launch = Expected("compile_error", "dyn_smem_over_cap", "runtime", None, "CUDA error: invalid argument",
                      "233472 bytes of dynamic shared memory > 232448")
    text = feedback.feedback_text(TASK, launch)
    assert "launch: FAILED" in text and "RuntimeError: CUDA error: invalid argument" in text


@pytest.mark.parametrize("kind, op", [("missing_syncthreads", "rmsnorm"), ("dropped_scale", "int4_gemv"),
                                      ("racy_reduction", "rmsnorm")])
def test_correctness_report_fails_with_plausible_numbers(kind, op):
    task = next(t for t in all_tasks() if t.op == op and t.impl == "cuda")
    exp = Expected("wrong_result", kind, "check", None, "")
    text = feedback.feedback_text(task, exp, rng=_rng())
    assert text == feedback.feedback_text(task, exp, rng=_rng())          # deterministic given the rng
    assert "correctness: FAILED" in text
    err, atol = map(float, re.search(r"max_abs_err = (\S+) \(atol = (\S+)\)", text).groups())
    assert err > atol
    bad, total, first = map(int, re.search(r"mismatches: (\d+) / (\d+) .* first bad index: (\d+)", text).groups())
    assert 1 <= bad <= total and 0 <= first < total


def test_benchmark_report_uses_perf_achieved():
    from generator.catalog import perf

    t = perf.roofline_ms(TASK) * 1.5
    ok = Expected("ok", None, "check", None, "")
    text = feedback.feedback_text(TASK, ok, time_ms=t, baseline_ms=4 * t, best_ms=1.2 * t, rng=_rng())
    assert f"time: {feedback.ms_text(t)} ms" in text
    assert "speedup: 4.00x vs baseline" in text and "1.20x vs best so far" in text
    frac = perf.achieved(TASK, t)["bandwidth_frac"]
    assert f"{100 * frac:.1f}% of peak DRAM bandwidth" in text
    with pytest.raises(ValueError, match="needs time_ms"):
        feedback.feedback_text(TASK, ok)


def test_benchmark_report_leads_with_the_tasks_roofline_side():
    """The achieved line names first the side of the roofline the task sits on (`perf.bound`, fixed per task and
    built into the task's report once): GB/s for a memory-bound task, TFLOPS for a compute-bound one."""
    from generator.catalog import perf

    ok = Expected("ok", None, "check", None, "")
    sides = set()
    for task in all_tasks():
        a = perf.achieved(task, 1.0)
        side = perf.bound(task)
        assert side == ("memory" if a["bandwidth_frac"] >= a["compute_frac"] else "compute"), task
        if side not in sides:
            sides.add(side)
            t = perf.roofline_ms(task) * 2
            achieved = feedback.feedback_text(task, ok, time_ms=t, baseline_ms=3 * t, rng=_rng()).splitlines()[-1]
            first = "%.0f GB/s" % (perf.achieved(task, t)["bandwidth_frac"] * GPUS[task.gpu].dram_gbps) if (
                side == "memory") else "%.1f TFLOPS" % perf.achieved(task, t)["tflops"]
            assert achieved.startswith(f"achieved: {first} = "), (task, achieved)
    assert sides == {"memory", "compute"}


def test_integer_math_is_reported_in_tops():
    """An int8 GEMM multiplies integers on the tensor cores: its task turn and reports count TOPS (0.6.7 said
    TFLOPS, row audit); weight-only int4 / int8 kernels widen the weights and multiply in fp16: TFLOPS."""
    from generator.catalog import perf
    from generator.sim.prompt import task_statement
    from generator.sim.workbench import task_fields

    ok = Expected("ok", None, "check", None, "")
    units = {}
    for task in {(t.op, t.dtype): t for t in all_tasks() if t.dtype in ("int8", "int4")}.values():
        t = perf.roofline_ms(task) * 2
        text = feedback.feedback_text(task, ok, time_ms=t, baseline_ms=3 * t, rng=_rng())
        statement = task_statement(task, task_fields(task))
        units[task.op] = perf.rate_unit(task)
        other = "TFLOPS" if units[task.op] == "TOPS" else "TOPS"
        assert f" {units[task.op]}" in text and f" {other}" not in text, task
        if perf.peak_path(task) == "tensor":
            assert f" {units[task.op]} dense" in statement and f" {other} dense" not in statement, task
    assert units["int8_gemm"] == "TOPS" and units["int4_gemm"] == units["int8_gemv"] == "TFLOPS"


@pytest.mark.parametrize("time_ms,baseline_ms", [(0.0038548, 0.0052758), (0.0032125, 0.0064869), (0.012345, 0.1),
                                                 (0.10004, 0.98765), (0.99999, 2.0), (1.2345, 10.0), (1234.5, 5000.0)])
def test_benchmark_times_print_every_recorded_digit(time_ms, baseline_ms):
    """A recorded time (5 significant digits) prints back as itself, however fast the kernel, so the printed
    speedups follow from the printed times (at 4 decimals 0.0038548 read 0.0039)."""
    best_ms = sig(baseline_ms * 0.9)      # recorded, as every *_ms is
    text = feedback.feedback_text(TASK, Expected("ok", None, "check", None, ""), time_ms=time_ms,
                                  baseline_ms=baseline_ms, best_ms=best_ms, rng=_rng())
    shown = re.search(r"time: (\S+) ms.*\nspeedup: (\S+)x vs baseline \((\S+) ms\), (\S+)x vs best so far \((\S+) ms\)",
                      text)
    time, speedup, baseline, best_speedup, best = shown.groups()
    assert (float(time), float(baseline), float(best)) == (time_ms, baseline_ms, best_ms)
    assert len(time.replace(".", "").lstrip("0")) >= 5
    assert speedup == "%.2f" % (float(baseline) / float(time))
    assert best_speedup == "%.2f" % (float(best) / float(time))
