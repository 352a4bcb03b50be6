"""kernelinfer as a `datasets` builder: the one definition of its configs and features.

Configs: `sessions` (default; split train, `batches/*.jsonl`) and `holdout` (split test,
`tasks_holdout.jsonl`). The card's YAML `configs` / `dataset_info` are generated from this module
(generator/card.py), so `load_dataset(folder_or_repo, config)` and this builder agree by construction.

    from generator.kernelinfer_builder import KernelInfer   # or `from kernelinfer import KernelInfer` in a checkout
    b = KernelInfer(config_name="sessions", data_dir="out/kernelinfer"); b.download_and_prepare(); b.as_dataset()
    KernelInfer(config_name="sessions", seed=0, num_sessions=30)      # generated on the fly, same rows as the CLI
"""
from __future__ import annotations

from dataclasses import dataclass

import datasets
from datasets import Features, Json, List, Value

from generator.features import (
    HOLDOUT_CONFIG,
    HOLDOUT_FEATURES,
    TASK_FIELDS,
    KernelstrainBuilder,
    KernelstrainConfig,
)

DATASET = "kernelinfer"
MAIN_CONFIG = "sessions"
MERGED_FILE = "sessions.jsonl"

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


@dataclass
class KernelInferConfig(KernelstrainConfig):
    num_sessions: int | None = None


class KernelInfer(KernelstrainBuilder):
    """kernelinfer sessions (default) and held-out tasks."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = KernelInferConfig
    BUILDER_CONFIGS = [
        KernelInferConfig(name=MAIN_CONFIG, description="one optimization session per row"),
        KernelInferConfig(name=HOLDOUT_CONFIG, description="held-out task specs, no solutions"),
    ]
    DEFAULT_CONFIG_NAME = MAIN_CONFIG
    FEATURES = FEATURES
    COUNT_FIELD = "num_sessions"
    DATASET = DATASET
    DESCRIPTION = DESCRIPTION
    CITATION = CITATION


__all__ = ["DATASET", "FEATURES", "HOLDOUT_FEATURES", "KernelInfer", "KernelInferConfig", "MAIN_CONFIG", "MERGED_FILE"]
