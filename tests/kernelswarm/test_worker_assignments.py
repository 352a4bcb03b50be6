"""A worker writes only the variant the lead (or a handoff) last gave it, and no dispatch hands out an empty slice.
A 2,400-episode folder broke both: 281 parallel-sweep dispatches read "sweep cp_async_pipeline: 0 of 18 configs"
(more workers than the strongest variant has configurations), and 3,833 worker candidates were of a variant no
dispatch, redirect or handoff gave their agent (a worker whose variant was used up took another on its own, or
tuned around the shared best's variant without being moved to it). Now a sweep gives each agent at least one
configuration, the spare agents the next strongest variant (its plan says so), and the lead moves a worker whose
variant is used up (a redirect). The `worker_assignments` rule reports a worker candidate of a variant its latest
assignment does not name."""
from __future__ import annotations

import copy
import re

import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.check import semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import simulate_episode
from generator.sim.seeding import rng_for

# (op, gpu, dtype, shape) where the old sweeps handed out empty slices: variants of fewer configurations than agents
SMALL_GRIDS = (("flash_decode", "h200", "bf16", {"B": 32, "H": 8, "D": 128, "T": 8192, "P": 16}),
               ("swa_decode", "h100", "fp16", {"B": 32, "H": 8, "D": 128, "T": 16384, "W": 4096}),
               ("kv_append", "a10", "bf16", OPS["kv_append"].shapes[0]))
_LADDER = re.compile(r"propose variants in order: (.+)$")
_MOVED = re.compile(r"nothing left|untried")        # a redirect of a worker whose variant is used up
_CREW = re.compile(r"(\d+) agents? on the (?:strongest variant|next strongest)")


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    out = []
    for i, (op, gpu, dtype, shape) in enumerate(SMALL_GRIDS):
        task = make_task(op, "cuda", gpu, dtype, dict(shape))
        for j, scenario in enumerate(("parallel_sweep",) * 8 + ("campaign", "dispatch")):
            row = simulate_episode(task, scenario, rng_for(3, i, j))
            out.append({"episode_id": f"x_{scenario}_{row['num_messages']}", **row})
    return out


def _worker_candidates(row: dict) -> list[int]:
    return [i for i, m in enumerate(row["messages"]) if m["kind"] == "candidate" and m["role"] == "worker"]


def _rule(row: dict) -> list[str]:
    return [p for p in semantic.check("episode", row) if p.startswith("worker_assignments: ")]


def test_every_worker_candidate_is_of_the_variant_its_latest_assignment_names(rows):
    candidates = moved = 0
    for row in rows:
        given = {}
        for i, m in enumerate(row["messages"]):
            if m["kind"] in ("dispatch", "redirect", "handoff"):
                ladder = _LADDER.search(m["subtask"] if "subtask" in m else "")
                given[m["to"]] = set(ladder[1].split(", ")) if ladder else {m["variant"]}
                moved += m["kind"] == "redirect" and _MOVED.search(m["content"]) is not None
            elif m["kind"] == "candidate" and m["role"] == "worker":
                candidates += 1
                assert m["variant"] in given.get(m["agent"], ()), (row["episode_id"], i, m["agent"], given)
        assert _rule(row) == [] and row_checks_pass(row)
    assert candidates >= 300 and moved >= 1, (candidates, moved)


def test_a_sweep_hands_out_no_empty_slice_and_its_plan_names_every_crew(rows):
    split_plans = 0
    for row in [r for r in rows if r["scenario"] == "parallel_sweep"]:
        msgs = row["messages"]
        plan = next(m["content"] for m in msgs if m["kind"] == "plan")
        first_round = []
        for m in msgs[msgs.index(next(m for m in msgs if m["kind"] == "plan")) + 1:]:
            if m["kind"] != "dispatch":
                break
            first_round.append(m)
            assert not re.search(r": 0 of \d+ configs", m["content"]), m["content"]
        variants = list(dict.fromkeys(m["variant"] for m in first_round))
        crews = [sum(m["variant"] == v for m in first_round) for v in variants]
        if len(variants) > 1:
            split_plans += 1
            assert [int(n) for n in _CREW.findall(plan)] == crews, (plan, crews)
        assert sum(crews) == row["n_agents"] or "left without a config" in plan, (plan, crews)
    assert split_plans >= 1


def test_a_campaign_plan_counts_the_variants_it_dispatches_and_one_config_is_singular(rows):
    for row in [r for r in rows if r["scenario"] == "campaign"]:
        dispatches = [m for m in row["messages"] if m["kind"] == "dispatch"]
        plan = next(m["content"] for m in row["messages"] if m["kind"] == "plan")
        assert f"over {len({m['variant'] for m in dispatches})} variants" in plan, plan
        for m in dispatches:
            count, noun = re.search(r": (\d+) (configs?) of \d+$", m["content"]).groups()
            assert (noun == "config") == (count == "1"), m["content"]


def _with_candidates(rows: list[dict]) -> dict:
    return copy.deepcopy(next(r for r in rows if r["scenario"] == "campaign" and len(_worker_candidates(r)) >= 3))


def test_the_rule_reports_a_worker_candidate_of_a_variant_not_assigned_to_it(rows):
    row = _with_candidates(rows)
    msgs = row["messages"]
    i = _worker_candidates(row)[-1]
    other = next(m["variant"] for m in msgs if m["kind"] == "candidate" and m["variant"] != msgs[i]["variant"])
    msgs[i]["variant"] = other
    found = _rule(row)
    assert found and f"candidate is {other}, but it was assigned" in found[0], found
    assert not row_checks_pass(row)


def test_the_rule_reports_a_worker_candidate_before_any_assignment_to_it(rows):
    row = _with_candidates(rows)
    first = next(m for m in row["messages"] if m["kind"] == "dispatch")
    worker = first["to"]
    first["to"] = "lead"                # the first dispatch to that worker never reached it
    found = _rule(row)
    assert found and f"worker {worker}'s candidate is" in found[0] and "assigned nothing" in found[0], found
    assert not row_checks_pass(row)
