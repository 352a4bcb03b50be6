"""The numbers inside harness reports (check.reports): real rows pass; each planted lie is named, through the
QA check `report_numbers` of both datasets and the validator."""
from __future__ import annotations

import copy
import re

import pytest

from generator.catalog.tasks import split_tasks
from generator.check import reports, semantic
from generator.kernelinfer.session import simulate_session
from generator.kernelswarm.episode import simulate_episode
from generator.sim.seeding import rng_for


@pytest.fixture(scope="module")
def sessions():
    train = split_tasks(4, 600, 0, stream=1).train
    return [{"session_id": f"s{i}", **simulate_session(train[i], rng_for(4, 1, i))} for i in range(0, 600, 40)]


def _steps(sessions, status):
    """(row, step index, report body) of every step with this status."""
    out = []
    for row in sessions:
        for i, t in enumerate(row["trace"]):
            if t["status"] == status:
                out.append((row, i, row["messages"][3 + 2 * i]["content"]))
    return out


def _problem(row, i, text):
    """reports.problem for step i of `row` with its report replaced by `text` (the RESULT line kept)."""
    trace = row["trace"]
    best = min((t["time_ms"] for t in trace[:i] if t["time_ms"] is not None), default=None)
    config = (trace[i]["tag"], trace[i]["params"], row["messages"][2 + 2 * i]["content"])
    return reports.problem(reports.task_of(row), trace[i]["status"], text.partition("\n")[2], trace[i]["time_ms"],
                           row["baseline_ms"], best, config)


def test_real_reports_pass(sessions):
    for status in ("ok", "wrong_result", "launch_error"):
        found = _steps(sessions, status)
        assert found, status
        for row, i, text in found:
            assert _problem(row, i, text) is None, (status, text)
    assert all(semantic.check("session", row) == [] for row in sessions)


def _swap(text, pattern, new):
    changed = re.sub(pattern, new, text, count=1, flags=re.M)
    assert changed != text, pattern
    return changed


OK_LIES = {
    "time": (r"^time: [0-9.]+", "time: 123.4567", "reports 123.4567 ms"),
    "speedup": (r"^speedup: [0-9.]+x", "speedup: 99.99x", "vs baseline"),
    "bandwidth": (r"achieved: \d+ GB/s", "achieved: 1 GB/s", "the op's bytes and flops"),
    "tflops": (r"achieved: [0-9.]+ TFLOPS", "achieved: 0.0 TFLOPS", "the op's bytes and flops"),
}


@pytest.mark.parametrize("lie", sorted(OK_LIES))
def test_benchmark_lies_are_named(sessions, lie):
    pattern, new, said = OK_LIES[lie]
    row, i, text = next((r, i, t) for r, i, t in _steps(sessions, "ok") if re.search(pattern, t, re.M))
    assert said in (_problem(row, i, _swap(text, pattern, new)) or "")


def test_a_fast_time_cut_to_four_decimals_is_named(sessions):
    """0.0038548 ms printed 0.0039 drops digits the speedups beside it divide by (row audit, 0.6.3's format)."""
    row, i, text = next((r, i, t) for r, i, t in _steps(sessions, "ok") if r["trace"][i]["time_ms"] < 0.1)
    assert _problem(row, i, text) is None
    cut = _swap(text, r"^time: [0-9.]+", "time: %.4f" % row["trace"][i]["time_ms"])
    assert "reports" in (_problem(row, i, cut) or "")


def test_best_so_far_is_the_best_before(sessions):
    row, i, text = next((r, i, t) for r, i, t in _steps(sessions, "ok") if "best so far" in t)
    assert "best so far" in _problem(row, i, _swap(text, r"vs best so far \([0-9.]+ ms\)", "vs best so far (0.0001 ms)"))


def test_correctness_lies_are_named(sessions):
    float_ok = next((r, i, t) for r, i, t in _steps(sessions, "ok") if "max_abs_err" in t)
    row, i, text = float_ok
    assert "tolerance" in _problem(row, i, _swap(text, r"atol = [0-9.e-]+, rtol", "atol = 0.5, rtol"))
    beyond = _swap(text, r"max_abs_err = \S+, max_rel_err = \S+;", "max_abs_err = 1.0, max_rel_err = 0.9;")
    assert "its own bound" in _problem(row, i, beyond)
    row, i, text = next((r, i, t) for r, i, t in _steps(sessions, "wrong_result") if "mismatches" in t)
    n = int(re.search(r"mismatches: \d+ / (\d+)", text)[1])
    assert "output elements" in _problem(row, i, _swap(text, r"mismatches: (\d+) / \d+", rf"mismatches: \1 / {4 * n}"))
    assert "do not fit" in _problem(row, i, _swap(text, r"first bad index: \d+", f"first bad index: {n}"))


def test_launch_limit_lies_are_named(sessions):
    row, i, text = next((r, i, t) for r, i, t in _steps(sessions, "launch_error") if "Hardware limit: " in t)
    lie = _swap(text, r"Hardware limit: \d+", "Hardware limit: 1048576")
    assert "allows" in _problem(row, i, lie)


def test_a_cuda_launch_refusal_prints_only_the_runtime_error_string(sessions):
    """cudaGetErrorString has no figures: 0.6.7 added "(invalid argument: 262144 bytes of dynamic shared memory >
    232448 (cudaFuncAttributeMaxDynamicSharedMemorySize))" to every CUDA refusal (row audit); such a line, or an
    error string the runtime has not, is named."""
    row, i, text = next((r, i, t) for r, i, t in _steps(sessions, "launch_error") if "CUDA error: " in t)
    error = re.search(r"CUDA error: (.*)$", text, re.M)[1]
    assert text.endswith(f"RuntimeError: CUDA error: {error}") and error in reports.CUDA_LAUNCH_ERRORS
    explained = text + "\n  (invalid argument: 262144 bytes of dynamic shared memory > 232448)"
    assert "must end at the runtime's error string" in _problem(row, i, explained)
    made_up = _swap(text, r"CUDA error: .*$", "CUDA error: out of shared memory")
    assert "no such text" in _problem(row, i, made_up)
    other = next(e for e in sorted(reports.CUDA_LAUNCH_ERRORS) if e != error)      # real, but not this launch's
    swapped = copy.deepcopy(row)
    swapped["messages"][3 + 2 * i]["content"] = _swap(text, r"CUDA error: .*$", f"CUDA error: {other}")
    assert "whose launch gets" in _problem(row, i, swapped["messages"][3 + 2 * i]["content"])
    assert any(p.startswith("report_numbers: step") for p in semantic.check("session", swapped))


def test_both_datasets_run_the_rule(sessions):
    row = copy.deepcopy(sessions[0])
    step = next(i for i, t in enumerate(row["trace"]) if t["status"] == "ok")
    m = row["messages"][3 + 2 * step]
    m["content"] = _swap(m["content"], r"^time: [0-9.]+", "time: 123.4567")
    assert any(p.startswith("report_numbers: step") for p in semantic.check("session", row))
    task = split_tasks(4, 600, 0, stream=1).train[0]
    episode = simulate_episode(task, "campaign", rng_for(4, 2, 0))
    episode = {"episode_id": f"x_campaign_{episode['num_messages']}", **episode}
    assert semantic.check("episode", episode) == []
    result = next(m for m in episode["messages"] if m["kind"] == "result" and m["status"] == "ok")
    result["content"] = _swap(result["content"], r"^time: [0-9.]+", "time: 123.4567")
    assert any(p.startswith("report_numbers: message") for p in semantic.check("episode", episode))


def test_the_task_turn_states_the_rows_task(sessions):
    """kernelinfer's task_turn: the user turn is the harness's statement of the row's own task."""
    row = copy.deepcopy(sessions[0])
    turn = row["messages"][1]
    turn["content"] = _swap(turn["content"], r"^Compile target: \S+", "Compile target: sm_75.")
    assert any(p.startswith("task_turn: task turn line") for p in semantic.check("session", row))


def test_truncated_grid_lies_are_named():
    """A truncated grid's region is recomputed from the shape: an axis length that is not the task's, counts or a
    first index that are not that tail's elements, and a tail no whole number of blocks leaves, are named."""
    from generator.catalog.tasks import Task
    from generator.sim import correctness, grid_tail
    task = Task("fp8_blockwise_gemm", "cuda", "h100", "fp8", (("M", 4096), ("N", 2112), ("K", 7168)))
    text = correctness.failed_text(task, "truncated_grid", (0.5, 0.5, 0.5, 0.5),
                                   grid_tail.unwritten(task, "N / BLOCK_N", {"BLOCK_N": 128}))
    assert reports.problem(task, "wrong_result", text, None, 1.0, None) is None
    assert text.endswith("; wrong only in the last 64 of 2112 columns in each of 4096 rows")
    shifted = _swap(text, r"first bad index: 2048", "first bad index: 2047")
    assert "elements from index 2048" in reports.problem(task, "wrong_result", shifted, None, 1.0, None)
    rows = _swap(text, r"of 2112 columns in each of 4096 rows", "of 2112 rows")
    assert "has 4096 rows" in reports.problem(task, "wrong_result", rows, None, 1.0, None)
    no_grid = _swap(text, r"last 64 of 2112 columns", "last 1100 of 2112 columns")
    assert "no grid of whole blocks" in reports.problem(task, "wrong_result", no_grid, None, 1.0, None)


def test_more_mismatches_than_elements_from_the_first_bad_index_are_named():
    """Indices before the first bad one pass, so a report with B mismatches from index F of N has B <= N - F (0.6.7's
    races drew F apart from B: 16611 / 65536 from index 54497, row audit)."""
    from generator.catalog.tasks import Task
    from generator.sim import correctness
    task = Task("flash_decode", "cuda", "h100", "fp16", (("B", 8), ("H", 32), ("D", 128), ("T", 4096), ("P", 16)))
    text = correctness.failed_text(task, "racy_reduction", (0.9, 0.5, 0.5, 0.2, 0.5, 0.8))
    bad, n, first = map(int, re.search(r"mismatches: (\d+) / (\d+) .*first bad index: (\d+)", text).groups())
    assert reports.problem(task, "wrong_result", text, None, 1.0, None) is None
    last = _swap(text, r"first bad index: \d+", f"first bad index: {n - bad}")
    assert reports.problem(task, "wrong_result", last, None, 1.0, None) is None
    past = _swap(text, r"first bad index: \d+", f"first bad index: {n - bad + 1}")
    assert "do not fit" in reports.problem(task, "wrong_result", past, None, 1.0, None)


def test_an_attention_scale_report_past_the_values_range_is_named():
    """Without its softmax scale, attention still averages N(0, 1) values: 0.6.4 reported max_abs_err = 13.83 and
    out / ref = 95.89 for flash_decode (28 of 191 attention reports past what V allows, row audit); both are named."""
    from generator.catalog.tasks import Task
    from generator.sim import correctness
    task = Task("flash_decode", "triton", "h200", "fp16", (("B", 8), ("H", 32), ("D", 128), ("T", 4096)))
    text = correctness.failed_text(task, "dropped_scale", (0.5,) * 6)
    assert reports.problem(task, "wrong_result", text, None, 1.0, None) is None
    magnitude = correctness._facts(task)[1]
    past = _swap(text, r"max_abs_err = \S+ \(atol = (\S+)\), max_rel_err = \S+",
                 rf"max_abs_err = 13.83 (atol = \1), max_rel_err = {13.83 / magnitude:.4g}")
    assert "at most 4" in reports.problem(task, "wrong_result", past, None, 1.0, None)
    ratio = _swap(text, r"first bad index: (\d+)$", r"first bad index: \1; out / ref = 95.89 at the first mismatch")
    assert "no constant out / ref" in reports.problem(task, "wrong_result", ratio, None, 1.0, None)


def test_a_drawn_output_scale_ratio_is_named():
    """A quantized GEMM missing its per-tensor output scale is off by the one ratio the scale implies; 0.6.4 drew
    out / ref = 0.09 for the fp8 GEMM, whose scales below 1 can only enlarge it."""
    from generator.catalog.tasks import Task
    from generator.sim import correctness
    task = Task("fp8_gemm", "triton", "h100", "fp8", (("M", 4096), ("N", 4096), ("K", 4096)))
    text = correctness.failed_text(task, "dropped_scale", (0.5,) * 6)
    assert reports.problem(task, "wrong_result", text, None, 1.0, None) is None
    drawn = _swap(text, r"out / ref = \S+ at", "out / ref = 0.09 at")
    assert "ref * 1.254e+04" in reports.problem(task, "wrong_result", drawn, None, 1.0, None)


def test_a_causal_prefill_scale_report_keeps_each_first_query_exact():
    """A causal prefill's first query of each (batch, head) sees only its own key: without the softmax scale its
    weight is still 1, so those D outputs are exact. 0.6.5's first reports said "first bad index: 0" and up to 100 %
    mismatches (review finding); the report now starts at index D and counts at most the other queries, and a
    report that does not is named."""
    from generator.catalog.tasks import Task
    from generator.sim import correctness
    task = Task("flash_prefill", "cuda", "h100", "fp16", (("B", 1), ("H", 32), ("S", 4096), ("D", 128)))
    n = correctness.output_elements(task)
    for u in ((0.999, 0.0, 0.5, 0.5, 0.5, 0.5), (0.3, 0.9, 0.1, 0.5, 0.5, 0.5)):
        text = correctness.failed_text(task, "dropped_scale", u)
        bad, first = map(int, re.search(r"mismatches: (\d+) / \d+ .*first bad index: (\d+)", text).groups())
        assert first >= 128 and bad <= n - 32 * 128, text
        assert reports.problem(task, "wrong_result", text, None, 1.0, None) is None
    at_zero = _swap(text, r"first bad index: \d+", "first bad index: 0")
    assert "outputs are exact" in reports.problem(task, "wrong_result", at_zero, None, 1.0, None)
    every = _swap(text, r"mismatches: \d+ / (\d+) \([\d.]+%\)", rf"mismatches: {n - first} / \1 "
                                                                 rf"({100 * (n - first) / n:.2f}%)")   # all from first
    assert "outputs are exact" in reports.problem(task, "wrong_result", every, None, 1.0, None)
    cross = Task("cross_attn", "cuda", "h100", "fp16", (("B", 1), ("H", 32), ("S", 4096), ("L", 1500), ("D", 128)))
    assert "first bad index: 0" in correctness.failed_text(cross, "dropped_scale", (0.999, 0.0, 0.5, 0.5, 0.5, 0.5))


def test_a_dropped_k_block_scale_report_is_held_to_its_model():
    """A scale that varies along K leaves each block off by its own factor: a report that states an out / ref,
    another error or mismatch count than `correctness.block_scale_error` gives for either scale, or a kernel without
    such a scale, is named (0.6.6 drew out / ref = 0.1831 for int4_gemm)."""
    from generator.catalog.tasks import Task
    from generator.sim import correctness
    task = Task("fp8_blockwise_gemm", "cuda", "h100", "fp8", (("M", 4096), ("N", 2112), ("K", 7168)))
    for scale in correctness.K_BLOCK_SCALES[(task.op, task.impl)][1]:
        text = correctness.failed_text(task, "dropped_scale", (0.5,) * 6, scale)
        assert reports.problem(task, "wrong_result", text, None, 1.0, None) is None
        ratio = _swap(text, re.escape(correctness.VARYING_RATIO), "out / ref = 0.1831 at the first mismatch")
        assert "no single out / ref" in reports.problem(task, "wrong_result", ratio, None, 1.0, None)
        err = float(re.search(r"max_abs_err = (\S+) ", text)[1])
        off = _swap(text, r"max_abs_err = \S+ ", f"max_abs_err = {2 * err:.4g} ")
        assert "block_scale_error" in reports.problem(task, "wrong_result", off, None, 1.0, None)
        fewer = _swap(text, r"mismatches: \d+ / (\d+) \([\d.]+%\)", r"mismatches: 4000000 / \1 (46.24%)")
        assert "block_scale_error" in reports.problem(task, "wrong_result", fewer, None, 1.0, None)
    per_tensor = Task("fp8_gemm", "triton", "h100", "fp8", (("M", 4096), ("N", 4096), ("K", 4096)))
    text = correctness.failed_text(per_tensor, "dropped_scale", (0.5,) * 6)
    varying = _swap(text, r"out / ref = \S+ at the first mismatch", correctness.VARYING_RATIO)
    assert "no K-varying scale" in reports.problem(per_tensor, "wrong_result", varying, None, 1.0, None)
