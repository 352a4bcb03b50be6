"""The `Dataset` descriptor: every fact about one dataset, in one place, read by the CLI, writer, validator,
card, builders and uploader (none of them names a dataset or a module by a string).

A dataset package (`generator/kernelinfer/`, `generator/kernelswarm/`) builds one `Dataset` in its `dataset`
module; `generator/registry.py` lists them. A third dataset is one new package plus one line there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from generator.check.qa import CheckSet
from generator.layout import HOLDOUT_CONFIG, HOLDOUT_FILE, SHARD_PATTERN, view_pattern

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


@dataclass(frozen=True)
class View(Config):
    """A training view: a config whose rows are a pure function of one main row (`rows_fn(row,
    window_tokens=N)`), written per shard and split as Parquet (`generator.write.views`: the view rows of the
    shard's train rows, and of its validation rows) and read from there. `split` is its first split, `pattern`
    every file of it (`layout.view_pattern(name, split)`: one split's)."""

    rows_fn: Callable[..., list[dict]] | None = None
    prompt_form: str = ""     # the card's words on the prompt, completion and reward of a row
    source_count: Callable[[dict], int] | None = None   # stats.json -> the count the rows can at most reach
    # the validator's rule: (main row, its view rows in file order) -> (index in those, message) per problem
    rule: Callable[[dict, list[dict]], Iterable[tuple[int, str]]] | None = None


def view(name: str, features_fn: Callable[[], Features], schema: str, rows_fn: Callable[..., list[dict]],
         description: str, prompt_form: str, source_count: Callable[[dict], int] | None = None,
         rule: Callable[[dict, list[dict]], Iterable[tuple[int, str]]] | None = None) -> View:
    return View(name, "train", view_pattern(name), features_fn, schema, description, rows_fn, prompt_form,
                source_count, rule)


def _holdout_features() -> Features:
    from generator.task_features import HOLDOUT_FEATURES

    return HOLDOUT_FEATURES


HOLDOUT = Config(HOLDOUT_CONFIG, "test", HOLDOUT_FILE, _holdout_features, "task", "held-out task specs, no solutions")
STATS_SCHEMA = "stats"   # stats.json, every dataset's summary document (schema/stats.schema.json)


@dataclass(frozen=True)
class Dataset:
    name: str                       # "kernelinfer": the CLI command and the folder's default name
    title: str                      # the card's pretty name
    row_unit: str                   # "session": what one row of the main config is
    count_flag: str                 # "sessions": the CLI's --<count_flag> and the builder's num_<count_flag>
    default_rows: int
    default_holdout: int
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
    rows_for_shard: Callable[..., Iterable[dict]]   # (seed, rows, holdout, shard, shard_size=SHARD_SIZE)
    holdout_rows: Callable[[int, int, int], list[dict]]              # (seed, rows, holdout)
    shard_stats: Callable[[list[dict]], dict]
    combine_stats: Callable[..., dict]
    # code diversity (`generator.write.diversity`): a shard's digests of its rows' sources, then stats.json's
    # `diversity` from every shard's, merged in the final step
    diversity_digests: Callable[[list[dict]], dict]
    diversity_figures: Callable[[list[dict]], dict]
    views: tuple[View, ...] = ()    # training views, listed after the main config
    outcome_notes: Callable[[dict], str] | None = None   # stats.json -> the card's paragraph on how rows end
    # `audit-compile DIR`: a main row's compiled candidates as `CompiledStep`s (generator.kernels.audit_steps)
    compiled_steps: Callable[[dict], Iterable] | None = None

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
        return self.configs_with(views=True)

    def configs_with(self, *, views: bool) -> tuple[Config, ...]:
        """The configs of a folder generated with or without (`--no-views`) its views."""
        return (self.main_config, *(self.views if views else ()), HOLDOUT)

    def config(self, name: str) -> Config:
        for c in self.configs:
            if c.name == name:
                return c
        raise ValueError(f"{self.name} has no config {name!r}; expected one of "
                         f"{', '.join(c.name for c in self.configs)}")

    def stats_document(self, shards: list[dict], **totals) -> dict:
        """stats.json: which dataset, then its own summary of the shards (`combine_stats(shards, **totals)`)."""
        return {"dataset": self.name, **self.combine_stats(shards, **totals)}
