"""The builders are the single source of truth: loading a folder, streaming it, and regenerating it agree."""
from __future__ import annotations

import shutil
from pathlib import Path

import datasets
import orjson
import pytest
from datasets import Json, List, Value

import kernelinfer
import kernelswarm
from generator.check import schemas
from generator.kernelinfer.dataset import KERNELINFER
from generator.catalog.validation import split_of
from generator.write.card import render_card
from rows import session_row


def rows_of(ds) -> list[dict]:
    return [dict(r) for r in ds]


def file_rows(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


# --- Features and JSON Schemas describe the same rows ------------------------------------------------------------

def _resolve(node: dict, doc: dict) -> tuple[dict, dict]:
    while "$ref" in node:
        target, _, pointer = node["$ref"].partition("#")
        if target:
            doc = schemas.load(target.removesuffix(".schema.json"))
        node = doc
        for part in pointer.strip("/").split("/"):
            node = node[part]
    return node, doc


def schema_type(node: dict, doc: dict):
    """A schema node as the feature type it must be: a dtype name, 'json', ('list', x) or {field: x}."""
    node, doc = _resolve(node, doc)
    if "enum" in node:
        return "string"
    types = node.get("type")
    types = [t for t in (types if isinstance(types, list) else [types]) if t != "null"]
    assert len(types) == 1, f"one JSON type per field, got {node}"
    kind = types[0]
    if kind == "object":
        if "properties" not in node:
            return "json"
        return {k: schema_type(v, doc) for k, v in node["properties"].items()}
    if kind == "array":
        return ("list", schema_type(node["items"], doc))
    return {"string": "string", "integer": "int64", "number": "float64", "boolean": "bool"}[kind]


def feature_type(feature):
    if isinstance(feature, Json):
        return "json"
    if isinstance(feature, Value):
        return feature.dtype
    if isinstance(feature, List):
        return ("list", feature_type(feature.feature))
    return {k: feature_type(v) for k, v in feature.items()}


@pytest.mark.parametrize("builder,config,schema", [
    (kernelinfer.KernelInfer, "sessions", "session"), (kernelinfer.KernelInfer, "holdout", "task"),
    (kernelswarm.KernelSwarm, "episodes", "episode"), (kernelswarm.KernelSwarm, "holdout", "task"),
])
def test_features_match_json_schema(builder, config, schema):
    doc = schemas.load(schema)
    features = builder.DATASET.config(config).features
    assert feature_type(features) == schema_type(doc, doc)


# --- typing holds across shards ----------------------------------------------------------------------------------

def test_shard_with_only_ints_and_nulls_in_float_fields_loads(tmp_path):
    """Shard 0's float fields hold only ints / nulls and its shapes have other keys than shard 1's: still casts."""
    (tmp_path / "batches").mkdir()
    first = {"session_id": "a", "shape": {"M": 64, "N": 64, "K": 64}, "baseline_ms": 2, "best": {"step": 1, "time_ms": 1, "speedup": 2},
             "trace": [{"step": 1, "tag": "naive", "kind": "new_variant", "params": {}, "status": "compile_error",
                        "time_ms": None, "kept": False}]}
    second = {"session_id": "b", "shape": {"B": 1, "T": 2}, "baseline_ms": 2.5, "best": {"step": 2, "time_ms": 0.5, "speedup": 5.0},
              "trace": [{"step": 1, "tag": "naive", "kind": "new_variant", "params": {"BLOCK_M": 64, "VEC": 4},
                         "status": "ok", "time_ms": 0.5, "kept": True}]}
    for i, row in enumerate([first, second]):
        (tmp_path / "batches" / f"batch_{i:03d}.jsonl").write_bytes(orjson.dumps(row) + b"\n")
    (tmp_path / "tasks_holdout.jsonl").write_bytes(b"")
    (tmp_path / "README.md").write_text(render_card(KERNELINFER, {"generator": {"views": False}}), encoding="utf-8")
    for streaming in (False, True):
        got = list(datasets.load_dataset(str(tmp_path), "sessions", split="train", streaming=streaming))
        assert [r["shape"] for r in got] == [first["shape"], second["shape"]]
        assert [r["trace"][0]["params"] for r in got] == [{}, {"BLOCK_M": 64, "VEC": 4}]
        assert [r["baseline_ms"] for r in got] == [2.0, 2.5] and isinstance(got[0]["best"]["time_ms"], float)
        assert got[0]["trace"][0]["time_ms"] is None and got[0]["op"] is None


# --- generated folders -----------------------------------------------------------------------------------------

def test_every_config_loads_with_builder_features(folder, builders, tmp_path):
    """Every config and split, through the builder (JSONL) and the card (Parquet), regular and streaming: the same
    rows, typed alike; the main config's two splits together are the JSONL shards' rows."""
    dataset, path = folder.name, folder
    builder = builders[dataset]
    for config in builder.DATASET.configs_with(views=False):      # views: tests/write/test_view_configs.py
        expected = builder(config_name=config.name).info.features
        b = builder(config_name=config.name, data_dir=str(path), cache_dir=str(tmp_path / "cache"))
        b.download_and_prepare()
        splits = ("train", "validation") if config.name == builder.DEFAULT_CONFIG_NAME else (config.split,)
        assert sorted(b.info.splits) == sorted(splits)
        loaded_all = []
        for split in splits:
            built = b.as_dataset(split=split)
            loaded = datasets.load_dataset(str(path), config.name, split=split, cache_dir=str(tmp_path / "hf"))
            streamed = datasets.load_dataset(str(path), config.name, split=split, streaming=True)
            assert built.features == loaded.features == streamed.features == expected
            assert rows_of(loaded) == rows_of(built) == rows_of(streamed)
            for row in rows_of(loaded):
                assert isinstance(row["shape"], dict) and row["shape"]
            loaded_all += rows_of(loaded)
        raw = [r for f in sorted(path.glob(config.pattern)) for r in file_rows(f)]
        key = builder.DATASET.id_field if config.name == builder.DEFAULT_CONFIG_NAME else "task_id"
        assert sorted((r[key], r["shape"]) for r in loaded_all) == sorted((r[key], r["shape"]) for r in raw)


def test_streaming_shards_follow_batches(folder, builders, tmp_path):
    """One batch file is one streaming shard of the builder; rows read across several files equal the single-file
    rows. The card's configs stream one Parquet file per batch and split."""
    dataset, path = folder.name, folder
    builder = builders[dataset]
    split_copy = tmp_path / dataset
    shutil.copytree(path, split_copy)
    lines = (split_copy / "batches" / "batch_000.jsonl").read_bytes().splitlines(keepends=True)
    (split_copy / "batches" / "batch_000.jsonl").unlink()
    for i in range(3):
        (split_copy / "batches" / f"batch_{i:03d}.jsonl").write_bytes(b"".join(lines[i::3]))
    it = builder(config_name=builder.DEFAULT_CONFIG_NAME, data_dir=str(split_copy)).as_streaming_dataset(split="train")
    assert it.num_shards == 3
    expected = [row["shape"] for i in range(3) for line in lines[i::3] for row in [orjson.loads(line)]
                if split_of(row) == "train"]
    assert [r["shape"] for r in it] == expected
    streamed = datasets.load_dataset(str(path), split="train", streaming=True)
    assert streamed.num_shards == len(list(path.glob(f"data/{builder.DEFAULT_CONFIG_NAME}/train-*.parquet")))


def test_builder_on_the_fly_equals_files(folder, builders, tmp_path):
    """Regenerating for the seed gives the same rows, byte for byte once serialized, as the CLI wrote."""
    dataset, path = folder.name, folder
    builder = builders[dataset]
    made = orjson.loads((path / "stats.json").read_bytes())["generator"]     # the options that made the folder
    flag = builder.DATASET.count_flag
    counts = {f"num_{flag}": made[flag], "num_holdout": made["holdout"]}
    for config in (builder.DEFAULT_CONFIG_NAME, "holdout"):
        pattern = builder.DATASET.config(config).pattern
        b = builder(config_name=config, seed=made["seed"], **counts, cache_dir=str(tmp_path / "c"))
        split = builder.DATASET.config(config).split
        every_split = {**b._split_generators(None)[0].gen_kwargs, "keep": None}     # the main config: every row
        generated = list(b._generate_examples(**every_split))
        on_disk = b"".join(f.read_bytes() for f in sorted(path.glob(pattern)))
        assert b"".join(orjson.dumps(row) + b"\n" for _, row in generated) == on_disk
        b.download_and_prepare()
        from_files = builder(config_name=config, data_dir=str(path), cache_dir=str(tmp_path / "f"))
        from_files.download_and_prepare()
        assert rows_of(b.as_dataset(split=split)) == rows_of(from_files.as_dataset(split=split))


def test_no_builder_script_in_generated_folder(folder):
    dataset, path = folder.name, folder
    assert not (path / f"{dataset}.py").exists()
    assert not list(path.rglob("*.py"))


def test_datasets_refuses_a_folder_holding_its_script(tmp_path):
    """Why the builders never travel with the data: datasets >= 4 rejects `<folder>/<folder>.py`."""
    path = tmp_path / "kernelswarm"
    (path / "batches").mkdir(parents=True)
    (path / "batches" / "batch_000.jsonl").write_bytes(b'{"a": 1}\n')
    shutil.copyfile(Path(kernelswarm.__file__), path / "kernelswarm.py")
    with pytest.raises(RuntimeError, match="Dataset scripts are no longer supported"):
        datasets.load_dataset(str(path))


def test_bad_line_names_file_and_line(tmp_path):
    (tmp_path / "batches").mkdir()
    (tmp_path / "batches" / "batch_000.jsonl").write_bytes(orjson.dumps(session_row()) + b'\n\n')
    b = kernelinfer.KernelInfer(config_name="sessions", data_dir=str(tmp_path), cache_dir=str(tmp_path / "c"))
    with pytest.raises(datasets.exceptions.DatasetGenerationError) as excinfo:
        b.download_and_prepare()
    assert isinstance(excinfo.value.__cause__, ValueError)
    assert f"{tmp_path}/batches/batch_000.jsonl:2: not a JSON object" in str(excinfo.value.__cause__)


def test_seed_config_rejects_bad_counts():
    with pytest.raises(ValueError, match="num_episodes >= 1"):
        kernelswarm.KernelSwarm(config_name="episodes", seed=1, num_episodes=0)._split_generators(None)
