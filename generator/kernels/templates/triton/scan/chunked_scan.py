"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

CHUNK time steps are loaded as tiles and scanned in parallel (tl.associative_scan of the linear recurrence), the
state carried between chunks.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_STAGES = 1


@triton.jit
def _linear_combine(a_left, b_left, a_right, b_right):
    # Composition of h -> a * h + b steps: the associative operator of a linear recurrence.
    return a_left * a_right, b_left * a_right + b_right


@triton.jit
def _pick(tile, offs, i, axis: tl.constexpr):
    # Row/column i of a register tile (Triton has no dynamic register indexing).
    if axis == 0:
        picked = tl.sum(tl.where(offs[:, None] == i, tile, 0.0), axis=0)
    else:
        picked = tl.sum(tl.where(offs[None, :] == i, tile, 0.0), axis=1)
    return picked


@triton.jit
def _scan(h, u_ptr, delta_ptr, z_ptr, bm_ptr, cm_ptr, y_ptr, A, offs_d, d_mask, L, stride_t, stride_bt,
          N_STATE: tl.constexpr, BLOCK_D: tl.constexpr, CHUNK: tl.constexpr):
    # CHUNK time steps at a time: the chunk's inputs are loaded as [CHUNK, BLOCK_D] tiles and, per state
    # index n, the recurrence over the chunk is a parallel associative scan seeded by the carried state.
    offs_n = tl.arange(0, N_STATE)
    offs_c = tl.arange(0, CHUNK)
    for t0 in range(0, L, CHUNK):
        offs_t = t0 + offs_c
        mask = (offs_t < L)[:, None] & d_mask[None, :]
        tile = offs_t[:, None] * stride_t + offs_d[None, :]
        u = tl.load(u_ptr + tile, mask=mask, other=0.0).to(tl.float32)
        dt = tl.load(delta_ptr + tile, mask=mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + tile, mask=mask, other=0.0).to(tl.float32)
        bc = offs_t[:, None] * stride_bt + offs_n[None, :]
        bm = tl.load(bm_ptr + bc, mask=(offs_t < L)[:, None], other=0.0).to(tl.float32)
        cm = tl.load(cm_ptr + bc, mask=(offs_t < L)[:, None], other=0.0).to(tl.float32)
        y = tl.zeros((CHUNK, BLOCK_D), dtype=tl.float32)
        h_next = tl.zeros((BLOCK_D, N_STATE), dtype=tl.float32)
        for n in range(N_STATE):
            decay = tl.exp(dt * _pick(A, offs_n, n, 1)[None, :])
            inject = dt * u * _pick(bm, offs_n, n, 1)[:, None]
            decay = tl.where(mask, decay, 1.0)
            a_cum, h_n = tl.associative_scan((decay, inject), axis=0, combine_fn=_linear_combine)
            h_n = h_n + a_cum * _pick(h, offs_n, n, 1)[None, :]
            y += h_n * _pick(cm, offs_n, n, 1)[:, None]
            h_next = tl.where(offs_n[None, :] == n, _pick(h_n, offs_c, CHUNK - 1, 0)[:, None], h_next)
        h = h_next
        tl.store(y_ptr + tile, (y * (z / (1.0 + tl.exp(-z)))).to(y_ptr.dtype.element_ty), mask=mask)
    return h


{{OP_SNIPPET}}


def _launch(kernel, n_batch, n_channels, *args, **meta):
    grid = (n_batch, triton.cdiv(n_channels, BLOCK_D))
    kernel[grid](*args, BLOCK_D=BLOCK_D, CHUNK=CHUNK, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
