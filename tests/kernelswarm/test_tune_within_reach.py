"""A team stops tuning a variant once its fastest measured time is further behind the shared best (the baseline until
a result beats it) than any tune of it can close (Workbench.out_of_reach), as kernelinfer's engineer does: 0.6.7's
leads still redirected idle agents to such variants (200 episodes: 43 of 3,078 candidates of a variant already
measured). The `tune_within_reach` rule reports a row where a candidate is of one."""
from __future__ import annotations

import copy
import re

import pytest

from generator.check import reports, semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.sim.workbench import Workbench
from rows import simulated_episodes

_TASKS = (("rmsnorm", "cuda", "h100"), ("gemm_fp16", "cuda", "a100"), ("triton_rmsnorm", "triton", "h100"))


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return simulated_episodes(_TASKS, seed=11, per_task=6)


def _left_behind(rows):
    """(row, i, variant) where message i is a candidate with no ok result since the latest leaderboard or merge (what
    the team read then is every result before it) and `variant` ran but is out of reach of the team's best by then."""
    for row in rows:
        bench = Workbench(reports.task_of(row))
        fastest, best, read = {}, row["baseline_ms"], False
        for i, m in enumerate(row["messages"]):
            if m["kind"] in ("leaderboard", "merge"):
                read = True
            elif m["kind"] == "candidate" and read:
                behind = [tag for tag, time in fastest.items() if bench.out_of_reach(tag, time, best)]
                if behind:
                    yield row, i, behind[0]
            elif m["kind"] == "result" and m["status"] == "ok":
                fastest[m["variant"]] = min(fastest.get(m["variant"], m["time_ms"]), m["time_ms"])
                best = min(best, m["time_ms"])
                read = False


def test_teams_leave_variants_out_of_reach_and_never_tune_them(rows):
    assert sum(1 for _ in _left_behind(rows)) >= 5       # the case arises
    for row in rows:
        assert [p for p in semantic.check("episode", row) if p.startswith("tune_within_reach")] == []


def test_the_rule_reports_a_candidate_of_a_variant_out_of_reach(rows):
    row, i, behind = next(_left_behind(rows))
    assert row["messages"][i]["variant"] != behind
    broken = copy.deepcopy(row)
    broken["messages"][i]["variant"] = behind
    found = [p for p in semantic.check("episode", broken) if p.startswith("tune_within_reach: ")]
    assert found and f"message {i}: " in found[0] and f"writes {behind}, out of reach" in found[0], found
    assert not row_checks_pass(broken)



# the variant a move-on redirect leaves, as wording.move_on's no-configuration-left texts name it, and its out-of-reach
# texts
_NONE_LEFT = re.compile(r"(\S+) has nothing left to try;|out of untried (\S+) configs|nothing untried left in (\S+);")
_BEHIND = re.compile(r"can't catch up with the best|can close the gap to the best|too far behind the best")


def test_a_move_on_says_why_the_variant_is_left(rows):
    """A redirect off a variant out of reach says it cannot catch up, never that it has no untried configuration
    (it may have many: 300 episodes before, 31 of 150 such redirects said so falsely)."""
    behind = 0
    for row in rows:
        bench, msgs = Workbench(reports.task_of(row)), row["messages"]
        for i, m in enumerate(msgs):
            said = _NONE_LEFT.search(m["content"]) if m["kind"] == "redirect" else None
            behind += m["kind"] == "redirect" and bool(_BEHIND.search(m["content"]))
            if said is None:
                continue
            done = next(filter(None, said.groups()))
            sent = {tuple(c["params"].items()) for c in msgs[:i] if c["kind"] == "candidate" and c["variant"] == done}
            refused = any(c["kind"] == "result" and c["variant"] == done and c["status"] == "launch_error"
                          for c in msgs[:i])
            assert all(tuple(p.items()) in sent or refused and bench.over_limit(done, tuple(p.items()))
                       for p in bench.grid(done)), (row["episode_id"], i)
    assert behind >= 3
