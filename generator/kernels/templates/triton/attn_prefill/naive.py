"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

FlashAttention-style tiles of BLOCK_M queries x BLOCK_N keys with tl.dot and an online softmax, 4 warps, no
pipelining.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_WARPS = 4
NUM_STAGES = 1


@triton.jit
def _online_update(q, k, v, m_i, l_i, acc, visible, sm_scale):
    # One key tile: scores on tensor cores, masked, folded into the running max / sum / output (fp32).
    s = tl.dot(q, tl.trans(k)) * sm_scale
    s = tl.where(visible, s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, axis=1))
    alpha = tl.exp(m_i - m_new)
    p = tl.exp(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, axis=1)
    acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    return m_new, l_i, acc


{{OP_SNIPPET}}


def _launch(kernel, n_queries, n_rows, *args, **meta):
    grid = (triton.cdiv(n_queries, BLOCK_M), n_rows)
    kernel[grid](*args, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=HEAD_DIM, num_warps=NUM_WARPS,
                 num_stages=NUM_STAGES, **meta)
