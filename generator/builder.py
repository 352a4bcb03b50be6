"""One `datasets` builder for every dataset, driven by its `Dataset` descriptor.

A dataset's builder (`generator/<dataset>/builder.py`, re-exported by the repo-root `<dataset>.py`) is this class
with `DATASET` set: it reads a generated folder (local, a Hub snapshot, or `hf://` paths) or calls the
descriptor's own row functions for a `seed`, so it defines no feature, config or row of its own.

It reads the seed layout's JSONL (the main rows, the held-out tasks) and the views' Parquet, so it works on a
`--no-views` folder, on the raw files a user copied, and on the full layout alike; the main config's
`validation` split is the rows the validation rule (`generator.catalog.validation`) gives it, as in the card, and
a view's splits are its files of each split (or, for a seed, the view rows of that split's main rows).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterator

import datasets
import orjson
from datasets.builder import Key
from datasets.data_files import DataFilesDict
from datasets.utils.file_utils import xopen

from generator.catalog import validation
from generator.check.schemas import compiled
from generator.dataset import Dataset, View
from generator.layout import HOLDOUT_CONFIG, SHARD_SIZE, num_shards, view_pattern
from generator.write.parquet import read_rows
from generator.write.views import SPLITS, WINDOW_TOKENS

HOMEPAGE = "https://github.com/kernelstrain/kernelstrain"
LICENSE = "mit"


@dataclass
class KernelstrainConfig(datasets.BuilderConfig):
    """`seed` set: rows come from the generator, not files: the rows `python -m generator <dataset> --seed S
    --sessions|--episodes N --holdout H` writes (counts in the subclass's `num_*` and `num_holdout`; the CLI's
    defaults when unset, since the train/holdout task split depends on both)."""

    seed: int | None = None
    num_holdout: int | None = None
    window_tokens: int = WINDOW_TOKENS    # a view config's token budget for seed= rows (--window-tokens)


class RowFileError(ValueError):
    """A data file line that is not one JSON object; the message names file and line."""


def read_jsonl(path: str) -> Iterator[tuple[int, dict]]:
    """Yield (line number, row); a blank or broken line is an error, as it is for the Hub viewer."""
    with xopen(path, "rb") as f:
        for lineno, line in enumerate(f, 1):
            try:
                row = orjson.loads(line)
            except orjson.JSONDecodeError as e:
                raise RowFileError(f"{path}:{lineno}: not a JSON object ({e})") from None
            if not isinstance(row, dict):
                raise RowFileError(f"{path}:{lineno}: not a JSON object")
            yield lineno, row


def _schema_error(rules, path: str, lineno: int, row: dict) -> RowFileError:
    """A row its schema rejects is refused, not coerced by the features' cast (`"many"` in an int column would fail
    there without a file or line, `step: 1.5` would become 1, a missing `best` null, an extra key dropped)."""
    where, message = (rules.errors(row) or [("/", "does not match")])[0]
    return RowFileError(f"{path}:{lineno}: {where}: {message[:200]} (schema {rules.name}; `python -m generator "
                        "validate` lists every problem)")


class KernelstrainBuilder(datasets.GeneratorBasedBuilder):
    """Reads a config's files of a generated folder, or generates rows for a seed (one shard of SHARD_SIZE rows,
    or one file, is one shard: `as_streaming_dataset()` has as many shards as the folder has batches)."""

    DATASET: ClassVar[Dataset]
    DEFAULT_WRITER_BATCH_SIZE = SHARD_SIZE

    @classmethod
    def configs_for(cls, dataset: Dataset, config_class: type) -> list:
        return [config_class(name=c.name, description=c.description) for c in dataset.configs]

    @property
    def count_field(self) -> str:
        """The config's row-count option: `num_sessions`, `num_episodes`."""
        return f"num_{self.DATASET.count_flag}"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=self.DATASET.description,
            features=self.DATASET.config(self.config.name).features,
            homepage=HOMEPAGE,
            license=LICENSE,
            citation=self.DATASET.citation,
        )

    def _split_generators(self, dl_manager) -> list[datasets.SplitGenerator]:
        config = self.DATASET.config(self.config.name)
        split = config.split
        # the main config's rows are split by the validation rule, a view's by its main rows'; the holdout has one
        splits = SPLITS if config.name != HOLDOUT_CONFIG else (split,)
        if self.config.seed is not None:
            rows, holdout = self._counts()
            shards = [0] if self.config.name == HOLDOUT_CONFIG else list(range(num_shards(rows)))
            return [datasets.SplitGenerator(name=s, gen_kwargs={"shards": shards, "files": None,
                                                                "keep": s if len(splits) > 1 else None})
                    for s in splits]
        data_files = self.config.data_files
        if data_files is None:
            if not self.config.data_dir:
                raise ValueError(
                    f"config {self.config.name!r} needs data_dir= (a generated folder or Hub snapshot), "
                    f"data_files=, or seed= (with {self.count_field}= and num_holdout=)"
                )
            if isinstance(config, View):          # a file per split: each split reads its own files whole
                patterns, splits = {s: [view_pattern(config.name, s)] for s in splits}, ()
            else:
                patterns = {s: [config.pattern] for s in splits}
            data_files = DataFilesDict.from_patterns(patterns, base_path=self.config.data_dir)
        else:
            splits = ()        # the caller's files are its splits, read whole
        files = dl_manager.download({name: list(paths) for name, paths in data_files.items()})
        return [
            datasets.SplitGenerator(name=name, gen_kwargs={"shards": None, "files": sorted(paths),
                                                           "keep": name if len(splits) > 1 else None})
            for name, paths in files.items()
        ]

    def _counts(self) -> tuple[int, int]:
        gen = self.DATASET
        rows = getattr(self.config, self.count_field)
        holdout = self.config.num_holdout
        rows = gen.default_rows if rows is None else rows
        holdout = gen.default_holdout if holdout is None else holdout
        if rows < 1 or holdout < 0:
            raise ValueError(f"config {self.config.name!r}: need {self.count_field} >= 1 and num_holdout >= 0, "
                             f"got {rows} and {holdout}")
        return rows, holdout

    def _generate_examples(self, shards, files, keep=None) -> Iterator[tuple[Key, dict]]:
        """The rows of `shards` (seed=) or `files`; when `keep` is set, only those made from main rows of that
        split (the main config's JSONL, or a view's rows generated for a seed)."""
        if shards is not None:
            gen, (rows, holdout) = self.DATASET, self._counts()
            for shard in shards:
                config = gen.config(self.config.name)
                if self.config.name == HOLDOUT_CONFIG:
                    generated = gen.holdout_rows(self.config.seed, rows, holdout)
                else:
                    generated = (row for row in gen.rows_for_shard(self.config.seed, rows, holdout, shard)
                                 if keep is None or validation.split_of(row) == keep)
                if isinstance(config, View):
                    generated = (out for row in generated
                                 for out in config.rows_fn(row, window_tokens=self.config.window_tokens))
                for i, row in enumerate(generated):
                    yield Key(shard, i), row
            return
        config = self.DATASET.config(self.config.name)
        rules = compiled(config.schema)
        for shard, path in enumerate(files):
            for lineno, row in self._read(config, path):
                if not rules.is_valid(row):
                    raise _schema_error(rules, path, lineno, row)
                if keep is None or validation.split_of(row) == keep:
                    yield Key(shard, lineno), row

    @staticmethod
    def _read(config, path: str) -> Iterator[tuple[int, dict]]:
        """(line or row number, row) of a config's data file: a view's Parquet file or a JSONL file."""
        if not isinstance(config, View):
            yield from read_jsonl(path)
            return
        with xopen(path, "rb") as f:
            yield from enumerate(read_rows(f), 1)
