"""`python -m generator kernelinfer` end to end on a small scale: layout, stats, QA, loading, determinism, errors."""
from __future__ import annotations

import orjson
import pytest

from generator.__main__ import main
from generator.kernelinfer.checks import CHECKS as KI_CHECKS

SESSIONS, HOLDOUT, SHARD = 12, 5, 10   # two shards: 10 sessions and 2 (--shard-size: the rows do not depend on it)
NO_VIEWS = "--no-views"   # the seed's JSONL-only layout here; the Parquet layout and views: kernelswarm's CLI test
                          # (writer, reuse, --num-proc), tests/write/ (conftest folders), tests/test_views.py (rows)


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("ki") / "kernelinfer"
    assert main(["kernelinfer", "--out", str(out), "--seed", "5", "--sessions", str(SESSIONS),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD), "--num-proc", "1", NO_VIEWS]) == 0
    return out


def test_layout_and_merged_view(folder):
    f = files(folder)
    assert [n for n in f if n.startswith("batches/")] == ["batches/batch_000.jsonl", "batches/batch_001.jsonl"]
    assert f["sessions.jsonl"] == f["batches/batch_000.jsonl"] + f["batches/batch_001.jsonl"]
    assert [len(f[f"batches/batch_00{i}.jsonl"].splitlines()) for i in (0, 1)] == [SHARD, SESSIONS - SHARD]
    assert {"README.md", "stats.json", "tasks_holdout.jsonl", "qa_reports/batch_000.json",
            "qa_reports/batch_001.json"} <= set(f)
    assert not folder.with_name(f".{folder.name}.partial").exists()


def test_stats_are_computed_from_rows(folder):
    rows = [orjson.loads(line) for line in (folder / "sessions.jsonl").read_bytes().splitlines()]
    stats = orjson.loads((folder / "stats.json").read_bytes())
    assert stats["sessions"] == len(rows) == SESSIONS and stats["holdout_tasks"] == HOLDOUT
    assert stats["total_steps"] == sum(r["num_steps"] for r in rows)
    assert stats["step_statuses"]["ok"] == sum(t["status"] == "ok" for r in rows for t in r["trace"])
    assert stats["num_gpus"] == len({r["gpu"] for r in rows})
    assert stats["data_bytes"] == (folder / "sessions.jsonl").stat().st_size
    assert "reached the benchmark" in stats["attempts"]["definition"]
    card = (folder / "README.md").read_text()
    assert card.startswith("---\n") and "batches/*.jsonl" in card and "tasks_holdout.jsonl" in card
    assert ".parquet" not in card and not (folder / "data").exists()         # --no-views: no Parquet at all
    assert f"{SESSIONS} sessions" in card and f"({SHARD} rows each;" in card
    assert stats["generator"]["shard_size"] == SHARD


def test_qa_reports_and_holdout_disjoint(folder):
    for name in ("batch_000", "batch_001"):
        report = orjson.loads((folder / "qa_reports" / f"{name}.json").read_bytes())
        assert report["total"] >= 10 and report["passed"] == report["total"] and report["batch"] == name
    key = lambda r: (r["op"], r["impl"], r["gpu"], r["dtype"], tuple(sorted(r["shape"].items())))
    train = {key(orjson.loads(l)) for l in (folder / "sessions.jsonl").read_bytes().splitlines()}
    hold = [orjson.loads(l) for l in (folder / "tasks_holdout.jsonl").read_bytes().splitlines()]
    assert len(train) == SESSIONS and len(hold) == HOLDOUT and not train & {key(h) for h in hold}


@pytest.mark.parametrize("streaming", [False, True])
def test_load_dataset(folder, streaming, tmp_path):
    import datasets
    sessions = datasets.load_dataset(str(folder), "sessions", split="train", streaming=streaming,
                                     cache_dir=str(tmp_path))
    first = next(iter(sessions))
    assert isinstance(first["shape"], dict) and set(first["shape"]) == set(orjson.loads(
        (folder / "batches/batch_000.jsonl").read_bytes().split(b"\n", 1)[0])["shape"])
    assert isinstance(first["trace"][0]["params"], dict)
    hold = datasets.load_dataset(str(folder), "holdout", split="test", streaming=streaming, cache_dir=str(tmp_path))
    assert sum(1 for _ in hold) == HOLDOUT
    if not streaming:          # the JSONL layout has one split: every session
        assert sessions.num_rows == SESSIONS


@pytest.mark.e2e
def test_same_seed_same_bytes_any_num_proc_other_seed_differs(folder, generated, tmp_path):
    two = tmp_path / "two"
    assert main(["kernelinfer", "--out", str(two), "--seed", "5", "--sessions", str(SESSIONS),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD), "--num-proc", "2", NO_VIEWS]) == 0
    assert files(two) == files(folder)
    other = generated("kernelinfer")                  # the session's folder: seed 3
    assert orjson.loads((other / "stats.json").read_bytes())["generator"]["seed"] != 5
    assert (other / "sessions.jsonl").read_bytes()[:5000] != files(folder)["sessions.jsonl"][:5000]


@pytest.mark.e2e
def test_rerun_reuses_shards(folder, capsys):
    before = (folder / "batches/batch_001.jsonl").stat().st_ino
    assert main(["kernelinfer", "--out", str(folder), "--seed", "5", "--sessions", str(SESSIONS),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD), NO_VIEWS]) == 0
    assert (folder / "batches/batch_001.jsonl").stat().st_ino == before
    assert "(2 reused)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--sessions", "0"], "must be >= 1"),
    (["--seed", "x"], "expected an integer"),
    (["--num-proc", "0"], "must be >= 1"),
])
def test_bad_arguments_exit_2(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(["kernelinfer", "--out", str(tmp_path / "x"), *argv])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_impossible_scale_and_foreign_folder_exit_2(tmp_path, capsys):
    assert main(["kernelinfer", "--out", str(tmp_path / "x"), "--sessions", "10000000"]) == 2
    assert "training tasks" in capsys.readouterr().err
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_text("x")
    assert main(["kernelinfer", "--out", str(tmp_path / "mine"), "--sessions", "30", "--holdout", "1"]) == 2
    assert "not generated with these options" in capsys.readouterr().err


def test_failing_qa_check_exits_1_and_leaves_no_complete_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(KI_CHECKS, "checks", list(KI_CHECKS.checks))
    KI_CHECKS.check("always_fails", "test")(lambda row: "planted failure")
    out = tmp_path / "bad"
    assert main(["kernelinfer", "--out", str(out), "--sessions", "2", "--holdout", "1", NO_VIEWS]) == 1
    assert not out.exists() and (tmp_path / ".bad.partial" / "sessions.jsonl").exists()
    assert "always_fails" in capsys.readouterr().err
