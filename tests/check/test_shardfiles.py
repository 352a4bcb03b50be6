"""`shardfiles`: a folder's Parquet checks run in worker processes, a process per few JSONL sources, give exactly
the findings of one process's check, in the same order (view row counts added up across the workers), whatever
`jobs`; and then no Parquet file is read in the main process."""
from __future__ import annotations

import os
import shutil
from multiprocessing.context import SpawnProcess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from generator.check import parquetcheck, shardfiles, viewcheck
from generator.check.validate import validate_paths
from generator.layout import HOLDOUT_PARQUET, VIEW_DIR, parquet_name, view_name


def plant_faults(folder: Path) -> set[tuple[str, int | None, str]]:
    """A view row its schema rejects in a file one row short (a count off in stats.json), a stray view file, a
    train row in a validation copy, a cut-off holdout copy: the (file, row, kind) findings they must give."""
    train = view_name("steps", "train", 0, shards=1)
    table = pq.read_table(folder / train)
    rows = table.to_pylist()
    rows[3]["status"] = "exploded"
    pq.write_table(pa.Table.from_pylist(rows[:-1], schema=table.schema), folder / train)
    stray = view_name("steps", "train", 7, shards=1)
    shutil.copyfile(folder / train, folder / stray)
    copy, other = (parquet_name("sessions", s, 0, shards=1) for s in ("validation", "train"))
    held = pq.read_table(folder / copy)
    pq.write_table(pa.concat_tables([held, pq.read_table(folder / other).slice(0, 1)]), folder / copy)
    (folder / HOLDOUT_PARQUET).write_bytes(b"PAR1 cut off")
    return {(train, 4, "schema"), (stray, None, "view_files"), (f"{VIEW_DIR}/steps", None, "view_count"),
            (copy, None, "parquet_files"), (copy, held.num_rows + 1, "parquet_files"),
            (HOLDOUT_PARQUET, None, "parquet_files")}


def findings(folder: Path, jobs: int) -> list[tuple[str, int | None, str, str]]:
    return [(Path(f.path).relative_to(folder).as_posix(), f.line, f.kind, f.message)
            for f in validate_paths([folder], jobs=jobs).findings]


@pytest.fixture
def planted(generated, tmp_path) -> tuple[Path, set]:
    """A copy of the session's kernelinfer folder with `plant_faults`' faults, and the findings they must give."""
    folder = tmp_path / "kernelinfer"
    shutil.copytree(generated("kernelinfer"), folder)
    return folder, plant_faults(folder)


def test_one_process_finds_each_planted_fault(planted):
    folder, faults = planted
    alone = findings(folder, 1)            # a shard and the holdout: few enough sources for this process
    assert {(rel, line, kind) for rel, line, kind, _message in alone} == faults


@pytest.mark.e2e
def test_findings_from_worker_processes_are_one_processs_in_its_order(planted, monkeypatch):
    folder, faults = planted
    alone = findings(folder, 1)
    assert {(rel, line, kind) for rel, line, kind, _message in alone} == faults

    workers = []
    spawn = SpawnProcess.start

    def counted(process):
        spawn(process)
        workers.append(process.pid)

    def not_here(*_args):
        raise AssertionError("a Parquet file was read in the main process")

    monkeypatch.setattr(shardfiles, "PER_PROCESS", 1)       # each source a task of its own, in a process of its own
    monkeypatch.setattr(SpawnProcess, "start", counted)
    monkeypatch.setattr(viewcheck.Checker, "file", not_here)
    monkeypatch.setattr(parquetcheck.Checker, "file", not_here)
    for jobs in (1, 2):
        assert findings(folder, jobs) == alone
    assert len(set(workers)) == len(workers) == 4 and os.getpid() not in workers
