"""kernelswarm episodes: rewards, QA invariants (which must catch broken rows), determinism, ids, scale."""
from __future__ import annotations

import copy
import re
import math

import numpy as np
import orjson
import pytest

from generator.check import qa
from generator.sim import rewards
from generator.sim.feedback import ms_text
from generator.kernelswarm import episode as swarm, plan as swarm_plan
from generator.kernelswarm.episode import SCENARIOS, simulate_episode
from generator.kernelswarm.plan import SWARM_IMPLS, episode, plan
from generator.sim.seeding import rng_for
from generator.kernelswarm.checks import CHECKS as KS_CHECKS

SEED, EPISODES, HOLDOUT = 3, 120, 20


@pytest.fixture(scope="module")
def rows():
    return [episode(SEED, EPISODES, HOLDOUT, i) for i in range(0, EPISODES, 3)]


def _failed(rows_):
    report = qa.run_checks(KS_CHECKS, rows_, "test", id_field="episode_id")
    return {c["name"] for c in report["checks"] if not c["passed"]}


def test_reward_formula_matches_the_seed_card():
    assert rewards.result_reward("ok", 0.5, 1.0) == 1.0                  # log2(2) = 1, capped at 1
    assert rewards.result_reward("ok", 0.25, 1.0) == 1.0                 # log2(4) = 2 -> 1
    assert rewards.result_reward("ok", 0.8, 1.0) == round(math.log2(1 / 0.8), 6)
    assert rewards.result_reward("ok", 1.0, 1.0) == -0.05                # no improvement
    assert rewards.result_reward("compile_error", None, 1.0) == -0.1
    assert rewards.result_reward("wrong_result", None, 1.0) == -0.3
    assert rewards.result_reward("unsupported_arch", None, 1.0) == -0.05
    assert rewards.verdict_reward(16.0) == 1.0


def test_generated_episodes_pass_every_check(rows):
    assert _failed(rows) == set()
    scenarios = {r["scenario"] for r in rows}
    assert scenarios == set(SCENARIOS)
    for r in rows:
        lo, hi = SCENARIOS[r["scenario"]]
        assert lo <= r["n_agents"] <= hi
        assert r["impl"] == SWARM_IMPLS[r["op"]]


@pytest.mark.parametrize("breakage, check", [
    (lambda r: r["messages"][_first(r, "result")].update(reward=0.5), "rewards"),
    (lambda r: r["agents"][1].update(tries=r["agents"][1]["tries"] + 1), "agent_tallies"),
    (lambda r: r.update(num_messages=r["num_messages"] + 1), "message_count"),
    (lambda r: r["messages"][-1].update(t=r["messages"][-2]["t"] - 1.0), "clock"),
    (lambda r: r.update(speedup=r["speedup"] * 1.1), "best_and_speedup"),
    (lambda r: r["messages"][_first(r, "plan")].update(role="worker", agent="a01"), "kind_roles"),
    (lambda r: r["messages"][_first(r, "merge")].update(time_ms=r["baseline_ms"]), "merges"),
])
def test_checks_catch_broken_episodes(rows, breakage, check):
    row = copy.deepcopy(next(r for r in rows if any(m["kind"] == "merge" for m in r["messages"])))
    breakage(row)
    assert check in _failed([row])


def _first(row, kind):
    return next(i for i, m in enumerate(row["messages"]) if m["kind"] == kind)


def test_leaderboards_are_sorted_and_checked(rows):
    row = copy.deepcopy(next(r for r in rows if any(m["kind"] == "leaderboard" and m["content"].count("\n") >= 2
                                                    for m in r["messages"])))
    i = next(i for i, m in enumerate(row["messages"]) if m["kind"] == "leaderboard" and m["content"].count("\n") >= 2)
    head, *lines = row["messages"][i]["content"].split("\n")
    row["messages"][i]["content"] = "\n".join([head, *reversed(lines)])
    assert "leaderboards" in _failed([row])


def test_episode_is_a_pure_function_of_seed_and_index():
    a = orjson.dumps(episode(SEED, EPISODES, HOLDOUT, 7))
    b = orjson.dumps(episode(SEED, EPISODES, HOLDOUT, 7))
    c = orjson.dumps(episode(SEED + 1, EPISODES, HOLDOUT, 7))
    assert a == b and a != c


def _same_length_siblings(seed: int, episodes: int, holdout: int) -> tuple[int, int]:
    """The first two episodes of the plan that differ only by dtype and end with as many messages."""
    groups: dict[tuple, list[int]] = {}
    for i, (task, scenario) in enumerate(plan(seed, episodes, holdout).episodes):
        groups.setdefault((task.op, task.gpu, task.shape, scenario), []).append(i)
    for first, *rest in (g for g in groups.values() if len(g) > 1):
        length = episode(seed, episodes, holdout, first)["num_messages"]
        for other in rest:
            if episode(seed, episodes, holdout, other)["num_messages"] == length:
                return first, other
    raise AssertionError("no two sibling episodes of equal length in the plan")


def test_an_id_suffix_does_not_depend_on_which_siblings_were_simulated_before():
    """Two episodes that differ only by dtype and end with as many messages: the later one is `_2`, whether its
    sibling's count comes from this process's memo or from simulating it afresh."""
    first, second = _same_length_siblings(0, 2400, 100)
    swarm_plan._RECENT_COUNTS.clear()
    alone = episode(0, 2400, 100, second)["episode_id"]
    in_order = [episode(0, 2400, 100, i)["episode_id"] for i in (first, second)]
    assert alone.endswith("_2") and in_order == [alone.removesuffix("_2"), alone]


def test_plan_keeps_holdout_groups_out_of_training():
    p = plan(SEED, EPISODES, HOLDOUT)
    held = {(t.op, t.gpu, t.shape) for t in p.holdout}
    assert len(p.holdout) == HOLDOUT
    assert not held & {(t.op, t.gpu, t.shape) for t, _ in p.episodes}
    assert len(set(p.episodes)) == EPISODES                 # each (task, scenario) at most once


def test_ids_have_the_seed_form_and_are_unique(rows):
    ids = [r["episode_id"] for r in rows]
    assert len(set(ids)) == len(ids)
    for r in rows:
        assert r["episode_id"].startswith(f"{r['op']}_{r['gpu']}_")
        assert f"_{r['scenario']}_{r['num_messages']}" in r["episode_id"]


def test_scale_matches_the_seed_card():
    """Means over a sample: ~71 messages and ~8.6 agents per episode (the card's figures)."""
    p = plan(0, 2400, 100)
    idx = range(0, 2400, 12)
    sample = [simulate_episode(*p.episodes[i], rng_for(0, 2, i)) for i in idx]
    assert abs(np.mean([r["num_messages"] for r in sample]) - 71) <= 6
    assert abs(np.mean([r["n_agents"] for r in sample]) - 8.6) <= 1.0
    hours = [r["elapsed_s"] / 3600 for r in sample]
    assert 1.0 <= min(hours) and max(hours) <= 5.0


def test_guesses_draw_and_blur_as_one_by_one():
    """`guesses` batches the noise of candidates that all have a model: the same draws and estimates as a guess
    per candidate (uniform base, then lognormal blur), with and without candidates the model cannot time."""
    task, scenario = plan(0, 40, 4).episodes[0]
    ep = swarm._Episode(task, scenario, np.random.default_rng(3))
    one_by_one = np.random.default_rng()
    one_by_one.bit_generator.state = ep.rng.bit_generator.state
    timed = [(v.tag, p) for v in ep.wb.variants for p in ep.wb.grid(v.tag)[:3] if ep.wb.model_ms(v.tag, p) is not None]
    untimed = [(v.tag, p) for v in ep.wb.variants for p in ep.wb.grid(v.tag)[:3] if ep.wb.model_ms(v.tag, p) is None]
    assert timed and untimed
    for agent in ep.agents:
        for candidates in (timed, timed[:1], untimed[:1] + timed[:3]):
            expected = []
            for tag, params in candidates:
                model = ep.wb.model_ms(tag, params)
                base = model if model is not None else ep.best_ms * float(one_by_one.uniform(0.7, 1.1))
                expected.append(base * float(np.exp((0.3 / agent.skill) * one_by_one.standard_normal())))
            assert ep.guesses(agent, candidates) == expected
    assert ep.rng.bit_generator.state == one_by_one.bit_generator.state


def test_ids_name_the_engineer_past_the_first():
    """Past the (task, scenario) pool every pair gets several engineers: their ids end `_e1`, `_e2` ... (the
    default scale's have none) and pass the id check."""
    p = plan(0, 20000, 100)
    picks = [next(i for i, e in enumerate(p.engineers) if e == k) for k in (0, 1, 6)]
    rows_ = [episode(0, 20000, 100, i) for i in picks]
    assert [r["episode_id"].endswith("_e1") for r in rows_] == [False, True, False]
    assert rows_[2]["episode_id"].endswith("_e6") and not re.search(r"_e\d+$", rows_[0]["episode_id"])
    assert _failed(rows_) == set()


def test_verdict_speedup_follows_from_its_printed_times(rows):
    """The verdict's speedup is its printed baseline over its printed best (0.6.3 rounded the row's 4-digit speedup
    again: 1.2345x printed 1.24x beside times whose ratio reads 1.23)."""
    number = r"(\d[\d.e+-]*)"
    shown = []
    for m in (m for row in rows for m in row["messages"] if m["kind"] == "verdict" and "time_ms" in m):
        text = m["content"]           # each agent words it its own way (kernelswarm/wording.py): read its figures
        best = re.search(number + r" ms(?! baseline)", text)[1]
        assert best == ms_text(m["time_ms"]), text          # as the result reports print it
        shown.append((best, re.search(number + r"x\b", text)[1], re.search(number + r" ms baseline", text)[1]))
    assert len(shown) > len(rows) / 2
    assert [s for best, s, base in shown if s != "%.3g" % (float(base) / float(best))] == []
