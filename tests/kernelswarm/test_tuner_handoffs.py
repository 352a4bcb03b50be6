"""A tuner changes the constants of the kernel it was handed, never its variant, and tunes nothing before a kernel
is handed to it. Pipelines broke both: a tuner whose variant had no untried neighbour took another variant, and
after the ladder the tuners polished the shared best without a handoff (a 300-episode folder: 60 of 495 tuner
candidates of another variant than their tuner's latest handoff, 52 before any handoff to their tuner, in 35 of
79 pipelines). The `tuner_handoffs` rule reports a row where a tuner's candidate does either."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import simulate_episode
from generator.sim.seeding import rng_for

TASKS = (("rmsnorm", "cuda", "h100"), ("gemm_fp16", "cuda", "a100"), ("flash_decode", "cuda", "rtx_5090"))


@pytest.fixture(scope="module")
def pipelines() -> list[dict]:
    rows = []
    for i, (op, impl, gpu) in enumerate(TASKS):
        task = make_task(op, impl, gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
        for j in range(8):
            row = simulate_episode(task, "pipeline", rng_for(5, i, j))
            rows.append({"episode_id": f"x_pipeline_{row['num_messages']}", **row})
    return rows


def _tuner_candidates(row: dict) -> list[int]:
    return [i for i, m in enumerate(row["messages"]) if m["kind"] == "candidate" and m["role"] == "tuner"]


def _rule(row: dict) -> list[str]:
    return [p for p in semantic.check("episode", row) if p.startswith("tuner_handoffs: ")]


def test_every_tuner_candidate_is_of_the_variant_last_handed_to_its_tuner(pipelines):
    candidates = handed_on_by_tuners = 0
    for row in pipelines:
        handed = {}
        for i, m in enumerate(row["messages"]):
            if m["kind"] == "handoff":
                handed[m["to"]] = m["variant"]
                handed_on_by_tuners += m["role"] == "tuner"     # a tuner's winner handed on after the ladder
            elif m["kind"] == "candidate" and m["role"] == "tuner":
                candidates += 1
                assert handed.get(m["agent"]) == m["variant"], (row["episode_id"], i, m["agent"], handed)
        assert _rule(row) == [] and row_checks_pass(row)
    assert candidates >= 60 and handed_on_by_tuners >= 1


def _with_tuners(pipelines: list[dict]) -> dict:
    return copy.deepcopy(next(r for r in pipelines if len(_tuner_candidates(r)) >= 3))


def test_the_rule_reports_a_tuner_candidate_of_another_variant(pipelines):
    row = _with_tuners(pipelines)
    msgs = row["messages"]
    i = _tuner_candidates(row)[-1]
    other = next(m["variant"] for m in msgs if m["kind"] == "candidate" and m["variant"] != msgs[i]["variant"])
    msgs[i]["variant"] = other
    found = _rule(row)
    assert found and f"candidate is {other}, but it was handed" in found[0], found
    assert not row_checks_pass(row)


def test_the_rule_reports_a_tuner_candidate_before_any_handoff_to_its_tuner(pipelines):
    row = _with_tuners(pipelines)
    msgs = row["messages"]
    first = next(m for m in msgs if m["kind"] == "handoff")
    tuner = first["to"]
    first["to"] = "lead"                # the first kernel handed to that tuner never reached it
    found = _rule(row)
    assert found and f"tuner {tuner}'s candidate precedes any handoff to it" in found[0], found
    assert not row_checks_pass(row)
