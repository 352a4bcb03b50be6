"""The training views (steps, agent_turns, transitions) of small generated folders: every row fits its token budget
by generator.tokens' count, has TRL's conversational shape, validates against its schema and casts to its
Features; rewards equal the formulas recomputed from the source rows; an agent sees nothing addressed to another
(but the lead, copied on verifications); the validator recomputes the rewards of a generated folder's view files
and names the file and row of a tampered one."""
from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import datasets
import jsonschema
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from referencing import Registry, Resource

from generator import tokens
from generator.kernelswarm import agent_turns as views_agent_turns, transitions as views_transitions
from generator.kernelinfer import steps as views_steps
from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.check.schemas import SCHEMA_DIR
from generator.check.validate import validate_paths
from generator.layout import view_name
from generator.sim.seeding import rng_for
from generator.kernelinfer.session import simulate_session
from generator.catalog.tasks import make_task
from generator.catalog.variants import variants_for

WINDOWS = (32_768, 8_192)       # the default, and one small enough to make the views drop and window


@pytest.fixture(scope="module")
def sessions() -> list[dict]:
    # the a100 lacks fp8 mma: some steps are unsupported_arch; the mla_decode session has launch_error steps
    picks = (("rmsnorm", "cuda", "h100"), ("flash_decode", "triton", "h100"), ("fp8_gemm", "cuda", "a100"),
             ("mla_decode", "cuda", "h200"))
    out = []
    for i, (op, impl, gpu) in enumerate(picks):
        task = make_task(op, impl, gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
        out.append(simulate_session(task, rng_for(0, 1, i)))
    return out


@pytest.fixture(scope="module")
def episodes() -> list[dict]:
    from generator.kernelswarm.plan import episode

    rows = [episode(3, 120, 20, i) for i in range(0, 120, 7)]
    assert {r["scenario"] for r in rows} == {"dispatch", "parallel_sweep", "pipeline", "campaign"}
    return rows


@pytest.fixture(scope="module")
def views(sessions, episodes) -> dict:
    return {(name, w): [r for row in src for r in module.rows(row, window_tokens=w)]
            for w in WINDOWS
            for name, module, src in (("step", views_steps, sessions), ("agent_turn", views_agent_turns, episodes),
                                      ("transition", views_transitions, episodes))}


def _validator(name: str):
    docs = [json.loads(p.read_text()) for p in sorted((p for p in SCHEMA_DIR.iterdir() if p.name.endswith(".schema.json")), key=lambda p: p.name)]
    registry = Registry().with_resources((d["$id"], Resource.from_contents(d)) for d in docs)
    return jsonschema.Draft202012Validator(json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text()),
                                           registry=registry)


def _turns_ok(turns) -> bool:
    """The structural test of trl.data_utils.is_conversational, on one side: a list of {role, content} dicts."""
    return (isinstance(turns, list) and bool(turns)
            and all(isinstance(t, dict) and set(t) == {"role", "content"} and isinstance(t["content"], str)
                    and t["role"] in ("system", "user", "assistant") for t in turns))


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("name", ["step", "agent_turn", "transition"])
def test_rows_fit_validate_and_cast(views, name, window):
    rows = views[name, window]
    assert rows
    validator = _validator(name)
    for row in rows:
        assert not list(validator.iter_errors(row)), next(validator.iter_errors(row)).message
        if name == "agent_turn":
            assert _turns_ok(row["messages"]) and row["tokens"] == tokens.chat(row["messages"]) <= window
        else:
            assert _turns_ok(row["prompt"]) and _turns_ok(row["completion"])
            assert row["prompt_tokens"] == tokens.chat(row["prompt"])
            assert row["completion_tokens"] == tokens.chat(row["completion"])
            assert row["prompt_tokens"] + row["completion_tokens"] <= window
    module = {"step": views_steps, "agent_turn": views_agent_turns, "transition": views_transitions}[name]
    assert list(module.FEATURES) == list(validator.schema["properties"])
    assert datasets.Dataset.from_list(rows[:50], features=module.FEATURES).num_rows == min(50, len(rows))


def _alternates(turns, *, last: str) -> bool:
    roles = [t["role"] for t in turns]
    return (roles[0] == "system" and roles[-1] == last
            and all(r == ("user" if k % 2 else "assistant") for k, r in enumerate(roles[1:], 1)))


@pytest.mark.parametrize("window", WINDOWS)
def test_chats_alternate_after_one_system_turn(views, window):
    for row in views["agent_turn", window]:
        assert _alternates(row["messages"], last="assistant")
    for name in ("step", "transition"):
        for row in views[name, window]:
            assert _alternates(row["prompt"], last="user")
            assert [t["role"] for t in row["completion"]] == ["assistant"]


_HEADER = re.compile(r"^\[t\+\d+:\d\d:\d\d\] (\S+)(?: -> (\S+))? \((\w+)\):$", re.M)


@pytest.mark.parametrize("window", WINDOWS)
def test_no_agent_sees_a_message_addressed_to_another(views, window):
    seen = 0
    for name, side in (("agent_turn", "messages"), ("transition", "prompt")):
        for row in views[name, window]:
            for turn in row[side]:
                if turn["role"] == "user":
                    for author, to, kind in _HEADER.findall(turn["content"]):
                        seen += 1
                        # the lead merges on verifications; a verifier is handed the result it re-checks
                        copied = (row["agent"] == "lead" and kind == "verify"
                                  or row["role"] == "verifier" and kind == "result")
                        assert (to in ("", row["agent"]) or copied) and author != row["agent"], \
                            (row["agent"], author, to)
    assert seen > 100


def test_every_speaking_agent_gets_a_chat_with_its_own_words(views, episodes):
    rows = views["agent_turn", 32_768]
    for ep in episodes:
        speakers = {m["agent"] for m in ep["messages"]} - {"env"}
        mine = [r for r in rows if r["episode_id"] == ep["episode_id"]]
        assert {r["agent"] for r in mine} == speakers
        for r in mine:
            said = [m["content"] for m in ep["messages"] if m["agent"] == r["agent"]]
            assert said[0] in r["messages"][2]["content"] or r["window"] > 0


def _gated(row: dict) -> set[str]:
    have = GPUS[row["gpu"]].features
    return {v.tag for v in variants_for(row["op"], row["impl"], row["dtype"])
            if not v.requires_for(row["dtype"]) <= have}


def test_step_rewards_are_the_formula_on_the_trace(views, sessions):
    rows = {(r["session_id"], r["step"]): r for r in views["step", 32_768]}
    assert len(rows) == sum(s["num_steps"] for s in sessions)       # nothing dropped at the default window
    improved = gated_steps = launch_errors = 0
    for s in sessions:
        best, gated = s["baseline_ms"], _gated(s)
        for t in s["trace"]:
            if t["tag"] in gated:
                want = -0.05
                gated_steps += 1
            elif t["status"] == "compile_error":
                want = -0.1
            elif t["status"] == "launch_error":
                want = -0.1
                launch_errors += 1
            elif t["status"] == "wrong_result":
                want = -0.3
            elif t["time_ms"] < best:
                want = min(1.0, math.log2(best / t["time_ms"]))
                best = t["time_ms"]
                improved += 1
            else:
                want = -0.05
            row = rows[s["session_id"], t["step"]]
            assert math.isclose(row["reward"], want, abs_tol=1e-6), (t, row["reward"], want)
            assert row["completion"][0]["content"] == s["messages"][2 * t["step"]]["content"]
            assert (row["status"], row["time_ms"], row["tag"]) == (t["status"], t["time_ms"], t["tag"])
    assert improved >= 6 and gated_steps >= 1 and launch_errors >= 1


def test_transition_rewards_are_the_results_rewards(views, episodes):
    rows = {(r["episode_id"], r["index"]): r for r in views["transition", 32_768]}
    results = 0
    for ep in episodes:
        for i, m in enumerate(ep["messages"]):
            if m["kind"] != "result":
                continue
            results += 1
            row = rows[ep["episode_id"], i]
            assert (row["agent"], row["status"], row["time_ms"], row["reward"]) == \
                   (m["to"], m["status"], m["time_ms"], m["reward"])
            assert row["completion"][0]["content"] == ep["messages"][m["ref"]]["content"]
    assert results == len(rows)


def test_small_windows_split_chats_and_keep_the_task(views):
    small = views["agent_turn", 8_192]
    assert any(r["window"] > 0 for r in small)
    for r in small:
        assert r["messages"][1]["content"].startswith("Optimize `")
    assert len(views["step", 8_192]) > 0


def test_token_stats():
    rows = [{"messages": [{"role": "user", "content": "x" * n}]} for n in (10, 20, 70_000, 300_000)]
    stats = tokens.token_stats(rows)
    assert stats["rows"] == 4 and stats["chars"]["max"] == 300_000 and stats["chars"]["p50"] == 20
    assert stats["tokens"]["p50"] == tokens.count("x" * 20) + tokens.PER_MESSAGE == 12 + 8     # ceil(20 / 1.75)
    assert stats["fit_32k"] == 0.5 and stats["fit_128k"] == 0.75       # 70,000 bytes are 40,008 tokens
    assert tokens.token_stats([])["rows"] == 0


def _tampered(generated, tmp_path, dataset: str, config: str, edit) -> tuple[str, list[tuple[str, int, str]]]:
    """A copy of the small generated folder with `edit(rows)` applied to shard 0's `config` file: (that file,
    the validator's (file, row, message) findings)."""
    folder = tmp_path / dataset
    shutil.copytree(generated(dataset), folder)
    rel = view_name(config, "train", 0, shards=1)
    table = pq.read_table(folder / rel)
    rows = table.to_pylist()
    edit(rows)
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), folder / rel)
    return rel, [(Path(f.path).relative_to(folder).as_posix(), f.line, f.message)
                 for f in validate_paths([folder]).findings]


def _worse(rows: list[dict], k: int) -> None:
    rows[k]["reward"] = round(rows[k]["reward"] - 0.25, 6)      # still in the schema's range: only the rule sees it


@pytest.mark.parametrize("dataset, config, k", [("kernelinfer", "steps", 40), ("kernelswarm", "transitions", 7)])
def test_validator_names_the_file_and_row_of_a_tampered_reward(generated, tmp_path, dataset, config, k):
    assert validate_paths([generated(dataset)]).ok
    rel, found = _tampered(generated, tmp_path, dataset, config, lambda rows: _worse(rows, k))
    assert len(found) == 1 and found[0][:2] == (rel, k + 1), found
    assert "view_source" in found[0][2] and "reward" in found[0][2]


def test_validator_finds_a_step_moved_to_another_session_and_a_swapped_candidate(generated, tmp_path):
    def move(rows):
        rows[40]["session_id"] = rows[-1]["session_id"]         # a step row claiming a later session's step

    rel, found = _tampered(generated, tmp_path / "steps", "kernelinfer", "steps", move)
    assert found and all(f[:2] == (rel, 41) and "view_source" in f[2] for f in found), found

    def swap(rows):
        rows[7]["completion"], rows[8]["completion"] = rows[8]["completion"], rows[7]["completion"]

    rel, found = _tampered(generated, tmp_path / "transitions", "kernelswarm", "transitions", swap)
    assert [f[:2] for f in found] == [(rel, 8), (rel, 9)] and all("not the candidate" in f[2] for f in found)
