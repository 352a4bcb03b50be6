"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program per row over NUM_WARPS warps with wide BLOCK_V tiles: row statistics, threshold search, then a
Gumbel-max draw over the kept tokens.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1
SPLITS = 1


@triton.jit
def _row_max(row_ptr, n_cols, BLOCK_V: tl.constexpr):
    m = tl.full((BLOCK_V,), float("-inf"), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_V):
        cols = c0 + tl.arange(0, BLOCK_V)
        m = tl.maximum(m, tl.load(row_ptr + cols, mask=cols < n_cols, other=float("-inf")))
    return tl.max(m, axis=0)


@triton.jit
def _gumbel_argmax(row_ptr, lo, hi, thresh, inv_t, seed, BLOCK_V: tl.constexpr):
    # Gumbel-max: argmax(x / T + Gumbel noise) over the kept logits (x >= thresh) is an exact draw from their
    # softmax; the noise is Philox keyed by (seed, vocabulary index), so splits agree on it.
    best = tl.full((BLOCK_V,), float("-inf"), dtype=tl.float32)
    best_idx = tl.zeros((BLOCK_V,), dtype=tl.int32)
    for c0 in range(lo, hi, BLOCK_V):
        cols = c0 + tl.arange(0, BLOCK_V)
        x = tl.load(row_ptr + cols, mask=cols < hi, other=float("-inf"))
        gumbel = -tl.log(-tl.log(tl.rand(seed, cols) + 1e-20) + 1e-20)
        score = tl.where(x >= thresh, x * inv_t + gumbel, float("-inf"))
        better = score > best
        best = tl.where(better, score, best)
        best_idx = tl.where(better, cols, best_idx)
    score, lane = tl.max(best, axis=0, return_indices=True)
    return score, tl.sum(tl.where(tl.arange(0, BLOCK_V) == lane, best_idx, 0), axis=0)


@triton.jit
def _select_range(n_cols, BLOCK_V: tl.constexpr, SPLITS: tl.constexpr):
    # The whole row is sampled by one program: (split, first column, end column).
    return 0, 0, n_cols


@triton.jit
def _emit(tokens_ptr, score_ptr, row, split, SPLITS: tl.constexpr, score, token):
    tl.store(tokens_ptr + row * SPLITS + split, token.to(tl.int64))
    tl.store(score_ptr + row * SPLITS + split, score)


{{OP_SNIPPET}}


def _launch_sample(kernel, tokens, n_rows, *args, **meta):
    import torch  # the caller's tensors are torch tensors; the module itself imports only triton

    score = torch.empty(n_rows, device=tokens.device, dtype=torch.float32)
    kernel[(n_rows, 1)](*args, tokens, score, BLOCK_V=BLOCK_V, SPLITS=SPLITS, num_warps=NUM_WARPS,
                        num_stages=NUM_STAGES, **meta)
