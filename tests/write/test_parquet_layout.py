"""The folder's Parquet copies of its rows (`data/`): written by `generator.write.parquet` with bounded row groups,
a page index and JSON columns that load back as the JSONL's values; the validation split counted in stats.json
and named in the card; the validator flags stale, missing, foreign or misplaced files."""
from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from generator.catalog import validation
from generator.check.validate import validate_paths
from generator.registry import DATASETS
from generator.write import parquet


def findings(folder: Path) -> list[tuple[str, str]]:
    return [(Path(f.path).relative_to(folder).as_posix() if Path(f.path).is_relative_to(folder) else f.path, f.kind)
            for f in validate_paths([folder]).findings]


def jsonl_rows(folder: Path) -> list[dict]:
    return [orjson.loads(line) for f in sorted(folder.glob("batches/*.jsonl")) for line in f.read_bytes().splitlines()]


def test_row_groups_follow_the_byte_budget_and_json_columns_round_trip(folder, monkeypatch, tmp_path):
    dataset = DATASETS[folder.name]
    rows = jsonl_rows(folder)
    smallest = min(parquet.json_size(r) for r in rows)
    monkeypatch.setattr(parquet, "MAX_GROUP_BYTES", 3 * smallest)         # at most 3 rows a group
    path = tmp_path / "rows.parquet"
    path.write_bytes(parquet.to_parquet(dataset.features, rows))
    meta = pq.ParquetFile(path).metadata
    groups = [meta.row_group(g).num_rows for g in range(meta.num_row_groups)]
    assert sum(groups) == len(rows) and max(groups) <= 3 and len(groups) >= len(rows) // 3
    assert all(meta.row_group(g).column(0).has_offset_index for g in range(meta.num_row_groups))   # page index
    loaded = datasets.load_dataset("parquet", data_files=str(path), split="train", cache_dir=str(tmp_path / "c"))
    assert loaded.features == dataset.features
    assert [r["shape"] for r in loaded] == [r["shape"] for r in rows]
    key = "trace" if "trace" in dataset.features else "messages"
    params = [[m.get("params") for m in r[key]] for r in rows]
    assert [[m.get("params") for m in r[key]] for r in loaded] == params


def test_stats_and_card_name_the_validation_split(folder, tmp_path):
    dataset = DATASETS[folder.name]
    stats = orjson.loads((folder / "stats.json").read_bytes())
    rows = jsonl_rows(folder)
    want = sum(validation.split_of(r) == "validation" for r in rows)
    assert {k: v for k, v in stats["splits"].items() if k != "views"} == {"rule": validation.VERSION,
                                                                          "train": len(rows) - want, "validation": want}
    main = dataset.main_config.name
    for split, n in (("train", len(rows) - want), ("validation", want)):
        assert sum(pq.ParquetFile(f).metadata.num_rows for f in folder.glob(f"data/{main}/{split}-*.parquet")) == n
    card = (folder / "README.md").read_text()
    assert f"path: data/{main}/validation-*.parquet" in card and f"validation {validation.VERSION}" in card


def test_validator_flags_stale_missing_extra_and_misplaced_files(generated, tmp_path):
    folder = tmp_path / "kernelinfer"
    shutil.copytree(generated("kernelinfer"), folder)
    assert findings(folder) == []
    rel = "data/sessions/train-000.parquet"
    table = pq.read_table(folder / rel)
    pq.write_table(table.slice(1), folder / rel)                           # a stale copy: one row short
    assert (rel, "parquet_files") in findings(folder)
    other = "data/sessions/validation-000.parquet"
    pq.write_table(pa.concat_tables([pq.read_table(folder / other), table.slice(0, 1)]), folder / other)
    assert (other, "parquet_files") in findings(folder)                    # a train row in the validation split
    shutil.copyfile(folder / rel, folder / "data/sessions/train-077.parquet")
    (folder / "data/holdout/test-000.parquet").unlink()
    got = findings(folder)
    assert ("data/sessions/train-077.parquet", "parquet_files") in got
    assert ("data/holdout/test-000.parquet", "parquet_files") in got
