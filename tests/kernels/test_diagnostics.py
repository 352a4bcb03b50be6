"""Follow-on diagnostics (generator/kernels/diagnostics.py): the rules, and whole blocks that real nvcc prints.

SOURCE has no statement holding a block after a fault site: nvcc's recovery through blocks is not modelled."""
from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import Source, compilers, diagnostics
from generator.kernels.audit import normalize_block, printed_block
from generator.kernels.faults import inject
from generator.sim.feedback import feedback_text

SOURCE = """#include <cuda_fp16.h>
#define WIDTH 4
constexpr int UNUSED_COUNT = 7;
constexpr int STRIDE = 3;
__global__ void scale_rows(float* out, const float* in, int rows) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int base = row * STRIDE;
    float total = 0.f;
    float const bias = in[base] * 0.5f;
    {
        const float v = in[base + 1];
        total += v * bias;
        out[base] = total;
    }
    const float mean = total / WIDTH;
    out[row] = mean + bias;
    out[row + 1] = mean * (row < rows);
}
"""


def test_undefined_name_is_reported_once_per_block():
    code = "void f() {\n  int a = 1;\n  { z = b; w = b; }\n  q = b;\n  r = b;\n  { s = b; }\n}\n"
    uses = diagnostics.undefined_uses(code, ["b"], code.index("{ z"))
    # reported in the inner block, again once it has closed; then silent in the outer block and blocks inside it
    assert [code.count("\n", 0, pos) + 1 for _emit, pos, _h in uses] == [3, 4]


def test_unreferenced_variables_and_constants():
    code = "constexpr int K = 2;\nvoid f() {\n  int a = 1, b = 2;\n  int c = a + b;\n  g(a);\n}\n"
    skip = (code.index("int c"), code.index(";", code.index("int c")))
    warned = {h.split('"')[1] for _e, _p, h in diagnostics.unreferenced(code, ["a", "b"], skip)}
    assert warned == {"b", "K"}          # `a` is read again by g(a); K is never read


@pytest.mark.compiler
@pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found: real-compiler check skipped")
def test_whole_blocks_match_real_nvcc():
    """A handful of faults of the two families with follow-ons: the row's whole block is nvcc's."""
    src = Source(SOURCE, "scale_rows.cu", "cuda", "sm_80")
    cases, follow = {}, 0
    for kind in ("missing_semicolon", "undefined_identifier"):
        for seed in range(8):
            edited, exp = inject(src, kind, np.random.default_rng(seed))
            if edited.text not in cases and len(cases) < 7:
                cases[edited.text] = (edited, exp)
                follow += "\n\n" in exp.context
    assert follow >= 3                   # the sample holds blocks with follow-on diagnostics
    outs = compilers.compile_cuda([c[0] for c in cases.values()], modes=["alone"] * len(cases), jobs=2)
    for (edited, exp), out in zip(cases.values(), outs):
        assert out.status == "compile_error", out.output
        assert normalize_block(feedback_text(None, exp)) == normalize_block(printed_block(out)), edited.text
