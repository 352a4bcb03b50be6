"""What one kernelswarm agent saw of an episode, as a chat: the shared base of the agent_turns and transitions views.

Why: an episode's `messages` are a team's log (roles lead / worker / reviewer / verifier / tuner / env), not a
chat. An agent saw only what reached it: messages addressed to it (`to`), the broadcasts (the plan, the env's
leaderboards, the verdict), the env's results of its own candidates, and what it judged (a reviewer the candidate
its review names by `ref`; a verifier the candidate of the result its verification names: the kernel it
re-checks, not the env's message to another agent). A status is a report to the lead. So no agent sees a message
addressed to another. Its own messages are its `assistant` turns, everything it saw `user` turns, in the
episode's order; `ref` links make the pairing exact, so no message is matched by guesswork.

Adjacent turns of one role are merged, joined by SEPARATOR, so the chat alternates strictly. A chat is windowed
by whole exchanges (a user turn and the assistant turn answering it); every window opens with the role's system
turn and a user turn stating the task, so each is self-contained.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from generator import tokens
from generator.sim.clock import hms
from generator.sim.prompt import task_statement
from generator.catalog.tasks import make_task
from generator.sim.workbench import task_fields

SEPARATOR = "\n\n"
BROADCAST = frozenset({"plan", "leaderboard", "verdict"})
CONTINUED = "(earlier turns of this episode are omitted)"
NEXT = "(no new messages; continue)"     # the cue before an agent's turn that follows its own last turn
ROLE_PROMPTS = {
    "lead": "You lead a team of GPU kernel engineers. Plan the campaign, dispatch variants and configurations to "
            "the specialists, merge the best result, redirect agents that fall behind, and close with a verdict.",
    "worker": "You are a worker in a team of GPU kernel engineers. Implement and tune what the lead assigns you; "
              "when you submit a kernel, reply with its complete source only. Report your status when asked.",
    "tuner": "You are a tuner in a team of GPU kernel engineers. Tune the launch parameters of the kernels handed to "
             "you; when you submit a kernel, reply with its complete source only.",
    "reviewer": "You are the reviewer in a team of GPU kernel engineers. Read each candidate kernel before it is "
                "built and pass it or fail it, saying why.",
    "verifier": "You are the verifier in a team of GPU kernel engineers. Re-check passing kernels against the "
                "reference and re-benchmark the winners.",
}


class Exchange(NamedTuple):
    """A user turn (its parts, possibly none before an agent's first word) and the assistant turn after it."""

    user: list[str]
    assistant: str


def speakers(row: dict) -> list[dict]:
    """The agents (rows of `agents`) with at least one message of their own, in the episode's agent order."""
    spoke = {m["agent"] for m in row["messages"]}
    return [a for a in row["agents"] if a["id"] in spoke]


def seen(row: dict, agent: str) -> list[int]:
    """Indices of the messages `agent` wrote or saw, in episode order."""
    msgs = row["messages"]
    out = set()
    for i, m in enumerate(msgs):
        if m["agent"] == agent:
            out.add(i)
            if m["kind"] == "review":
                out.add(m["ref"])
            elif m["kind"] == "verify":
                out.add(msgs[m["ref"]]["ref"])
        elif m["kind"] in BROADCAST or m.get("to") == agent or (m["kind"] == "status" and agent == "lead"):
            out.add(i)
    return sorted(out)


def chat(row: dict, agent: str, before: int | None = None) -> tuple[list[Exchange], list[str]]:
    """`agent`'s chat of messages with index < `before` (all by default): its exchanges, and the user parts after
    its last assistant turn."""
    msgs = row["messages"]
    exchanges: list[Exchange] = []
    user: list[str] = []
    mine: list[str] = []
    for i in seen(row, agent):
        if before is not None and i >= before:
            break
        m = msgs[i]
        if m["agent"] == agent:
            mine.append(m["content"])
            continue
        if mine:
            exchanges.append(Exchange(user, SEPARATOR.join(mine)))
            user, mine = [], []
        to = f" -> {m['to']}" if m.get("to") else ""
        user.append(f"[t+{hms(m['t'])}] {m['agent']}{to} ({m['kind']}):\n{m['content']}")
    if mine:
        exchanges.append(Exchange(user, SEPARATOR.join(mine)))
        user = []
    return exchanges, user


def system_turn(row: dict, agent: dict) -> dict:
    team = ", ".join(f"{a['id']} ({a['role']})" for a in row["agents"])
    return {"role": "system", "content": f"{ROLE_PROMPTS[agent['role']]}\nYou are {agent['id']}. Team: {team}."}


def task_text(row: dict) -> str:
    """The task as kernelinfer's user turn states it, less its reply instruction (each role replies its own way)."""
    return _task_text(row["op"], row["impl"], row["gpu"], row["dtype"], tuple(row["shape"].items()))


@lru_cache(maxsize=256)
def _task_text(op: str, impl: str, gpu: str, dtype: str, shape: tuple) -> str:
    task = make_task(op, impl, gpu, dtype, dict(shape))
    return task_statement(task, task_fields(task))


def opening(system: dict, task: str, user: list[str], continued: bool) -> list[dict]:
    """A window's system turn and first user turn: the task, a note when earlier turns are left out, `user`."""
    return [system, {"role": "user", "content": SEPARATOR.join([task] + [CONTINUED] * continued + user)}]


def fit_user(system: dict, task: str, user: list[str], continued: bool, budget: int) -> list[dict] | None:
    """`opening` within `budget` tokens, leaving out the oldest user parts (a note says how many) as needed."""
    for drop in range(len(user) + 1):
        kept = user[drop:] if not drop else [f"({drop} earlier messages omitted)"] + user[drop:]
        turns = opening(system, task, kept, continued or drop > 0)
        if tokens.chat(turns) <= budget:
            return turns
    return None


def windows(system: dict, task: str, exchanges: list[Exchange], budget: int) -> list[list[dict]]:
    """The exchanges as chats of at most `budget` tokens each, in order, each opening with system and task; an
    exchange whose assistant turn cannot fit even alone is left out."""
    out: list[list[dict]] = []
    current: list[dict] | None = None
    for k, ex in enumerate(exchanges):
        answer = {"role": "assistant", "content": ex.assistant}
        if current is not None:
            added = [{"role": "user", "content": SEPARATOR.join(ex.user) or NEXT}, answer]
            if tokens.chat(current) + tokens.chat(added) <= budget:
                current += added
                continue
            out.append(current)
        head = fit_user(system, task, ex.user, k > 0, budget - tokens.chat([answer]))
        current = None if head is None else head + [answer]
    if current is not None:
        out.append(current)
    return out


def tail(system: dict, task: str, exchanges: list[Exchange], last: list[str], budget: int) -> list[dict] | None:
    """The newest exchanges and the user parts `last` (NEXT when none) as one prompt of at most `budget` tokens,
    ending on that user turn; None when not even the task and the newest message fit."""
    suffix = [{"role": "user", "content": SEPARATOR.join(last) or NEXT}]
    chosen = None
    for k in range(len(exchanges) - 1, -1, -1):
        ex = exchanges[k]
        answer = {"role": "assistant", "content": ex.assistant}
        turns = opening(system, task, ex.user, k > 0) + [answer] + suffix
        if tokens.chat(turns) > budget:
            break
        chosen = turns
        suffix = [{"role": "user", "content": SEPARATOR.join(ex.user) or NEXT}, answer] + suffix
    return chosen or fit_user(system, task, last, bool(exchanges), budget)
