"""QA checks: real sessions pass every kernelinfer check; each broken invariant fails exactly its check."""
from __future__ import annotations

import copy

import pytest

from generator.check import qa
from generator.sim.seeding import rng_for
from generator.kernelinfer.session import simulate_session
from generator.catalog.tasks import split_tasks
from generator.kernelinfer.checks import CHECKS as KI_CHECKS


@pytest.fixture(scope="module")
def rows():
    train = split_tasks(3, 400, 0, stream=1).train
    return [simulate_session(train[i], rng_for(3, 1, i)) for i in range(0, 400, 50)]


def failed(rows, batch="batch_000"):
    report = qa.run_checks(KI_CHECKS, rows, batch, id_field="session_id")
    return {c["name"] for c in report["checks"] if not c["passed"]}, report


def test_real_sessions_pass_at_least_ten_checks(rows):
    names, report = failed(rows)
    assert names == set(), qa.failures(report)
    assert report["total"] >= 10 and report["score"] == f"{report['total']}/{report['total']}"
    assert report["rows"] == len(rows)


def _first_ok(row):
    return next(t for t in row["trace"] if t["status"] == "ok" and t["step"] != row["best"]["step"])


def _after_ok(row):
    """A step whose previous step passed: marking it a fix breaks the rule whatever the session looks like."""
    trace = row["trace"]
    return next(t for prev, t in zip(trace, trace[1:]) if prev["status"] == "ok")


BREAKS = {
    "step_count": lambda r: r.update(num_steps=r["num_steps"] + 1),
    "message_roles": lambda r: r["messages"].insert(2, {"role": "assistant", "content": "x"}),
    "feedback_header": lambda r: r["messages"][3].update(content="RESULT ok\nbody"),
    "timestamps": lambda r: r.update(elapsed_s=r["elapsed_s"] + 1.0),
    "duration": lambda r: r.update(elapsed_s=99.0),
    "time_physics": lambda r: _first_ok(r).update(time_ms=r["roofline_ms"] * 0.5),
    "best_step": lambda r: r["best"].update(step=_first_ok(r)["step"]),
    "speedup": lambda r: r["best"].update(speedup=r["best"]["speedup"] * 1.1),
    "kept_marks_improvements": lambda r: r["trace"][-1].update(kept=not r["trace"][-1]["kept"]),
    "attempts": lambda r: r.update(attempts=r["attempts"] + 1),
    "arch_matches_gpu": lambda r: r.update(arch="sm_75"),
    "assistant_code_only": lambda r: r["messages"][2].update(content="Here is the kernel:\n```\n```"),
    "number_types": lambda r: r.update(attempts=float(r["attempts"])),
    "fix_follows_error": lambda r: _after_ok(r).update(kind="fix"),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_each_broken_invariant_fails_its_check(rows, name):
    row = copy.deepcopy(rows[0])
    BREAKS[name](row)
    names, report = failed([row])
    assert name in names
    entry = next(c for c in report["checks"] if c["name"] == name)
    assert entry["failed"] == 1 and entry["examples"][0].startswith(f"row 0 ({row['session_id']})")
    assert qa.failures(report)


def test_arch_gating_catches_an_ok_gated_variant(rows):
    from generator.catalog.hardware import GPUS
    from generator.catalog.variants import variants_for
    row = next(r for r in rows if any(not v.requires_for(r["dtype"]) <= GPUS[r["gpu"]].features
                                      for v in variants_for(r["op"], r["impl"])))
    gated = next(v for v in variants_for(row["op"], row["impl"])
                 if not v.requires_for(row["dtype"]) <= GPUS[row["gpu"]].features)
    broken = copy.deepcopy(row)
    next(t for t in broken["trace"] if t["status"] == "ok")["tag"] = gated.tag
    assert "arch_gating" in failed([broken])[0]


def test_duplicates_fail_the_batch_check(rows):
    assert "unique_sessions" in failed([rows[0], rows[0]])[0]


def test_check_sets_are_per_dataset_and_report_malformed_rows():
    before = len(KI_CHECKS.checks)
    toy = qa.CheckSet("toy")
    toy.check("positive", "x > 0")(lambda row: None if row["x"] > 0 else f"x={row['x']}")
    report = qa.run_checks(toy, [{"id": "a", "x": 1}, {"id": "b", "x": -2}, {"id": "c"}], "b0", id_field="id")
    (entry,) = report["checks"]
    assert report["score"] == "0/1" and entry["failed"] == 2
    assert entry["examples"] == ["row 1 (b): x=-2", "row 2 (c): malformed row: KeyError: 'x'"]
    assert len(KI_CHECKS.checks) == before


def test_a_short_session_must_end_re_measuring_its_best(rows):
    """Under 30 steps only a session that measured every configuration of its task, ending in its one revert,
    passes step_count: a cut-off session ending in a revert does not (the rule read only the last step's kind)."""
    from generator.catalog.tasks import all_tasks
    task = next(t for t in all_tasks()
                if (t.op, t.impl, t.gpu, t.dtype) == ("moe_topk_gating", "triton", "rtx_a6000", "fp32"))
    short = {"session_id": "s0", **simulate_session(task, rng_for(11, 1, 0))}
    assert short["num_steps"] < 30 and "step_count" not in failed([short])[0]
    tuned = copy.deepcopy(short)
    tuned["trace"][-1]["kind"] = "tune"
    assert "step_count" in failed([tuned])[0]
    row = copy.deepcopy(rows[0])
    row["trace"] = row["trace"][:20]
    row["trace"][-1]["kind"] = "revert"
    row["num_steps"] = 20
    assert "step_count" in failed([row])[0]

def test_a_short_session_may_leave_variants_out_of_reach_untuned():
    """A session ends short once every variant that could still catch up has run all its configurations: one out
    of reach of the best (Workbench.out_of_reach) keeps untried configurations and the row passes step_count; were
    that variant as fast as the best, its untried configurations would make the same row fail."""
    import numpy as np

    from generator.catalog.ops import OPS
    from generator.catalog.tasks import make_task
    from generator.sim.workbench import Workbench
    task = make_task("mamba_step", "cuda", "h100", "fp16", OPS["mamba_step"].shapes[0])
    short = {"session_id": "s0", **simulate_session(task, np.random.default_rng(1))}
    ran = {(t["tag"], tuple(t["params"].items())) for t in short["trace"]}
    bench = Workbench(task)
    left = [v.tag for v in bench.variants if any((v.tag, tuple(p.items())) not in ran for p in v.all_params())]
    assert short["num_steps"] < 30 and short["trace"][-1]["kind"] == "revert" and left
    assert "step_count" not in failed([short])[0]
    caught_up = copy.deepcopy(short)
    for t in caught_up["trace"]:
        if t["tag"] == left[0] and t["status"] == "ok":
            t["time_ms"] = short["best"]["time_ms"]
    assert "step_count" in failed([caught_up])[0]


def test_tuning_a_variant_out_of_reach_fails_its_check(rows):
    """Real sessions have variants that fall out of reach of the best and never tune them again; a tune step
    retagged to such a variant fails tune_within_reach, and the validator's shortcut does not pass it."""
    from generator.check import reports
    from generator.sim.workbench import Workbench
    for row in rows:
        bench = Workbench(reports.task_of(row))
        fastest, best = {}, float("inf")
        for t in row["trace"]:
            behind = [tag for tag, time in fastest.items() if bench.out_of_reach(tag, time, best)]
            if t["kind"] == "tune" and behind:
                broken = copy.deepcopy(row)
                broken["trace"][t["step"] - 1]["tag"] = behind[0]
                names, report = failed([broken])
                assert "tune_within_reach" in names, qa.failures(report)
                assert not KI_CHECKS.shortcut_fn.fn(broken)
                return
            if t["status"] == "ok":
                fastest[t["tag"]] = min(fastest.get(t["tag"], t["time_ms"]), t["time_ms"])
                best = min(best, t["time_ms"])
    pytest.fail("no session tuned on with a variant out of reach: the case is not exercised")
