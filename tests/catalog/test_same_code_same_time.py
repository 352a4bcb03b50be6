"""Two variants of one (kernel class, Triton) that render to the same code for a task are one kernel: the perf
model must time them alike, and no two variants offer the same code. (A row audit found Triton naive and blocked templates that differed only in their
docstring and in writing NUM_WARPS = 4 as a constant, timed up to 39x apart as different techniques.)"""
from __future__ import annotations

import ast

from generator.catalog import perf
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.catalog.variants import VARIANTS, legal_on, variants_for
from generator.kernels import render

GPUS = ("h100", "a100", "rtx_5090")


def _code(task, variant, params) -> tuple[dict, list[str]]:
    """(the module's integer constants, every other statement) of a render, without the module docstring and with
    the variant's name taken out of the kernel names."""
    text = render(task, variant, params).text.replace(f"{task.op}_{variant.tag}", f"{task.op}_VARIANT")
    body = ast.parse(text).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    constants, rest = {}, []
    for node in body:
        single = isinstance(node, ast.Assign) and len(node.targets) == 1
        target = node.targets[0] if single else getattr(node, "target", None)
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and type(value.value) is int:
            constants[target.id] = value.value
        else:
            rest.append(ast.dump(node))
    return constants, rest


def _same_code_pairs():
    """(task, a, params_a, b, params_b) for every configuration of a Triton variant `a` whose module constants
    name a legal configuration of another variant `b` of the class that renders to the same code. Tuned params
    live on their own constant lines (templates/README.md), so two variants whose other statements differ at
    their defaults differ at every configuration; of the others, the one with fewer configurations is walked."""
    for op in (o for o in OPS.values() if "triton" in o.impls):
        for gpu in GPUS:
            for dtype in op.dtypes:
                task = make_task(op.name, "triton", gpu, dtype, op.shapes[0])
                found = [v for v in variants_for(op.name, "triton", dtype) if legal_on(v, gpu, dtype)]
                statements = {v: _code(task, v, v.default_params())[1] for v in found}
                for i, a in enumerate(found):
                    for b in found[i + 1:]:
                        if statements[a] != statements[b]:
                            continue
                        a, b = sorted((a, b), key=lambda v: len(v.all_params()))
                        for params_a in a.all_params():
                            code_a = _code(task, a, params_a)
                            if all(code_a[0].get(k) in values for k, values in b.params.items()):
                                params_b = {k: code_a[0][k] for k in b.params}
                                if _code(task, b, params_b) == code_a:
                                    yield task, a, params_a, b, params_b


def test_no_two_variants_render_to_the_same_code():
    """Switching variant changes the code: a naive template that is its blocked code at 4 warps (one stage) is
    offered only tiles blocked does not take there, and multi_row takes 2 rows or more (0.6.4 before this: naive
    and blocked of attn_decode, elementwise, gather, sampler and scan, and rownorm's blocked and multi_row, shared
    configurations, and a session that had measured the rest submitted the same source back to back)."""
    assert [(t.op, t.gpu, a.tag, pa, b.tag) for t, a, pa, b, _pb in _same_code_pairs()] == []


def test_a_template_fixing_its_siblings_tunables_is_that_code_and_timed_as_it():
    """`Variant.fixed` is true of the template, and the model times the two alike, also where the sibling never
    takes those values (gemv's naive: an output per program, BLOCK_N = 1; conv's: one stage)."""
    fixing = [v for v in VARIANTS if v.fixed]
    assert {v.kernel_class for v in fixing} >= {"conv", "attn_decode", "gemv"}
    for v in fixing:
        impl = next(iter(v.impls))
        sibling = next(s for s in VARIANTS if s.kernel_class == v.kernel_class and impl in s.impls
                       and set(s.params) == set(v.params) | set(v.fixed))
        for op in (o for o in OPS.values() if o.kernel_class == v.kernel_class and impl in o.impls):
            task = make_task(op.name, impl, "h100", op.dtypes[0], op.shapes[0])
            for params in v.all_params():
                as_sibling = {k: {**v.fixed, **params}[k] for k in sibling.params}
                assert _code(task, v, params) == _code(task, sibling, as_sibling), (op.name, v.tag, params)
                assert perf.time_ms(task, v, params) == perf.time_ms(task, sibling, as_sibling), (op.name, params)
