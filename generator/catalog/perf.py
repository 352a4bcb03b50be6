"""Analytic performance model: a roofline per task, and the time a (variant, params) candidate takes.

roofline_ms = max(bytes / peak DRAM bandwidth, flops / peak rate of the op's arithmetic path) + one launch
(hardware.LAUNCH_MS). time_ms divides each side by an efficiency <= 1 and adds launches, so it can never beat
the roofline. The efficiency is the product of:
  - the variant's ceiling (variants.mem_eff / comp_eff; the CUDA-core GEMM, conv and prefill variants on the
    rungs of the published SGEMM ladder) and the GPU's (achievable DRAM fraction; mma.sync on Hopper tops out
    near 65 % of tensor peak, Luo et al. arXiv:2402.13499): all anchors in `calibration` and docs/calibration.md;
  - memory parallelism by Little's law: bytes in flight (resident warps x bytes per warp, or pipeline stages x
    tile) against bandwidth x latency, and few CTAs cannot pull a whole GPU's bandwidth;
  - occupancy from threads, registers and shared memory; register spills past 255;
  - wave quantization (tiles per SM), tile tails (padding), tile size (operand reuse), pipeline depth and
    K-loop prologue, split factors (more CTAs, but a reduction pass and a second launch).
Calibrated so the best variants land where published kernels do and naive ones where their access pattern puts
them (docs/calibration.md); `ceiling_ms` is the fastest any measured time may be. Deterministic and pure;
per-task constants are cached.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from generator.catalog.calibration import DRAM_CEILING, MEM_ARCH, NAIVE_COALESCED_FRAC, TC_CEILING, naive_uncoalesced_frac
from generator.catalog.hardware import GPU, GPUS, LAUNCH_MS, tc_peak_tflops
from generator.catalog.ops import ELEMENT_BYTES, OPS
from generator.catalog.variants import Variant, mma_decode_rows
from generator.catalog.variants import variants_for

TC_CLASSES = frozenset({"gemm", "attn_decode", "attn_prefill", "conv"})
LATENCY_S = 600e-9          # DRAM latency to cover with bytes in flight (Little's law)
SM_BYTES_PER_CLK = 64       # what one SM can pull from L2/DRAM per clock: few CTAs cannot use a whole GPU
WAVE_OVERHEAD_S = 0.1e-6    # block scheduling and prologue per wave of CTAs
OVERLAP = 0.1               # the shorter of memory and compute time is not perfectly hidden
# Tensor-core efficiency of each GPU relative to the variant ceiling (5090 clocks above spec: cuBLAS 91 %; A100
# cuBLAS-class kernels ~270-290 of 312 TFLOPS). Achievable DRAM fractions and absolute TC ceilings: calibration.
TC_ARCH = {"h100": 1.0, "h200": 1.0, "a100": 1.25, "a10": 0.9, "rtx_a6000": 0.9, "rtx_5090": 1.08}
HOPPER_MMA_SYNC = 0.72      # mma.sync on sm_90: ~65 % of tensor peak at best (arXiv:2402.13499)


@dataclass(frozen=True)
class _Ctx:
    gpu: GPU
    op: str            # the op's name: a class's templates run different code per op (ops/<op> snippets,
                       # <class>/<op>/<tag> templates): tensor cores or not, the sampler's row reads
    kclass: str
    d: dict
    e: float
    nbytes: float
    flops: float
    bw: float          # bytes/s
    peak: float        # flop/s of the roofline path
    tc_rate: float     # flop/s on tensor cores for the op's compute dtype
    cc_rate: float     # flop/s on CUDA cores (fp32)
    need: float        # bytes in flight to cover DRAM latency
    l2: float          # bytes
    roofline_s: float
    bound: str         # "memory" or "compute": which side of the roofline the task sits on


@lru_cache(maxsize=8192)
def _ctx(task) -> _Ctx:
    op = OPS[task.op]
    gpu = GPUS[task.gpu]
    shape = task.shape_dict()
    nbytes = float(op.bytes_moved(shape, task.dtype))
    flops = float(op.flops(shape, task.dtype))
    bw = gpu.dram_gbps * 1e9
    tc_rate = tc_peak_tflops(gpu, op.compute_dtype(task.dtype)) * 1e12
    cc_rate = gpu.fp32_tflops * 1e12
    peak = tc_rate if op.kernel_class in TC_CLASSES else cc_rate
    if op.kernel_class == "gemv" and op.compute_dtype(task.dtype) in ("fp16", "bf16"):
        # the task's floor: fp16 activations can meet (dequantized) weights in packed half2 FMAs (HFMA2), the
        # GPU's fp16 CUDA-core rate (A100: 78 vs 19.5 TFLOPS fp32, gpu_facts.md part 1), so W4A16 / W8A16 GEMV at
        # M <= 8 stays memory-bound as published weight-only kernels are (Marlin: ~4x over fp16 up to batch
        # 16-32). Our templates multiply in fp32: _gemv times them at the fp32 rate.
        peak = max(cc_rate, gpu.fp16_cuda_tflops * 1e12)
    return _Ctx(gpu, task.op, op.kernel_class, {"CC": gpu.cc, **op.dims(shape)}, ELEMENT_BYTES[task.dtype], nbytes,
                flops, bw, peak, tc_rate, cc_rate, bw * LATENCY_S, gpu.l2_mb * 2**20, max(nbytes / bw, flops / peak),
                "memory" if nbytes / bw >= flops / peak else "compute")




def roofline_ms(task) -> float:
    """The physical floor for this task on its GPU, in ms."""
    return _ctx(task).roofline_s * 1e3 + LAUNCH_MS


@lru_cache(maxsize=8192)
def ceiling_ms(task) -> float:
    """The fastest any kernel has been measured to run this task: bytes at calibration.DRAM_CEILING of peak
    bandwidth, flops at the GPU's highest measured tensor-core fraction (CUDA-core paths: their peak), one
    launch. No ok time is below it, noise included (the workbench clamps to it)."""
    c = _ctx(task)
    rate = c.peak * (TC_CEILING[c.gpu.name] if c.kclass in TC_CLASSES else 1.0)
    return max(c.nbytes / (c.bw * DRAM_CEILING), c.flops / rate) * 1e3 + LAUNCH_MS


def peak_path(task) -> str:
    """The arithmetic path of the task's roofline peak, the rate its reports' "% of peak" divide by: "tensor" (the
    op's compute dtype on tensor cores), "fp16_cuda" (GEMV's fp16 math in half2 FMAs, where that beats fp32) or
    "fp32_cuda"."""
    c = _ctx(task)
    if c.kclass in TC_CLASSES:
        return "tensor"
    return "fp16_cuda" if c.peak > c.cc_rate else "fp32_cuda"


def rate_unit(task) -> str:
    """The unit of the task's arithmetic rate: "TOPS" where its tensor-core math multiplies integers (int8 MMA),
    else "TFLOPS" (weight-only int4 / int8 kernels widen the weights and multiply in fp16)."""
    integer = OPS[task.op].compute_dtype(task.dtype) in ("int8", "int4")
    return "TOPS" if integer and peak_path(task) == "tensor" else "TFLOPS"


def bound(task) -> str:
    """"memory" or "compute": the side of the roofline the task sits on, the one every report of it leads with."""
    return _ctx(task).bound


def achieved(task, time_ms: float) -> dict:
    """What a measured time means: fraction of peak bandwidth, TFLOPS, fraction of peak compute, the bound."""
    return dict(zip(("bandwidth_frac", "tflops", "compute_frac", "bound"), achieved_values(task, time_ms)))


def achieved_values(task, time_ms: float) -> tuple[float, float, float, str]:
    """`achieved`'s values as a plain tuple, in its order: the benchmark report asks on every ok step."""
    c = _ctx(task)
    t = time_ms * 1e-3
    return c.nbytes / t / c.bw, c.flops / t / 1e12, c.flops / t / c.peak, c.bound


def baseline_ms(task) -> float:
    """The naive variant (level 0) of the task's impl at its default params."""
    naive = variants_for(task.op, task.impl, task.dtype)[0]
    return time_ms(task, naive, naive.default_params())


def time_ms(task, variant: Variant, params) -> float:
    """Simulated kernel time in ms for `variant` with `params` on the task; always >= roofline_ms(task).
    Legality and launchability are the caller's questions (variants.legal_on, variants.launch_limits). Not
    cached here: the workbench caches each candidate's outcome. The constants a template fixes (`Variant.fixed`)
    count as the params they stand for."""
    if variant.fixed:
        params = {**variant.fixed, **params}
    return _MODELS[variant.kernel_class](_ctx(task), variant, params, next(iter(variant.impls))) * 1e3


# ------------------------------------------------------------------------------------------- shared pieces
def _occupancy(c: _Ctx, threads: int, regs: int, smem: int) -> int:
    # Two-value min/max written as comparisons here, in _mem_par and in _finish: they run for every candidate
    # of every session, and the builtins' call costs more than the arithmetic (same values, same order).
    g = c.gpu
    regs += (-regs) % 8
    if regs > 255:
        regs = 255
    block_regs = regs * threads
    bps = min(g.max_blocks_per_sm, g.max_threads_per_sm // (threads if threads > 1 else 1),
              g.regs_per_sm // (block_regs if block_regs > 1 else 1))
    if smem and g.smem_per_sm // smem < bps:
        bps = g.smem_per_sm // smem
    return bps if bps > 1 else 1


def _spill(regs: int) -> float:
    return 1.0 if regs <= 255 else (255 / regs) ** 1.5


def _resources(c: _Ctx, v: Variant, p: dict) -> tuple[int, int, float]:
    """(threads, CTAs per SM, spill factor) for this variant and params on this task."""
    threads = v._threads(p)
    regs = int(v._regs(p, c.e, c.d))
    smem = int(v._smem(p, c.e, c.d))
    return threads, _occupancy(c, threads, regs, smem), _spill(regs)


def _mem_par(c: _Ctx, ctas: float, bps: int, inflight_per_cta: float) -> float:
    """Fraction of bandwidth the bytes in flight can sustain (Little's law), capped by how many SMs work."""
    sms = c.gpu.sms
    slots = sms * bps
    resident = slots if slots < ctas else ctas
    x = resident * inflight_per_cta / c.need
    par = x / (1 + x ** 3) ** (1 / 3)
    pull = (sms if sms < ctas else ctas) * SM_BYTES_PER_CLK * c.gpu.clock_ghz * 1e9 / c.bw
    if pull < par:
        par = pull
    return 1.0 if 1.0 < par else par


def _vec(p: dict, e: float) -> float:
    """Bytes per load instruction (16 B at most)."""
    return min(p.get("VEC", 1) * e, 16.0)


def _vec_eff(p: dict, e: float) -> float:
    return 0.75 + 0.25 * _vec(p, e) / 16


def _waves(c: _Ctx, ctas: float, bps: int) -> float:
    return math.ceil(ctas / (c.gpu.sms * bps))


def _wave_eff(c: _Ctx, tiles: float) -> float:
    """Tiles per SM are whole numbers: the last round leaves SMs idle."""
    sms = c.gpu.sms
    return tiles / (math.ceil(tiles / sms) * sms)


def _pipe(depth: float) -> float:
    """Latency hiding from pipeline stages and co-resident CTAs."""
    return 1 - 0.4 * math.exp(-1.2 * (depth - 1))


def _tile_size(bm: int, bn: int, n_weight: float = 1.0) -> float:
    """Operand reuse of a BM x BN tile: 128x128 ~0.9, 64x64 ~0.82, 256x128 ~0.92."""
    return 1 / (1 + 7.1 * (1 / bm + n_weight / bn))


def _tail(n: float, block: int) -> float:
    return n / (math.ceil(n / block) * block)


def _tc_ceiling(c: _Ctx, v: Variant, impl: str) -> float:
    ceil = v.comp_eff * TC_ARCH[c.gpu.name]
    if c.gpu.cc == 90 and impl == "cuda" and "wgmma" not in v.requires:
        ceil *= HOPPER_MMA_SYNC
    return min(ceil, 1.0)  # the measured per-GPU ceiling (calibration.TC_CEILING) bounds the time: ceiling_ms


def _mem_ceiling(c: _Ctx, v: Variant) -> float:
    return v.mem_eff * MEM_ARCH[c.gpu.name]


def _l2_reread(c: _Ctx, nbytes: float) -> float:
    """Cost factor of re-reading `nbytes`: cheap when they fit in L2, full price when they do not."""
    return 0.25 if nbytes <= 0.5 * c.l2 else 1.0


def _finish(c: _Ctx, mem_eff: float, comp_eff: float, rate: float, extra_bytes: float = 0.0, launches: int = 1,
            fixed_s: float = 0.0) -> float:
    # min(a, b) is `b if b < a else a`, max(a, b) is `b if b > a else a`: what the builtins return
    mem_eff = 1.0 if 1.0 < mem_eff else mem_eff
    comp_eff = 1.0 if 1.0 < comp_eff else comp_eff
    rate = c.peak if c.peak < rate else rate
    t_mem = (c.nbytes + (0.0 if 0.0 > extra_bytes else extra_bytes)) / (c.bw * mem_eff)
    t_comp = c.flops / (rate * comp_eff)
    slow = t_comp if t_comp > t_mem else t_mem
    fast = t_comp if t_comp < t_mem else t_mem
    return slow + OVERLAP * fast + fixed_s + (1 if 1 > launches else launches) * LAUNCH_MS * 1e-3


# -------------------------------------------------------------------------------------------- class models
def _gemm(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    d = c.d
    M, N, K, G = d["M"], d["N"], d["K"], d["G"]
    threads, bps, spill = _resources(c, v, p)
    tc = v.tensor_cores(c.op)
    if not tc and v.tag == "naive":  # one thread per output, uncoalesced B loads: siboehm's kernel 1
        ctas = G * math.ceil(M / p["BLOCK_M"]) * math.ceil(N / p["BLOCK_N"])
        mem = _mem_ceiling(c, v) * _mem_par(c, ctas, bps, threads * c.e * 4)
        comp = naive_uncoalesced_frac(c.e) * min(1.0, ctas / (c.gpu.sms * bps))
        extra = 2 * G * M * N * K * c.e * 0.01
        return _finish(c, mem * spill, comp * spill, c.cc_rate, extra, fixed_s=_waves(c, ctas, bps) * WAVE_OVERHEAD_S)
    bm, bn = p["BLOCK_M"], p["BLOCK_N"]
    split = p.get("SPLIT_K", 1)
    tiles = G * math.ceil(M / bm) * math.ceil(N / bn)
    ctas = tiles * split
    stages = p.get("NUM_STAGES", 1)
    k_iters = math.ceil(K / split / p.get("BLOCK_K", 32))
    swizzled = "GROUP_M" in p or v.tag == "persistent"
    a_b = G * (M * K + N * K) * c.e
    miss = 0.01 if a_b <= 0.5 * c.l2 else (0.03 if swizzled else 0.1)
    if "GROUP_M" in p:
        miss *= 8 / p["GROUP_M"] if p["GROUP_M"] < 8 else 1.0
    extra = miss * G * c.e * (M * K * (math.ceil(N / bn) - 1) + N * K * (math.ceil(M / bm) - 1))
    launches = 1
    if split > 1:
        extra += split * G * M * N * 4 * 2
        launches = 2
    inflight = max(stages, 1) * (bm + bn) * p.get("BLOCK_K", 32) * c.e if stages > 1 or tc else threads * 16
    mem = _mem_ceiling(c, v) * _mem_par(c, ctas, bps, inflight) * spill
    if tc:
        rate = c.tc_rate
        if v.tag == "dequant_mma":
            rate = min(rate, c.gpu.tc_tflops["fp16"] * 1e12)
        ceiling = _tc_ceiling(c, v, impl)
    else:
        rate, ceiling = c.cc_rate, v.comp_eff
    depth = stages * min(bps, 2) if stages > 1 else bps
    comp = (ceiling * _tile_size(bm, bn) * _tail(M, bm) * _tail(N, bn) * _wave_eff(c, ctas) * _pipe(depth)
            * k_iters / (k_iters + 2 + 0.5 * stages) * spill)
    if p.get("CLUSTER_M", 1) > 1:
        comp *= 1.03  # TMA multicast halves B traffic into the cluster's SMs
        extra *= 0.5
    return _finish(c, mem, comp, rate, extra, launches, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


def _gemv(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    M, N, K = c.d["M"], c.d["N"], c.d["K"]
    threads, bps, spill = _resources(c, v, p)
    split = p.get("SPLIT_K", 1)
    if v.tag == "naive" and impl == "cuda":          # thread per output row: strided, uncoalesced weights
        ctas = math.ceil(N / threads)
        inflight = min(N, threads) * 64
        access = 1.0
    elif impl == "cuda":                             # a warp per row (x ROWS_PER_WARP), optionally K split
        rows_per_cta = threads // 32 * p.get("ROWS_PER_WARP", 1)
        ctas = math.ceil(N / rows_per_cta) * split
        per_lane = _vec(p, c.e) * min(4, max(1, K / split / (32 * p.get("VEC", 1))))
        inflight = threads * per_lane * p.get("ROWS_PER_WARP", 1)
        access = _vec_eff(p, c.e)
    else:                                            # Triton: BLOCK_N rows x BLOCK_K columns per program
        ctas = math.ceil(N / p["BLOCK_N"]) * split
        inflight = min(p["BLOCK_N"] * p["BLOCK_K"] * c.e, threads * 64)
        access = 1.0 if p["BLOCK_K"] * c.e >= 64 else 0.8
    mem = _mem_ceiling(c, v) * access * _mem_par(c, ctas, bps, inflight) * spill
    extra = (split - 1) * M * N * 4 * 2
    comp = v.comp_eff * spill
    # every template widens weights and activations to fp32 (no half2 FMAs): the fp32 rate, not the roofline's
    return _finish(c, mem, comp, c.cc_rate, extra, 2 if split > 1 else 1, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


def _attn_decode(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    R, T, D, Q, KV = c.d["R"], c.d["T"], c.d["D"], c.d["Q"], c.d.get("KV", 2)
    threads, bps, spill = _resources(c, v, p)
    tc = v.tensor_cores(c.op)
    splits = p.get("SPLITS", 1)
    block_rows = mma_decode_rows(p, c.d) if v.tag == "mma_sync" else 64
    q_blocks = math.ceil(Q / block_rows)             # query rows (heads) per CTA: wgmma's 64, mma_sync's 16-64
    if "BLOCK_N" in p:                               # K/V tiles of BLOCK_N keys (every Triton template)
        ctas = R * splits * (q_blocks if tc else Q)  # CUDA-core code: a CTA per query
        bn = p["BLOCK_N"]
        stages = p.get("NUM_STAGES", 1)
        inflight = max(stages - (1 if impl == "triton" else 0), 1) * bn * D * c.e * KV
        keys = T / splits
        tail = _tail(keys, bn)
    else:                                            # a block per (row, query); naive: a thread per key
        ctas = R * Q
        per_thread = 64 if v.tag == "naive" else 2 * 2 * (_vec(p, c.e) if "VEC" in p else c.e)
        inflight = threads * per_thread
        tail = 1.0
    access = _vec_eff(p, c.e) if "VEC" in p else (0.5 if v.tag == "naive" and impl == "cuda" else 1.0)
    mem = _mem_ceiling(c, v) * access * tail * _mem_par(c, ctas, bps, inflight) * spill
    extra = R * splits * Q * (D + 2) * 4 * 2 if splits > 1 else 0.0
    rereads = q_blocks - 1 if tc else Q - 1          # each block of query rows streams the KV again (from L2)
    extra += rereads * R * T * D * c.e * KV * 0.25
    if tc:
        # a CUDA block's warps own fixed row tiles (wgmma's 64 rows, mma_sync's QN): rows past Q leave their warps
        # idle; Triton's tl.dot pads the queries to m16 only
        rows = block_rows if impl == "cuda" else 16
        comp = _tc_ceiling(c, v, impl) * Q / (math.ceil(Q / rows) * rows) * _wave_eff(c, ctas) * tail * spill
        rate = c.tc_rate
    else:
        comp, rate = v.comp_eff * spill * min(1.0, ctas * threads / (c.gpu.sms * 1024)), c.cc_rate
    fixed = _waves(c, ctas, bps) * WAVE_OVERHEAD_S * (4 if splits > 1 else 1)
    return _finish(c, mem, comp, rate, extra, 2 if splits > 1 else 1, fixed)


def _attn_prefill(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    R, SQ, SK, D = c.d["R"], c.d["SQ"], c.d["SK"], c.d["D"]
    threads, bps, spill = _resources(c, v, p)
    if v.tag == "naive" and impl == "cuda":          # thread per query row, scores through local memory
        ctas = math.ceil(R * SQ / threads)
        comp = NAIVE_COALESCED_FRAC * min(1.0, R * SQ * min(D, 16) / (c.gpu.sms * 1024)) * spill  # broadcast K/V
        mem = _mem_ceiling(c, v) * _mem_par(c, ctas, bps, threads * 128)  # each thread streams whole K/V rows
        extra = R * math.ceil(SQ / 32) * SK * D * c.e * 2 * 0.1
        return _finish(c, mem, comp, c.cc_rate, extra, fixed_s=_waves(c, ctas, bps) * WAVE_OVERHEAD_S)
    bm, bn = p["BLOCK_M"], p["BLOCK_N"]
    stages = p.get("NUM_STAGES", 1)
    ctas = R * math.ceil(SQ / bm)
    extra = (math.ceil(SQ / bm) - 1) * R * SK * D * c.e * 2 * 0.1
    mem = _mem_ceiling(c, v) * _mem_par(c, ctas, bps, stages * 2 * bn * D * c.e) * spill
    head = min(1.0, (D / (D + 16)) / (128 / 144))
    causal = 0.92 if c.d["CAUSAL"] else 1.0
    depth = stages * min(bps, 2) if stages > 1 else bps + 0.5
    shape_eff = _tile_size(bm, bn, 0.5) * _tail(SQ, bm) * _tail(SK, bn) * _wave_eff(c, ctas) * _pipe(depth) * head * causal
    if v.tensor_cores(c.op):
        ceiling, rate = _tc_ceiling(c, v, impl), c.tc_rate
    else:
        ceiling, rate = v.comp_eff, c.cc_rate
    return _finish(c, mem, ceiling * shape_eff * spill, rate, extra, 1, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


def _rows_per_cta(threads: int, C: int, vec: int) -> int:
    """Rows shorter than the block are packed several to a CTA (a warp or more per row)."""
    return max(1, threads // max(32, math.ceil(C / vec)))


def _rownorm(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    R, C = c.d["R"], c.d["C"]
    threads, bps, spill = _resources(c, v, p)
    vec = p.get("VEC", 1)
    two_pass = True
    launches, fixed = 1, 0.0
    if impl == "cuda":
        rows = p.get("ROWS_PER_BLOCK", 1)
        cluster = p.get("CLUSTER_SIZE", 1)
        rows *= _rows_per_cta(threads, C, vec)
        ctas = math.ceil(R / rows) * cluster
        per_thread = C * rows / (threads * cluster)
        ilp = min(4.0, max(1.0, per_thread / vec))
        inflight = min(threads, C * rows / vec / cluster) * _vec(p, c.e) * ilp
        access = _vec_eff(p, c.e) if "VEC" in p else (0.35 if v.tag == "naive" else 0.8)  # naive: shared atomics
        two_pass = v.tag not in ("register_cached", "cluster_reduce")
        if cluster > 1:
            fixed = 1e-6
    else:
        bn = p["BLOCK_N"]
        rows = p.get("ROWS_PER_PROG", 1)
        ctas = math.ceil(R / rows)
        chunk = min(bn, C)
        inflight = chunk * c.e * rows * min(2.0, max(1.0, C / bn))
        access = 0.85 + 0.15 * chunk / bn if bn <= 2 * C else 0.6
        two_pass = bn < C or v.tag == "naive"
    extra = R * C * c.e * 0.5 * _l2_reread(c, min(R, c.gpu.sms * bps) * C * c.e) if two_pass else 0.0
    mem = _mem_ceiling(c, v) * access * _mem_par(c, ctas, bps, inflight) * spill
    return _finish(c, mem, v.comp_eff * spill, c.cc_rate, extra, launches,
                   fixed + _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


def _elementwise(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    n = c.d["N"]
    threads, bps, spill = _resources(c, v, p)
    if impl == "triton":
        per_cta = p["BLOCK_SIZE"]
        ctas = math.ceil(n / per_cta)
        inflight = min(per_cta * c.e, threads * 16)
        access = min(1.0, 0.7 + 0.3 * per_cta / (threads * 8))
    else:
        vec, unroll = p.get("VEC", 1), p.get("UNROLL", 1)
        ctas = math.ceil(n / (threads * vec))
        if v.tag == "grid_stride":
            ctas = min(ctas, c.gpu.sms * bps)
        inflight = threads * _vec(p, c.e) * (unroll if v.tag == "grid_stride" else 1)
        access = _vec_eff(p, c.e) if "VEC" in p else 0.7
    mem = _mem_ceiling(c, v) * access * _mem_par(c, ctas, bps, inflight) * spill
    return _finish(c, mem, v.comp_eff * spill, c.cc_rate, 0.0, 1, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


def _gather(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    R, C = c.d["R"], c.d["C"]
    threads, bps, spill = _resources(c, v, p)
    extra = 0.0
    if v.tag == "naive" and impl == "cuda":          # thread per element, index loaded per element
        ctas = math.ceil(R * C / threads)
        inflight = threads * c.e * 2
        access = 0.8
        extra = R * C * 4 * 0.05
    elif v.tag == "tma_bulk":
        ctas = math.ceil(R / p["ROWS_PER_BLOCK"])
        inflight = p["NUM_STAGES"] * p["ROWS_PER_BLOCK"] * C * c.e
        access = 1.0
    elif impl == "triton":
        ctas = R * math.ceil(C / p["BLOCK_C"])
        inflight = min(C, p["BLOCK_C"]) * c.e
        access = 0.85 + 0.15 * min(1.0, C / p["BLOCK_C"])
    else:                                            # a warp per row
        ctas = math.ceil(R / (threads // 32))
        per_lane = _vec(p, c.e) if "VEC" in p else c.e
        inflight = threads * per_lane * min(4.0, max(1.0, C / (32 * p.get("VEC", 1))))
        access = _vec_eff(p, c.e) if "VEC" in p else 0.75
    mem = _mem_ceiling(c, v) * access * _mem_par(c, ctas, bps, inflight) * spill
    return _finish(c, mem, v.comp_eff * spill, c.cc_rate, extra, 1, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


TRITON_SEARCH_STEPS = 24   # the Triton top-k / top-p snippets' threshold bisection (SEARCH_STEPS in ops/<op>.py)
# (row reads every program of a row makes, row reads its programs divide among them: split_row's draw) of the
# Triton sampler templates per op, counted in their code: _row_max, then top-k's SEARCH_STEPS counting passes,
# top-p's total mass and SEARCH_STEPS mass passes; every token sampler ends in one _gumbel_argmax draw over its
# program's columns. moe_topk_gating's router row is one tile, read once (sampler/moe_topk_gating/).
TRITON_SAMPLER_READS = {"topk_sample": (1 + TRITON_SEARCH_STEPS, 1), "nucleus_sample": (2 + TRITON_SEARCH_STEPS, 1),
                        "minp_sample": (1, 1), "moe_topk_gating": (1, 0)}


def cuda_sampler_reads(op: str, tag: str, p: dict, k: int) -> int:
    """Reads of its row the CUDA sampler template `tag` makes for `op` (templates/cuda/sampler/<tag>.cu), counted in
    its code: the softmax statistics; the threshold search (one pass per bit, per RADIX_BITS digit in the radix
    templates; none for min-p, whose threshold is max + log(min_p)); then naive's kept-mass and draw loops, the
    block templates' `finish` segment pass (its draw rescans one thread's segment). split_row's splits read their
    segments twice (statistics, the top-digit histogram, built for every op), the merging block the other digits.
    moe_topk_gating writes every kept expert (`finish` rescans every segment) and counts each one's rank over the
    whole router row: k more reads."""
    if op == "minp_sample":
        search = 0
    else:
        search = math.ceil(32 / p["RADIX_BITS"]) if "RADIX_BITS" in p else 32
    if tag == "naive":
        reads = 1 + search + 2
    elif tag == "split_row":
        reads = 2 + max(search - 1, 0) + 1
    else:
        reads = 1 + search + 1
    if op == "moe_topk_gating":
        reads += (tag != "naive") + k
    return reads


def _sampler(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    R, C, K = c.d["R"], c.d["C"], c.d["K"]
    threads, bps, spill = _resources(c, v, p)
    splits = p.get("SPLITS", 1)
    vec = p.get("VEC", 1)
    packed = _rows_per_cta(threads, C, vec) if impl == "cuda" else 1   # Triton: a program per row (or split)
    ctas = math.ceil(R / packed) * splits
    per_cta = C * packed / splits
    if impl == "triton":
        # the first read at DRAM price (c.nbytes), the others re-reads: every program walks its whole row in
        # BLOCK_V tiles for the statistics and the search, split_row's SPLITS programs too (only the draw is
        # divided: its template), the resident ones hold distinct rows (the grid's row axis varies fastest), and
        # the pick kernel reads back each split's winner (token i64 + score f32, written then read)
        whole, divided = TRITON_SAMPLER_READS[c.op]
        inflight = min(p["BLOCK_V"], C) * c.e
        reread = _l2_reread(c, min(R, c.gpu.sms * bps) * C * c.e)
        extra = (splits * whole + divided - 1) * R * C * c.e * reread + (R * splits * 12 * 2 if splits > 1 else 0)
    else:
        inflight = min(threads, per_cta / vec) * c.e * vec * min(4.0, max(1.0, per_cta / (threads * vec)))
        reread = _l2_reread(c, min(R * splits, c.gpu.sms * bps) * per_cta * c.e)
        extra = (cuda_sampler_reads(c.op, v.tag, p, K) - 1) * R * C * c.e * reread
        if splits > 1:
            extra += R * splits * (1 << p["RADIX_BITS"]) * 4
    launches = sampler_launches(impl, splits)
    mem = _mem_ceiling(c, v) * _mem_par(c, ctas, bps, inflight) * spill
    comp = v.comp_eff * spill * min(1.0, ctas * threads / (c.gpu.sms * 1024))
    return _finish(c, mem, comp, c.cc_rate, extra, launches, _waves(c, ctas, bps) * WAVE_OVERHEAD_S * launches)


def sampler_launches(impl: str, splits: int) -> int:
    """Kernels a sampler template launches: Triton split_row's pick kernel follows its sampling kernel; CUDA
    split_row's last split to finish merges the row in the same kernel (an atomic ticket), so it launches one."""
    return 2 if impl == "triton" and splits > 1 else 1


def _scan(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    R, L, N = c.d["R"], c.d["L"], c.d["N"]
    threads, bps, spill = _resources(c, v, p)
    chunk = p.get("CHUNK")
    if impl == "triton":
        par_threads = R * N * (max(1, L // chunk) if chunk else 1)
        ctas = math.ceil(R / p["BLOCK_D"]) * (max(1, L // chunk) if chunk else 1)
    elif v.tag == "naive":                           # thread per channel; its N states give ILP
        par_threads = R * N
        ctas = math.ceil(R / threads)
    else:
        par_threads = R * N * (max(1, min(64, L // chunk)) if chunk else 1)
        ctas = math.ceil(par_threads / threads)
    scan_overhead = 1.3 if chunk else 1.0
    comp = v.comp_eff / scan_overhead * min(1.0, par_threads / (c.gpu.sms * c.gpu.max_threads_per_sm * 0.5)) * spill
    stages = p.get("NUM_STAGES", 1)
    # u, delta, B, C per step; loads do not depend on the recurrence, so ~4 steps are in flight
    inflight = threads * 4 * (_vec(p, c.e) if "VEC" in p else c.e) * max(stages, 4 if not chunk else 1)
    access = _vec_eff(p, c.e) if "VEC" in p else 0.75
    mem = _mem_ceiling(c, v) * access * _mem_par(c, ctas, bps, inflight) * spill
    return _finish(c, mem, comp, c.cc_rate, 0.0, 1, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


def _conv(c: _Ctx, v: Variant, p: dict, impl: str) -> float:
    d = c.d
    M, C, K, taps = d["M"], d["C"], d["K"], d["TAPS"]
    threads, bps, spill = _resources(c, v, p)
    depthwise = C == 1
    if "BLOCK_M" in p and "BLOCK_N" in p and not depthwise:   # implicit GEMM (or tiled direct conv)
        bm, bn = p["BLOCK_M"], p["BLOCK_N"]
        stages = p.get("NUM_STAGES", 1)
        ctas = math.ceil(M / bm) * math.ceil(K / bn)
        kk = C * taps
        k_iters = math.ceil(kk / p.get("BLOCK_K", 32))
        depth = stages * min(bps, 2) if stages > 1 else bps
        shape_eff = (_tile_size(bm, bn) * _tail(M, bm) * _tail(K, bn) * _wave_eff(c, ctas) * _pipe(depth)
                     * k_iters / (k_iters + 2 + 0.5 * stages))
        ceiling, rate = (_tc_ceiling(c, v, impl), c.tc_rate) if v.tensor_cores(c.op) else (v.comp_eff, c.cc_rate)
        mem = _mem_ceiling(c, v) * _mem_par(c, ctas, bps, max(stages, 1) * (bm + bn) * 32 * c.e) * spill
        extra = 0.1 * (M * C * c.e * (taps - 1) + K * C * taps * c.e * (math.ceil(M / bm) - 1))
        return _finish(c, mem, ceiling * shape_eff * spill, rate, extra, 1, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)
    per_thread = p.get("VEC", 1)
    if impl == "triton":                             # a program per BLOCK_M (x BLOCK_N channels) outputs
        per_cta = p["BLOCK_M"] * p.get("BLOCK_N", 1)
        ctas = math.ceil(M * K / per_cta)
        inflight = min(per_cta * c.e * taps, threads * 16) * p.get("NUM_STAGES", 1)  # all taps loaded at once
    elif "BLOCK_M" in p:
        ctas = math.ceil(M / (p["BLOCK_M"] * 4))
        inflight = threads * c.e * 4
    else:
        ctas = math.ceil(M * K / (threads * per_thread))
        inflight = threads * _vec(p, c.e) if "VEC" in p else threads * c.e
    access = _vec_eff(p, c.e) if "VEC" in p else 0.8
    extra = 0.1 * M * c.e * (taps - 1) * (C if not depthwise else 1) * (0.2 if "BLOCK_M" in p or "VEC" in p else 1)
    mem = _mem_ceiling(c, v) * access * _mem_par(c, ctas, bps, inflight) * spill
    # naive conv2d: a thread per (point, out channel) walks filter rows K channels apart (uncoalesced, as gemm)
    ceiling = naive_uncoalesced_frac(c.e) if v.tag == "naive" and impl == "cuda" and not depthwise else v.comp_eff
    comp = ceiling * spill * min(1.0, ctas * threads / (c.gpu.sms * 1024))
    return _finish(c, mem, comp, c.cc_rate, extra, 1, _waves(c, ctas, bps) * WAVE_OVERHEAD_S)


_MODELS = {"gemm": _gemm, "gemv": _gemv, "attn_decode": _attn_decode, "attn_prefill": _attn_prefill,
           "rownorm": _rownorm, "elementwise": _elementwise, "gather": _gather, "sampler": _sampler, "scan": _scan,
           "conv": _conv}
