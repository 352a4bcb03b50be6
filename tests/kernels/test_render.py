"""Rendering: every template renders where its variant is legal, tuning touches only the tuned lines, and
template convention breaks are clear errors naming file and line."""
from __future__ import annotations

import difflib
import re
import statistics
from pathlib import Path

import pytest

from generator.catalog.hardware import GPUS
from generator.kernels import Source, TemplateError, render
from generator.kernels.templating import EXTENSIONS, TEMPLATE_ROOT, prelude, tuned_constants
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import legal_on, variants_for

FIXTURES = Path(__file__).parent / "fixtures" / "templates"


def _has_template(impl, v) -> bool:
    return (TEMPLATE_ROOT / impl / v.kernel_class / f"{v.tag}{EXTENSIONS[impl][0]}").is_file()


def _one_task_per_op_impl_gpu():
    seen = {}
    for t in all_tasks():
        seen.setdefault((t.op, t.impl, t.gpu), t)
    return list(seen.values())


def test_every_existing_template_renders_wherever_its_variant_is_legal():
    rendered, sizes = 0, []
    for task in _one_task_per_op_impl_gpu():
        for v in variants_for(task.op, task.impl):
            if not _has_template(task.impl, v) or not legal_on(v, GPUS[task.gpu], task.dtype):
                continue
            src = render(task, v, {})
            assert src.lang == task.impl and src.text.strip(), (task, v.tag)
            assert not re.search(r"\{\{[A-Z][A-Z0-9_]*\}\}", src.text), f"{src.filename}: unsubstituted placeholder"
            rendered += 1
            if task.impl == "cuda":
                sizes.append(len(src.text.encode()))
    assert rendered
    if sizes:
        assert 3_000 <= statistics.median(sizes) <= 12_000, f"median CUDA candidate {statistics.median(sizes)} B"


def test_tuning_changes_only_the_tuned_constant_lines():
    checked = 0
    for task in _one_task_per_op_impl_gpu():
        if task.gpu != "h100":
            continue
        for v in variants_for(task.op, task.impl):
            if not _has_template(task.impl, v) or not legal_on(v, GPUS[task.gpu], task.dtype):
                continue
            base = render(task, v, {}).text.splitlines()
            for name, values in v.params.items():
                if len(values) < 2:
                    continue
                tuned = render(task, v, {name: values[1]}).text.splitlines()
                assert len(tuned) == len(base), (v.tag, name)
                changed = [b for a, b in zip(base, tuned) if a != b]
                assert changed, f"{task.impl}/{v.kernel_class}/{v.tag}: {name} never appears in the source"
                assert all(name in line for line in changed), (v.tag, name, changed)
                checked += 1
    assert checked


def _rmsnorm(impl="cuda", gpu="a100"):
    task = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == impl and t.gpu == gpu)
    return task, next(v for v in variants_for("rmsnorm", impl) if v.tag == "naive")


def test_fixture_render_fills_standard_placeholders_and_is_deterministic():
    task, v = _rmsnorm()
    a = render(task, v, {"NUM_THREADS": 128}, root=FIXTURES)
    assert a == render(task, v, {"NUM_THREADS": 128}, root=FIXTURES)
    assert isinstance(a, Source) and (a.filename, a.lang, a.compile_arch) == ("rmsnorm_naive.cu", "cuda", "sm_80")
    assert "#define NUM_THREADS 128" in a.text and "typedef half scalar_t;" in a.text
    assert "load_scaled" in a.text            # ops/_default.cuh fallback pasted at {{OP_SNIPPET}}
    assert "__global__ void rmsnorm_naive(" in a.text
    b = render(task, v, {"NUM_THREADS": 256}, root=FIXTURES)
    diff = [ln for ln in difflib.unified_diff(a.text.splitlines(), b.text.splitlines(), n=0, lineterm="")
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert diff == ["-#define NUM_THREADS 128", "+#define NUM_THREADS 256"]


def test_tuned_values_fill_the_bound_template_and_snippet(tmp_path):
    """A template is bound to the task once and only the tuned slots are filled per render: the text is the
    same as substituting everything at once, a tuned placeholder may end the snippet (whose trailing newlines
    are dropped), and one bound template serves every value."""
    task, v = _rmsnorm()
    d = tmp_path / "cuda" / "rownorm"
    (d / "ops").mkdir(parents=True)
    (d / "naive.cu").write_text("{{PRELUDE}}\n{{TUNED_CONSTANTS}}\n// {{OP}} on {{GPU}}\n{{OP_SNIPPET}}\nint tail;\n")
    (d / "ops" / "_default.cuh").write_text("// {{KERNEL_NAME}}\n#define NUM_THREADS {{NUM_THREADS}}\n\n\n")
    for n in (256, 128, 256):
        text = render(task, v, {"NUM_THREADS": n}, root=tmp_path).text
        assert text == (f"{prelude(task.dtype)}\n#define NUM_THREADS {n}\n// rmsnorm on a100\n"
                        f"// rmsnorm_naive\n#define NUM_THREADS {n}\nint tail;\n")


def test_unknown_params_and_placeholders_are_clear_errors(tmp_path):
    task, v = _rmsnorm()
    with pytest.raises(TemplateError, match=r"unknown parameter\(s\) \['BLOCK_Q'\]"):
        render(task, v, {"BLOCK_Q": 4}, root=FIXTURES)
    (tmp_path / "cuda" / "rownorm").mkdir(parents=True)
    bad = tmp_path / "cuda" / "rownorm" / "naive.cu"
    bad.write_text("{{PRELUDE}}\n\nint x = {{NOT_A_THING}};\n")
    with pytest.raises(TemplateError, match=rf"{bad}:3: unknown placeholder {{{{NOT_A_THING}}}}"):
        render(task, v, {}, root=tmp_path)


def test_tuned_placeholder_must_sit_on_its_own_definition_line(tmp_path):
    task, v = _rmsnorm()
    (tmp_path / "cuda" / "rownorm").mkdir(parents=True)
    bad = tmp_path / "cuda" / "rownorm" / "naive.cu"
    bad.write_text("{{PRELUDE}}\nconstexpr int SMEM = {{NUM_THREADS}} * 4;\n")
    with pytest.raises(TemplateError, match=rf"{bad}:2: tuned parameter {{{{NUM_THREADS}}}} must be alone"):
        render(task, v, {}, root=tmp_path)


def test_missing_template_is_a_clear_error(tmp_path):
    task, v = _rmsnorm()
    with pytest.raises(TemplateError, match="no template for cuda rownorm/naive"):
        render(task, v, {}, root=tmp_path)


def test_compile_arch_is_the_gpus_stated_arch_for_every_variant():
    for task in all_tasks()[::97]:
        for v in variants_for(task.op, task.impl):
            assert render(task, v, {}).compile_arch == GPUS[task.gpu].arch, (task.label(), v.tag)


def test_prelude_and_constants():
    assert "#include <cuda_fp4.h>" in prelude("fp4") and "#include <cuda_fp4.h>" not in prelude("fp16")
    with pytest.raises(TemplateError, match="unknown dtype"):
        prelude("fp64")
    assert tuned_constants({"BLOCK_M": 64, "EVEN": True}, "cuda") == "#define BLOCK_M 64\n#define EVEN 1"
    assert tuned_constants({"BLOCK_M": 64, "EVEN": True}, "triton") == "BLOCK_M = 64\nEVEN = True"


def test_a_dtype_snippet_makes_moe_fp8_e4m3_by_e4m3_as_its_signature_says():
    """moe_grouped_gemm fp8 means one thing: e4m3 A and B, bf16 C (the signature), e4m3 tensor-core math in
    CUDA (ops/moe_grouped_gemm.fp8.cuh) and Triton's pointer types; its 16-bit dtypes keep ops/moe_grouped_gemm."""
    from generator.catalog.ops import OPS
    from generator.catalog.tasks import make_task
    from generator.catalog.variants import variant

    op = OPS["moe_grouped_gemm"]
    shape = op.shapes[0]
    sig = op.signature("cuda", "fp8")
    declared = dict((name, ctype) for ctype, name in re.findall(r"(\w+)\* (\w+)", sig))
    assert (declared["a"], declared["b"], declared["c"]) == ("__nv_fp8_e4m3", "__nv_fp8_e4m3", "__nv_bfloat16")
    cuda = render(make_task(op.name, "cuda", "h100", "fp8", shape), variant("gemm", "mma_sync", "cuda"), {}).text
    for name in ("a", "b", "c"):
        assert f"typedef {declared[name]} {name}_t;" in cuda
    assert "m16n8k32.row.col.f32.e4m3.e4m3.f32" in cuda and "f16.f16" not in cuda
    triton = render(make_task(op.name, "triton", "h100", "fp8", shape), variant("gemm", "pipelined", "triton"), {}).text
    assert 'a_ptr: "*fp8e4nv", b_ptr: "*fp8e4nv"' in triton and 'c_ptr: "*bf16"' in triton
    half = render(make_task(op.name, "cuda", "h100", "fp16", shape), variant("gemm", "mma_sync", "cuda"), {}).text
    assert "e4m3.e4m3" not in half and "m16n8k16.row.col.f32.f16.f16.f32" in half
