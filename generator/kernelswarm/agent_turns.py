"""kernelswarm `agent_turns` view: one chat per (episode, agent), windowed to a token budget.

Why: an episode is a team's log, not a chat; SFT needs one speaker's chat. Each agent with at least one message of
its own (the env is not an agent) gets a system turn for its role, a user turn stating the task, then what it saw
as user turns and its own messages as assistant turns (`generator.kernelswarm.agent_view`), alternating strictly and ending on
its last assistant turn (what it saw after its last word teaches nothing). A chat longer than `window_tokens`
(counted by `generator.tokens`) is cut at exchange boundaries into several rows, `window` 0, 1, ..., each opening
with the system turn and the task again.
"""
from __future__ import annotations

from datasets import Features, List, Value

from generator.kernelswarm import agent_view
from generator import tokens

WINDOW_TOKENS = 32_768
FEATURES = Features({
    "episode_id": Value("string"),
    "scenario": Value("string"),
    "agent": Value("string"),
    "role": Value("string"),
    "window": Value("int64"),
    "messages": List({"role": Value("string"), "content": Value("string")}),
    "tokens": Value("int64"),
})


def rows(row: dict, *, window_tokens: int = WINDOW_TOKENS) -> list[dict]:
    """The agent_turns rows of one episode row: agents in the episode's order, each agent's windows in order."""
    task = agent_view.task_text(row)
    out = []
    for agent in agent_view.speakers(row):
        exchanges, _after = agent_view.chat(row, agent["id"])
        system = agent_view.system_turn(row, agent)
        for n, messages in enumerate(agent_view.windows(system, task, exchanges, window_tokens)):
            out.append({"episode_id": row["episode_id"], "scenario": row["scenario"], "agent": agent["id"],
                        "role": agent["role"], "window": n, "messages": messages,
                        "tokens": tokens.chat(messages)})
    return out
