"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program (4 warps) per row, the row streamed in BLOCK_N-wide chunks: a reduction pass, then a normalize-and-
store pass that re-reads it.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_WARPS = 4
NUM_STAGES = 1
ROWS_PER_PROG = 1


@triton.jit
def _rows(ROWS_PER_PROG: tl.constexpr):
    # One row per program.
    return tl.program_id(0) * ROWS_PER_PROG + tl.arange(0, ROWS_PER_PROG)


@triton.jit
def _load(ptr, row_offs, cols, row_mask, n_cols):
    mask = row_mask[:, None] & (cols[None, :] < n_cols)
    return tl.load(ptr + row_offs[:, None] + cols[None, :], mask=mask, other=0.0).to(tl.float32)


@triton.jit
def _store(ptr, row_offs, cols, row_mask, n_cols, val):
    mask = row_mask[:, None] & (cols[None, :] < n_cols)
    tl.store(ptr + row_offs[:, None] + cols[None, :], val.to(ptr.dtype.element_ty), mask=mask)


{{OP_SNIPPET}}


def _launch(kernel, n_rows, *args, **meta):
    grid = (triton.cdiv(n_rows, ROWS_PER_PROG),)
    kernel[grid](*args, BLOCK_N=BLOCK_N, ROWS_PER_PROG=ROWS_PER_PROG, num_warps=NUM_WARPS, num_stages=NUM_STAGES,
                 **meta)
