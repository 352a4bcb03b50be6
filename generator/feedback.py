"""The environment's reply to a candidate: the text after `[t+H:MM:SS] RESULT <status>`.

Compile errors are printed the way the real tool prints them (the diagnostic `faults` predicted, with nvcc's
source line, caret and error-count trailer, ptxas's fatal line, Triton's `CompilationError` excerpt); launch
failures as the runtime reports them; wrong results as a correctness report whose numbers fit the bug; ok
results as a benchmark report built from `perf.achieved`. Called for every step of every session (~180K times),
so it is string formatting only.
"""
from __future__ import annotations

import math
from functools import lru_cache

from generator import perf
from generator.hardware import GPUS

# Elementwise check: |out - ref| <= atol + rtol * |ref| against a float64 reference.
TOLERANCES = {"fp32": (1e-5, 1e-5), "fp16": (1e-2, 1e-2), "bf16": (2e-2, 2e-2), "fp8": (1e-1, 5e-2),
              "int8": (5e-2, 2e-2), "int4": (5e-2, 2e-2), "fp4": (1e-1, 1e-1)}


_MM_SS = tuple(f":{m:02d}:{s:02d}" for m in range(60) for s in range(60))   # by the second within the hour


def result_line(elapsed_s: float, status: str) -> str:
    """`[t+H:MM:SS] RESULT ok`: the first line of every feedback turn (minutes and seconds from a table: two
    zero-padded formats less on every step)."""
    s = int(elapsed_s)
    return f"[t+{s // 3600}{_MM_SS[s % 3600]}] RESULT {status}"


def tolerance_text(task) -> str:
    atol, rtol = TOLERANCES[task.dtype]
    return (f"elementwise against a float64 reference, pass if |out - ref| <= atol + rtol * |ref| with "
            f"atol={atol:g}, rtol={rtol:g} ({task.dtype}).")


def _output_numel(task) -> int:
    """A plausible output size: the shape without its reduction-like dims (display only)."""
    reduce = {"K", "T", "P", "L", "S", "SK", "TAPS", "E", "V"}
    sizes = [v for k, v in task.shape if k not in reduce] or [v for _k, v in task.shape]
    return max(1, math.prod(sizes))


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
    detail = f"\n  ({expected.context})" if expected.context else ""
    return (f"compile: ok ({gpu.arch})\nlaunch: FAILED\nRuntimeError: {expected.message}{detail}")


def _correctness(task, kind: str | None, rng) -> str:
    atol, rtol = TOLERANCES[task.dtype]
    n = _output_numel(task)
    u = rng.random(4) if rng is not None else (0.5, 0.5, 0.5, 0.5)
    if kind == "off_by_one_mask":
        bad = max(1, int(n * 10 ** (-3 - 2 * u[0])))
        first = n - bad if u[1] < 0.5 else int(n * u[1]) | 1
        err = 10 ** (0.5 + 2 * u[2])
    elif kind == "dropped_scale":
        bad = int(n * (0.97 + 0.03 * u[0]))
        first = int(3 * u[1])
        err = 10 ** (-0.3 + 2.0 * u[2])
    elif kind == "wrong_stride":
        bad = int(n * (0.5 + 0.45 * u[0]))
        row = max(1, int(math.sqrt(n)))
        first = row * (1 + int(3 * u[1]))
        err = 10 ** (0.5 * u[2])
    elif kind == "racy_reduction":
        bad = max(1, int(n * (0.01 + 0.3 * u[0])))
        first = int(n * u[1] * 0.1)
        err = 10 ** (-1.5 + 1.5 * u[2])
    else:   # missing barrier and anything else: sporadic stale reads
        bad = max(1, int(n * 10 ** (-2.5 + 2 * u[0])))
        first = int(n * u[1])
        err = 10 ** (-1 + 1.5 * u[2])
    bad = min(bad, n)
    first = min(first, n - 1)
    rel = err / max(1e-3, 0.2 + u[3])
    return (f"compile: ok\ncorrectness: FAILED\n"
            f"  max_abs_err = {err:.4g} (atol = {atol:g}), max_rel_err = {rel:.4g} (rtol = {rtol:g})\n"
            f"  mismatches: {bad} / {n} ({100.0 * bad / n:.2f}%), first bad index: {first}")


@lru_cache(maxsize=64)
def _ms4(ms: float) -> str:
    """`f"{ms:.4f}"` for the times a session prints again and again (its baseline, its best so far)."""
    return f"{ms:.4f}"


@lru_cache(maxsize=256)
def _report_constants(task) -> tuple[float, str, float, str]:
    """What a task's every benchmark report repeats: its atol and the text after max_abs_err, its GPU's DRAM
    peak and that peak's text."""
    atol = TOLERANCES[task.dtype][0]
    dram_gbps = GPUS[task.gpu].dram_gbps
    return atol, f" <= atol = {atol:g})\ntime: ", dram_gbps, f"({dram_gbps:.0f} GB/s); "


def _benchmark(task, time_ms, baseline_ms, best_ms, rng) -> str:
    # %-formatting: one pass over the template for all the numbers (the same text as f-string specs, ~0.3 us less)
    atol, atol_text, dram_gbps, dram_text = _report_constants(task)
    u = rng.random() if rng is not None else 0.5
    err = atol * 10 ** (-2.0 + 1.5 * u)
    bandwidth_frac, tflops, compute_frac, bound = perf.achieved_values(task, time_ms)
    best = ", %.2fx vs best so far (%s ms)" % (best_ms / time_ms, _ms4(best_ms)) if best_ms is not None else ""
    bw = bandwidth_frac * dram_gbps
    if bound == "memory":
        achieved = "achieved: %.0f GB/s = %.1f%% of peak DRAM bandwidth %s%.2f TFLOPS" % (
            bw, 100 * bandwidth_frac, dram_text, tflops)
    else:
        achieved = "achieved: %.1f TFLOPS = %.1f%% of peak; %.0f GB/s = %.1f%% of peak DRAM bandwidth" % (
            tflops, 100 * compute_frac, bw, 100 * bandwidth_frac)
    return ("compile: ok\ncorrectness: ok (max_abs_err = %.3g%s%.4f ms (median of 100 runs)\n"
            "speedup: %.2fx vs baseline (%s ms)%s\n%s") % (
        err, atol_text, time_ms, baseline_ms / time_ms, _ms4(baseline_ms), best, achieved)


def feedback_text(task, expected, time_ms=None, baseline_ms=None, best_ms=None, rng=None) -> str:
    """The body after the RESULT line for one step (see the module docstring); positional arguments too, for the
    workbench's call on every step."""
    if expected.status in ("compile_error", "launch_error"):
        return _compile_error(task, expected)
    if expected.status == "wrong_result":
        return _correctness(task, expected.kind, rng)
    if time_ms is None or baseline_ms is None:
        raise ValueError("an ok result needs time_ms and baseline_ms for its benchmark report")
    return _benchmark(task, time_ms, baseline_ms, best_ms, rng)
