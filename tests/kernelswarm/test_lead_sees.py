"""The lead states a result's time and settings only from what reached it: results go to their authors and
statuses round the time, so each merge and verdict follows a leaderboard that shows every passing result before
it (0.6.1: 143 of 300 episodes merged or judged a result no leaderboard had shown the lead); `lead_sees` reports an
episode where one does not."""
from __future__ import annotations

import re

import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.kernelswarm import episode as episode_module
from generator.kernelswarm.episode import SCENARIOS, simulate_episode
from generator.sim.feedback import ms_text
from generator.sim.seeding import rng_for

TASKS = (("rmsnorm", "cuda", "h100"), ("gemm_fp16", "triton", "a100"), ("flash_decode", "cuda", "rtx_5090"))


def episodes() -> list[dict]:
    rows = []
    for i, scenario in enumerate(SCENARIOS):
        for j, (op, impl, gpu) in enumerate(TASKS):
            task = make_task(op, impl, gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
            row = simulate_episode(task, scenario, rng_for(7, i, j))
            rows.append({"episode_id": f"x_{scenario}_{row['num_messages']}", **row})
    return rows


def test_every_merge_and_verdict_names_the_top_of_the_leaderboard_before_it():
    named = 0
    for row in episodes():
        board = None
        for m in row["messages"]:
            if m["kind"] == "leaderboard":
                board = m["content"].splitlines()[1]
            elif m["kind"] in ("merge", "verdict") and m.get("ref") is not None:
                top = re.match(r"1\. (\S+) (\S+) ms", board)
                assert top and top[2] == ms_text(m["time_ms"]), (row["scenario"], m["content"], board)
                if m["kind"] == "merge":
                    assert top[1] == m["to"]
                named += 1
        assert semantic.check("episode", row) == []
    assert named >= 20


def test_the_rule_reports_a_lead_that_merges_what_it_never_saw(monkeypatch):
    monkeypatch.setattr(episode_module._Episode, "board_for_lead", lambda self: None)     # 0.6.1's lead
    found = [p for row in episodes() for p in semantic.check("episode", row) if p.startswith("lead_sees: ")]
    assert found and "that no leaderboard has shown the lead" in found[0], found


@pytest.mark.parametrize("kind", ["merge", "verdict"])
def test_a_leaderboard_after_the_merge_does_not_count(kind):
    row = next(r for r in episodes() if any(m["kind"] == kind and m.get("ref") is not None for m in r["messages"]))
    msgs = row["messages"]
    i = next(k for k, m in enumerate(msgs) if m["kind"] == kind and m.get("ref") is not None)
    board = max(k for k in range(i) if msgs[k]["kind"] == "leaderboard")
    msgs[board]["kind"] = "status"          # the board the lead read is gone: the merge is blind
    assert any(p.startswith("lead_sees: ") for p in semantic.check("episode", row))
