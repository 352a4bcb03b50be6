"""A team that reads ptxas's static shared-memory error ("uses too much shared data") knows that variant's limit,
as it knows one from a launch refusal: no one sends another configuration of it over the cap. No catalog task
reaches the cap (18.7 KB of static arrays at most, 48 KB allowed), so the task here is conv1d_causal with a 512-tap
filter on the A100, whose smem_tiled defaults are over it."""
from __future__ import annotations

import numpy as np

from generator.catalog.tasks import Task
from generator.kernelswarm.episode import _Episode

TASK = Task("conv1d_causal", "cuda", "a100", "fp16", (("B", 1), ("L", 2048), ("D", 5120), ("W", 512)))
TAG = "smem_tiled"


def test_a_static_smem_compile_error_marks_the_variant_limit_hit():
    ep = _Episode(TASK, "dispatch", np.random.default_rng(0))
    over = [p for p in ep.wb.grid(TAG) if ep.wb.over_limit(TAG, tuple(p.items()))]
    under = [p for p in ep.wb.grid(TAG) if p not in over]
    assert len(over) >= 2 and under, (len(over), len(under))
    out = ep.attempt(ep.builders()[0], TAG, over[0], "tune")      # a tune edit carries no mistake of its own
    assert out.expected.kind == "static_smem_overflow"
    assert all(ep.worth_sending(TAG, p) for p in over[1:])        # its result not read yet
    ep.close_round()
    assert "uses too much shared data" in ep.messages[-1]["content"], ep.messages[-1]["content"]
    assert not any(ep.worth_sending(TAG, p) for p in over[1:])
    assert all(ep.worth_sending(TAG, p) for p in under)
