"""kernelswarm's row features: the single definition of its main config's columns.

Messages differ by `kind` (plan, dispatch, candidate, result, ...). They are typed as ONE struct holding the
common fields plus every kind-specific field, null where a kind does not carry it, rather than `Json`: the
columns stay typed and filterable, and Arrow casting cannot fail between shards, because the loader fills a
missing struct field with null and the declared type fixes each field's type whatever one shard holds.
`params` (tunable name -> value, keys vary by variant) is `Json`.
"""
from __future__ import annotations

from datasets import Features, Json, List, Value

from generator.dataset import TASK_FIELDS

MESSAGE = {
    "role": Value("string"),
    "agent": Value("string"),
    "kind": Value("string"),
    "content": Value("string"),
    "t": Value("float64"),
    "reward": Value("float64"),
    # kind-specific, null elsewhere
    "to": Value("string"),
    "subtask": Value("string"),
    "variant": Value("string"),
    "params": Json(),
    "status": Value("string"),
    "time_ms": Value("float64"),
}

FEATURES = Features(
    {
        "episode_id": Value("string"),
        "scenario": Value("string"),
        "n_agents": Value("int64"),
        **TASK_FIELDS,
        "baseline_ms": Value("float64"),
        "roofline_ms": Value("float64"),
        "best_ms": Value("float64"),
        "speedup": Value("float64"),
        "elapsed_s": Value("float64"),
        "agents": List(
            {
                "id": Value("string"),
                "role": Value("string"),
                "skill": Value("float64"),
                "tries": Value("int64"),
                "kept": Value("int64"),
                "best_ms": Value("float64"),
            }
        ),
        "num_messages": Value("int64"),
        "messages": List(MESSAGE),
    }
)

DESCRIPTION = (
    "Synthetic multi-agent GPU kernel-optimization episodes for LLM inference kernels: a lead and specialist "
    "agents plan, dispatch, submit kernels and receive simulated compile / verify / benchmark results with rewards."
)
CITATION = """@misc{kernelstrain_kernelswarm,
  title  = {kernelswarm: simulated multi-agent kernel-optimization episodes},
  author = {kernelstrain contributors},
  year   = {2026},
  note   = {Synthetic data from an analytic performance model; no kernel was compiled or run to produce it}
}"""

FORMAT_NOTES = (
    "One row is one multi-agent episode. `messages` is the episode's log; each message has the common fields "
    '`role`, `agent`, `kind`, `content`, `t` (seconds since start) and `reward`, plus kind-specific fields '
    '(`to`, `subtask`, `variant`, `params`, `status`, `time_ms`) that are null where a kind does not use '
    'them. Rewards are attached to environment `result` messages and to the final `verdict`.'
)

SFT_SNIPPET = """\
# one SFT sample per agent: its own turns as assistant, what it saw as user turns
def agent_view(row, agent):
    return [
        {"role": "assistant" if m["agent"] == agent else "user",
         "content": m["content"] if m["agent"] == agent else f"[{m['agent']} {m['kind']}] {m['content']}"}
        for m in row["messages"]
    ]
sample = agent_view(ds[0], ds[0]["agents"][1]["id"])"""
