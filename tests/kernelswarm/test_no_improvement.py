"""kernelswarm episodes that beat nothing, and resubmissions: issue #20's crash at episode 19182 of the 20K run.

That episode (moe_scatter, CUDA, rtx_5090, bf16, campaign) had only slower passing results and launch refusals of
`tma_bulk` at its defaults, which the last push resubmitted unchanged until the verdict found no best and raised.
Now no candidate repeats a configuration whose result the team has (a refusal is shrunk or another variant
tried), and a campaign that still beats nothing ends with a verdict that keeps the baseline. Such episodes are
forced here by a bench whose naive kernel already runs at the roofline (nothing can be faster), on the 19182
task, whose faster variants are refused at their defaults.
"""
from __future__ import annotations

import copy
import re

import pytest

from generator.catalog import perf
from generator.catalog.ops import shape_label
from generator.check import qa, schemas
from generator.kernelswarm import agent_turns, agent_view, stats, transition_rule, transitions
from generator.kernelswarm.checks import CHECKS, row_checks_pass
from generator.kernelswarm.dataset import outcome_notes
from generator.kernelswarm.episode import LAST_PUSH, SCENARIOS, simulate_episode
from generator.kernelswarm.plan import STREAM, episode, plan
from generator.sim import rewards, workbench
from generator.sim.feedback import ms_text
from generator.sim.seeding import rng_for

CRASHED = (0, 20000, 100, 19182)     # (seed, episodes, holdout, index) of the 20K run's traceback


def _failed(rows):
    report = qa.run_checks(CHECKS, rows, "test", id_field="episode_id")
    return {c["name"] for c in report["checks"] if not c["passed"]}


def _verdict(row) -> dict:
    return next(m for m in reversed(row["messages"]) if m["kind"] == "verdict")


def _resent(row) -> list[int]:
    """Candidates that repeat the (variant, params) of an earlier result the team had: measured or refused."""
    msgs, known, out = row["messages"], set(), []
    for i, m in enumerate(msgs):
        key = (m.get("variant"), repr(sorted((m.get("params") or {}).items())))
        if m["kind"] == "candidate" and key in known:
            out.append(i)
        elif m["kind"] == "result" and m["status"] in ("ok", "launch_error"):
            candidate = msgs[m["ref"]]
            known.add((candidate["variant"], repr(sorted(candidate["params"].items()))))
    return out


@pytest.fixture(scope="module")
def crashed_row():
    return episode(*CRASHED)


@pytest.fixture(scope="module")
def kept_rows():
    """One episode per scenario on the crashed episode's task, the naive kernel already at the roofline."""
    task, _scenario = plan(*CRASHED[:3]).episodes[CRASHED[3]]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(perf, "baseline_ms", perf.roofline_ms)
        workbench.workbench.cache_clear()          # benches and task texts hold the baseline they were made with
        agent_view._task_text.cache_clear()
        try:
            rows = []
            for n, scenario in enumerate(SCENARIOS):
                row = simulate_episode(task, scenario, rng_for(0, STREAM, n))
                rows.append({"episode_id": f"{task.op}_{task.gpu}_{shape_label(dict(task.shape))}_{scenario}_"
                                           f"{row['num_messages']}", **row})
            views = [(transitions.rows(r), agent_turns.rows(r)) for r in rows]
        finally:
            workbench.workbench.cache_clear()
            agent_view._task_text.cache_clear()
    return rows, views


def test_the_crashed_episode_now_ends_with_a_verdict_that_passes_qa(crashed_row):
    row = crashed_row
    assert (row["op"], row["gpu"], row["dtype"], row["scenario"]) == ("moe_scatter", "rtx_5090", "bf16", "campaign")
    assert _failed([row]) == set() and row_checks_pass(row)
    assert schemas.compiled("episode").errors(row) == []
    assert _resent(row) == []
    # its tma_bulk refusals were shrunk, not resent: a smaller tma_bulk configuration ran after the first refusal
    msgs = row["messages"]
    refusals = [i for i, m in enumerate(msgs) if m["kind"] == "result" and m["status"] == "launch_error"
                and m["variant"] == "tma_bulk"]
    assert refusals
    later = [msgs[m["ref"]]["params"] for m in msgs[refusals[0]:] if m["kind"] == "result" and m["variant"] == "tma_bulk"]
    assert len({repr(sorted(p.items())) for p in later}) == len(later)


def test_no_candidate_repeats_a_configuration_the_team_has_measured_or_refused():
    rows = [episode(0, 2400, 100, i) for i in range(0, 2400, 80)]
    assert {r["scenario"] for r in rows} == set(SCENARIOS)
    assert {i: _resent(r) for i, r in enumerate(rows) if _resent(r)} == {}


def test_a_campaign_that_beats_nothing_keeps_the_baseline(kept_rows):
    rows, _views = kept_rows
    for row in rows:
        verdict, results = _verdict(row), [m for m in row["messages"] if m["kind"] == "result"]
        ok = [m for m in results if m["status"] == "ok"]
        assert row["best_ms"] == row["baseline_ms"] and row["speedup"] == 1.0
        assert verdict["kept"] == "baseline" and verdict["time_ms"] == row["baseline_ms"]
        assert not {"variant", "params", "ref"} & verdict.keys()
        assert verdict["reward"] == rewards.NO_IMPROVEMENT < 0
        assert _failed([row]) == set() and row_checks_pass(row), row["scenario"]
        assert schemas.compiled("episode").errors(row) == []
        assert _resent(row) == []
        # the reason is the results': passed / results, the fastest passing one and who ran it, the refusals
        said = re.search(r"(\d+)/(\d+) results passed", verdict["content"])
        assert (int(said[1]), int(said[2])) == (len(ok), len(results))
        if ok:
            fastest = min(ok, key=lambda m: (m["time_ms"], m["to"]))
            assert f"fastest {ms_text(fastest['time_ms'])} ms by {fastest['to']}" in verdict["content"]
        refused = sum(m["status"] == "launch_error" for m in results)
        assert (f"{refused} refused at launch" in verdict["content"]) == (refused > 0)


def test_the_last_push_is_bounded(kept_rows):
    """After the scenario's own work, the lead's last push adds at most LAST_PUSH candidates (and their fixes)."""
    rows, _views = kept_rows
    for row in rows:
        last_word = max(i for i, m in enumerate(row["messages"]) if m["kind"] in ("merge", "leaderboard", "verify",
                                                                                  "status", "plan", "dispatch"))
        pushed = [m for m in row["messages"][last_word:] if m["kind"] == "candidate"]
        assert len(pushed) <= 2 * LAST_PUSH


def test_views_of_a_kept_baseline_episode(kept_rows):
    rows, views = kept_rows
    for row, (transition_rows, turn_rows) in zip(rows, views):
        assert len(transition_rows) == sum(m["kind"] == "result" for m in row["messages"])
        with pytest.MonkeyPatch.context() as mp:      # the rule restates the task, as the rows did: same baseline
            mp.setattr(perf, "baseline_ms", perf.roofline_ms)
            workbench.workbench.cache_clear()
            agent_view._task_text.cache_clear()
            try:
                assert list(transition_rule.problems(row, transition_rows)) == []
            finally:
                workbench.workbench.cache_clear()
                agent_view._task_text.cache_clear()
        lead = [t for t in turn_rows if t["agent"] == "lead"][-1]
        assert lead["messages"][-1]["content"].endswith(_verdict(row)["content"])


@pytest.mark.parametrize("lie", ["faster_result_hidden", "improvement_claimed", "baseline_claimed"])
def test_a_planted_lie_about_the_outcome_fails_best_and_speedup(kept_rows, crashed_row, lie):
    rows, _views = kept_rows
    if lie == "faster_result_hidden":          # a passing result beat the baseline, but the verdict keeps it
        row = copy.deepcopy(next(r for r in rows if any(m["kind"] == "result" and m["status"] == "ok"
                                                        for m in r["messages"])))
        result = next(m for m in row["messages"] if m["kind"] == "result" and m["status"] == "ok")
        result["time_ms"] = row["baseline_ms"] * 0.9
    elif lie == "improvement_claimed":         # nothing beat the baseline, but the row claims its fastest result
        row = copy.deepcopy(next(r for r in rows if any(m["kind"] == "result" and m["status"] == "ok"
                                                        for m in r["messages"])))
        fastest = min((i for i, m in enumerate(row["messages"]) if m["kind"] == "result" and m["status"] == "ok"),
                      key=lambda i: row["messages"][i]["time_ms"])
        result = row["messages"][fastest]
        candidate = row["messages"][result["ref"]]
        verdict = _verdict(row)
        del verdict["kept"]
        verdict.update(variant=result["variant"], params=candidate["params"], time_ms=result["time_ms"], ref=fastest,
                       reward=rewards.verdict_reward(row["baseline_ms"] / result["time_ms"]))
        row.update(best_ms=result["time_ms"], speedup=round(row["baseline_ms"] / result["time_ms"], 4))
    else:                                      # the team beat the baseline, but the verdict keeps it
        row = copy.deepcopy(crashed_row)
        verdict = _verdict(row)
        for field in ("variant", "params", "ref"):
            del verdict[field]
        verdict.update(kept="baseline", time_ms=row["baseline_ms"], reward=rewards.NO_IMPROVEMENT)
        row.update(best_ms=row["baseline_ms"], speedup=1.0)
    assert schemas.compiled("episode").errors(row) == []      # a well-formed row: only QA can tell
    assert "best_and_speedup" in _failed([row])
    assert not row_checks_pass(row)


def test_stats_and_card_count_the_episodes_that_kept_the_baseline(kept_rows, crashed_row):
    rows, _views = kept_rows
    shard = stats.shard_stats(rows + [crashed_row])
    document = stats.combine([shard], holdout_tasks=0, data_bytes=1, options={})
    assert document["no_improvement"] == len(rows) and document["episodes"] == len(rows) + 1
    notes = outcome_notes(document)
    assert notes.startswith(f"## Outcomes\n\n{len(rows)} of {len(rows) + 1} episodes") and "no_improvement" in notes


def test_a_verdict_takes_exactly_one_of_its_two_forms(kept_rows, crashed_row):
    rules = schemas.compiled("episode")
    kept = copy.deepcopy(kept_rows[0][0])
    _verdict(kept)["ref"] = 0                  # a kept baseline names no result
    best = copy.deepcopy(crashed_row)
    _verdict(best)["kept"] = "baseline"        # the best form cannot also keep the baseline
    neither = copy.deepcopy(kept_rows[0][0])
    del _verdict(neither)["kept"]
    assert not any(rules.is_valid(r) for r in (kept, best, neither))
