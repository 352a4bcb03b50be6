"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program per (sequence, head) walks all cached keys in small BLOCK_N tiles with an online softmax (fp32
running max and sum), 4 warps, no pipelining.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_WARPS = 4
NUM_STAGES = 1
SPLITS = 1


@triton.jit
def _kv_range(seq_len, BLOCK_N: tl.constexpr, SPLITS: tl.constexpr):
    # The whole KV sequence in one program: returns (split index, first key, end key).
    return 0, 0, seq_len


@triton.jit
def _finish(acc, m_i, l_i):
    # Normalized output and log-sum-exp of the rows; an empty key range gives 0 and -inf.
    l_safe = tl.where(l_i > 0.0, l_i, 1.0)
    return acc / l_safe[:, None], tl.where(l_i > 0.0, m_i + tl.log(l_safe), float("-inf"))


{{OP_SNIPPET}}


def _launch(kernel, o, rows, q_rows, q_blocks, *args, **meta):
    import torch  # the caller's tensors are torch tensors; the module itself imports only triton

    lse = torch.empty(rows * q_rows, device=o.device, dtype=torch.float32)
    kernel[(rows, 1, q_blocks)](*args, o, lse, BLOCK_N=BLOCK_N, SPLITS=SPLITS, HEAD_DIM=HEAD_DIM,
                                num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
    return lse
