"""Simulated wall clock of an engineer's session: thinking/editing, compiling, benchmarking.

Why a model and not a constant: real sessions spend most time thinking about structural rewrites, and the more
code a rewrite produces the longer it takes; little on a one-line tuning edit; nvcc on a large CUDA template
takes longer than Triton's JIT; a candidate that fails to compile never reaches the benchmark, and one that
does runs as often as the harness says (a slow kernel's benchmark lasts its runs). Machine time (compile, check,
benchmark) is physical and fixed per step;
think time is the engineer's and is what `schedule` stretches or squeezes so a session lands in its
[min_total, max_total] window. Shared by kernelinfer (sessions) and kernelswarm (agents' turns).
"""
from __future__ import annotations

import math

import numpy as np

# Median think/edit seconds per kind of step (lognormal around these, sigma THINK_SIGMA). Assumption (no
# published per-edit timing found; docs/calibration.md): a constant tweak is read-the-report-and-edit-one-line,
# a revert restores a saved file, a fix reads one diagnostic; a structural rewrite writes the new kernel, at
# THINK_PER_LINE_S per line of it (a 120-line kernel: ~4 minutes), so its time depends on the change's size.
THINK_S = {"tune": 30.0, "fix": 60.0, "revert": 12.0}
THINK_PER_LINE_S = 2.0
THINK_SIGMA = 0.55


def think_median_s(kind: str, source_lines: int) -> float:
    """The median think/edit seconds of a step of this kind producing a source of this many lines."""
    return THINK_PER_LINE_S * source_lines if kind == "new_variant" else THINK_S[kind]
# Compile seconds: fixed front-end/JIT cost plus a cost per source line (nvcc runs cicc + ptxas per target).
COMPILE_BASE_S = {"cuda": 6.0, "triton": 2.0}
COMPILE_PER_LINE_S = {"cuda": 0.06, "triton": 0.012}
COMPILE_ERROR_FRACTION = 0.6   # a failing compile stops early (front end or ptxas aborts)
CHECK_S = 4.0                  # correctness run against the reference
BENCH_S = 9.0                  # the benchmark's harness: process, L2 flushes, event pairs, the runs of a fast kernel
# Runs of the kernel itself in an ok step: the correctness run, then 10 warm-up and 100 timed runs (the task
# statement's timing, prompt.py), so an ok step lasts at least KERNEL_RUNS times its measured time on top.
KERNEL_RUNS = 111


def step_draws(rng: np.random.Generator, kind: str, impl: str, source_lines: int, status: str,
               time_ms: float | None = None) -> tuple[float, float]:
    """Draw one step: (the log of its think seconds, its machine seconds): think by kind and size of the change,
    compile by language and size, check/bench by status and, for an ok step, its kernel's measured `time_ms`.
    The log becomes seconds in `schedule`, for all steps on one array (a np.exp call per step costs more than
    the rest of the step's draw; the values are the same)."""
    log_think = math.log(think_median_s(kind, source_lines)) + THINK_SIGMA * rng.standard_normal()
    compile_factor = 0.8 + 0.4 * rng.random()       # Generator.random() is a Python float already
    bench_factor = 0.8 + 0.4 * rng.random() if status == "ok" else 0.0
    return log_think, _machine_s(impl, source_lines, status, compile_factor, bench_factor, time_ms)


def machine_range(impl: str, source_lines: int, status: str, time_ms: float | None = None) -> tuple[float, float]:
    """The least and most machine seconds `step_draws` gives a step of this language, source length, status and
    measured time (the QA's bound on how long a build and run took): the same formula at its factors' ends."""
    return (_machine_s(impl, source_lines, status, 0.8, 0.8, time_ms),
            _machine_s(impl, source_lines, status, 1.2, 1.2, time_ms))


def _machine_s(impl: str, source_lines: int, status: str, compile_factor: float, bench_factor: float,
               time_ms: float | None) -> float:
    """Machine seconds of a step whose compile and benchmark take these factors of their nominal times: a
    failing compile stops early; a compiled kernel is checked; a correct one is benchmarked, its KERNEL_RUNS
    runs of `time_ms` on top of the harness's own time."""
    compile_s = (COMPILE_BASE_S[impl] + COMPILE_PER_LINE_S[impl] * source_lines) * compile_factor
    if status == "compile_error":
        return compile_s * COMPILE_ERROR_FRACTION
    machine = compile_s + CHECK_S
    if status != "ok":
        return machine
    if time_ms is None:
        raise ValueError("an ok step's machine time needs its measured time_ms")
    return machine + BENCH_S * bench_factor + KERNEL_RUNS * time_ms * 1e-3


def step_cost(rng: np.random.Generator, kind: str, impl: str, source_lines: int, status: str,
              time_ms: float | None = None) -> tuple[float, float]:
    """One step's (think, machine) seconds, drawn as `step_draws` draws them: think time lognormal around its
    kind's median and elastic (what `schedule` scales), machine time fixed. A plain pair, positional arguments:
    kernelswarm asks for ~54,000 a run."""
    log_think, machine = step_draws(rng, kind, impl, source_lines, status, time_ms)
    return math.exp(log_think), machine


def schedule(draws: list[tuple[float, float]], *, min_total_s: float, max_total_s: float) -> list[int]:
    """Cumulative whole-second timestamps of steps with these `step_draws` draws, strictly increasing.

    Think time is scaled by one factor so the total falls inside [min_total_s, max_total_s] (unchanged when it
    already does): a short session is a slow, careful one, a long one a brisk one. Every step lasts >= 1 s.
    """
    n = len(draws)
    think = np.exp(np.fromiter((d[0] for d in draws), float, n))    # step_cost's think, step by step
    machine = np.fromiter((d[1] for d in draws), float, n)
    think_s, machine_s = think.sum(), machine.sum()
    total = think_s + machine_s
    target = min(max(total, min_total_s), max_total_s)
    if target != total and think_s > 0:
        scale = max(target - machine_s, 0.0) / think_s
        think = think * scale
    out = np.rint(np.cumsum(think + machine)).astype(np.int64).tolist()
    previous = 0
    for i, stamp in enumerate(out):
        previous = out[i] = previous + 1 if previous + 1 > stamp else stamp   # max(stamp, previous + 1)
    return out


def hms(seconds: int) -> str:
    """`H:MM:SS` as the feedback timestamps and `elapsed_hms` print it (hours not zero-padded)."""
    h, rem = divmod(int(seconds), 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}"
