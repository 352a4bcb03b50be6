"""The validator's rule for the `transitions` view: every row is one env result of its episode, as written there,
and its prompt is what the acting agent had seen before it acted.

Why: a transition's `reward` must be the episode's own result reward (which the episode rule `rewards` recomputes
from the seed card's formula), and its state must be the submitting agent's chat up to the candidate
(`generator.kernelswarm.agent_view`): a message addressed to another agent, one that reached the agent after it
acted, a turn missing from the middle or a candidate the agent did not write would teach a policy a world it
never saw. So `python -m generator validate` pairs each transitions file with its shard and finds a reward,
status, time or `done` flag edited after generation, a completion that is not the candidate the result answers,
or such a prompt, with the view file and row named. An ok result's reward is scored against the shared best when
its candidate was sent (`rewards`), so the prompt must state that best last (a new-best notice or a report's "best
so far"; none: the baseline): a reward that hangs on a best the agent was never told of teaches it nothing.
Imports no `datasets`: the validator runs it.
"""
from __future__ import annotations

import re
from typing import Iterator

from generator.kernelswarm import agent_view
from generator.sim.feedback import ms_text

# the shared best as an agent's chat states it: the env's new-best notice, or an ok report's speedup against it
STATED_BEST = re.compile(r"^new team best: (\S+) ms|vs best so far \((\S+) ms\)", re.M)

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
        problem = prompt_problem(row, view["agent"], result["ref"], view["prompt"]) or \
            (result["status"] == "ok" and best_problem(row, result["ref"], view["prompt"]))
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


def best_problem(row: dict, candidate: int, prompt: list[dict]) -> str | None:
    """What is wrong with `prompt` as the state an ok result's reward is scored from (None when nothing): the last
    shared best its user turns state must be the one when message `candidate` was sent."""
    baseline = row["baseline_ms"]
    best = min([baseline] + [m["time_ms"] for m in row["messages"][:candidate]
                             if m["kind"] == "result" and m["status"] == "ok"])
    said = STATED_BEST.findall("\n".join(turn["content"] for turn in prompt if turn["role"] == "user"))
    stated = next(filter(None, said[-1])) if said else None
    if stated != (ms_text(best) if best < baseline else None):
        return (f"its reward is scored against the shared best {ms_text(best)} ms, but the last best its prompt "
                f"states is {stated or 'none (the baseline)'}")
    return None
