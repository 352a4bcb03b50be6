"""A tune step changes constants only: it fails for what the new values cause, never for an edit of its own."""
import numpy as np

from generator.kernelinfer.session import _Engineer
from generator.catalog.tasks import make_task
from generator.kernels import render
from generator.sim.workbench import Workbench

CAUSED = {"static_smem_overflow", "dyn_smem_over_cap", "triton_out_of_resources", "triton_dot_shape"}


def _steps(task, seed):
    wb = Workbench(task)
    eng = _Engineer(wb, np.random.default_rng(seed))
    eng.climb()
    eng.tune()
    return wb, eng.steps


def test_tune_steps_are_clean_renders_and_fail_only_for_their_values():
    """Every tune step's source is the clean render of its params (0.6.2 grew a static array in the text,
    `a_tile[BLOCK_K]` -> `a_tile[256]`, while its params kept BLOCK_K = 8: 582 of 601 tune compile errors of the
    default folder); its failures are what those values cause."""
    tasks = [make_task("gemm_fp16", "cuda", "a10", "fp16", {"M": 4096, "N": 4096, "K": 4096}),
             make_task("gemm_fp16", "triton", "rtx_a6000", "fp16", {"M": 4096, "N": 4096, "K": 4096}),
             make_task("rmsnorm", "cuda", "h100", "bf16", {"T": 4096, "H": 4096})]
    tune_failures, tune_steps, other_typos = [], 0, 0
    for i, task in enumerate(tasks):
        for seed in range(3):
            wb, steps = _steps(task, 10 * i + seed)
            for kind, out, _text in steps:
                if kind == "tune":
                    tune_steps += 1
                    assert out.source.text == render(task, wb.by_tag[out.tag], out.params).text
                    if out.status != "ok":
                        tune_failures.append(out.expected.kind)
                elif out.expected.kind in ("undefined_identifier", "missing_semicolon", "type_mismatch",
                                           "triton_compilation_error"):
                    other_typos += 1
    assert tune_steps > 100 and set(tune_failures) <= CAUSED
    assert other_typos > 0          # typos still happen, in rewrites and fixes
