"""Replacing a finished output folder safely: one run at a time, shards reused only when verified, and a swap
that never leaves the user without a complete folder.

Why: a rerun used to move the finished `--out` aside before rebuilding it, so killing the rerun left no folder at
all; a corrupted shard crashed every rerun; two runs into one `--out` deleted each other's temporary files. Here a
run holds `fcntl.flock` on `.NAME.lock` beside the folder, builds in `.NAME.partial`, records each shard's sha256
when it writes it (`.kernelstrain.sums/`), and at the end exchanges the two folders in one step
(`renameat2(RENAME_EXCHANGE)`, Linux >= 3.15) or, where the system lacks it, in two renames with the old folder
kept (as `.NAME.old`) until the new one is in place.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import hashlib
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

SUMS_DIR = ".kernelstrain.sums"   # one `<shard file name>.sha256` per shard: "<hex digest> <size>\n"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


class Busy(Exception):
    """Another run holds the lock of this output folder."""


@contextmanager
def locked(out: Path):
    """Hold an exclusive lock on `.NAME.lock` beside `out` for the block; `Busy` when another process holds it.
    The lock file stays (removing it would let a third run lock a different file)."""
    import fcntl

    lock_path = out.with_name(f".{out.name}.lock")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(f"{out}: another run is writing it (lock {lock_path} is held); wait for it to finish") from None
        yield
    finally:
        os.close(fd)


def digest_line(data: bytes) -> bytes:
    return sum_line(hashlib.sha256(data).hexdigest(), len(data))


def sum_line(hexdigest: str, size: int) -> bytes:
    return f"{hexdigest} {size}\n".encode()


def sum_path(folder: Path, shard_rel: str) -> Path:
    return folder / SUMS_DIR / f"{Path(shard_rel).name}.sha256"


def verified(folder: Path, shard_rel: str) -> bytes | None:
    """The shard's bytes when it exists and matches the checksum recorded when it was written, else None."""
    shard, recorded = folder / shard_rel, sum_path(folder, shard_rel)
    try:
        data = shard.read_bytes()
        return data if recorded.read_bytes() == digest_line(data) else None
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def adopt(src: Path, dst: Path, shard_rel: str) -> bytes | None:
    """Bring a verified shard of the finished folder `src` into the partial folder `dst` (a hard link, else a copy)
    with its checksum; its bytes, or None when it does not verify."""
    data = verified(src, shard_rel)
    if data is None:
        return None
    target = dst / shard_rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    try:
        os.link(src / shard_rel, target)
    except OSError:
        target.write_bytes(data)
    record(dst, shard_rel, digest_line(data))
    return data


def record(folder: Path, shard_rel: str, line: bytes) -> None:
    """Write the shard's checksum line (after the shard itself is in place, so a sum never vouches for a missing
    file)."""
    path = sum_path(folder, shard_rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(line)
    os.replace(tmp, path)


def install(work: Path, out: Path) -> None:
    """Make the complete folder `work` the folder `out`; an existing `out` (to be replaced) stays complete until
    then and is deleted afterwards. At every instant `out` is the old folder or the new one (with the fallback:
    between its two renames `.NAME.old` is the old folder)."""
    if not out.exists():
        os.rename(work, out)
        return
    if _exchange(work, out):
        shutil.rmtree(work)
        return
    old = out.with_name(f".{out.name}.old")
    if old.exists():
        shutil.rmtree(old)
    os.rename(out, old)
    os.rename(work, out)
    shutil.rmtree(old)


@functools.cache
def _renameat2():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is not None:
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        fn.restype = ctypes.c_int
    return fn


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False where the system or filesystem cannot (then nothing changed)."""
    fn = _renameat2() if os.name == "posix" else None
    if fn is None:
        return False
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(b))
