"""One distributed run's shards: what the run is (`RunSpec`), making one shard, and which shards are done.

A shard and its training-view files are written first and its completion marker
(`.kernelstrain-scale/done/batch_NNN.json`: byte count, sha256 and the shard's summary for stats, QA and
cross-shard checks) after them, so a shard without a marker is one a killed task left unfinished; a restarted run
makes exactly the shards without markers. The shard's bytes and its view files' are the local CLI's (the same row
and view functions, the same serialization), so any engine writes the same folder.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import orjson

from generator import registry
from generator.code_digest import code_digest
from generator.layout import SHARD_SIZE, num_shards, shard_label, shard_name
from generator.scale.store import Store
from generator.write.generate import run_options, shard_summary
from generator.write.views import WINDOW_TOKENS, ParquetFiles

STATE_DIR = ".kernelstrain-scale"
OPTIONS_FILE = f"{STATE_DIR}/options.json"


class RunMismatch(Exception):
    """The output folder holds a run made with other options."""


@dataclass(frozen=True)
class RunSpec:
    """Everything a shard task needs (plain values: it travels to Ray workers and Slurm jobs)."""

    dataset: str
    url: str
    seed: int
    rows: int
    holdout: int
    views: bool = True                 # the training views (the local CLI's default; --no-views)
    window_tokens: int = WINDOW_TOKENS
    shard_size: int = SHARD_SIZE

    @property
    def store(self) -> Store:
        return Store(self.url)

    @property
    def shards(self) -> int:
        return num_shards(self.rows, self.shard_size)

    def options(self) -> dict:
        """The options stats.json records, as the local CLI records them."""
        return run_options(registry.get(self.dataset), self.seed, self.rows, self.holdout, views=self.views,
                           window_tokens=self.window_tokens, shard_size=self.shard_size)


def done_name(spec: RunSpec, shard: int) -> str:
    return f"{STATE_DIR}/done/{shard_label(shard, shards=spec.shards)}.json"


def claim(spec: RunSpec) -> None:
    """Record the run's options in the folder, or refuse a folder that holds another run's shards."""
    want = orjson.dumps({"dataset": spec.dataset, **spec.options(), "code": code_digest()},
                        option=orjson.OPT_SORT_KEYS)
    store = spec.store
    if store.exists(OPTIONS_FILE):
        if store.read(OPTIONS_FILE) != want:
            raise RunMismatch(f"{spec.url}: holds a run with other options or of other code "
                              f"({store.read(OPTIONS_FILE).decode()}); "
                              "remove it or pick another --out")
        return
    store.write(OPTIONS_FILE, want)


def missing(spec: RunSpec, shards: range | None = None) -> list[int]:
    """The shards (of `shards`, default all) that have no completion marker."""
    store = spec.store
    return [i for i in (range(spec.shards) if shards is None else shards) if not store.exists(done_name(spec, i))]


def make_shard(spec: RunSpec, shard: int) -> int:
    """Write shard `shard`, then its Parquet files (configs and views), then its marker; returns the shard index."""
    ds = registry.get(spec.dataset)
    store = spec.store
    rows, digest, size = [], hashlib.sha256(), 0
    with store.open(shard_name(shard, shards=spec.shards), "wb") as stream:
        for row in ds.rows_for_shard(spec.seed, spec.rows, spec.holdout, shard, spec.shard_size):
            line = orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE)
            stream.write(line)
            digest.update(line)
            size += len(line)
            rows.append(row)
    views = ParquetFiles(ds, spec.shards, spec.window_tokens)(shard, rows) if spec.views else {}   # data/, views/
    for rel, data in views.items():
        store.write(rel, data)
    summary = shard_summary(ds, spec.shards, shard, rows, views)
    store.write(done_name(spec, shard), orjson.dumps({"bytes": size, "sha256": digest.hexdigest(), "summary": summary},
                                                     option=orjson.OPT_NON_STR_KEYS))     # the tallies' int keys
    return shard


def read_summary(spec: RunSpec, shard: int) -> tuple[int, dict]:
    """(bytes, summary) from a shard's marker, task keys back as the tuples the cross-shard checks compare and
    the token tallies' sizes back as ints (JSON keys are strings)."""
    marker = orjson.loads(spec.store.read(done_name(spec, shard)))
    summary = marker["summary"]
    summary["keys"] = [(*k[:4], tuple(tuple(p) for p in k[4])) for k in summary["keys"]]
    summary["sizes"] = {name: tuple({int(v): n for v, n in counts.items()} for counts in tally)
                        for name, tally in summary["sizes"].items()}
    return marker["bytes"], summary
