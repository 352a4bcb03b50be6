"""grid_tail: what a launch grid that rounds down leaves uncomputed, from the shape and the block alone, and the
templates' grid axes it models are the lengths it reads from the shape."""
from generator.catalog.ops import OPS
from generator.catalog.tasks import Task, all_tasks
from generator.catalog.variants import variants_for
from generator.kernels import render
from generator.kernels.faults import MAKERS, _constants, _int_eval
from generator.sim import grid_tail


def _shaped(op, dtype, shape, impl="cuda", gpu="h100"):
    """A task of any shape (a model configuration's, as rows state them), not only the catalog's."""
    return Task(op, impl, gpu, dtype, tuple(shape.items()))


def test_a_grid_that_rounds_down_to_the_same_or_no_blocks_leaves_no_tail():
    """Where the block divides the extent the floored grid is the same grid (the edit is a no-op); where it is
    larger than the extent the floor launches no block (CUDA refuses the launch): neither is a truncated tail."""
    t = _shaped("gemm_fp16", "fp16", {"M": 16, "N": 4096, "K": 4096})
    assert grid_tail.unwritten(t, "N / BLOCK_N", {"BLOCK_N": 128}) is None
    assert grid_tail.unwritten(t, "M / BLOCK_M", {"BLOCK_M": 64}) is None
    assert grid_tail.unwritten(t, "M / BLOCK_M", {"BLOCK_M": 8}) is None
    assert grid_tail.unwritten(t, "M / BLOCK_M", {"BLOCK_M": 12}).missed == 4
    # rope's axis is D / 2 rotation pairs, each writing two elements D / 2 apart: no slab of the output, not modelled
    assert grid_tail.unwritten(_shaped("rope", "fp16", {"T": 3, "H": 32, "D": 128}, impl="triton"),
                               "n_cols / BLOCK_SIZE", {"BLOCK_SIZE": 48}) is None


def test_the_modelled_cuda_extents_are_the_lengths_of_the_axes():
    """Where a CUDA launcher's extent is a constant of the rendered source (Q_LEN, OUT_POINTS, COUT), its value is
    the op's length of the axis grid_tail reads, for every catalog task of a modelled op: the report's region is
    the one the edited grid leaves."""
    seen, rendered = 0, set()
    for t in all_tasks():
        if t.impl != "cuda" or t.op not in grid_tail.AXES:
            continue
        dims = OPS[t.op].dims(t.shape_dict())
        for v in variants_for(t.op, t.impl, t.dtype):
            if (t.op, t.shape, v.tag) in rendered:        # another GPU or dtype: the same constants
                continue
            rendered.add((t.op, t.shape, v.tag))
            src = render(t, v, {})
            for _edit, division in MAKERS["truncated_grid"].sites(src):
                extent = division.partition(" / ")[0]
                value = _int_eval(extent, _constants(src.text))
                axis = grid_tail.AXES[t.op].get(extent)
                if value is not None and axis is not None:
                    assert value == dims[axis.dim], (t, v.tag, extent)
                    seen += 1
    assert seen
