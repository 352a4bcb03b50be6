"""A fix step changes the broken code: a fix that drew the very same editing mistake again resent its parent's
source unchanged (9 fix steps in 8 of 300 sessions of a 300-session folder), with the same compile error, or a
different wrong-result report for the same code. The workbench now never makes a mistake that gives back the
source a fix replaces; the `fix_follows_error` rule reports a fix that resends its parent's code."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from generator.catalog.tasks import make_task
from generator.check import semantic
from generator.kernelinfer.checks import CHECKS
from generator.kernelinfer.dataset import STREAM
from generator.kernelinfer.session import simulate_session
from generator.sim.seeding import rng_for

# Sessions 15 and 146 of seed 0's 300-session folder when they resent their code (task, row index, id); the
# split has since changed which task a row index gets, so each is simulated from its own task and generator.
RESENT = (
    (make_task("swa_decode", "cuda", "rtx_5090", "fp16", {"B": 8, "H": 8, "D": 128, "T": 32768, "W": 4096}), 15,
     "swa_decode_cuda_rtx_5090_fp16_1980e33f"),
    (make_task("paged_kv_copy", "cuda", "h200", "bf16", {"NB": 4096, "P": 16, "H": 8, "D": 128}), 146,
     "paged_kv_copy_cuda_h200_bf16_ad6081ee"),
)


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    wanted = [simulate_session(task, rng_for(0, STREAM, i)) for task, i, _ in RESENT]
    assert [r["session_id"] for r in wanted] == [session_id for *_, session_id in RESENT]
    return wanted


def _fixes(row):
    return [i for i, t in enumerate(row["trace"]) if t["kind"] == "fix"]


def test_every_fix_of_the_sessions_that_resent_their_code_changes_it(rows):
    for row in rows:
        fixes = _fixes(row)
        assert fixes, row["session_id"]
        for i in fixes:
            assert row["messages"][2 * i + 2]["content"] != row["messages"][2 * i]["content"], (row["session_id"], i)
        assert not [p for p in semantic.check("session", row) if p.startswith("fix_follows_error: ")]


def test_the_rule_reports_a_fix_that_resends_its_parent(rows):
    row = copy.deepcopy(rows[0])
    i = _fixes(row)[0]
    row["messages"][2 * i + 2]["content"] = row["messages"][2 * i]["content"]      # plant: the broken code again
    found = [p for p in semantic.check("session", row) if p.startswith("fix_follows_error: ")]
    assert found and "resends the broken code unchanged" in found[0], found
    assert not CHECKS.shortcut_fn.fn(row)       # the validator's shortcut does not vouch for it either


def test_the_workbench_never_makes_the_mistake_that_gives_back_the_code_a_fix_replaces():
    """The mechanism itself, whichever sessions happen to draw it: the same generator state that made broken
    source B makes, for a fix replacing B, anything but B."""
    from generator.sim.workbench import Workbench

    task, *_ = RESENT[1]
    bench = Workbench(task)
    tag = bench.variants[0].tag
    params = bench.defaults(tag)
    broken = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        state = rng.bit_generator.state
        first = bench.submit(tag, params, rng, fault=True, p_wrong=0.5)
        if first.status == "ok":
            continue
        broken += 1
        rng.bit_generator.state = state
        again = bench.submit(tag, params, rng, fault=True, p_wrong=0.5, replaces=first.source.text)
        assert again.source.text != first.source.text, seed
    assert broken >= 20, broken
