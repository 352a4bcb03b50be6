"""What both builders share: the task fields every row states, and the reading of rows into `datasets`.

`generator/kernel{infer,swarm}_builder.py` own their feature lists (the single source of truth); this module only
holds the pieces that would otherwise be copied between them: the task columns common to a session, an
episode and a holdout row, and one `GeneratorBasedBuilder` base that reads a generated folder (local, a Hub
snapshot, or `hf://` paths) or calls the generator on the fly for a `seed`.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import ClassVar, Iterator

import datasets
import orjson
from datasets import Features, Json, Value
from datasets.builder import Key
from datasets.data_files import DataFilesDict
from datasets.utils.file_utils import xopen

from generator.dataset_cli import HOLDOUT_FILE, SHARD_SIZE  # the writer's layout, read back here
from generator.io import SHARD_DIR

HOMEPAGE = "https://github.com/kernelstrain/kernelstrain"
LICENSE = "mit"
HOLDOUT_CONFIG = "holdout"
MAIN_PATTERN = f"{SHARD_DIR}/*.jsonl"

# The task as every row states it; `shape` keys vary per op, hence Json.
TASK_FIELDS = {
    "op": Value("string"),
    "impl": Value("string"),
    "gpu": Value("string"),
    "arch": Value("string"),
    "dtype": Value("string"),
    "shape": Json(),
}

# A held-out task (schema `task`): the user turn's facts, no solution. Same for both datasets.
HOLDOUT_FEATURES = Features(
    {
        "task_id": Value("string"),
        **TASK_FIELDS,
        "signature": Value("string"),
        "desc": Value("string"),
        "baseline_ms": Value("float64"),
        "roofline_ms": Value("float64"),
    }
)


@dataclass
class KernelstrainConfig(datasets.BuilderConfig):
    """`seed` set: rows come from the generator, not files: the rows `python -m generator <dataset> --seed S
    --sessions|--episodes N --holdout H` writes (counts in the subclass's `num_*` and `num_holdout`; the CLI's
    defaults when unset, since the train/holdout task split depends on both)."""

    seed: int | None = None
    num_holdout: int | None = None


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


class KernelstrainBuilder(datasets.GeneratorBasedBuilder):
    """Reads `batches/*.jsonl` (or `tasks_holdout.jsonl`) of a generated folder, or generates rows for a seed.

    Subclasses set FEATURES, COUNT_FIELD and DATASET. On-the-fly configs call the dataset CLI's own entry
    points (`generator.cli_<DATASET>.SPEC`: defaults, `rows_for_shard`, `holdout_rows`), so they generate
    nothing of their own. One file, or
    one generated shard of SHARD_SIZE rows, is one shard: `as_streaming_dataset()` has as many shards as the
    folder has batches.
    """

    FEATURES: ClassVar[Features]
    MAIN_CONFIG: ClassVar[str]
    COUNT_FIELD: ClassVar[str]
    DATASET: ClassVar[str]
    DESCRIPTION: ClassVar[str]
    CITATION: ClassVar[str]
    DEFAULT_WRITER_BATCH_SIZE = SHARD_SIZE

    @classmethod
    def features_for(cls, config_name: str) -> Features:
        return HOLDOUT_FEATURES if config_name == HOLDOUT_CONFIG else cls.FEATURES

    @classmethod
    def split_for(cls, config_name: str) -> str:
        return "test" if config_name == HOLDOUT_CONFIG else "train"

    @classmethod
    def pattern_for(cls, config_name: str) -> str:
        return HOLDOUT_FILE if config_name == HOLDOUT_CONFIG else MAIN_PATTERN

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=self.DESCRIPTION,
            features=self.features_for(self.config.name),
            homepage=HOMEPAGE,
            license=LICENSE,
            citation=self.CITATION,
        )

    def _split_generators(self, dl_manager) -> list[datasets.SplitGenerator]:
        split = self.split_for(self.config.name)
        if self.config.seed is not None:
            rows, holdout = self._counts()
            shards = [0] if self.config.name == HOLDOUT_CONFIG else list(range(-(-rows // SHARD_SIZE)))
            return [datasets.SplitGenerator(name=split, gen_kwargs={"shards": shards, "files": None})]
        data_files = self.config.data_files
        if data_files is None:
            if not self.config.data_dir:
                raise ValueError(
                    f"config {self.config.name!r} needs data_dir= (a generated folder or Hub snapshot), "
                    f"data_files=, or seed= (with {self.COUNT_FIELD}= and num_holdout=)"
                )
            pattern = self.pattern_for(self.config.name)
            data_files = DataFilesDict.from_patterns({split: [pattern]}, base_path=self.config.data_dir)
        files = dl_manager.download({name: list(paths) for name, paths in data_files.items()})
        return [
            datasets.SplitGenerator(name=name, gen_kwargs={"shards": None, "files": sorted(paths)})
            for name, paths in files.items()
        ]

    def _counts(self) -> tuple[int, int]:
        gen = self.generation()
        rows = getattr(self.config, self.COUNT_FIELD)
        holdout = self.config.num_holdout
        rows = gen.default_rows if rows is None else rows
        holdout = gen.default_holdout if holdout is None else holdout
        if rows < 1 or holdout < 0:
            raise ValueError(f"config {self.config.name!r}: need {self.COUNT_FIELD} >= 1 and num_holdout >= 0, "
                             f"got {rows} and {holdout}")
        return rows, holdout

    def _generate_examples(self, shards, files) -> Iterator[tuple[Key, dict]]:
        if shards is not None:
            gen, (rows, holdout) = self.generation(), self._counts()
            for shard in shards:
                if self.config.name == HOLDOUT_CONFIG:
                    generated = gen.holdout_rows(self.config.seed, rows, holdout)
                else:
                    generated = gen.rows_for_shard(self.config.seed, rows, holdout, shard)
                for i, row in enumerate(generated):
                    yield Key(shard, i), row
            return
        for shard, path in enumerate(files):
            for lineno, row in read_jsonl(path):
                yield Key(shard, lineno), row

    @classmethod
    def generation(cls):
        """The dataset CLI's `DatasetSpec` (imported lazily: importing a builder stays light)."""
        return importlib.import_module(f"generator.cli_{cls.DATASET}").SPEC
