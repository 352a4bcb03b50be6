"""kernelswarm as a `datasets` builder: the one definition of its configs and features.

Configs: `episodes` (default; split train, `batches/*.jsonl`) and `holdout` (split test,
`tasks_holdout.jsonl`). The card's YAML is generated from this module (generator/card.py).

Messages differ by `kind` (plan, dispatch, candidate, result, ...). They are typed as ONE struct holding the
common fields plus every kind-specific field, null where a kind does not carry it, rather than `Json`: the
columns stay typed and filterable, and Arrow casting cannot fail between shards, because the loader fills a
missing struct field with null and the declared type fixes each field's type whatever one shard holds.
`params` (tunable name -> value, keys vary by variant) is `Json`.

    from generator.kernelswarm_builder import KernelSwarm   # or `from kernelswarm import KernelSwarm` in a checkout
    KernelSwarm(config_name="episodes", data_dir="out/kernelswarm")
    KernelSwarm(config_name="episodes", seed=0, num_episodes=30)      # generated on the fly, same rows as the CLI
"""
from __future__ import annotations

from dataclasses import dataclass

import datasets
from datasets import Features, Json, List, Value

from generator.features import HOLDOUT_CONFIG, HOLDOUT_FEATURES, TASK_FIELDS, KernelstrainBuilder, KernelstrainConfig

DATASET = "kernelswarm"
MAIN_CONFIG = "episodes"
MERGED_FILE = "episodes.jsonl"

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


@dataclass
class KernelSwarmConfig(KernelstrainConfig):
    num_episodes: int | None = None


class KernelSwarm(KernelstrainBuilder):
    """kernelswarm episodes (default) and held-out tasks."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = KernelSwarmConfig
    BUILDER_CONFIGS = [
        KernelSwarmConfig(name=MAIN_CONFIG, description="one multi-agent episode per row"),
        KernelSwarmConfig(name=HOLDOUT_CONFIG, description="held-out task specs, no solutions"),
    ]
    DEFAULT_CONFIG_NAME = MAIN_CONFIG
    FEATURES = FEATURES
    COUNT_FIELD = "num_episodes"
    DATASET = DATASET
    DESCRIPTION = DESCRIPTION
    CITATION = CITATION


__all__ = ["DATASET", "FEATURES", "HOLDOUT_FEATURES", "KernelSwarm", "KernelSwarmConfig", "MAIN_CONFIG", "MERGED_FILE"]
