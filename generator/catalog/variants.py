"""The optimization variants an engineer tries for each kernel class, their tunables and their resource use.

Variant tags and param names are the contract with the kernel templates
(`templates/<lang>/<kernel_class>/<tag>.{cu,py}`): each tuned constant below is a named constant there.
The first value of each param tuple is the default. `requires` lists hardware features (hardware.FEATURES);
tensor-core variants add fp8_mma / fp4_mma for fp8 / fp4 data (`requires_for`), and Triton needs fp8_mma for any
fp8 data. `ops`, when set, limits a variant to the ops where it makes sense; `dtypes` likewise.

class          lang   level, tag, params (requirements; TC = tensor cores; restrictions)
gemm           cuda   0 naive              BLOCK_M BLOCK_N
                      1 smem_tiled         BLOCK_M BLOCK_N BLOCK_K
                      2 reg_tiled          BLOCK_M BLOCK_N BLOCK_K TM TN
                      3 mma_sync           BLOCK_M BLOCK_N BLOCK_K NUM_WARPS  (TC)
                      3 dequant_mma        BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES  (cp_async; TC; dtypes fp4/fp8)
                      4 cp_async_pipeline  BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES  (cp_async; TC)
                      5 split_k            BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES SPLIT_K  (cp_async; TC)
                      6 wgmma_tma          BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES  (tma, wgmma; TC)
                      7 persistent         BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES CLUSTER_M  (clusters, tma, wgmma; TC)
gemm           triton 0 naive              BLOCK_M BLOCK_N BLOCK_K  (TC)
                      1 blocked            BLOCK_M BLOCK_N BLOCK_K NUM_WARPS  (TC)
                      2 pipelined          BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES  (TC)
                      3 grouped            BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES GROUP_M  (TC)
                      4 split_k            BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES SPLIT_K  (TC)
gemv           cuda   0 naive              NUM_THREADS
                      1 warp_shuffle       NUM_WARPS
                      2 vectorized         VEC NUM_WARPS ROWS_PER_WARP
                      3 split_k            VEC NUM_WARPS SPLIT_K
gemv           triton 0 naive              BLOCK_K  (= blocked, BLOCK_N 1 NUM_WARPS 4)
                      1 blocked            BLOCK_N BLOCK_K NUM_WARPS
                      2 split_k            BLOCK_N BLOCK_K NUM_WARPS SPLIT_K
attn_decode    cuda   0 naive              NUM_THREADS
                      1 warp_per_head      NUM_WARPS
                      2 vectorized         VEC NUM_WARPS
                      3 cp_async_pipeline  BLOCK_N NUM_STAGES NUM_WARPS  (cp_async)
                      4 split_kv           BLOCK_N NUM_STAGES NUM_WARPS SPLITS  (cp_async)
                      5 mma_sync           BLOCK_N NUM_STAGES NUM_WARPS SPLITS  (cp_async; TC; only mla_decode/tree_attn)
                      5 tma_pipeline       BLOCK_N NUM_STAGES NUM_WARPS SPLITS  (tma)
                      6 wgmma_tma          BLOCK_N NUM_STAGES SPLITS  (tma, wgmma; TC; only mla_decode/tree_attn)
attn_decode    triton 0 naive              BLOCK_N  (TC*; = blocked, NUM_WARPS 4, NUM_STAGES 1)
                      1 blocked            BLOCK_N NUM_WARPS NUM_STAGES  (TC*)
                      2 split_kv           BLOCK_N NUM_WARPS NUM_STAGES SPLITS  (TC*)
attn_prefill   cuda   0 naive              NUM_THREADS
                      1 smem_tiled         BLOCK_M BLOCK_N NUM_WARPS
                      2 mma_sync           BLOCK_M BLOCK_N NUM_WARPS  (TC)
                      3 cp_async_pipeline  BLOCK_M BLOCK_N NUM_WARPS NUM_STAGES  (cp_async; TC)
                      4 tma_pipeline       BLOCK_M BLOCK_N NUM_WARPS NUM_STAGES  (tma; TC)
                      5 wgmma_tma          BLOCK_M BLOCK_N NUM_STAGES NUM_WARPS  (tma, wgmma; TC)
attn_prefill   triton 0 naive              BLOCK_M BLOCK_N  (TC)
                      1 blocked            BLOCK_M BLOCK_N NUM_WARPS NUM_STAGES  (TC)
rownorm        cuda   0 naive              NUM_THREADS
                      1 block_reduce       NUM_THREADS
                      2 warp_shuffle       NUM_THREADS
                      3 vectorized         VEC NUM_THREADS
                      4 register_cached    VEC NUM_THREADS ROWS_PER_BLOCK
                      5 cluster_reduce     VEC NUM_THREADS CLUSTER_SIZE  (clusters)
rownorm        triton 0 naive              BLOCK_N
                      1 blocked            BLOCK_N NUM_WARPS
                      2 multi_row          BLOCK_N NUM_WARPS ROWS_PER_PROG
elementwise    cuda   0 naive              NUM_THREADS
                      1 vectorized         VEC NUM_THREADS
                      2 grid_stride        VEC NUM_THREADS UNROLL
elementwise    triton 0 naive              BLOCK_SIZE  (= blocked, NUM_WARPS 4)
                      1 blocked            BLOCK_SIZE NUM_WARPS
gather         cuda   0 naive              NUM_THREADS
                      1 warp_per_row       NUM_WARPS
                      2 vectorized         VEC NUM_WARPS
                      3 tma_bulk           ROWS_PER_BLOCK NUM_STAGES  (tma)
gather         triton 0 naive              BLOCK_C  (= blocked, NUM_WARPS 4)
                      1 blocked            BLOCK_C NUM_WARPS
sampler        cuda   0 naive              NUM_THREADS
                      1 block_reduce       NUM_THREADS
                      2 radix_select       RADIX_BITS NUM_THREADS VEC
                      3 split_row          SPLITS RADIX_BITS NUM_THREADS
sampler        triton 0 naive              BLOCK_V  (= blocked, NUM_WARPS 4)
                      1 blocked            BLOCK_V NUM_WARPS
                      2 split_row          BLOCK_V NUM_WARPS SPLITS  (only the token samplers)
scan           cuda   0 naive              NUM_THREADS
                      1 warp_shuffle       NUM_WARPS
                      2 vectorized         VEC NUM_WARPS
                      3 chunked_scan       CHUNK NUM_WARPS VEC  (only mamba_scan)
                      4 cp_async_pipeline  CHUNK NUM_WARPS VEC NUM_STAGES  (cp_async; only mamba_scan)
scan           triton 0 naive              BLOCK_D  (= blocked, NUM_WARPS 4)
                      1 blocked            BLOCK_D NUM_WARPS
                      2 chunked_scan       BLOCK_D CHUNK NUM_WARPS  (only mamba_scan)
conv           cuda   0 naive              NUM_THREADS
                      1 smem_tiled         BLOCK_M BLOCK_N NUM_WARPS
                      2 vectorized         VEC NUM_THREADS  (only conv1d_causal)
                      3 implicit_gemm      BLOCK_M BLOCK_N BLOCK_K NUM_WARPS  (TC; only conv2d_nhwc)
                      4 cp_async_pipeline  BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES  (cp_async; TC; only conv2d_nhwc)
conv           triton 0 naive              BLOCK_M  (TC*; = blocked, BLOCK_N 32 BLOCK_K 32 NUM_WARPS 4 NUM_STAGES 1)
                      1 blocked            BLOCK_M BLOCK_N BLOCK_K NUM_WARPS NUM_STAGES  (TC*)

TC*: tensor cores for some ops only, as their op snippets decide (`Variant.tc_ops`): Triton attn_decode's
`tl.dot` serves several query rows per KV stream (mla_decode's heads, tree_attn's drafts), while flash_decode,
triton_flash_decode and swa_decode score their one query with elementwise products and `tl.sum` on CUDA cores;
Triton conv dots for conv2d_nhwc, conv1d_causal is a depthwise FIR on CUDA cores. CUDA attn_decode's
cp_async_pipeline, split_kv and tma_pipeline take shuffle-reduced fp32 dot products for every op (no mma). Its two
level-5 variants are the two ways on from split_kv: mma_sync (sm_80+) puts the ops with many query rows per KV stream
on mma.sync tensor cores, FlashAttention-2 / FlashInfer style, fed by the same cp.async pipeline; tma_pipeline (Hopper)
feeds the CUDA-core code with TMA. wgmma_tma then takes both steps on Hopper.

`= blocked, ...`: the naive template is the blocked code with those tunables written as constants (`Variant.fixed`),
so the two share every efficiency and resource function and differ only through the params.

`mem_eff` and `comp_eff` are each variant's ceiling (the fraction of peak bandwidth / of its arithmetic path that
the access pattern and instruction mix allow at best); perf.py turns params, occupancy and the GPU into the rest.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Callable, Mapping, NamedTuple

from generator.catalog.calibration import REG_TILED_FRAC, SMEM_TILED_FRAC
from generator.catalog.hardware import GPU, GPUS, has
from generator.catalog.ops import ELEMENT_BYTES, OPS
from generator.catalog.resources import register_refusal, static_refusal, triton_refusal

Params = Mapping[str, int]
_Fn = Callable[[Params, float, dict], float]

# Canonical dims used when a resource question is asked without a task (see ops.py for their meaning).
DEFAULT_DIMS = {
    "gemm": {"M": 4096, "N": 4096, "K": 4096, "G": 1}, "gemv": {"M": 1, "N": 4096, "K": 4096},
    "attn_decode": {"R": 256, "T": 4096, "D": 128, "Q": 1}, "attn_prefill": {"R": 32, "SQ": 4096, "SK": 4096, "D": 128,
                                                                             "CAUSAL": 1},
    "rownorm": {"R": 4096, "C": 4096}, "elementwise": {"N": 1 << 24, "C": 128}, "gather": {"R": 4096, "C": 4096},
    "sampler": {"R": 32, "C": 128256, "K": 50}, "scan": {"R": 5120, "L": 2048, "N": 16},
    "conv": {"M": 4096, "C": 320, "K": 320, "TAPS": 9},
}
_TC_DTYPE_FEATURE = {"fp8": "fp8_mma", "fp4": "fp4_mma"}


@dataclass(frozen=True, eq=False)
class Variant:
    """One (kernel_class, tag, impl): a singleton, compared and hashed by identity."""

    tag: str
    kernel_class: str
    level: int
    impls: frozenset[str]
    requires: frozenset[str]
    params: Mapping[str, tuple]
    tc: bool                      # arithmetic on tensor cores (mma.sync, wgmma, tl.dot), for the ops below
    mem_eff: float                # ceiling on the fraction of peak DRAM bandwidth
    comp_eff: float               # ceiling on the fraction of its arithmetic path's peak
    static_smem: bool             # __shared__ arrays (48 KB cap, ptxas error) rather than dynamic (opt-in cap)
    ops: frozenset[str] = frozenset()
    dtypes: frozenset[str] = frozenset()
    tc_ops: frozenset[str] = frozenset()    # the only ops whose snippet computes on tensor cores (empty: all)
    # a sibling's tunables that this template writes as constants (read as params by the model)
    fixed: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    _smem: _Fn = field(default=lambda p, e, d: 0, repr=False)
    _regs: _Fn = field(default=lambda p, e, d: 32, repr=False)
    _threads: Callable[[Params], int] = field(default=lambda p: 128, repr=False)

    def tensor_cores(self, op: str) -> bool:
        """Whether this variant's code for `op` does its arithmetic on tensor cores: where the templates share one
        structure, the op snippet decides (Triton attn_decode dots for MLA's heads, not for one query)."""
        return self.tc and (not self.tc_ops or op in self.tc_ops)

    def requires_for(self, dtype: str) -> frozenset[str]:
        """Features needed for `dtype` data: fp8/fp4 tensor-core math needs fp8_mma/fp4_mma; Triton has no fp8
        type below sm_89 at all."""
        extra = _TC_DTYPE_FEATURE.get(dtype)
        if extra and (self.tc or (dtype == "fp8" and "triton" in self.impls)) and self.tag != "dequant_mma":
            return self.requires | {extra}
        return self.requires

    def default_params(self) -> dict[str, int]:
        return {k: v[0] for k, v in self.params.items()}

    def all_params(self) -> list[dict[str, int]]:
        """Every legal combination, in a fixed order (the defaults first)."""
        keys = list(self.params)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(self.params[k] for k in keys))]

    def smem_bytes(self, params: Params, dtype: str, task=None) -> int:
        return int(self._smem(params, ELEMENT_BYTES[dtype], _dims(self, task)))

    def regs_per_thread(self, params: Params, dtype: str, task=None) -> int:
        return int(self._regs(params, ELEMENT_BYTES[dtype], _dims(self, task)))

    def threads(self, params: Params) -> int:
        return int(self._threads(params))


def _dims(variant: Variant, task) -> dict:
    """The op's sizes the resource model reads, plus CC, the target's compute capability (90 by default)."""
    if task is None:
        return {"CC": 90, **DEFAULT_DIMS[variant.kernel_class]}
    return _task_dims(task)


@lru_cache(maxsize=4096)   # asked for every candidate's launch check; the resource functions only read it
def _task_dims(task) -> dict:
    return {"CC": GPUS[task.gpu].cc, **OPS[task.op].dims(task.shape_dict())}


def _triton_stages(p, d, *, wgmma_path: bool = True) -> int:
    """Stages Triton keeps in shared memory: all of them where it pipelines into wgmma (cc 9.x), one fewer where
    it pipelines with cp.async into mma.sync (cc 8.x, 12.x, and dequantizing kernels everywhere); measured with
    triton.compile(...).metadata.shared on 16-byte-aligned arguments, as a real launch passes them."""
    stages = p.get("NUM_STAGES", 1)
    return stages if wgmma_path and 90 <= d["CC"] < 100 else max(1, stages - 1)


_ALL: list[Variant] = []


def _v(kclass, impl, level, tag, params, *, tc=False, mem=0.9, comp=0.5, requires=(), static=False, ops=(),
       dtypes=(), smem=None, regs=None, threads=None, fixed=None):
    """One variant; `tc` is True (tensor cores for every op), False, or the ops whose snippets use them."""
    fixed = MappingProxyType(dict(fixed or {}))
    _ALL.append(Variant(
        tag=tag, kernel_class=kclass, level=level, impls=frozenset({impl}), requires=frozenset(requires),
        params=MappingProxyType({k: tuple(v) for k, v in params.items()}), tc=bool(tc),
        tc_ops=frozenset(() if isinstance(tc, bool) else tc), mem_eff=mem, comp_eff=comp,
        static_smem=static, ops=frozenset(ops), dtypes=frozenset(dtypes), fixed=fixed,
        _smem=_reading(fixed, smem or (lambda p, e, d: 0)), _regs=_reading(fixed, regs or (lambda p, e, d: 32)),
        _threads=_reading(fixed, threads or (lambda p: 128))))


def _reading(fixed, fn):
    """`fn` reading the template's fixed constants (`Variant.fixed`) beside the tuned params."""
    return (lambda p, *dims: fn({**fixed, **p}, *dims)) if fixed else fn


def _triton_naive_blocked(kclass, naive_params, fixed, blocked_params, **model):
    """Triton's naive and blocked templates of `kclass`: one code, the naive file writing `fixed` of the blocked
    tunables as constants (NUM_WARPS = 4, ...). One code takes one set of efficiencies, tensor-core use and
    resource functions, so their times differ only through the params (small tiles, 4 warps, one stage). Where
    blocked's grid holds a naive configuration (its tiles at the fixed settings), blocked leaves out the last fixed
    setting's value (4 warps, one stage): otherwise switching variant would resubmit the same code."""
    if all(fixed[k] in blocked_params.get(k, ()) for k in fixed) and all(
            set(naive_params[k]) & set(blocked_params.get(k, ())) for k in naive_params):
        last = list(fixed)[-1]
        blocked_params = {**blocked_params, last: tuple(x for x in blocked_params[last] if x != fixed[last])}
    _v(kclass, "triton", 0, "naive", naive_params, fixed=fixed, **model)
    _v(kclass, "triton", 1, "blocked", blocked_params, **model)


def _warps(p):
    return 32 * p["NUM_WARPS"]


def _nthreads(p):
    return p["NUM_THREADS"]


def _acc_regs(p, n_threads):
    """Accumulator registers of an fp32 BLOCK_M x BLOCK_N tile spread over the block, plus addressing."""
    return 40 + p["BLOCK_M"] * p["BLOCK_N"] // n_threads


def _ab_tiles(p, e):
    return (p["BLOCK_M"] + p["BLOCK_N"]) * p["BLOCK_K"] * e


# ------------------------------------------------------------------------------------------------------ gemm
_MMA = {"BLOCK_M": (128, 64, 256), "BLOCK_N": (128, 64, 256), "BLOCK_K": (32, 64), "NUM_WARPS": (4, 8)}
_PIPE = {**_MMA, "NUM_STAGES": (3, 2, 4, 5)}
_WG = {"BLOCK_M": (128, 64, 256), "BLOCK_N": (128, 256, 64), "BLOCK_K": (64, 128), "NUM_WARPS": (8, 4),
       "NUM_STAGES": (4, 3, 5, 6)}
_wg_threads = lambda p: 32 * p["NUM_WARPS"] + 128  # noqa: E731  consumer warps + one producer warpgroup

_v("gemm", "cuda", 0, "naive", {"BLOCK_M": (16, 8, 32), "BLOCK_N": (16, 8, 32)}, mem=0.5, comp=0.45,
   threads=lambda p: p["BLOCK_M"] * p["BLOCK_N"], regs=lambda p, e, d: 28)
_v("gemm", "cuda", 1, "smem_tiled", {"BLOCK_M": (32, 64), "BLOCK_N": (32, 64), "BLOCK_K": (16, 32, 8)},
   mem=0.7, comp=SMEM_TILED_FRAC, static=True, smem=lambda p, e, d: _ab_tiles(p, e),
   threads=lambda p: p["BLOCK_M"] * p["BLOCK_N"] // 4, regs=lambda p, e, d: 40)
_v("gemm", "cuda", 2, "reg_tiled", {"BLOCK_M": (64, 128), "BLOCK_N": (64, 128), "BLOCK_K": (8, 16, 32),
                                    "TM": (8, 4), "TN": (8, 4)},
   mem=0.8, comp=REG_TILED_FRAC, static=True, smem=lambda p, e, d: _ab_tiles(p, e),
   threads=lambda p: p["BLOCK_M"] * p["BLOCK_N"] // (p["TM"] * p["TN"]),
   regs=lambda p, e, d: 40 + p["TM"] * p["TN"] + p["TM"] + p["TN"])
_v("gemm", "cuda", 3, "mma_sync", _MMA, tc=True, mem=0.85, comp=0.62,
   smem=lambda p, e, d: _ab_tiles(p, e), threads=_warps, regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_v("gemm", "cuda", 3, "dequant_mma", {**_MMA, "NUM_STAGES": (4, 2, 3, 5)}, tc=True, mem=0.9, comp=0.7,
   requires=("cp_async",), dtypes=("fp8", "fp4"),
   smem=lambda p, e, d: p["NUM_STAGES"] * _ab_tiles(p, e), threads=_warps,
   regs=lambda p, e, d: _acc_regs(p, _warps(p)) + 16)
_v("gemm", "cuda", 4, "cp_async_pipeline", _PIPE, tc=True, mem=0.9, comp=0.86, requires=("cp_async",),
   smem=lambda p, e, d: p["NUM_STAGES"] * _ab_tiles(p, e), threads=_warps,
   regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_v("gemm", "cuda", 5, "split_k", {**_PIPE, "SPLIT_K": (4, 2, 8, 16)}, tc=True, mem=0.9, comp=0.84,
   requires=("cp_async",), smem=lambda p, e, d: p["NUM_STAGES"] * _ab_tiles(p, e), threads=_warps,
   regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_NO_FP4 = ("fp16", "bf16", "int8", "fp8", "int4")   # no fp4 wgmma exists: fp4 mma is sm_120a's mma.sync
_v("gemm", "cuda", 6, "wgmma_tma", _WG, tc=True, mem=0.93, comp=0.84, requires=("wgmma", "tma"), dtypes=_NO_FP4,
   smem=lambda p, e, d: p["NUM_STAGES"] * _ab_tiles(p, e), threads=_wg_threads,
   regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_v("gemm", "cuda", 7, "persistent", {**_WG, "CLUSTER_M": (2, 1)}, tc=True, mem=0.95, comp=0.87,
   requires=("wgmma", "tma", "clusters"), dtypes=_NO_FP4,
   smem=lambda p, e, d: p["NUM_STAGES"] * _ab_tiles(p, e) + p["BLOCK_M"] * p["BLOCK_N"] * 2, threads=_wg_threads,
   regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_TG = {"BLOCK_M": (128, 64, 256), "BLOCK_N": (128, 64, 256), "BLOCK_K": (32, 64, 128), "NUM_WARPS": (4, 8)}
def _tsmem(p, e, d):
    """Triton GEMM tiles: int4 weights are dequantized from bytes next to fp16 activations (mma.sync path)."""
    if e < 1:
        return _triton_stages(p, d, wgmma_path=False) * (p["BLOCK_M"] * 2 + p["BLOCK_N"]) * p["BLOCK_K"]
    return _triton_stages(p, d) * _ab_tiles(p, e)

_v("gemm", "triton", 0, "naive", {"BLOCK_M": (32, 16, 64), "BLOCK_N": (32, 16, 64), "BLOCK_K": (32, 16)}, tc=True,
   mem=0.6, comp=0.25, smem=_tsmem, threads=lambda p: 128, regs=lambda p, e, d: 64)
_v("gemm", "triton", 1, "blocked", _TG, tc=True, mem=0.8, comp=0.6, smem=_tsmem, threads=_warps,
   regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_v("gemm", "triton", 2, "pipelined", {**_TG, "NUM_STAGES": (3, 2, 4, 5)}, tc=True, mem=0.88, comp=0.8,
   smem=_tsmem, threads=_warps, regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_v("gemm", "triton", 3, "grouped", {**_TG, "NUM_STAGES": (3, 2, 4, 5), "GROUP_M": (8, 4, 16)}, tc=True,
   mem=0.9, comp=0.82, smem=_tsmem, threads=_warps, regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_v("gemm", "triton", 4, "split_k", {**_TG, "NUM_STAGES": (3, 2, 4), "SPLIT_K": (4, 2, 8, 16)}, tc=True,
   dtypes=("fp16", "bf16", "int8", "int4"),   # tl.atomic_add has no fp8: split-K partials need a wider type
   mem=0.88, comp=0.78, smem=_tsmem, threads=_warps, regs=lambda p, e, d: _acc_regs(p, _warps(p)))

# ------------------------------------------------------------------------------------------------------ gemv
_v("gemv", "cuda", 0, "naive", {"NUM_THREADS": (256, 128)}, mem=0.3, comp=0.3, threads=_nthreads)
_v("gemv", "cuda", 1, "warp_shuffle", {"NUM_WARPS": (4, 8, 2)}, mem=0.55, comp=0.5, threads=_warps)
_v("gemv", "cuda", 2, "vectorized", {"VEC": (8, 4, 2, 16, 32), "NUM_WARPS": (4, 8, 2), "ROWS_PER_WARP": (1, 2, 4)},
   mem=0.93, comp=0.7, threads=_warps, regs=lambda p, e, d: 32 + p["VEC"] * p["ROWS_PER_WARP"])
_v("gemv", "cuda", 3, "split_k", {"VEC": (8, 4, 16, 32), "NUM_WARPS": (4, 8, 2), "SPLIT_K": (4, 2, 8)},
   mem=0.93, comp=0.7, threads=_warps, regs=lambda p, e, d: 32 + p["VEC"])
_triton_naive_blocked("gemv", {"BLOCK_K": (32, 64)}, {"BLOCK_N": 1, "NUM_WARPS": 4},   # an output per program
                      {"BLOCK_N": (64, 32, 128), "BLOCK_K": (128, 64, 256, 512), "NUM_WARPS": (4, 2, 8)},
                      mem=0.88, comp=0.6, threads=_warps,
                      regs=lambda p, e, d: 32 + p["BLOCK_N"] * p["BLOCK_K"] // _warps(p))
_v("gemv", "triton", 2, "split_k", {"BLOCK_N": (64, 32, 128), "BLOCK_K": (128, 64, 256), "NUM_WARPS": (4, 2, 8),
                                    "SPLIT_K": (4, 2, 8)},
   mem=0.88, comp=0.6, threads=_warps, regs=lambda p, e, d: 32 + p["BLOCK_N"] * p["BLOCK_K"] // _warps(p))


# ------------------------------------------------------------------------------------------------ attn_decode
def _kv_tile(p, e, d):
    """K and V tiles of BLOCK_N keys (one shared latent tile for MLA, whose V is a slice of K)."""
    return p["BLOCK_N"] * d["D"] * e * d.get("KV", 2)


def _decode_regs(p, e, d, threads):
    """fp32 output rows (at most 64 query rows per CTA) and the score tile, spread over the block."""
    q = min(d["Q"], 64)
    return 40 + q * d["D"] // threads + p["BLOCK_N"] * q // threads


def mma_decode_rows(p, d) -> int:
    """Query rows a CUDA mma_sync decode block takes (its template's `Tiles::QN`): 16-row mma tiles, as many as keep
    the fp32 output tile within 96 registers a thread (counted over the key width D, at least the value width), 16
    to 64: MLA's 576-wide rows take 16 at 4 warps, 32 at 8; 128-wide heads 64."""
    return min(64, max(16, 96 * _warps(p) // d["D"] // 16 * 16))


def _mma_decode_smem(p, e, d):
    """Its template's `Tiles::SMEM`: fp32 scores and per-row softmax states, then Q, the K/V stages and P, every
    row padded by 16 bytes (conflict-free ldmatrix)."""
    rows, row = mma_decode_rows(p, d), d["D"] + 8
    return ((rows * (p["BLOCK_N"] + 4) + 3 * rows + 4) * 4
            + (rows * row + p["NUM_STAGES"] * p["BLOCK_N"] * row * d.get("KV", 2) + rows * (p["BLOCK_N"] + 8)) * e)


_v("attn_decode", "cuda", 0, "naive", {"NUM_THREADS": (128, 64, 256)}, mem=0.2, comp=0.3, threads=_nthreads,
   smem=lambda p, e, d: p["NUM_THREADS"] * 4, static=True)
_v("attn_decode", "cuda", 1, "warp_per_head", {"NUM_WARPS": (4, 8, 2)}, mem=0.5, comp=0.5, threads=_warps,
   smem=lambda p, e, d: _warps(p) * 4 + d["D"] * 4, static=True)
_v("attn_decode", "cuda", 2, "vectorized", {"VEC": (8, 4, 2), "NUM_WARPS": (4, 8, 2)}, mem=0.86, comp=0.6,
   threads=_warps, smem=lambda p, e, d: _warps(p) * 4 + d["D"] * 4, static=True,
   regs=lambda p, e, d: 40 + 2 * p["VEC"])
# The cp.async decodes run on every catalog GPU (sm_80+), so their defaults (32-key tiles) fit the smallest opt-in,
# A10's, A6000's and the RTX 5090's 99 KB, at every op's row width: 64-key tiles at 2 stages took 147,456 B for
# cp_async_pipeline / split_kv at MLA's 576-wide rows (swa_decode's D = 256: 131,072 B) and 175,056 B for mma_sync
# (tree_attn 114,448 B). Wide-head kernels size their tiles to the opt-in: FlashAttention-2's head-dim-224/256
# launchers read cudaDevAttrMaxSharedMemoryPerBlockOptin and take the smaller tile below 112 KB
# (csrc/flash_attn/src/flash_fwd_launch_template.h, run_mha_fwd_hdim224).
_DEC = {"BLOCK_N": (32, 64, 128), "NUM_STAGES": (2, 3, 4), "NUM_WARPS": (4, 8)}
_DOT_DECODE = ("mla_decode", "tree_attn")     # several query rows per KV stream: tl.dot / mma.sync (one query: tl.sum)
_v("attn_decode", "cuda", 3, "cp_async_pipeline", _DEC, mem=0.9, comp=0.6, requires=("cp_async",),
   smem=lambda p, e, d: p["NUM_STAGES"] * _kv_tile(p, e, d), threads=_warps,
   regs=lambda p, e, d: _decode_regs(p, e, d, _warps(p)))
_v("attn_decode", "cuda", 4, "split_kv", {**_DEC, "SPLITS": (4, 2, 8, 16, 32)}, mem=0.91, comp=0.6,
   requires=("cp_async",), smem=lambda p, e, d: p["NUM_STAGES"] * _kv_tile(p, e, d), threads=_warps,
   regs=lambda p, e, d: _decode_regs(p, e, d, _warps(p)))
# mma_sync: split_kv's cp.async streaming (FlashInfer decode, A100 included: bandwidth utilization "close to 100 %"
# for long KV, https://flashinfer.ai/2024/02/02/introduce-flashinfer.html), and FlashAttention-2's mma.sync forward
# ceiling (57-60 % of A100's 312 TFLOPS at head dim 128; docs/gpu_facts.md, Part 2): comp as attn_prefill/mma_sync,
# an upper bound here (Q is re-read by ldmatrix for each 16x8 score tile, P goes through shared memory; FA2's causal
# forward, masked like tree_attn, measured 31-51 %).
# Registers: the fp32 output tile a thread holds plus fragments and addressing (ptxas -v, nvcc 13.0: 68-127).
_v("attn_decode", "cuda", 5, "mma_sync", {**_DEC, "SPLITS": (4, 1, 2, 8, 16)}, tc=True, mem=0.91, comp=0.6,
   requires=("cp_async",), ops=_DOT_DECODE, smem=_mma_decode_smem, threads=_warps,
   regs=lambda p, e, d: 48 + mma_decode_rows(p, d) * d["D"] // _warps(p))
_v("attn_decode", "cuda", 5, "tma_pipeline", {"BLOCK_N": (64, 128, 32), "NUM_STAGES": (3, 2, 4, 6),
                                              "NUM_WARPS": (4, 8), "SPLITS": (1, 2, 4, 8, 16)},
   mem=0.96, comp=0.62, requires=("tma",),
   smem=lambda p, e, d: p["NUM_STAGES"] * _kv_tile(p, e, d), threads=_warps,
   regs=lambda p, e, d: _decode_regs(p, e, d, _warps(p)))
_v("attn_decode", "cuda", 6, "wgmma_tma", {"BLOCK_N": (64, 128, 32), "NUM_STAGES": (2, 3, 4), "SPLITS": (1, 2, 4, 8)},
   tc=True, mem=0.95, comp=0.8, requires=("wgmma", "tma"), ops=("mla_decode", "tree_attn"),
   smem=lambda p, e, d: p["NUM_STAGES"] * _kv_tile(p, e, d) + 64 * d["D"] * e, threads=lambda p: 384,
   regs=lambda p, e, d: 40 + 64 * d["D"] // 384)  # averaged: the producer warpgroup gives its registers away
_TDEC = {"BLOCK_N": (64, 32, 128), "NUM_WARPS": (4, 2, 8), "NUM_STAGES": (2, 1, 3, 4)}
def _triton_kv_stages(p, e, d):
    """Triton stages K/V tiles in shared memory only for tl.dot (several queries per KV head: GQA groups, MLA,
    tree attention); one query per head reduces in registers, and real kernels then use 1-2 KB."""
    return max(0, p["NUM_STAGES"] - 1) * _kv_tile(p, e, d) if d["Q"] > 1 else 2048


_triton_naive_blocked("attn_decode", {"BLOCK_N": (16, 32)}, {"NUM_WARPS": 4, "NUM_STAGES": 1}, _TDEC,
                      tc=_DOT_DECODE, mem=0.86, comp=0.55, threads=_warps, smem=_triton_kv_stages,
                      regs=lambda p, e, d: _decode_regs(p, e, d, _warps(p)) + p["BLOCK_N"] * d["D"] // _warps(p) // 2)
_v("attn_decode", "triton", 2, "split_kv", {**_TDEC, "SPLITS": (4, 2, 8, 16, 32)}, tc=_DOT_DECODE, mem=0.88, comp=0.55,
   threads=_warps, smem=_triton_kv_stages,
   regs=lambda p, e, d: _decode_regs(p, e, d, _warps(p)) + p["BLOCK_N"] * d["D"] // _warps(p) // 2)


# ----------------------------------------------------------------------------------------------- attn_prefill
def _prefill_smem(p, e, d):
    return (p["BLOCK_M"] + 2 * p.get("NUM_STAGES", 1) * p["BLOCK_N"]) * d["D"] * e


def _prefill_regs(p, e, d, threads):
    return 40 + p["BLOCK_M"] * (d["D"] + p["BLOCK_N"]) // threads


_PF = {"BLOCK_M": (128, 64), "BLOCK_N": (64, 32, 128), "NUM_WARPS": (4, 8)}
_v("attn_prefill", "cuda", 0, "naive", {"NUM_THREADS": (128, 256)}, mem=0.5, comp=0.35, threads=_nthreads)
_v("attn_prefill", "cuda", 1, "smem_tiled", {"BLOCK_M": (64, 32, 128), "BLOCK_N": (64, 32), "NUM_WARPS": (4, 8)},
   mem=0.7, comp=0.7, smem=_prefill_smem, threads=_warps, regs=lambda p, e, d: _prefill_regs(p, e, d, _warps(p)))
_v("attn_prefill", "cuda", 2, "mma_sync", _PF, tc=True, mem=0.8, comp=0.6, smem=_prefill_smem, threads=_warps,
   regs=lambda p, e, d: _prefill_regs(p, e, d, _warps(p)))
_v("attn_prefill", "cuda", 3, "cp_async_pipeline", {**_PF, "NUM_STAGES": (2, 1, 3)}, tc=True, mem=0.88, comp=0.72,
   requires=("cp_async",), smem=_prefill_smem, threads=_warps, regs=lambda p, e, d: _prefill_regs(p, e, d, _warps(p)))
_v("attn_prefill", "cuda", 4, "tma_pipeline", {**_PF, "NUM_STAGES": (2, 3, 4)}, tc=True, mem=0.9, comp=0.8,
   requires=("tma",), smem=_prefill_smem, threads=_warps, regs=lambda p, e, d: _prefill_regs(p, e, d, _warps(p)))
_v("attn_prefill", "cuda", 5, "wgmma_tma", {"BLOCK_M": (128, 64, 192), "BLOCK_N": (128, 64, 176), "NUM_STAGES": (2, 3, 4),
                                            "NUM_WARPS": (8, 12)},
   tc=True, mem=0.92, comp=0.82, requires=("wgmma", "tma"), smem=_prefill_smem, threads=lambda p: 32 * p["NUM_WARPS"] + 128,
   regs=lambda p, e, d: _prefill_regs(p, e, d, 32 * p["NUM_WARPS"]))
_v("attn_prefill", "triton", 0, "naive", {"BLOCK_M": (32, 16), "BLOCK_N": (32, 16)}, tc=True, mem=0.6, comp=0.25,
   smem=_prefill_smem, threads=lambda p: 128, regs=lambda p, e, d: _prefill_regs(p, e, d, 128))
_v("attn_prefill", "triton", 1, "blocked", {**_PF, "NUM_STAGES": (2, 1, 3, 4)}, tc=True, mem=0.86, comp=0.72,
   smem=lambda p, e, d: (p["BLOCK_M"] + 2 * _triton_stages(p, d) * p["BLOCK_N"]) * d["D"] * e,
   threads=_warps, regs=lambda p, e, d: _prefill_regs(p, e, d, _warps(p)))


# ---------------------------------------------------------------------------------------------------- rownorm
def _row_regs(p, e, d, threads):
    """A row cached in registers: C / threads elements per thread (spills past ~200 registers)."""
    return 32 + int(d["C"] * p.get("ROWS_PER_BLOCK", 1) / threads * max(e, 2) / 4 * 2)


_NT = (256, 128, 512, 1024)
_v("rownorm", "cuda", 0, "naive", {"NUM_THREADS": (256, 128)}, mem=0.45, comp=0.3, threads=_nthreads,
   smem=lambda p, e, d: 4, static=True)
_v("rownorm", "cuda", 1, "block_reduce", {"NUM_THREADS": _NT}, mem=0.55, comp=0.5, threads=_nthreads,
   smem=lambda p, e, d: p["NUM_THREADS"] * 4, static=True)
_v("rownorm", "cuda", 2, "warp_shuffle", {"NUM_THREADS": _NT}, mem=0.66, comp=0.6, threads=_nthreads,
   smem=lambda p, e, d: 32 * 4, static=True)
_v("rownorm", "cuda", 3, "vectorized", {"VEC": (8, 4, 2), "NUM_THREADS": _NT}, mem=0.84, comp=0.7,
   threads=_nthreads, smem=lambda p, e, d: 32 * 4, static=True, regs=lambda p, e, d: 32 + 2 * p["VEC"])
_v("rownorm", "cuda", 4, "register_cached", {"VEC": (8, 4, 2), "NUM_THREADS": _NT, "ROWS_PER_BLOCK": (1, 2, 4)},
   mem=0.93, comp=0.8, threads=_nthreads, smem=lambda p, e, d: 32 * 4 * p["ROWS_PER_BLOCK"], static=True,
   regs=lambda p, e, d: _row_regs(p, e, d, p["NUM_THREADS"]))
_v("rownorm", "cuda", 5, "cluster_reduce", {"VEC": (8, 4), "NUM_THREADS": (256, 512, 1024), "CLUSTER_SIZE": (4, 2, 8)},
   mem=0.92, comp=0.8, requires=("clusters",), threads=_nthreads, smem=lambda p, e, d: 32 * 4 * p["CLUSTER_SIZE"],
   regs=lambda p, e, d: 32 + int(d["C"] / (p["NUM_THREADS"] * p["CLUSTER_SIZE"]) * max(e, 2) / 2))
_v("rownorm", "triton", 0, "naive", {"BLOCK_N": (256, 128, 512)}, mem=0.5, comp=0.4, threads=lambda p: 128)
_TB = (1024, 2048, 4096, 8192, 16384)
_v("rownorm", "triton", 1, "blocked", {"BLOCK_N": _TB, "NUM_WARPS": (4, 8, 16, 2)}, mem=0.9, comp=0.7,
   threads=_warps, regs=lambda p, e, d: 32 + p["BLOCK_N"] // _warps(p) * 2)
# multi_row at ROWS_PER_PROG = 1 would be blocked's code (which writes it as a constant), so it takes 2 rows or
# more: the same ceilings, its gain on short rows is the rows a program takes (perf._rownorm)
_v("rownorm", "triton", 2, "multi_row", {"BLOCK_N": _TB, "NUM_WARPS": (4, 8, 16), "ROWS_PER_PROG": (2, 4, 8)},
   mem=0.9, comp=0.7, threads=_warps, regs=lambda p, e, d: 32 + p["BLOCK_N"] // _warps(p) * 2)

# ------------------------------------------------------------------------------------------------ elementwise
_v("elementwise", "cuda", 0, "naive", {"NUM_THREADS": _NT}, mem=0.5, comp=0.4, threads=_nthreads)
_v("elementwise", "cuda", 1, "vectorized", {"VEC": (8, 4, 2), "NUM_THREADS": _NT}, mem=0.88, comp=0.6,
   threads=_nthreads, regs=lambda p, e, d: 24 + 2 * p["VEC"])
_v("elementwise", "cuda", 2, "grid_stride", {"VEC": (8, 4, 2), "NUM_THREADS": (256, 128, 512), "UNROLL": (4, 1, 2, 8)},
   mem=0.93, comp=0.7, threads=_nthreads, regs=lambda p, e, d: 24 + 2 * p["VEC"] * p["UNROLL"])
_triton_naive_blocked("elementwise", {"BLOCK_SIZE": (128, 256)}, {"NUM_WARPS": 4},
                      {"BLOCK_SIZE": (1024, 512, 2048, 4096, 256, 8192), "NUM_WARPS": (4, 8, 2, 1, 16)},
                      mem=0.9, comp=0.6, threads=_warps, regs=lambda p, e, d: 24 + p["BLOCK_SIZE"] // _warps(p) * 2)

# ----------------------------------------------------------------------------------------------------- gather
_v("gather", "cuda", 0, "naive", {"NUM_THREADS": (256, 128, 512, 64)}, mem=0.4, comp=0.5, threads=_nthreads)
_v("gather", "cuda", 1, "warp_per_row", {"NUM_WARPS": (4, 8, 2, 1, 16)}, mem=0.62, comp=0.5, threads=_warps)
_v("gather", "cuda", 2, "vectorized", {"VEC": (8, 4, 2, 1), "NUM_WARPS": (4, 8, 2, 1, 16)}, mem=0.88, comp=0.6,
   threads=_warps, regs=lambda p, e, d: 24 + 2 * p["VEC"])
_v("gather", "cuda", 3, "tma_bulk", {"ROWS_PER_BLOCK": (4, 8, 16, 2), "NUM_STAGES": (2, 3, 4)}, mem=0.94, comp=0.6,
   requires=("tma",), threads=lambda p: 128,
   smem=lambda p, e, d: p["NUM_STAGES"] * p["ROWS_PER_BLOCK"] * d["C"] * e)
_triton_naive_blocked("gather", {"BLOCK_C": (128, 256)}, {"NUM_WARPS": 4},
                      {"BLOCK_C": (1024, 512, 2048, 4096, 256, 8192), "NUM_WARPS": (4, 8, 2, 1, 16)},
                      mem=0.88, comp=0.6, threads=_warps, regs=lambda p, e, d: 24 + p["BLOCK_C"] // _warps(p))

# ---------------------------------------------------------------------------------------------------- sampler
_v("sampler", "cuda", 0, "naive", {"NUM_THREADS": (256, 128)}, mem=0.5, comp=0.3, threads=_nthreads,
   smem=lambda p, e, d: p["NUM_THREADS"] * 8, static=True)
_v("sampler", "cuda", 1, "block_reduce", {"NUM_THREADS": (512, 256, 1024)}, mem=0.75, comp=0.5,
   threads=_nthreads, smem=lambda p, e, d: p["NUM_THREADS"] * 8, static=True)
_v("sampler", "cuda", 2, "radix_select", {"RADIX_BITS": (8, 4, 11), "NUM_THREADS": (512, 256, 1024), "VEC": (4, 2, 1)},
   mem=0.9, comp=0.6, threads=_nthreads, smem=lambda p, e, d: (1 << p["RADIX_BITS"]) * 4 * 4,
   regs=lambda p, e, d: 32 + 4 * p["VEC"])
_v("sampler", "cuda", 3, "split_row", {"SPLITS": (8, 4, 16, 32), "RADIX_BITS": (8, 11), "NUM_THREADS": (512, 256)},
   mem=0.9, comp=0.6, threads=_nthreads, smem=lambda p, e, d: (1 << p["RADIX_BITS"]) * 4 * 4)
_triton_naive_blocked("sampler", {"BLOCK_V": (1024, 2048)}, {"NUM_WARPS": 4},
                      {"BLOCK_V": (4096, 2048, 8192, 16384), "NUM_WARPS": (8, 4, 16)},
                      mem=0.85, comp=0.5, threads=_warps, regs=lambda p, e, d: 32 + p["BLOCK_V"] // _warps(p) * 2)
# Only the samplers' vocabulary rows are split: a router row (E <= 256 experts) is one BLOCK_V tile, so
# moe_topk_gating has nothing to divide among SPLITS programs.
_v("sampler", "triton", 2, "split_row", {"BLOCK_V": (4096, 2048, 8192), "NUM_WARPS": (8, 4, 16), "SPLITS": (8, 4, 16, 32)},
   mem=0.86, comp=0.5, ops=("topk_sample", "nucleus_sample", "minp_sample"), threads=_warps,
   regs=lambda p, e, d: 32 + p["BLOCK_V"] // _warps(p) * 2)

# ------------------------------------------------------------------------------------------------------- scan
_v("scan", "cuda", 0, "naive", {"NUM_THREADS": (128, 256, 64, 512)}, mem=0.4, comp=0.2, threads=_nthreads)
_v("scan", "cuda", 1, "warp_shuffle", {"NUM_WARPS": (4, 8, 2, 16, 1)}, mem=0.6, comp=0.4, threads=_warps,
   regs=lambda p, e, d: 32 + 2 * d["N"])
_v("scan", "cuda", 2, "vectorized", {"VEC": (4, 8, 2, 1), "NUM_WARPS": (4, 8, 2, 16, 1)}, mem=0.85, comp=0.5, threads=_warps,
   regs=lambda p, e, d: 32 + 2 * d["N"] + 2 * p["VEC"])
_v("scan", "cuda", 3, "chunked_scan", {"CHUNK": (128, 64, 256, 512), "NUM_WARPS": (4, 8), "VEC": (4, 8, 2)},
   mem=0.88, comp=0.75, ops=("mamba_scan",), threads=_warps,
   smem=lambda p, e, d: p["CHUNK"] * (2 * d["N"] * e + 8), regs=lambda p, e, d: 32 + 2 * d["N"] + 4 * p["VEC"])
# Default 64-step chunks: the variant runs on every catalog GPU (sm_80+), and 128 steps at 2 stages took 147,456 B,
# over A10's, A6000's and the RTX 5090's 99 KB opt-in (64: 73,728 B), as _DEC's decode tiles above.
_v("scan", "cuda", 4, "cp_async_pipeline", {"CHUNK": (64, 128, 256, 512), "NUM_WARPS": (4, 8), "VEC": (4, 8),
                                            "NUM_STAGES": (2, 3, 4)},
   mem=0.92, comp=0.82, requires=("cp_async",), ops=("mamba_scan",), threads=_warps,
   smem=lambda p, e, d: p["NUM_STAGES"] * p["CHUNK"] * (2 * d["N"] * e + 8) * 8,
   regs=lambda p, e, d: 32 + 2 * d["N"] + 4 * p["VEC"])
_triton_naive_blocked("scan", {"BLOCK_D": (32, 64)}, {"NUM_WARPS": 4},
                      {"BLOCK_D": (64, 128, 32, 256, 16, 512), "NUM_WARPS": (4, 8, 2, 1, 16)},
                      mem=0.82, comp=0.5, threads=_warps, regs=lambda p, e, d: 32 + p["BLOCK_D"] * d["N"] // _warps(p))
_v("scan", "triton", 2, "chunked_scan", {"BLOCK_D": (64, 128, 32), "CHUNK": (64, 128, 256), "NUM_WARPS": (4, 8)},
   mem=0.86, comp=0.7, ops=("mamba_scan",), threads=_warps,
   smem=lambda p, e, d: p["CHUNK"] * (2 * d["N"] * e + 8) * 2,
   regs=lambda p, e, d: 32 + p["BLOCK_D"] * d["N"] // _warps(p))

# ------------------------------------------------------------------------------------------------------- conv
_v("conv", "cuda", 0, "naive", {"NUM_THREADS": (256, 128)}, mem=0.4, comp=0.35, threads=_nthreads)
_v("conv", "cuda", 1, "smem_tiled", {"BLOCK_M": (64, 128, 32), "BLOCK_N": (64, 32, 128), "NUM_WARPS": (4, 8, 2)},
   mem=0.7, comp=0.75, static=True, threads=_warps,
   smem=lambda p, e, d: (p["BLOCK_M"] + p["BLOCK_N"]) * min(d["C"] * d["TAPS"], 32) * e + d["TAPS"] * p["BLOCK_N"] * e)
_v("conv", "cuda", 2, "vectorized", {"VEC": (8, 4, 2), "NUM_THREADS": (128, 256, 512)}, mem=0.9, comp=0.6,
   ops=("conv1d_causal",), threads=_nthreads, regs=lambda p, e, d: 32 + p["VEC"] * (d["TAPS"] + 1))
_v("conv", "cuda", 3, "implicit_gemm", _MMA, tc=True, mem=0.85, comp=0.7, ops=("conv2d_nhwc",),
   smem=lambda p, e, d: _ab_tiles(p, e), threads=_warps, regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_v("conv", "cuda", 4, "cp_async_pipeline", _PIPE, tc=True, mem=0.9, comp=0.82, requires=("cp_async",),
   ops=("conv2d_nhwc",), smem=lambda p, e, d: p["NUM_STAGES"] * _ab_tiles(p, e), threads=_warps,
   regs=lambda p, e, d: _acc_regs(p, _warps(p)))
_triton_naive_blocked("conv", {"BLOCK_M": (32, 64)}, {"BLOCK_N": 32, "BLOCK_K": 32, "NUM_WARPS": 4, "NUM_STAGES": 1},
                      {"BLOCK_M": (64, 128, 32), "BLOCK_N": (64, 32, 128), "BLOCK_K": (32, 64), "NUM_WARPS": (4, 8),
                       "NUM_STAGES": (2, 3, 4)},
                      tc=("conv2d_nhwc",), mem=0.86, comp=0.75, threads=_warps,   # conv1d_causal: no tl.dot
                      smem=lambda p, e, d: _triton_stages(p, d) * _ab_tiles(p, e),
                      regs=lambda p, e, d: _acc_regs(p, _warps(p)))

VARIANTS: tuple[Variant, ...] = tuple(_ALL)
KERNEL_CLASSES: tuple[str, ...] = tuple(dict.fromkeys(v.kernel_class for v in VARIANTS))
_BY_KEY = {(v.kernel_class, v.tag, next(iter(v.impls))): v for v in VARIANTS}
assert len(_BY_KEY) == len(VARIANTS), "duplicate (kernel_class, tag, impl)"


def variant(kernel_class: str, tag: str, impl: str) -> Variant:
    """The variant with this (kernel_class, tag, impl); KeyError names what is missing."""
    try:
        return _BY_KEY[(kernel_class, tag, impl)]
    except KeyError:
        raise KeyError(f"no variant {tag!r} for kernel class {kernel_class!r} in {impl}") from None


def variants_for(op_name: str, impl: str, dtype: str | None = None) -> list[Variant]:
    """The variants an engineer can write for `op_name` in `impl` (for `dtype`, when given: a variant limited
    to some data types is no candidate for the others), ordered by level (then catalog order)."""
    found = _variants_for(op_name, impl)
    return [v for v in found if not v.dtypes or dtype in v.dtypes] if dtype else list(found)


@lru_cache(maxsize=None)
def _variants_for(op_name: str, impl: str) -> tuple[Variant, ...]:
    op = OPS[op_name]
    if impl not in op.impls:
        raise ValueError(f"{op_name} has no {impl} implementation (impls: {', '.join(op.impls)})")
    found = [v for v in VARIANTS if v.kernel_class == op.kernel_class and impl in v.impls
             and (not v.ops or op_name in v.ops) and (not v.dtypes or set(v.dtypes) & set(op.dtypes))]
    return tuple(sorted(found, key=lambda v: v.level))


def legal_on(variant: Variant, gpu: GPU | str, dtype: str) -> bool:
    """True when `gpu` has every feature the variant needs for `dtype` (and the variant applies to `dtype`)."""
    g = GPUS[gpu] if isinstance(gpu, str) else gpu
    if variant.dtypes and dtype not in variant.dtypes:
        return False
    return variant.requires_for(dtype) <= g.features


COMPILE_GATED = frozenset({"wgmma", "tma", "fp8_mma", "fp4_mma", "cp_async"})   # ptxas refuses these off-target


@lru_cache(maxsize=None)
def lacking(variant, dtype: str, gpu_name: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the features a CUDA variant needs for `dtype` that the GPU lacks, those of them ptxas refuses to compile):
    the same for every render of the variant (~140K clean renders a run)."""
    gpu = GPUS[gpu_name]
    missing = frozenset(f for f in variant.requires_for(dtype) if not has(gpu, f))
    return missing, missing & COMPILE_GATED | (missing & {"clusters"} if gpu.cc < 90 else frozenset())


def check_params(variant: Variant, params: Params) -> None:
    """Raise ValueError unless `params` names exactly the variant's tunables with legal values."""
    if set(params) != set(variant.params):
        raise ValueError(f"{variant.tag}: params {sorted(params)} != tunables {sorted(variant.params)}")
    for k, v in params.items():
        if v not in variant.params[k]:
            raise ValueError(f"{variant.tag}: {k}={v} not in {variant.params[k]}")


def register_suspect(variant: Variant, params: Params, gpu: GPU, dtype: str, task=None) -> bool:
    """True when the register estimate says a CUDA launch might be refused (Triton caps registers by num_warps
    and spills instead): the configurations `record-resources` compiles."""
    if "triton" in variant.impls:
        return False
    return _registers_over(variant, params, gpu, ELEMENT_BYTES[dtype], _dims(variant, task), variant.threads(params))


def _registers_over(variant: Variant, params: Params, gpu: GPU, e: float, d: dict, threads: int) -> bool:
    """register_suspect's estimate (at most 255 a thread) over the register file, for a caller that has the
    element bytes, dims and threads at hand already (launch_refusal, on every candidate)."""
    return min(255, int(variant._regs(params, e, d))) * threads > gpu.regs_per_sm


class Refusal(NamedTuple):
    """A launch limit a configuration hits: the cap (one name per limit the tools check; dynamic shared memory alone
    and beside the static arrays share the opt-in cap), the figure over it, and the tool's text (a CUDA refusal's:
    the runtime's error string, then the figures behind it, which the report does not print). What an engineer who
    reads the refusal must lower is the figure, worked out from the source (Workbench.shrunk)."""
    cap: str
    figure: int
    text: str


def launch_limits(variant: Variant, params: Params, gpu: GPU | str, dtype: str, task=None) -> str | None:
    """None when the kernel can launch on `gpu`, else the reason, worded as the failing tool reports it."""
    refused = launch_refusal(variant, params, gpu, dtype, task)
    return None if refused is None else refused.text


def launch_refusal(variant: Variant, params: Params, gpu: GPU | str, dtype: str, task=None) -> Refusal | None:
    """None when the kernel can launch on `gpu`, else the limit it hits.

    Checked in the order the toolchain hits them: static shared memory (ptxas), then threads, registers and
    dynamic shared memory, alone and then with the static arrays beside it, at launch (CUDA runtime) or Triton's
    OutOfResources. Pass `task` for the exact shape-dependent figures (head dim, row length); without it,
    DEFAULT_DIMS are assumed (and static arrays are not looked up)."""
    g = GPUS[gpu] if isinstance(gpu, str) else gpu
    e, d = ELEMENT_BYTES[dtype], _dims(variant, task)
    smem = int(variant._smem(params, e, d))      # smem_bytes and regs_per_thread, with the dims looked up once
    threads = int(variant._threads(params))
    triton = "triton" in variant.impls
    if variant.static_smem and smem > g.smem_static_max:
        return Refusal("static_smem", smem, f"ptxas error   : Entry function uses too much shared data "
                                            f"({smem:#x} bytes, {g.smem_static_max:#x} max)")
    if threads > 1024:
        return Refusal("threads", threads, f"invalid configuration argument: {threads} threads per block > 1024")
    if not triton and _registers_over(variant, params, g, e, d, threads):
        # the estimate only nominates: the claim needs ptxas's recorded figures (catalog/resources.py)
        refused = register_refusal(task, variant, params, g)
        if refused:
            return Refusal("registers", *refused)
    if triton:   # Triton's recorded allocation, not the estimate (catalog/resources.py)
        refused = triton_refusal(task, variant, params, g, smem)
        return None if refused is None else Refusal("triton_smem", *refused)
    if not variant.static_smem and smem > g.smem_dyn_max:
        return Refusal("optin_smem", smem, f"invalid argument: {smem} bytes of dynamic shared memory > "
                                           f"{g.smem_dyn_max} (cudaFuncAttributeMaxDynamicSharedMemorySize)")
    if not variant.static_smem:   # the template's static arrays count against the same cap (ptxas's figure)
        refused = static_refusal(task, variant, params, g, smem)
        return None if refused is None else Refusal("optin_smem", *refused)
    return None


@lru_cache(maxsize=None)
def variant_requires(op: str, impl: str, tag: str, dtype: str) -> frozenset:
    """The hardware features variant `tag` of (op, impl) needs for `dtype` (both datasets' arch-gating QA checks)."""
    for v in variants_for(op, impl, dtype):
        if v.tag == tag:
            return frozenset(v.requires_for(dtype))
    raise ValueError(f"unknown variant tag {tag!r} for {op}/{impl}")


@lru_cache(maxsize=None)
def gpu_lacks(op: str, impl: str, dtype: str, gpu: str) -> dict[str, frozenset]:
    """Variant tag -> the features it needs for `dtype` that `gpu` lacks, for every variant of (op, impl): the
    shortcuts' arch gating in one lookup per step (an unknown tag is a KeyError where `variant_requires` raises)."""
    have = GPUS[gpu].features
    return {v.tag: variant_requires(op, impl, v.tag, dtype) - have for v in variants_for(op, impl, dtype)}
