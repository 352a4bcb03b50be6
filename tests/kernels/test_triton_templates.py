"""Triton templates: every variant and op has its files, every render is a module the audit can compile
(annotated `*_kernel` entries, constexprs backed by module constants, no torch import), and real
`triton.compile` accepts a representative subset on cc 80/86/90/120 and refuses exactly what it should
(e4m3 below cc 89, shared memory over the per-arch cap)."""
from __future__ import annotations

import ast

import pytest

from generator.catalog.hardware import GPUS
from generator.kernels import compilers, render
from generator.kernels.faults import expect_clean
from generator.kernels.templating import TEMPLATE_ROOT
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.catalog.variants import VARIANTS, legal_on, variants_for

pytestmark = pytest.mark.compiler   # real nvcc / Triton compiles: `pytest -m "not compiler"` leaves them out

TRITON_ROOT = TEMPLATE_ROOT / "triton"
BY_CC = {80: "a100", 86: "a10", 90: "h100", 120: "rtx_5090"}
needs_triton = pytest.mark.skipif(compilers.triton_unavailable() is not None,
                                  reason=f"Triton compile checks skipped: {compilers.triton_unavailable()}")


def _triton_ops():
    return [op for op in OPS.values() if "triton" in op.impls]


def _task(op, gpu, dtype=None):
    op = OPS[op] if isinstance(op, str) else op
    return make_task(op.name, "triton", gpu, dtype or op.dtypes[0], op.shapes[0])


def test_every_triton_variant_and_op_has_its_template_files():
    missing = [f"{v.kernel_class}/{v.tag}.py" for v in VARIANTS if "triton" in v.impls
               and not (TRITON_ROOT / v.kernel_class / f"{v.tag}.py").is_file()]
    for op in _triton_ops():
        ops_dir = TRITON_ROOT / op.kernel_class / "ops"
        if not any((ops_dir / f"{name}.py").is_file() for name in (op.name, "_default")):
            missing.append(f"{op.kernel_class}/ops/{op.name}.py")
    assert not missing, f"missing Triton templates: {missing}"


def _module_facts(text: str):
    """Top-level imports, module constants, and the `*_kernel` @triton.jit functions of a rendered module."""
    tree = ast.parse(text)
    imports = {a.name.split(".")[0] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
               for a in (n.names if isinstance(n, ast.Import) else [ast.alias(n.module or "")])}
    constants = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    kernels = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.endswith("_kernel")
               and any("jit" in ast.unparse(d) for d in n.decorator_list)]
    return imports, constants, kernels


@pytest.mark.parametrize("op", [op.name for op in _triton_ops()])
def test_renders_follow_the_audit_conventions(op):
    for v in variants_for(op, "triton"):
        for dtype in OPS[op].dtypes:
            src = render(_task(op, "h100", dtype), v, {})
            imports, constants, kernels = _module_facts(src.text)
            where = f"{src.filename} ({dtype})"
            assert imports <= {"triton", "math"}, f"{where}: module-level imports {imports}"
            assert {"NUM_WARPS", "NUM_STAGES"} | set(v.params) <= constants, f"{where}: constants {constants}"
            assert kernels, f"{where}: no @triton.jit *_kernel"
            for fn in kernels:
                for arg in fn.args.args:
                    assert arg.annotation is not None, f"{where}: {fn.name}({arg.arg}) has no annotation"
                    if ast.unparse(arg.annotation) == "tl.constexpr":
                        assert arg.arg in constants, f"{where}: constexpr {arg.arg} has no module constant"
            for name, value in v.default_params().items():
                assert f"\n{name} = {value}\n" in src.text, f"{where}: tuned {name} not on its own line"


def _representative_subset():
    """Each Triton variant once, its ops and the four archs taken in rotation, so every class, variant and cc
    is compiled at least once (and ops differ between variants of a class)."""
    cases, turn = [], 0
    for v in VARIANTS:
        if "triton" not in v.impls:
            continue
        ops = [op for op in _triton_ops() if op.kernel_class == v.kernel_class and (not v.ops or op.name in v.ops)
               and "fp8" not in op.dtypes]
        cc = list(BY_CC)[turn % 4]
        cases.append((ops[turn % len(ops)].name, v, BY_CC[cc]))
        turn += 1
    return cases


@needs_triton
def test_representative_subset_compiles_for_every_arch():
    cases = _representative_subset()
    assert {gpu for _, _, gpu in cases} == set(BY_CC.values())
    sources = [render(_task(op, gpu), v, {}) for op, v, gpu in cases]
    outcomes = compilers.compile_triton(sources, jobs=2)
    failed = [f"{s.filename} on {gpu}: {o.first}" for s, o, (_, _, gpu) in zip(sources, outcomes, cases)
              if o.status != "ok"]
    assert not failed, "\n".join(failed)


@needs_triton
def test_fp8_is_refused_below_cc89_and_compiles_above():
    v = next(v for v in variants_for("fp8_gemm", "triton") if v.tag == "pipelined")
    tasks = [_task("fp8_gemm", gpu) for gpu in ("a100", "a10", "h100", "rtx_5090")]
    sources = [render(t, v, {}) for t in tasks]
    outcomes = compilers.compile_triton(sources, jobs=2)
    for task, src, out in zip(tasks, sources, outcomes):
        expected = expect_clean(src, task, v, {})
        if GPUS[task.gpu].cc < 89:
            assert not legal_on(v, GPUS[task.gpu], "fp8")
            assert out.status == "compile_error" and out.tool == "triton", (task.gpu, out.output)
            assert "type fp8e4nv not supported in this architecture" in out.output
            assert expected.kind == "triton_fp8_unsupported"
        else:
            assert out.status == "ok", (task.gpu, out.first)
            assert expected.status == "ok"


@needs_triton
def test_large_tiles_exceed_the_shared_memory_cap_only_where_it_is_smaller():
    v = next(v for v in variants_for("gemm_fp16", "triton") if v.tag == "blocked")
    big = {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 128, "NUM_WARPS": 8}
    tasks = [_task("gemm_fp16", gpu) for gpu in ("a10", "a100")]
    outcomes = compilers.compile_triton([render(t, v, big) for t in tasks], jobs=2)
    a10, a100 = outcomes
    assert a10.status == "compile_error" and a10.tool == "runtime", a10.first
    assert "out of resource: shared memory" in a10.first and "Hardware limit: 101376" in a10.first
    assert a10.shared > 101376
    assert a100.status == "ok" and 101376 < a100.shared <= 166912, (a100.first, a100.shared)
