"""Semantic rules: real simulator rows pass them; each broken invariant is reported at its line, naming the rule."""
from __future__ import annotations

import copy

import orjson
import pytest

from generator import semantic
from generator.ops import OPS
from generator.seeding import rng_for
from generator.tasks import make_task
from generator.validate import validate_paths


def _task(op: str = "rmsnorm"):
    return make_task(op, "cuda", "h100", OPS[op].dtypes[0], OPS[op].shapes[0])


@pytest.fixture(scope="module")
def session() -> dict:
    from generator.session import simulate_session

    return simulate_session(_task(), rng_for(0, "kernelinfer", 0))


@pytest.fixture(scope="module")
def episode() -> dict:
    from generator.swarm import simulate_episode

    row = simulate_episode(_task(), "dispatch", rng_for(0, "kernelswarm", 0))
    return {"episode_id": f"rmsnorm_h100_T=1,H=4096_dispatch_{row['num_messages']}", **row}


def _broken(row: dict, edit) -> dict:
    row = copy.deepcopy(row)
    edit(row)
    return row


def _first_ok(row: dict) -> dict:
    return next(t for t in row["trace"] if t["status"] == "ok")


def _set(obj: dict, **values):
    obj.update(values)


SESSION_BREAKS = {
    "kept_marks_improvements": lambda r: _set(_first_ok(r), kept=False),
    "speedup": lambda r: _set(r["best"], speedup=r["best"]["speedup"] * 1.5),
    "time_physics": lambda r: _set(r, roofline_ms=r["best"]["time_ms"] * 2, baseline_ms=r["baseline_ms"] * 10),
    "timestamps": lambda r: _set(r, elapsed_hms="9:59:59"),
    "step_count": lambda r: _set(r, num_steps=r["num_steps"] + 1),
    "attempts": lambda r: _set(r, attempts=r["attempts"] + 1),
    "task_in_catalog": lambda r: _set(r, shape={"T": 3, "H": 4096}),
    "baseline_above_roofline": lambda r: _set(r, baseline_ms=r["roofline_ms"] / 2),
}

EPISODE_BREAKS = {
    "rewards": lambda r: _set(next(m for m in r["messages"] if m["kind"] == "result"), reward=0.5),
    "agent_tallies": lambda r: _set(r["agents"][1], tries=r["agents"][1]["tries"] + 1),
    "best_and_speedup": lambda r: _set(r, speedup=r["speedup"] * 2),
    "clock": lambda r: _set(r, elapsed_s=r["elapsed_s"] + 10.0),
    "message_count": lambda r: _set(r, episode_id=r["episode_id"] + "0"),
}


def test_simulated_rows_pass(session, episode):
    assert semantic.check("session", session) == []
    assert semantic.check("episode", episode) == []


@pytest.mark.parametrize("rule", sorted(SESSION_BREAKS))
def test_broken_session_names_the_rule(session, rule):
    messages = semantic.check("session", _broken(session, SESSION_BREAKS[rule]))
    assert any(m.startswith(f"{rule}: ") for m in messages), messages


@pytest.mark.parametrize("rule", sorted(EPISODE_BREAKS))
def test_broken_episode_names_the_rule(episode, rule):
    messages = semantic.check("episode", _broken(episode, EPISODE_BREAKS[rule]))
    assert any(m.startswith(f"{rule}: ") for m in messages), messages


def test_validate_reports_semantic_lines_and_no_semantic_skips(tmp_path, session, episode):
    path = tmp_path / "sessions.jsonl"
    rows = [session, _broken(session, SESSION_BREAKS["speedup"]), session]
    rows[2] = _broken(session, lambda r: _set(r, session_id="other"))
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    report = validate_paths([path])
    assert [(f.line, f.kind) for f in report.findings] == [(2, "semantic"), (2, "duplicate_id")]
    assert report.findings[0].message.startswith("semantic: speedup: ")
    assert [f.kind for f in validate_paths([path], semantic=False).findings] == ["duplicate_id"]
    episodes = tmp_path / "episodes.jsonl"
    episodes.write_bytes(orjson.dumps(episode) + b"\n" + orjson.dumps(_broken(episode, EPISODE_BREAKS["rewards"])) + b"\n")
    kinds = [(f.line, f.kind) for f in validate_paths([episodes]).findings]
    assert (2, "semantic") in kinds and (1, "semantic") not in kinds


def test_a_rule_that_cannot_run_is_a_finding_not_a_crash(session):
    row = _broken(session, lambda r: r["messages"].__delitem__(slice(4, None)))
    messages = semantic.check("session", row)
    assert messages and all(": " in m for m in messages)


def test_every_qa_only_name_is_a_registered_check():
    """The exclusions name real QA checks (a renamed check must not silently come back twice)."""
    from generator.qa import REGISTRY

    semantic.rules_for("session"), semantic.rules_for("episode")
    names = {c.name for checks in REGISTRY.values() for c in checks}
    assert semantic.QA_ONLY <= names
