"""kernelswarm causality: every review, verification, merge, handoff, verdict and result follows what it speaks of
and names it by `ref`; the `causality` rule reports a row where one does not."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.kernelswarm.checks import LINKS
from generator.sim.seeding import rng_for
from generator.kernelswarm.episode import simulate_episode
from generator.catalog.tasks import make_task


@pytest.fixture(scope="module")
def pipelines() -> list[dict]:
    rows = []
    for i, (op, gpu) in enumerate((("rmsnorm", "h100"), ("gemm_fp16", "a100"), ("flash_decode", "rtx_5090"))):
        task = make_task(op, "cuda", gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
        row = simulate_episode(task, "pipeline", rng_for(1, 2, i))
        rows.append({"episode_id": f"x_pipeline_{row['num_messages']}", **row})
    return rows


def test_reviews_come_between_their_candidate_and_its_result(pipelines):
    reviews = 0
    for row in pipelines:
        msgs = row["messages"]
        results = {m["ref"]: i for i, m in enumerate(msgs) if m["kind"] == "result"}
        for i, m in enumerate(msgs):
            if m["kind"] == "review":
                reviews += 1
                assert msgs[m["ref"]]["kind"] == "candidate" and m["ref"] < i
                if m["status"] == "pass":           # the env builds the very candidate the reviewer passed
                    assert results[m["ref"]] > i
                else:                               # a failed review sends it back unbuilt
                    assert m["ref"] not in results
    assert reviews >= 6


def test_every_linked_kind_has_its_ref_and_no_other_kind_does(pipelines):
    for row in pipelines:
        for i, m in enumerate(row["messages"]):
            assert ("ref" in m) == (m["kind"] in LINKS), (i, m["kind"])
        assert semantic.check("episode", row) == []


def _review(row: dict) -> int:
    return next(i for i, m in enumerate(row["messages"]) if m["kind"] == "review")


def _moved_before_its_candidate(row: dict) -> dict:
    """The first review moved to just before the candidate it judges (refs renumbered): the seed's ordering."""
    row = copy.deepcopy(row)
    msgs = row["messages"]
    i = _review(row)
    j = msgs[i]["ref"]
    order = list(range(j)) + [i] + [k for k in range(j, len(msgs)) if k != i]
    new_index = {old: new for new, old in enumerate(order)}
    row["messages"] = [msgs[k] for k in order]
    for m in row["messages"]:
        if "ref" in m:
            m["ref"] = new_index[m["ref"]]
    return row


@pytest.mark.parametrize("edit, expect", [
    (_moved_before_its_candidate, "does not name an earlier message"),
    (lambda r: r["messages"][_review(r)].update(to="lead"), "the candidate is"),
    (lambda r: r["messages"][_review(r)].update(ref=0), "is a plan, not a candidate"),
    (lambda r: r["messages"][1].update(ref=0), "links to no message"),
])
def test_the_causality_rule_names_the_broken_link(pipelines, edit, expect):
    row = copy.deepcopy(pipelines[0])
    out = edit(row)
    row = out if isinstance(out, dict) else row
    found = [m for m in semantic.check("episode", row) if m.startswith("causality: ")]
    assert found and expect in found[0], found


def test_a_status_cannot_report_results_still_to_come(pipelines):
    row = copy.deepcopy(pipelines[0])
    status = next(m for m in row["messages"] if m["kind"] == "status")
    who, rest = status["content"].split(": ", 1)
    results, rest = rest.split(" result", 1)
    status["content"] = f"{who}: {int(results) + 1} result{rest}"
    assert any(m.startswith("causality: ") and "results" in m for m in semantic.check("episode", row))
