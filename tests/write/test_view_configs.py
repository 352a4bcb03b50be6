"""The training views as configs of a generated folder: the generation command writes them per shard and split,
every split loads through `datasets` (regular and streaming) and the builders (files and seed=) and equals the
pure view functions on the folder's own rows of that split (no train view row comes from a validation family),
the views do not depend on --num-proc, vanish with --no-views, and the validator checks them."""
from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from generator.catalog import validation
from generator.check import viewcheck
from generator.check.validate import validate_paths
from generator.layout import VIEW_DIR, view_name, view_pattern
from generator.registry import DATASETS
from generator.write.card import render_card
from generator.write.parquet import read_rows
from generator.write.views import SPLITS


def main_rows(folder: Path) -> list[dict]:
    return [orjson.loads(line) for f in sorted(folder.glob("batches/*.jsonl")) for line in f.read_bytes().splitlines()]


def expected(folder: Path, view, split: str | None = None) -> list[dict]:
    """The view rows of the folder's main rows (of `split`'s main rows when set)."""
    return [out for row in main_rows(folder) if split is None or validation.split_of(row) == split
            for out in view.rows_fn(row, window_tokens=32_768)]


def findings(folder: Path) -> list[tuple[str, str]]:
    return [(Path(f.path).relative_to(folder).as_posix() if Path(f.path).is_relative_to(folder) else f.path, f.kind)
            for f in validate_paths([folder]).findings]


def test_every_view_split_loads_regular_and_streaming_and_equals_the_view_functions(folder, tmp_path):
    dataset = DATASETS[folder.name]
    assert dataset.views
    ids = {s: {r[dataset.id_field] for r in main_rows(folder) if validation.split_of(r) == s} for s in SPLITS}
    for view in dataset.views:
        for split in SPLITS:
            want = expected(folder, view, split)
            assert want, (view.name, split)             # the small folders hold validation rows too
            regular = datasets.load_dataset(str(folder), view.name, split=split, cache_dir=str(tmp_path))
            streamed = datasets.load_dataset(str(folder), view.name, split=split, streaming=True)
            assert regular.features == streamed.features == view.features
            assert list(regular) == list(streamed) == want
            assert {r[dataset.id_field] for r in regular} <= ids[split]     # never another split's row
            assert streamed.num_shards == len(list(folder.glob(view_pattern(view.name, split))))


def test_builder_reads_the_files_and_regenerates_them_for_the_seed(folder, builders, tmp_path):
    builder = builders[folder.name]
    made = orjson.loads((folder / "stats.json").read_bytes())["generator"]     # the options that made the folder
    flag = builder.DATASET.count_flag
    for view in builder.DATASET.views:
        b = builder(config_name=view.name, data_dir=str(folder), cache_dir=str(tmp_path / "files"))
        b.download_and_prepare()
        seeded = builder(config_name=view.name, seed=made["seed"], num_holdout=made["holdout"],
                         cache_dir=str(tmp_path / "seed"), **{f"num_{flag}": made[flag]})
        seeded.download_and_prepare()
        assert sorted(b.info.splits) == sorted(seeded.info.splits) == sorted(SPLITS)
        for split in SPLITS:
            from_files = list(b.as_dataset(split=split))
            assert list(seeded.as_dataset(split=split)) == from_files == expected(folder, view, split)


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
        assert stats["splits"]["views"][view.name] == {s: len(expected(folder, view, s)) for s in SPLITS}
    card = (folder / "README.md").read_text()
    assert not (folder / VIEW_DIR / "README.md").exists()       # one card: every config reads Parquet
    assert "every training row" not in card
    for view in dataset.views:
        assert f"### `{view.name}`" in card and f"config_name: {view.name}" in card
        counts = stats["splits"]["views"][view.name]
        assert f"| `{view.name}` | {counts['train']:,} | {counts['validation']:,} |" in card
        for split in SPLITS:
            assert f"path: {view_pattern(view.name, split)}" in card


def test_no_views_omits_them(make_folder, tmp_path):
    out = make_folder("kernelinfer", tmp_path / "kernelinfer", rows=5, holdout=3, extra=("--no-views",))
    stats = orjson.loads((out / "stats.json").read_bytes())
    assert not (out / VIEW_DIR).exists() and not (out / "data").exists() and stats["generator"]["views"] is False
    assert list(stats["tokens"]) == ["sessions"] and "### `steps`" not in (out / "README.md").read_text()


def test_validator_flags_tampered_missing_and_extra_view_files(generated, tmp_path):
    folder = tmp_path / "kernelinfer"
    shutil.copytree(generated("kernelinfer"), folder)
    assert findings(folder) == []
    rel = view_name("steps", "train", 0, shards=1)
    table = pq.read_table(folder / rel)
    rows = table.to_pylist()
    rows[3]["status"] = "exploded"                 # not a status: the row's schema rejects it
    pq.write_table(pa.Table.from_pylist(rows[:-1], schema=table.schema), folder / rel)   # and one row short
    assert (rel, "schema") in findings(folder) and (f"{VIEW_DIR}/steps", "view_count") in findings(folder)
    assert [n for n, _row in enumerate(read_rows(str(folder / rel)), 1)][-1] == len(rows) - 1
    stray = view_name("steps", "train", 7, shards=1)
    shutil.copyfile(folder / rel, folder / stray)
    (folder / rel).unlink()
    got = findings(folder)
    assert (rel, "view_files") in got and (stray, "view_files") in got


def move_one_row(folder: Path, view: str, k: int) -> str:
    """Move the k-th row of shard 0's `view` validation file to the end of its train file (counts per view
    unchanged, every row still its session's): the train file it returns now holds a validation session's row."""
    train, held = (folder / view_name(view, s, 0, shards=1) for s in SPLITS)
    validation_rows = pq.read_table(held).to_pylist()
    table = pq.read_table(train)
    pq.write_table(pa.Table.from_pylist(table.to_pylist() + [validation_rows.pop(k)], schema=table.schema), train)
    pq.write_table(pa.Table.from_pylist(validation_rows, schema=table.schema), held)
    return view_name(view, "train", 0, shards=1)


@pytest.mark.parametrize("dataset, view", [("kernelinfer", "steps"), ("kernelswarm", "agent_turns")])
def test_a_train_view_row_from_a_validation_row_is_one_finding_naming_file_and_row(generated, tmp_path, dataset,
                                                                                  view):
    """Red team: the leak the split exists to prevent, in a view with a rule (steps) and one without. The stats.json
    counts per split are moved along, so the only thing wrong is the row's split."""
    folder = tmp_path / dataset
    shutil.copytree(generated(dataset), folder)
    rel = move_one_row(folder, view, 0)
    stats = orjson.loads((folder / "stats.json").read_bytes())
    stats["splits"]["views"][view]["train"] += 1
    stats["splits"]["views"][view]["validation"] -= 1
    (folder / "stats.json").write_bytes(orjson.dumps(stats, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    found = validate_paths([folder]).findings
    rows = pq.read_metadata(folder / rel).num_rows
    assert [(Path(f.path).relative_to(folder).as_posix(), f.line, f.kind) for f in found] == [(rel, rows, "view_split")]
    assert "validation row" in found[0].message and "not train" in found[0].message


@pytest.mark.parametrize("splits", [[1], {"views": [2]}, {"views": {"steps": 3}}, {"views": {"steps": {"train": "x"}}}])
def test_malformed_split_counts_are_findings_not_exceptions(splits):
    dataset = DATASETS["kernelinfer"]
    stats = {"generator": {"views": True}, "splits": splits, "tokens": {"steps": {"rows": 0}}}
    found = [(rel, p.kind) for rel, _line, p in viewcheck.Checker(dataset, 1, stats).totals()]
    assert found == [(f"{VIEW_DIR}/steps", "view_count")] * 2            # train and validation, nothing recorded
    card = render_card(dataset, {"generator": stats["generator"], "splits": splits})
    assert "### `steps`" in card and "| `steps` |" not in card           # the card leaves the table out
