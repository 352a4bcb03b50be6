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
        stated = re.search(r"([\d.]+) TFLOPS dense (\w+) tensor-core peak", task_statement(task, task_fields(task)))
        assert stated and float(stated[1]) == round(ctx.peak / 1e12, 4), key
    assert {("fp8_gemm", "a100", "fp8"), ("int4_gemm", "a100", "int4")} <= checked


def test_every_task_states_the_peak_its_reports_divide_by():
    """The first rate the GPU line states is `perf`'s peak for the task, CUDA-core ops included (0.6.3: a fp16
    mamba_scan stated the 312 TFLOPS tensor-core peak while its "% of peak" divided by the 19.5 fp32 one)."""
    checked = {}
    for task in all_tasks():
        key = (task.op, task.gpu, task.dtype)
        if key in checked:
            continue
        stated = re.search(r"MB L2, [^.]*?([\d.]+) TFLOPS", task_statement(task, task_fields(task)))
        checked[key] = float(stated[1]) == round(perf._ctx(task).peak / 1e12, 4)
    assert [key for key, right in checked.items() if not right] == []
    assert ("mamba_scan", "a100", "fp16") in checked and ("gemv_fp16", "a100", "bf16") in checked
