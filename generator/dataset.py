"""The `Dataset` descriptor: every fact about one dataset, in one place, read by the CLI, writer, validator,
card, builders and uploader (none of them names a dataset or a module by a string).

A dataset package (`generator/kernelinfer/`, `generator/kernelswarm/`) builds one `Dataset` in its `dataset`
module; `generator/registry.py` lists them. A third dataset is one new package plus one line there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from datasets import Features, Json, Value

from generator.check.qa import CheckSet
from generator.layout import HOLDOUT_CONFIG, HOLDOUT_FILE, SHARD_PATTERN

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


@dataclass(frozen=True)
class Config:
    """One `load_dataset(folder, name)` config: which files, which split, which features and row schema."""

    name: str
    split: str
    pattern: str          # data_files pattern inside a generated folder
    features: Features
    schema: str           # the JSON Schema (schema/<schema>.schema.json) its rows follow
    description: str


HOLDOUT = Config(HOLDOUT_CONFIG, "test", HOLDOUT_FILE, HOLDOUT_FEATURES, "task", "held-out task specs, no solutions")


@dataclass(frozen=True)
class Dataset:
    name: str                       # "kernelinfer": the CLI command and the folder's default name
    title: str                      # the card's pretty name
    row_unit: str                   # "session": what one row of the main config is
    count_flag: str                 # "sessions": the CLI's --<count_flag> and the builder's num_<count_flag>
    default_rows: int
    default_holdout: int
    stream: int                     # the dataset's word in every row's SeedSequence (never reuse one)
    id_field: str                   # "session_id"
    merged_file: str                # "sessions.jsonl": the shards concatenated (the seed's layout)
    total_key: str                  # the stats.json count printed in the CLI's summary line
    features: Features              # the main config's features (the single definition)
    description: str
    citation: str
    tags: tuple[str, ...]
    format_notes: str               # the card's paragraph on what one row holds
    sft_snippet: str                # the card's chat-format example
    builder_name: str               # the `datasets` builder class (generator/<name>/builder.py, repo-root <name>.py)
    checks: CheckSet                # QA checks over rows (the writer per batch, the validator per row)
    rows_for_shard: Callable[[int, int, int, int], Iterable[dict]]   # (seed, rows, holdout, shard)
    holdout_rows: Callable[[int, int, int], list[dict]]              # (seed, rows, holdout)
    shard_stats: Callable[[list[dict]], dict]
    combine_stats: Callable[..., dict]

    @property
    def schema(self) -> str:
        return self.row_unit

    @property
    def main_config(self) -> Config:
        return Config(f"{self.count_flag}", "train", SHARD_PATTERN, self.features, self.schema,
                      f"one {self.row_unit} per row")

    @property
    def configs(self) -> tuple[Config, ...]:
        """Every config; the first is the default."""
        return (self.main_config, HOLDOUT)

    def config(self, name: str) -> Config:
        for c in self.configs:
            if c.name == name:
                return c
        raise ValueError(f"{self.name} has no config {name!r}; expected one of "
                         f"{', '.join(c.name for c in self.configs)}")
