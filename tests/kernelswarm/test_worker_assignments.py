"""A worker writes only the variant the lead (or a handoff) last gave it, and no dispatch hands out an empty slice.
A 2,400-episode folder broke both: 281 parallel-sweep dispatches read "sweep cp_async_pipeline: 0 of 18 configs"
(more workers than the strongest variant has configurations), and 3,833 worker candidates were of a variant no
dispatch, redirect or handoff gave their agent (a worker whose variant was used up took another on its own, or
tuned around the shared best's variant without being moved to it). Now a sweep gives each agent at least one
configuration, the spare agents the next strongest variant (its plan says so), and the lead moves a worker whose
variant is used up (a redirect). The `worker_assignments` rule reports a worker candidate of a variant its latest
assignment does not name.

A campaign dealt its variants round-robin and gave an agent whose share of a small variant would be empty that
variant's defaults instead (15 of 76 campaigns of a 300-episode folder: flash_decode's 3 warp_per_head
configurations went to 5 agents, the defaults to three of them, one of which held them already). Now a variant takes
no more agents than it has configurations, the others go on round-robin, and the `dispatch_shares` rule reports a
variant whose shares add up to more configurations than it has, or an empty share."""
from __future__ import annotations

import copy
import re

import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.check import semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import _round_robin_picks, simulate_episode
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
        first_round = []    # the dispatches before the first leaderboard (the first agents' work comes between them)
        for m in msgs[msgs.index(next(m for m in msgs if m["kind"] == "plan")) + 1:]:
            if m["kind"] == "leaderboard":
                break
            if m["kind"] == "dispatch":
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


# (op, gpu, dtype, shape) whose campaigns dealt a variant of 3 or 5 configurations to more agents than that
CAMPAIGN_TASKS = (("flash_decode", "a10", "fp16", {"B": 32, "H": 8, "D": 128, "T": 8192, "P": 16}),
                  ("moe_scatter", "a100", "fp16", {"T": 8192, "K": 2, "H": 4096, "E": 8}),
                  ("int4_gemv", "h100", "int4", {"M": 1, "N": 4096, "K": 4096, "G": 128}))
_SHARE = re.compile(r"^(\S+): (\d+) configs? of (\d+)$")


@pytest.fixture(scope="module")
def campaigns() -> list[dict]:
    out = []
    for i, (op, gpu, dtype, shape) in enumerate(CAMPAIGN_TASKS):
        task = make_task(op, "cuda", gpu, dtype, dict(shape))
        for j in range(12):
            row = simulate_episode(task, "campaign", rng_for(5, i, j))
            out.append({"episode_id": f"x_campaign_{row['num_messages']}", **row})
    return out


def _shares(row: dict) -> list[tuple[str, int, int]]:
    """(variant, configurations, of how many) of each share a campaign's lead dispatched, in order."""
    shares = [_SHARE.match(m["subtask"]) for m in row["messages"] if m["kind"] == "dispatch"]
    return [(share[1], int(share[2]), int(share[3])) for share in shares if share]


def _share_rule(row: dict) -> list[str]:
    return [p for p in semantic.check("episode", row) if p.startswith("dispatch_shares: ")]


def test_a_campaign_deals_no_configuration_twice_and_no_empty_share(campaigns):
    crowded = 0         # variants with fewer configurations than agents a plain round-robin gives them
    for row in campaigns:
        shares = _shares(row)
        variants = list(dict.fromkeys(v for v, _k, _n in shares))
        for index, variant in enumerate(variants):
            size = next(n for v, _k, n in shares if v == variant)
            dealt = [k for v, k, _n in shares if v == variant]
            assert min(dealt) >= 1 and sum(dealt) <= size, (row["n_agents"], variant, dealt, size)
            round_robin = len(shares) // len(variants) + (index < len(shares) % len(variants))
            crowded += round_robin > size
        assert len(shares) == row["n_agents"] - 1, shares       # every worker dispatched (the verifier is not)
        assert _share_rule(row) == [] and row_checks_pass(row)
    assert crowded >= 5, crowded


def test_round_robin_picks_skip_a_variant_with_an_agent_per_configuration():
    assert [_round_robin_picks([3, 20], 17).count(k) for k in (0, 1)] == [3, 14]
    assert _round_robin_picks([2, 1], 5) == [0, 1, 0]      # agents past every configuration get none


def _crowded_campaign(campaigns: list[dict]) -> dict:
    return copy.deepcopy(next(r for r in campaigns if r["n_agents"] >= 15))


def test_the_rule_reports_a_configuration_dealt_to_two_agents(campaigns):
    row = _crowded_campaign(campaigns)
    dispatches = [m for m in row["messages"] if m["kind"] == "dispatch"]
    variant, _count, size = _SHARE.match(dispatches[0]["subtask"]).groups()
    mine = [m for m in dispatches if m["variant"] == variant]
    total = sum(int(_SHARE.match(m["subtask"])[2]) for m in mine)
    extra = int(size) - total + 1           # one configuration more than the variant has, on the last share
    last = mine[-1]
    k = int(_SHARE.match(last["subtask"])[2]) + extra
    last["subtask"] = f"{variant}: {k} configs of {size}"
    found = _share_rule(row)
    assert found and f"the shares of {variant} add up to {int(size) + 1} configurations, but it has {size}" in found[0]
    assert not row_checks_pass(row)


def test_the_rule_reports_an_empty_share(campaigns):
    row = _crowded_campaign(campaigns)
    first = next(m for m in row["messages"] if m["kind"] == "dispatch")
    variant, _count, size = _SHARE.match(first["subtask"]).groups()
    first["subtask"] = f"{variant}: 0 configs of {size}"
    found = _share_rule(row)
    assert found and f"{first['to']} is dispatched 0 of {variant}'s {size} configurations" in found[0], found
    assert not row_checks_pass(row)
