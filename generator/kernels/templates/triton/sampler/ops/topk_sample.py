TOP_K = {{SHAPE_K}}
SEARCH_STEPS = 24


@triton.jit
def {{KERNEL_NAME}}_kernel(
    logits_ptr: "*fp32", temperature_ptr: "*fp32", seeds_ptr: "*i64", n_cols: tl.int32, stride_row: tl.int32,
    tokens_ptr: "*i64", score_ptr: "*fp32",
    BLOCK_V: tl.constexpr, SPLITS: tl.constexpr, TOP_K: tl.constexpr, SEARCH_STEPS: tl.constexpr,
):
    # Keep the TOP_K largest logits without sorting: bisect on a threshold t until count(x >= t) >= TOP_K
    # holds for the largest t the search can resolve.
    row = tl.program_id(0)
    row_ptr = logits_ptr + row.to(tl.int64) * stride_row
    hi_t = _row_max(row_ptr, n_cols, BLOCK_V)
    lo_t = hi_t - 1.0e4
    for _ in range(SEARCH_STEPS):
        mid = 0.5 * (lo_t + hi_t)
        count = tl.zeros((BLOCK_V,), dtype=tl.int32)
        for c0 in range(0, n_cols, BLOCK_V):
            cols = c0 + tl.arange(0, BLOCK_V)
            x = tl.load(row_ptr + cols, mask=cols < n_cols, other=float("-inf"))
            count += (x >= mid).to(tl.int32)
        enough = tl.sum(count, axis=0) >= TOP_K
        lo_t = tl.where(enough, mid, lo_t)
        hi_t = tl.where(enough, hi_t, mid)
    inv_t = 1.0 / tl.load(temperature_ptr + row)
    split, lo, hi = _select_range(n_cols, BLOCK_V, SPLITS)
    score, token = _gumbel_argmax(row_ptr, lo, hi, lo_t, inv_t, tl.load(seeds_ptr + row), BLOCK_V)
    _emit(tokens_ptr, score_ptr, row, split, SPLITS, score, token)


def {{OP}}(logits, temperature, seeds, tokens):
    """tokens[b] ~ softmax(top-{{SHAPE_K}} of logits[b] / temperature[b]); logits: (B, V) fp32, seeds: (B,) int64."""
    B, V = logits.shape
    _launch_sample({{KERNEL_NAME}}_kernel, tokens, B, logits, temperature, seeds, V, logits.stride(0),
                   TOP_K=TOP_K, SEARCH_STEPS=SEARCH_STEPS)
