"""`python -m generator kernelswarm` end to end on a small scale: layout, stats, QA, loading, determinism, errors."""
from __future__ import annotations

import datasets
import orjson
import pytest

from generator.__main__ import main
from generator.kernelswarm.checks import CHECKS as KS_CHECKS

EPISODES, HOLDOUT, SHARD = 12, 7, 10   # two shards: 10 episodes and 2 (--shard-size)


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def rows(path):
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("ks") / "kernelswarm"
    assert main(["kernelswarm", "--out", str(out), "--seed", "4", "--episodes", str(EPISODES),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD), "--num-proc", "1"]) == 0
    return out


def test_layout_stats_and_qa(folder):
    f = files(folder)
    assert [n for n in f if n.startswith("batches/")] == ["batches/batch_000.jsonl", "batches/batch_001.jsonl"]
    assert f["episodes.jsonl"] == f["batches/batch_000.jsonl"] + f["batches/batch_001.jsonl"]
    episodes = rows(folder / "episodes.jsonl")
    stats = orjson.loads(f["stats.json"])
    assert stats["episodes"] == len(episodes) == EPISODES and stats["holdout_tasks"] == HOLDOUT
    assert stats["total_messages"] == sum(e["num_messages"] for e in episodes)
    assert stats["generator"]["seed"] == 4 and stats["generator"]["episodes"] == EPISODES
    for name in ("batch_000", "batch_001"):
        report = orjson.loads(f[f"qa_reports/{name}.json"])
        assert report["dataset"] == "kernelswarm" and report["passed"] == report["total"] == len(KS_CHECKS.checks)
    assert len({e["episode_id"] for e in episodes}) == EPISODES
    card = f["README.md"].decode()
    assert card.startswith("---\n") and "config_name: episodes" in card and "kernelstrain" in card


def test_every_config_loads(folder, tmp_path):
    episodes = datasets.load_dataset(str(folder), "episodes", cache_dir=str(tmp_path))   # train and validation
    assert sum(split.num_rows for split in episodes.values()) == EPISODES
    assert isinstance(episodes["train"][0]["shape"], dict)
    hold = datasets.load_dataset(str(folder), "holdout", split="test", streaming=True)
    assert sum(1 for _ in hold) == HOLDOUT


@pytest.mark.e2e
def test_same_bytes_any_num_proc(folder, tmp_path):
    """Every file, the configs' and views' Parquet shards included, is the same with 1 or 2 processes."""
    two = tmp_path / "two"
    assert main(["kernelswarm", "--out", str(two), "--seed", "4", "--episodes", str(EPISODES),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD), "--num-proc", "2"]) == 0
    views = sorted(n for n in files(folder) if n.startswith("views/"))
    assert len(views) == 2 * 2 * 2, views       # two views x two splits x two shards
    assert files(two) == files(folder)


def test_a_rerun_adopts_the_shards_and_their_views(folder, capsys):
    """The same inodes afterwards: the JSONL shards and their Parquet files (configs and views) are reused, not
    rewritten; the holdout's Parquet is rewritten with the holdout file."""
    kept = ["batches/batch_001.jsonl", *(p.relative_to(folder).as_posix() for p in folder.glob("views/*/*.parquet")),
            *(p.relative_to(folder).as_posix() for p in folder.glob("data/episodes/*.parquet"))]
    assert len(kept) == 1 + 2 * 2 * 2 + 2 * 2       # (two views and the main config) x two splits x two shards
    before = {rel: (folder / rel).stat().st_ino for rel in kept}
    assert main(["kernelswarm", "--out", str(folder), "--seed", "4", "--episodes", str(EPISODES),
                 "--holdout", str(HOLDOUT), "--shard-size", str(SHARD), "--num-proc", "1"]) == 0
    assert {rel: (folder / rel).stat().st_ino for rel in kept} == before and "(2 reused)" in capsys.readouterr().out


def test_impossible_scale_exits_2(tmp_path, capsys):
    assert main(["kernelswarm", "--out", str(tmp_path / "x"), "--episodes", "10000000"]) == 2
    assert "episodes" in capsys.readouterr().err and not (tmp_path / "x").exists()
