"""Leads word their plans as differently as engineers do (every plan used to open with `campaign:`), drawn from the
episode's generator, and every wording still names the task as `{op} {gpu} {shape}`: the `plan_names_task` rule
reports a plan that does not."""
from __future__ import annotations

import copy

import pytest

from generator.check import semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import task_label
from rows import simulated_episodes

TASKS = (("rmsnorm", "cuda", "h100"), ("gemm_fp16", "cuda", "a100"), ("flash_decode", "triton", "rtx_5090"))


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    return simulated_episodes(TASKS, seed=11, per_task=2)


def _plan(row: dict) -> dict:
    return next(m for m in row["messages"] if m["kind"] == "plan")


def test_leads_open_their_plans_in_different_words_that_name_the_task(rows):
    openings = set()
    for row in rows:
        opening, label, body = _plan(row)["content"].partition(task_label(row))
        assert label and body, _plan(row)["content"]
        openings.add(opening)
        assert row_checks_pass(row) and not [p for p in semantic.check("episode", row) if "plan" in p]
    assert len(openings) >= 5, openings


def test_the_rule_reports_a_plan_that_names_another_task(rows):
    row = copy.deepcopy(rows[0])
    plan = _plan(row)
    plan["content"] = plan["content"].replace(f" {row['gpu']} ", " a100 " if row["gpu"] != "a100" else " h100 ")
    found = [p for p in semantic.check("episode", row) if p.startswith("plan_names_task: ")]
    assert found and f"does not name the task {task_label(row)!r}" in found[0], found
    assert not row_checks_pass(row)
