"""The training views as configs of a generated folder: the generation command writes them per shard, they load
through `datasets` (regular and streaming) and the builders (files and seed=), equal the pure view functions on
the folder's own rows, do not depend on --num-proc, vanish with --no-views, and the validator checks them."""
from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from generator.check.validate import validate_paths
from generator.layout import VIEW_DIR, view_name
from generator.registry import DATASETS
from generator.write.parquet import read_rows


def main_rows(folder: Path) -> list[dict]:
    return [orjson.loads(line) for f in sorted(folder.glob("batches/*.jsonl")) for line in f.read_bytes().splitlines()]


def expected(folder: Path, view) -> list[dict]:
    return [out for row in main_rows(folder) for out in view.rows_fn(row, window_tokens=32_768)]


def findings(folder: Path) -> list[tuple[str, str]]:
    return [(Path(f.path).relative_to(folder).as_posix() if Path(f.path).is_relative_to(folder) else f.path, f.kind)
            for f in validate_paths([folder]).findings]


def test_every_view_loads_regular_and_streaming_and_equals_the_view_functions(folder, tmp_path):
    dataset = DATASETS[folder.name]
    assert dataset.views
    for view in dataset.views:
        want = expected(folder, view)
        assert want, view.name
        regular = datasets.load_dataset(str(folder), view.name, split="train", cache_dir=str(tmp_path))
        streamed = datasets.load_dataset(str(folder), view.name, split="train", streaming=True)
        assert regular.features == streamed.features == view.features
        assert list(regular) == list(streamed) == want


def test_builder_reads_the_files_and_regenerates_them_for_the_seed(folder, builders, tmp_path):
    builder = builders[folder.name]
    made = orjson.loads((folder / "stats.json").read_bytes())["generator"]     # the options that made the folder
    flag = builder.DATASET.count_flag
    for view in builder.DATASET.views:
        b = builder(config_name=view.name, data_dir=str(folder), cache_dir=str(tmp_path / "files"))
        b.download_and_prepare()
        from_files = list(b.as_dataset(split="train"))
        seeded = builder(config_name=view.name, seed=made["seed"], num_holdout=made["holdout"],
                         cache_dir=str(tmp_path / "seed"), **{f"num_{flag}": made[flag]})
        seeded.download_and_prepare()
        assert list(seeded.as_dataset(split="train")) == from_files == expected(folder, view)


def test_stats_and_cards_describe_every_config(folder):
    dataset = DATASETS[folder.name]
    stats = orjson.loads((folder / "stats.json").read_bytes())
    assert stats["generator"]["views"] is True and stats["generator"]["window_tokens"] == 32_768
    assert list(stats["tokens"]) == [dataset.main_config.name, *(v.name for v in dataset.views)]
    assert stats["tokens"][dataset.main_config.name]["rows"] == stats[dataset.count_flag]
    for view in dataset.views:
        token_stats = stats["tokens"][view.name]
        assert token_stats["rows"] == len(expected(folder, view))
        assert token_stats["fit_32k"] == 1.0 and token_stats["tokens"]["max"] <= 32_768
    card = (folder / "README.md").read_text()
    assert not (folder / VIEW_DIR / "README.md").exists()       # one card: every config reads Parquet
    for view in dataset.views:
        assert f"### `{view.name}`" in card and f"config_name: {view.name}" in card


def test_no_views_omits_them(make_folder, tmp_path):
    out = make_folder("kernelinfer", tmp_path / "kernelinfer", rows=5, holdout=3, extra=("--no-views",))
    stats = orjson.loads((out / "stats.json").read_bytes())
    assert not (out / VIEW_DIR).exists() and not (out / "data").exists() and stats["generator"]["views"] is False
    assert list(stats["tokens"]) == ["sessions"] and "### `steps`" not in (out / "README.md").read_text()


def test_validator_flags_tampered_missing_and_extra_view_files(generated, tmp_path):
    folder = tmp_path / "kernelinfer"
    shutil.copytree(generated("kernelinfer"), folder)
    assert findings(folder) == []
    rel = view_name("steps", 0)
    table = pq.read_table(folder / rel)
    rows = table.to_pylist()
    rows[3]["status"] = "exploded"                 # not a status: the row's schema rejects it
    pq.write_table(pa.Table.from_pylist(rows[:-1], schema=table.schema), folder / rel)   # and one row short
    assert (rel, "schema") in findings(folder) and (f"{VIEW_DIR}/steps", "view_count") in findings(folder)
    assert [n for n, _row in enumerate(read_rows(str(folder / rel)), 1)][-1] == len(rows) - 1
    shutil.copyfile(folder / rel, folder / VIEW_DIR / "steps" / "steps_007.parquet")
    (folder / rel).unlink()
    got = findings(folder)
    assert (rel, "view_files") in got and (f"{VIEW_DIR}/steps/steps_007.parquet", "view_files") in got
