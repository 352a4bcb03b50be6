"""The `Dataset` descriptor: every fact about one dataset, in one place, read by the CLI, writer, validator,
card, builders and uploader (none of them names a dataset or a module by a string).

A dataset package (`generator/kernelinfer/`, `generator/kernelswarm/`) builds one `Dataset` in its `dataset`
module; `generator/registry.py` lists them. A third dataset is one new package plus one line there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from generator.check.qa import CheckSet
from generator.layout import HOLDOUT_CONFIG, HOLDOUT_FILE, SHARD_PATTERN

if TYPE_CHECKING:
    from datasets import Features

@dataclass(frozen=True)
class Config:
    """One `load_dataset(folder, name)` config: which files, which split, which features and row schema."""

    name: str
    split: str
    pattern: str          # data_files pattern inside a generated folder
    features_fn: Callable[[], Features]   # called only by what loads or describes rows (imports `datasets`)
    schema: str           # the JSON Schema (schema/<schema>.schema.json) its rows follow
    description: str

    @property
    def features(self) -> Features:
        return self.features_fn()


def _holdout_features() -> Features:
    from generator.task_features import HOLDOUT_FEATURES

    return HOLDOUT_FEATURES


HOLDOUT = Config(HOLDOUT_CONFIG, "test", HOLDOUT_FILE, _holdout_features, "task", "held-out task specs, no solutions")


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
    features_fn: Callable[[], Features]   # the main config's features (the single definition), on demand
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
    def features(self) -> Features:
        return self.features_fn()

    @property
    def main_config(self) -> Config:
        return Config(f"{self.count_flag}", "train", SHARD_PATTERN, self.features_fn, self.schema,
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
