"""The dataset writer: JSONL shards, merged view, extra files, atomically; knows nothing about GPUs.

Why this shape: shards are independent, so a process pool (or any scheduler) can split the work and the
bytes never depend on the split; each shard is written to a temporary name and renamed, and its checksum is
recorded, so a rerun reuses a shard only when it verifies; the folder is assembled in a hidden sibling
(`.NAME.partial`) and swapped with NAME only after `finalize` reports no problems (`outdir.install`), so a
failure or a kill never leaves anything that looks complete and never takes a finished folder away. A marker
file records the caller's options; shards are reused only when the options match. One run at a time per
folder (`outdir.locked`).
"""
from __future__ import annotations

import errno
import gc
import hashlib
import os
import shutil
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import orjson

from generator.layout import num_shards, shard_name
from generator.write import outdir

MARKER = ".kernelstrain.json"     # {"options": ...}: what produced the folder; kept in the finished folder
# copy_file_range errors meaning "not here" (old kernel, other filesystem, unsupported file type)
_NO_KERNEL_COPY = frozenset({errno.ENOSYS, errno.EXDEV, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP})


class OutputError(Exception):
    """The output folder cannot be used (exists with other content or other options)."""


@dataclass(frozen=True)
class Summary:
    out_dir: Path
    rows: int
    shards: int
    reused_shards: int
    bytes: int
    seconds: float
    problems: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self, unit_counts: Mapping[str, int] | None = None) -> str:
        """One-line summary: rows, extra counts (e.g. steps), MB, seconds, MB/s."""
        mb = self.bytes / 1e6
        extra = "".join(f", {n:,} {name}" for name, n in (unit_counts or {}).items())
        rate = mb / self.seconds if self.seconds > 0 else float("inf")
        return (f"{self.out_dir}: {self.rows:,} rows{extra}, {self.shards} shards "
                f"({self.reused_shards} reused), {mb:,.1f} MB in {self.seconds:.1f} s ({rate:,.1f} MB/s)")


def default_workers() -> int:
    """The commands' default process count (generation and validation): the CPUs this process may run on, at
    most 8."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(8, cpus)


@contextmanager
def atomic_open(path: Path):
    """A binary file at `path.tmp-PID`, renamed to `path` when the block succeeds and removed when it fails:
    readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as stream:
            yield stream
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_atomic(path: Path, data: bytes) -> None:
    with atomic_open(path) as stream:
        stream.write(data)


def append_file(dst, path: Path) -> None:
    """Append the file at `path` to the open binary file `dst`, inside the kernel where it can.

    `os.copy_file_range` moves the bytes without reading them into Python and writing them back (the merged view
    is a gigabyte at the default scale). Whatever the kernel did not copy (all of it, where the system lacks the
    call or the filesystem refuses it) is then copied through a buffer, from the offsets the kernel left."""
    dst.flush()                       # the kernel writes at the descriptor's offset, after anything buffered
    with open(path, "rb", buffering=0) as src:
        try:
            _kernel_copy(src.fileno(), dst.fileno())
        except OSError as exc:
            if exc.errno not in _NO_KERNEL_COPY:
                raise
        shutil.copyfileobj(src, dst, 16 << 20)


def _kernel_copy(src_fd: int, dst_fd: int) -> None:
    copy = getattr(os, "copy_file_range", None)      # Linux only
    remaining = os.fstat(src_fd).st_size if copy else 0
    while remaining > 0 and (copied := copy(src_fd, dst_fd, remaining)):
        remaining -= copied


def write_shard(work: Path, index: int, shards: int, rows_for_shard: Callable[[int], Iterable[dict]],
                 per_shard: Callable[..., Any] | None, finished: Path | None = None, shard_files=None
                 ) -> tuple[int, Any, bool]:
    """Generate (or reuse) shard `index` of `shards` under `work`; return (bytes, per_shard result, reused).

    A shard is reused when it verifies against its recorded checksum, in `work` (an interrupted run) or in the
    `finished` folder being rebuilt; anything else there is regenerated. Its side files (`shard_files`) are
    reused with it when they verify too, else made again from its rows."""
    rel = shard_name(index, shards=shards)
    data = outdir.verified(work, rel)
    if data is None and finished is not None:
        data = outdir.adopt(finished, work, rel)
    if data is not None:
        side = _reused_side(work, finished, index, shard_files)
        rows = [orjson.loads(line) for line in data.splitlines()] if per_shard or side is None else []
        if side is None:
            side = _write_side(work, shard_files(index, rows))
        return len(data), _summarize(per_shard, index, rows, side, shard_files), True
    with _collector_paused():
        return _new_shard(work, rel, index, rows_for_shard, per_shard, shard_files)


def _reused_side(work: Path, finished: Path | None, index: int, shard_files) -> dict[str, bytes] | None:
    """The shard's verified side files (from `work`, else `finished`), or None when one of them is not."""
    side = {}
    for rel in shard_files.names(index) if shard_files else ():
        data = outdir.verified(work, rel)
        if data is None and finished is not None:
            data = outdir.adopt(finished, work, rel)
        if data is None:
            return None
        side[rel] = data
    return side


def _write_side(work: Path, files: Mapping[str, bytes]) -> dict[str, bytes]:
    for rel, data in files.items():
        write_atomic(work / rel, data)
        outdir.record(work, rel, outdir.digest_line(data))
    return dict(files)


def _summarize(per_shard, index: int, rows: list[dict], side: dict[str, bytes], shard_files) -> Any:
    """`per_shard(index, rows)`, given the side files too (`per_shard(index, rows, side)`) when there are some."""
    if not per_shard:
        return None
    return per_shard(index, rows, side) if shard_files else per_shard(index, rows)


def _new_shard(work: Path, rel: str, index: int, rows_for_shard: Callable[[int], Iterable[dict]],
               per_shard: Callable[..., Any] | None, shard_files=None) -> tuple[int, Any, bool]:
    """Each row is written as it is made, so a shard's bytes are never held whole (rows, their bytes and the
    join were ~3x the shard); the rows themselves are kept only for `per_shard` and `shard_files`."""
    rows: list[dict] = []
    size = 0
    digest = hashlib.sha256()
    with atomic_open(work / rel) as stream:
        for row in rows_for_shard(index):
            line = orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE)
            stream.write(line)
            digest.update(line)
            size += len(line)
            if per_shard or shard_files:
                rows.append(row)
    side = _write_side(work, shard_files(index, rows)) if shard_files else {}
    outdir.record(work, rel, outdir.sum_line(digest.hexdigest(), size))
    return size, _summarize(per_shard, index, rows, side, shard_files), False


@contextmanager
def _collector_paused():
    """No cyclic garbage collection while a shard is made; it resumes once the shard's rows are freed.

    Making rows allocates millions of containers and no reference cycles (the collections of a default-scale
    kernelswarm run find none), so the collector's 700-odd passes there, most of them over the shard's growing
    rows, are pure cost: ~6 % of the CPU time (~2 % at a 10,000 threshold, the rows still scanned)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _prepare(out: Path, work: Path, marker: bytes) -> Path | None:
    """Make `work` the partial folder for these options, keeping what an interrupted run of them left there;
    return `out` when it is a finished folder of the same options (its verified shards are reused), else None.
    `out` itself is never changed here."""
    def matches(folder: Path) -> bool:
        m = folder / MARKER
        return m.is_file() and m.read_bytes() == marker

    old = out.with_name(f".{out.name}.old")
    if old.is_dir() and not out.exists():   # killed between the two renames of the fallback swap
        os.rename(old, out)
    if work.exists() and not matches(work):
        shutil.rmtree(work)
    finished = None
    if out.exists():
        if matches(out):
            finished = out
        elif not (out.is_dir() and not any(out.iterdir())):
            raise OutputError(f"{out}: exists and was not generated with these options by this generator; "
                              "remove it or pick another --out")
    work.mkdir(parents=True, exist_ok=True)
    for stale in work.rglob("*.tmp-*"):
        stale.unlink()
    write_atomic(work / MARKER, marker)
    return finished


def write_dataset(out_dir, *, rows_for_shard: Callable[[int], Iterable[dict]], num_rows: int, shard_size: int = 100,
                  merged_name: str, num_proc: int = 1,
                  extra_files: Mapping[str, bytes] | Callable[[list[Any], int], Mapping[str, bytes]] = (),
                  finalize: Callable[[Path], list[str]] | None = None,
                  per_shard: Callable[[int, list[dict]], Any] | None = None,
                  options: Mapping[str, Any] | None = None, progress: bool | None = None,
                  shard_files=None) -> Summary:
    """Write `num_rows` rows as shards of `shard_size`, the merged view, and extra files; then finalize.

    - `rows_for_shard(i)` yields the rows of shard i (rows i*shard_size ...); with num_proc > 1 it and
      `per_shard` must be picklable (module-level functions or functools.partial of them).
    - `per_shard(i, rows)` runs in the worker on each shard's rows (re-read from disk for a reused shard) and
      returns a small picklable result; results are collected in shard order.
    - `extra_files` maps relative paths to bytes, or is a callable taking (per-shard results, bytes of the
      merged view) and returning that mapping (stats, QA reports, card, holdout); all are written atomically.
    - `finalize(work_dir)` checks the assembled folder and returns problems; any problem keeps the folder at
      its partial name and is reported in `Summary.problems`.
    - `options` (JSON-able) is recorded in the marker; a rerun reuses shards only under equal options.
    - `shard_files` (optional, picklable): `shard_files.names(i)` are the side files of shard i (e.g. its view
      Parquet files) and `shard_files(i, rows)` their bytes, made in the worker from the shard's rows, checksummed
      and reused with the shard like it; `per_shard` then receives them too: `per_shard(i, rows, files)`.
    """
    out = Path(out_dir)
    try:
        with outdir.locked(out):
            return _write(out, rows_for_shard, num_rows, shard_size, merged_name, num_proc, extra_files, finalize,
                          per_shard, options, progress, shard_files)
    except outdir.Busy as exc:
        raise OutputError(str(exc)) from None


def _write(out: Path, rows_for_shard, num_rows, shard_size, merged_name, num_proc, extra_files, finalize,
           per_shard, options, progress, shard_files) -> Summary:
    started = time.perf_counter()
    work = out.with_name(f".{out.name}.partial")
    marker = orjson.dumps({"options": options or {}, "num_rows": num_rows, "shard_size": shard_size},
                          option=orjson.OPT_SORT_KEYS)
    finished = _prepare(out, work, marker)
    n_shards = max(1, num_shards(num_rows, shard_size))
    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    if show:
        from tqdm import tqdm
        bar = tqdm(total=n_shards, unit="shard", desc=out.name)
    results: list[Any] = [None] * n_shards
    total_bytes = reused = 0

    def collect(index: int, outcome: tuple[int, Any, bool]) -> None:
        nonlocal total_bytes, reused
        size, results[index], was_reused = outcome
        total_bytes += size
        reused += was_reused
        if bar:
            bar.update()

    if num_proc <= 1 or n_shards == 1:
        for i in range(n_shards):
            collect(i, write_shard(work, i, n_shards, rows_for_shard, per_shard, finished, shard_files))
    else:
        pool = ProcessPoolExecutor(max_workers=min(num_proc, n_shards), mp_context=get_context("spawn"),
                                   initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
        try:     # Ctrl-C reaches the workers too: they finish their shard quietly, the rest is cancelled
            futures = [pool.submit(write_shard, work, i, n_shards, rows_for_shard, per_shard, finished, shard_files)
                       for i in range(n_shards)]
            for i, fut in enumerate(futures):
                collect(i, fut.result())
        finally:
            pool.shutdown(cancel_futures=True)
    if bar:
        bar.close()

    with atomic_open(work / merged_name) as dst:
        for i in range(n_shards):
            append_file(dst, work / shard_name(i, shards=n_shards))

    files = extra_files(results, total_bytes) if callable(extra_files) else dict(extra_files)
    for rel, data in files.items():
        write_atomic(work / rel, data)

    problems = tuple(finalize(work)) if finalize else ()
    if not problems:
        outdir.install(work, out)
    return Summary(out if not problems else work, num_rows, n_shards, reused, total_bytes,
                   time.perf_counter() - started, problems)
