"""The distributed run's final step: merged view, held-out tasks, stats, QA reports and card, then validation.

It reads only the shard markers (small) and streams each shard once into the merged view, so its memory does
not grow with the run; the card is written last, so a folder with a card is a finished one. It produces the very
files the local CLI does (the same `generate.extra_files`), and is safe to rerun.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from generator import registry
from generator.check.validate import validate_paths
from generator.layout import HOLDOUT_FILE, shard_name
from generator.scale.shards import RunSpec, read_summary
from generator.write.generate import extra_files, folder_check

CHUNK = 16 << 20


def finish(spec: RunSpec, jobs: int) -> list[str]:
    """Assemble and validate the folder of a run whose shards are all done; returns the problems found."""
    ds = registry.get(spec.dataset)
    store = spec.store
    results, total = [], 0
    for i in range(spec.shards):
        size, summary = read_summary(spec, i)
        results.append(summary)
        total += size
    with store.open(ds.merged_file, "wb") as dst:
        for i in range(spec.shards):
            with store.open(shard_name(i), "rb") as src:
                shutil.copyfileobj(src, dst, CHUNK)
    problems: list[str] = []
    files = extra_files(ds, spec.options(), ds.holdout_rows(spec.seed, spec.rows, spec.holdout), problems)(
        results, total)
    for rel, data in files.items():           # the main card is written after the data it describes
        store.write(rel, data)
    local = store.local_path()
    if local is not None:
        return folder_check(problems, jobs)(local)
    return problems + _validate_remote(spec)


def _validate_remote(spec: RunSpec) -> list[str]:
    """Each data file through the validator, one at a time through a local temporary copy (the cross-file
    checks come from the shard markers, above)."""
    ds = registry.get(spec.dataset)
    targets = [(shard_name(i), ds.schema) for i in range(spec.shards)] + [(HOLDOUT_FILE, "task")]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for rel, schema in targets:
            local = Path(tmp) / Path(rel).name
            with spec.store.open(rel, "rb") as src, open(local, "wb") as dst:
                shutil.copyfileobj(src, dst, CHUNK)
            report = validate_paths([local], schema=schema)
            problems += [f"{spec.url}/{rel}:{f.line}: {f.message}" for f in report.findings]
            local.unlink()
    return problems

