"""Variant taxonomy: tags and tunables, arch gating, resources and launch limits."""
import re

import pytest

from generator.catalog.hardware import GPUS
from generator.catalog.ops import DTYPES, OPS
from generator.catalog.tasks import all_tasks, make_task, model_tasks
from generator.catalog.variants import (KERNEL_CLASSES, VARIANTS, check_params, launch_limits, legal_on, variant,
                                variants_for)
from generator.kernels import full_params

# Arch rules from DESIGN.md "Realism rules", stated independently of hardware.py's feature sets.
WGMMA_ARCHS = {"sm_90a"}
TMA_ARCHS = {"sm_90a", "sm_120a"}



def test_every_op_and_impl_starts_naive_and_climbs():
    for op in OPS.values():
        for impl in op.impls:
            vs = variants_for(op.name, impl)
            assert vs[0].level == 0 and vs[0].tag == "naive", (op.name, impl)
            assert [v.level for v in vs] == sorted(v.level for v in vs)
            assert len(vs) >= (3 if impl == "cuda" else 2), (op.name, impl)
    assert set(KERNEL_CLASSES) == {op.kernel_class for op in OPS.values()}


def test_params_are_upper_snake_with_the_default_first():
    for v in VARIANTS:
        assert len(v.impls) == 1
        for name, values in v.params.items():
            assert re.fullmatch(r"[A-Z][A-Z0-9_]*", name), (v.tag, name)
            assert len(values) == len(set(values)) >= 1
        assert v.all_params()[0] == v.default_params()
        check_params(v, v.default_params())


def test_check_params_rejects_unknown_or_illegal_values():
    v = variant("gemm", "cp_async_pipeline", "cuda")
    with pytest.raises(ValueError, match="NUM_STAGES=9"):
        check_params(v, {**v.default_params(), "NUM_STAGES": 9})
    with pytest.raises(ValueError, match="tunables"):
        check_params(v, {"BLOCK_M": 128})


def test_triton_variants_never_ask_for_what_triton_picks_itself():
    for v in VARIANTS:
        if "triton" in v.impls:
            assert not v.requires & {"wgmma", "tma", "cp_async", "clusters"}, v.tag
            assert not re.search("wgmma|tma|cp_async|mma_sync", v.tag)


def test_no_variant_is_offered_on_a_gpu_without_its_features():
    for v in VARIANTS:
        for g in GPUS.values():
            for dtype in DTYPES:
                if not legal_on(v, g, dtype):
                    continue
                needs = v.requires_for(dtype)
                assert needs <= g.features
                if "wgmma" in v.tag or "wgmma" in needs:
                    assert g.arch in WGMMA_ARCHS, (v.tag, g.name)
                if "tma" in v.tag or "tma" in needs:
                    assert g.arch in TMA_ARCHS, (v.tag, g.name)
                if v.tc and dtype == "fp8" and v.tag != "dequant_mma":
                    assert g.cc >= 89, (v.tag, g.name)
                if v.tc and dtype == "fp4" and v.tag != "dequant_mma":
                    assert g.arch == "sm_120a", (v.tag, g.name)
                if "triton" in v.impls and dtype == "fp8":
                    assert g.cc >= 89


def test_gating_examples():
    wg = variant("gemm", "wgmma_tma", "cuda")
    assert legal_on(wg, "h100", "fp16") and not legal_on(wg, "rtx_5090", "fp16") and not legal_on(wg, "a100", "fp16")
    mma = variant("gemm", "mma_sync", "cuda")
    assert legal_on(mma, "rtx_5090", "fp4") and not legal_on(mma, "h100", "fp4") and not legal_on(mma, "a100", "fp8")
    deq = variant("gemm", "dequant_mma", "cuda")
    assert legal_on(deq, "a100", "fp8") and not legal_on(deq, "a100", "fp16")
    assert legal_on(variant("rownorm", "cluster_reduce", "cuda"), "rtx_5090", "fp16")      # clusters on sm_120a
    assert not legal_on(variant("rownorm", "cluster_reduce", "cuda"), "a100", "fp16")


def test_resources_depend_on_params_dtype_and_shape():
    v = variant("gemm", "cp_async_pipeline", "cuda")
    p = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_WARPS": 4, "NUM_STAGES": 4}
    assert v.smem_bytes(p, "fp16") == 4 * 256 * 64 * 2 == 2 * v.smem_bytes(p, "fp8")
    assert v.threads(p) == 128 and v.regs_per_thread(p, "fp16") == 40 + 128 * 128 // 128
    dec = variant("attn_decode", "cp_async_pipeline", "cuda")
    q = {"BLOCK_N": 64, "NUM_STAGES": 2, "NUM_WARPS": 4}
    mla = make_task("mla_decode", "cuda", "h100", "bf16", OPS["mla_decode"].shapes[0])
    fd = make_task("flash_decode", "cuda", "h100", "bf16", OPS["flash_decode"].shapes[0])
    assert dec.smem_bytes(q, "bf16", mla) == 2 * 64 * 576 * 2 and dec.smem_bytes(q, "bf16", fd) == 2 * 64 * 128 * 2 * 2


def test_launch_limits_speak_like_the_tools():
    cuda = variant("gemm", "cp_async_pipeline", "cuda")
    p = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_WARPS": 4, "NUM_STAGES": 4}  # 131072 B
    assert launch_limits(cuda, p, "h100", "fp16") is None
    assert launch_limits(cuda, p, "a100", "fp16") is None
    assert "invalid argument" in launch_limits(cuda, p, "a10", "fp16")
    assert "invalid argument" in launch_limits(cuda, p, "rtx_5090", "fp16")
    tri = variant("gemm", "pipelined", "triton")
    msg = launch_limits(tri, {**p, "NUM_STAGES": 4}, "rtx_a6000", "fp16")
    assert msg.startswith("out of resource: shared memory, Required: 131072, Hardware limit: 101376")
    big = {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "NUM_WARPS": 8, "NUM_STAGES": 6}  # 589,824 B
    assert "invalid argument" in launch_limits(variant("gemm", "wgmma_tma", "cuda"), big, "h100", "fp16")


def test_a_variant_every_catalog_gpu_runs_launches_its_defaults_on_every_task():
    """An engineer's first configuration of a variant written for every GPU (sm_80+: cp.async, or none) fits each of
    them at every shape of the pool: 0.6.6's mma_sync default asked 175,056 B of MLA, over A100's 163 KB, and
    cp_async_pipeline / split_kv's 147,456 B, over the 99 KB opt-ins. (TMA variants default to Hopper's figures.)"""
    checked = set()
    for task in all_tasks() + model_tasks():
        for v in variants_for(task.op, task.impl, task.dtype):
            if all(legal_on(v, gpu, task.dtype) for gpu in GPUS):
                reason = launch_limits(v, full_params(v, v.default_params()), task.gpu, task.dtype, task)
                assert reason is None, (task, v.tag, reason)
                checked.add((v.kernel_class, v.tag, task.impl))
    assert ("attn_decode", "mma_sync", "cuda") in checked and ("scan", "cp_async_pipeline", "cuda") in checked


def test_dynamic_smem_limits_fail_somewhere_and_registers_never_without_a_task():
    """A register refusal needs ptxas's record for the task's render (tests/kernels/test_resources.py)."""
    reasons = set()
    for v in VARIANTS:
        if "cuda" not in v.impls:
            continue
        for p in v.all_params():
            r = launch_limits(v, p, "h100", "fp16")
            if r:
                reasons.add(r.split(":")[0])
    assert "invalid argument" in reasons and "too many resources requested for launch" not in reasons


def test_the_docstring_table_lists_every_variant_with_its_params():
    import generator.catalog.variants as mod
    doc = mod.__doc__
    for v in VARIANTS:
        assert re.search(rf"\b{v.level} {v.tag} +{' '.join(v.params)}(\s|$)", doc), (v.kernel_class, v.tag)
