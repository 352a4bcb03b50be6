"""The generic writer: shards, merged view, reuse, options guard, failure leaves only a partial folder."""
from __future__ import annotations

import errno
import functools
import os

import orjson
import pytest

from generator.write.writer import MARKER, OutputError, append_file, write_dataset


def rows_for(seed: int, shard: int, *, shard_size: int = 10, num_rows: int = 25):
    """Module-level (picklable) row source: a pure function of (seed, row index)."""
    for i in range(shard * shard_size, min((shard + 1) * shard_size, num_rows)):
        yield {"id": f"r{seed}_{i}", "x": i * 0.5, "shape": {"M": i + 1}, "text": "é\n" * (i % 3)}


def count_rows(shard: int, rows: list[dict]) -> int:
    return len(rows)


def write(out, *, seed=0, num_proc=1, finalize=None, options=None):
    return write_dataset(out, rows_for_shard=functools.partial(rows_for, seed), num_rows=25, shard_size=10,
                         merged_name="rows.jsonl", num_proc=num_proc, per_shard=count_rows,
                         extra_files=lambda counts, size: {"counts.json": orjson.dumps(counts),
                                                     "sub/dir/x.json": orjson.dumps(size)},
                         finalize=finalize, options=options or {"seed": seed}, progress=False)


def tree(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_layout_merged_and_summary(tmp_path):
    out = tmp_path / "ds"
    summary = write(out)
    assert summary.ok and summary.out_dir == out and summary.rows == 25 and summary.shards == 3
    files = tree(out)
    shards = [files[f"batches/batch_{i:03d}.jsonl"] for i in range(3)]
    assert [len(s.splitlines()) for s in shards] == [10, 10, 5]
    assert files["rows.jsonl"] == b"".join(shards)
    assert summary.bytes == len(files["rows.jsonl"])
    assert orjson.loads(files["counts.json"]) == [10, 10, 5]
    assert orjson.loads(files["sub/dir/x.json"]) == summary.bytes and MARKER in files
    assert not any(".tmp-" in name for name in files)
    assert not (tmp_path / ".ds.partial").exists()
    first = orjson.loads(shards[0].splitlines()[1])
    assert first == {"id": "r0_1", "x": 0.5, "shape": {"M": 2}, "text": "é\n"}
    assert "25 rows" in summary.line({"steps": 7}) and "7 steps" in summary.line({"steps": 7})


def test_num_proc_gives_identical_bytes(tmp_path):
    write(tmp_path / "one", num_proc=1)
    write(tmp_path / "two", num_proc=2)
    assert tree(tmp_path / "one") == tree(tmp_path / "two")
    write(tmp_path / "other", seed=1)
    assert tree(tmp_path / "other")["rows.jsonl"] != tree(tmp_path / "one")["rows.jsonl"]


def test_rerun_reuses_complete_shards(tmp_path):
    out = tmp_path / "ds"
    write(out)
    inode = (out / "batches/batch_001.jsonl").stat().st_ino
    (out / "batches/batch_002.jsonl").unlink()          # as if that shard never finished
    summary = write(out)
    assert summary.ok and summary.reused_shards == 2
    assert (out / "batches/batch_001.jsonl").stat().st_ino == inode
    assert orjson.loads((out / "counts.json").read_bytes()) == [10, 10, 5]
    write(tmp_path / "ref")
    assert tree(out) == tree(tmp_path / "ref")


def test_other_options_refuse_existing_folder(tmp_path):
    out = tmp_path / "ds"
    write(out)
    with pytest.raises(OutputError, match="not generated with these options"):
        write(out, options={"seed": 99})
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine")
    with pytest.raises(OutputError):
        write(tmp_path / "foreign")
    assert (tmp_path / "foreign" / "notes.txt").read_text() == "mine"


def test_failed_finalize_leaves_nothing_that_looks_complete(tmp_path):
    out = tmp_path / "ds"
    summary = write(out, finalize=lambda folder: [f"{folder}/rows.jsonl:1: bad"])
    assert not summary.ok and summary.problems[0].endswith(":1: bad")
    assert not out.exists()
    assert summary.out_dir == tmp_path / ".ds.partial" and (summary.out_dir / "rows.jsonl").exists()
    summary = write(out)                                   # the rerun picks the partial shards up
    assert summary.ok and summary.reused_shards == 3 and out.exists()


def failing_rows(shard: int):
    """Rows that break off halfway through shard 1 (a simulator error)."""
    for row in rows_for(0, shard):
        if shard == 1 and row["id"] == "r0_15":
            raise RuntimeError("simulator broke")
        yield row


def test_a_shard_that_fails_midway_leaves_no_file(tmp_path):
    """Rows are written as they are made; a failure removes the temporary file, so no shard looks complete."""
    out = tmp_path / "ds"
    with pytest.raises(RuntimeError, match="simulator broke"):
        write_dataset(out, rows_for_shard=failing_rows, num_rows=25, shard_size=10, merged_name="rows.jsonl",
                      progress=False)
    work = tmp_path / ".ds.partial" / "batches"
    assert sorted(p.name for p in work.iterdir()) == ["batch_000.jsonl"]
    assert not out.exists()


def _appended(tmp_path, parts: list[bytes]) -> bytes:
    """`append_file` of each part after a buffered write to the same stream, read back."""
    paths = []
    for i, part in enumerate(parts):
        paths.append(tmp_path / f"part{i}")
        paths[-1].write_bytes(part)
    with open(tmp_path / "merged", "wb") as dst:
        dst.write(b"head|")                       # still in the buffer when the first copy starts
        for path in paths:
            append_file(dst, path)
        dst.write(b"|tail")
    return (tmp_path / "merged").read_bytes()


PARTS = [b"a" * 70_000 + b"\n", b"", "é\n".encode() * 5, os.urandom(3 << 20)]


def test_append_file_concatenates_in_order(tmp_path):
    assert _appended(tmp_path, PARTS) == b"head|" + b"".join(PARTS) + b"|tail"


@pytest.mark.parametrize("unavailable", ["no call", "refused"])
def test_append_file_copies_through_a_buffer_where_the_kernel_cannot(tmp_path, monkeypatch, unavailable):
    """Systems without copy_file_range (macOS, Windows), or filesystems that refuse it, get the same bytes."""
    if unavailable == "no call":
        monkeypatch.delattr(os, "copy_file_range", raising=False)
    else:
        def refuse(*_args):
            raise OSError(errno.EXDEV, "cross-device")
        monkeypatch.setattr(os, "copy_file_range", refuse)
    assert _appended(tmp_path, PARTS) == b"head|" + b"".join(PARTS) + b"|tail"


def test_append_file_raises_real_errors(tmp_path, monkeypatch):
    def broken(*_args):
        raise OSError(errno.EIO, "I/O error")
    monkeypatch.setattr(os, "copy_file_range", broken)
    with pytest.raises(OSError, match="I/O error"):
        _appended(tmp_path, PARTS)
