"""A folder's Parquet files (training views by `viewcheck`, `data/` copies by `parquetcheck`) checked a JSONL
source's files at a time, in short-lived worker processes once the folder has more than a few shards.

Why processes: reading Parquet grows a process's native memory for good (pyarrow's allocator pool and glibc
keep what they took: 156 -> 267 MB over 2 shards, 307 MB over 20, while Python's own objects stay at ~113 MB;
`validate` of a default kernelinfer folder peaked at 303 MB in its main process, 160 MB with the checks in
workers, each worker ~280-300 MB; #20). Here no process reads
more than PER_PROCESS sources' files: each task (PER_PROCESS sources) runs in a spawned process of its own,
`jobs` at a time, and the findings come back to be put in the order one process gives them. Used by the local
validator (`validate`) and by a remote run's final step (`generator.scale.finish`), which copies each source's
files in (`fetch`) just before its task starts.
"""
from __future__ import annotations

import itertools
import multiprocessing
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Callable, Iterable, Iterator

from generator import registry
from generator.check import parquetcheck, viewcheck
from generator.check.rowscan import Problem
from generator.layout import PARQUET_DIR, VIEW_DIR

PER_PROCESS = 4     # JSONL sources whose Parquet files one process reads before it exits (a few: a spawn costs ~0.5 s)

Found = list[tuple[str, "int | None", Problem]]


@dataclass(frozen=True)
class Checks:
    """What a worker needs to rebuild the folder's two checkers (a dataset is named, not pickled)."""

    dataset: str
    shards: int
    stats: dict | None

    def checkers(self) -> tuple[viewcheck.Checker, parquetcheck.Checker]:
        dataset = registry.get(self.dataset)
        return (viewcheck.Checker(dataset, self.shards, self.stats),
                parquetcheck.Checker(dataset, self.shards, self.stats))


class FolderFiles:
    """One folder's view and `data/` checks: the listings, the files grouped by the JSONL source they are made
    from (`groups`: views' files, then data's, each sorted), each group's check (`run`), the view totals."""

    def __init__(self, checks: Checks, have_views: Iterable[str], have_data: Iterable[str]):
        self.checks = checks
        self.views, self.copies = checks.checkers()
        self.have = {VIEW_DIR: set(have_views), PARQUET_DIR: set(have_data)}
        self.groups: dict[str, list[str]] = {}
        for checker, have in ((self.views, self.have[VIEW_DIR]), (self.copies, self.have[PARQUET_DIR])):
            for rel in sorted(set(checker.want) & have):
                self.groups.setdefault(checker.source(rel), []).append(rel)

    def listing(self, folder: str) -> Found:
        """The files under `folder` (VIEW_DIR or PARQUET_DIR) that are not the folder's, and those missing."""
        checker = self.views if folder == VIEW_DIR else self.copies
        return list(checker.listing(self.have[folder]))

    def run(self, root: Path, sources: list[str], jobs: int,
            fetch: Callable[[str, list[str]], None] | None = None) -> Iterator[tuple[str, dict[str, Found]]]:
        """(source, {file: its findings}) for each of `sources` in order, its files read under `root`;
        `fetch(source, files)` is called just before a source's files are read (a remote folder copies them in
        then). The view rows counted are added to `self.views`' counts."""
        tasks = [sources[i:i + PER_PROCESS] for i in range(0, len(sources), PER_PROCESS)]   # a process each

        def fetched(task: list[str]) -> list[tuple]:
            for source in task if fetch is not None else ():
                fetch(source, self.groups.get(source, []))
            return [(self.checks, root, self.groups.get(source, [])) for source in task]

        results = ((check_group(*args) for task in tasks for args in fetched(task)) if len(tasks) < 2 else
                   _in_workers(map(fetched, tasks), jobs))
        for source, (found, counts) in zip(sources, results):
            for key, n in counts.items():
                self.views.counts[key] += n
            yield source, found

    def totals(self) -> Found:
        return list(self.views.totals())


_BUILT: list[tuple[Checks, tuple[viewcheck.Checker, parquetcheck.Checker]]] = []   # this process's checkers


def check_group(checks: Checks, root: Path, files: list[str]) -> tuple[dict[str, Found], dict]:
    """One source's Parquet files checked (in a worker): ({file: findings}, view rows counted). The checkers are
    built once per process (a build lists every shard's files: once per source it would grow with shards^2)."""
    if not _BUILT or _BUILT[0][0] != checks:
        _BUILT[:] = [(checks, checks.checkers())]
    views, copies = _BUILT[0][1]
    views.counts = dict.fromkeys(views.counts, 0)
    return {rel: list((views if rel in views.want else copies).file(root, rel)) for rel in files}, views.counts


def _in_workers(tasks: Iterator[list[tuple]], jobs: int) -> Iterator[tuple[dict[str, Found], dict]]:
    """`check_group(*args)` for every args of every task, in order; each task's in a spawned process of its own
    that exits after it, `jobs` tasks at a time (the next one starts, and is fetched, when one ends). On an
    exception or Ctrl-C here the workers are ended at once."""
    context = multiprocessing.get_context("spawn")
    workers: dict[connection.Connection, tuple[BaseProcess, int]] = {}    # our end of a worker's pipe -> (process, task)
    results: dict[int, list] = {}                               # task -> its sources' results so far
    sizes: dict[int, int] = {}
    numbered = enumerate(tasks)

    def start() -> None:
        for number, task in itertools.islice(numbered, 1):
            ours, theirs = context.Pipe(duplex=False)
            process = context.Process(target=_serve, args=(theirs, task), daemon=True)
            with _sigint_ignored():             # the process is spawned here and inherits it
                process.start()
            theirs.close()
            workers[ours] = process, number
            results[number], sizes[number] = [], len(task)

    try:
        for _ in range(max(1, jobs)):
            start()
        number = 0
        while workers:
            for ours in connection.wait(list(workers)):
                process, task = workers[ours]
                try:
                    results[task].append(ours.recv())
                except EOFError:
                    process.join()
                    raise RuntimeError(f"a Parquet check worker ended with exit code {process.exitcode}") from None
                if len(results[task]) == sizes[task]:
                    del workers[ours]
                    ours.close()
                    process.join()
                    start()
            while len(results.get(number, ())) == sizes.get(number):
                yield from results.pop(number)
                number += 1
    finally:
        for ours, (process, _task) in workers.items():
            process.terminate()
            process.join()
            ours.close()


def _serve(pipe: connection.Connection, task: list[tuple]) -> None:
    """A worker: its sources' results sent back one by one."""
    for args in task:
        pipe.send(check_group(*args))
    pipe.close()


def local(folder: Path, dataset: str, shards: int, stats: dict | None, jobs: int) -> Found:
    """Every problem of a local folder's view and `data/` files, in the order of one process's check: the
    views' listing, files and totals, then the copies' listing and files."""
    have = {d: {p.relative_to(folder).as_posix() for p in (folder / d).rglob("*") if p.is_file()}
            for d in (VIEW_DIR, PARQUET_DIR)}
    files = FolderFiles(Checks(dataset, shards, stats), have[VIEW_DIR], have[PARQUET_DIR])
    found: dict[str, Found] = {}
    for _source, group in files.run(folder, list(files.groups), jobs):
        found.update(group)
    return (files.listing(VIEW_DIR) + [f for rel in sorted(found) if rel in files.views.want for f in found[rel]]
            + files.totals()
            + files.listing(PARQUET_DIR) + [f for rel in sorted(found) if rel in files.copies.want for f in found[rel]])


@contextmanager
def _sigint_ignored():
    """Ctrl-C ignored while a worker process is started: a spawned process keeps an ignored SIGINT (exec does not
    reset it, and Python then installs no KeyboardInterrupt handler), so a Ctrl-C reaches the parent alone, which
    ends the workers and reports it in one line, even while a worker is still importing. The price: a Ctrl-C in the
    few milliseconds of a start is lost (measured 3-30 ms per start on a loaded machine, one start per PER_PROCESS
    sources). Off the main thread, where no handler can be set, workers start as they are."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
