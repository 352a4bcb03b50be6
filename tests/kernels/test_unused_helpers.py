"""A render holds only code its op runs: every helper function it defines is called in it (the real renderer, every
op x impl x variant x dtype). moe_topk_gating's Triton naive/blocked renders carried the token samplers' draw
helpers, moe_combine's the row copiers' `_copy_row`, the CUDA radix samplers an unused `block_sum`; five CUDA
classes' op snippets and templates share helpers among their variants (gemm `load_a`/`b_frag`, attn_prefill
`k_base`, gather and scan `copy_n`/`load_n`, conv `conv_tile`): a render leaves out those it never names
(kernels/unused_helpers.py).

CUDA helpers are the file-scope functions (struct members are an op's interface; `launch_*` and the kernels are the
entry points)."""
from __future__ import annotations

import ast
from collections import Counter

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.catalog.variants import variants_for
from generator.kernels import render, scanner, unused_helpers

def uncalled_helpers(source, op: str) -> set[str]:
    """The helper functions `source` defines and never calls."""
    if source.lang == "triton":
        tree = ast.parse(source.text)
        named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        helpers = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                   and not n.name.endswith("_kernel") and n.name != op}
        return helpers - named
    code = scanner.code_view(source.text, "cuda")
    defined = Counter(name for name, _template, body, _end in scanner.function_defs(code)
                      if next(scanner.enclosing(code, body - 1), None) is None    # at file scope
                      and "__global__" not in code[code.rfind(";", 0, body):body])
    named = Counter(m.group(1) for m in scanner.CALLED.finditer(code))          # definitions match too
    return {name for name, n in defined.items()
            if not name.startswith("launch_") and not name.endswith("_kernel") and named[name] <= n}


def _renders():
    for op in OPS.values():
        for impl in op.impls:
            for dtype in op.dtypes:
                task = make_task(op.name, impl, "h100", dtype, op.shapes[0])
                for v in variants_for(op.name, impl, dtype):
                    yield op, impl, v, render(task, v, {})


def test_every_helper_a_render_defines_is_called_in_it():
    checked = Counter()
    for op, impl, v, source in _renders():
        unused = uncalled_helpers(source, op.name)
        assert not unused, f"{source.filename}: never called: {sorted(unused)}"
        checked[impl, op.kernel_class] += 1
    shared = {"attn_prefill", "conv", "gather", "gemm", "scan"}    # the classes whose renders carried some
    assert all(checked["cuda", kernel_class] >= 10 for kernel_class in shared), checked
    assert sum(n for (impl, _k), n in checked.items() if impl == "triton") > 50


def test_the_check_finds_a_helper_nobody_calls():
    task = make_task("topk_sample", "cuda", "h100", "fp32", OPS["topk_sample"].shapes[0])
    v = variants_for("topk_sample", "cuda")[1]
    source = render(task, v, {})
    spare = "__device__ float spare_sum(float v) { return v + v; }\n"
    text = source.text.replace("struct LaunchPlan", spare + "struct LaunchPlan", 1)
    assert uncalled_helpers(source, "topk_sample") == set()
    assert uncalled_helpers(type(source)(text, source.filename, source.lang, source.compile_arch),
                            "topk_sample") == {"spare_sum"}
    task = make_task("moe_combine", "triton", "h100", "fp16", OPS["moe_combine"].shapes[0])
    source = render(task, variants_for("moe_combine", "triton")[0], {})
    text = source.text + "\n\n@triton.jit\ndef _copy_row(src, dst):\n    pass\n"
    assert uncalled_helpers(type(source)(text, source.filename, source.lang, source.compile_arch),
                            "moe_combine") == {"_copy_row"}


def test_pruning_follows_uses_through_helpers_and_keeps_entry_points():
    main = ("{{PRELUDE}}\n\n"
            "// a's doc: it calls b\n"
            "__device__ float a(float x) { return b(x); }\n\n"
            "__device__ float b(float x) { return x; }\n\n"
            "#define TWICE(x) (c(x) + c(x))\n"
            "__device__ float c(float x) { return x; }\n\n"
            "__device__ float d(float x) { return x; }\n\n"
            "__global__ void {{KERNEL_NAME}}(float* y) { y[0] = d(1.f) + TWICE(2.f); }\n"
            "void launch_{{KERNEL_NAME}}(float* y) { {{KERNEL_NAME}}<<<1, 1>>>(y); }\n"
            "{{OP_SNIPPET}}\n")
    snippet = "// e calls d, nothing calls e\n__device__ float e(float x) { return d(x); }\n"
    kept_main, kept_snippet = unused_helpers.pruned((main, snippet))
    assert kept_snippet == ""
    assert kept_main == ("{{PRELUDE}}\n\n"
                         "#define TWICE(x) (c(x) + c(x))\n"
                         "__device__ float c(float x) { return x; }\n\n"
                         "__device__ float d(float x) { return x; }\n\n"
                         "__global__ void {{KERNEL_NAME}}(float* y) { y[0] = d(1.f) + TWICE(2.f); }\n"
                         "void launch_{{KERNEL_NAME}}(float* y) { {{KERNEL_NAME}}<<<1, 1>>>(y); }\n"
                         "{{OP_SNIPPET}}\n")
    # a name in a comment or string is no use
    text = '// d is unused\n__device__ float d(float x) { return x; }\nconst char* s = "d(";\n'
    assert unused_helpers.pruned((text,)) == ('const char* s = "d(";\n',)
