"""The validation split: a fixed rule over whole (op, gpu) families, so for every seed and size it is disjoint
from training and from the held-out benchmark, names the same families, and holds about 5 % of the rows."""
from __future__ import annotations

import pytest

from generator.catalog import validation
from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.kernelinfer.dataset import BENCHMARK_SIZE, split
from generator.kernelswarm.plan import plan

SEEDS = (0, 1, 2, 3)


# Rule v1's families, written out: a change of the hash, its input or the fraction must come as a new version.
V1_FAMILIES = frozenset({
    ("embedding_gather", "rtx_a6000"), ("flash_decode", "h200"), ("fp8_gemm", "h100"), ("gemm_fp16", "rtx_a6000"),
    ("int8_gemm", "a10"), ("kv_append", "rtx_a6000"), ("logits_softmax", "h100"), ("logits_softmax", "rtx_a6000"),
    ("mamba_scan", "rtx_5090"), ("mla_decode", "rtx_5090"), ("rope", "rtx_a6000"), ("splitk_gemm", "rtx_a6000"),
    ("topk_sample", "rtx_a6000")})


def test_rule_is_fixed_and_whole_families():
    families = validation.families()
    assert validation.VERSION == "v1" and families == V1_FAMILIES
    assert len(families) == round(validation.FRACTION * len(OPS) * len(GPUS))
    op, gpu = sorted(families)[0]
    assert validation.split_of({"op": op, "gpu": gpu, "shape": {"M": 1}}) == "validation"
    assert validation.split_of({"op": op, "gpu": next(g for g in GPUS if (op, g) not in families)}) == "train"


@pytest.mark.parametrize("size", [150, 1899, 20_000])
def test_kernelinfer_validation_is_disjoint_from_train_and_benchmark(size):
    held = {t.group() for t in split(0, 150, BENCHMARK_SIZE).holdout}
    shares = []
    for seed in SEEDS:
        s = split(seed, size, BENCHMARK_SIZE)
        val = [t for t in s.train if validation.split_of({"op": t.op, "gpu": t.gpu}) == validation.SPLIT]
        assert not {t.group() for t in val} & held          # no validation task is a benchmark task
        shares.append(len(val) / size)
    if size >= 1899:
        assert all(0.03 <= share <= 0.08 for share in shares), shares


@pytest.mark.parametrize("size", [150, 2400, 20_000])
def test_kernelswarm_validation_is_disjoint_from_train_and_benchmark(size):
    held = {t.group() for t in plan(0, 150, 100).holdout}
    for seed in SEEDS:
        tasks = [t for t, _ in plan(seed, size, 100).episodes]
        val = [t for t in tasks if validation.split_of({"op": t.op, "gpu": t.gpu}) == validation.SPLIT]
        assert not {t.group() for t in val} & held          # no validation task is a benchmark task
        if size >= 2400:
            assert val                                      # the rule reaches every seed's data
