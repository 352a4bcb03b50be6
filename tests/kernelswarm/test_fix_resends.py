"""A fix never resends the broken code: a fix of an editing mistake could draw the very same mistake again, and
then sent its broken candidate unchanged and got a different report for the same code (1 of 600 episodes of a
600-episode folder, episode 274). The `fix_resends` rule reports a row where an agent resends its own code."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.plan import episode

# (seed, episodes, holdout, index): an episode with a fix. Episode 274 was the one whose a01 resent its broken code;
# since the team's clock draws its horizon first (Unreleased), its draws differ and it holds no fix, 272 holds two
RESENT = (0, 600, 100, 272)


@pytest.fixture(scope="module")
def row() -> dict:
    return episode(*RESENT)


def _candidates(row):
    return [(i, m) for i, m in enumerate(row["messages"]) if m["kind"] == "candidate"]


def test_the_episode_that_resent_its_broken_code_now_sends_a_fix(row):
    last = {}
    fixes = 0
    for i, m in _candidates(row):
        assert last.get(m["agent"]) != m["content"], f"message {i}: {m['agent']} resends its previous code"
        fixes += m["agent"] in last and m["params"] == last.get((m["agent"], "params"))
        last[m["agent"]], last[m["agent"], "params"] = m["content"], m["params"]
    assert fixes >= 1       # the episode still has the fix (same variant and params, new code)
    assert not [p for p in semantic.check("episode", row) if p.startswith("fix_resends: ")]
    assert row_checks_pass(row)


def test_the_fix_resends_rule_reports_an_agent_resending_its_code(row):
    row = copy.deepcopy(row)
    by_agent = {}
    for i, m in _candidates(row):
        if m["agent"] in by_agent:
            m["content"] = row["messages"][by_agent[m["agent"]]]["content"]     # plant: the previous code again
            break
        by_agent[m["agent"]] = i
    found = [p for p in semantic.check("episode", row) if p.startswith("fix_resends: ")]
    assert found and "resends the code of its previous candidate" in found[0], found
    assert not row_checks_pass(row)
