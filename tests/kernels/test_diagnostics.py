"""Follow-on diagnostics (generator/kernels/diagnostics.py): the rules, and whole blocks that real nvcc prints.

SOURCE has no statement holding a block after a fault site: nvcc's recovery through blocks is not modelled."""
from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import Source, compilers, diagnostics, record_diagnostics
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

# a float accumulator and a float total: type_mismatch makes them vectors (`+=`, `*=`, `return`, a float argument)
ACCUMULATE = """#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
constexpr int UNUSED_COUNT = 7;
__device__ void store(float* out, int i, float v) { out[i] = v; }
__device__ float dot(const float* a, int n) {
    float acc = 0.f;
    for (int i = 0; i < n; ++i) acc += a[i] * a[i];
    return acc;
}
__global__ void k(float* out, const float* a, int n) {
    float total = 0.f;
    total += dot(a, n);
    total *= 0.5f;
    store(out, 0, total);
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


def test_recorded_notes_cover_every_vector_fault():
    version, table = record_diagnostics.read_table()
    assert version.startswith("Cuda compilation tools")
    for includes in record_diagnostics.INCLUDE_SETS:
        for op in record_diagnostics.OPERATORS:
            for lhs in record_diagnostics.VECTOR_TYPES:
                notes = table[(tuple(sorted(includes)), op, lhs, "float")]
                assert any(n.startswith(record_diagnostics.SITE + "note #3328-D: built-in operator" + op) for n in notes)
                assert any(f'"operator{op}(__half &' in n for n in notes)    # cuda_fp16.hpp's overload


def test_type_mismatch_follow_ons_use_the_recorded_notes():
    src = Source(ACCUMULATE, "k.cu", "cuda", "sm_80")
    _edited, exp = inject(src, "type_mismatch", np.random.default_rng(1))
    assert exp.n_errors == 3 and exp.context.count('no operator "+=" matches these operands') == 1
    assert "cuda_fp16.hpp" in exp.context and 'warning #177-D: variable "UNUSED_COUNT"' in exp.context

def test_a_vector_added_an_lvalue_is_not_modelled():
    """nvcc prints a lone operand's declared type (`float4 += const float` for an element of a `const float*`,
    which kernelswarm's audit caught); only prvalue operands, printed as the scalar type, are modelled."""
    headers = diagnostics.operator_headers(ACCUMULATE)
    for rhs, modelled in (("p[i]", False), ("x", False), ("p[(size_t)s * n]", False), ("p[i] * x", True), ("p[i] * p[i]", True)):
        code = f"float acc = 0.f;\nacc += {rhs};\n"
        uses = [code.index("acc +=")]
        assert (diagnostics.vector_uses(code, "acc", uses, "float4", "float", headers) is not None) == modelled, rhs


# a call of a function template with an explicit class argument: wrong_template_arg repeats it (note #3323-D)
TEMPLATED = """#include <cuda_runtime.h>
struct Sum {};
template <typename Op> __device__ __forceinline__ float combine(float a, float b) { return a + b; }
__global__ void k(float* out, float x) {
    out[0] = combine<Sum>(x, x);
}
"""


@pytest.mark.compiler
@pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found: real-compiler check skipped")
def test_recorded_table_is_what_nvcc_prints():
    assert record_diagnostics.record() == record_diagnostics.TABLE.read_text(encoding="utf-8")


@pytest.mark.compiler
@pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found: real-compiler check skipped")
def test_whole_blocks_match_real_nvcc():
    """A handful of faults of the three families with follow-ons, and a wrong template argument with its note:
    the row's whole block is nvcc's."""
    cases, follow = {}, 0
    for text, kinds, limit in ((SOURCE, ("missing_semicolon", "undefined_identifier"), 6),
                               (ACCUMULATE, ("type_mismatch",), 9), (TEMPLATED, ("wrong_template_arg",), 10)):
        src = Source(text, "k.cu", "cuda", "sm_80")
        for kind in kinds:
            for seed in range(8):
                edited, exp = inject(src, kind, np.random.default_rng(seed))
                if edited.text not in cases and len(cases) < limit:
                    cases[edited.text] = (edited, exp)
                    follow += "\n\n" in exp.context
    assert follow >= 5                   # the sample holds blocks with follow-on diagnostics
    outs = compilers.compile_cuda([c[0] for c in cases.values()], modes=["alone"] * len(cases), jobs=2)
    for (edited, exp), out in zip(cases.values(), outs):
        assert out.status == "compile_error", out.output
        assert normalize_block(feedback_text(None, exp)) == normalize_block(printed_block(out)), edited.text
