"""A session that meets Triton's refusal of an 8-bit dot with BLOCK_K < 32 reads it once and moves on."""
from __future__ import annotations

import numpy as np

from generator.catalog.tasks import make_task
from generator.catalog.ops import OPS
from generator.kernelinfer.session import simulate_session


def test_an_8bit_triton_session_tries_a_refused_k_block_at_most_once():
    # a small-M GEMM: its naive variant stays within reach of the best, so the engineer tunes it (a large int8 GEMM's
    # naive kernel falls out of reach before its BLOCK_K = 16 is tried)
    task = make_task("fp8_gemm", "triton", "rtx_5090", "fp8", OPS["fp8_gemm"].shapes[4])
    met = 0
    for seed in range(4):
        row = simulate_session(task, np.random.default_rng(seed))
        small = [s for s in row["trace"] if s["params"].get("BLOCK_K", 32) < 32]
        assert len(small) <= 1 and all(s["status"] == "compile_error" for s in small), small
        met += len(small)
    assert met   # the naive variant's grid offers BLOCK_K = 16: the case is exercised
