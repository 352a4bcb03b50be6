@triton.jit
def {{KERNEL_NAME}}_kernel(
    logits_ptr: "*fp32", min_p_ptr: "*fp32", seeds_ptr: "*i64", n_cols: tl.int32, stride_row: tl.int32,
    tokens_ptr: "*i64", score_ptr: "*fp32",
    BLOCK_V: tl.constexpr, SPLITS: tl.constexpr,
):
    # p_i >= min_p * p_max  <=>  x_i >= max(x) + log(min_p): one max pass gives the threshold, no sum needed.
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride_row
    thresh = _row_max(row_ptr, n_cols, BLOCK_V) + tl.log(tl.load(min_p_ptr + row))
    split, lo, hi = _select_range(n_cols, BLOCK_V, SPLITS)
    score, token = _gumbel_argmax(row_ptr, lo, hi, thresh, 1.0, tl.load(seeds_ptr + row), BLOCK_V)
    _emit(tokens_ptr, score_ptr, row, split, SPLITS, score, token)


def {{OP}}(logits, min_p, seeds, tokens):
    """tokens[b] ~ softmax(logits[b]) restricted to p >= min_p[b] * max(p); logits: (B, V) fp32."""
    B, V = logits.shape
    _launch_sample({{KERNEL_NAME}}_kernel, tokens, B, logits, min_p, seeds, V, logits.stride(0))
