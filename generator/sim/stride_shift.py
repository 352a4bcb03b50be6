"""Which outputs a wrong stride leaves wrong (the `wrong_stride` fault).

Why a model of its own: the fault edits one product `X * S` of an index expression into `X * S'` (S + 1, or
another stride in scope), which moves the address for every X but 0. Where X is the index of one axis of the op's
output (a GEMM's row m, reading A or writing C; its column n, reading B or writing C; a row norm's or softmax's
row), every output whose index on that axis is 1 or more reads or lands at the moved address and is wrong, and those
at index 0 are right: the report says exactly which outputs mismatch: that slab of the flattened output
(`correctness.OUTPUTS`), laid out as `grid_tail.AXES` lays it. Modelled only where X is such an index, by the name
the templates give it (`INDEXES`) or the name a session's style gives it instead (`style.template_name`: a Triton
GEMM's `offs_m` written `rm` is the same product, whatever the engineer calls it), and the edit moves the address
at the task's shape: the axis has a second index (a GEMV or a norm of one token has none) and S' differs from S (a
GEMM's `m * N` made `m * K` is the same kernel where K = N); elsewhere the step draws another wrong-result kind, as
for a grid that leaves no tail.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from generator.catalog.ops import OPS
from generator.kernels.style import template_name
from generator.sim.grid_tail import GEMM_AXES, GEMV_AXES, ROW_AXES, Axis

_GEMV_ROWS = Axis("M", "rows", "", lambda d: d["N"], lambda d: 1)
_ROW_INDEX = {"rows": ROW_AXES["n_rows"]}
# op class -> the templates' name of an output axis's index -> the axis
INDEXES = {
    "gemm": {"m": GEMM_AXES["M"], "offs_m": GEMM_AXES["M"], "n": GEMM_AXES["N"], "offs_n": GEMM_AXES["N"]},
    "gemv": {"m": _GEMV_ROWS, "offs_n": GEMV_AXES["N"]},
}
ROW_OPS = frozenset({"rmsnorm", "triton_rmsnorm", "layernorm", "logits_softmax"})    # one output [rows, C]
# `X * S -> X * S'`, the fault's Expected.message (faults._make_wrong_stride)
PRODUCT = re.compile(r"(\w+) \* (\w+) -> \1 \* (\w+|\(\2 \+ 1\))")


@dataclass(frozen=True)
class Shift:
    """The outputs a moved address makes wrong: every index but the first of `axis` (length `extent`), in each of
    its `outer` blocks of the flattened output, each index owning `inner` consecutive elements."""

    axis: Axis
    extent: int
    inner: int
    outer: int

    @property
    def count(self) -> int:
        return self.outer * (self.extent - 1) * self.inner

    @property
    def first(self) -> int:
        return self.inner


def indexes(op: str) -> dict[str, Axis]:
    """The templates' names of `op`'s output-axis indexes -> the axis (empty where none is modelled)."""
    return _ROW_INDEX if op in ROW_OPS else INDEXES.get(OPS[op].kernel_class, {})


def axis_of(op: str, index: str) -> Axis | None:
    """The output axis the templates of `op` index by the name `index`, None where not modelled."""
    return indexes(op).get(index)


def shift_of(task, axis: Axis) -> Shift:
    dims = OPS[task.op].dims(task.shape_dict())
    return Shift(axis, dims[axis.dim], axis.inner(dims), axis.outer(dims))


def wrong(task, product: str) -> Shift | None:
    """The outputs the edit `product` ("m * N -> m * (N + 1)", the fault's Expected.message, in the render's names)
    makes wrong for `task`, None where not modelled or where it moves no address (the axis has one index, or S' has
    S's value at this shape)."""
    said = PRODUCT.fullmatch(product)
    axis = said and axis_of(task.op, template_name(said[1], task.impl))
    if not axis:
        return None
    dims = OPS[task.op].dims(task.shape_dict())
    if not said[3].startswith("(") and not (said[2] in dims and said[3] in dims and dims[said[2]] != dims[said[3]]):
        return None          # another name in scope: modelled where both are the task's dims and differ
    shift = shift_of(task, axis)
    return shift if shift.extent > 1 else None
