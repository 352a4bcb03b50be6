"""What both builders share: the task fields every row states, and the reading of rows into `datasets`.

`kernelinfer.py` and `kernelswarm.py` own their feature lists (the single source of truth); this module only
holds the pieces that would otherwise be copied between them: the task columns common to a session, an
episode and a holdout row, and one `GeneratorBasedBuilder` base that reads a generated folder (local, a Hub
snapshot, or `hf://` paths) or calls the generator on the fly for a `seed`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable, Iterator

import datasets
import orjson
from datasets import Features, Json, Value
from datasets.builder import Key
from datasets.data_files import DataFilesDict
from datasets.utils.file_utils import xopen

HOMEPAGE = "https://github.com/kernelstrain/kernelstrain"
LICENSE = "mit"
SHARD_SIZE = 100
HOLDOUT_CONFIG = "holdout"
HOLDOUT_FILE = "tasks_holdout.jsonl"
MAIN_PATTERN = "batches/*.jsonl"

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
    """`seed` set: rows come from the generator (count in `num_holdout` or the subclass's `num_*`), not files."""

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

    Subclasses set FEATURES, MAIN_CONFIG, COUNT_FIELD and `generate(seed, start, stop)` /
    `generate_holdout(seed, count)`; one file (or one generated block of SHARD_SIZE rows) is one shard, so
    `as_streaming_dataset()` has as many shards as the folder has batches.
    """

    FEATURES: ClassVar[Features]
    MAIN_CONFIG: ClassVar[str]
    COUNT_FIELD: ClassVar[str]
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
            field = "num_holdout" if self.config.name == HOLDOUT_CONFIG else self.COUNT_FIELD
            count = getattr(self.config, field)
            if count is None or count < 0:
                raise ValueError(f"config {self.config.name!r}: seed={self.config.seed} needs {field} >= 0")
            return [datasets.SplitGenerator(name=split, gen_kwargs={"blocks": self._blocks(count), "files": None})]
        data_files = self.config.data_files
        if data_files is None:
            if not self.config.data_dir:
                raise ValueError(
                    f"config {self.config.name!r} needs data_dir= (a generated folder or Hub snapshot), "
                    f"data_files=, or seed= with {self.COUNT_FIELD}="
                )
            pattern = self.pattern_for(self.config.name)
            data_files = DataFilesDict.from_patterns({split: [pattern]}, base_path=self.config.data_dir)
        files = dl_manager.download({name: list(paths) for name, paths in data_files.items()})
        return [
            datasets.SplitGenerator(name=name, gen_kwargs={"blocks": None, "files": sorted(paths)})
            for name, paths in files.items()
        ]

    def _blocks(self, count: int) -> list[tuple[int, int]]:
        if self.config.name == HOLDOUT_CONFIG:
            return [(0, count)]
        return [(start, min(start + SHARD_SIZE, count)) for start in range(0, count, SHARD_SIZE)]

    def _generate_examples(self, blocks, files) -> Iterator[tuple[Key, dict]]:
        if blocks is not None:
            for shard, (start, stop) in enumerate(blocks):
                rows = self._generated(start, stop)
                for i, row in enumerate(rows):
                    yield Key(shard, i), row
            return
        for shard, path in enumerate(files):
            for lineno, row in read_jsonl(path):
                yield Key(shard, lineno), row

    def _generated(self, start: int, stop: int) -> Iterable[dict]:
        if self.config.name == HOLDOUT_CONFIG:
            return self.generate_holdout(self.config.seed, stop)
        return self.generate(self.config.seed, start, stop)

    @staticmethod
    def generate(seed: int, start: int, stop: int) -> Iterable[dict]:
        raise NotImplementedError

    @staticmethod
    def generate_holdout(seed: int, count: int) -> Iterable[dict]:
        raise NotImplementedError


def config_names(builder: type[KernelstrainBuilder]) -> list[str]:
    """Config names in card order: the default (main) config first."""
    return [c.name for c in builder.BUILDER_CONFIGS]

