"""The sampler model charges what the templates' code does: the row reads of the Triton templates, counted here in
each real render (a walk over the row in BLOCK_V tiles, or a load of a whole one-tile row, is one read; a loop of N
steps around reads repeats them, a helper call reads what its body reads), and the kernels every template
launches. The model charged every op 3 reads, where top-k's and top-p's threshold bisection walks the row 24 more
times, min-p's code reads it twice and moe's once; and CUDA split_row two launches for its one kernel."""
from __future__ import annotations

import ast

from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.catalog.perf import TRITON_SAMPLER_READS, sampler_launches, time_ms
from generator.catalog.tasks import make_task
from generator.catalog.variants import variants_for
from generator.kernels import render

SAMPLER_OPS = [op for op in OPS.values() if op.kernel_class == "sampler"]
TRITON_SAMPLER_OPS = [op.name for op in SAMPLER_OPS if "triton" in op.impls]


def _reads(node: ast.AST, functions: dict, constants: dict) -> int:
    if isinstance(node, ast.For):
        bounds = node.iter.args
        if len(bounds) == 3 and ast.unparse(bounds[2]) == "BLOCK_V":
            return 1
        trips = constants[bounds[-1].id] if len(bounds) == 1 else 1
        return trips * sum(_reads(s, functions, constants) for s in node.body)
    own = 0
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        if name in functions:
            own = sum(_reads(s, functions, constants) for s in functions[name].body)
        elif name == "tl.load" and "cols" in {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}:
            own = 1
    return own + sum(_reads(child, functions, constants) for child in ast.iter_child_nodes(node))


def code_reads(task, variant) -> int:
    """Row reads one program of `variant`'s sampling kernel makes, counted in its render for `task`."""
    tree = ast.parse(render(task, variant, {}).text)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    constants = {n.targets[0].id: n.value.value for n in tree.body
                 if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)}
    kernel = functions[f"{task.op}_{variant.tag}_kernel"]
    return sum(_reads(s, functions, constants) for s in kernel.body)


def test_the_model_charges_the_reads_each_triton_render_makes():
    for op in TRITON_SAMPLER_OPS:
        task = make_task(op, "triton", "h100", "fp32", OPS[op].shapes[0])
        for v in variants_for(op, "triton"):
            assert sum(TRITON_SAMPLER_READS[op]) == code_reads(task, v), (op, v.tag)


def test_a_token_sampler_pays_its_search_passes_where_the_logits_miss_l2():
    """Top-k and top-p over min-p on the same logits (they differ by their threshold searches): where the logits do
    not fit in L2, each extra read of the code costs at least the logits at peak DRAM bandwidth."""
    checked = 0
    for gpu in GPUS.values():
        for shape in OPS["topk_sample"].shapes:
            B, V = shape["B"], shape["V"]
            logits = B * V * 4
            if logits <= gpu.l2_mb * 2**20:
                continue
            minp = make_task("minp_sample", "triton", gpu.name, "fp32", {"B": B, "V": V})
            for task in (make_task("topk_sample", "triton", gpu.name, "fp32", shape),
                         make_task("nucleus_sample", "triton", gpu.name, "fp32", {"B": B, "V": V})):
                for v in variants_for(task.op, "triton"):
                    added = code_reads(task, v) - code_reads(minp, v)
                    p = v.default_params()
                    gap = time_ms(task, v, p) - time_ms(minp, v, p)
                    assert gap >= added * logits / (gpu.dram_gbps * 1e9) * 1e3, (task, v.tag, added, gap)
                    checked += 1
    assert checked >= 30


def _launches(source) -> int:
    """Kernel launches in a render: CUDA `kernel<<<...>>>`, Triton `kernel[grid](...)`."""
    if source.lang == "cuda":
        return source.text.count("<<<")
    tree = ast.parse(source.text)
    return sum(isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript) for n in ast.walk(tree))


def test_the_model_charges_the_launches_each_render_makes():
    seen = set()
    for op in SAMPLER_OPS:
        for impl in op.impls:
            task = make_task(op.name, impl, "h100", "fp32", op.shapes[0])
            for v in variants_for(op.name, impl):
                for splits in v.params.get("SPLITS", (1,)):
                    params = {"SPLITS": splits} if "SPLITS" in v.params else {}
                    launches = _launches(render(task, v, params))
                    assert sampler_launches(impl, splits) == launches, (op.name, impl, v.tag, splits)
                    seen.add((impl, launches))
    assert seen == {("cuda", 1), ("triton", 1), ("triton", 2)}
