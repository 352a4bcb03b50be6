"""A session that meets Triton's refusal of an 8-bit dot with BLOCK_K < 32 reads it once and moves on."""
from __future__ import annotations

import numpy as np

from generator.catalog.tasks import make_task
from generator.catalog.ops import OPS
from generator.kernelinfer.session import simulate_session


def test_an_8bit_triton_session_tries_a_refused_k_block_at_most_once():
    task = make_task("int8_gemm", "triton", "h100", "int8", OPS["int8_gemm"].shapes[0])
    met = 0
    for seed in range(4):
        row = simulate_session(task, np.random.default_rng(seed))
        small = [s for s in row["trace"] if s["params"].get("BLOCK_K", 32) < 32]
        assert len(small) <= 1 and all(s["status"] == "compile_error" for s in small), small
        met += len(small)
    assert met   # the naive variant's grid offers BLOCK_K = 16: the case is exercised
