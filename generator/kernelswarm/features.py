"""kernelswarm's row features: the single definition of its main config's columns.

Messages differ by `kind` (plan, dispatch, candidate, result, ...). They are typed as ONE struct holding the
common fields plus every kind-specific field, null where a kind does not carry it, rather than `Json`: the
columns stay typed and filterable, and Arrow casting cannot fail between shards, because the loader fills a
missing struct field with null and the declared type fixes each field's type whatever one shard holds.
`params` (tunable name -> value, keys vary by variant) is `Json`.
"""
from __future__ import annotations

from datasets import Features, Json, List, Value

from generator.task_features import TASK_FIELDS

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
    "ref": Value("int64"),       # index of the message a result, review, verify, merge, handoff or verdict answers
    "kept": Value("string"),     # "baseline" on a verdict that kept it (no passing result beat it)
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
