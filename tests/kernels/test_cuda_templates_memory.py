"""The memory-bound CUDA templates (attn_decode, rownorm, elementwise, gather, sampler, scan) against real nvcc.

Rendering covers every op x variant x dtype x GPU where the variant is legal; compiling covers every
(op, variant) once, rotating through GPUs, dtypes and shapes, batched through the audit's nvcc driver. Variants that need sm_90 features (TMA, clusters) are also built for an Ampere GPU, where ptxas must
reject them the way it rejects the real arch mistake.
"""
from __future__ import annotations

import difflib
import re
import pytest

from generator.catalog.hardware import GPUS
from generator.kernels import render
from generator.kernels.compilers import compile_cuda, nvcc_path
from generator.catalog.ops import OPS
from generator.catalog.tasks import Task
from generator.catalog.variants import legal_on, variant, variants_for
from generator.kernels import Source

pytestmark = pytest.mark.compiler   # real nvcc / Triton compiles: `pytest -m "not compiler"` leaves them out

CLASSES = ("attn_decode", "rownorm", "elementwise", "gather", "sampler", "scan")
MEMORY_OPS = tuple(name for name, op in OPS.items() if op.kernel_class in CLASSES and "cuda" in op.impls)
needs_nvcc = pytest.mark.skipif(nvcc_path() is None, reason="nvcc not found: CUDA template compile checks skipped")


def _task(op: str, gpu: str, dtype: str | None = None, shape: int = 0) -> Task:
    o = OPS[op]
    return Task(op, "cuda", gpu, dtype or o.dtypes[0], tuple(o.shapes[shape].items()))


def _cases():
    """Every (op, variant) pair of the six classes."""
    return [(op, v) for op in MEMORY_OPS for v in variants_for(op, "cuda")]


CASES = _cases()


def test_every_legal_combination_renders_a_complete_unit():
    count = 0
    for op in MEMORY_OPS:
        for variant in variants_for(op, "cuda"):
            for dtype in OPS[op].dtypes:
                for gpu in GPUS:
                    if not legal_on(variant, gpu, dtype):
                        continue
                    src = render(_task(op, gpu, dtype), variant, {})
                    where = f"{op}/{variant.tag}/{dtype}/{gpu}"
                    assert "{{" not in src.text, where
                    assert re.search(rf"__global__ void {op}_kernel\(", src.text), where
                    assert f"void launch_{op}(" in src.text, where
                    assert 2_500 <= len(src.text) <= 24_000, f"{where}: {len(src.text)} bytes"
                    count += 1
    assert count > 300


@pytest.mark.parametrize("op,variant", CASES, ids=[f"{op}-{v.tag}" for op, v in CASES])
def test_tuning_step_changes_only_its_constant_line(op, variant):
    gpu = next(g for g in ("h100", "a100") if legal_on(variant, g, OPS[op].dtypes[0]))
    base = render(_task(op, gpu), variant, {}).text.splitlines()
    for name, values in variant.params.items():
        if len(values) < 2:
            continue
        tuned = render(_task(op, gpu), variant, {name: values[1]}).text.splitlines()
        changed = [ln for ln in difflib.unified_diff(base, tuned, lineterm="", n=0)
                   if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        assert changed == [f"-#define {name} {values[0]}", f"+#define {name} {values[1]}"], (variant.tag, name)


def _legal_gpu(variant, dtype: str, index: int) -> str:
    gpus = [g for g in ("a100", "a10", "h100", "rtx_5090") if legal_on(variant, g, dtype)]
    return gpus[index % len(gpus)]


@needs_nvcc
def test_templates_compile_for_their_gpus_and_arch_gated_ones_fail_in_ptxas():
    legal, gated, gated_tags = [], [], set()
    for i, (op, variant) in enumerate(CASES):
        dtype = OPS[op].dtypes[i % len(OPS[op].dtypes)]
        shape = i % len(OPS[op].shapes)
        legal.append(render(_task(op, _legal_gpu(variant, dtype, i), dtype, shape), variant, {}))
        if variant.requires & {"tma", "clusters"} and variant.tag not in gated_tags:
            gated_tags.add(variant.tag)
            gated.append(render(_task(op, "a10" if i % 2 else "a100", dtype, shape), variant, {}))
    outcomes = compile_cuda(legal + gated, modes=["ok"] * len(legal) + ["alone"] * len(gated), batch_size=8)

    failed = [f"{s.filename} ({s.compile_arch}): {o.first}" for s, o in zip(legal, outcomes) if o.status != "ok"]
    assert not failed, "\n".join(failed)
    for src, outcome in zip(gated, outcomes[len(legal):]):
        assert outcome.status == "compile_error" and outcome.tool == "ptxas", (src.filename, outcome.first)
        assert "requires .target sm_90 or higher" in outcome.first, (src.filename, outcome.first)
    assert len(gated) >= 3


MANY_QUERY_DECODE = ("mla_decode", "tree_attn")   # several query rows per KV stream: an mma's 16 rows to fill
_MMA_TYPE = {"fp16": "f16", "bf16": "bf16"}


def test_mma_sync_decode_is_offered_for_the_many_query_ops_wherever_cp_async_is():
    """Below Hopper, CUDA mla_decode / tree_attn had no tensor-core variant (wgmma_tma needs sm_90): mma_sync is
    their sm_80+ one (cp.async, every catalog GPU), for those two ops only, timed on tensor cores."""
    v = variant("attn_decode", "mma_sync", "cuda")
    offered = {op for op in MEMORY_OPS if OPS[op].kernel_class == "attn_decode" and v in variants_for(op, "cuda")}
    assert offered == set(MANY_QUERY_DECODE)
    assert v.requires == {"cp_async"} and all(legal_on(v, g, d) for g in GPUS for d in ("fp16", "bf16"))
    assert all(v.tensor_cores(op) for op in MANY_QUERY_DECODE)


@needs_nvcc
def test_mma_sync_decode_compiles_for_every_op_dtype_and_arch_with_the_modelled_shared_memory():
    """Each (op, dtype, arch) renders m16n8k16 mma.sync of its dtype fed by cp.async (no wgmma), and nvcc builds
    it with a static_assert that the template's shared memory is the model's figure (`Variant.smem_bytes`)."""
    v = variant("attn_decode", "mma_sync", "cuda")
    sources = []
    for i, op in enumerate(MANY_QUERY_DECODE):
        struct = {"mla_decode": "MlaDecode", "tree_attn": "TreeAttn"}[op]
        for dtype in OPS[op].dtypes:
            for j, gpu in enumerate(("a100", "a10", "h100", "rtx_5090")):
                params = v.all_params()[(i + 7 * j) % len(v.all_params())]
                task = _task(op, gpu, dtype, j % len(OPS[op].shapes))
                src = render(task, v, params)
                assert f"mma.sync.aligned.m16n8k16.row.col.f32.{_MMA_TYPE[dtype]}" in src.text, (op, dtype)
                assert "cp.async.cg.shared.global" in src.text and "wgmma" not in src.text, (op, dtype)
                check = f"\nstatic_assert(Tiles<{struct}>::SMEM == {v.smem_bytes(params, dtype, task)}, \"smem\");\n"
                sources.append(Source(src.text + check, src.filename, "cuda", src.compile_arch))
    assert {s.compile_arch for s in sources} == {"sm_80", "sm_86", "sm_90a", "sm_120a"}
    outcomes = compile_cuda(sources, modes=["ok"] * len(sources), batch_size=8)
    failed = [f"{s.filename} ({s.compile_arch}): {o.first}" for s, o in zip(sources, outcomes) if o.status != "ok"]
    assert not failed, "\n".join(failed)
