"""kernelinfer's row features: the single definition of its main config's columns (the card's `dataset_info`,
the builder and the validator's card check all read them from here)."""
from __future__ import annotations

from datasets import Features, Json, List, Value

from generator.dataset import TASK_FIELDS

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

DESCRIPTION = (
    "Synthetic long-horizon GPU kernel-optimization sessions for LLM inference kernels: a task, then "
    "alternating full CUDA/Triton kernel candidates and simulated compiler / correctness / benchmark feedback."
)
CITATION = """@misc{kernelstrain_kernelinfer,
  title  = {kernelinfer: simulated inference-kernel optimization sessions},
  author = {kernelstrain contributors},
  year   = {2026},
  note   = {Synthetic data from an analytic performance model; no kernel was compiled or run to produce it}
}"""

FORMAT_NOTES = (
    'One row is one optimization session. `messages` is the training text in chat form: a system turn, the '
    "user's task, then alternating assistant turns (the full kernel source, no prose) and user feedback whose"
    ' first line is `[t+H:MM:SS] RESULT <status>` (`ok`, `compile_error`, `wrong_result`). `trace` is compact'
    ' per-step metadata (variant `tag`, step `kind`, tuned `params`, `status`, `time_ms` null unless ok, '
    '`kept`).'
)

SFT_SNIPPET = """\
# messages are already chat turns ({"role", "content"}): one SFT sample per session
sft = ds.select_columns(["messages"])
# text = tokenizer.apply_chat_template(sft[0]["messages"], tokenize=False)"""
