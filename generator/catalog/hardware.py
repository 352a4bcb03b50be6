"""The six GPUs of the seeds, as an analytic model needs them.

Every figure comes from `docs/gpu_facts.md` (parts 1a-1d); `GPU.sources` maps each figure to the
URL it was taken from, so a reader can check a number without leaving the code. Peaks are *dense* (no 2:4
sparsity). Where sources conflict we take the figure gpu_facts.md recommends and say so in a comment.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

FEATURES = ("cp_async", "tma", "wgmma", "fp8_mma", "fp4_mma", "clusters")

# Source URLs (gpu_facts.md), shared by several GPUs.
_H100_SPEC = "https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html"
_H100_GK = "https://glennklockwood.com/garden/processors/h100"
_H200_SPEC = "https://lzwjava.github.io/nvidia-h200-gpu-specs-en"
_A100_SPEC = "https://glennklockwood.com/garden/processors/A100"
_GPUMAP = "https://github.com/lamonoai/gpumap/blob/main/nvidia/GPU.md"
_A10_SPEC = "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/"
_A6000_SPEC = "https://llmperf.net/categories/gpu/Nvidia-A6000-GPUs"
_RTX5090_SPEC = "https://www.spheron.network/blog/nvidia-rtx-5090-specs/"
_RTX5090_WP = "https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf"
_HOPPER_TUNING = "https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html"
_CUTLASS_SM90 = "https://github.com/NVIDIA/cutlass/blob/main/include/cutlass/gemm/collective/builders/sm90_common.inl"
_CUTLASS_ARCH = "https://github.com/NVIDIA/cutlass/blob/main/include/cutlass/arch/arch.h"
_AMPERE_SMEM = "https://newbetuts.com/70709486-why-is-the-max-amount-of-shared-memory-per-block-on-ampere-gpus-not-a-multiple-of-16-kib"
_AMPERE_TUNING = "https://www.creetz.com/cuda/ampere-tuning-guide.html"
_FEAT_CP_ASYNC = "https://github.com/ModelCloud/GPTQModel/issues/1620"
_FEAT_WGMMA = "https://github.com/hao-ai-lab/FastVideo/issues/790"
_FEAT_WGMMA_120 = "https://github.com/thu-ml/SageAttention/issues/291"
_FEAT_TMA_120 = "https://github.com/Dao-AILab/quack/pull/153"
_FEAT_FP4 = "https://github.com/antirez/ds4/issues/672"
_STATIC_SMEM = "https://github.com/pytorch/pytorch/pull/162328"

KB = 1024


@dataclass(frozen=True)
class GPU:
    """One GPU: the figures a roofline and an occupancy calculation need, and where each came from."""

    name: str
    display: str
    arch: str
    cc: int
    sms: int
    clock_ghz: float
    dram_gbps: float
    l2_mb: float
    tc_tflops: Mapping[str, float]
    fp32_tflops: float
    fp16_cuda_tflops: float
    smem_static_max: int
    smem_dyn_max: int
    smem_per_sm: int
    regs_per_sm: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    features: frozenset[str]
    sources: Mapping[str, str]


def has(gpu: GPU, feature: str) -> bool:
    """True when the GPU's instruction set has `feature` (one of FEATURES)."""
    if feature not in FEATURES:
        raise ValueError(f"unknown hardware feature {feature!r}; known: {', '.join(FEATURES)}")
    return feature in gpu.features


def _gpu(**kw) -> GPU:
    kw["tc_tflops"] = MappingProxyType(dict(kw["tc_tflops"]))
    kw["sources"] = MappingProxyType(dict(kw["sources"]))
    kw["features"] = frozenset(kw["features"])
    return GPU(**kw)


_SM90_COMMON = dict(
    arch="sm_90a", cc=90, sms=132, clock_ghz=1.83, l2_mb=50.0,
    # FP16/BF16 989.4, FP8/INT8 1978.9 dense; no INT4 or FP4 tensor path on Hopper.
    tc_tflops={"fp16": 989.4, "bf16": 989.4, "fp8": 1978.9, "int8": 1978.9},
    fp32_tflops=66.9, fp16_cuda_tflops=133.8,
    smem_static_max=48 * KB, smem_dyn_max=232_448, smem_per_sm=228 * KB,
    regs_per_sm=65_536, max_threads_per_sm=2048, max_blocks_per_sm=32,
    features={"cp_async", "tma", "wgmma", "fp8_mma", "clusters"},
)
_SM90_SOURCES = {
    "smem_dyn_max": _CUTLASS_SM90, "smem_per_sm": _HOPPER_TUNING, "max_threads_per_sm": _HOPPER_TUNING,
    "smem_static_max": _STATIC_SMEM, "wgmma": _FEAT_WGMMA, "cp_async": _FEAT_CP_ASYNC, "clusters": _HOPPER_TUNING,
    "clock_ghz": _H100_GK,  # 1.83 GHz is the clock the tensor-core spec is quoted at
}

_GA102_COMMON = dict(
    arch="sm_86", cc=86, l2_mb=6.0,
    smem_static_max=48 * KB, smem_dyn_max=101_376, smem_per_sm=100 * KB,
    regs_per_sm=65_536, max_threads_per_sm=1536, max_blocks_per_sm=16,
    features={"cp_async"},
)
_GA102_SOURCES = {
    "smem_dyn_max": _AMPERE_TUNING, "smem_per_sm": _AMPERE_TUNING, "max_threads_per_sm": _AMPERE_TUNING,
    "max_blocks_per_sm": _AMPERE_TUNING, "smem_static_max": _STATIC_SMEM, "cp_async": _FEAT_CP_ASYNC,
}

_FEAT_CLUSTERS_120 = ("https://github.com/Dao-AILab/quack/issues/91 (cluster + DSMEM test on an RTX 5090); "
                      "https://github.com/0xSero/blackwell-gpu-wiki/issues/1 (Programming Guide feature table)")

GPUS: dict[str, GPU] = {
    "h100": _gpu(
        name="h100", display="H100 SXM5 80GB", dram_gbps=3350.0, **_SM90_COMMON,
        sources={**_SM90_SOURCES, "sms": _H100_SPEC, "dram_gbps": _H100_SPEC, "l2_mb": _H100_GK,
                 "tc_tflops": _H100_SPEC, "fp32_tflops": _H100_GK},
    ),
    "h200": _gpu(
        # Same GH100 die as H100; only memory differs (141 GB HBM3e, 4.8 TB/s).
        name="h200", display="H200 SXM 141GB", dram_gbps=4800.0, **_SM90_COMMON,
        sources={**_SM90_SOURCES, "sms": _GPUMAP, "dram_gbps": _H200_SPEC, "l2_mb": _H200_SPEC,
                 "tc_tflops": _H200_SPEC, "fp32_tflops": _H200_SPEC},
    ),
    "a100": _gpu(
        name="a100", display="A100 SXM4 80GB", arch="sm_80", cc=80, sms=108, clock_ghz=1.41,
        dram_gbps=2039.0, l2_mb=40.0,
        # No FP8 tensor cores on Ampere; INT4 tensor path exists (1,248 TOPS).
        tc_tflops={"fp16": 312.0, "bf16": 312.0, "int8": 624.0, "int4": 1248.0},
        fp32_tflops=19.5, fp16_cuda_tflops=78.0,
        smem_static_max=48 * KB, smem_dyn_max=166_912, smem_per_sm=164 * KB,
        regs_per_sm=65_536, max_threads_per_sm=2048, max_blocks_per_sm=32,
        features={"cp_async"},
        sources={"sms": _A100_SPEC, "dram_gbps": _A100_SPEC, "l2_mb": _A100_SPEC, "tc_tflops": _A100_SPEC,
                 "fp32_tflops": _A100_SPEC, "clock_ghz": _A100_SPEC, "smem_dyn_max": _AMPERE_SMEM,
                 "smem_per_sm": _AMPERE_SMEM, "smem_static_max": _STATIC_SMEM, "cp_async": _FEAT_CP_ASYNC},
    ),
    "a10": _gpu(
        name="a10", display="A10 24GB", sms=72, clock_ghz=1.695, dram_gbps=600.0,
        tc_tflops={"fp16": 125.0, "bf16": 125.0, "int8": 250.0, "int4": 500.0},
        # GA102 runs FP16 non-tensor math at the FP32 rate.
        fp32_tflops=31.2, fp16_cuda_tflops=31.2, **_GA102_COMMON,
        sources={**_GA102_SOURCES, "sms": _A10_SPEC, "dram_gbps": _A10_SPEC, "l2_mb": _A10_SPEC,
                 "tc_tflops": _GPUMAP, "fp32_tflops": _GPUMAP, "clock_ghz": _A10_SPEC},
    ),
    "rtx_a6000": _gpu(
        name="rtx_a6000", display="RTX A6000 48GB", sms=84, clock_ghz=1.8, dram_gbps=768.0,
        tc_tflops={"fp16": 154.8, "bf16": 154.8, "int8": 309.7, "int4": 619.3},
        fp32_tflops=38.7, fp16_cuda_tflops=38.7, **_GA102_COMMON,
        sources={**_GA102_SOURCES, "sms": _A6000_SPEC, "dram_gbps": _A6000_SPEC, "l2_mb": _A6000_SPEC,
                 "tc_tflops": _A6000_SPEC, "fp32_tflops": _A6000_SPEC, "clock_ghz": _A6000_SPEC},
    ),
    "rtx_5090": _gpu(
        name="rtx_5090", display="GeForce RTX 5090 32GB", arch="sm_120a", cc=120, sms=170, clock_ghz=2.407,
        dram_gbps=1792.0, l2_mb=96.0,
        # GeForce: FP16/BF16 with FP32 accumulate at half rate (209.5). FP8 with FP32 accumulate: 419 (the
        # whitepaper figure; gpu_facts.md marks 419 vs 838 as a CONFLICT and we take the conservative one).
        tc_tflops={"fp16": 209.5, "bf16": 209.5, "fp8": 419.0, "int8": 838.0, "fp4": 1676.0},
        fp32_tflops=104.8, fp16_cuda_tflops=104.8,
        smem_static_max=48 * KB, smem_dyn_max=101_376, smem_per_sm=100 * KB,
        regs_per_sm=65_536, max_threads_per_sm=1536, max_blocks_per_sm=32,
        # The arch-specific target sm_120a (as sm_90a on Hopper): block-scaled fp4 mma.sync is legal only there,
        # and everything that compiles for sm_120 compiles for it (PTX ISA, "Target ISA notes":
        # https://docs.nvidia.com/cuda/parallel-thread-execution/#ptx-module-directives-target).
        # No wgmma on sm_120 (mma.sync only); TMA yes; clusters yes (the Programming Guide's feature table lists
        # clusters and DSMEM for 12.x, a __cluster_dims__ kernel ran on an RTX 5090, and ptxas accepts cluster
        # PTX for sm_120 here); TMA multicast and CTA-pair MMA, which sit on top of clusters, are absent.
        features={"cp_async", "tma", "fp8_mma", "fp4_mma", "clusters"},
        sources={"sms": _RTX5090_SPEC, "dram_gbps": _RTX5090_SPEC, "l2_mb": _RTX5090_SPEC,
                 "tc_tflops": _RTX5090_WP, "fp32_tflops": _RTX5090_WP, "clock_ghz": _RTX5090_SPEC,
                 "smem_dyn_max": _CUTLASS_ARCH, "smem_static_max": _STATIC_SMEM, "wgmma": _FEAT_WGMMA_120,
                 "tma": _FEAT_TMA_120, "fp4_mma": _FEAT_FP4, "cp_async": _FEAT_CP_ASYNC,
                 "clusters": _FEAT_CLUSTERS_120},
    ),
}

# Launch overhead per kernel, in ms. Async enqueue of a kernel measured at 2.6-2.8 us per launch on an sm_120
# part (https://github.com/ahrefs/ocannl/issues/488); data-center parts under a benchmark loop sit a little
# lower, so 2.5 us is our floor for one launch, whatever the GPU.
LAUNCH_MS = 0.0025


def tc_peak_tflops(gpu: GPU, dtype: str) -> float:
    """Dense tensor-core peak for `dtype`, or the FP16 rate where the chip has no native path (operands are
    converted to fp16 in registers first, as Marlin-style kernels do); fp32 uses the CUDA-core rate."""
    if dtype == "fp32":
        return gpu.fp32_tflops
    return gpu.tc_tflops.get(dtype, gpu.tc_tflops["fp16"])
