"""kernelinfer's row features: the single definition of its main config's columns (the card's `dataset_info`,
the builder and the validator's card check all read them from here)."""
from __future__ import annotations

from datasets import Features, Json, List, Value

from generator.task_features import TASK_FIELDS

FEATURES = Features(
    {
        "session_id": Value("string"),
        **TASK_FIELDS,
        "signature": Value("string"),
        "desc": Value("string"),
        "baseline_ms": Value("float64"),
        "roofline_ms": Value("float64"),
        "best": {"step": Value("int64"), "time_ms": Value("float64"), "speedup": Value("float64")},
        "attempts": Value("int64"),
        "elapsed_s": Value("float64"),
        "elapsed_hms": Value("string"),
        "num_steps": Value("int64"),
        "messages": List({"role": Value("string"), "content": Value("string")}),
        "trace": List(
            {
                "step": Value("int64"),
                "tag": Value("string"),
                "kind": Value("string"),
                "params": Json(),
                "status": Value("string"),
                "time_ms": Value("float64"),  # null unless status is ok
                "kept": Value("bool"),
            }
        ),
    }
)
