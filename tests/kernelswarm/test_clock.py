"""The team's clock (`timeline`): an agent starts at the message that gave it its work, not after the lead's whole
round of dispatches; one pace scales every think time, so a whole kernel takes writing; each specialist runs on its
own GPU, one build at a time. The `write_time` and `own_runs` rules catch the defects planted in real rows."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.plan import episode
from generator.kernelswarm.timeline import ASSIGN, CLOSE, RUN, SAY, WRITE, Timeline

SEED, EPISODES, HOLDOUT = 0, 60, 10


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return [episode(SEED, EPISODES, HOLDOUT, i) for i in range(EPISODES)]


def _problems(row: dict, rule: str) -> list[str]:
    return [p for p in semantic.check("episode", row) if p.startswith(f"{rule}: ")]


def test_an_assignment_starts_its_recipient_and_holds_no_one_else():
    clock = Timeline(3, pace=2.0)
    plan = clock.step(SAY, 0, 10.0)                 # the plan: everyone waits for it
    first = clock.step(ASSIGN, 0, 10.0, 1)          # the lead's time only: 20 s at pace 2
    second = clock.step(ASSIGN, 0, 10.0, 2)
    assert (plan, first, second) == (20.0, 40.0, 60.0)
    assert clock.step(WRITE, 1, 5.0) == first + 10.0    # a01 starts at its own dispatch, before a02's
    assert clock.step(RUN, 1, 7.0) == first + 17.0      # machine seconds are not scaled
    assert clock.step(WRITE, 2, 5.0) == second + 10.0
    assert clock.step(CLOSE) == second + 10.0           # the round ends with its last message
    assert clock.step(SAY, 1, 1.0) == second + 12.0     # a status after the round


def test_first_agents_write_while_the_lead_is_still_dispatching(rows):
    """In the first round (the plan's dispatches, candidates, results and new-best notices, up to the first message of
    another kind), a candidate comes before the lead's last dispatch in most episodes of 4 agents or more: before,
    every agent started after the last one."""
    early = big = 0
    for row in rows:
        kinds = []
        for m in row["messages"][1:]:
            if m["kind"] not in ("dispatch", "candidate", "result", "new_best"):
                break
            kinds.append(m["kind"])
        if kinds.count("dispatch") >= 4:
            big += 1
            early += "candidate" in kinds[:len(kinds) - kinds[::-1].index("dispatch")]
    assert early >= big // 2 > 0, (early, big)


def test_generated_rows_keep_both_rules(rows):
    for row in rows:
        assert _problems(row, "write_time") == [] and _problems(row, "own_runs") == [], row["episode_id"]
        assert row_checks_pass(row)


def _whole_kernel(row: dict) -> tuple[int, int]:
    """(index of an agent's first candidate, index of the latest message by or to that agent before it)."""
    msgs = row["messages"]
    for i, m in enumerate(msgs):
        if m["kind"] == "candidate" and not any(x["kind"] == "candidate" and x["agent"] == m["agent"] for x in msgs[:i]):
            j = max(k for k in range(i) if m["agent"] in (msgs[k]["agent"], msgs[k].get("to")))
            if msgs[j]["kind"] == "dispatch":
                return i, j
    raise AssertionError("no first candidate after a dispatch")


def test_write_time_reports_a_whole_kernel_written_at_once(rows):
    row = copy.deepcopy(next(r for r in rows if r["scenario"] == "dispatch"))
    i, j = _whole_kernel(row)
    for m in row["messages"][j + 1:i + 1]:       # plant: the kernel arrives 1 s after its dispatch (t stays monotone)
        m["t"] = row["messages"][j]["t"] + 1.0
    found = _problems(row, "write_time")
    assert found and f"message {i}: " in found[0] and "a whole kernel" in found[0], found
    assert not row_checks_pass(row)


def test_own_runs_reports_two_builds_at_once_on_one_agent(rows):
    for row in rows:
        msgs = row["messages"]
        results = [(i, m) for i, m in enumerate(msgs) if m["kind"] == "result" and m["to"] != "lead"]
        pair = next(((a, b) for (a, ra), (b, rb) in zip(results, results[1:])
                     if ra["to"] != rb["to"] and msgs[rb["ref"]]["t"] < ra["t"]
                     and not any(m["kind"] == "review" for m in msgs)), None)
        if pair:
            break
    else:
        raise AssertionError("no two agents' overlapping runs")
    row = copy.deepcopy(row)
    a, b = pair
    msgs = row["messages"]
    owner = msgs[a]["to"]
    msgs[b]["to"] = owner                          # plant: the second run is the first run's agent's too
    msgs[msgs[b]["ref"]]["agent"] = owner
    found = _problems(row, "own_runs")
    assert found and f"message {b}: {owner}'s build" in found[0], found
    assert not row_checks_pass(row)
