"""A session that meets ptxas's static shared-memory cap ("uses too much shared data") reads it as that variant's
limit, as it reads a launch refusal: after one back-off (a smaller tile, which may still be over) it sends no
configuration of the variant that needs as much. No catalog task reaches the cap (18.7 KB of static arrays at most,
48 KB allowed), so the task here is conv1d_causal with a 512-tap filter on the A100 (sm_80, a generic target)."""
from __future__ import annotations

import numpy as np

from generator.catalog.tasks import Task
from generator.kernelinfer.session import simulate_session
from generator.sim.workbench import Workbench

TASK = Task("conv1d_causal", "cuda", "a100", "fp16", (("B", 1), ("L", 2048), ("D", 5120), ("W", 512)))
STATIC_CAP = "uses too much shared data"


def test_a_static_smem_compile_error_marks_the_variant_limit_hit():
    wb = Workbench(TASK)
    met = 0
    for seed in range(6):
        row = simulate_session(TASK, np.random.default_rng(seed))
        results = [m["content"] for m in row["messages"][3::2]]
        hit = None        # the step of the variant's first static-smem error
        for k, (step, text) in enumerate(zip(row["trace"], results)):
            if hit is not None and step["tag"] == row["trace"][hit]["tag"] and k > hit + 1:
                assert not wb.over_limit(step["tag"], tuple(step["params"].items())), (seed, k, step)
            if hit is None and STATIC_CAP in text:
                hit, met = k, met + 1
    assert met == 6       # every session meets the cap (smem_tiled's defaults are over it)
