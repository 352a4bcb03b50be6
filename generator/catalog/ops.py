"""The catalog of inference ops: what each computes, its shapes from real LLM serving, and its minimum cost.

`bytes_moved` is the minimum DRAM traffic (every input read once, every output written once) and `flops` the
arithmetic a correct kernel must do; together they give the roofline (perf.py). Shapes come from real models:
Llama-3 8B (hidden 4096, 32 q / 8 kv heads, FFN 14336, vocab 128256), Llama-3 70B (8192, 64/8, 28672),
Mixtral 8x7B (8 experts top-2), DeepSeek-V3 (hidden 7168, MLA 128 heads, latent 512 + rope 64, 256 experts top-8,
expert FFN 2048, vocab 129280), Mamba-2.8B (d_inner 5120, d_state 16), Whisper-large (20 heads x 64, 1500 frames)
and CLIP ViT-L, at decode (B = 1..256) and prefill (T = 512..16384) batch sizes.

`Op.dims(shape)` maps an op's own shape keys to the canonical problem of its kernel class, which is what the
performance model reasons about (grid sizes, tiles, rows):
  gemm: M N K G (G = independent GEMMs, e.g. experts)   gemv: M N K        attn_prefill: R SQ SK D CAUSAL
  attn_decode: R T D Q (R = (batch, kv-head) pairs, Q = query rows sharing one KV stream)
  rownorm: R C   elementwise: N (elements) C (innermost row)   gather: R C   sampler: R C K   scan: R L N
  conv: M (output points) C (input channels) K (output channels) TAPS
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

FAMILIES = ("attention", "gemm", "kv_cache", "sampler", "moe", "ssm", "misc")
DTYPES = ("fp16", "bf16", "fp32", "fp8", "int8", "int4", "fp4")
ELEMENT_BYTES = {"fp16": 2.0, "bf16": 2.0, "fp32": 4.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "fp4": 0.5}
# Storage types in C for a tensor of the op's data format; int4/fp4 are packed two per byte.
C_TYPES = {"fp16": "half", "bf16": "__nv_bfloat16", "fp32": "float", "fp8": "__nv_fp8_e4m3", "int8": "int8_t",
           "int4": "uint8_t", "fp4": "uint8_t"}
_QUANTIZED = frozenset({"fp8", "int8", "int4", "fp4"})


def act_dtype(dtype: str) -> str:
    """The dtype of the activations beside `dtype` data (an `act` argument): bf16 beside fp8/fp4, fp16 beside
    int8/int4, else the dtype itself."""
    if dtype not in _QUANTIZED:
        return dtype
    return "bf16" if dtype in ("fp8", "fp4") else "fp16"

# Kernel classes whose CUDA kernels take the op's `struct Operands` (templates/cuda/<class>/ops/*.cuh: one snippet
# per op, shared by variants whose kernels take different extra arguments), with the parameters of the one host
# entry point every variant of the class defines after the struct: `void launch_<op>(const Operands& op, <these>,
# cudaStream_t stream)`. A harness calls one symbol with one argument list, so what a variant needs beyond them
# (a split-K workspace, the rows a TMA map spans) it derives inside from the shape.
OPERAND_STRUCT_CLASSES = {"gemm": ("int M", "int N", "int K"), "gemv": ("int M", "int N", "int K"), "conv": (),
                          "attn_prefill": ("float softmax_scale",)}

A = 2.0  # bytes of an fp16/bf16 activation that accompanies quantized data

Shape = dict[str, int]


@dataclass(frozen=True)
class Op:
    """One inference op. `args` lists the kernel's tensor arguments as "dir name:role" (dir in/out; role
    data = the op's dtype, act = activations (the dtype; bf16 beside fp8/fp4 data, fp16 beside int8/int4), f32,
    i32, i64)."""

    name: str
    family: str
    kernel_class: str
    impls: tuple[str, ...]
    dtypes: tuple[str, ...]
    shapes: tuple[Shape, ...]
    desc: str
    args: tuple[str, ...]
    _bytes: Callable[[Shape, float], float]
    _flops: Callable[[Shape], float]
    _dims: Callable[[Shape], dict]
    weight_only: bool = False  # quantized weights, fp16 activations and fp16 tensor-core math (W4A16, W8A16)
    # the Triton host wrapper's parameters after its tensors, e.g. ("sm_scale=None",): every Triton render of the
    # op defines `def <op>(<tensors>, <extras>):` (templates/triton/<class>/ops), so the signature states them
    extras: tuple[str, ...] = ()
    # (impl, dtype) -> signature: asked for each variant a session binds, and built from a dozen small strings
    _signatures: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def compute_dtype(self, dtype: str) -> str:
        """The dtype whose arithmetic rate bounds this op: fp16 for weight-only quantization, else the dtype."""
        return "fp16" if self.weight_only else dtype

    def bytes_moved(self, shape: Shape, dtype: str) -> int:
        return int(math.ceil(self._bytes(shape, ELEMENT_BYTES[dtype])))

    def flops(self, shape: Shape, dtype: str) -> int:
        return int(self._flops(shape))

    def dims(self, shape: Shape) -> dict:
        return self._dims(shape)

    def signature(self, impl: str, dtype: str | None = None) -> str:
        """The interface every render of the op defines, as it reads in the source: the CUDA kernel's prototype,
        or for a kernel class whose kernels take one `Operands` struct (OPERAND_STRUCT_CLASSES) that struct's
        definition and, on the next line, its host entry point's prototype, or the `def` line of the Triton host
        wrapper (the @triton.jit kernels' parameters differ per variant)."""
        dtype = dtype or self.dtypes[0]
        known = self._signatures.get((impl, dtype))
        if known is None:
            known = self._signatures[impl, dtype] = self._signature(impl, dtype)
        return known

    def _signature(self, impl: str, dtype: str) -> str:
        if impl == "triton":
            tensors = [a.split()[1].split(":")[0] for a in self.args]
            return f"def {self.name}({', '.join(tensors + list(self.extras))}):"
        if impl != "cuda":
            raise ValueError(f"unknown impl {impl!r}")
        types = {"data": C_TYPES[dtype], "act": C_TYPES[act_dtype(dtype)], "f32": "float", "i32": "int32_t",
                 "i64": "int64_t"}
        struct = self.kernel_class in OPERAND_STRUCT_CLASSES
        restrict = "" if struct else " __restrict__"   # members stay the plain pointers the snippets declared
        pointers = []
        for a in self.args:
            direction, rest = a.split()
            name, role = rest.split(":")
            const = "const " if direction == "in" else ""
            pointers.append(f"{const}{types[role]}*{restrict} {name}")
        if struct:
            params = ("const Operands& op",) + OPERAND_STRUCT_CLASSES[self.kernel_class] + ("cudaStream_t stream",)
            return (f"struct Operands {{ {'; '.join(pointers)}; }};\n"
                    f"void launch_{self.name}({', '.join(params)})")
        params = pointers + [f"int {k}" for k in self.shapes[0]]
        return f"__global__ void {self.name}_kernel({', '.join(params)})"


def _shapes(keys: str, *rows: tuple[int, ...]) -> tuple[Shape, ...]:
    names = keys.split()
    return tuple(dict(zip(names, r, strict=True)) for r in rows)


BOTH = ("cuda", "triton")
CUDA = ("cuda",)
TRITON = ("triton",)
HALF = ("fp16", "bf16")

_OPS: list[Op] = []


def _op(name, family, kclass, impls, dtypes, shapes, desc, args, nbytes, flops, dims, weight_only=False, extras=""):
    words = args.split()
    pairs = tuple(f"{d} {a}" for d, a in zip(words[::2], words[1::2], strict=True))
    _OPS.append(Op(name, family, kclass, impls, dtypes, shapes, desc, pairs, nbytes, flops, dims, weight_only,
                   tuple(extras.split(", ")) if extras else ()))


# ---------------------------------------------------------------- attention
_DECODE_SHAPES = _shapes("B H D T P", (8, 32, 128, 4096, 16), (32, 8, 128, 8192, 16), (128, 32, 64, 2048, 32),
                         (1, 32, 128, 32768, 16), (64, 8, 128, 2048, 16), (16, 64, 128, 16384, 16))
_DECODE_ARGS = "in q:act in k_cache:data in v_cache:data in block_table:i32 in seq_lens:i32 out o:act"


def _decode_bytes(s, e):
    return 2 * s["B"] * s["H"] * s["T"] * s["D"] * e + 2 * s["B"] * s["H"] * s["D"] * e \
        + s["B"] * math.ceil(s["T"] / s["P"]) * 4


for _name, _impls, _shp in (("flash_decode", BOTH, _DECODE_SHAPES), ("triton_flash_decode", TRITON, _DECODE_SHAPES[:5])):
    _op(_name, "attention", "attn_decode", _impls, HALF, _shp,
        "Paged decode attention: one new query token per sequence attends over a paged KV cache "
        "(B sequences, H heads of dim D, T cached tokens, page size P), online softmax, fp32 accumulation.",
        _DECODE_ARGS, _decode_bytes, lambda s: 4 * s["B"] * s["H"] * s["T"] * s["D"],
        lambda s: {"R": s["B"] * s["H"], "T": s["T"], "D": s["D"], "Q": 1}, extras="sm_scale=None")

_op("swa_decode", "attention", "attn_decode", BOTH, HALF,
    _shapes("B H D T W", (8, 8, 128, 32768, 4096), (32, 8, 128, 16384, 4096), (64, 8, 128, 8192, 4096),
            (1, 32, 128, 65536, 4096), (16, 16, 256, 8192, 4096)),
    "Sliding-window decode attention (Mistral/Gemma-2 style): each query attends only to the last W of its T "
    "cached tokens in a ring-buffer KV cache.",
    "in q:act in k_cache:data in v_cache:data in seq_lens:i32 out o:act",
    lambda s, e: 2 * s["B"] * s["H"] * min(s["T"], s["W"]) * s["D"] * e + 2 * s["B"] * s["H"] * s["D"] * e,
    lambda s: 4 * s["B"] * s["H"] * min(s["T"], s["W"]) * s["D"],
    lambda s: {"R": s["B"] * s["H"], "T": min(s["T"], s["W"]), "D": s["D"], "Q": 1}, extras="sm_scale=None")

_op("mla_decode", "attention", "attn_decode", BOTH, HALF,
    _shapes("B H T DC DR P", (64, 128, 4096, 512, 64, 64), (128, 16, 8192, 512, 64, 64), (32, 128, 2048, 512, 64, 64),
            (16, 16, 32768, 512, 64, 64), (1, 128, 16384, 512, 64, 64)),
    "DeepSeek-V3 multi-head latent attention decode: H query heads share one compressed KV stream of "
    "DC latent + DR rope dims per token in a paged cache (FlashMLA-style, absorbed projections).",
    "in q:act in kv_cache:data in block_table:i32 in seq_lens:i32 out o:act",
    lambda s, e: s["B"] * s["T"] * (s["DC"] + s["DR"]) * e + s["B"] * s["H"] * (2 * s["DC"] + s["DR"]) * e
    + s["B"] * math.ceil(s["T"] / s["P"]) * 4,
    lambda s: 2 * s["B"] * s["H"] * s["T"] * (2 * s["DC"] + s["DR"]),
    lambda s: {"R": s["B"], "T": s["T"], "D": s["DC"] + s["DR"], "Q": s["H"], "KV": 1}, extras="sm_scale")

_op("tree_attn", "attention", "attn_decode", BOTH, HALF,
    _shapes("B H D T N", (1, 32, 128, 4096, 64), (8, 8, 128, 4096, 32), (16, 8, 128, 2048, 16), (4, 32, 128, 8192, 128),
            (2, 64, 128, 8192, 64)),
    "Tree attention for speculative decoding: N draft-tree tokens per sequence attend over T cached tokens "
    "plus their ancestors in the tree (given as a bitmask).",
    "in q:act in k_cache:data in v_cache:data in tree_mask:i64 in seq_lens:i32 out o:act",
    lambda s, e: 2 * s["B"] * s["H"] * (s["T"] + s["N"]) * s["D"] * e + 2 * s["B"] * s["H"] * s["N"] * s["D"] * e
    + s["B"] * s["N"] * math.ceil(s["N"] / 64) * 8,
    lambda s: 4 * s["B"] * s["H"] * s["N"] * (s["T"] + s["N"] / 2) * s["D"],
    lambda s: {"R": s["B"] * s["H"], "T": s["T"] + s["N"], "D": s["D"], "Q": s["N"]}, extras="sm_scale=None")

_op("fused_qkv_rope", "attention", "elementwise", BOTH, HALF,
    _shapes("T H HKV D", (32, 32, 8, 128), (256, 32, 8, 128), (4096, 32, 8, 128), (8192, 64, 8, 128), (1024, 128, 128, 128)),
    "Split a fused QKV projection output (H query + 2*HKV kv heads per token) into Q, K, V and apply "
    "rotary position embedding to Q and K in the same pass.",
    "in qkv:data in positions:i32 in cos_sin:f32 out q:data out k:data out v:data",
    lambda s, e: 2 * s["T"] * (s["H"] + 2 * s["HKV"]) * s["D"] * e + s["T"] * s["D"] * 4 + s["T"] * 4,
    lambda s: 3 * s["T"] * (s["H"] + s["HKV"]) * s["D"],
    lambda s: {"N": s["T"] * (s["H"] + 2 * s["HKV"]) * s["D"], "C": s["D"]})

_op("flash_prefill", "attention", "attn_prefill", BOTH, HALF,
    _shapes("B H S D", (1, 32, 4096, 128), (4, 32, 2048, 128), (1, 64, 8192, 128), (8, 32, 1024, 128), (2, 16, 16384, 128)),
    "Causal prefill attention (FlashAttention-style): S new tokens per sequence, H heads of dim D, "
    "never materializing the S x S score matrix.",
    "in q:data in k:data in v:data out o:data",
    lambda s, e: 4 * s["B"] * s["H"] * s["S"] * s["D"] * e,
    lambda s: 2 * s["B"] * s["H"] * s["S"] * s["S"] * s["D"],
    lambda s: {"R": s["B"] * s["H"], "SQ": s["S"], "SK": s["S"], "D": s["D"], "CAUSAL": 1}, extras="sm_scale=None")

_op("chunked_prefill", "attention", "attn_prefill", BOTH, HALF,
    _shapes("B H C T D", (1, 32, 512, 8192, 128), (4, 32, 256, 4096, 128), (1, 64, 1024, 16384, 128),
            (8, 8, 512, 2048, 128), (2, 32, 2048, 2048, 128)),
    "Chunked prefill: a chunk of C new tokens attends to T already-cached tokens (paged) and causally to "
    "itself, so long prompts interleave with decode batches.",
    "in q:data in k_cache:data in v_cache:data in block_table:i32 out o:data",
    lambda s, e: 2 * s["B"] * s["H"] * (s["T"] + s["C"]) * s["D"] * e + 2 * s["B"] * s["H"] * s["C"] * s["D"] * e,
    lambda s: 4 * s["B"] * s["H"] * s["C"] * (s["T"] + s["C"] / 2) * s["D"],
    lambda s: {"R": s["B"] * s["H"], "SQ": s["C"], "SK": s["T"] + s["C"], "D": s["D"], "CAUSAL": 0},
    extras="cached, sm_scale=None")

_op("cross_attn", "attention", "attn_prefill", BOTH, HALF,
    _shapes("B H S L D", (16, 20, 64, 1500, 64), (1, 20, 448, 1500, 64), (32, 16, 128, 1024, 64),
            (4, 32, 256, 1601, 128), (64, 20, 1, 1500, 64)),
    "Encoder-decoder cross attention (Whisper, Llama-3.2-Vision): S decoder queries attend, without a mask, "
    "to L encoder states whose K/V were projected once.",
    "in q:data in k_enc:data in v_enc:data out o:data",
    lambda s, e: 2 * s["B"] * s["H"] * (s["S"] + s["L"]) * s["D"] * e,
    lambda s: 4 * s["B"] * s["H"] * s["S"] * s["L"] * s["D"],
    lambda s: {"R": s["B"] * s["H"], "SQ": s["S"], "SK": s["L"], "D": s["D"], "CAUSAL": 0}, extras="sm_scale=None")

# ---------------------------------------------------------------- GEMM / GEMV
_GEMM_ARGS = "in a:act in b:data out c:act"


def _gemm_dims(s):
    return {"M": s["M"], "N": s["N"], "K": s["K"], "G": 1}


_op("gemm_fp16", "gemm", "gemm", BOTH, HALF,
    _shapes("M N K", (4096, 4096, 4096), (8192, 8192, 8192), (2048, 28672, 8192), (4096, 4096, 14336),
            (64, 6144, 4096), (1024, 128256, 4096)),
    "Dense half-precision GEMM C = A @ B^T with fp32 accumulation (projection and FFN layers, LM head).",
    _GEMM_ARGS, lambda s, e: (s["M"] * s["K"] + s["K"] * s["N"] + s["M"] * s["N"]) * e,
    lambda s: 2 * s["M"] * s["N"] * s["K"], _gemm_dims)

_op("splitk_gemm", "gemm", "gemm", BOTH, HALF,
    _shapes("M N K", (16, 4096, 14336), (32, 8192, 28672), (64, 4096, 4096), (8, 7168, 18432), (128, 1024, 8192)),
    "Skinny half-precision GEMM of decode batches (small M, large K) where the output tiles alone cannot fill "
    "the GPU and the K loop must be split across blocks.",
    _GEMM_ARGS, lambda s, e: (s["M"] * s["K"] + s["K"] * s["N"] + s["M"] * s["N"]) * e,
    lambda s: 2 * s["M"] * s["N"] * s["K"], _gemm_dims)

_op("int8_gemm", "gemm", "gemm", BOTH, ("int8",),
    _shapes("M N K", (4096, 4096, 4096), (2048, 14336, 4096), (8192, 8192, 8192), (256, 8192, 28672), (32, 4096, 14336)),
    "W8A8 GEMM: int8 activations (per-token scale) times int8 weights (per-channel scale), int32 "
    "accumulation, dequantized fp16 output (SmoothQuant-style).",
    "in a:data in b:data in a_scale:f32 in b_scale:f32 out c:act",
    lambda s, e: (s["M"] * s["K"] + s["N"] * s["K"]) * e + s["M"] * s["N"] * A + (s["M"] + s["N"]) * 4,
    lambda s: 2 * s["M"] * s["N"] * s["K"], _gemm_dims)

_op("fp8_gemm", "gemm", "gemm", BOTH, ("fp8",),
    _shapes("M N K", (4096, 4096, 4096), (8192, 8192, 8192), (2048, 28672, 8192), (4096, 7168, 18432), (64, 7168, 2048)),
    "FP8 (e4m3) GEMM with per-tensor scales, fp32 accumulation and bf16 output.",
    "in a:data in b:data in a_scale:f32 in b_scale:f32 out c:act",
    lambda s, e: (s["M"] * s["K"] + s["N"] * s["K"]) * e + s["M"] * s["N"] * A + 8,
    lambda s: 2 * s["M"] * s["N"] * s["K"], _gemm_dims)

_op("fp8_blockwise_gemm", "gemm", "gemm", CUDA, ("fp8",),
    _shapes("M N K", (4096, 2112, 7168), (4096, 24576, 1536), (4096, 7168, 16384), (128, 4096, 7168), (64, 7168, 2048)),
    "DeepGEMM-style FP8 GEMM with fine-grained scaling: 1x128 per-token-group scales on A, 128x128 block "
    "scales on B, promoted to fp32 accumulators every 128 of K (DeepSeek-V3 shapes).",
    "in a:data in b:data in a_scale:f32 in b_scale:f32 out c:act",
    lambda s, e: (s["M"] * s["K"] + s["N"] * s["K"]) * e + s["M"] * s["N"] * A
    + (s["M"] * math.ceil(s["K"] / 128) + math.ceil(s["N"] / 128) * math.ceil(s["K"] / 128)) * 4,
    lambda s: 2 * s["M"] * s["N"] * s["K"], _gemm_dims)

_op("fp4_gemm", "gemm", "gemm", CUDA, ("fp4",),
    _shapes("M N K", (4096, 4096, 4096), (8192, 8192, 8192), (2048, 14336, 4096), (128, 8192, 8192), (1024, 28672, 8192)),
    "NVFP4 GEMM: e2m1 activations and weights with one fp8 scale per 16 elements, fp32 accumulation, bf16 "
    "output (block-scaled mma on sm_120a).",
    "in a:data in b:data in a_scale:data in b_scale:data out c:act",
    lambda s, e: (s["M"] * s["K"] + s["N"] * s["K"]) * (e + 1 / 16) + s["M"] * s["N"] * A,
    lambda s: 2 * s["M"] * s["N"] * s["K"], _gemm_dims)

_op("int4_gemm", "gemm", "gemm", BOTH, ("int4",),
    _shapes("M N K G", (16, 8192, 8192, 128), (64, 28672, 8192, 128), (256, 4096, 14336, 128), (1024, 14336, 4096, 128),
            (4096, 4096, 4096, 128)),
    "W4A16 GEMM (Marlin/GPTQ style): int4 weights with one fp16 scale per G inputs, dequantized in registers, "
    "fp16 activations and fp16 tensor-core math.",
    "in a:act in b:data in scales:act out c:act",
    lambda s, e: s["M"] * s["K"] * A + s["N"] * s["K"] * e + s["N"] * (s["K"] // s["G"]) * A + s["M"] * s["N"] * A,
    lambda s: 2 * s["M"] * s["N"] * s["K"], _gemm_dims, weight_only=True)

_op("int4_gemv", "gemm", "gemv", BOTH, ("int4",),
    _shapes("M N K G", (1, 4096, 4096, 128), (1, 14336, 4096, 128), (4, 28672, 8192, 128), (8, 8192, 28672, 128),
            (1, 128256, 4096, 128)),
    "W4A16 matrix-vector product for decode (M <= 8 tokens): int4 weights with group-wise fp16 scales, "
    "bandwidth-bound on reading the weights.",
    "in x:act in w_packed:data in scales:act out y:act",
    lambda s, e: s["M"] * s["K"] * A + s["N"] * s["K"] * e + s["N"] * (s["K"] // s["G"]) * A + s["M"] * s["N"] * A,
    lambda s: 2 * s["M"] * s["N"] * s["K"], lambda s: {"M": s["M"], "N": s["N"], "K": s["K"]}, weight_only=True)

_op("int8_gemv", "gemm", "gemv", BOTH, ("int8",),
    _shapes("M N K", (1, 4096, 4096), (1, 28672, 8192), (8, 14336, 4096), (4, 8192, 8192), (1, 129280, 7168)),
    "W8A16 matrix-vector product for decode: int8 weights with per-output-channel fp16 scales, fp16 "
    "activations.",
    "in x:act in w:data in scales:act out y:act",
    lambda s, e: s["M"] * s["K"] * A + s["N"] * s["K"] * e + s["N"] * A + s["M"] * s["N"] * A,
    lambda s: 2 * s["M"] * s["N"] * s["K"], lambda s: {"M": s["M"], "N": s["N"], "K": s["K"]}, weight_only=True)

_op("gemv_fp16", "misc", "gemv", BOTH, HALF,
    _shapes("M N K", (1, 4096, 4096), (1, 14336, 4096), (1, 4096, 14336), (8, 8192, 8192), (1, 128256, 4096)),
    "Half-precision matrix-vector product y = W x for batch-1..8 decode, fp32 accumulation.",
    "in x:data in w:data out y:data",
    lambda s, e: (s["M"] * s["K"] + s["N"] * s["K"] + s["M"] * s["N"]) * e,
    lambda s: 2 * s["M"] * s["N"] * s["K"], lambda s: {"M": s["M"], "N": s["N"], "K": s["K"]})

# ---------------------------------------------------------------- KV cache
_op("paged_kv_copy", "kv_cache", "gather", BOTH, HALF,
    _shapes("NB P H D", (256, 16, 8, 128), (1024, 16, 8, 128), (64, 16, 32, 128), (512, 64, 1, 576), (4096, 16, 8, 128)),
    "Copy NB KV-cache pages (K and V, P tokens x H heads x D each) between slots given a src->dst block "
    "mapping (beam search forks, prefix-cache copy-on-write).",
    "in k_cache:data in v_cache:data in block_mapping:i64 out k_dst:data out v_dst:data",
    lambda s, e: 4 * s["NB"] * s["P"] * s["H"] * s["D"] * e + s["NB"] * 16,
    lambda s: 0, lambda s: {"R": 2 * s["NB"] * s["P"] * s["H"], "C": s["D"]})

_op("kv_append", "kv_cache", "gather", BOTH, HALF,
    _shapes("T H D P", (8, 8, 128, 16), (64, 8, 128, 16), (256, 8, 128, 16), (4096, 8, 128, 16), (128, 1, 576, 64)),
    "Write the K and V of T new tokens into their slots of a paged KV cache (reshape_and_cache) through a "
    "slot mapping.",
    "in k:data in v:data in slot_mapping:i64 out k_cache:data out v_cache:data",
    lambda s, e: 4 * s["T"] * s["H"] * s["D"] * e + s["T"] * 8,
    lambda s: 0, lambda s: {"R": 2 * s["T"] * s["H"], "C": s["D"]})

_op("kv_int8_quant", "kv_cache", "rownorm", BOTH, ("int8",),
    _shapes("T H D P", (8, 8, 128, 16), (256, 8, 128, 16), (4096, 8, 128, 16), (16384, 8, 128, 16), (1024, 32, 128, 16)),
    "Quantize the fp16 K and V of T new tokens to int8 with one fp32 scale per (token, head) and write them "
    "into a paged int8 KV cache.",
    "in k:act in v:act in slot_mapping:i64 out k_cache:data out v_cache:data out scales:f32",
    lambda s, e: 2 * s["T"] * s["H"] * s["D"] * (A + e) + 2 * s["T"] * s["H"] * 4 + s["T"] * 8,
    lambda s: 2 * s["T"] * s["H"] * s["D"] * 3, lambda s: {"R": 2 * s["T"] * s["H"], "C": s["D"]})

# ---------------------------------------------------------------- samplers
_SAMPLER_SHAPES = _shapes("B V", (1, 128256), (32, 128256), (256, 32000), (64, 152064), (8, 129280))
_op("topk_sample", "sampler", "sampler", BOTH, ("fp32",),
    _shapes("B V K", (1, 128256, 50), (32, 128256, 50), (256, 32000, 40), (64, 152064, 20), (8, 129280, 100)),
    "Top-k sampling: keep the K largest logits of each row, softmax them with temperature and draw one "
    "token with a per-row Philox stream.",
    "in logits:data in temperature:f32 in seeds:i64 out tokens:i64",
    lambda s, e: s["B"] * s["V"] * e + s["B"] * 20,
    lambda s: 4 * s["B"] * s["V"], lambda s: {"R": s["B"], "C": s["V"], "K": s["K"]})

_op("nucleus_sample", "sampler", "sampler", BOTH, ("fp32",), _SAMPLER_SHAPES,
    "Nucleus (top-p) sampling: softmax each row, find the smallest set of tokens whose probability reaches p "
    "without a full sort (threshold search), and draw one token.",
    "in logits:data in top_p:f32 in seeds:i64 out tokens:i64",
    lambda s, e: s["B"] * s["V"] * e + s["B"] * 20,
    lambda s: 8 * s["B"] * s["V"], lambda s: {"R": s["B"], "C": s["V"], "K": 0})

_op("minp_sample", "sampler", "sampler", BOTH, ("fp32",), _SAMPLER_SHAPES,
    "Min-p sampling: drop tokens whose probability is below min_p times the row maximum, renormalize and draw "
    "one token.",
    "in logits:data in min_p:f32 in seeds:i64 out tokens:i64",
    lambda s, e: s["B"] * s["V"] * e + s["B"] * 20,
    lambda s: 6 * s["B"] * s["V"], lambda s: {"R": s["B"], "C": s["V"], "K": 0})

_op("logits_softmax", "sampler", "rownorm", BOTH, ("fp32",), _SAMPLER_SHAPES,
    "Temperature-scaled softmax over the vocabulary for each row of logits, numerically stable (max "
    "subtraction), writing probabilities.",
    "in logits:data in temperature:f32 out probs:data",
    lambda s, e: 2 * s["B"] * s["V"] * e + s["B"] * 4,
    lambda s: 5 * s["B"] * s["V"], lambda s: {"R": s["B"], "C": s["V"]})

# ---------------------------------------------------------------- MoE
_MOE_SHAPES = _shapes("T K H E", (4096, 2, 4096, 8), (256, 8, 7168, 256), (8192, 2, 4096, 8), (64, 8, 7168, 256),
                      (1024, 8, 7168, 256))
_op("moe_scatter", "moe", "gather", BOTH, HALF, _MOE_SHAPES,
    "MoE dispatch: permute each token's hidden state to the K experts the router chose, grouped by expert "
    "(T tokens of width H, E experts), from precomputed expert offsets.",
    "in x:data in topk_ids:i32 in expert_offsets:i32 out x_sorted:data out src_index:i32",
    lambda s, e: s["T"] * s["H"] * e + s["T"] * s["K"] * (s["H"] * e + 8) + s["E"] * 4,
    lambda s: 0, lambda s: {"R": s["T"] * s["K"], "C": s["H"]})

_op("moe_combine", "moe", "gather", BOTH, HALF, _MOE_SHAPES,
    "MoE combine: gather the K expert outputs of each token back to token order and sum them weighted by "
    "the router probabilities.",
    "in y_sorted:data in src_index:i32 in topk_weights:f32 out y:data",
    lambda s, e: s["T"] * s["K"] * (s["H"] * e + 8) + s["T"] * s["H"] * e,
    lambda s: 2 * s["T"] * s["K"] * s["H"], lambda s: {"R": s["T"], "C": s["H"] * s["K"]})

_op("moe_grouped_gemm", "moe", "gemm", BOTH, ("fp16", "bf16", "fp8"),
    _shapes("E M N K", (8, 1024, 28672, 4096), (8, 64, 28672, 4096), (256, 32, 4096, 7168), (256, 8, 7168, 2048),
            (64, 256, 2816, 2048)),
    "Grouped GEMM over experts: each of E experts multiplies its M routed tokens by its own weight matrix "
    "(N x K), in one launch (Mixtral, DeepSeek-V3, Qwen-MoE shapes).",
    # fp8: e4m3 activations x e4m3 weights, bf16 out, as DeepSeek-V3 serves its experts (e4m3 weights, activations
    # quantized to e4m3 at run time: https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/README_WEIGHTS.md)
    "in a:data in b:data in expert_offsets:i32 out c:act",
    lambda s, e: s["E"] * (s["M"] * s["K"] * e + s["N"] * s["K"] * e + s["M"] * s["N"] * A),
    lambda s: 2 * s["E"] * s["M"] * s["N"] * s["K"],
    lambda s: {"M": s["M"], "N": s["N"], "K": s["K"], "G": s["E"]})

_op("moe_topk_gating", "moe", "sampler", BOTH, ("fp32",),
    _shapes("T E K", (4096, 8, 2), (256, 256, 8), (8192, 256, 8), (64, 64, 6), (1024, 128, 8)),
    # slot order as vLLM's fused_topk writes it (csrc/moe/topk_softmax_kernels.cu, topkGatingSoftmax: slot k_idx
    # holds the k_idx-th argmax, "lower indices win" a tie); the CUDA and Triton templates write that order
    "MoE router: softmax over E expert logits per token, pick the top K experts and renormalize their weights; "
    "each token's K ids and weights are written by descending weight, ties to the lower expert id.",
    "in router_logits:data out topk_weights:f32 out topk_ids:i32",
    lambda s, e: s["T"] * s["E"] * e + s["T"] * s["K"] * 8,
    lambda s: 6 * s["T"] * s["E"], lambda s: {"R": s["T"], "C": s["E"], "K": s["K"]})

# ---------------------------------------------------------------- SSM
_op("mamba_scan", "ssm", "scan", BOTH, HALF,
    _shapes("B L D N", (1, 2048, 5120, 16), (8, 1024, 5120, 16), (4, 4096, 3072, 16), (16, 512, 5120, 16),
            (1, 8192, 4096, 16)),
    "Mamba selective scan (prefill): h_t = exp(delta_t A) h_{t-1} + delta_t B_t x_t, y_t = C_t h_t + D x_t, "
    "gated by silu(z), over L steps for D channels with state size N, fp32 state.",
    "in u:data in delta:data in A:f32 in Bm:data in Cm:data in z:data out y:data",
    lambda s, e: (4 * s["B"] * s["L"] * s["D"] + 2 * s["B"] * s["L"] * s["N"]) * e + s["D"] * (s["N"] + 1) * 4,
    lambda s: 9 * s["B"] * s["L"] * s["D"] * s["N"],
    lambda s: {"R": s["B"] * s["D"], "L": s["L"], "N": s["N"]})

_op("mamba_step", "ssm", "scan", BOTH, HALF,
    _shapes("B D N", (1, 5120, 16), (64, 5120, 16), (256, 5120, 16), (32, 3072, 16), (128, 8192, 16)),
    "Mamba single-token decode step: update the fp32 state h (B x D x N) in place from one new token and "
    "emit y = C h + D x.",
    "in x:data in delta:data in A:f32 in Bm:data in Cm:data in z:data out state:f32 out y:data",
    lambda s, e: 2 * s["B"] * s["D"] * s["N"] * 4 + (4 * s["B"] * s["D"] + 2 * s["B"] * s["N"]) * e
    + s["D"] * (s["N"] + 1) * 4,
    lambda s: 9 * s["B"] * s["D"] * s["N"], lambda s: {"R": s["B"] * s["D"], "L": 1, "N": s["N"]})

# ---------------------------------------------------------------- misc
_NORM_SHAPES = _shapes("T H", (1, 4096), (32, 8192), (256, 4096), (4096, 4096), (16384, 8192), (8192, 7168))
for _name, _impls, _shp in (("rmsnorm", BOTH, _NORM_SHAPES), ("triton_rmsnorm", TRITON, _NORM_SHAPES[:5])):
    _op(_name, "misc", "rownorm", _impls, HALF, _shp,
        "RMSNorm over the hidden dimension: y = x / sqrt(mean(x^2) + eps) * w, fp32 reduction, one row per token.",
        "in x:data in weight:data out y:data",
        lambda s, e: 2 * s["T"] * s["H"] * e + s["H"] * e, lambda s: 4 * s["T"] * s["H"],
        lambda s: {"R": s["T"], "C": s["H"]}, extras="eps=1e-6")

_op("fused_add_rmsnorm", "misc", "rownorm", BOTH, HALF,
    _shapes("T H", (1, 8192), (64, 4096), (512, 7168), (4096, 8192), (16384, 4096)),
    "Residual add fused with RMSNorm: r = x + residual is written back as the new residual and normalized "
    "into y in one pass.",
    "in x:data in residual:data in weight:data out y:data out residual_out:data",
    lambda s, e: 4 * s["T"] * s["H"] * e + s["H"] * e, lambda s: 5 * s["T"] * s["H"],
    lambda s: {"R": s["T"], "C": s["H"]}, extras="eps=1e-6")

_op("layernorm", "misc", "rownorm", BOTH, HALF,
    _shapes("T H", (1500, 1280), (12000, 1280), (4112, 1024), (257, 1024), (8192, 4096)),
    "LayerNorm with affine weight and bias (Whisper and CLIP ViT encoders): mean and variance in fp32, one "
    "row per token.",
    "in x:data in weight:data in bias:data out y:data",
    lambda s, e: 2 * s["T"] * s["H"] * e + 2 * s["H"] * e, lambda s: 7 * s["T"] * s["H"],
    lambda s: {"R": s["T"], "C": s["H"]}, extras="eps=1e-5")

_op("per_token_fp8_quant", "misc", "rownorm", BOTH, ("fp8",),
    _shapes("T H", (1, 7168), (64, 7168), (1024, 4096), (4096, 7168), (16384, 8192)),
    "Dynamic per-token FP8 quantization of activations: absmax of each row, scale = absmax / 448, write e4m3 "
    "values and the fp32 scale.",
    "in x:act out xq:data out scales:f32",
    lambda s, e: s["T"] * s["H"] * (A + e) + s["T"] * 4, lambda s: 3 * s["T"] * s["H"],
    lambda s: {"R": s["T"], "C": s["H"]})

_op("rope", "misc", "elementwise", BOTH, HALF,
    _shapes("T H D", (1, 32, 128), (64, 32, 128), (4096, 32, 128), (8192, 64, 128), (16384, 8, 128)),
    "Rotary position embedding (neox layout) applied in place to T tokens x H heads x D dims from a "
    "precomputed cos/sin cache indexed by position.",
    "in x:data in positions:i32 in cos_sin:f32 out x_out:data",
    lambda s, e: 2 * s["T"] * s["H"] * s["D"] * e + s["T"] * s["D"] * 4 + s["T"] * 4,
    lambda s: 3 * s["T"] * s["H"] * s["D"], lambda s: {"N": s["T"] * s["H"] * s["D"], "C": s["D"]})

_op("swiglu_act", "misc", "elementwise", BOTH, HALF,
    _shapes("T I", (1, 14336), (64, 14336), (4096, 14336), (2048, 28672), (8192, 2048)),
    "SwiGLU activation of a fused gate/up projection: y = silu(gate) * up, rows of 2*I in, I out.",
    "in gate_up:data out y:data",
    lambda s, e: 3 * s["T"] * s["I"] * e, lambda s: 6 * s["T"] * s["I"],
    lambda s: {"N": s["T"] * s["I"], "C": s["I"]})

_op("embedding_gather", "misc", "gather", BOTH, HALF,
    _shapes("T V H", (1, 128256, 4096), (256, 128256, 4096), (4096, 128256, 8192), (8192, 129280, 7168), (64, 32000, 4096)),
    "Token embedding lookup: gather T rows of width H from a V x H table by token id.",
    "in ids:i32 in table:data out y:data",
    lambda s, e: 2 * s["T"] * s["H"] * e + s["T"] * 4, lambda s: 0,
    lambda s: {"R": s["T"], "C": s["H"]})

_op("conv1d_causal", "misc", "conv", BOTH, HALF,
    _shapes("B L D W", (1, 2048, 5120, 4), (8, 1024, 5120, 4), (16, 4096, 2048, 4), (4, 8192, 4096, 4), (64, 512, 5120, 4)),
    "Depthwise causal 1-D convolution of width W over L steps per channel (Mamba's conv1d), with bias and "
    "silu.",
    "in x:data in weight:data in bias:data out y:data",
    lambda s, e: 2 * s["B"] * s["L"] * s["D"] * e + s["D"] * (s["W"] + 1) * e,
    lambda s: 2 * s["B"] * s["L"] * s["D"] * s["W"],
    lambda s: {"M": s["B"] * s["L"] * s["D"], "C": 1, "K": 1, "TAPS": s["W"]})

_op("conv2d_nhwc", "misc", "conv", BOTH, HALF,
    _shapes("N H W C K R S", (1, 64, 64, 320, 320, 3, 3), (2, 32, 32, 640, 640, 3, 3), (1, 128, 128, 128, 128, 3, 3),
            (4, 16, 16, 1280, 1280, 3, 3), (8, 56, 56, 64, 64, 3, 3)),
    "2-D convolution, NHWC layout, stride 1, same padding, R x S filters from C to K channels (vision "
    "encoders, diffusion UNets), as an implicit GEMM.",
    "in x:data in weight:data out y:data",
    lambda s, e: (s["N"] * s["H"] * s["W"] * (s["C"] + s["K"]) + s["K"] * s["R"] * s["S"] * s["C"]) * e,
    lambda s: 2 * s["N"] * s["H"] * s["W"] * s["K"] * s["C"] * s["R"] * s["S"],
    lambda s: {"M": s["N"] * s["H"] * s["W"], "C": s["C"], "K": s["K"], "TAPS": s["R"] * s["S"]})

OPS: dict[str, Op] = {op.name: op for op in _OPS}

# The kernelswarm seed's 17 ops, in its order.
SWARM_OPS = ("flash_decode", "swa_decode", "gemm_fp16", "int8_gemm", "fp8_gemm", "int4_gemv", "rmsnorm", "rope",
             "swiglu_act", "topk_sample", "nucleus_sample", "mamba_scan", "moe_scatter", "kv_append",
             "fused_qkv_rope", "triton_flash_decode", "triton_rmsnorm")


def shape_label(shape: Shape) -> str:
    """`B=8,H=32,D=128,T=4096,P=16`: the seeds' way of writing a shape inside ids."""
    return ",".join([f"{k}={v}" for k, v in shape.items()])
