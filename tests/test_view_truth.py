"""The training views tell the truth about their source rows, and the validator's rules catch each kind of lie:
a steps prompt holds every part of the session's state or a note naming what it left out (never a silent gap); a
transition's state plus its action is the start of the same agent's next state; a chat holds only what reached
its agent, when it did. Each rule is shown a planted lie."""
from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.check.validate import validate_paths
from generator.kernelinfer import step_rewards, step_state, steps
from generator.kernelinfer.session import simulate_session
from generator.kernelswarm import agent_turns, agent_turns_rule, agent_view, transition_rule, transitions
from generator import tokens
from generator.layout import view_name
from generator.sim.seeding import rng_for

SMALL = 8_192       # a window that leaves parts of the state out


@pytest.fixture(scope="module")
def session() -> dict:
    """A CUDA session with kernels of ~10K tokens and fix steps (mla_decode on the H100, as the audit's)."""
    task = make_task("mla_decode", "cuda", "h100", OPS["mla_decode"].dtypes[0], OPS["mla_decode"].shapes[0])
    row = simulate_session(task, rng_for(0, 1, 21))
    assert any(t["kind"] == "fix" for t in row["trace"])
    return row


@pytest.fixture(scope="module")
def episodes() -> list[dict]:
    from generator.kernelswarm.plan import episode

    return [episode(3, 120, 20, i) for i in range(0, 120, 9)]


@pytest.mark.parametrize("window", [32_768, SMALL, 4_096])
def test_a_steps_prompt_holds_each_part_or_says_it_left_it_out(session, window):
    rows = steps.rows(session, window_tokens=window)
    bests = step_state.bests(session)
    history = [step_state.summary(step) for step in session["trace"]]
    notes = 0
    for row in rows:
        i = row["step"] - 1
        text = row["prompt"][1]["content"]
        for part in step_state.parts(session, i, bests[i]):
            assert part.text in text or part.note in text, (row["step"], part.name)
            notes += part.text not in text
        assert step_rewards.prompt_problem(session, i, bests[i], history, row["prompt"]) is None
    assert rows and (notes > 0 or window == 32_768)


def test_history_lines_and_the_best_print_each_time_as_its_report_did(session):
    reported = {}
    for step, feedback in zip(session["trace"], session["messages"][3::2]):
        printed = re.search(r"^time: (\S+) ms", feedback["content"], re.M)
        assert (printed is not None) == (step["status"] == "ok")
        if printed:
            reported[step["step"]] = printed.group(1)
            assert step_state.summary(step).endswith(f": ok {printed.group(1)} ms")
    assert any("." in t and t.endswith("0") for t in reported.values())    # a trailing zero repr would drop
    best = step_state.bests(session)[-1]
    assert f", {reported[best['step']]} ms):" in step_state.parts(session, len(session["trace"]) - 1, best)[1].text


def test_a_prompt_without_a_best_says_only_that_nothing_beat_the_baseline():
    """Before any step beats the baseline the prompt has no best kernel; 0.6.4 said "No kernel has passed yet"
    there though a slower kernel had passed (1,913 steps of 989 default sessions). Sessions whose first passing
    kernel is slower than the baseline: their next prompt names the baseline and claims no pass count."""
    from generator.catalog.tasks import all_tasks
    seen = 0
    for task in all_tasks()[::97]:
        row = simulate_session(task, rng_for(0, 5, 1))
        bests = step_state.bests(row)
        for i, step in enumerate(row["trace"][:-1]):
            if step["status"] == "ok" and bests[i + 1] is None:      # it passed, slower than the baseline
                text = step_state.parts(row, i + 1, None)[0].text
                assert "passed" not in text and "beaten the baseline" in text, text
                seen += 1
                break
    assert seen >= 2


def test_a_fix_step_keeps_the_kernel_it_fixes_before_the_best(session):
    kept = 0
    bests = step_state.bests(session)
    for row in steps.rows(session, window_tokens=16_384):   # room for one of the two kernels beside the fix
        i = row["step"] - 1
        previous = session["trace"][i - 1] if i else None
        if row["kind"] != "fix" or previous is bests[i] or bests[i] is None:
            continue
        parts = {p.name: p for p in step_state.parts(session, i, bests[i])}
        text = row["prompt"][1]["content"]
        if parts["best"].text in text and parts["previous"].text not in text:
            # offered first, the kernel being fixed is left out only where it is the larger one (the best fit
            # the room it did not)
            assert tokens.count(parts["previous"].text) > tokens.count(parts["best"].text), row["step"]
        kept += parts["previous"].text in text
    assert kept > 0


def test_the_steps_rule_finds_a_dropped_part_a_wrong_history_line_and_a_later_feedback(session):
    rows = steps.rows(session, window_tokens=32_768)
    bests = step_state.bests(session)
    history = [step_state.summary(step) for step in session["trace"]]
    row = next(r for r in rows if r["step"] > 3 and bests[r["step"] - 1] is not None)
    i = row["step"] - 1
    best = next(p for p in step_state.parts(session, i, bests[i]) if p.name == "best")
    assert best.text in row["prompt"][1]["content"]

    def lie(edit) -> str | None:
        prompt = copy.deepcopy(row["prompt"])
        prompt[1]["content"] = edit(prompt[1]["content"])
        return step_rewards.prompt_problem(session, i, bests[i], history, prompt)

    assert lie(lambda text: text) is None
    assert "best part" in lie(lambda text: text.replace(best.text + "\n\n", ""))
    line = step_state.summary(session["trace"][0])
    assert "history" in lie(lambda text: text.replace(line, line.replace(session["trace"][0]["kind"], "tune")))
    later = session["messages"][3 + 2 * i]["content"]          # this step's own feedback: the future
    assert lie(lambda text: text.replace("\n\nWrite step", f"\n\n{later}\n\nWrite step")) is not None


def _whole(prompt: list[dict]) -> bool:
    """Whether a prompt holds its agent's chat from the start (no window cut it)."""
    return agent_view.CONTINUED not in prompt[1]["content"] and "earlier messages omitted" not in prompt[1]["content"]


def test_a_transitions_state_plus_its_action_starts_the_agents_next_state(episodes):
    pairs = 0
    for ep in episodes:
        by_agent: dict[str, list[dict]] = {}
        for row in transitions.rows(ep):
            by_agent.setdefault(row["agent"], []).append(row)
        for rows in by_agent.values():
            rows.sort(key=lambda r: ep["messages"][r["index"]]["ref"])
            for a, b in zip(rows, rows[1:]):
                if _whole(b["prompt"]):
                    n = len(a["prompt"])
                    assert b["prompt"][:n] == a["prompt"] and b["prompt"][n] == a["completion"][0], \
                        (ep["episode_id"], a["index"], b["index"])
                    pairs += 1
    assert pairs > 100


def test_an_agents_chat_is_its_transitions_states(episodes):
    """Every whole transition prompt is the start of its agent's agent_turns chat (the same turns, in order)."""
    checked = 0
    for ep in episodes:
        chats = {r["agent"]: r["messages"] for r in agent_turns.rows(ep) if r["window"] == 0}
        for row in transitions.rows(ep):
            if _whole(row["prompt"]) and len(chats[row["agent"]]) > len(row["prompt"]):
                chat = chats[row["agent"]]
                n = len(row["prompt"])
                assert chat[:n] == row["prompt"][:n] and chat[n] == row["completion"][0]
                checked += 1
    assert checked > 100


def _message_to_another(ep: dict, agent: str) -> str:
    """A user part rendering a message of `ep` addressed to an agent other than `agent`."""
    m = next(m for m in ep["messages"] if m.get("to") not in (None, agent) and m["agent"] != agent)
    return f"[t+0:00:01] {m['agent']} -> {m['to']} ({m['kind']}):\n{m['content']}"


def test_the_transitions_rule_finds_a_foreign_message_a_missing_turn_and_another_agents_candidate(episodes):
    ep = episodes[0]
    rows = transitions.rows(ep)
    assert list(transition_rule.problems(ep, rows)) == []
    k = next(k for k, r in enumerate(rows) if len(r["prompt"]) >= 6)
    lies = copy.deepcopy([rows[k]] * 3)
    lies[0]["prompt"][-1]["content"] += "\n\n" + _message_to_another(ep, rows[k]["agent"])
    del lies[1]["prompt"][2:4]                                   # an exchange dropped from the middle
    other = next(r for r in rows if r["agent"] != rows[k]["agent"])
    lies[2]["index"] = other["index"]                            # another agent's result, this agent's prompt
    found: dict[int, str] = {}
    for j, message in transition_rule.problems(ep, lies):
        found[j] = found.get(j, "") + message + "\n"
    assert set(found) == {0, 1, 2}, found
    assert "newest turns" in found[0] and "newest turns" in found[1] and "the episode's result says" in found[2]


def test_the_agent_turns_rule_finds_a_foreign_message_a_reordered_turn_and_a_repeated_window(episodes):
    ep = next(e for e in episodes if len(agent_turns.rows(e, window_tokens=SMALL)) > len(agent_view.speakers(e)))
    rows = agent_turns.rows(ep, window_tokens=SMALL)
    assert list(agent_turns_rule.problems(ep, rows)) == []
    k = next(k for k, r in enumerate(rows) if len(r["messages"]) >= 7)

    def lie(edit) -> dict:
        lied = copy.deepcopy(rows)
        edit(lied)
        return dict(agent_turns_rule.problems(ep, lied))

    def foreign(lied):
        lied[k]["messages"][3]["content"] += "\n\n" + _message_to_another(ep, lied[k]["agent"])

    def reorder(lied):
        m = lied[k]["messages"]
        m[2], m[4] = m[4], m[2]

    def repeat(lied):
        j = next(j for j in range(1, len(lied)) if lied[j]["agent"] == lied[j - 1]["agent"])
        lied[j] = copy.deepcopy(lied[j - 1])

    for edit in (foreign, reorder, repeat):
        found = lie(edit)
        assert found, edit.__name__
        assert all(re.search(r"agent \S+ window \d+", message) for message in found.values())


def test_validator_names_the_file_and_row_of_a_chat_shown_another_agents_message(generated, tmp_path):
    folder = tmp_path / "kernelswarm"
    shutil.copytree(generated("kernelswarm"), folder)
    rel = view_name("agent_turns", "train", 0, shards=1)
    table = pq.read_table(folder / rel)
    rows = table.to_pylist()
    k = next(k for k, r in enumerate(rows) if len(r["messages"]) >= 4 and r["agent"] != "a01")
    rows[k]["messages"][3]["content"] += "\n\n[t+0:00:01] env -> a01 (result):\n[t+0:00:01] RESULT ok"
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), folder / rel)
    found = [(Path(f.path).relative_to(folder).as_posix(), f.line, f.message)
             for f in validate_paths([folder]).findings]
    assert [f[:2] for f in found] == [(rel, k + 1)] and "view_source" in found[0][2], found


def test_done_marks_each_agents_last_result_and_the_rule_sees_it_flipped(episodes):
    for ep in episodes:
        rows = transitions.rows(ep)
        done = [r for r in rows if r["done"]]
        assert sorted(r["agent"] for r in done) == sorted({r["agent"] for r in rows})       # one per agent
        for r in done:
            assert not any(m["kind"] == "result" and m["to"] == r["agent"] for m in ep["messages"][r["index"] + 1:])
    lied = copy.deepcopy(rows[0])
    lied["done"] = not lied["done"]
    assert [message for _k, message in transition_rule.problems(ep, [lied])] == \
           [f"result {lied['index']}: done {lied['done']!r} but it is{' not' * lied['done']} {lied['agent']}'s last result"]
