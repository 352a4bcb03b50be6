"""The distributed run's final step: merged view, held-out tasks, stats, QA reports and card, then validation.

It reads only the shard markers (small) and streams each shard once into the merged view, so its memory does
not grow with the run; the card is written last, so a folder with a card is a finished one. It produces the very
files the local CLI does (the same `generate.extra_files`), and is safe to rerun. A local output is validated as
the local CLI's folder is; a remote one through the same checks, a shard's files at a time.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import orjson

from generator import registry
from generator.check import shardfiles
from generator.check.validate import validate_paths
from generator.layout import HOLDOUT_FILE, PARQUET_DIR, STATS_FILE, VIEW_DIR, shard_name
from generator.scale.shards import RunSpec, read_summary
from generator.write.generate import extra_files, fold_sizes, folder_check

CHUNK = 16 << 20


def finish(spec: RunSpec, jobs: int) -> list[str]:
    """Assemble and validate the folder of a run whose shards are all done; returns the problems found."""
    ds = registry.get(spec.dataset)
    store = spec.store
    results, total = [], 0
    for i in range(spec.shards):
        size, summary = read_summary(spec, i)
        if results:      # its token tallies into the first shard's: bounded by the distinct sizes, not the rows
            fold_sizes(results[0]["sizes"], summary.pop("sizes"))
        results.append(summary)
        total += size
    with store.open(ds.merged_file, "wb") as dst:
        for i in range(spec.shards):
            with store.open(shard_name(i, shards=spec.shards), "rb") as src:
                shutil.copyfileobj(src, dst, CHUNK)
    problems: list[str] = []
    files = extra_files(ds, spec.options(), ds.holdout_rows(spec.seed, spec.rows, spec.holdout), problems)(
        results, total)
    for rel, data in files.items():           # the main card is written after the data it describes
        store.write(rel, data)
    local = store.local_path()
    if local is not None:
        return folder_check(problems, jobs)(local)
    return problems + _validate_remote(spec, orjson.loads(files[STATS_FILE]), jobs)


def _validate_remote(spec: RunSpec, stats: dict, jobs: int) -> list[str]:
    """The folder's files checked as a local folder's are (but for the remote merged file against the shards and
    the card), one JSONL source at a time through a local temporary copy: a shard (or the held-out tasks) through
    the validator, and the Parquet files made from it (`data/` and `views/`) by `shardfiles` (in worker processes,
    `jobs` at a time); at the end stats.json against its schema and the view counts against it (the cross-file
    checks come from the shard markers, above). The temporary copy holds the files of the sources being checked."""
    ds = registry.get(spec.dataset)
    store = spec.store
    files = shardfiles.FolderFiles(shardfiles.Checks(ds.name, spec.shards, stats), store.listing(VIEW_DIR),
                                   store.listing(PARQUET_DIR))
    found = files.listing(VIEW_DIR) + files.listing(PARQUET_DIR)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp)

        def fetch(source: str, derived: list[str]) -> None:
            for rel in [source, *derived]:
                (local / rel).parent.mkdir(parents=True, exist_ok=True)
                with store.open(rel, "rb") as src, open(local / rel, "wb") as dst:
                    shutil.copyfileobj(src, dst, CHUNK)

        sources = [*(shard_name(i, shards=spec.shards) for i in range(spec.shards)), HOLDOUT_FILE]
        for source, group in files.run(local, sources, jobs, fetch):
            report = validate_paths([local / source], schema="task" if source == HOLDOUT_FILE else ds.schema)
            problems += [f"{spec.url}/{source}:{f.line}: {f.message}" for f in report.findings]
            for findings in group.values():
                found += findings
            for rel in [source, *files.groups.get(source, [])]:
                (local / rel).unlink()
        alone = local / "stats" / STATS_FILE          # no shards beside it: its counts were checked above
        alone.parent.mkdir()
        alone.write_bytes(store.read(STATS_FILE))
        problems += [f"{spec.url}/{STATS_FILE}: {f.message}" for f in validate_paths([alone]).findings]
    found += files.totals()
    return problems + [f"{spec.url}/{rel}:{line}: {p.kind}: {p.message}" if line else
                       f"{spec.url}/{rel}: {p.kind}: {p.message}" for rel, line, p in found]
