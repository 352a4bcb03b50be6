"""A build lasts its machine seconds: the team's pace scales think time only (`timeline`), so a
result comes `clock.machine_range` seconds after its candidate (before: the whole clock was stretched, by 0.7-14x,
median 3.6x; a CUDA compile and benchmark took a median 109 s in a 600-episode folder, 29 s in kernelinfer's model);
the `build_time` rule reports a row where one does not."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import HOURS_RANGE, SCENARIOS, simulate_episode
from generator.sim.clock import machine_range
from generator.sim.seeding import rng_for


@pytest.fixture(scope="module")
def episodes() -> list[dict]:
    rows = []
    for i, scenario in enumerate(SCENARIOS):
        for j, (op, impl, gpu) in enumerate((("rmsnorm", "cuda", "h100"), ("gemm_fp16", "triton", "a100"))):
            task = make_task(op, impl, gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
            row = simulate_episode(task, scenario, rng_for(5, i, j))
            rows.append({"episode_id": f"x_{scenario}_{row['num_messages']}", **row})
    return rows


def test_builds_last_their_machine_seconds_and_episodes_their_horizon(episodes):
    builds = 0
    for row in episodes:
        assert HOURS_RANGE[0] * 3600 <= row["elapsed_s"] <= HOURS_RANGE[1] * 3600
        msgs = row["messages"]
        reviewed = {m["ref"]: m["t"] for m in msgs if m["kind"] == "review"}
        for m in msgs:
            if m["kind"] == "result" and m["status"] == "ok":
                candidate = msgs[m["ref"]]
                lo, hi = machine_range(row["impl"], candidate["content"].count("\n") + 1, "ok", m["time_ms"])
                took = m["t"] - max(candidate["t"], reviewed.get(m["ref"], 0.0))
                assert lo - 0.15 <= took <= hi + 0.15, (row["scenario"], took, lo, hi)
                builds += 1
        assert semantic.check("episode", row) == []
    assert builds >= 40


def test_the_build_time_rule_reports_a_uniformly_stretched_clock(episodes):
    row = copy.deepcopy(episodes[0])
    for m in row["messages"]:       # the old fit: every interval, builds included, times the horizon's factor
        m["t"] = round(m["t"] * 1.5, 1)
    row["elapsed_s"] = row["messages"][-1]["t"]
    found = [m for m in semantic.check("episode", row) if m.startswith("build_time: ")]
    assert found and "its build takes" in found[0], found
    assert not row_checks_pass(row)


def test_a_slow_kernels_result_comes_after_its_benchmark_runs():
    """An ok result of a kernel measured at T ms comes at least 111 runs of T after its candidate (0.6.1: a
    238 ms naive GEMM "measured 100 times" 25 s after its candidate); `build_time` holds it to that."""
    task = make_task("gemm_fp16", "cuda", "a10", "fp16", {"M": 1024, "N": 128256, "K": 4096})
    row = simulate_episode(task, "pipeline", rng_for(5, 9, 0))
    row = {"episode_id": f"x_pipeline_{row['num_messages']}", **row}
    msgs = row["messages"]
    slow = [m for m in msgs if m["kind"] == "result" and m["status"] == "ok" and m["time_ms"] > 100]
    assert slow
    for m in slow:
        assert m["t"] - msgs[m["ref"]]["t"] >= 111 * m["time_ms"] * 1e-3
    assert semantic.check("episode", row) == []
    lie = copy.deepcopy(row)
    m = next(m for m in lie["messages"] if m in slow)
    m["t"] = lie["messages"][m["ref"]]["t"] + 20.0     # what 0.6.1's fixed benchmark time allowed
    assert any(p.startswith("build_time: ") for p in semantic.check("episode", lie))
