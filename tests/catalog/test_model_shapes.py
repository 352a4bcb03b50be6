"""Model-configuration shapes: cited, new, used only past the catalog's pool, and simulated rows at them pass
QA and the validator."""
from __future__ import annotations

from pathlib import Path

from generator.catalog.ops import OPS
from generator.catalog.tasks import model_tasks
from generator.kernelinfer.dataset import BENCHMARK_SIZE, split
from generator.catalog import models
from generator.scale import shape_check

DOC = Path(__file__).resolve().parents[2] / "docs" / "MODEL_SHAPES.md"


def test_every_model_is_cited_in_the_code_and_the_docs():
    doc = DOC.read_text()
    for m in models.MODELS:
        assert m.source.startswith("https://huggingface.co/") and m.source.endswith("config.json")
        assert f"| {m.name} |" in doc and m.source in doc


def test_model_shapes_are_new_groups_for_attention_mlp_moe_and_ssm_ops():
    ops = {t.op for t in model_tasks()}
    assert {"flash_decode", "flash_prefill", "swiglu_act", "gemm_fp16", "moe_topk_gating", "mamba_step"} <= ops
    for t in model_tasks():
        assert t.shape_dict() not in OPS[t.op].shapes
        assert list(t.shape_dict()) == list(OPS[t.op].shapes[0])      # the op's own keys, in order


def test_model_tasks_join_training_only_past_the_catalog_pool():
    model = set(model_tasks())
    assert not model & set(split(0, 1899, BENCHMARK_SIZE).train)
    assert len(model & set(split(0, 20_000, BENCHMARK_SIZE).train)) > 5_000


def test_a_sample_of_model_shapes_passes_qa_and_the_validator(tmp_path):
    tasks = shape_check.representatives(every=40)
    assert len(tasks) >= 15
    assert shape_check.check(tasks, tmp_path / "sample.jsonl") == []
