"""The compute-bound CUDA templates (gemm, gemv, attn_prefill) against the catalog and real nvcc.

Rendering covers every op x variant x dtype x GPU where the variant is legal. Compiling covers every variant
of every class once (ops, dtypes and GPUs rotate), plus the dtype-specific tensor-core paths (int8, fp8,
fp8 blockwise, fp4 block-scaled, int4 and MoE), batched through the audit's nvcc driver. Arch-specific
variants rendered for a GPU without the feature must fail in ptxas, as the real mistake does.
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

pytestmark = pytest.mark.compiler   # real nvcc / Triton compiles: `pytest -m "not compiler"` leaves them out

CLASSES = ("gemm", "gemv", "attn_prefill")   # conv has its own owner and tests
COMPUTE_OPS = tuple(name for name, op in OPS.items() if op.kernel_class in CLASSES and "cuda" in op.impls)
needs_nvcc = pytest.mark.skipif(nvcc_path() is None, reason="nvcc not found: CUDA template compile checks skipped")


def _task(op: str, gpu: str, dtype: str | None = None, shape: int = 0) -> Task:
    o = OPS[op]
    return Task(op, "cuda", gpu, dtype or o.dtypes[0], tuple(o.shapes[shape].items()))


CASES = [(op, v) for op in COMPUTE_OPS for v in variants_for(op, "cuda")]


def test_every_legal_combination_renders_a_complete_unit():
    count = 0
    for op, v in CASES:
        for dtype in OPS[op].dtypes:
            for gpu in GPUS:
                if not legal_on(v, gpu, dtype):
                    continue
                src = render(_task(op, gpu, dtype), v, {})
                where = f"{op}/{v.tag}/{dtype}/{gpu}"
                assert "{{" not in src.text, where
                assert re.search(rf"__global__ void (__launch_bounds__\([^)]*\) )?{op}_{v.tag}\(", src.text), where
                assert f"void launch_{op}(" in src.text, where
                assert 2_000 <= len(src.text) <= 24_000, f"{where}: {len(src.text)} bytes"
                if v.tag in ("wgmma_tma", "persistent"):
                    assert "wgmma.mma_async" in src.text and "cp.async.bulk.tensor" in src.text, where
                count += 1
    assert count > 350


@pytest.mark.parametrize("op,v", CASES, ids=[f"{op}-{v.tag}" for op, v in CASES])
def test_tuning_step_changes_only_its_constant_line(op, v):
    gpu = next((g for g in GPUS if legal_on(v, g, OPS[op].dtypes[0])), "h100")   # fp4 + wgmma: legal nowhere
    base = render(_task(op, gpu), v, {}).text.splitlines()
    for name, values in v.params.items():
        if len(values) < 2:
            continue
        tuned = render(_task(op, gpu), v, {name: values[1]}).text.splitlines()
        changed = [ln for ln in difflib.unified_diff(base, tuned, lineterm="", n=0)
                   if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        assert changed == [f"-constexpr int {name} = {values[0]};", f"+constexpr int {name} = {values[1]};"], \
            (v.tag, name)


def _legal_gpu(v, dtype: str, index: int) -> str | None:
    gpus = [g for g in ("a100", "a10", "h100", "rtx_5090") if legal_on(v, g, dtype)]
    return gpus[index % len(gpus)] if gpus else None


# (op, tag, dtype, gpu): tensor-core paths the rotation alone might miss.
DTYPE_PATHS = (
    ("fp4_gemm", "mma_sync", "fp4", "rtx_5090"),          # block-scaled mxf4nvf4 mma on sm_120a
    ("fp4_gemm", "cp_async_pipeline", "fp4", "rtx_5090"), # the 5090's stated arch sm_120a: not only mma_sync
    ("fp4_gemm", "split_k", "fp4", "rtx_5090"),
    ("fp4_gemm", "dequant_mma", "fp4", "a10"),
    ("fp8_gemm", "cp_async_pipeline", "fp8", "rtx_5090"),  # e4m3 mma.sync
    ("fp8_blockwise_gemm", "wgmma_tma", "fp8", "h100"),    # per-k-block promotion
    ("int8_gemm", "wgmma_tma", "int8", "h200"),            # s8 wgmma, s32 accumulators
    ("int4_gemm", "persistent", "int4", "h100"),           # int4 widened by the producer warpgroup
    ("moe_grouped_gemm", "split_k", "fp8", "h100"),
    ("int4_gemv", "vectorized", "int4", "a10"),
)

# (op, tag, dtype, gpu, text the first ptxas error must contain): the arch mistakes.
GATED = (
    ("gemm_fp16", "wgmma_tma", "fp16", "a100", "requires .target sm_90"),
    ("gemm_fp16", "persistent", "bf16", "rtx_5090", "not supported on .target 'sm_120a'"),
    ("fp8_gemm", "mma_sync", "fp8", "a100", "requires .target sm_89 or higher"),
    ("fp4_gemm", "cp_async_pipeline", "fp4", "h100", "not supported on .target 'sm_90a'"),
    ("flash_prefill", "tma_pipeline", "fp16", "a10", "requires .target sm_90"),
)


@needs_nvcc
def test_templates_compile_for_their_gpus_and_arch_gated_ones_fail_in_ptxas():
    legal = []
    for i, cls in enumerate(CLASSES):
        ops = [op for op in COMPUTE_OPS if OPS[op].kernel_class == cls]
        tags = dict.fromkeys(v.tag for op in ops for v in variants_for(op, "cuda"))
        for j, tag in enumerate(tags):
            candidates = [op for op in ops if any(v.tag == tag for v in variants_for(op, "cuda"))]
            op = candidates[(i + j) % len(candidates)]
            v = variant(cls, tag, "cuda")
            dtypes = [d for d in OPS[op].dtypes if _legal_gpu(v, d, 0)]
            dtype = dtypes[j % len(dtypes)]
            legal.append(render(_task(op, _legal_gpu(v, dtype, i + j), dtype, j % len(OPS[op].shapes)), v, {}))
    for op, tag, dtype, gpu in DTYPE_PATHS:
        v = variant(OPS[op].kernel_class, tag, "cuda")
        assert legal_on(v, gpu, dtype), (op, tag, gpu)
        legal.append(render(_task(op, gpu, dtype), v, {}))
    gated = []
    for op, tag, dtype, gpu, _ in GATED:
        v = variant(OPS[op].kernel_class, tag, "cuda")
        assert not legal_on(v, gpu, dtype), (op, tag, gpu)
        gated.append(render(_task(op, gpu, dtype), v, {}))

    outcomes = compile_cuda(legal + gated, modes=["ok"] * len(legal) + ["alone"] * len(gated), batch_size=8)

    failed = [f"{s.filename} ({s.compile_arch}): {o.first}" for s, o in zip(legal, outcomes) if o.status != "ok"]
    assert not failed, "\n".join(failed)
    for src, outcome, (*_, expected) in zip(gated, outcomes[len(legal):], GATED):
        assert outcome.status == "compile_error" and outcome.tool == "ptxas", (src.filename, outcome.first)
        assert expected in outcome.first, (src.filename, src.compile_arch, outcome.first)
