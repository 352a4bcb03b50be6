"""`python -m generator scale`: the Ray path and the local engine write the local CLI's bytes (shards, training
views and every other file), a restart makes only the shards without a completion marker, a remote (fsspec)
output's final step validates its Parquet files as a local folder's, and the Slurm path writes job scripts whose
commands the CLI accepts (no cluster needed)."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import orjson
import pyarrow as pa
import pytest

from generator.__main__ import main
from generator.check import parquetcheck, shardfiles, viewcheck
from generator.layout import SHARD_SIZE, STATS_FILE, shard_name, view_name
from generator.scale import cli, engines, finish
from generator.kernelinfer.dataset import KERNELINFER
from generator.scale.shards import RunSpec, done_name, make_shard
from generator.scale.store import Store
from generator.write.parquet import read_rows, to_parquet
from generator.write.views import SPLITS

VIEWS = {v.name: v for v in KERNELINFER.views}

SEED, ROWS, HOLDOUT, SHARD = 3, 12, 10, 10   # 2 shards: 10 rows and 2


def files(folder: Path) -> dict[str, bytes]:
    """Every file of a generated folder but the runs' own bookkeeping (hidden)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


@pytest.fixture(scope="module")
def cli_folder(make_folder, tmp_path_factory) -> Path:
    """The local CLI's folder for the same options, training views included (in this process: the bytes do not
    depend on --num-proc, tests/kernelinfer and tests/kernelswarm prove it; workers would cost ~2.5 CPU-s each)."""
    return make_folder("kernelinfer", tmp_path_factory.mktemp("cli") / "ki", seed=SEED, rows=ROWS, holdout=HOLDOUT,
                       extra=("--num-proc", "1", "--shard-size", str(SHARD)))


def scale(out: Path, *extra: str) -> int:
    return main(["scale", "kernelinfer", "--out", str(out), "--seed", str(SEED), "--rows", str(ROWS),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD), "--workers", "1", *extra])


@pytest.mark.e2e
def test_ray_on_a_local_instance_writes_the_cli_bytes(cli_folder, tmp_path):
    pytest.importorskip("ray", reason="ray is not installed (pip install -e '.[ray]')")
    assert scale(tmp_path / "ray", "--engine", "ray") == 0      # a one-CPU instance: its worker makes both shards
    got, want = files(tmp_path / "ray"), files(cli_folder)
    assert [name for name in got if name.startswith("batches/")] == [shard_name(i, shards=2) for i in range(2)]
    assert [name for name in got if name.startswith("views/steps/")] == sorted(view_name("steps", s, i, shards=2)
                                                                               for s in SPLITS for i in range(2))
    assert got == want


def test_a_restart_makes_only_the_missing_shards(cli_folder, tmp_path, capsys):
    out = tmp_path / "resumed"
    spec = RunSpec("kernelinfer", str(out), SEED, ROWS, HOLDOUT, shard_size=SHARD)
    make_shard(spec, 1)                                    # done before the kill, after the missing one
    (out / shard_name(0, shards=2)).write_bytes(b'{"session_id": "cut off mid-wri')   # killed while writing shard 0's
    (out / view_name("steps", "train", 0, shards=2)).write_bytes(b"PAR1 cut off")     # view file (no marker yet)
    made = [shard_name(1, shards=2)] + [view_name("steps", s, 1, shards=2) for s in SPLITS]
    before = {rel: (out / rel).stat().st_mtime_ns for rel in made}
    assert scale(out) == 0
    assert "1 of 2 shards to make" in capsys.readouterr().err
    assert {rel: (out / rel).stat().st_mtime_ns for rel in made} == before
    got = files(out)
    assert view_name("steps", "train", 0, shards=2) in got and got == files(cli_folder)
    assert scale(out) == 0 and "0 of 2 shards to make" in capsys.readouterr().err


def test_other_options_or_missing_shards_are_refused(tmp_path, capsys):
    out = tmp_path / "partial"
    spec = RunSpec("kernelinfer", str(out), SEED, ROWS, HOLDOUT, shard_size=SHARD)
    make_shard(spec, 1)
    assert scale(out, "--finish-only") == 2
    assert "1 of 2 shards are not done (first: 0)" in capsys.readouterr().err
    assert main(["scale", "kernelinfer", "--out", str(out), "--seed", "4", "--rows", str(ROWS),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD)]) == 2
    assert "holds a run with other options" in capsys.readouterr().err
    assert not (out / done_name(spec, 0)).exists()


def test_missing_ray_gives_the_install_hint(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(engines.EngineMissing, match=r"pip install -e '\.\[ray\]'"):
        engines.run_ray(RunSpec("kernelinfer", str(tmp_path), 0, 10, 0), [0], 1, None)


def test_slurm_scripts_cover_every_shard_with_commands_the_cli_accepts(tmp_path):
    assert main(["scale", "kernelinfer", "--out", str(tmp_path / "out"), "--rows", "190000", "--engine", "slurm",
                 "--slurm-dir", str(tmp_path / "jobs"), "--shards-per-task", "7", "--partition", "cpu",
                 "--no-views", "--window-tokens", "4096"]) == 0
    array = (tmp_path / "jobs" / "shards.sbatch").read_text()
    final = (tmp_path / "jobs" / "final.sbatch").read_text()
    assert "#SBATCH --array=0-271%200" in array.splitlines()       # 1,900 shards / 7 per task
    assert "#SBATCH --partition=cpu" in final.splitlines()
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    covered = set()
    for task in (0, 271):
        line = next(l for l in array.splitlines() if l.startswith("exec "))
        start = task * 7
        line = line.replace("$START", str(start)).replace("$((START + 7))", str(start + 7))
        args = parser.parse_args(shlex.split(line)[5:])
        assert args.no_finish and args.rows == 190000 and args.engine == "local" and not args.views
        covered |= set(range(*args.shards))
    assert {0, 6, 1897, 1899} <= covered
    args = parser.parse_args(shlex.split(next(l for l in final.splitlines() if l.startswith("exec ")))[5:])
    assert args.finish_only and args.out == str(tmp_path / "out") and not args.views
    assert args.window_tokens == 4096          # forwarded, not the default
    assert all(f"--shard-size {SHARD_SIZE} " in line for line in (array, final))    # the shards' row ranges


def test_a_remote_output_is_validated_like_a_local_folder(generated, capsys, monkeypatch):
    """An fsspec output that is not a local path (`memory://`: the shard tasks run in this process with one
    worker) gets the local CLI's bytes, and its final step reads the Parquet files as a local folder's validation
    does: a view row moved into the wrong split and a cut-off view file are named by URL, file and row."""
    folder = generated("kernelinfer")
    made = orjson.loads((folder / "stats.json").read_bytes())["generator"]     # the options that made the folder
    url = f"memory://scale-remote-{id(folder)}/kernelinfer"
    store = Store(url)
    argv = ["scale", "kernelinfer", "--out", url, "--seed", str(made["seed"]), "--rows", str(made["sessions"]),
            "--holdout", str(made["holdout"]), "--workers", "1"]
    try:
        assert main(argv) == 0
        assert store.local_path() is None and "0 problems" in capsys.readouterr().out
        got = {rel: store.read(rel) for rel in store.listing("") if not rel.startswith(".")}
        assert got == files(folder)
        train, held = (view_name("steps", s, 0, shards=1) for s in SPLITS)
        moved = read_rows(pa.BufferReader(store.read(held)))
        row = next(moved)
        rows = list(read_rows(pa.BufferReader(store.read(train)))) + [row]
        store.write(train, to_parquet(VIEWS["steps"].features, rows))
        store.write(held, to_parquet(VIEWS["steps"].features, moved))
        store.write(view_name("steps", "validation", 1, shards=1), b"PAR1 cut off")   # not a file of a 1-shard run
        assert main([*argv, "--finish-only"]) == 1
        err = capsys.readouterr().err
        assert f"{url}/{train}:{len(rows)}: view_split: " in err and "is a validation row" in err
        assert f"{url}/{view_name('steps', 'validation', 1, shards=1)}: view_files: not a view file" in err
        assert f"{url}/views/steps: view_count: " in err          # the counts per split moved too
        monkeypatch.setattr(finish, "extra_files", _without_data_bytes(finish.extra_files))
        assert main([*argv, "--finish-only"]) == 1
        err = capsys.readouterr().err
        assert f"{url}/stats.json: " in err and "data_bytes" in err
    finally:
        store.fs.rm(store.root, recursive=True)


def _without_data_bytes(extra_files):
    """`finish.extra_files` whose stats.json lacks a key its schema requires (a writer bug the final step must
    catch on a remote output as `validate` does on a local folder)."""
    def patched(*args):
        make = extra_files(*args)

        def files(*more):
            out = make(*more)
            stats = orjson.loads(out[STATS_FILE])
            del stats["data_bytes"]
            return {**out, STATS_FILE: orjson.dumps(stats)}
        return files
    return patched


@pytest.mark.e2e
def test_a_remote_outputs_parquet_checks_in_worker_processes_say_the_same(capsys, monkeypatch):
    """The remote final step's Parquet checks in worker processes (each source's files copied in before its
    process starts) give the findings one process gives, in the same order; none is read in this process."""
    url = f"memory://scale-workers-{id(capsys)}/kernelinfer"
    store = Store(url)
    try:
        assert scale(url) == 0
        capsys.readouterr()
        train = view_name("steps", "train", 0, shards=2)
        rows = list(read_rows(pa.BufferReader(store.read(train))))
        rows[2]["status"] = "exploded"                          # a row its schema rejects
        store.write(train, to_parquet(VIEWS["steps"].features, rows[:-1]))           # and one short of the count
        store.write("data/sessions/validation-001.parquet", b"PAR1 cut off")
        assert scale(url, "--finish-only") == 1
        alone = capsys.readouterr().err
        assert f"{url}/{train}:3: schema: " in alone and f"{url}/views/steps: view_count: " in alone
        assert f"{url}/data/sessions/validation-001.parquet: parquet_files: not a readable Parquet file" in alone

        def not_here(*_args):
            raise AssertionError("a Parquet file was read in the main process")

        monkeypatch.setattr(shardfiles, "PER_PROCESS", 1)       # 2 shards and the holdout: 3 processes
        monkeypatch.setattr(viewcheck.Checker, "file", not_here)
        monkeypatch.setattr(parquetcheck.Checker, "file", not_here)
        assert scale(url, "--finish-only") == 1
        assert capsys.readouterr().err == alone
    finally:
        store.fs.rm(store.root, recursive=True)
