"""`--shard-size`: the files change, the rows do not; stats.json and the card say the size, and the validator
refuses a folder whose shards do not hold what stats.json says."""
from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from generator.__main__ import main
from generator.check.validate import validate_paths

SIZE = 5


@pytest.fixture(scope="module")
def small_shards(generated, make_folder, tmp_path_factory) -> tuple[Path, Path]:
    """(the session's kernelinfer folder, the same options with --shard-size SIZE and no views: a view file is
    made from its shard's rows by the function the default folder's views are, tests/write/test_view_configs.py)."""
    default = generated("kernelinfer")
    made = orjson.loads((default / "stats.json").read_bytes())["generator"]
    other = make_folder("kernelinfer", tmp_path_factory.mktemp("shard_size") / "kernelinfer", seed=made["seed"],
                        rows=made["sessions"], holdout=made["holdout"], extra=("--shard-size", str(SIZE), "--no-views"))
    return default, other


def test_the_rows_do_not_depend_on_the_shard_size(small_shards):
    default, other = small_shards
    stats = orjson.loads((other / "stats.json").read_bytes())
    rows = stats["sessions"]
    lines = [len(p.read_bytes().splitlines()) for p in sorted((other / "batches").glob("*.jsonl"))]
    assert lines == [SIZE] * (rows // SIZE) + [rows % SIZE] * (rows % SIZE > 0) and stats["shards"] == len(lines)
    assert (other / "sessions.jsonl").read_bytes() == (default / "sessions.jsonl").read_bytes()
    assert stats["generator"]["shard_size"] == SIZE
    assert orjson.loads((default / "stats.json").read_bytes())["generator"]["shard_size"] == 100
    assert f"({SIZE} rows each" in (other / "README.md").read_text()


def misstated(source: Path, tmp_path: Path, claimed: int) -> list[str]:
    """The validator's stats_mismatch findings for a copy of `source` whose stats.json claims `claimed` rows per
    shard."""
    folder = tmp_path / "kernelinfer"
    shutil.copytree(source, folder)
    stats = orjson.loads((folder / "stats.json").read_bytes())
    stats["generator"]["shard_size"] = claimed
    (folder / "stats.json").write_bytes(orjson.dumps(stats))
    return [f.message.removeprefix("stats_mismatch: ") for f in validate_paths([folder], semantic=False).findings
            if f.kind == "stats_mismatch"]


@pytest.mark.parametrize("claimed", [SIZE - 1, SIZE + 1])
def test_a_stats_json_that_misstates_the_shard_size_is_a_finding(small_shards, tmp_path, claimed):
    found = misstated(small_shards[1], tmp_path, claimed)
    assert [m for m in found if "shard_size" in m] == [f"generator.shard_size is {claimed} but batch_00{i}.jsonl "
                                                       f"holds {SIZE} rows" for i in (0, 1)]


def test_a_last_shard_larger_than_the_shard_size_is_a_finding(small_shards, tmp_path):
    default = small_shards[0]             # one shard of every row
    rows = orjson.loads((default / "stats.json").read_bytes())["sessions"]
    assert misstated(default, tmp_path, rows) == []
    assert misstated(default, tmp_path / "less", rows - 1) == [
        f"generator.shard_size is {rows - 1} but the last shard batch_000.jsonl holds {rows} rows"]


def test_a_shard_size_below_one_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["kernelinfer", "--out", str(tmp_path / "x"), "--shard-size", "0"])
    assert exc.value.code == 2 and "--shard-size: must be >= 1" in capsys.readouterr().err
