"""The validator's rule for the `agent_turns` view: every row is a window of one agent's chat of its episode.

Why: an SFT set teaches what it shows, so a chat must hold only what its agent saw, when it saw it, and its own
messages as its turns (`generator.kernelswarm.agent_view`). `python -m generator validate` pairs each
agent_turns file with its shard and finds a row whose turns are not a run of its agent's chat (a message
addressed to another agent, one shown before it reached the agent, a turn edited, dropped or reordered), whose
opening is not the role's system turn and the task, or whose windows of one agent overlap or go back, with the
view file and row named. Imports no `datasets`: the validator runs it.
"""
from __future__ import annotations

from typing import Iterator

from generator.kernelswarm import agent_view


def problems(row: dict, windows: list[dict]) -> Iterator[tuple[int, str]]:
    """(index in `windows`, message) for each agent_turns row of episode `row` that its messages do not give."""
    agents = {a["id"]: a for a in agent_view.speakers(row)}
    task = agent_view.task_text(row)
    chats: dict[str, tuple[list[agent_view.Exchange], list[dict]]] = {}
    reached: dict[str, tuple[int, int]] = {}        # agent -> (its last window, the exchange after it)
    for k, view in enumerate(windows):
        agent, messages = view["agent"], view["messages"]
        if agent not in agents:
            yield k, f"agent {agent}: not an agent with a message of its own in the episode"
            continue
        if view["role"] != agents[agent]["role"]:
            yield k, f"agent {agent}: role {view['role']!r} but the episode says {agents[agent]['role']!r}"
        if agent not in chats:
            exchanges, _after = agent_view.chat(row, agent)
            chats[agent] = exchanges, agent_view.turns(exchanges)
        exchanges, chat = chats[agent]
        if not messages or messages[0] != agent_view.system_turn(row, agents[agent]):
            yield k, f"agent {agent} window {view['window']}: does not open with the role's system turn"
            continue
        first = _first_exchange(exchanges, chat, messages[2:], reached.get(agent, (-1, 0))[1])
        if first is None or not agent_view.is_opening(messages[1], task, exchanges[first].user, first > 0):
            yield k, (f"agent {agent} window {view['window']}: its turns are not the task and a run of the "
                      f"agent's chat after its previous window")
            continue
        previous = reached.get(agent, (-1, 0))[0]
        if view["window"] != previous + 1:
            yield k, f"agent {agent} window {view['window']}: follows window {previous}"
        reached[agent] = view["window"], first + len(messages[2:]) // 2 + 1


def _first_exchange(exchanges: list[agent_view.Exchange], chat: list[dict], body: list[dict],
                    start: int) -> int | None:
    """The first exchange (from `start`) whose answer opens `body`, the rest of `body` the chat's turns after it."""
    for first in range(start, len(exchanges)):
        if chat[2 * first + 1:2 * first + 1 + len(body)] == body and len(body) % 2:
            return first
    return None
