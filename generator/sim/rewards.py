"""kernelswarm rewards, exactly as the seed's card defines them; QA and the validator recompute them from here.

A result that improves the shared best earns min(1, log2(prev_best / new)); an ok result that does not improve
it -0.05; a compile error (or a launch failure: the kernel never ran) -0.1; a wrong result -0.3; a kernel the
GPU cannot run (an arch-gated instruction refused by ptxas) -0.05; the verdict log2(speedup) / 4; every other
message 0. The shared best starts at the task's baseline time; in kernelswarm `prev_best` is the shared best when
the result's candidate was sent, which the env has announced to every agent by then (`new_best`). The seed never
had a campaign that beat nothing: its verdict (the baseline kept) earns what an ok result that improves nothing
earns, -0.05, so it never reads as a win, nor as the near-zero bonus of a barely faster kernel.
"""
from __future__ import annotations

import math

NO_IMPROVEMENT = -0.05
COMPILE_ERROR = -0.1
LAUNCH_ERROR = COMPILE_ERROR   # compiled but the launch was refused: a kernel that never ran, as a compile error
WRONG_RESULT = -0.3
UNSUPPORTED_ARCH = -0.05
DIGITS = 6          # rewards are stored rounded to this many decimals
RESULT_STATUSES = ("ok", "compile_error", "launch_error", "wrong_result", "unsupported_arch")

_PENALTY = {"compile_error": COMPILE_ERROR, "launch_error": LAUNCH_ERROR, "wrong_result": WRONG_RESULT, "unsupported_arch": UNSUPPORTED_ARCH}


def result_reward(status: str, time_ms: float | None, prev_best_ms: float) -> float:
    """The reward of one env result message, given the shared best before it."""
    if status != "ok":
        return _PENALTY[status]
    if time_ms < prev_best_ms:
        return round(min(1.0, math.log2(prev_best_ms / time_ms)), DIGITS)
    return NO_IMPROVEMENT


def verdict_reward(speedup: float, *, improved: bool = True) -> float:
    """The terminal bonus of the lead's verdict (`improved`: the team beat the baseline)."""
    return round(math.log2(speedup) / 4, DIGITS) if improved else NO_IMPROVEMENT
