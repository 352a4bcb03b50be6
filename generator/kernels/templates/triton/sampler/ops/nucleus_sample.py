SEARCH_STEPS = 24


@triton.jit
def _mass_above(row_ptr, n_cols, thresh, m, inv_t, BLOCK_V: tl.constexpr):
    # Unnormalized softmax mass of the logits >= thresh.
    acc = tl.zeros((BLOCK_V,), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_V):
        cols = c0 + tl.arange(0, BLOCK_V)
        x = tl.load(row_ptr + cols, mask=cols < n_cols, other=float("-inf"))
        acc += tl.where(x >= thresh, tl.exp((x - m) * inv_t), 0.0)
    return tl.sum(acc, axis=0)


@triton.jit
def {{KERNEL_NAME}}_kernel(
    logits_ptr: "*fp32", top_p_ptr: "*fp32", seeds_ptr: "*i64", n_cols: tl.int32, stride_row: tl.int32,
    tokens_ptr: "*i64", score_ptr: "*fp32",
    BLOCK_V: tl.constexpr, SPLITS: tl.constexpr, SEARCH_STEPS: tl.constexpr,
):
    # Top-p without a sort: bisect on a logit threshold t for the largest t whose kept mass still reaches
    # top_p of the total, then draw among the kept logits (temperature 1).
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride_row
    m = _row_max(row_ptr, n_cols, BLOCK_V)
    target = tl.load(top_p_ptr + row) * _mass_above(row_ptr, n_cols, float("-inf"), m, 1.0, BLOCK_V)
    lo_t = m - 80.0
    hi_t = m
    for _ in range(SEARCH_STEPS):
        mid = 0.5 * (lo_t + hi_t)
        enough = _mass_above(row_ptr, n_cols, mid, m, 1.0, BLOCK_V) >= target
        lo_t = tl.where(enough, mid, lo_t)
        hi_t = tl.where(enough, hi_t, mid)
    split, lo, hi = _select_range(n_cols, BLOCK_V, SPLITS)
    score, token = _gumbel_argmax(row_ptr, lo, hi, lo_t, 1.0, tl.load(seeds_ptr + row), BLOCK_V)
    _emit(tokens_ptr, score_ptr, row, split, SPLITS, score, token)


def {{OP}}(logits, top_p, seeds, tokens):
    """tokens[b] ~ the top-p nucleus of softmax(logits[b]); logits: (B, V) fp32, top_p: (B,), seeds: (B,) int64."""
    B, V = logits.shape
    _launch_sample({{KERNEL_NAME}}_kernel, tokens, B, logits, top_p, seeds, V, logits.stride(0),
                   SEARCH_STEPS=SEARCH_STEPS)
