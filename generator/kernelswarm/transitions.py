"""kernelswarm `transitions` view: one (state, action, reward) row per env result.

Why: RL on episodes needs what the acting agent knew, what it did and what it earned. For each result the
`prompt` is the agent's chat (`generator.kernelswarm.agent_view`) up to the candidate the result names by `ref`, newest
exchanges kept within `window_tokens` (counted by `generator.tokens`); the `completion` is that candidate's
source; `status`, `time_ms` and `reward` are the result message's own; `done` marks the agent's last result of
the episode (`transition_rule.last_results`), where its trajectory ends. A result whose candidate cannot fit the
window with the task alone yields no row.
"""
from __future__ import annotations

from datasets import Value

from generator.kernelswarm import agent_view, transition_rule
from generator import tokens
from generator.task_features import prompt_completion

WINDOW_TOKENS = 32_768
FEATURES = prompt_completion({
    "episode_id": Value("string"),
    "scenario": Value("string"),
    "agent": Value("string"),
    "role": Value("string"),
    "index": Value("int64"),
    "variant": Value("string"),
    "status": Value("string"),
    "time_ms": Value("float64"),
    "reward": Value("float64"),
    "done": Value("bool"),
})


def rows(row: dict, *, window_tokens: int = WINDOW_TOKENS) -> list[dict]:
    """The transition rows of one episode row, in the order of its results."""
    msgs = row["messages"]
    task = agent_view.task_text(row)
    agents = {a["id"]: a for a in row["agents"]}
    ends = transition_rule.last_results(row)      # where each agent's trajectory ends
    out = []
    for i, m in enumerate(msgs):
        if m["kind"] != "result":
            continue
        agent = agents[m["to"]]
        candidate = m["ref"]
        completion = [{"role": "assistant", "content": msgs[candidate]["content"]}]
        exchanges, last = agent_view.chat(row, agent["id"], before=candidate)
        prompt = agent_view.tail(agent_view.system_turn(row, agent), task, exchanges, last,
                                 window_tokens - tokens.chat(completion))
        if prompt is None:
            continue
        out.append({"episode_id": row["episode_id"], "scenario": row["scenario"], "agent": agent["id"],
                    "role": agent["role"], "index": i, "variant": m["variant"], "status": m["status"],
                    "time_ms": m["time_ms"], "reward": m["reward"], "done": i in ends,
                    "prompt": prompt, "completion": completion,
                    "prompt_tokens": tokens.chat(prompt), "completion_tokens": tokens.chat(completion)})
    return out
