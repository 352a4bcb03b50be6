"""The code computes what the task states: every CUDA GEMM-class render declares the element types of the task's
signature (A, B and the output C), so no row shows a kernel writing fp16 into what the task calls a bf16 tensor
(fp8_gemm, fp8_blockwise_gemm and fp4_gemm did until 0.6.1), and moe_grouped_gemm's 16-bit code carries no fp8
leftovers (a W8A16 trait and "fp8 experts" comments did)."""
from __future__ import annotations

import re

import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.catalog.variants import variants_for
from generator.kernels import render

_POINTER = re.compile(r"(\w+)\*(?: __restrict__)? (\w+)")   # a prototype's or a struct's pointer
_TYPEDEF = re.compile(r"typedef (\w+) (scalar_t|[abc]_t);")
GEMM_CASES = [(op.name, dtype) for op in OPS.values() if op.kernel_class == "gemm" and "cuda" in op.impls
              for dtype in op.dtypes]


def _render(op: str, dtype: str, gpu: str = "h100") -> str:
    task = make_task(op, "cuda", gpu, dtype, OPS[op].shapes[0])
    naive = variants_for(op, "cuda", dtype)[0]
    return render(task, naive, naive.default_params()).text


@pytest.mark.parametrize("op, dtype", GEMM_CASES)
def test_a_gemm_render_declares_its_signatures_element_types(op, dtype):
    declared = {name: ctype for ctype, name in _POINTER.findall(OPS[op].signature("cuda", dtype))}
    typedefs = dict((name, ctype) for ctype, name in _TYPEDEF.findall(_render(op, dtype)))
    code = {name[0]: typedefs.get(ctype, ctype) for name, ctype in typedefs.items() if name != "scalar_t"}
    checked = [n for n in "abc" if n in declared and n in code]
    assert "c" in checked, (op, dtype, declared, code)
    assert {n: code[n] for n in checked} == {n: declared[n] for n in checked}


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_moe_16_bit_code_has_no_fp8_leftovers(dtype):
    text = _render("moe_grouped_gemm", dtype)
    assert not re.search(r"fp8|e4m3|Activation|widen", text), re.search(r".*(fp8|e4m3|Activation|widen).*", text)[0]
