"""A reviewer knows the task's GPU and reads what the candidate's code uses: it fails every candidate whose variant
needs a feature the GPU lacks (0.6.6's default folder: 12 of 41 such reviews said "PASS a01/wgmma_tma: ... ready to
build" for an sm_80 GPU, and the env then refused the arch); the `review_arch` rule reports a row where one passes."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.catalog.variants import gpu_lacks
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import simulate_episode
from generator.sim.seeding import rng_for

_OP, _GPU = "gemm_fp16", "a100"       # wgmma_tma and persistent need wgmma and tma, which sm_80 lacks


@pytest.fixture(scope="module")
def pipelines() -> list[dict]:
    """Pipeline episodes (the scenario with a reviewer) on a GPU that lacks features some of the op's variants need."""
    task = make_task(_OP, "cuda", _GPU, OPS[_OP].dtypes[0], OPS[_OP].shapes[0])
    rows = []
    for i in range(60):
        row = simulate_episode(task, "pipeline", rng_for(7, 3, i))
        rows.append({"episode_id": f"x_pipeline_{row['num_messages']}", **row})
    return rows


def _gated_reviews(rows):
    """(row, index, review, the features its candidate's variant needs that the GPU lacks) of each such review."""
    for row in rows:
        lacks = gpu_lacks(row["op"], row["impl"], row["dtype"], row["gpu"])
        for i, m in enumerate(row["messages"]):
            if m["kind"] == "review" and lacks[m["variant"]]:
                yield row, i, m, lacks[m["variant"]]


def test_every_review_of_a_variant_the_gpu_cannot_run_fails_it(pipelines):
    seen = 0
    for row, i, review, missing in _gated_reviews(pipelines):
        seen += 1
        assert review["status"] == "fail", review["content"]
        assert review["content"].endswith(f"needs {', '.join(sorted(missing))}, which {_GPU} (sm_80) lacks")
        assert not any(m["kind"] == "result" and m["ref"] == review["ref"] for m in row["messages"])  # never built
        assert semantic.check("episode", row) == [] and row_checks_pass(row)
    assert seen >= 5, seen


def test_the_rule_reports_a_review_that_passes_such_a_variant(pipelines):
    row, i, review, _missing = next(_gated_reviews(pipelines))
    row = copy.deepcopy(row)
    row["messages"][i].update(status="pass", content=f"PASS {review['to']}/{review['variant']}: ready to build")
    found = [p for p in semantic.check("episode", row) if p.startswith("review_arch: ")]
    assert found and f"passes {review['variant']}, which needs" in found[0], found
    assert not row_checks_pass(row)
