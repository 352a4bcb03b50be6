"""{{OP}} ({{DTYPE}}) on {{GPU_DISPLAY}}, Triton for {{ARCH}}.

One program (4 warps) per (batch, BLOCK_D channels) runs the recurrence step by step with the fp32 state in
registers.
"""
import triton
import triton.language as tl

{{TUNED_CONSTANTS}}
NUM_WARPS = 4
NUM_STAGES = 1
CHUNK = 1


@triton.jit
def _scan(h, u_ptr, delta_ptr, z_ptr, bm_ptr, cm_ptr, y_ptr, A, offs_d, d_mask, L, stride_t, stride_bt,
          N_STATE: tl.constexpr, BLOCK_D: tl.constexpr, CHUNK: tl.constexpr):
    # Sequential recurrence over L steps for BLOCK_D channels, fp32 state h[BLOCK_D, N_STATE] in registers:
    # h = exp(dt * A) * h + dt * u * B_t;  y_t = (h . C_t) * silu(z_t). Returns the final state.
    offs_n = tl.arange(0, N_STATE)
    for t in range(0, L):
        u = tl.load(u_ptr + t * stride_t + offs_d, mask=d_mask, other=0.0).to(tl.float32)
        dt = tl.load(delta_ptr + t * stride_t + offs_d, mask=d_mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + t * stride_t + offs_d, mask=d_mask, other=0.0).to(tl.float32)
        b = tl.load(bm_ptr + t * stride_bt + offs_n).to(tl.float32)
        c = tl.load(cm_ptr + t * stride_bt + offs_n).to(tl.float32)
        h = tl.exp(dt[:, None] * A) * h + (dt * u)[:, None] * b[None, :]
        y = tl.sum(h * c[None, :], axis=1) * (z / (1.0 + tl.exp(-z)))
        tl.store(y_ptr + t * stride_t + offs_d, y.to(y_ptr.dtype.element_ty), mask=d_mask)
    return h


{{OP_SNIPPET}}


def _launch(kernel, n_batch, n_channels, *args, **meta):
    grid = (n_batch, triton.cdiv(n_channels, BLOCK_D))
    kernel[grid](*args, BLOCK_D=BLOCK_D, CHUNK=CHUNK, num_warps=NUM_WARPS, num_stages=NUM_STAGES, **meta)
