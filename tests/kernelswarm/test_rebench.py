"""A campaign verifier's rerun is a second median of 100 runs of the same source: it differs from the reported time
by the measurement noise (`calibration.noise_sigma`), not a fixed 0.6 % whatever the kernel (the 600-episode audit:
12 of 465 reruns beyond what re-measuring can show, `noise_bound`); the `rebench_noise` rule reports a row where it does not."""
from __future__ import annotations

import copy
import re

import pytest

from generator.catalog.calibration import noise_bound
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.check import semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import simulate_episode
from generator.sim.seeding import rng_for

_SAID = re.compile(r"([0-9.e+-]+) ms reported, ([0-9.e+-]+) ms on rerun \(([+-][0-9.]+)%\)")


@pytest.fixture(scope="module")
def campaigns() -> list[dict]:
    rows = []
    for i, (op, gpu) in enumerate((("gemm_fp16", "h100"), ("rmsnorm", "a100"), ("rope", "rtx_5090"))):
        task = make_task(op, "cuda", gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
        for j in range(4):
            row = simulate_episode(task, "campaign", rng_for(9, i, j))
            rows.append({"episode_id": f"x_campaign_{row['num_messages']}", **row})
    return rows


def test_reruns_move_by_the_measurement_noise(campaigns):
    reruns = 0
    for row in campaigns:
        for m in row["messages"]:
            if said := _SAID.search(m["content"]):
                reported, rerun = float(said[1]), float(said[2])
                assert abs(rerun / reported - 1) <= noise_bound(reported) + 1e-4
                assert abs(100 * (rerun / reported - 1) - float(said[3])) <= 0.06
                reruns += 1
        assert semantic.check("episode", row) == [] and row_checks_pass(row)
    assert reruns >= 12


@pytest.mark.parametrize("factor, expect", [(1.05, "beyond the noise"), (1.0, "says")])
def test_the_rebench_rule_reports_an_implausible_rerun(campaigns, factor, expect):
    row = copy.deepcopy(campaigns[0])
    m = next(m for m in row["messages"] if _SAID.search(m["content"]))
    said = _SAID.search(m["content"])
    reported = float(said[1])
    rerun = reported * factor
    percent = "+9.9" if factor == 1.0 else f"{100 * (factor - 1):+.1f}"
    m["content"] = m["content"].replace(said[0], f"{said[1]} ms reported, {rerun:.5g} ms on rerun ({percent}%)")
    found = [x for x in semantic.check("episode", row) if x.startswith("rebench_noise: ")]
    assert found and expect in found[0], found
    assert not row_checks_pass(row)


def test_the_episode_that_showed_it_reruns_within_the_noise():
    """Episode 196 of `--episodes 300` (seed 0): its verifier reported a 0.058412 ms kernel at +1.50 % on rerun,
    beyond the 1.26 % re-measuring it can show."""
    from generator.kernelswarm.plan import episode

    row = episode(0, 300, 100, 196)
    # the same task and scenario (its message count, the id's last part, moved with 0.6.1's wider gather grids)
    assert row["episode_id"].startswith("moe_scatter_rtx_a6000_T=256,K=8,H=7168,E=256_campaign_")
    assert [m for m in semantic.check("episode", row) if m.startswith("rebench_noise")] == []
