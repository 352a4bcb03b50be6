"""The task columns every row states, and the held-out task config's features (the same for every dataset).

Kept apart from the descriptor so that what only validates or generates never imports `datasets` (~170 MB).
"""
from __future__ import annotations

from datasets import Features, Json, List, Value

# The task as every row states it; `shape` keys vary per op, hence Json.
TASK_FIELDS = {
    "op": Value("string"),
    "impl": Value("string"),
    "gpu": Value("string"),
    "arch": Value("string"),
    "dtype": Value("string"),
    "shape": Json(),
}

# A held-out task (schema `task`): the user turn's facts, no solution. Same for every dataset.
HOLDOUT_FEATURES = Features({
    "task_id": Value("string"),
    **TASK_FIELDS,
    "signature": Value("string"),
    "desc": Value("string"),
    "baseline_ms": Value("float64"),
    "roofline_ms": Value("float64"),
})


CHAT_TURN = {"role": Value("string"), "content": Value("string")}


def prompt_completion(head: dict) -> Features:
    """A training-view row in TRL's conversational prompt-completion form: `head`'s columns (ids, outcome,
    reward), then the prompt and completion turns and their token counts (the steps and transitions views)."""
    return Features({**head, "prompt": List(CHAT_TURN), "completion": List(CHAT_TURN),
                     "prompt_tokens": Value("int64"), "completion_tokens": Value("int64")})
