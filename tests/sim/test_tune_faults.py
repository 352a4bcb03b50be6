"""A tune step changes constants only: it fails for what the new values cause, never for a typo."""
import numpy as np

from generator.kernelinfer.session import _Engineer
from generator.catalog.tasks import make_task
from generator.sim.workbench import TUNE_FAULTS, Workbench

CAUSED = set(TUNE_FAULTS["cuda"]) | {"dyn_smem_over_cap", "triton_out_of_resources"}


def _steps(task, seed):
    eng = _Engineer(Workbench(task), np.random.default_rng(seed))
    eng.climb()
    eng.tune()
    return eng.steps


def test_tune_failures_are_caused_by_the_new_values():
    tasks = [make_task("gemm_fp16", "cuda", "a10", "fp16", {"M": 4096, "N": 4096, "K": 4096}),
             make_task("gemm_fp16", "triton", "rtx_a6000", "fp16", {"M": 4096, "N": 4096, "K": 4096}),
             make_task("rmsnorm", "cuda", "h100", "bf16", {"T": 4096, "H": 4096})]
    tune_failures, other_typos = [], 0
    for i, task in enumerate(tasks):
        for seed in range(3):
            for kind, out, _text in _steps(task, 10 * i + seed):
                if kind == "tune" and out.status != "ok":
                    tune_failures.append(out.expected.kind)
                elif kind != "tune" and out.expected.kind in ("undefined_identifier", "missing_semicolon",
                                                              "type_mismatch", "triton_compilation_error"):
                    other_typos += 1
    assert tune_failures and set(tune_failures) <= CAUSED
    assert other_typos > 0          # typos still happen, in rewrites and fixes
