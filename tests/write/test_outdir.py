"""The writer never takes a finished folder away: verified reuse, the lock, the swap, and runs killed mid-way."""
from __future__ import annotations

import functools
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator.__main__ import main
from generator.write import outdir
from generator.write.writer import OutputError, write_dataset

ROOT = Path(__file__).resolve().parents[2]


def rows_for(seed: int, shard: int):
    for i in range(shard * 10, min(shard * 10 + 10, 25)):
        yield {"id": f"r{seed}_{i}", "x": i * 0.5}


def write(out, **kw):
    return write_dataset(out, rows_for_shard=functools.partial(rows_for, 0), num_rows=25, shard_size=10,
                         merged_name="rows.jsonl", options={"seed": 0}, progress=False, **kw)


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_corrupted_shard_is_regenerated_not_reused(tmp_path):
    ref, out = tmp_path / "ref", tmp_path / "ds"
    write(ref)
    write(out)
    with open(out / "batches/batch_001.jsonl", "ab") as f:
        f.write(b"\n")                                # complete-looking, but not what was written
    summary = write(out)
    assert summary.ok and summary.reused_shards == 2
    assert tree(out) == tree(ref)
    (out / outdir.SUMS_DIR / "batch_002.jsonl.sha256").unlink()       # no checksum: not vouched for
    assert write(out).reused_shards == 2 and tree(out) == tree(ref)


def test_a_rerun_keeps_the_finished_folder_until_the_new_one_is_complete(tmp_path):
    out = tmp_path / "ds"
    write(out)
    before = tree(out)
    seen = []

    def finalize(work: Path):
        seen.append(tree(out))                        # while the new folder is checked, the old one is in place
        return ["bad"]

    summary = write(out, finalize=finalize)
    assert not summary.ok and seen == [before] and tree(out) == before
    assert summary.out_dir == tmp_path / ".ds.partial"


@pytest.mark.parametrize("exchange", [True, False])
def test_install_swaps_in_the_new_folder(tmp_path, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(outdir, "_exchange", lambda a, b: False)
    out = tmp_path / "ds"
    write(out)
    (out / "batches/batch_000.jsonl").unlink()
    summary = write(out)
    assert summary.ok and summary.reused_shards == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ds.lock", "ds"]


def test_the_exchange_is_one_step_where_the_system_has_it(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "x").write_text("a")
    (b / "x").write_text("b")
    if not outdir._exchange(a, b):
        pytest.skip("renameat2(RENAME_EXCHANGE) not available here")
    assert (a / "x").read_text() == "b" and (b / "x").read_text() == "a"


def test_a_second_concurrent_run_is_refused(tmp_path):
    out = tmp_path / "ds"
    write(out)
    before = tree(out)
    with outdir.locked(out):
        with pytest.raises(OutputError, match="another run is writing it"):
            write(out)
    assert tree(out) == before
    assert write(out).ok


def test_a_fallback_swap_killed_between_its_renames_is_undone(tmp_path):
    out = tmp_path / "ds"
    write(out)
    before = tree(out)
    os.rename(out, tmp_path / ".ds.old")
    assert write(out).reused_shards == 3 and tree(out) == before
    assert not (tmp_path / ".ds.old").exists()


# ------------------------------------------------------------------------------------------- the real command
def generate(out: Path, *extra: str, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "generator", "kernelinfer", "--out", str(out), "--sessions", "10",
                             "--holdout", "3", "--num-proc", "1", *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    _out, err = proc.communicate(timeout=300)
    return proc.returncode, err


@pytest.mark.e2e
def test_interrupted_reruns_never_leave_the_user_without_a_complete_folder(tmp_path):
    """SIGINT and SIGKILL at random moments of reruns (some of which must regenerate a shard): `--out` is always
    the old complete folder or the new one, and the final folder is byte-identical to an uninterrupted run."""
    ref, out = tmp_path / "ref", tmp_path / "kernelinfer"
    started = time.monotonic()
    assert finish(generate(ref))[0] == 0
    duration = time.monotonic() - started
    shutil.copytree(ref, out)
    want = tree(ref)
    rng = random.Random(19)
    for trial in range(4):      # SIGKILL and SIGINT, each with and without a shard to regenerate
        shard = out / "batches/batch_000.jsonl"
        if trial >= 2:
            shard.write_bytes(shard.read_bytes() + b"\n")     # the rerun must regenerate it
        old = tree(out)
        proc = generate(out)
        time.sleep(rng.uniform(0.05, duration))
        sig = signal.SIGINT if trial % 2 else signal.SIGKILL
        proc.send_signal(sig)
        code, err = finish(proc)
        reached = err and "<frozen runpy>" not in err      # else Python had not reached the program yet
        if sig == signal.SIGINT and code != 0 and reached:
            assert code == 130 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert code in (0, 130, -signal.SIGINT, -signal.SIGKILL), err
        assert tree(out) in (old, want), f"trial {trial}: {sig!r} left {out} neither old nor new"
    code, err = finish(generate(out))
    assert code == 0, err
    assert tree(out) == want


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:                         # argparse's usage errors
        return exc.code


def test_disk_errors_and_bad_arguments_are_one_line_exit_2(tmp_path, capsys):
    """In this process (an exception would fail the test), then once through `python -m generator` (no traceback
    reaches the user)."""
    (tmp_path / "afile").write_text("x")
    cases = [["--out", "/proc/kernelstrain/out"], ["--out", str(tmp_path / "a"), "--seed", str(2**64)],
             ["--out", str(tmp_path / "b"), "--holdout", "0"]]
    for args in cases:
        assert _exit_code(["kernelinfer", "--sessions", "30", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.strip().splitlines()[-1].startswith(("kernelinfer:", "usage:", "python -m generator")), args
    args = ["--out", str(tmp_path / "afile" / "sub")]
    proc = subprocess.run([sys.executable, "-m", "generator", "kernelinfer", "--sessions", "30", *args],
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, (args, proc.stderr)
    assert proc.stderr.strip().splitlines()[-1].startswith("kernelinfer:"), proc.stderr


def _small_files():
    """A full disk, for real: writes past 64 KB fail (EFBIG, as ENOSPC they are an OSError from write)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))


def test_a_full_disk_is_one_line_exit_2_and_keeps_the_work(tmp_path):
    out = tmp_path / "kernelinfer"
    code, err = finish(generate(out, preexec_fn=_small_files))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "File too large" in err and ".kernelinfer.partial" in err and not out.exists()
