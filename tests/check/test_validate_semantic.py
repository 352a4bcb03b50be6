"""Semantic rules: real simulator rows pass them; each broken invariant is reported at its line, naming the rule."""
from __future__ import annotations

import orjson
import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.sim.seeding import rng_for
from generator.catalog.tasks import make_task
from generator.check.validate import validate_paths
from generator.kernelinfer.checks import CHECKS as KI_CHECKS
from generator.kernelswarm.checks import CHECKS as KS_CHECKS


def json_copy(row: dict) -> dict:
    """A deep copy of a JSON row (a tenth of copy.deepcopy's time: the mutant loops copy thousands of rows)."""
    return orjson.loads(orjson.dumps(row))


def _task(op: str = "rmsnorm"):
    return make_task(op, "cuda", "h100", OPS[op].dtypes[0], OPS[op].shapes[0])


@pytest.fixture(scope="module")
def session() -> dict:
    from generator.kernelinfer.session import simulate_session

    return simulate_session(_task(), rng_for(0, 1, 0))


@pytest.fixture(scope="module")
def episode() -> dict:
    from generator.kernelswarm.episode import simulate_episode

    row = simulate_episode(_task(), "dispatch", rng_for(0, 2, 0))
    return {"episode_id": f"rmsnorm_h100_T=1,H=4096_dispatch_{row['num_messages']}", **row}


def _broken(row: dict, edit) -> dict:
    row = json_copy(row)
    edit(row)
    return row


def _first_ok(row: dict) -> dict:
    return next(t for t in row["trace"] if t["status"] == "ok")


def _set(obj: dict, **values):
    obj.update(values)


SESSION_BREAKS = {
    "kept_marks_improvements": lambda r: _set(_first_ok(r), kept=False),
    # (4 significant digits as the rows write them: a product's float may not survive Arrow's float round trip,
    # which `number_range` reports instead, depending on the row)
    "speedup": lambda r: _set(r["best"], speedup=float(f"{r['best']['speedup'] * 1.5:.4g}")),
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
    "causality": lambda r: _set(r["messages"][-1], ref=len(r["messages"]) - 1),     # the verdict names itself
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
    names = {c.name for checks in (KI_CHECKS, KS_CHECKS) for c in checks.checks}
    assert semantic.QA_ONLY <= names


# ---------------------------------------------------------------- the shortcuts (generator.check.qa.shortcut)
@pytest.fixture(scope="module")
def episodes() -> list[dict]:
    from generator.kernelswarm.plan import episode

    return [episode(3, 120, 20, i) for i in range(0, 120, 6)]


def test_the_swarm_shortcut_vouches_for_every_row_check_and_passes_real_rows(episodes):
    from generator.kernelswarm import checks as qa_swarm

    registered = {c.fn for c in KS_CHECKS.checks if c.scope == "row" and c.name not in semantic.QA_ONLY}
    assert KS_CHECKS.shortcut_fn.vouches == registered == set(qa_swarm.ROW_CHECKS)
    assert all(qa_swarm.row_checks_pass(row) for row in episodes)


def test_the_schema_makes_what_the_swarm_shortcut_leans_on(episodes):
    """Each kind's sender roles and fields, and a zero reward on every kind but result and verdict."""
    from generator.kernelswarm.checks import KIND_ROLES, REQUIRED_FIELDS
    from generator.check.schemas import compiled

    is_valid = compiled("episode").is_valid
    roles = set().union(*KIND_ROLES.values())
    seen = set()
    for row in episodes:
        for i, m in enumerate(row["messages"]):
            if m["kind"] in seen:
                continue
            seen.add(m["kind"])
            for role in roles - KIND_ROLES[m["kind"]]:
                assert not is_valid(_broken(row, lambda r: _set(r["messages"][i], role=role))), (m["kind"], role)
            for name in REQUIRED_FIELDS.get(m["kind"], ()):
                assert not is_valid(_broken(row, lambda r: r["messages"][i].pop(name))), (m["kind"], name)
            if m["kind"] not in ("result", "verdict"):
                assert not is_valid(_broken(row, lambda r: _set(r["messages"][i], reward=0.5))), m["kind"]
    assert seen == set(KIND_ROLES)


def _gated_tags(row: dict) -> list[str]:
    """The variants of the row's op that its GPU cannot run."""
    from generator.catalog.hardware import GPUS
    from generator.catalog.variants import variants_for

    return [v.tag for v in variants_for(row["op"], row["impl"], row["dtype"])
            if not v.requires_for(row["dtype"]) <= GPUS[row["gpu"]].features]


def _episode_mutant(row: dict, rng) -> dict:
    """`row` with one thing changed, mostly to a value the same field holds elsewhere in the row."""
    row = json_copy(row)
    msgs = row["messages"]
    i = int(rng.integers(len(msgs)))
    pick = int(rng.integers(9))
    if pick == 8:                                  # a result names a variant the GPU cannot run
        results, gated = [m for m in msgs if m["kind"] == "result"], _gated_tags(row)
        if gated:
            results[int(rng.integers(len(results)))]["variant"] = gated[0]
    elif pick < 3:                                 # a message field takes another message's value
        name = str(rng.choice([k for k in msgs[i] if k != "content"]))
        values = [m[name] for m in msgs if name in m]
        msgs[i][name] = values[int(rng.integers(len(values)))]
    elif pick == 3:                                # a leaderboard line moved, or a message moved
        boards = [m for m in msgs if m["kind"] == "leaderboard"]
        lines = boards[0]["content"].splitlines() if boards else []
        if len(lines) > 2:
            lines[1], lines[-1] = lines[-1], lines[1]
            boards[0]["content"] = "\n".join(lines)
        else:
            msgs.insert(int(rng.integers(len(msgs))), msgs.pop(i))
    elif pick == 4:                                # a number of the row nudged
        name = str(rng.choice(["best_ms", "speedup", "elapsed_s", "baseline_ms", "roofline_ms"]))
        row[name] = row[name] * float(rng.choice([0.5, 0.999, 1.001, 2.0]))
    elif pick == 5:                                # an agent's tally
        agent = row["agents"][int(rng.integers(len(row["agents"])))]
        name = str(rng.choice(["tries", "kept", "best_ms"]))
        agent[name] = None if name == "best_ms" and agent[name] else agent[name] + 1 if name != "best_ms" else 1.0
    elif pick == 6:                                # a time or reward nudged
        name = "time_ms" if msgs[i].get("time_ms") else "reward"
        msgs[i][name] = msgs[i][name] * float(rng.choice([0.5, 0.999, 1.001, 2.0])) or 0.25
    else:                                          # a count or the id
        name = str(rng.choice(["num_messages", "n_agents", "episode_id"]))
        row[name] = row[name] + ("_x" if name == "episode_id" else int(rng.choice([-1, 1])))
    return row


def _shortcut_is_never_lenient(dataset: str, schema: str, rows: list[dict], mutant, tries: int) -> int:
    """Schema-valid mutants of real rows: whenever a check the shortcut vouches for fails (or cannot run), the
    shortcut says no (or raises) too. Returns how many mutants failed a check."""
    import numpy as np

    from generator.check.schemas import compiled

    def fails(check, row) -> bool:
        try:
            return bool(check(row))
        except semantic._ROW_ERRORS:
            return True

    shortcut = {"kernelinfer": KI_CHECKS, "kernelswarm": KS_CHECKS}[dataset].shortcut_fn
    rng = np.random.default_rng(0)
    is_valid = compiled(schema).is_valid
    failing = 0
    for n in range(tries):
        row = mutant(rows[n % len(rows)], rng)
        if not is_valid(row) or not any(fails(c, row) for c in shortcut.vouches):
            continue
        failing += 1
        assert fails(lambda r: not shortcut.fn(r), row), [c.__name__ for c in shortcut.vouches if fails(c, row)]
    return failing


def test_the_swarm_shortcut_never_passes_a_row_a_check_fails(episodes):
    assert _shortcut_is_never_lenient("kernelswarm", "episode", episodes, _episode_mutant, 1500) >= 300


@pytest.fixture(scope="module")
def sessions(session) -> list[dict]:
    from generator.kernelinfer.session import simulate_session

    tasks = [make_task(op, impl, gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
             for op, impl, gpu in (("gemm_fp16", "cuda", "a100"), ("flash_decode", "triton", "h100"),
                                   ("rmsnorm", "cuda", "rtx_5090"))]
    return [session] + [simulate_session(t, rng_for(0, 1, i + 1)) for i, t in enumerate(tasks)]


def _session_mutant(row: dict, rng) -> dict:
    """`row` with one thing changed, mostly to a value the same field holds elsewhere in the row."""
    row = json_copy(row)
    trace, msgs = row["trace"], row["messages"]
    i = int(rng.integers(len(trace)))
    pick = int(rng.integers(7))
    if pick < 3:                                   # a step field takes another step's value
        name = str(rng.choice(list(trace[i])))
        trace[i][name] = trace[int(rng.integers(len(trace)))][name]
    elif pick == 3:                                # a feedback turn takes another's text, or a role changes
        j = 3 + 2 * i
        what = int(rng.integers(3))
        if what == 0:
            msgs[j]["content"] = msgs[3 + 2 * int(rng.integers(len(trace)))]["content"]
        elif what == 1:
            msgs[j]["role"] = "assistant"
        else:
            row["elapsed_hms"] = "9:59:59"
    elif pick == 4:                                # a number of the row nudged
        name = str(rng.choice(["elapsed_s", "baseline_ms", "roofline_ms"]))
        row[name] = row[name] * float(rng.choice([0.5, 0.999, 1.001, 2.0]))
    elif pick == 5:                                # the best, or a count
        name = str(rng.choice(["time_ms", "speedup", "step", "attempts", "num_steps"]))
        holder = row if name in ("attempts", "num_steps") else row["best"]
        holder[name] = holder[name] + 1 if name in ("step", "attempts", "num_steps") else holder[name] * 1.01
    else:                                          # an ok step names a variant the GPU cannot run
        oks, gated = [t for t in trace if t["status"] == "ok"], _gated_tags(row)
        if gated:
            oks[int(rng.integers(len(oks)))]["tag"] = gated[0]
    return row


def test_the_session_shortcut_vouches_for_every_row_check_and_passes_real_rows(sessions):

    registered = {c.fn for c in KI_CHECKS.checks if c.scope == "row" and c.name not in semantic.QA_ONLY}
    assert KI_CHECKS.shortcut_fn.vouches == registered
    assert all(KI_CHECKS.shortcut_fn.fn(row) for row in sessions)


def test_the_session_shortcut_never_passes_a_row_a_check_fails(sessions):
    assert _shortcut_is_never_lenient("kernelinfer", "session", sessions, _session_mutant, 1000) >= 200
