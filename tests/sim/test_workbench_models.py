"""The workbench times a configuration once, whatever style it is written in: what the tools do with a clean render
(its status, and the whole report when it runs) and its model time depend on the variant and params, never on the
style (`Workbench._models`)."""
import random

import numpy as np

from generator.catalog.hardware import GPUS
from generator.catalog.tasks import all_tasks
from generator.kernels import render
from generator.kernels.faults import OK, expect_clean
from generator.kernels.style import draw_style
from generator.sim.workbench import Workbench


def _sample_tasks():
    """Tasks of every (op, impl), on GPUs with and without each arch feature (fp8 Triton on cc < 89 included)."""
    tasks = all_tasks()
    by_kind: dict[tuple, list] = {}
    for task in tasks:
        by_kind.setdefault((task.op, task.impl, GPUS[task.gpu].cc >= 90, task.dtype == "fp8"), []).append(task)
    rand = random.Random(5)
    return [rand.choice(group) for _key, group in sorted(by_kind.items())]


def test_a_clean_renders_status_is_the_same_in_every_style():
    rng = np.random.default_rng(2)
    statuses = set()
    for task in _sample_tasks():
        styles = [None] + [draw_style(rng, task.impl) for _ in range(3)]
        wb = Workbench(task)
        for v in wb.variants:
            grid = wb.grid(v.tag)
            for params in (grid[0], grid[len(grid) // 2], grid[-1]):
                reports = [expect_clean(render(task, v, params, style=s), task, v, params) for s in styles]
                seen = {r.status for r in reports}
                assert len(seen) == 1, (task, v.tag, params, seen)
                assert seen != {"ok"} or all(r == OK for r in reports)    # a run's report reads nothing of the text
                statuses |= seen
    assert {"ok", "compile_error", "launch_error"} <= statuses     # the sample reaches every kind of outcome


def test_a_configuration_written_in_a_style_is_estimated_without_another_render():
    rng = np.random.default_rng(4)
    task = _sample_tasks()[0]
    wb, fresh = Workbench(task), Workbench(task)
    style = draw_style(rng, task.impl)
    for v in wb.variants:
        params = wb.defaults(v.tag)
        wb.submit(v.tag, params, rng, style=style)
        assert wb.model_ms(v.tag, params) == fresh.model_ms(v.tag, params)
        assert (v.tag, tuple(params.items()), None) not in wb._renders       # timed once, in the style it was written
