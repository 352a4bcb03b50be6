"""The task turn states the peak the reports measure against."""
import re

from generator.catalog import perf
from generator.catalog.tasks import all_tasks
from generator.sim.prompt import task_statement
from generator.sim.workbench import task_fields


def test_a_tensor_core_task_states_the_peak_its_reports_divide_by():
    """A GEMM's "% of peak" divides by the tensor-core rate of its compute dtype (fp16 where the chip has no
    native path, or for weight-only quantization): the task turn states that rate, not the storage dtype's (0.6.2:
    an A100 fp8 GEMM said "no fp8 tensor cores; 78 fp16 on CUDA cores" and was measured against 312 TFLOPS; an A100
    W4A16 GEMM stated int4's 1,248)."""
    checked = set()
    for task in all_tasks():
        ctx = perf._ctx(task)
        if ctx.kclass not in perf.TC_CLASSES or ctx.peak != ctx.tc_rate or task.dtype == "fp32":
            continue
        key = (task.op, task.gpu, task.dtype)
        if key in checked:
            continue
        checked.add(key)
        stated = re.search(rf"([\d.]+) {perf.rate_unit(task)} dense (\w+) tensor-core peak",
                           task_statement(task, task_fields(task)))
        assert stated and float(stated[1]) == round(ctx.peak / 1e12, 4), key
    assert {("fp8_gemm", "a100", "fp8"), ("int4_gemm", "a100", "int4")} <= checked


def test_every_task_states_the_peak_its_reports_divide_by():
    """The GPU paragraph's first TFLOPS figure is the rate a report's "% of peak" divides by (tflops / fraction),
    for every kind of op: CUDA-core ops stated a tensor-core peak (an H100 rmsnorm: 989.4, its reports 66.9; a
    GEMV: 989.4, its reports 133.8, the fp16 CUDA-core rate)."""
    paths = set()
    for task in {(t.op, t.gpu, t.dtype): t for t in all_tasks()}.values():
        tflops, fraction = perf.achieved_values(task, 1.0)[1:3]
        if not fraction:            # no flops (copies, gathers): no report speaks of a compute peak
            continue
        gpu_line = task_statement(task, task_fields(task)).split("\nGPU: ", 1)[1]
        stated = re.search(r"([\d.]+) T(?:FL)?OPS", gpu_line)
        assert stated and float(stated[1]) == round(tflops / fraction, 4), (task.op, task.gpu, task.dtype)
        paths.add(perf.peak_path(task))
    assert paths == {"tensor", "fp16_cuda", "fp32_cuda"}
