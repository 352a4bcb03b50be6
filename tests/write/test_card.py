"""The card's YAML comes from the builders and round-trips through the libraries that read it."""
from __future__ import annotations

import datasets
import pytest
import yaml
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard

from generator.registry import DATASETS
from generator.write.card import card_metadata, render_card, size_category

STATS = {"dataset": "kernelinfer", "sessions": 1899, "total_steps": 179_654, "holdout_tasks": 195,
         "best_speedup": {"mean": 13.4, "geomean": 9.1}, "step_statuses": {"ok": 151_800, "compile_error": 22_400},
         "gpus": {"h100": 1000, "a10": 899}}


@pytest.mark.parametrize("dataset", ["kernelinfer", "kernelswarm"])
@pytest.mark.parametrize("views", [True, False])
def test_yaml_round_trips_to_builder_configs_and_features(dataset, builders, views):
    stats = {**STATS, "generator": {"version": "0", "schema_version": "1", "seed": 0, "views": views}}
    card = DatasetCard(render_card(DATASETS[dataset], stats))
    builder = builders[dataset]
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    infos = datasets.info.DatasetInfosDict.from_dataset_card_data(card.data)
    names = [c.name for c in builder.DATASET.configs_with(views=views)]
    assert list(configs) == names and sorted(infos) == sorted(names)
    assert configs[builder.DEFAULT_CONFIG_NAME]["default"] is True
    for name in names:
        config = builder.DATASET.config(name)
        assert infos[name].features == config.features
        splits = {entry["split"]: entry["path"] for entry in configs[name]["data_files"]}
        if not views:                       # --no-views: the seed layout, JSONL configs
            assert splits == {config.split: config.pattern}
        elif name == builder.DEFAULT_CONFIG_NAME:   # Parquet everywhere; the main config has a validation split
            assert splits == {s: f"data/{name}/{s}-*.parquet" for s in ("train", "validation")}
        elif name == "holdout":
            assert list(splits) == [config.split] and splits[config.split].endswith(".parquet")
        else:                               # a view: the main config's splits, each from its own files
            assert splits == {s: f"views/{name}/{name}-{s}-*.parquet" for s in ("train", "validation")}
    main = configs[builder.DEFAULT_CONFIG_NAME]["data_files"][0]["path"]
    assert "sessions.jsonl" not in main and "episodes.jsonl" not in main   # never the merged view too


def test_metadata_fields():
    meta = card_metadata(DATASETS["kernelinfer"], num_rows=1899)
    assert meta["license"] == "mit" and meta["task_categories"] == ["text-generation"]
    assert meta["size_categories"] == ["1K<n<10K"] and "kernel-optimization" in meta["tags"]
    assert "size_categories" not in card_metadata(DATASETS["kernelswarm"])
    assert [size_category(n) for n in (0, 999, 1000, 24_000, 2_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "1M<n<10M"]


def test_card_prose_reports_stats_and_loading():
    text = render_card(DATASETS["kernelinfer"], STATS)
    front, body = text.split("---\n", 2)[1:]
    assert yaml.safe_load(front)["size_categories"] == ["1K<n<10K"]
    for needle in ("| sessions | 1,899 |", "| best_speedup | mean 13.4 · geomean 9.1 |",
                   "| step_statuses | ok 151,800 · compile_error 22,400 |",
                   'load_dataset("ORG/kernelinfer", "holdout", split="test")', "streaming=True",
                   "KernelInfer(config_name=\"sessions\", seed=0, num_sessions=100, num_holdout=10)", "apply_chat_template",
                   "## Provenance", "## Hardware targets", "`sm_90a`", "## Scope"):
        assert needle in body, needle
    assert "`params` | json" not in body  # nested fields are shown inside their struct
    assert "| `shape` | json (dict) |" in body
    many = {f"op{i}": i for i in range(10)}
    assert "| ops | op0 0 · op1 1 · " in render_card(DATASETS["kernelinfer"], {"ops": many})
    assert "| a.b | c 1 |" in render_card(DATASETS["kernelinfer"], {"a": {"b": {"c": 1}}})
    swarm = render_card(DATASETS["kernelswarm"], {"episodes": 30})
    assert '"agent_turns"' in swarm and "agent_view" not in swarm and "| episodes | 30 |" in swarm
