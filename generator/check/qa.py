"""Mechanical QA per batch: named checks registered per dataset, run over a shard's rows, one JSON report.

Why a check set: each dataset (its `checks` module) registers small functions over rows on its own `CheckSet`
with `@CHECKS.check(name, description)`; `run_checks` runs every check of a set and reports, per check,
whether it passed, how many rows failed and the first few problems. A row check returns a problem
string or None; a batch check (scope="batch") takes the list of rows and returns a list of problems.
The writer exits non-zero when any check fails, so these are the dataset's invariants, not style.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

MAX_EXAMPLES = 3


@dataclass(frozen=True)
class Check:
    name: str
    description: str
    fn: Callable
    scope: str   # "row" | "batch"


@dataclass(frozen=True)
class Shortcut:
    fn: Callable          # row -> bool
    vouches: frozenset    # the row check functions a True answer vouches for


class CheckSet:
    """One dataset's QA checks, in registration order, and the validator's optional shortcut through them."""

    def __init__(self, dataset: str):
        self.dataset = dataset
        self.checks: list[Check] = []
        self.shortcut_fn: Shortcut | None = None

    def check(self, name: str, description: str, *, scope: str = "row"):
        """Register `fn` as a check (decorator)."""
        def register(fn: Callable) -> Callable:
            self.checks.append(Check(name, description, fn, scope))
            return fn
        return register

    def shortcut(self, checks):
        """Register `fn(row) -> bool` as the validator's shortcut through `checks` (row check functions of this
        set): True must mean every one of them passes on that row, when the row is valid against the dataset's
        schema; False only means "run them". The writers' QA never takes it: its reports come from the checks."""
        def register(fn: Callable) -> Callable:
            self.shortcut_fn = Shortcut(fn, frozenset(checks))
            return fn
        return register


def run_checks(checks: CheckSet, rows: list[dict], batch: str, *, id_field: str) -> dict:
    """Run every check of `checks` over `rows`; return the batch's QA report dict."""
    results = []
    for c in checks.checks:
        if c.scope == "batch":
            problems = list(c.fn(rows))
            failed = len(problems)
        else:
            problems, failed = [], 0
            for i, row in enumerate(rows):
                try:
                    msg = c.fn(row)
                except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
                    msg = f"malformed row: {type(exc).__name__}: {exc}"
                if msg:
                    failed += 1
                    if len(problems) < MAX_EXAMPLES:
                        problems.append(f"row {i} ({row.get(id_field, '?')}): {msg}")
        results.append({"name": c.name, "description": c.description, "passed": failed == 0,
                        "failed": failed, "examples": problems[:MAX_EXAMPLES]})
    passed = sum(r["passed"] for r in results)
    return {"dataset": checks.dataset, "batch": batch, "rows": len(rows), "checks": results,
            "passed": passed, "total": len(results), "score": f"{passed}/{len(results)}"}


def failures(report: dict) -> list[str]:
    """One line per failed check of a report, for the writer's exit decision and message."""
    return [f"{report['batch']}: QA check {r['name']} failed on {r['failed']} rows: {'; '.join(r['examples'])}"
            for r in report["checks"] if not r["passed"]]
