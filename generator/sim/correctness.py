"""The harness's correctness line: what comparing a candidate's output with the float64 reference shows.

Why a model of its own: the numbers must be physical. A correct copy or gather is bit-exact (error 0); ops whose
output is integer ids (samplers, MoE top-k) are compared id by id, so they report mismatching ids, never a float
error; a correct float op differs from the reference by the rounding of its output format, which scales with the
format's unit roundoff (fp16 2^-11, bf16 2^-8, fp8 e4m3 2^-4: IEEE 754 / OCP FP8 spec, precision p gives
u = 2^-p) times the output's magnitude, and with the accumulation error of the reduction as the candidate's
variant sums it (`accumulation_error`): a running sum of n terms grows like u sqrt(n) (Higham, "Accuracy and
Stability of Numerical Algorithms", 2nd ed., sec. 3.1, the probabilistic bound), so a tree or a split shortens the
chains, and Hopper's fp8 tensor cores keep the running sum in fewer bits than fp32. A wrong
result shows its bug's signature: a grid that rounds down leaves the last indices of one output axis uncomputed
(`grid_tail`), a wrong stride makes every index of one but the first wrong (`stride_shift`), a race differs from
run to run, a dropped scale is off nearly everywhere. The element counts are those of the op's output tensors
(`OUTPUTS`), so a report's mismatches and indices lie inside what the kernel writes. String formatting only: called
on every step.
"""
from __future__ import annotations

import hashlib
import math
from functools import lru_cache
from statistics import NormalDist
from typing import Callable, NamedTuple

from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.sim.grid_tail import Tail
from generator.sim.stride_shift import Shift

# Elementwise check: |out - ref| <= atol + rtol * |ref| against a float64 reference.
TOLERANCES = {"fp32": (1e-5, 1e-5), "fp16": (1e-2, 1e-2), "bf16": (2e-2, 2e-2), "fp8": (1e-1, 5e-2),
              "int8": (5e-2, 2e-2), "int4": (5e-2, 2e-2), "fp4": (1e-1, 1e-1)}
EXACT_OPS = frozenset({"paged_kv_copy", "kv_append", "embedding_gather", "moe_scatter"})   # pure data movement
ID_OPS = frozenset({"topk_sample", "nucleus_sample", "minp_sample", "moe_topk_gating"})    # integer ids out
# Unit roundoff of the output format: quantized-weight and int8/fp4 GEMMs write fp16 / bf16, fp8 quantization
# writes e4m3 (3 mantissa bits), fp32 ops fp32.
UNIT_ROUNDOFF = {"fp32": 2.0 ** -24, "fp16": 2.0 ** -11, "bf16": 2.0 ** -8, "fp8": 2.0 ** -4, "int8": 2.0 ** -11,
                 "int4": 2.0 ** -11, "fp4": 2.0 ** -8}
FP32_U = 2.0 ** -24
# Hopper's fp8 tensor cores (wgmma and mma.sync .e4m3 on sm_90) add into an accumulator that keeps ~14 bits (e8m13,
# the low 10 mantissa bits of the fp32 register truncated): DeepSeek-V3 technical report (arXiv 2412.19437)
# sec. 3.3.2 "Increasing Accumulation Precision" measures a max relative error of nearly 2% for K = 4096 without
# promotion; SageAttention2 (arXiv 2411.10958) and pytorch.org/blog/some-matrix-multiplication-engines-are-not-
# as-accurate-as-we-thought find the e8m13 accumulator on Hopper and Ada. Per running-sum term, the unit that
# gives the 2% at sqrt(4096): 0.02 / 64 (2.6 x the truncated format's 2^-13). Kernels that add each K block's
# partial product into fp32 registers on the CUDA cores (DeepSeek's N_C = 128 promotion) bound a chain to one block.
# Triton promotes never on sm_90 (its CUDA backend sets max_num_imprecise_acc_default = 2**30 for capability 90,
# triton-lang/triton#2300: the flag affects only Hopper's fp8 dot); sm_120's fp8 mma has no published accumulator
# measurement (thu-ml/SageAttention#287 asks, unanswered), so it is modelled as fp32.
FP8_TC_ACC_U = 0.02 / math.sqrt(4096)
FP8_MMA_K = 32            # K of one e4m3 mma.sync (m16n8k32) or wgmma (m64nNk32): a promotion per instruction
# e4m3 (OCP 8-bit FP spec): largest normal 448 = 1.75 * 2^8, 3 mantissa bits, so values in [256, 448] are 32 apart
E4M3_MAX, E4M3_TOP_BINADE, E4M3_TOP_ULP = 448.0, 256.0, 32.0
# Inputs are drawn N(0, 1), and the largest of the many elements of a normal quantity is taken at 4 standard
# deviations: a sum over L terms has |ref| up to ~4 sqrt(L); attention outputs 4 sqrt(e / keys)
# (`_largest_attention_output`); normalized outputs up to ~4.
LARGEST_NORMAL = 4.0
_SUM_CLASSES = frozenset({"gemm", "gemv", "conv"})
PROBABILITY_OPS = frozenset({"logits_softmax"})     # outputs are probabilities, far below 1 over a vocabulary
_ATTENTION_CLASSES = frozenset({"attn_decode", "attn_prefill"})   # outputs are softmax averages of values
_REDUCTION = {"gemm": ("K",), "gemv": ("K",), "conv": ("C", "TAPS"), "attn_decode": ("T",), "attn_prefill": ("SK",),
              "rownorm": ("C",), "scan": ("L",)}
# Per-token quantizers: the reduction is an absmax (exact), the output the e4m3 rounding of x / (amax / 448).
FP8_QUANT_OPS = frozenset({"per_token_fp8_quant"})
# Symmetric int8 quantizers (absmax: scale = amax / 127, Dettmers et al., "LLM.int8()", arXiv 2208.07339, sec. 2.1):
# the output's grid is uniform, one scale apart, so the dequantized error is at most half a scale, amax / 254.
INT8_QUANT_OPS = frozenset({"kv_int8_quant"})
INT8_MAX = 127.0
# Quantized kernels whose every dropped_scale site (faults._scale_sites over their templates) drops an absmax scale
# applied to the output: the Triton fp8 GEMM's per-tensor a_scale * b_scale, the int8 GEMMs' per-token a_scale[m]
# or per-channel b_scale[n] (Triton's epilogue, CUDA's store_c), the Triton int8 GEMV's per-channel scale. Such a
# scale is amax / qmax (e4m3 448, int8 127) with amax the largest of many N(0, 1) inputs, LARGEST_NORMAL; without it
# every output of its tensor, row or column is ref / scale, so out / ref is qmax / amax (both operands' for the fp8
# GEMM).
OUTPUT_SCALE_RATIOS = {("fp8_gemm", "triton"): (E4M3_MAX / LARGEST_NORMAL) ** 2,
                       ("int8_gemm", "triton"): INT8_MAX / LARGEST_NORMAL,
                       ("int8_gemm", "cuda"): INT8_MAX / LARGEST_NORMAL,
                       ("int8_gemv", "triton"): INT8_MAX / LARGEST_NORMAL}
# Largest magnitudes of the grids a block's absmax maps to: e2m1 6 (OCP Microscaling Formats spec v1.0, FP4 E2M1;
# NVFP4 scales each 16 values by amax / 6, NVIDIA "Introducing NVFP4", developer.nvidia.com blog, 2025), e4m3 448
# (DeepSeek-V3, arXiv 2412.19437 sec. 3.3.2: 1x128 activation tiles and 128x128 weight blocks, each scaled by its
# own max absolute value), and symmetric int4 with zero point 8 as the int4 templates store it: GPTQ's quantizer
# (IST-DASLab/gptq quant.py, Quantizer.find_params with sym=True) sets scale = (amax - -amax) / 15, so amax / 7.5.
E2M1_MAX, INT4_SYM_MAX = 6.0, 7.5


class BlockScale(NamedTuple):
    """A quantization scale that varies along K: the signature's tensor, the quantized values one scale covers
    (their absmax sets it) as a function of the shape, and the grid's largest magnitude."""

    tensor: str
    values: Callable[[dict], int]
    qmax: float


_GROUP_SCALES = (BlockScale("scales", lambda s: s["G"], INT4_SYM_MAX),)
# Kernels whose dropped_scale sites drop a scale that varies along K, with the share of the K terms one site leaves
# unscaled: dequant_mma (the only CUDA fp4 / fp8-blockwise variant with a site) multiplies k = 2t, 2t+1, 2t+8 and
# 2t+9 of each 16-deep mma step by the scale in four separate products per operand, so a deletion drops it from one
# k in four; the int4 kernels multiply every dequantized weight once. `dropped_block_scale` names the operand.
K_BLOCK_SCALES = {
    ("fp4_gemm", "cuda"): (0.25, (BlockScale("a_scale", lambda s: 16, E2M1_MAX),
                                  BlockScale("b_scale", lambda s: 16, E2M1_MAX))),
    ("fp8_blockwise_gemm", "cuda"): (0.25, (BlockScale("a_scale", lambda s: 128, E4M3_MAX),
                                            BlockScale("b_scale", lambda s: 128 * 128, E4M3_MAX))),
    ("int4_gemm", "triton"): (1.0, _GROUP_SCALES),
    ("int4_gemv", "cuda"): (1.0, _GROUP_SCALES),
    ("int4_gemv", "triton"): (1.0, _GROUP_SCALES),
}
# Threads whose sequential partial sums of one output are combined as a tree (warp shuffles, shared-memory halving),
# per CUDA template that does so (its header comment); every other variant sums an output in one thread's chain
# (tiled GEMMs: one accumulator register per output across K), cut into SPLIT_K / SPLITS ranges where it has them.
# A tree of n leaves adds log2(n) roundings to each sum (Higham, 2nd ed., sec. 4.2, pairwise summation), a sum cut
# into b-term blocks n / b + b (Blanchard, Higham, Mary, "A class of fast and accurate summation algorithms", SIAM
# J. Sci. Comput. 42(3), 2020, blocked summation); the probabilistic growth is the square root of either.
_TREE_LANES = {
    ("gemv", "warp_shuffle"): lambda p: 32, ("gemv", "vectorized"): lambda p: 32, ("gemv", "split_k"): lambda p: 32,
    ("rownorm", "block_reduce"): lambda p: p["NUM_THREADS"], ("rownorm", "warp_shuffle"): lambda p: p["NUM_THREADS"],
    ("rownorm", "vectorized"): lambda p: p["NUM_THREADS"],
    ("rownorm", "register_cached"): lambda p: p["NUM_THREADS"] // p["ROWS_PER_BLOCK"],
    ("rownorm", "cluster_reduce"): lambda p: p["NUM_THREADS"] * p["CLUSTER_SIZE"],
}


def tolerance_text(task) -> str:
    """The criterion the task states, the one its reports apply: exact for copies and ids, a tolerance otherwise."""
    if task.op in EXACT_OPS:
        return "bit-exact against the reference (a copy or gather: every output element must equal it)."
    if task.op in ID_OPS:
        if task.op == "moe_topk_gating":    # a deterministic router: no random draw to seed
            return ("ids compared exactly, slot by slot, with the reference's (descending weight, ties to the lower "
                    f"id); topk_weights within atol={TOLERANCES['fp32'][0]:g} (fp32).")
        return "ids compared exactly with the reference's (same Philox seeds)."
    atol, rtol = TOLERANCES[task.dtype]
    return (f"elementwise against a float64 reference, pass if |out - ref| <= atol + rtol * |ref| with "
            f"atol={atol:g}, rtol={rtol:g} ({task.dtype}).")


@lru_cache(maxsize=1024)
def _facts(task) -> tuple[int, float, float, int]:
    """(output elements, max |ref|, unit roundoff of the output, reduction length) of the task."""
    op = OPS[task.op]
    dims = op.dims(task.shape_dict())
    length = math.prod(dims.get(k, 1) for k in _REDUCTION.get(op.kernel_class, ()))
    if task.op in PROBABILITY_OPS:
        magnitude = _largest_probability(dims["C"])
    elif op.kernel_class in _ATTENTION_CLASSES:
        magnitude = _largest_attention_output(dims)
    else:
        magnitude = LARGEST_NORMAL * (math.sqrt(length) if op.kernel_class in _SUM_CLASSES else 1.0)
    u = UNIT_ROUNDOFF[task.dtype]
    if task.dtype == "fp8" and op.kernel_class == "gemm":
        u = UNIT_ROUNDOFF["bf16"]          # fp8 GEMMs write bf16
    return output_elements(task), magnitude, u, length


def accumulation_error(task, variant=None, p: dict | None = None) -> float:
    """Relative error the reduction of one output adds, as `variant` (with params `p`) sums it; no variant: one
    fp32 chain over the whole reduction. Chains of n terms in unit u and the fp32 additions that combine them (tree
    levels, split partials, promoted blocks) are independent errors: their variances add. On every passing step's
    report, with a new configuration nearly every step: what the task and variant fix is cached (_summation)."""
    if variant is None:
        return FP32_U * math.sqrt(_facts(task)[3])
    p = p or {}
    length, lanes_of, hopper_fp8 = _summation(task, variant)
    splits = p.get("SPLIT_K", p.get("SPLITS", 1))
    lanes = min(length, lanes_of(p)) if lanes_of is not None else 1
    chain, combine, unit = max(1.0, length / (splits * lanes)), splits - 1 + math.log2(lanes), FP32_U
    if hopper_fp8:
        unit = FP8_TC_ACC_U
        block = _promotion_block(task, variant, p)
        if block is not None and block < chain:
            combine += length / block        # each block's partial added into fp32 on the CUDA cores
            chain = block
    return math.sqrt(unit * unit * chain + FP32_U * FP32_U * combine)


@lru_cache(maxsize=1024)
def _summation(task, variant) -> tuple:
    """Cached per (task, variant): what `accumulation_error` reads besides the params, namely the reduction length,
    the tree's lanes as a function of the params (None: every output one thread's chain), and whether e4m3
    products add on Hopper's tensor cores."""
    tree = (variant.kernel_class, variant.tag)
    lanes_of = _TREE_LANES.get(tree) if task.impl == "cuda" else None
    return _facts(task)[3], lanes_of, _hopper_fp8_mma(task, variant)


def _hopper_fp8_mma(task, variant) -> bool:
    """Whether the variant adds e4m3 products on sm_90 tensor cores (dequant_mma widens them to fp16 first)."""
    return (task.dtype == "fp8" and variant.kernel_class == "gemm" and variant.tc and variant.tag != "dequant_mma"
            and GPUS[task.gpu].cc == 90)


def _promotion_block(task, variant, params) -> int | None:
    """K elements the tensor cores sum before the kernel promotes them into fp32, None where it never does: only the
    fine-grained-scaled GEMM promotes (templates' SCALE_BLOCK_K), once per BLOCK_K stage on the wgmma path and
    once per m16n8k32 instruction on the mma.sync path (its mma() scales each instruction's product)."""
    if task.op != "fp8_blockwise_gemm":
        return None
    return params["BLOCK_K"] if "wgmma" in variant.requires else FP8_MMA_K


def _largest_attention_output(dims: dict) -> float:
    """max |ref| of attention: each output is a softmax-weighted average of N(0, 1) values. Its scores q.k / sqrt(D)
    are N(0, 1), so over n keys the weights' sum of squares is E[e^2z] / (n E[e^z]^2) = e / n (lognormal moments),
    an output's standard deviation sqrt(e / n), and the largest of many about 4 of those; at most 4, the value
    itself, where a query sees one key (a causal prefill's first). A decode query sees all T cached keys (0.6.2
    stated 4 whatever T: ~40x too large at T = 4096, where a float64 reference's largest is ~0.1)."""
    keys = 1 if dims.get("CAUSAL") else dims.get("T") or dims["SK"]
    return LARGEST_NORMAL * min(1.0, math.sqrt(math.e / keys))


def is_attention(task) -> bool:
    """Whether the task's outputs are softmax-weighted averages of its values (decode or prefill attention)."""
    return OPS[task.op].kernel_class in _ATTENTION_CLASSES


def softmax_scale_exact(task) -> tuple[int, int]:
    """(outputs that stay exact without the softmax scale, the first index that can differ): a causal prefill's
    first query of each [queries, D] block sees only its own key, whose weight is 1 at any temperature (its D
    outputs are that key's value row), so R blocks x D outputs stay exact from index D on; every other attention
    query sees two keys or more: (0, 0). The report's mismatches and first bad index follow (`failed_text`;
    `check.reports` holds them to it)."""
    dims = OPS[task.op].dims(task.shape_dict())
    return (dims["R"] * dims["D"], dims["D"]) if dims.get("CAUSAL") else (0, 0)


def softmax_scale_error(u: float) -> float:
    """The largest |out - ref| of attention whose softmax scale is missing (`u` uniform in [0, 1) places it).
    Every attention site drops 1/sqrt(D) (the scores times sqrt(D) >= 8: D >= 64 in the catalog) or that scale
    with log2(e) folded in before exp2 (times ln(2) sqrt(D) >= 5.5), so a query's weights w' become its reference
    weights w raised to a power c > 1, renormalized. out - ref = sum_j (w'_j - w_j) v_j, with V ~ N(0, 1), is
    normal with variance sum (w' - w)^2 = sum w'^2 - 2 sum w' w + sum w^2 <= sum w'^2 - sum w^2 < 1 (the power
    tilts the weights toward the larger w, so sum w' w >= sum w^2): whatever the key length, the largest error
    over many outputs stays under LARGEST_NORMAL, however the ratio out / ref of single elements varies. The most
    concentrated of the task's queries holds its weight on its top one or two keys, sum w'^2 in [1/2, 1]
    (simulated: the largest variance over 32 queries of 16 to 32,768 N(0, 1) scores, c = 5.5 to 11.3, lies in
    [0.53, 0.99]); the largest error is LARGEST_NORMAL times its square root."""
    return LARGEST_NORMAL * math.sqrt(0.5 + 0.5 * u)


def _largest_probability(c: int) -> float:
    """The largest probability of a softmax over `c` N(0, 1) logits: the largest of c standard normals is about
    sqrt(2 ln c) (the Gumbel limit of normal maxima), and the normalizer is c * E[e^z] = c * e^(1/2) (the
    lognormal mean). 128,256 logits: ~6e-4, so a probability's rounding error is that small too."""
    return math.exp(math.sqrt(2 * math.log(c))) / (c * math.sqrt(math.e))


def _gemm_out(s):
    return s["M"] * s["N"]


def _heads_out(s):      # one (token, head) row of D per query: decode attention
    return s["B"] * s["H"] * s["D"]


def _rows_out(s):       # one output row of H per token: norms, gathers by token
    return s["T"] * s["H"]


# Elements the check compares: every output tensor of the op's signature (its `out` arguments, in order), ids only
# for ID_OPS (moe_topk_gating's fp32 weights are reported beside them). A report's mismatches count these and its
# indices run over them flattened.
OUTPUTS = {
    "flash_decode": _heads_out, "triton_flash_decode": _heads_out, "swa_decode": _heads_out,
    "mla_decode": lambda s: s["B"] * s["H"] * s["DC"],                   # o in the latent space (absorbed)
    "tree_attn": lambda s: s["B"] * s["N"] * s["H"] * s["D"],
    "fused_qkv_rope": lambda s: s["T"] * (s["H"] + 2 * s["HKV"]) * s["D"],       # q, k, v
    "flash_prefill": lambda s: s["B"] * s["S"] * s["H"] * s["D"],
    "chunked_prefill": lambda s: s["B"] * s["C"] * s["H"] * s["D"],
    "cross_attn": lambda s: s["B"] * s["S"] * s["H"] * s["D"],
    **dict.fromkeys(("gemm_fp16", "splitk_gemm", "int8_gemm", "fp8_gemm", "fp8_blockwise_gemm", "fp4_gemm",
                     "int4_gemm", "int4_gemv", "int8_gemv", "gemv_fp16"), _gemm_out),
    "moe_grouped_gemm": lambda s: s["E"] * s["M"] * s["N"],
    "paged_kv_copy": lambda s: 2 * s["NB"] * s["P"] * s["H"] * s["D"],        # k_dst, v_dst pages
    "kv_append": lambda s: 2 * s["T"] * s["H"] * s["D"],                       # k, v slots written
    "kv_int8_quant": lambda s: 2 * s["T"] * s["H"] * (s["D"] + 1),             # k, v and their fp32 scales
    "topk_sample": lambda s: s["B"], "nucleus_sample": lambda s: s["B"], "minp_sample": lambda s: s["B"],
    "logits_softmax": lambda s: s["B"] * s["V"],
    "moe_scatter": lambda s: s["T"] * s["K"] * (s["H"] + 1),                   # x_sorted and src_index
    "moe_combine": _rows_out,
    "moe_topk_gating": lambda s: s["T"] * s["K"],                              # ids
    "mamba_scan": lambda s: s["B"] * s["L"] * s["D"],
    "mamba_step": lambda s: s["B"] * s["D"] * (s["N"] + 1),                    # state and y
    "rmsnorm": _rows_out, "triton_rmsnorm": _rows_out, "layernorm": _rows_out, "embedding_gather": _rows_out,
    "fused_add_rmsnorm": lambda s: 2 * s["T"] * s["H"],                        # y and residual_out
    "per_token_fp8_quant": lambda s: s["T"] * (s["H"] + 1),                    # xq and the scales
    "rope": lambda s: s["T"] * s["H"] * s["D"],
    "swiglu_act": lambda s: s["T"] * s["I"],
    "conv1d_causal": lambda s: s["B"] * s["L"] * s["D"],
    "conv2d_nhwc": lambda s: s["N"] * s["H"] * s["W"] * s["K"],                # same padding, stride 1
}


def largest_tolerance(task) -> float:
    """atol + rtol |x| at the task's largest output magnitude: a failed check's largest error is above it (its
    reports raise an error that could fall short to twice this)."""
    atol, rtol = TOLERANCES[task.dtype]
    return atol + rtol * _facts(task)[1]


def output_elements(task) -> int:
    """The number of elements a correctness report counts for `task` (`OUTPUTS`)."""
    return OUTPUTS[task.op](task.shape_dict())


def configuration_draw(task, variant=None, params=None) -> float:
    """A uniform in [0, 1) fixed by the task and the candidate's configuration (variant tag, params): the harness
    runs a deterministic kernel on fixed inputs, so resubmitting the same configuration gives the same error (0.6.3
    drew it per step: byte-identical resubmissions reported different errors, row audit)."""
    # repr((task, tag, sorted items)), its task-and-tag and params parts cached: their reprs cost ~4 us a step
    params = params or {}
    key = (f"{_draw_prefix(task, variant.tag if variant is not None else None)}"
           f"{_params_repr(tuple(params.items()), tuple(map(type, params.values())))})")
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big") / 2.0 ** 64


@lru_cache(maxsize=1024)
def _draw_prefix(task, tag: str | None) -> str:
    """`(repr(task), repr(tag), `: the same on every step of a variant in its session or episodes."""
    return f"({task!r}, {tag!r}, "


@lru_cache(maxsize=8192)
def _params_repr(items: tuple, types: tuple) -> str:
    """repr(sorted(items)): a variant's configurations recur in every session of its op. `types` (the values'
    classes) is only part of the key: True == 1 as a key, not as a repr."""
    return repr(sorted(items))


def ok_text(task, u: float, variant=None, params=None) -> str:
    """The correctness line of a passing candidate of `variant` with `params` (`u` uniform in [0, 1) places the
    error within its range: `configuration_draw`)."""
    n, magnitude, out_u, _length = _facts(task)
    if task.op in EXACT_OPS:
        return f"correctness: ok (bit-exact: 0 / {n} elements differ)"
    if task.op in ID_OPS:
        line = f"correctness: ok (ids: 0 / {n} differ from the reference"
        if task.op == "moe_topk_gating":    # its weights are fp32 floats
            atol = TOLERANCES["fp32"][0]
            return line + f"; topk_weights max_abs_err = {FP32_U * (1 + 3 * u):.3g}, atol = {atol:g})"
        return line + ", same Philox seeds)"
    if task.op in FP8_QUANT_OPS:
        # xq * scale against x: the largest error is half the e4m3 spacing of the top binade, scaled back by
        # amax / 448, at an element of that binade (|x| in [256, 448) * amax / 448: amax itself is exact)
        err = magnitude * E4M3_TOP_ULP / 2 / E4M3_MAX
        worst = magnitude * (E4M3_TOP_BINADE + (E4M3_MAX - E4M3_TOP_BINADE) * u) / E4M3_MAX
        return _ok_line(task) % (err, err / worst)
    if task.op in INT8_QUANT_OPS:
        # over millions of elements some lie halfway between two levels: the error is half a scale, at an element
        # placed like the other reports' worst element, in the upper half of the range
        err = magnitude / INT8_MAX / 2
        worst = magnitude * (0.5 + 0.5 * u)
        return _ok_line(task) % (err, err / worst)
    unit = out_u + accumulation_error(task, variant, params)
    rel = unit * (0.5 + 0.5 * u)           # the worst element's rounding, half an ulp to one
    return _ok_line(task) % (rel * magnitude, rel)


@lru_cache(maxsize=256)
def _ok_line(task) -> str:
    """A float check's passing line as a %-format of (the largest error, that element's relative error), the
    task's tolerance in place: cached per task, one format pass per passing step (the same text as f-strings)."""
    atol, rtol = TOLERANCES[task.dtype]
    return "correctness: ok (max_abs_err = %.3g, max_rel_err = %.3g; " + f"atol = {atol:g}, rtol = {rtol:g})"


def dropped_block_scale(task, line: str) -> BlockScale | None:
    """The K-varying scale a dropped_scale deletion on source `line` (its Expected.message) leaves out: the B
    operand's where the line decodes B fragments (dequant_mma's `decode_b`), else the kernel's first; None where
    the kernel's scales do not vary along K."""
    kernel = K_BLOCK_SCALES.get((task.op, task.impl))
    if kernel is None:
        return None
    scales = kernel[1]
    return scales[-1] if "decode_b(" in line else scales[0]


@lru_cache(maxsize=256)
def block_scale_error(task, scale: BlockScale) -> tuple[float, float]:
    """(max_abs_err, share of outputs still within tolerance) of `task` without `scale` on its share f of the K
    terms (K_BLOCK_SCALES). A quantized value is x / s with s = amax / qmax over its block, so each unscaled
    product is r = qmax / amax times its reference, amax the largest |x| of the block's N(0, 1) values: r differs
    block to block, so no out / ref is one number. Over the L = K unit-variance products, e = out - ref =
    sum (r_k - 1) x_k y_k over the f L unscaled ones (x_k of the scaled operand) has variance f L E[x^2 (r - 1)^2]
    (its largest over many outputs LARGEST_NORMAL standard deviations) and covariance f L E[x^2 (r - 1)] with ref,
    N(0, L) (`_unscaled_factor_moments`): e = b ref + noise, b = f E[x^2 (r - 1)]. An output passes where |e| <= atol + rtol |ref|: to first order in that width (small beside the
    noise), 2 (atol + rtol |t|) times the noise's density at -b t, averaged over ref = t; two normal densities
    multiplied make one of variance tau^2, so the share is (atol sqrt(2 pi) tau + 2 rtol tau^2) / (pi sd(noise)
    sqrt(L)). Checked against quantized N(0, 1) inputs (tests/sim/test_correctness.py)."""
    share = K_BLOCK_SCALES[(task.op, task.impl)][0]
    length = _facts(task)[3]
    mean, square = _unscaled_factor_moments(scale.values(task.shape_dict()), scale.qmax)
    error_var = share * length * square
    slope = share * mean
    noise = math.sqrt(error_var - slope * slope * length)
    tau = 1 / math.sqrt(slope * slope / (noise * noise) + 1 / length)
    atol, rtol = TOLERANCES[task.dtype]
    passing = (atol * math.sqrt(2 * math.pi) * tau + 2 * rtol * tau * tau) / (math.pi * noise * math.sqrt(length))
    return LARGEST_NORMAL * math.sqrt(error_var), min(1.0, passing)


@lru_cache(maxsize=16)
def _unscaled_factor_moments(values: int, qmax: float) -> tuple[float, float]:
    """(E[x^2 (r - 1)], E[x^2 (r - 1)^2]) for x one of `values` N(0, 1) values of a block and r = qmax / amax, amax
    their largest |x|: P(amax <= t) = (2 Phi(t) - 1)^values, so amax's q-quantile is Phi^-1((1 + q^(1 / values)) /
    2); given amax = t, the block's mean x^2 is (t^2 + (values - 1) E[x^2 | |x| < t]) / values, E[x^2 | |x| < t] =
    1 - 2 t phi(t) / (2 Phi(t) - 1) (a small block's values are small where its amax is). A midpoint rule over 4096
    quantiles."""
    points, normal = 4096, NormalDist()
    mean = square = 0.0
    for i in range(points):
        t = normal.inv_cdf((1 + ((i + 0.5) / points) ** (1 / values)) / 2)
        inside = 2 * normal.cdf(t) - 1
        x2 = (t * t + (values - 1) * (1 - 2 * t * normal.pdf(t) / inside)) / values
        factor = qmax / t - 1
        mean += x2 * factor
        square += x2 * factor * factor
    return mean / points, square / points


def failed_text(task, kind: str | None, u, region: Tail | Shift | BlockScale | None = None) -> str:
    """The report of a wrong result caused by fault `kind` (`u`: six uniforms in [0, 1), the last three a race's
    reruns; `region`: the outputs a truncated grid leaves uncomputed, `grid_tail.unwritten`, or a wrong stride moves,
    `stride_shift.wrong`; the scale a dropped_scale leaves out where it varies along K, `dropped_block_scale`).
    It says only what comparing the output with the reference shows: the errors, the mismatches and the first bad
    index, and where the mismatches lie or how out / ref behaves; never the fault, the edit or a source constant
    (0.6.7 quoted them: a harness cannot know them, and the fix copied them back)."""
    n, magnitude = _facts(task)[:2]
    atol, rtol = TOLERANCES[task.dtype]
    bound = largest_tolerance(task)
    # a mismatch is an element beyond the tolerance, so the largest error of a failed check is: the signatures
    # below that can fall short are raised to twice the bound, a race draws its error above it
    floor = 2 * bound
    where = ""
    if kind == "truncated_grid":           # no block for the axis's last indices: those outputs only
        if not isinstance(region, Tail):
            raise ValueError("a truncated grid's report needs the tail it leaves (grid_tail.unwritten)")
        bad, first = region.count, region.first
        err = magnitude * (1 + 9 * u[2])
        where = f"; wrong only in the last {region.missed} of {region.extent} {_axis_scope(region)}"
    elif kind == "dropped_scale":          # a factor missing everywhere: nearly every element is off
        bad = max(1, int(n * (0.97 + 0.03 * u[0])))
        first = int(3 * u[1])
        if is_attention(task):             # every site drops the softmax scale: a bounded error, no ratio
            err = softmax_scale_error(u[2])
            exact, start = softmax_scale_exact(task)      # a causal prefill's first query of each block
            bad, first = min(bad, n - exact - first), start + first   # the first outputs and the exact ones pass
        elif task.op in ID_OPS:            # the report counts ids, no error
            err = floor
        elif (task.op, task.impl) in OUTPUT_SCALE_RATIOS:    # out / ref is qmax / amax at every output
            factor = OUTPUT_SCALE_RATIOS[(task.op, task.impl)]
            err = magnitude * (factor - 1)
            where = f"; out / ref = {factor:.4g} at the first mismatch"
        elif isinstance(region, BlockScale):    # each K block off by its own factor: no out / ref to state
            err, passing = block_scale_error(task, region)
            bad = max(1, n - round(n * passing))
            first = int(math.log1p(-u[1]) / math.log(passing)) if 0 < passing < 1 else 0   # geometric
            where = f"; {VARYING_RATIO}"
        else:
            raise ValueError(f"no model of a dropped scale in {task.op} ({task.impl}); a K-varying one needs its "
                             f"BlockScale (dropped_block_scale)")
    elif kind == "wrong_stride":           # the address moved for every index of one output axis but the first
        if not isinstance(region, Shift):
            raise ValueError("a wrong stride's report needs the outputs it moves (stride_shift.wrong)")
        bad, first = region.count, region.first
        err = magnitude * 10 ** (0.5 * u[2])
        where = f"; wrong in all but the first of {region.extent} {_axis_scope(region)}"
    else:                                  # racy reduction, missing barrier: stale reads, different every run
        bad = max(1, int(n * 10 ** (-2.5 + 2 * u[0])))
        # the lowest of `bad` scattered indices: its `u` quantile, n (1 - (1 - u)^(1 / bad))
        first = int(-n * math.expm1(math.log1p(-u[1]) / bad))
        # a stale read is off by 3-100 % of |ref| (log-uniform), and the largest one is beyond the tolerance: the
        # range starts there where the tolerance is looser (fp8), 1 % above it so the printed digits show it
        floor = max(magnitude * 10 ** -1.5, 1.01 * bound)
        err = floor * 10 ** (1.5 * u[2])
        runs = [_binomial_quantile(n, bad / n, v) for v in u[3:6]]
        if runs[0] == runs[1] == runs[2]:   # what shows a race is reruns that disagree (a rerun may even pass)
            runs[2] += 1 if runs[2] < n else -1
        where = f"; varies run to run (3 reruns: {', '.join(map(str, runs))} mismatches)"
    bad = min(bad, n)
    first = min(first, n - bad)            # indices before the first bad one pass: bad <= n - first
    err = max(err, floor)
    if task.op in ID_OPS:
        return (f"compile: ok\ncorrectness: FAILED (ids compared exactly)\n"
                f"  ids: {bad} / {n} differ ({100.0 * bad / n:.2f}%), first at index {first}{where}")
    if task.op in EXACT_OPS:
        return (f"compile: ok\ncorrectness: FAILED (bit-exact comparison)\n"
                f"  mismatches: {bad} / {n} ({100.0 * bad / n:.2f}%), first bad index: {first}{where}")
    return (f"compile: ok\ncorrectness: FAILED\n"
            f"  max_abs_err = {err:.4g} (atol = {atol:g}), max_rel_err = {err / magnitude:.4g} (rtol = {rtol:g})\n"
            f"  mismatches: {bad} / {n} ({100.0 * bad / n:.2f}%), first bad index: {first}{where}")


# A dropped scale that varies along K leaves each output off by its own factor (`block_scale_error`).
VARYING_RATIO = "out / ref differs from element to element"


def _axis_scope(region: Tail | Shift) -> str:
    """"rows" or "rows in each of 32 groups": the output axis whose indices a report's mismatches cover."""
    scope = f" in each of {region.outer} {region.axis.per}" if region.outer > 1 else ""
    return f"{region.axis.noun}{scope}"


def _binomial_quantile(n: int, p: float, v: float) -> int:
    """The `v` quantile of Binomial(n, p): a rerun's mismatch count when each of the n elements independently loses
    the race with the rate `p` the reported run showed (a normal approximation where the variance exceeds 25)."""
    if p >= 1:
        return n
    variance = n * p * (1 - p)
    if variance > 25:
        z = NormalDist().inv_cdf(min(max(v, 1e-12), 1 - 1e-12))
        return min(n, max(0, round(n * p + z * math.sqrt(variance))))
    k, pmf = 0, math.exp(n * math.log1p(-p))
    cdf = pmf
    while cdf <= v and k < n:
        pmf *= (n - k) / (k + 1) * p / (1 - p)
        k += 1
        cdf += pmf
    return k
