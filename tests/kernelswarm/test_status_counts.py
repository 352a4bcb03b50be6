"""A status counts what the verdict counts, env results: a candidate a reviewer sent back never ran (a 300-episode
folder had 39 statuses saying `4 tries` after 3 results, while its verdict counted only results); the `causality`
rule reports a status that counts candidates instead."""
from __future__ import annotations

import copy
import re

import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import simulate_episode
from generator.sim.seeding import rng_for

_STATUS = re.compile(r"^(a\d\d): (\d+) results?, (\d+) kept")


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    """Pipeline episodes (the scenario whose reviewer sends candidates back), with each status's message index and
    its agent's candidates and results before it."""
    out = []
    task = make_task("flash_decode", "cuda", "h100", OPS["flash_decode"].dtypes[0], OPS["flash_decode"].shapes[0])
    for i in range(40):
        row = simulate_episode(task, "pipeline", rng_for(7, 3, i))
        out.append({"episode_id": f"x_pipeline_{row['num_messages']}", **row})
    return out


def _statuses(row: dict):
    """(index, status message, its agent's candidates so far, its env results so far) of each status."""
    candidates, results = {}, {}
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "candidate":
            candidates[m["agent"]] = candidates.get(m["agent"], 0) + 1
        elif m["kind"] == "result":
            results[m["to"]] = results.get(m["to"], 0) + 1
        elif m["kind"] == "status":
            yield i, m, candidates.get(m["agent"], 0), results.get(m["agent"], 0)


def test_statuses_count_results_as_the_verdict_does(rows):
    sent_back = 0
    for row in rows:
        for _i, m, candidates, results in _statuses(row):
            said = _STATUS.match(m["content"])
            assert said and said[1] == m["agent"] and int(said[2]) == results, (m["content"], results)
            sent_back += candidates > results
        verdict = next(m for m in row["messages"] if m["kind"] == "verdict")
        ran = sum(m["kind"] == "result" for m in row["messages"])
        assert re.search(rf"\d+/{ran} results passed", verdict["content"]), verdict["content"]
        assert row_checks_pass(row) and semantic.check("episode", row) == []
    assert sent_back >= 1       # the case the finding was about: a reviewed-back candidate before a status


def test_the_rule_reports_a_status_that_counts_candidates(rows):
    row, i, candidates = next((copy.deepcopy(r), i, c) for r in rows for i, _m, c, n in _statuses(r) if c > n)
    m = row["messages"][i]
    m["content"] = _STATUS.sub(lambda s: f"{s[1]}: {candidates} results, {s[3]} kept", m["content"])
    found = [p for p in semantic.check("episode", row) if p.startswith("causality: ")]
    assert found and f"status says {candidates} results" in found[0], found
    assert not row_checks_pass(row)


def test_agents_tries_count_their_candidates_the_env_ran(rows):
    """An agent's `tries` is what its statuses and the verdict count, its env results (123 agents of the 0.6.6
    default folder counted a candidate the reviewer sent back); `agent_tallies` reports one that counts candidates
    instead."""
    sent_back = None
    for row in rows:
        candidates, results = {}, {}
        for m in row["messages"]:
            if m["kind"] == "candidate":
                candidates[m["agent"]] = candidates.get(m["agent"], 0) + 1
            elif m["kind"] == "result":
                results[m["to"]] = results.get(m["to"], 0) + 1
        for a in row["agents"]:
            assert a["tries"] == results.get(a["id"], 0), (a, results)
            if sent_back is None and candidates.get(a["id"], 0) > a["tries"]:
                sent_back = copy.deepcopy(row), a["id"], candidates[a["id"]]
    assert sent_back is not None        # the case the finding was about: an agent with a reviewed-back candidate
    row, who, written = sent_back
    next(a for a in row["agents"] if a["id"] == who)["tries"] = written
    found = [p for p in semantic.check("episode", row) if p.startswith("agent_tallies: ")]
    assert found and f"agent {who}: tries/kept/best_ms {written}/" in found[0], found
    assert not row_checks_pass(row)
