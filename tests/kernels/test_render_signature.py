"""What the task turn states as the signature is in every kernel a row holds: every op x impl x dtype x variant
renders it verbatim, and so does a drawn style (CUDA: less the `__restrict__` a style without it drops). The
system prompt tells the model to keep it, so a render that lacks it would teach that the interface may be
ignored (row audit: 76 % of kernelinfer kernels did, until the signature named what renders define). A CUDA
render also defines the stated function (its last line) and no other host entry point: a harness calls one symbol
with one argument list, so a variant with its own launcher (`launch_<op>_split_k(op, partials, ...)`, the row
audit's struct-only signatures of 0.6.6) would teach that the graded interface changes every submission."""
from __future__ import annotations

import re

import numpy as np
import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.catalog.variants import variants_for
from generator.kernels import render
from generator.kernels.style import draw_style

CASES = [(op.name, impl, dtype) for op in OPS.values() for impl in op.impls for dtype in op.dtypes]
_HOST_LAUNCHER = re.compile(r"^void (launch_\w+)\(", re.M)


def _keeps_the_interface(text: str, stated: str, op: str, impl: str) -> bool:
    """`text` holds the stated signature verbatim and, in CUDA, defines its function and no other launcher."""
    if stated not in text:
        return False
    return impl == "triton" or (re.search(re.escape(stated.splitlines()[-1]) + r"\s*\{", text) is not None
                                and set(_HOST_LAUNCHER.findall(text)) <= {f"launch_{op}"})


@pytest.mark.parametrize("op, impl, dtype", CASES)
def test_every_render_defines_the_signature_the_task_states(op, impl, dtype):
    task = make_task(op, impl, "h100", dtype, OPS[op].shapes[0])
    stated = OPS[op].signature(impl, dtype)
    rng = np.random.default_rng(len(op) * 7 + len(dtype))
    for variant in variants_for(op, impl, dtype):
        assert _keeps_the_interface(render(task, variant, {}).text, stated, op, impl), (variant.tag, stated)
        style = draw_style(rng, impl)
        kept = stated if impl == "triton" or style.restrict else stated.replace(" __restrict__", "")
        assert _keeps_the_interface(render(task, variant, {}, style=style).text, kept, op, impl), (variant.tag, kept)


def test_a_variant_with_its_own_launcher_breaks_the_interface():
    """The check above fails the 0.6.6 split-K render, whose launcher took a `partials` workspace from the caller."""
    task = make_task("gemm_fp16", "cuda", "h100", "fp16", OPS["gemm_fp16"].shapes[0])
    stated = OPS["gemm_fp16"].signature("cuda", "fp16")
    text = render(task, next(v for v in variants_for("gemm_fp16", "cuda", "fp16") if v.tag == "split_k"), {}).text
    assert _keeps_the_interface(text, stated, "gemm_fp16", "cuda")
    # the definition (the last of the stated function's two lines: the snippet declares it) as 0.6.6 wrote it
    head, definition, tail = text.rpartition("void launch_gemm_fp16(const Operands& op, int M,")
    own = head + "void launch_gemm_fp16_split_k(const Operands& op, float* partials, int M," + tail
    assert definition and stated in own and not _keeps_the_interface(own, stated, "gemm_fp16", "cuda")
