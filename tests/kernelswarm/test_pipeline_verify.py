"""A pipeline merges only what its verifier re-checked, as its plan says (0.6.7: 1,310 of 1,760 merges in the
default folder merged a result no verifier saw), and a verification carries what the verifier measured: its own
rerun of the benchmark, within the model's run-to-run noise, and where the result beat an earlier shared best,
whether the rerun still does (`verify_gains` reports a false word on it)."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.kernelswarm import agent_view
from generator.kernelswarm.checks import _GAIN, _REBENCH, row_checks_pass
from tests.rows import simulated_episodes

TASKS = (("flash_decode", "cuda", "a10"), ("rmsnorm", "cuda", "h100"), ("gemm_fp16", "triton", "a100"))


@pytest.fixture(scope="module")
def pipelines() -> list[dict]:
    return [row for row in simulated_episodes(TASKS, seed=3, per_task=3) if row["scenario"] == "pipeline"]


def test_every_merge_names_a_result_the_verifier_re_checked_before_it(pipelines):
    merges = gains = 0
    for row in pipelines:
        msgs = row["messages"]
        assert "every shared best re-checked by the verifier before it is merged" in msgs[0]["content"]
        verified: set[int] = set()
        for i, m in enumerate(msgs):
            if m["kind"] == "verify":
                assert m["ref"] not in verified, (row["episode_id"], i)     # once per result
                verified.add(m["ref"])
                assert _REBENCH.search(m["content"])            # its own rerun, checked by rebench_noise
                gains += bool(_GAIN.search(m["content"]))
                assert any(t["content"] == m["content"] for t in _lead_turns(row))   # the lead is copied
            elif m["kind"] == "merge":
                assert m["ref"] in verified, (row["episode_id"], i)
                merges += 1
        assert semantic.check("episode", row) == [] and row_checks_pass(row)
    assert merges >= 5 and gains >= 3


def _lead_turns(row: dict) -> list[dict]:
    """The lead's chat as user parts, one per message that reached it."""
    exchanges, last = agent_view.chat(row, "lead")
    return [{"content": part.split(":\n", 1)[1]} for ex in exchanges for part in ex.user] + \
           [{"content": part.split(":\n", 1)[1]} for part in last]


@pytest.mark.parametrize("edit, expect", [(("still beats", "does not beat"), "says the"),
                                          (("previous best ", "previous best 9"), "names the previous best")])
def test_the_rule_reports_a_false_word_on_the_gain(pipelines, edit, expect):
    row = copy.deepcopy(next(r for r in pipelines if any(_GAIN.search(m["content"]) and "still beats" in m["content"]
                                                         for m in r["messages"])))
    m = next(m for m in row["messages"] if _GAIN.search(m["content"]) and "still beats" in m["content"])
    m["content"] = m["content"].replace(*edit)
    found = [p for p in semantic.check("episode", row) if p.startswith("verify_gains: ")]
    assert found and expect in found[0], found
    assert not row_checks_pass(row)


def test_the_rule_reports_a_result_verified_twice(pipelines):
    """A status after the first verification becomes a second verification of the same result, at the status's
    time: only `verify_once` has anything to say, and the validator's shortcut does not vouch for the row."""
    row = copy.deepcopy(next(r for r in pipelines if _first_verify_then_status(r)))
    i, j = _first_verify_then_status(row)
    row["messages"][j] = {**copy.deepcopy(row["messages"][i]), "t": row["messages"][j]["t"]}
    said = f"verify_once: message {j}: verifies result {row['messages'][i]['ref']} again"
    assert semantic.check("episode", row) == [said]
    assert not row_checks_pass(row)


def _first_verify_then_status(row: dict) -> tuple[int, int] | None:
    msgs = row["messages"]
    i = next((i for i, m in enumerate(msgs) if m["kind"] == "verify"), None)
    j = None if i is None else next((j for j in range(i + 1, len(msgs)) if msgs[j]["kind"] == "status"), None)
    return None if j is None else (i, j)


def test_a_verifier_is_handed_the_result_whose_time_it_quotes(pipelines):
    """A verification quotes the time the result reported ("X ms reported"), which the env sent to the result's
    author: the verifier's chat shows that result (and its kernel) in the turn before its verification."""
    checked = 0
    for row in pipelines:
        msgs = row["messages"]
        for i, m in enumerate(msgs):
            if m["kind"] == "verify":
                exchanges, _ = agent_view.chat(row, m["agent"], before=i + 1)
                turn = next(e for e in exchanges if e.assistant == m["content"])
                shown = "\n".join(turn.user)
                assert msgs[m["ref"]]["content"] in shown and msgs[msgs[m["ref"]]["ref"]]["content"] in shown
                assert _REBENCH.search(m["content"])[1] in shown     # the reported time it quotes
                checked += 1
    assert checked >= 5
