"""The environment's reply to a candidate: the text after `[t+H:MM:SS] RESULT <status>`.

Compile errors are printed the way the real tool prints them (the diagnostic `faults` predicted, with nvcc's
source line, caret and error-count trailer, ptxas's fatal line, Triton's `CompilationError` excerpt); launch
failures as the runtime reports them; wrong results as a correctness report whose numbers fit the bug; ok
results as a benchmark report built from `perf.achieved`; the correctness numbers come from `correctness`.
Called for every step of every session (~180K times), so it is string formatting only.
"""
from __future__ import annotations

import math
from functools import lru_cache

from generator.kernels import source_constants
from generator.sim import correctness, grid_tail, stride_shift
from generator.catalog import perf
from generator.catalog.hardware import GPUS

TIME_DIGITS = 5     # significant digits of every measured time (*_ms fields), as the reports print them
_MM_SS = tuple(f":{m:02d}:{s:02d}" for m in range(60) for s in range(60))   # by the second within the hour


def result_line(elapsed_s: float, status: str) -> str:
    """`[t+H:MM:SS] RESULT ok`: the first line of every feedback turn (minutes and seconds from a table: two
    zero-padded formats less on every step)."""
    s = int(elapsed_s)
    return f"[t+{s // 3600}{_MM_SS[s % 3600]}] RESULT {status}"


def _compile_error(task, expected) -> str:
    if expected.tool == "nvcc":
        plural = "error" if expected.n_errors == 1 else "errors"
        name = expected.message.split("(", 1)[0]
        return (f"{expected.message}\n{expected.context}\n\n"
                f"{expected.n_errors} {plural} detected in the compilation of \"{name}\".")
    if expected.tool == "ptxas":
        return "\n".join(x for x in (expected.message, expected.context) if x)
    if expected.tool == "triton":
        return f"triton.compiler.errors.CompilationError: {expected.message}\n{expected.context}"
    # runtime: the candidate compiled but could not be launched
    gpu = GPUS[task.gpu]
    if expected.kind == "triton_out_of_resources":
        return expected.message
    # the runtime's error string alone (cudaGetErrorString): the figures behind it (context) are the engineer's to
    # work out from the source, as on a real GPU
    return f"compile: ok ({gpu.arch})\nlaunch: FAILED\nRuntimeError: {expected.message}"


REGION_KINDS = ("truncated_grid", "wrong_stride")    # wrong results whose report names the outputs they spoil


def failure_region(task, expected, variant, params):
    """The outputs a `REGION_KINDS` fault spoils for `task` at `params` (its report names them; None where the
    edit changes nothing or is not modelled, so the workbench never draws it there); a dropped_scale's K-varying
    scale (`correctness.dropped_block_scale`, None where the scale does not vary along K); None for other kinds."""
    if expected.kind == "truncated_grid":
        return grid_tail.unwritten(task, expected.message, source_constants(variant, params))
    if expected.kind == "wrong_stride":
        return stride_shift.wrong(task, expected.message)
    if expected.kind == "dropped_scale":
        return correctness.dropped_block_scale(task, expected.message)
    return None


def _correctness(task, expected, rng, variant, params) -> str:
    return correctness.failed_text(task, expected.kind, rng.random(6) if rng is not None else (0.5,) * 6,
                                   failure_region(task, expected, variant, params))


@lru_cache(maxsize=1024)
def ms_text(ms: float) -> str:
    """A time as the benchmark report prints it: 4 decimals, more below 1 ms, so that every time keeps the
    `TIME_DIGITS` (5) significant digits it is recorded to (0.0038548, not 0.0039) and the speedups printed
    beside it, computed from the recorded times, follow from the printed ones."""
    return "%.*f" % (max(4, TIME_DIGITS - 1 - math.floor(math.log10(ms))), ms)


@lru_cache(maxsize=256)
def _report_form(task) -> tuple[float, str, str]:
    """Cached per task (every ok step of its session asks): its GPU's DRAM peak, its roofline side (`perf.bound`:
    the report's one source for it), and the benchmark report as a %-format with what the task fixes already in
    place: that side's achieved line (its rate in `perf.rate_unit`) and the peak's text. One pass over it per step
    (the same text as f-string specs)."""
    dram_gbps, bound, unit = GPUS[task.gpu].dram_gbps, perf.bound(task), perf.rate_unit(task)
    if bound == "memory":
        achieved = ("achieved: %.0f GB/s = %.1f%% of peak DRAM bandwidth " + f"({dram_gbps:.0f} GB/s); "
                    + "%.2f " + unit)
    else:
        achieved = "achieved: %.1f " + unit + " = %.1f%% of peak; %.0f GB/s = %.1f%% of peak DRAM bandwidth"
    form = "compile: ok\n%s\ntime: %s ms (median of 100 runs)\nspeedup: %.2fx vs baseline (%s ms)%s\n" + achieved
    return dram_gbps, bound, form


def _benchmark(task, time_ms, baseline_ms, best_ms, variant, params) -> str:
    dram_gbps, bound, form = _report_form(task)
    check = correctness.ok_text(task, correctness.configuration_draw(task, variant, params), variant, params)
    bandwidth_frac, tflops, compute_frac, _ = perf.achieved_values(task, time_ms)
    best = ", %.2fx vs best so far (%s ms)" % (best_ms / time_ms, ms_text(best_ms)) if best_ms is not None else ""
    head = (check, ms_text(time_ms), baseline_ms / time_ms, ms_text(baseline_ms), best)
    bw = bandwidth_frac * dram_gbps
    if bound == "memory":
        return form % (*head, bw, 100 * bandwidth_frac, tflops)
    return form % (*head, tflops, 100 * compute_frac, bw, 100 * bandwidth_frac)


def feedback_text(task, expected, time_ms=None, baseline_ms=None, best_ms=None, rng=None, variant=None,
                  params=None) -> str:
    """The body after the RESULT line for one step (see the module docstring); positional arguments too, for the
    workbench's call on every step. `variant` and `params`: the candidate's, whose reduction the error reflects."""
    if expected.status in ("compile_error", "launch_error"):
        return _compile_error(task, expected)
    if expected.status == "wrong_result":
        return _correctness(task, expected, rng, variant, params)
    if time_ms is None or baseline_ms is None:
        raise ValueError("an ok result needs time_ms and baseline_ms for its benchmark report")
    return _benchmark(task, time_ms, baseline_ms, best_ms, variant, params)
