"""An ok step lasts at least the runs its benchmark makes: the task statement's 10 warm-up and 100 timed runs
plus the correctness run, of the measured time (0.6.1 gave every benchmark 7-11 s whatever the kernel, so a
1.1 s naive prefill kernel was "measured 100 times" in a 59 s step)."""
import copy

from generator.catalog.tasks import make_task
from generator.check import semantic
from generator.kernelinfer.checks import _headers, _seconds, _step_time
from generator.kernelinfer.session import simulate_session
from generator.sim import clock
from generator.sim.seeding import rng_for

# a naive CUDA prefill on an A10: a baseline of over a second per run
SLOW = make_task("flash_prefill", "cuda", "a10", "fp16", {"B": 2, "H": 16, "S": 16384, "D": 128})


def test_a_benchmark_lasts_its_runs():
    fast_lo, fast_hi = clock.machine_range("cuda", 200, "ok", 0.01)
    slow_lo, slow_hi = clock.machine_range("cuda", 200, "ok", 1000.0)
    assert slow_lo - fast_lo >= clock.KERNEL_RUNS * (1000.0 - 0.01) * 1e-3 - 1e-6
    assert slow_hi - fast_hi >= clock.KERNEL_RUNS * (1000.0 - 0.01) * 1e-3 - 1e-6


def test_slow_kernels_steps_cover_their_runs():
    row = simulate_session(SLOW, rng_for(0, 0, 7))
    assert row["baseline_ms"] > 1000
    stamps = _seconds(_headers(row))
    slow = 0
    for t, before, now in zip(row["trace"], [0] + stamps, stamps):
        if t["status"] == "ok":
            assert now - before >= clock.KERNEL_RUNS * t["time_ms"] * 1e-3 - 1, t
            slow += t["time_ms"] > 100
    assert slow >= 2      # the naive kernel and its fix: no tune of a variant out of reach of the best
    assert _step_time(row) is None and semantic.check("session", {"session_id": "x", **row}) == []


def test_the_step_time_rule_flags_a_benchmark_shorter_than_its_runs():
    row = simulate_session(SLOW, rng_for(0, 0, 7))
    lie = copy.deepcopy(row)
    first = lie["messages"][3]["content"]
    assert lie["trace"][0]["status"] == "ok" and first.startswith("[t+")
    lie["messages"][3]["content"] = "[t+0:00:30]" + first[first.index("]") + 1:]   # 30 s for 111 runs of > 0.5 s
    assert "step 1: ok step lasts 30 s" in _step_time(lie)
