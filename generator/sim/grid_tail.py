"""Which output elements a launch grid that rounds down leaves uncomputed (the `truncated_grid` fault).

Why a model of its own: the fault turns one grid axis's ceiling division `(E + B - 1) / B` (CUDA) or
`triton.cdiv(E, B)` (Triton) into a floor division, so no block is launched for the last E mod B indices of that
axis and the outputs they own are never computed. That region follows from the task's shape and the step's block
size alone, so a report can say exactly which outputs mismatch (never the block size or the grid: a harness
sees only the output); where B divides E the edit launches the same grid (a no-op), and where
E < B it launches none along the axis (CUDA refuses a zero grid dimension): the fault is drawn only where
`unwritten` finds a tail. Modelled only where the axis owns a plain slab of the op's flattened output
(`correctness.OUTPUTS`), per op in `AXES` as the templates lay it out: GEMMs G x M x N row-major (grid axes over M
and N), GEMVs M x N (over N: a block of NUM_WARPS or BLOCK_N outputs for every token), prefill attention
[B, H, queries, D] (over the queries), conv2d NHWC [pixels, K] (over pixels and over K), the row norms and softmax
[rows, C] (over rows: fused_add_rmsnorm writes two such outputs), SwiGLU [T, I] (over I). Where a split-K
reduction writes the output from a partial buffer, the tail's outputs are written from partials no block computed:
those outputs are wrong all the same.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from generator.catalog.ops import OPS


@dataclass(frozen=True)
class Axis:
    """One grid axis over the output: its length is the op's dims[`dim`]; one index of it owns `inner(dims)`
    consecutive elements, and the axis repeats in `outer(dims)` blocks of the flattened output (`per` of them)."""

    dim: str
    noun: str                # what one index is: rows, columns, queries, pixels, channels
    per: str                 # what the axis repeats in, as the report names them
    inner: Callable[[dict], int]
    outer: Callable[[dict], int]


def _one(_dims: dict) -> int:
    return 1


# the output layouts both fault models read (stride_shift: which outputs a stride edit moves)
GEMM_AXES = {"M": Axis("M", "rows", "groups", lambda d: d["N"], lambda d: d["G"]),
             "N": Axis("N", "columns", "rows", _one, lambda d: d["G"] * d["M"])}
GEMV_AXES = {"N": Axis("N", "columns", "rows", _one, lambda d: d["M"])}
PREFILL_AXES = dict.fromkeys(("Q_LEN", "n_queries"),
                             Axis("SQ", "queries", "heads", lambda d: d["D"], lambda d: d["R"]))
ROW_AXES = {"n_rows": Axis("R", "rows", "outputs", lambda d: d["C"], _one)}
# op -> the launcher's name of an axis's length -> the axis
AXES = {
    **{op: GEMM_AXES for op, o in OPS.items() if o.kernel_class == "gemm"},
    **{op: GEMV_AXES for op, o in OPS.items() if o.kernel_class == "gemv"},
    **{op: PREFILL_AXES for op, o in OPS.items() if o.kernel_class == "attn_prefill"},
    "conv2d_nhwc": {**dict.fromkeys(("OUT_POINTS", "n_points"), Axis("M", "pixels", "", lambda d: d["K"], _one)),
                    **dict.fromkeys(("COUT", "OUT_CHANNELS", "n_channels"),
                                    Axis("K", "channels", "pixels", _one, lambda d: d["M"]))},
    **dict.fromkeys(("rmsnorm", "triton_rmsnorm", "layernorm", "logits_softmax"), ROW_AXES),
    "fused_add_rmsnorm": {"n_rows": Axis("R", "rows", "outputs", lambda d: d["C"], lambda d: 2)},   # y, residual_out
    "swiglu_act": {"n_cols": Axis("C", "columns", "rows", _one, lambda d: d["N"] // d["C"])},
}


@dataclass(frozen=True)
class Tail:
    """The uncomputed part of the output: the last `missed` of `extent` indices of one axis, in each of the axis's
    `outer` blocks of the flattened output, each index owning `inner` consecutive elements."""

    axis: Axis
    extent: int          # E: the axis's length
    block: int           # B: indices one block covers
    inner: int
    outer: int

    @property
    def launched(self) -> int:
        return self.extent // self.block

    @property
    def missed(self) -> int:
        return self.extent % self.block

    @property
    def count(self) -> int:
        return self.outer * self.missed * self.inner

    @property
    def first(self) -> int:
        return (self.extent - self.missed) * self.inner


def tail_of(task, axis: Axis, block: int) -> Tail:
    """What blocks of `block` indices along `axis` leave of `task`'s output (a tail or none)."""
    dims = OPS[task.op].dims(task.shape_dict())
    return Tail(axis, dims[axis.dim], block, axis.inner(dims), axis.outer(dims))


def unwritten(task, division: str, params: dict) -> Tail | None:
    """The tail the floored `division` ("M / BLOCK_M", the fault's Expected.message) leaves for `task` at `params` (the
    variant's full params), None where the edit leaves none (B divides E) or launches no block (E < B), or where
    the axis is not modelled."""
    extent_name, _, block_name = division.partition(" / ")
    axis = AXES.get(task.op, {}).get(extent_name)
    if axis is None or block_name not in params:
        return None
    tail = tail_of(task, axis, params[block_name])
    return tail if tail.launched and tail.missed else None
