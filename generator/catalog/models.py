"""Shapes from the configurations of widely used open models: the task space past the catalog's own shapes.

Each model's dimensions are copied from its `config.json` on the Hugging Face Hub (or its paper where there is
none), cited next to it; `docs/MODEL_SHAPES.md` lists them with the same sources. An op gets the shapes its
kernel runs at in those models, at common decode batch sizes (B or T = 1..256 tokens in flight), prefill token
counts (512..8192) and cached context lengths (2k..32k). Shapes the catalog already has are left out, so a model
shape is always a new (op, gpu, shape) group. These shapes enter training only past the catalog's own task pool
(`catalog.tasks.split_tasks`), so runs at the default scale are unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from generator.catalog.ops import OPS


@dataclass(frozen=True)
class Model:
    name: str
    source: str
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int                 # the dense (or per-expert) FFN width, intermediate_size
    vocab: int
    experts: int = 0         # routed experts (MoE)
    top_k: int = 0           # experts per token


MODELS = (
    Model("Llama-3-8B", "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json",
          4096, 32, 8, 128, 14336, 128256),
    Model("Llama-3-70B", "https://huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json",
          8192, 64, 8, 128, 28672, 128256),
    Model("Mistral-7B-v0.1", "https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json",
          4096, 32, 8, 128, 14336, 32000),
    Model("Mixtral-8x7B-v0.1", "https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json",
          4096, 32, 8, 128, 14336, 32000, experts=8, top_k=2),
    Model("Qwen2.5-7B", "https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json",
          3584, 28, 4, 128, 18944, 152064),
    Model("Qwen2.5-72B", "https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json",
          8192, 64, 8, 128, 29568, 152064),
    Model("DeepSeek-V3", "https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json",
          7168, 128, 128, 128, 2048, 129280, experts=256, top_k=8),   # moe_intermediate_size 2048
    Model("Whisper-large-v3", "https://huggingface.co/openai/whisper-large-v3/blob/main/config.json",
          1280, 20, 20, 64, 5120, 51866),
)
# Mamba-2.8B (https://huggingface.co/state-spaces/mamba-2.8b-hf/blob/main/config.json): d_model 2560, expand 2
# (d_inner 5120), d_state 16; Mamba-1.4B: d_model 2048 (d_inner 4096), d_state 16.
MAMBA_INNER = (5120, 4096)
MAMBA_STATE = 16

DECODE = (1, 16, 64, 256)          # tokens (sequences) in flight at decode
PREFILL = (512, 2048, 8192)        # tokens of one prefill batch
CONTEXT = (2048, 8192, 32768)      # cached tokens a decode step attends over
PAGE = 16                          # vLLM's default KV block size


def _dense(m: Model) -> bool:
    return m.experts == 0


def _shapes_for(op: str) -> list[dict[str, int]]:
    tokens = DECODE + PREFILL
    attn = [m for m in MODELS if m.name != "DeepSeek-V3"]       # MLA is mla_decode's, not MHA/GQA
    if op in ("rmsnorm", "triton_rmsnorm", "fused_add_rmsnorm"):
        return [{"T": t, "H": m.hidden} for m in MODELS for t in tokens]
    if op == "swiglu_act":
        return [{"T": t, "I": m.ffn} for m in MODELS if m.name != "Whisper-large-v3" for t in tokens]
    if op == "rope":
        return [{"T": t, "H": m.heads, "D": m.head_dim} for m in attn for t in tokens]
    if op == "fused_qkv_rope":
        return [{"T": t, "H": m.heads, "HKV": m.kv_heads, "D": m.head_dim} for m in attn for t in tokens]
    if op == "gemm_fp16":         # qkv, o, gate_up and down projections of dense models at prefill
        return [{"M": t, "N": n, "K": k} for m in MODELS if _dense(m) for t in PREFILL
                for n, k in (((m.heads + 2 * m.kv_heads) * m.head_dim, m.hidden), (m.hidden, m.heads * m.head_dim),
                             (2 * m.ffn, m.hidden), (m.hidden, m.ffn))]
    if op == "gemv_fp16":         # the same projections at decode batch 1
        return [{"M": 1, "N": n, "K": k} for m in MODELS if _dense(m)
                for n, k in (((m.heads + 2 * m.kv_heads) * m.head_dim, m.hidden), (m.hidden, m.ffn))]
    if op in ("flash_decode", "triton_flash_decode"):   # H: the KV heads each sequence streams
        return [{"B": b, "H": m.kv_heads, "D": m.head_dim, "T": t, "P": PAGE} for m in attn
                for b in DECODE for t in CONTEXT]
    if op == "flash_prefill":
        return [{"B": 1, "H": m.heads, "S": s, "D": m.head_dim} for m in attn for s in PREFILL]
    if op == "moe_topk_gating":
        return [{"T": t, "E": m.experts, "K": m.top_k} for m in MODELS if m.experts for t in tokens]
    if op == "logits_softmax":
        return [{"B": b, "V": m.vocab} for m in MODELS for b in DECODE]
    if op == "mamba_step":
        return [{"B": b, "D": d, "N": MAMBA_STATE} for d in MAMBA_INNER for b in DECODE]
    return []


def model_shapes_of(op: str) -> tuple[dict[str, int], ...]:
    """`op`'s model shapes beyond the catalog's own (what the validator accepts besides `Op.shapes`)."""
    return model_shapes(op, tuple(tuple(s.items()) for s in OPS[op].shapes))


@lru_cache(maxsize=None)
def model_shapes(op: str, known: tuple[tuple[tuple[str, int], ...], ...]) -> tuple[dict[str, int], ...]:
    """The model shapes of `op` not among `known` (the catalog's), deduplicated, in a fixed order."""
    seen = set(known)
    out = []
    for shape in _shapes_for(op):
        key = tuple(shape.items())
        if key not in seen:
            seen.add(key)
            out.append(shape)
    return tuple(out)
