"""The validator's rule for the `transitions` view: every row is one env result of its episode, as written there,
and its prompt is what the acting agent had seen before it acted.

Why: a transition's `reward` must be the episode's own result reward (which the episode rule `rewards` recomputes
from the seed card's formula), and its state must be the submitting agent's chat up to the candidate
(`generator.kernelswarm.agent_view`): a message addressed to another agent, one that reached the agent after it
acted, a turn missing from the middle or a candidate the agent did not write would teach a policy a world it
never saw. So `python -m generator validate` pairs each transitions file with its shard and finds a reward,
status, time or `done` flag edited after generation, a completion that is not the candidate the result answers,
or such a prompt, with the view file and row named. Imports no `datasets`: the validator runs it.
"""
from __future__ import annotations

from typing import Iterator

from generator.kernelswarm import agent_view

SAME = {"agent": "to", "variant": "variant", "status": "status", "time_ms": "time_ms", "reward": "reward"}


def problems(row: dict, transitions: list[dict]) -> Iterator[tuple[int, str]]:
    """(index in `transitions`, message) for each transition row of episode `row` that its messages do not give."""
    msgs = row["messages"]
    last = last_results(row)
    for k, view in enumerate(transitions):
        i = view["index"]
        if not 0 <= i < len(msgs) or msgs[i]["kind"] != "result":
            yield k, f"index {i}: not an env result of episode {row['episode_id']}"
            continue
        result = msgs[i]
        for field, source in SAME.items():
            if view[field] != result[source]:
                yield k, f"result {i}: {field} {view[field]!r} but the episode's result says {result[source]!r}"
        if view["done"] != (i in last):
            yield k, f"result {i}: done {view['done']!r} but it is{' not' * (i not in last)} {result['to']}'s last result"
        candidate = msgs[result["ref"]]
        if candidate["agent"] != result["to"]:
            yield k, f"result {i}: answers message {result['ref']}, which {result['to']} did not write"
        if [m["content"] for m in view["completion"]] != [candidate["content"]]:
            yield k, f"result {i}: the completion is not the candidate the result answers (message {result['ref']})"
        problem = prompt_problem(row, view["agent"], result["ref"], view["prompt"])
        if problem:
            yield k, f"result {i}: {problem}"


def last_results(row: dict) -> set[int]:
    """Indices of each agent's last env result of the episode (the transitions where its trajectory ends)."""
    last = {m["to"]: i for i, m in enumerate(row["messages"]) if m["kind"] == "result"}
    return set(last.values())


def prompt_problem(row: dict, agent: str, candidate: int, prompt: list[dict]) -> str | None:
    """What is wrong with `prompt` as `agent`'s state before message `candidate` (None when nothing): its system
    turn, then the newest turns of its chat up to there, the first of them opening with the task (its oldest
    user parts perhaps left out, with a note), ending on the user turn before the candidate."""
    member = next((a for a in row["agents"] if a["id"] == agent), None)
    if member is None:
        return f"{agent} is not an agent of the episode"
    if not prompt or prompt[0] != agent_view.system_turn(row, member):
        return f"the prompt does not open with {agent}'s system turn"
    exchanges, last = agent_view.chat(row, agent, before=candidate)
    chat = agent_view.turns(exchanges) + [agent_view.user_turn(last)]
    body = prompt[2:]
    start = len(chat) - len(body) - 1             # the chat's user turn the prompt's first user turn opens with
    if len(prompt) < 2 or start < 0 or start % 2 or chat[start + 1:] != body:
        return f"the prompt's turns are not the newest turns of {agent}'s chat before message {candidate}"
    parts = exchanges[start // 2].user if start < 2 * len(exchanges) else last
    if not agent_view.is_opening(prompt[1], agent_view.task_text(row), parts, start > 0):
        return "the prompt's first user turn is not the task and the messages that turn holds"
    return None
