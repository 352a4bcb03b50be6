"""What one kernelswarm agent saw of an episode, as a chat: the shared base of the agent_turns and transitions views.

Why: an episode's `messages` are a team's log (roles lead / worker / reviewer / verifier / tuner / env), not a
chat. An agent saw only what reached it: messages addressed to it (`to`), the broadcasts (the plan, the env's
leaderboards and new-best notices, the verdict), the env's results of its own candidates, and what its own acts
name by `ref` as what they judged (`judged`: a reviewer the candidate it reviews; a verifier the candidate of the
result it names, the kernel it re-checks, not the env's message to another agent). A status is a report to the
lead, which is also copied on each verification (it merges what the verifier re-checked). So no agent but the lead
sees a message addressed to another, and the lead only those reports. A judged message reaches the agent with the
act that names it, never before an earlier turn of its own, so a chat never shows what the agent was handed later.
Its own messages are its `assistant` turns, one message each, everything it saw `user` turns (the parts since its
last message joined by SEPARATOR; NEXT when it saw nothing new), in the order they reached it; `ref` links make
the pairing exact, so no message is matched by guesswork.

One message per assistant turn (up to 0.6.1 an agent's adjacent messages were merged into one turn): so the
transitions view's state before an action, plus that action, is the start of the state before the agent's next
action, as RL needs, and the agent_turns chat is the same chat. A chat is windowed by whole exchanges (a user
turn and the assistant turn answering it); every window opens with the role's system turn and a user turn
stating the task, so each is self-contained.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Iterator, NamedTuple

from generator import tokens
from generator.sim.clock import hms
from generator.sim.prompt import task_statement
from generator.catalog.hardware import GPUS
from generator.catalog.tasks import make_task
from generator.sim.workbench import task_fields

SEPARATOR = "\n\n"
BROADCAST = frozenset({"plan", "leaderboard", "new_best", "verdict"})
TO_LEAD = frozenset({"status", "verify"})      # reports the lead reads: statuses, and the verifications it merges on
CONTINUED = "(earlier turns of this episode are omitted)"
NEXT = "(no new messages; continue)"     # the cue before an agent's turn that follows its own last turn
ROLE_PROMPTS = {
    "lead": "You lead a team of GPU kernel engineers. Plan the campaign, dispatch variants and configurations to "
            "the specialists, merge the best result, redirect agents that fall behind, and close with a verdict.",
    "worker": "You are a worker in a team of GPU kernel engineers. Implement and tune what the lead assigns you; "
              "when you submit a kernel, reply with its complete source only.",
    "tuner": "You are a tuner in a team of GPU kernel engineers. Tune the launch parameters of the kernels handed to "
             "you; when you submit a kernel, reply with its complete source only.",
    "reviewer": "You are the reviewer in a team of GPU kernel engineers. Read each candidate kernel before it is "
                "built and pass it or fail it, saying why.",
    "verifier": "You are the verifier in a team of GPU kernel engineers. Re-check passing kernels against the "
                "reference and re-benchmark the winners.",
}
# what a worker's or tuner's system turn adds where the agent reports statuses in the episode: nobody asks for one
STATUS_DUTY = ("After each round of results, report your status to the lead unasked: your results so far, how many "
               "became the shared best, your fastest.")


class Exchange(NamedTuple):
    """A user turn (its parts; none when the agent saw nothing since its last message) and the assistant turn
    after it (one message of the agent's own)."""

    user: list[str]
    assistant: str


def speakers(row: dict) -> list[dict]:
    """The agents (rows of `agents`) with at least one message of their own, in the episode's agent order."""
    spoke = {m["agent"] for m in row["messages"]}
    return [a for a in row["agents"] if a["id"] in spoke]


def judged(msgs: list[dict], m: dict) -> tuple[int, ...]:
    """The messages an act names as what it judged, by `ref`: a review's candidate; a verification's candidate and
    the env's result it re-checks (the kernel, and the time it quotes as reported: the result went to its author,
    and the verifier is handed it with the kernel); none for other kinds."""
    if m["kind"] == "review":
        return (m["ref"],)
    if m["kind"] == "verify":
        return msgs[m["ref"]]["ref"], m["ref"]
    return ()


def seen(row: dict, agent: str) -> list[tuple[int, int]]:
    """(when, index) of each message `agent` wrote or saw, in the order it saw them; `when` is the index of the
    message at which it reached the agent: its own, except for one that only the agent's own act hands it
    (`judged`), which reaches it with that act, in the user turn before it (at its own place when the agent wrote
    nothing between them), never before an earlier turn of the agent's own."""
    msgs = row["messages"]
    keys: dict[int, tuple[int, int, int]] = {}    # index -> (when, 0 / -1 just before `when`, index)
    own = -1                           # the agent's latest own message so far
    for i, m in enumerate(msgs):
        if m["agent"] == agent:
            for j in judged(msgs, m):
                if j not in keys:
                    keys[j] = (j, 0, j) if j > own else (i, -1, j)
            keys[i], own = (i, 0, i), i
        elif m["kind"] in BROADCAST or m.get("to") == agent or (m["kind"] in TO_LEAD and agent == "lead"):
            keys[i] = (i, 0, i)
    return [(when, i) for when, _before, i in sorted(keys.values())]


def chat(row: dict, agent: str, before: int | None = None) -> tuple[list[Exchange], list[str]]:
    """`agent`'s chat of the messages that reached it before message `before` (all by default; `seen`): its
    exchanges (one per message of its own), and the user parts after its last own message."""
    msgs = row["messages"]
    exchanges: list[Exchange] = []
    user: list[str] = []
    for when, i in seen(row, agent):
        if before is not None and when >= before:
            break
        m = msgs[i]
        if m["agent"] == agent:
            exchanges.append(Exchange(user, m["content"]))
            user = []
        else:
            to = f" -> {m['to']}" if m.get("to") else ""
            user.append(f"[t+{hms(m['t'])}] {m['agent']}{to} ({m['kind']}):\n{m['content']}")
    return exchanges, user


def system_turn(row: dict, agent: dict) -> dict:
    """The role's prompt (with `STATUS_DUTY` for an agent whose statuses the episode holds), who the agent is, its
    team, and the machines the team runs on (`timeline`: each specialist has its own GPU of the task's kind, so a
    result's time was measured alone on it)."""
    team = ", ".join(f"{a['id']} ({a['role']})" for a in row["agents"])
    reports = any(m["kind"] == "status" and m["agent"] == agent["id"] for m in row["messages"])
    role = f"{ROLE_PROMPTS[agent['role']]} {STATUS_DUTY}" if reports else ROLE_PROMPTS[agent["role"]]
    return {"role": "system", "content": f"{role}\nYou are {agent['id']}. Team: {team}. "
                                         f"Each specialist has its own {GPUS[row['gpu']].display}: its builds and "
                                         f"benchmarks run one at a time, alone on it."}


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


def trims(user: list[str], continued: bool) -> Iterator[tuple[list[str], bool]]:
    """The ways an opening may hold the user parts `user`, fullest first: all of them, then without the oldest
    ones, a note counting them (the window then says earlier turns are left out)."""
    for drop in range(len(user) + 1):
        yield (user[drop:] if not drop else [f"({drop} earlier messages omitted)"] + user[drop:]), continued or drop > 0


def fit_user(system: dict, task: str, user: list[str], continued: bool, budget: int) -> list[dict] | None:
    """`opening` within `budget` tokens, leaving out the oldest user parts (a note says how many) as needed."""
    for kept, note in trims(user, continued):
        turns = opening(system, task, kept, note)
        if tokens.chat(turns) <= budget:
            return turns
    return None


def is_opening(turn: dict, task: str, user: list[str], continued: bool) -> bool:
    """Whether `turn` is a window's first user turn for the user parts `user` (some of the oldest perhaps left out):
    what the validator's rules accept."""
    return any(opening({}, task, kept, note)[1] == turn for kept, note in trims(user, continued))


def user_turn(parts: list[str]) -> dict:
    return {"role": "user", "content": SEPARATOR.join(parts) or NEXT}


def turns(exchanges: list[Exchange]) -> list[dict]:
    """The exchanges as chat turns (after a window's opening): each user turn and the assistant turn answering it."""
    return [turn for ex in exchanges for turn in (user_turn(ex.user), {"role": "assistant", "content": ex.assistant})]


def windows(system: dict, task: str, exchanges: list[Exchange], budget: int) -> list[list[dict]]:
    """The exchanges as chats of at most `budget` tokens each, in order, each opening with system and task; an
    exchange whose assistant turn cannot fit even alone is left out."""
    out: list[list[dict]] = []
    current: list[dict] | None = None
    for k, ex in enumerate(exchanges):
        answer = {"role": "assistant", "content": ex.assistant}
        if current is not None:
            added = [user_turn(ex.user), answer]
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
    suffix = [user_turn(last)]
    chosen = None
    for k in range(len(exchanges) - 1, -1, -1):
        ex = exchanges[k]
        answer = {"role": "assistant", "content": ex.assistant}
        turns = opening(system, task, ex.user, k > 0) + [answer] + suffix
        if tokens.chat(turns) > budget:
            break
        chosen = turns
        suffix = [user_turn(ex.user), answer] + suffix
    return chosen or fit_user(system, task, last, bool(exchanges), budget)
