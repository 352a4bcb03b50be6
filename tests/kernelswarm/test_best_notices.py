"""An ok result's reward is scored against the shared best its agent was told of when it sent the candidate: the
env announces every new shared best to the team (`new_best`), and the transitions rule finds a reward that hangs
on a best the prompt never states (0.6.7: 25.1 % of the default folder's ok transitions judged improved / not
improved otherwise than their prompt allowed)."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.kernelswarm import episode as episode_module, transition_rule, transitions
from generator.sim.rewards import result_reward
from tests.rows import simulated_episodes

TASKS = (("flash_decode", "cuda", "a10"), ("rmsnorm", "cuda", "h100"))


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return simulated_episodes(TASKS, seed=11, per_task=1)


def _stated(prompt: list[dict], baseline: float) -> float:
    """The last shared best a prompt's user turns state (the baseline when none)."""
    said = transition_rule.STATED_BEST.findall("\n".join(t["content"] for t in prompt if t["role"] == "user"))
    return float(next(filter(None, said[-1]))) if said else baseline


def test_every_ok_reward_is_scored_against_the_last_best_its_prompt_states(rows):
    scored = improved = 0
    for row in rows:
        assert semantic.check("episode", row) == []
        views = transitions.rows(row)
        assert list(transition_rule.problems(row, views)) == []
        for view in views:
            if view["status"] == "ok":
                reference = _stated(view["prompt"], row["baseline_ms"])
                assert view["reward"] == pytest.approx(result_reward("ok", view["time_ms"], reference), abs=2e-6)
                scored += 1
                improved += view["reward"] > 0
    assert scored >= 50 and improved >= 10


def test_each_new_best_is_announced_right_after_its_result(rows):
    notices = 0
    for row in rows:
        msgs = row["messages"]
        for i, m in enumerate(msgs):
            if m["kind"] == "new_best":
                notices += 1
                assert msgs[i - 1]["kind"] == "result" and m["ref"] == i - 1 and m["time_ms"] == msgs[i - 1]["time_ms"]
    assert notices >= 10


def test_the_rules_report_a_team_that_is_not_told(monkeypatch):
    monkeypatch.setattr(episode_module._Episode, "announce_best", lambda self: None)      # 0.6.7's env
    found = []
    for row in simulated_episodes(TASKS[:1], seed=11, per_task=1):
        found += [p for _k, p in transition_rule.problems(row, transitions.rows(row))]
        found += semantic.check("episode", row)
    assert any("its reward is scored against the shared best" in p for p in found), found[:3]
    assert any(p.startswith("best_notices: ") for p in found), found[:3]


def test_a_notice_of_another_time_is_reported(rows):
    row = copy.deepcopy(next(r for r in rows if any(m["kind"] == "new_best" for m in r["messages"])))
    notice = next(m for m in row["messages"] if m["kind"] == "new_best")
    notice["time_ms"] *= 0.9
    assert any(p.startswith("best_notices: ") for p in semantic.check("episode", row))
