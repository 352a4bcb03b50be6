"""Published measurements the performance model is anchored to: ladders, ceilings and timing noise.

Why one module: every figure the model uses to say "a kernel of this kind reaches X % of peak" is here, next to
its source, so a reviewer can check each against docs/calibration.md (the same table with how it maps) and a
change of anchor is one line. perf.py turns these into times; the workbench enforces the ceilings and the noise.
"""
from __future__ import annotations

import math

# ---------------------------------------------------------------------------------- CUDA-core GEMM ladder
# siboehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance" (https://siboehm.com/articles/22/
# CUDA-MMM), SGEMM 4092^2 fp32 on an RTX A6000 (38.7 TFLOPS fp32 peak): naive 309 GFLOPS, global-memory
# coalescing 1,987, shared-memory blocking 2,980, 1D block-tiling 8,475, 2D block-tiling 15,972, vectorized
# 18,237, warp-tiling 21,779, cuBLAS 23,250. As fractions of the fp32 peak:
A6000_FP32_TFLOPS = 38.7
SGEMM_LADDER_GFLOPS = {"naive": 309, "coalesced": 1987, "smem": 2980, "blocktile_1d": 8475, "blocktile_2d": 15972,
                       "vectorized": 18237, "warptile": 21779, "cublas": 23250}


def sgemm_frac(rung: str) -> float:
    """A rung of the SGEMM ladder as a fraction of the GPU's fp32 CUDA-core peak."""
    return SGEMM_LADDER_GFLOPS[rung] / (A6000_FP32_TFLOPS * 1e3)


# The naive templates' loop body is one global load per FMA with no reuse through shared memory; what limits them
# is how many 32-byte sectors a warp's load touches. gemm/naive.cu reads B[n * K + k] with n = threadIdx.x: 32
# sectors per warp load (siboehm's kernel 1, uncoalesced); with 2-byte operands a sector holds twice the
# elements a thread walks through before leaving it, so fp16 gets twice the fp32 figure, 1.6 % of peak.
# attn_prefill/naive.cu and conv/naive.cu read the K/V row or filter tap every thread of a warp shares (one
# broadcast sector per load: siboehm's kernel 2, coalesced), 5.1 % of peak.
def naive_uncoalesced_frac(element_bytes: float) -> float:
    return sgemm_frac("naive") * min(4.0, 4.0 / element_bytes)


NAIVE_COALESCED_FRAC = sgemm_frac("coalesced")
# Rungs the tiled CUDA-core GEMM variants sit on: smem_tiled (BM x BN tile, 4 outputs per thread) between
# shared-memory blocking and 1D block-tiling; reg_tiled (TM x TN outputs per thread) is 2D block-tiling to
# vectorized. These are variant ceilings before the tile, wave and pipeline factors perf.py applies (~0.85).
SMEM_TILED_FRAC = (sgemm_frac("smem") + sgemm_frac("blocktile_1d")) / 2 / 0.85
REG_TILED_FRAC = sgemm_frac("vectorized") / 0.85

# --------------------------------------------------------------------------------------------- ceilings
# No kernel streams more than ~92 % of peak DRAM bandwidth: Luo et al. (arXiv:2402.13499) measure 93 % of
# 2.0 TB/s on H800-PCIe and 92 % of 1,008 GB/s on an RTX 4090 with a global-memory microbenchmark; QuACK's
# RMSNorm / softmax reach 89.7 % of 3.35 TB/s on H100 (https://github.com/Dao-AILab/quack,
# media/2025-07-10-membound-sol.md); FlashMLA decode 3,000 GB/s = ~90 % of 3.35 TB/s
# (https://github.com/deepseek-ai/FlashMLA). GDDR6 with ECC loses 10-15 % of spec bandwidth
# (https://github.com/IST-DASLab/marlin_artifact): the A10 / A6000 ceilings sit lower.
DRAM_CEILING = 0.92
MEM_ARCH = {"h100": 0.92, "h200": 0.92, "a100": 0.92, "a10": 0.86, "rtx_a6000": 0.88, "rtx_5090": 0.92}
# Highest measured fraction of dense tensor-core peak per GPU (any kernel, any shape): H100 cuBLAS BF16 80.6 %
# at 8192^3, a hand wgmma+TMA GEMM 81.6 % (https://github.com/pranjalssh/fast.cu); A100 cuBLAS FP16 GEMM at
# large sizes ~270-290 TFLOPS of 312 (issue #15's band; the clock-throttled peak is ~265 TFLOPS under FA2,
# https://github.com/liangan1/GPU_travel/blob/main/performance/flash-attn/README.md, so 0.93 is an upper bound);
# RTX 5090 cuBLAS BF16 91 % at 8192^3 and a hand attention kernel 104.7 % of the 209.5 TFLOPS spec at 600 W
# (https://github.com/gau-nernst/learn-cuda); Ampere GDDR parts: no measurement above ~0.9 found (assumption).
TC_CEILING = {"h100": 0.82, "h200": 0.82, "a100": 0.93, "a10": 0.9, "rtx_a6000": 0.9, "rtx_5090": 1.0}

# ------------------------------------------------------------------------------------------ timing noise
# The harness reports the median of 100 timed runs with L2 flushed. Run-to-run variation of such a median:
# nvbench stops when the relative standard deviation of the samples' mean falls under 0.5 % (its default
# `--max-noise`, https://github.com/NVIDIA/nvbench/blob/main/docs/cli_help.md), a target kernels above tens of
# microseconds meet; for a few-microsecond kernel, launch jitter (~1-2 us of a CUDA event pair's resolution,
# 0.5 us per the CUDA Runtime API cudaEventElapsedTime docs) is a larger fraction. Model: a relative sigma of
# 0.3 % plus 0.05 us of absolute jitter (the median of 100 runs divides the per-run ~0.5 us by ~10).
NOISE_REL = 0.003
NOISE_ABS_MS = 0.00005
NOISE_CLIP = 2.0          # a median of 100 runs has no heavy tail: deviates beyond 2 sigma are not drawn


def noise_sigma(time_ms: float) -> float:
    """Relative standard deviation of a re-measured median time of `time_ms`."""
    return math.hypot(NOISE_REL, NOISE_ABS_MS / time_ms)


def clipped(z: float) -> float:
    """A standard normal deviate as a re-measurement draws it: within NOISE_CLIP sigmas."""
    return min(NOISE_CLIP, max(-NOISE_CLIP, z))


def noise_bound(time_ms: float) -> float:
    """The largest relative change re-measuring the same source can show (NOISE_CLIP sigmas each way)."""
    return math.expm1(2 * NOISE_CLIP * noise_sigma(time_ms))
