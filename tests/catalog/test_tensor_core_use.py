"""The timing model puts a candidate's arithmetic on tensor cores exactly when its rendered code does. (A review
found Triton attn_decode naive/blocked/split_kv modelled on tensor cores while flash_decode's and swa_decode's
snippets multiply elementwise and `tl.sum` on CUDA cores, and CUDA attn_decode's pipelined variants modelled on
tensor cores while every op's code takes shuffle-reduced fp32 dot products.)"""
from __future__ import annotations

import re

from generator.catalog import perf
from generator.catalog.hardware import GPUS, tc_peak_tflops
from generator.catalog.tasks import all_tasks, model_tasks
from generator.catalog.variants import legal_on, variants_for
from generator.kernels import render, scanner

# A tensor-core instruction in a CUDA body (the inline PTX strings, so the raw text, with the instruction's
# suffixes: its operand types) or a WMMA call.
CUDA_MMA = re.compile(r"\b(?:mma\.sync|wgmma\.mma_async|tcgen05\.mma)\b[\w.:]*|\bwmma::mma_sync\s*\(")
PTX_TYPE = {"f16": "fp16", "bf16": "bf16", "e4m3": "fp8", "s8": "int8", "e2m1": "fp4"}   # A operand -> dtype key
TL_DOT = re.compile(r"\btl\.dot\s*\(")


def _head(code: str, body_start: int) -> str:
    """What precedes a function body back to the previous statement or block: its return type, qualifiers, name
    and parameters."""
    return code[max(code.rfind(ch, 0, body_start - 1) for ch in ";{}") + 1:body_start]


def _comments_blanked(text: str) -> str:
    """The CUDA text with its comments blanked but its strings (the inline PTX) kept, same offsets."""
    return scanner.C_TOKENS.sub(lambda m: scanner.blank(m) if m.group(0)[:2] in ("//", "/*") else m.group(0), text)


def reachable_mma(text: str) -> set[str]:
    """The tensor-core instructions reachable from the host code or a `__global__` kernel: the op snippets of gemm
    define mma helpers that the CUDA-core variants never call (nvcc emits no code for them)."""
    code, ptx = scanner.code_view(text, "cuda"), _comments_blanked(text)
    defs = scanner.function_defs(code)
    live = [d for d in defs if "__device__" not in _head(code, d[2]) or "__global__" in _head(code, d[2])]
    reached, found = {d[0] for d in live}, set()
    while live:
        _name, _template, start, end = live.pop()
        found.update(m.group(0) for m in CUDA_MMA.finditer(ptx, start, end))
        for called in {m.group(1) for m in scanner.CALLED.finditer(code, start, end)} - reached:
            reached.add(called)
            live += [d for d in defs if d[0] == called]
    return found


def cuda_uses_tensor_cores(text: str) -> bool:
    return bool(reachable_mma(text))


def triton_uses_tensor_cores(text: str) -> bool:
    return TL_DOT.search(scanner.code_view(text, "triton")) is not None


def _one_task_per_op_impl_variant():
    """(task, variant) for every (op, impl, variant) once: the first catalog task where the variant is legal."""
    seen = set()
    for task in all_tasks():
        for variant in variants_for(task.op, task.impl, task.dtype):
            key = (task.op, task.impl, variant.tag)
            if key not in seen and legal_on(variant, task.gpu, task.dtype):
                seen.add(key)
                yield task, variant


def test_the_model_uses_tensor_cores_exactly_where_the_rendered_code_does():
    checked, on_tc, wrong = 0, 0, []
    for task, variant in _one_task_per_op_impl_variant():
        text = render(task, variant, variant.default_params()).text
        code = cuda_uses_tensor_cores(text) if task.impl == "cuda" else triton_uses_tensor_cores(text)
        if variant.tensor_cores(task.op) != code:
            wrong.append(f"{task.op}/{task.impl}/{variant.tag}: model {variant.tensor_cores(task.op)}, code {code}")
        checked += 1
        on_tc += code
    assert not wrong, "\n".join(wrong)
    assert checked > 300 and 80 < on_tc < checked - 150     # every class rendered, both kinds of code present


def test_cuda_tensor_core_code_multiplies_the_dtype_whose_rate_the_model_uses():
    """The model's tensor-core rate is that of the op's compute dtype (fp16 for weight-only int4 and for
    dequant_mma, which widens fp8/fp4 weights to fp16): a reachable mma of the render takes operands of a type
    with that rate (templates holding one instruction per dtype reach them all)."""
    checked = 0
    for task, variant in _one_task_per_op_impl_variant():
        if task.impl != "cuda" or not variant.tensor_cores(task.op):
            continue
        gpu = GPUS[task.gpu]
        rate = perf._ctx(task).tc_rate / 1e12
        if variant.tag == "dequant_mma":
            rate = min(rate, tc_peak_tflops(gpu, "fp16"))
        text = render(task, variant, variant.default_params()).text
        operands = {PTX_TYPE[t] for mma in reachable_mma(text) for t in mma.split(".") if t in PTX_TYPE}
        assert rate in {tc_peak_tflops(gpu, t) for t in operands}, (task.op, task.gpu, variant.tag, operands)
        checked += 1
    assert checked > 40


def test_the_reachability_check_sees_a_called_mma_and_ignores_an_uncalled_one():
    mma = 'asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%0};" : "+f"(d[0]));'
    helper = f"__device__ __forceinline__ void mma16(float* d) {{ {mma} }}\n"
    kernel = "__global__ void k(float* d) {{ {} }}\nvoid launch(float* d) {{ k<<<1, 32>>>(d); }}\n"
    assert cuda_uses_tensor_cores(helper + kernel.format("mma16(d);"))
    assert not cuda_uses_tensor_cores(helper + kernel.format("d[0] += 1.f;"))
    assert not cuda_uses_tensor_cores(kernel.format("/* mma.sync */ d[0] += 1.f;"))
    assert triton_uses_tensor_cores("acc = tl.dot(a, b, acc)")
    assert not triton_uses_tensor_cores("acc += tl.sum(a * b, axis=1)  # not tl.dot(a, b)")


def test_no_cuda_core_candidate_outruns_the_fp32_rate_its_code_multiplies_at():
    """Every template off tensor cores multiplies in fp32 (gemv too: its weights and activations are widened with
    `.to(tl.float32)` / `static_cast<float>`, no half2 FMAs), so none of them finishes its flops faster than the
    GPU's fp32 CUDA-core peak allows (gemv was timed at the fp16 CUDA-core rate, 2-4x faster on A100/H100)."""
    compute_bound = 0
    for task in all_tasks() + model_tasks():
        ctx = perf._ctx(task)
        floor_ms = ctx.flops / ctx.cc_rate * 1e3
        for variant in variants_for(task.op, task.impl, task.dtype):
            if variant.tensor_cores(task.op) or not legal_on(variant, task.gpu, task.dtype):
                continue
            for params in variant.all_params()[:4]:
                assert perf.time_ms(task, variant, params) >= floor_ms, (task, variant.tag, params)
                compute_bound += floor_ms > ctx.nbytes / ctx.bw * 1e3
    assert compute_bound > 100      # the check binds: candidates whose fp32 arithmetic outlasts their bytes
