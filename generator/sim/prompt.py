"""The task as the harness states it to an engineer: the op, shape and signature, the GPU's limits, the
baseline and roofline, how a kernel is checked and timed. Every dataset's task turn starts with it, so it lives
in the harness, not in one dataset."""
from __future__ import annotations

from generator.catalog import perf
from generator.catalog.hardware import FEATURES, GPUS, tc_peak_tflops
from generator.catalog.ops import OPS
from generator.sim import correctness
from generator.sim.feedback import ms_text

REPLY = "Reply with the full kernel source only."   # kernelinfer's reply instruction, after the task


def _compute_peak(task, gpu, op) -> str:
    """The peak the task's math runs against, the one its reports' "% of peak" divide by (`perf.peak_path`: the
    tensor-core rate of the op's compute dtype, fp16 where the chip has no native path for it; CUDA cores for
    the ops whose roofline has no tensor-core math)."""
    dtype, path = task.dtype, perf.peak_path(task)
    if path == "fp32_cuda":
        return f"{gpu.fp32_tflops:g} TFLOPS fp32 CUDA-core peak (the rate this op is measured against)"
    if path == "fp16_cuda":
        return (f"{gpu.fp16_cuda_tflops:g} TFLOPS fp16 CUDA-core peak in packed half2 FMAs ({gpu.fp32_tflops:g} "
                f"fp32; the rate this op is measured against)")
    compute = op.compute_dtype(dtype)
    peak = f"{tc_peak_tflops(gpu, compute):g} {perf.rate_unit(task)} dense"
    if compute != dtype:        # weight-only quantization: the MMA runs on the activations' dtype
        return f"{peak} {compute} tensor-core peak (the {dtype} weights are widened to {compute} for the MMA)"
    if dtype not in gpu.tc_tflops:
        return f"no {dtype} tensor cores: {peak} fp16 tensor-core peak for operands converted to fp16"
    return f"{peak} {dtype} tensor-core peak"


def _gpu_limits(task, gpu, op) -> str:
    """One paragraph of the GPU's figures an engineer needs: bandwidth, peak, shared memory, features."""
    compute = _compute_peak(task, gpu, op)
    feats = ", ".join(f for f in FEATURES if f in gpu.features)
    return (f"{gpu.display} ({gpu.arch}, compute capability {gpu.cc // 10}.{gpu.cc % 10}): {gpu.sms} SMs at "
            f"{gpu.clock_ghz:g} GHz, {gpu.dram_gbps:,.0f} GB/s DRAM, {gpu.l2_mb:g} MB L2, {compute}. "
            f"Shared memory per block: {gpu.smem_dyn_max // 1024} KB dynamic (opt-in), "
            f"{gpu.smem_static_max // 1024} KB static; {gpu.smem_per_sm // 1024} KB per SM; "
            f"{gpu.regs_per_sm // 1024}K registers and {gpu.max_threads_per_sm} threads per SM. "
            f"Hardware features: {feats}.")


def task_statement(task, fields: dict) -> str:
    """The task: what to build, for which GPU and limits, how it is checked and timed."""
    gpu = GPUS[task.gpu]
    shape = ", ".join(f"{k}={v}" for k, v in task.shape)
    lang = "CUDA C++ (nvcc, one .cu file)" if task.impl == "cuda" else "Triton (one Python file, @triton.jit kernels)"
    return (
        f"Optimize `{task.op}` in {lang} for {gpu.display}.\n\n"
        f"Operation: {fields['desc']}\n"
        f"Data type: {task.dtype}\nShape: {shape}\n"
        f"Signature:\n{fields['signature']}\n\n"
        f"GPU: {_gpu_limits(task, gpu, OPS[task.op])}\n"
        f"Compile target: {gpu.arch}.\n\n"
        f"Baseline (naive kernel): {ms_text(fields['baseline_ms'])} ms. "
        f"Roofline lower bound: {ms_text(fields['roofline_ms'])} ms.\n"
        f"Correctness: {correctness.tolerance_text(task)}\n"
        f"Timing: median of 100 timed runs after 10 warm-up runs, measured with CUDA events, L2 flushed "
        f"between runs; speedup is baseline time / your time."
    )


def user_prompt(task, fields: dict) -> str:
    """kernelinfer's task turn: the task, then how to reply."""
    return f"{task_statement(task, fields)}\n{REPLY}"
