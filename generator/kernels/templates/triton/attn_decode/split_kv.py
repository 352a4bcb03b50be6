"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

Flash-decoding: the keys of each (sequence, head) are split SPLITS ways across programs (partial outputs + log-
sum-exp), then a second kernel merges the splits.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}


@triton.jit
def _kv_range(seq_len, BLOCK_N: tl.constexpr, SPLITS: tl.constexpr):
    # Program (row, s) takes the s-th of SPLITS slices of the keys, a whole number of BLOCK_N tiles each.
    split = tl.program_id(1)
    per_split = tl.cdiv(tl.cdiv(seq_len, SPLITS), BLOCK_N) * BLOCK_N
    lo = split * per_split
    return split, lo, tl.minimum(lo + per_split, seq_len)


@triton.jit
def _finish(acc, m_i, l_i):
    # Normalized output and log-sum-exp of the rows; an empty key range gives 0 and -inf.
    l_safe = tl.where(l_i > 0.0, l_i, 1.0)
    return acc / l_safe[:, None], tl.where(l_i > 0.0, m_i + tl.log(l_safe), float("-inf"))


{{OP_SNIPPET}}


@triton.jit
def {{KERNEL_NAME}}_combine_kernel(
    part_ptr: "*{{TL_SIG}}", lse_ptr: "*fp32", o_ptr: "*{{TL_SIG}}", SPLITS: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    # Second pass: merge the SPLITS partial outputs of one output row, weighted by their softmax mass.
    row = tl.program_id(0)
    splits = tl.arange(0, SPLITS)
    offs_d = tl.arange(0, HEAD_DIM)
    lse = tl.load(lse_ptr + row * SPLITS + splits)
    lse_max = tl.max(lse, axis=0)
    weight = tl.where(lse > float("-inf"), tl.exp(lse - lse_max), 0.0)
    part = tl.load(part_ptr + (row * SPLITS + splits)[:, None] * HEAD_DIM + offs_d[None, :]).to(tl.float32)
    out = tl.sum(part * weight[:, None], axis=0) / tl.sum(weight, axis=0)
    tl.store(o_ptr + row * HEAD_DIM + offs_d, out.to(o_ptr.dtype.element_ty))


def _launch(kernel, o, rows, q_rows, q_blocks, *args, **meta):
    import torch  # the caller's tensors are torch tensors; the module itself imports only triton

    part = torch.empty((rows * q_rows, SPLITS, HEAD_DIM), device=o.device, dtype=o.dtype)
    part_lse = torch.empty((rows * q_rows, SPLITS), device=o.device, dtype=torch.float32)
    grid = (rows, SPLITS, q_blocks)
    kernel[grid](*args, part, part_lse, BLOCK_N=BLOCK_N, SPLITS=SPLITS, HEAD_DIM=HEAD_DIM, num_warps=NUM_WARPS,
                 num_stages=NUM_STAGES, **meta)
    combine = {{KERNEL_NAME}}_combine_kernel
    combine[(rows * q_rows,)](part, part_lse, o, SPLITS=SPLITS, HEAD_DIM=HEAD_DIM, num_warps=NUM_WARPS)
