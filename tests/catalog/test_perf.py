"""The performance model: physics (never below the roofline) and published efficiency bands.

Bands cite docs/gpu_facts.md part 2; "best" is an exhaustive search over every variant legal on the
GPU and every launchable param combination, as a patient engineer would find it.
"""
import math

import numpy as np
import pytest

from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.catalog.perf import achieved, baseline_ms, roofline_ms, time_ms
from generator.catalog.tasks import Task, all_tasks, make_task
from generator.catalog.variants import launch_limits, legal_on, mma_decode_rows, variant, variants_for


def best(task):
    """(time_ms, tag, params) of the fastest launchable candidate."""
    found = []
    for v in variants_for(task.op, task.impl):
        if legal_on(v, task.gpu, task.dtype):
            for p in v.all_params():
                if launch_limits(v, p, task.gpu, task.dtype, task) is None:
                    found.append((time_ms(task, v, p), v.tag, p))
    return min(found, key=lambda f: f[0])


def test_property_no_time_below_roofline_and_no_illegal_offer():
    """10,000 random (task, variant, params) draws over all GPUs, dtypes and ops."""
    rng = np.random.default_rng(2026)
    tasks = all_tasks()
    gpus, dtypes, checked = set(), set(), 0
    for i in rng.integers(len(tasks), size=10_000):
        task = tasks[i]
        vs = variants_for(task.op, task.impl)
        v = vs[rng.integers(len(vs))]
        p = {k: vals[rng.integers(len(vals))] for k, vals in v.params.items()}
        t = time_ms(task, v, p)
        assert math.isfinite(t) and t >= roofline_ms(task), (task, v.tag, p)
        if legal_on(v, task.gpu, task.dtype):
            assert v.requires_for(task.dtype) <= GPUS[task.gpu].features
        gpus.add(task.gpu)
        dtypes.add(task.dtype)
        checked += 1
    assert checked == 10_000 and len(gpus) == 6 and dtypes == {"fp16", "bf16", "fp32", "fp8", "int8", "int4", "fp4"}


def test_roofline_is_physical():
    # The seed's impossible row: 8x32 heads x 4096 tokens x 128 dims fp16 must read ~537 MB: >= 0.16 ms on H100.
    t = make_task("flash_decode", "cuda", "h100", "fp16", {"B": 8, "H": 32, "D": 128, "T": 4096, "P": 16})
    assert 0.160 <= roofline_ms(t) < 0.17
    assert roofline_ms(make_task("flash_decode", "cuda", "h200", "fp16", t.shape_dict())) < roofline_ms(t)
    g = make_task("gemm_fp16", "cuda", "h100", "fp16", {"M": 4096, "N": 4096, "K": 4096})
    assert roofline_ms(g) == pytest.approx(2 * 4096 ** 3 / 989.4e12 * 1e3 + 0.0025)
    assert achieved(g, roofline_ms(g))["bound"] == "compute" and achieved(t, 1.0)["bound"] == "memory"


def test_time_is_deterministic_and_baseline_is_the_naive_default():
    t = make_task("rmsnorm", "cuda", "a100", "bf16", {"T": 4096, "H": 4096})
    naive = variants_for("rmsnorm", "cuda")[0]
    assert baseline_ms(t) == time_ms(t, naive, naive.default_params()) == baseline_ms(t)


# --- published bands -------------------------------------------------------------------------------------
FD_LONG = {"B": 32, "H": 8, "D": 128, "T": 8192, "P": 16}
GEMM_4K = {"M": 4096, "N": 4096, "K": 4096}
NORM_BIG = {"T": 16384, "H": 8192}


def test_flash_decode_h100_long_context_band():
    """FlashInfer: decode "bandwidth utilization close to 100%" at long KV; FlashMLA decode 3,000 GB/s ~ 90 % of
    3.35 TB/s (https://flashinfer.ai/2024/02/02/introduce-flashinfer.html, https://github.com/deepseek-ai/FlashMLA)."""
    t = make_task("flash_decode", "cuda", "h100", "fp16", FD_LONG)
    ms, _, _ = best(t)
    assert 0.80 <= achieved(t, ms)["bandwidth_frac"] <= 0.95
    assert 5 <= baseline_ms(t) / ms <= 30


def test_gemm_fp16_4096_h100_band():
    """cuBLAS BF16 on H100 SXM: 741 TFLOPS at 6144^3 (74.9 %), 798 at 8192^3 (80.6 %); hand wgmma+TMA 81.6 %
    (https://github.com/pranjalssh/fast.cu)."""
    t = make_task("gemm_fp16", "cuda", "h100", "fp16", GEMM_4K)
    ms, tag, _ = best(t)
    assert 0.65 <= achieved(t, ms)["compute_frac"] <= 0.82
    assert tag in ("wgmma_tma", "persistent")
    assert 0.008 <= _naive_fp32_frac(t) <= 0.06


def _naive_fp32_frac(task):
    """The naive baseline's TFLOPS as a fraction of the GPU's fp32 CUDA-core peak."""
    return achieved(task, baseline_ms(task))["tflops"] / GPUS[task.gpu].fp32_tflops


def test_rmsnorm_h100_band():
    """QuACK RMSNorm/softmax on H100: ~3.0 TB/s, 89.7 % of 3.35 TB/s
    (https://github.com/Dao-AILab/quack, media/2025-07-10-membound-sol.md)."""
    t = make_task("rmsnorm", "cuda", "h100", "fp16", NORM_BIG)
    ms, _, _ = best(t)
    assert 0.80 <= achieved(t, ms)["bandwidth_frac"] <= 0.92
    assert 5 <= baseline_ms(t) / ms <= 30


def test_fp8_gemm_h100_band():
    """DeepGEMM FP8 on H800 (same tensor peak as H100 SXM): 1,350 -> 1,550 TFLOPS = 68-78 % of 1,979
    (https://github.com/deepseek-ai/DeepGEMM)."""
    t = make_task("fp8_gemm", "cuda", "h100", "fp8", {"M": 8192, "N": 8192, "K": 8192})
    ms, _, _ = best(t)
    assert 0.68 <= achieved(t, ms)["compute_frac"] <= 0.78


def test_gemm_fp16_a100_band():
    """cuBLAS-class FP16 GEMM on A100: ~270-290 of 312 TFLOPS at large sizes (issue #15; torch FP16 matmul 230 at
    its benchmark's size, https://github.com/fanghostt/transformers-benchmarks); 4096^3 loses a little to waves."""
    t = make_task("gemm_fp16", "cuda", "a100", "fp16", GEMM_4K)
    ms, _, _ = best(t)
    assert 0.74 <= achieved(t, ms)["compute_frac"] <= 0.9
    big = make_task("gemm_fp16", "cuda", "a100", "fp16", {"M": 8192, "N": 8192, "K": 8192})
    assert 270 <= achieved(big, best(big)[0])["tflops"] <= 290
    assert 0.008 <= _naive_fp32_frac(t) <= 0.06


def test_flash_decode_a10_band():
    """A10 GDDR6: ECC costs 10-15 % of spec bandwidth (https://github.com/IST-DASLab/marlin_artifact), and decode
    kernels reach close to all of what is left (FlashInfer), so at best 70-90 % of 600 GB/s."""
    t = make_task("flash_decode", "cuda", "a10", "fp16", FD_LONG)
    ms, _, _ = best(t)
    assert 0.70 <= achieved(t, ms)["bandwidth_frac"] <= 0.90


def test_mma_sync_on_hopper_is_capped():
    """mma.sync on Hopper reaches ~65 % of tensor peak (Luo et al., https://arxiv.org/abs/2402.13499)."""
    t = make_task("gemm_fp16", "cuda", "h100", "fp16", {"M": 8192, "N": 8192, "K": 8192})
    v = variant("gemm", "cp_async_pipeline", "cuda")
    fastest = min(time_ms(t, v, p) for p in v.all_params() if launch_limits(v, p, "h100", "fp16") is None)
    assert achieved(t, fastest)["compute_frac"] <= 0.65


# --- tuning has interior optima ----------------------------------------------------------------------------
def test_split_kv_has_an_interior_optimum_for_a_small_batch():
    """Each SPLITS at its best other tunables: more splits fill the SMs (the CUDA-core dot products want many
    CTAs at 4 warps), too many pay for partials and waves."""
    t = make_task("flash_decode", "cuda", "h100", "fp16", {"B": 1, "H": 32, "D": 128, "T": 32768, "P": 16})
    v = variant("attn_decode", "split_kv", "cuda")
    times = {}
    for p in v.all_params():
        if launch_limits(v, p, "h100", "fp16", t) is None:
            times[p["SPLITS"]] = min(times.get(p["SPLITS"], math.inf), time_ms(t, v, p))
    best_s = min(times, key=times.get)
    assert min(v.params["SPLITS"]) < best_s < max(v.params["SPLITS"])


def test_pipeline_depth_and_tile_shape_trade_off():
    t = make_task("gemm_fp16", "cuda", "a100", "fp16", GEMM_4K)
    v = variant("gemm", "cp_async_pipeline", "cuda")
    p = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "NUM_WARPS": 4}
    stages = {s: time_ms(t, v, {**p, "NUM_STAGES": s}) for s in v.params["NUM_STAGES"]}
    assert stages[2] > stages[3]                       # deeper pipelines hide latency ...
    small = time_ms(t, v, {**p, "BLOCK_M": 64, "BLOCK_N": 64, "NUM_STAGES": 3})
    assert small > stages[3]                           # ... and bigger tiles reuse operands
    skinny = make_task("splitk_gemm", "cuda", "h100", "fp16", {"M": 16, "N": 4096, "K": 14336})
    sk = variant("gemm", "split_k", "cuda")
    q = {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "NUM_WARPS": 4, "NUM_STAGES": 4}
    assert time_ms(skinny, sk, {**q, "SPLIT_K": 4}) < time_ms(skinny, sk, {**q, "SPLIT_K": 2})


def test_every_task_has_a_launchable_variant_that_beats_its_baseline():
    for t in all_tasks()[::97]:
        ms, _, _ = best(t)
        assert roofline_ms(t) <= ms <= baseline_ms(t), t


def test_triton_split_row_pays_a_row_read_per_split_for_its_statistics():
    """Each of split_row's SPLITS programs computes its row's threshold over the whole row (only the draw is split),
    so every sampler's row-max pass alone reads the row once per split: where the logits do not fit in L2, going
    from 4 to 32 splits costs at least 28 more reads of them at peak DRAM bandwidth (0.6.3 timed 32 splits faster,
    as if each program read only its slice)."""
    checked = 0
    for task in all_tasks(["topk_sample", "nucleus_sample", "minp_sample"]):
        gpu, shape = GPUS[task.gpu], task.shape_dict()
        logits = shape["B"] * shape["V"] * 4
        if task.impl != "triton" or logits <= gpu.l2_mb * 2**20:
            continue
        v = variant("sampler", "split_row", "triton")
        p = v.default_params()
        added = time_ms(task, v, {**p, "SPLITS": 32}) - time_ms(task, v, {**p, "SPLITS": 4})
        assert added >= 28 * logits / (gpu.dram_gbps * 1e9) * 1e3, (task, added)
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("op", ["mla_decode", "tree_attn"])
def test_cuda_many_query_decode_below_hopper_is_best_on_mma_sync_near_tritons_time(op):
    """Triton's tl.dot puts these ops' query rows on tensor cores; below Hopper CUDA had only CUDA-core dot products
    (0.6.5: best CUDA time ~10x Triton's, every session under 20 % of roofline). mma_sync gives CUDA the same path."""
    shape = OPS[op].shapes[0]
    for gpu in ("a100", "a10", "rtx_5090"):
        ms, tag, _ = best(make_task(op, "cuda", gpu, "fp16", shape))
        assert tag == "mma_sync", (gpu, tag)
        assert 0.5 <= ms / best(make_task(op, "triton", gpu, "fp16", shape))[0] <= 1.5, gpu


@pytest.mark.parametrize("gpu", ["a100", "a10", "rtx_5090", "h100"])
@pytest.mark.parametrize("warps", [4, 8])
def test_mma_sync_decode_rows_past_the_queries_are_idle_warps(gpu, warps):
    """A CUDA mma_sync decode block's warps own fixed 16-row tiles (`mma_decode_rows`, the template's Tiles::QN): with
    fewer query rows per KV stream than QN, the tile's tensor-core work is done all the same (tree_attn N = 16 at
    QN = 64: 3 of 4 warps idle). Two MLA tasks that differ only in heads, QN / 4 and QN, have one block per KV
    stream each, the same KV stream and 4x the flops apart: the same compute time, so the larger takes no longer
    than the smaller's time scaled by their bytes (the extra q / o rows). Timing only the query rows would make
    the smaller's compute a quarter of the larger's, and the larger slower than that bound."""
    v = variant("attn_decode", "mma_sync", "cuda")
    op, shape = OPS["mla_decode"], OPS["mla_decode"].shapes[0]
    p = {**v.default_params(), "NUM_WARPS": warps, "SPLITS": 1}     # one pass: no partials, no merge
    rows = mma_decode_rows(p, op.dims(shape))
    few, full = ({**shape, "H": heads} for heads in (rows // 4, rows))
    assert op.flops(full, "fp16") == 4 * op.flops(few, "fp16")
    t_few, t_full = (time_ms(Task("mla_decode", "cuda", gpu, "fp16", tuple(s.items())), v, p) for s in (few, full))
    assert t_few <= t_full <= t_few * op.bytes_moved(full, "fp16") / op.bytes_moved(few, "fp16")
