"""Per-shard file names (`generator.layout`): every index of a run padded to one width, that of its last index and
at least 3 digits, so that the names sort by text in index order (the order `datasets.load_dataset` reads them in:
fsspec's glob lists them by name) while runs of up to 1,000 shards keep the names they always had."""
from __future__ import annotations

import datasets
import orjson
import pytest

from generator.check.validate import validate_paths
from generator.layout import index_width, parquet_name, qa_name, shard_name, view_name

ROWS = 1001          # the fewest rows past 1,000 shards (one row per shard)


def per_shard_names(shards: int) -> dict[str, list[str]]:
    """Each kind of per-shard file of a run of `shards` shards, in index order."""
    return {"shard": [shard_name(i, shards=shards) for i in range(shards)],
            "qa": [qa_name(i, shards=shards) for i in range(shards)],
            "parquet": [parquet_name("sessions", "train", i, shards=shards) for i in range(shards)],
            "view": [view_name("steps", "validation", i, shards=shards) for i in range(shards)]}


@pytest.mark.parametrize("shards, width", [(1, 3), (10, 3), (1000, 3), (1001, 4), (10_000, 4), (10_001, 5)])
def test_the_width_is_the_last_indexs_digits_and_at_least_3(shards, width):
    assert index_width(shards) == width
    assert shard_name(0, shards=shards) == f"batches/batch_{'0' * width}.jsonl"


@pytest.mark.parametrize("shards", [2, 1000, 1001, 10_001])
def test_names_sort_by_text_in_index_order(shards):
    for kind, names in per_shard_names(shards).items():
        assert sorted(names) == names, kind
        assert len(set(names)) == shards, kind


def test_runs_of_up_to_1000_shards_keep_the_names_of_earlier_versions():
    """The names 0.6.2 wrote (`{index:03d}`), for the first and last shard of the largest such run."""
    assert [names[k] for names in per_shard_names(1000).values() for k in (0, -1)] == [
        "batches/batch_000.jsonl", "batches/batch_999.jsonl", "qa_reports/batch_000.json", "qa_reports/batch_999.json",
        "data/sessions/train-000.parquet", "data/sessions/train-999.parquet",
        "views/steps/steps-validation-000.parquet", "views/steps/steps-validation-999.parquet"]


@pytest.mark.e2e
def test_a_run_past_1000_shards_loads_in_generation_order_and_validates_clean(make_folder, tmp_path):
    """The cheapest real run past 1,000 shards: 1,001 sessions of one row per shard, JSONL only (the card's
    `sessions` config then reads `batches/*.jsonl`, resolved by datasets through fsspec's glob): 43-47 s on two
    shared cores, most of it generating and loading 560 MB of sessions, hence e2e."""
    folder = make_folder("kernelinfer", tmp_path / "kernelinfer", rows=ROWS, extra=("--shard-size", "1", "--no-views"))
    shards = [folder / shard_name(i, shards=ROWS) for i in range(ROWS)]
    assert sorted((folder / "batches").iterdir()) == shards and shards[-1].name == "batch_1000.jsonl"
    assert sorted((folder / "qa_reports").iterdir()) == [folder / qa_name(i, shards=ROWS) for i in range(ROWS)]
    assert f"The first session of `{shard_name(0, shards=ROWS)}`" in (folder / "README.md").read_text()
    assert validate_paths([folder]).findings == []
    made = [orjson.loads(path.read_bytes())["session_id"] for path in shards]      # shard i holds row i
    loaded = datasets.load_dataset(str(folder), "sessions", split="train", cache_dir=str(tmp_path / "cache"))
    assert loaded["session_id"] == made
