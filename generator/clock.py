"""Simulated wall clock of an engineer's session: thinking/editing, compiling, benchmarking.

Why a model and not a constant: real sessions spend most time thinking about structural rewrites, little on a
one-line tuning edit; nvcc on a large CUDA template takes longer than Triton's JIT; a candidate that fails to
compile never reaches the benchmark. Machine time (compile, check, benchmark) is physical and fixed per step;
think time is the engineer's and is what `schedule` stretches or squeezes so a session lands in its
[min_total, max_total] window. Shared by kernelinfer (sessions) and kernelswarm (agents' turns).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

# Median think/edit seconds per kind of step (lognormal around these, sigma THINK_SIGMA).
THINK_S = {"new_variant": 220.0, "tune": 41.0, "fix": 59.0, "revert": 25.0}
THINK_SIGMA = 0.55
# Compile seconds: fixed front-end/JIT cost plus a cost per source line (nvcc runs cicc + ptxas per target).
COMPILE_BASE_S = {"cuda": 6.0, "triton": 2.0}
COMPILE_PER_LINE_S = {"cuda": 0.06, "triton": 0.012}
COMPILE_ERROR_FRACTION = 0.6   # a failing compile stops early (front end or ptxas aborts)
CHECK_S = 4.0                  # correctness run against the reference
BENCH_S = 9.0                  # warm-up plus timed iterations plus L2 flushes


class StepCost(NamedTuple):
    """Seconds one step costs: `think` is elastic (scaled by `schedule`), `machine` is not."""

    think: float
    machine: float


def step_seconds(rng: np.random.Generator, kind: str, impl: str, source_lines: int, status: str) -> tuple[float, float]:
    """Draw the (think, machine) seconds of one step: think time by kind, compile by language and size,
    check/bench by status. A plain pair from positional arguments: drawn for every step of every session."""
    think = THINK_S[kind] * float(np.exp(THINK_SIGMA * rng.standard_normal()))
    compile_s = COMPILE_BASE_S[impl] + COMPILE_PER_LINE_S[impl] * source_lines
    compile_s *= 0.8 + 0.4 * rng.random()       # Generator.random() is a Python float already
    if status == "compile_error":
        return think, compile_s * COMPILE_ERROR_FRACTION
    machine = compile_s + CHECK_S
    if status == "ok":
        machine += BENCH_S * (0.8 + 0.4 * rng.random())
    return think, machine


def step_cost(rng: np.random.Generator, *, kind: str, impl: str, source_lines: int, status: str) -> StepCost:
    """`step_seconds` with named arguments and fields."""
    return StepCost._make(step_seconds(rng, kind, impl, source_lines, status))


def schedule(costs: list[tuple[float, float]], *, min_total_s: float, max_total_s: float) -> list[int]:
    """Cumulative whole-second timestamps, one per step (a (think, machine) pair or StepCost), strictly increasing.

    Think time is scaled by one factor so the total falls inside [min_total_s, max_total_s] (unchanged when it
    already does): a short session is a slow, careful one, a long one a brisk one. Every step lasts >= 1 s.
    """
    think, machine = (np.array(seconds, float) for seconds in zip(*costs))
    total = think.sum() + machine.sum()
    target = min(max(total, min_total_s), max_total_s)
    if target != total and think.sum() > 0:
        scale = max(target - machine.sum(), 0.0) / think.sum()
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
