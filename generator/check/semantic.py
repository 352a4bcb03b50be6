"""Cross-field rules of the row formats, for any file: the invariants a schema cannot express.

The dataset invariants (step and message counts, timestamps, best and speedup, kept flags, rewards recomputed,
times >= roofline, arch gating) are written once, as the row checks of each dataset's `CheckSet`, which the
writers run per batch; `check` runs the same functions on one row of any file, so a downloaded or hand-edited
file is held to exactly what generation guarantees. Rules every task-bearing row shares (the task exists in the
catalog; the naive baseline is not faster than the roofline) live here.

A dataset may register a shortcut through its checks (`CheckSet.shortcut`): one pass over a row that says
yes for nearly every row, instead of one pass per check. Only where it says no do the checks run, so every
message still comes from the check itself.

Not rerun here (QA_ONLY): checks the schema and the number-type rule already make (running them twice would
only cost time), and the content-style check of assistant turns, which scans every kernel source (four times
the cost of parsing the row) and is no cross-field invariant; the writers still run all of them per batch.
"""
from __future__ import annotations

import functools
from typing import Callable, NamedTuple

from generator import registry
from generator.check import qa
from generator.catalog.models import model_shapes_of
from generator.catalog.ops import OPS

QA_ONLY = frozenset({
    "number_types",          # = schemas.number_problems
    "arch_matches_gpu",      # = the schema's gpu -> arch rule
    "assistant_code_only",   # content style, scans all source text
})
_ROW_ERRORS = (KeyError, TypeError, IndexError, ValueError, AttributeError, ZeroDivisionError)


Rule = tuple[str, Callable[[dict], "str | None"]]   # (name, row -> problem or None)


class Rules(NamedTuple):
    """The rules of one schema, and the dataset's shortcut (see `CheckSet.shortcut`), if it has one: when
    the shortcut says yes, only the rules it does not vouch for still run."""

    all: tuple[Rule, ...]
    shortcut: Callable[[dict], bool] | None = None
    unvouched: tuple[Rule, ...] = ()


def check(schema: str, row: dict) -> list[str]:
    """Messages for every rule `row` (already valid against `schema`) breaks, each naming its rule."""
    return run(rules_for(schema), row)


def run(rules: Rules, row: dict) -> list[str]:
    """`check` with the rules already looked up (a scan looks them up once, not once per row)."""
    todo = rules.all
    if rules.shortcut is not None:
        try:
            if rules.shortcut(row):
                todo = rules.unvouched
        except _ROW_ERRORS:     # the rules themselves say what cannot be checked
            pass
    out = []
    for name, rule in todo:
        try:
            message = rule(row)
        except _ROW_ERRORS as exc:
            message = f"cannot be checked: {type(exc).__name__}: {exc}"
        if message:
            out.append(f"{name}: {message}")
    return out


def rules_for(schema: str) -> Rules:
    """The rules for rows of `schema`: its dataset's row checks as registered *now* (a check registered or
    removed later is seen, so no stale rule outlives a change to the check set)."""
    dataset = registry.by_schema(schema)
    if dataset is None:
        return _rules(schema, (), None)
    return _rules(schema, tuple(dataset.checks.checks), dataset.checks.shortcut_fn)


@functools.lru_cache(maxsize=16)
def _rules(schema: str, checks: tuple, shortcut: qa.Shortcut | None) -> Rules:
    rules = [("task_in_catalog", task_in_catalog)]
    if schema in ("session", "task"):
        rules.append(("baseline_above_roofline", baseline_above_roofline))
    rules += [(c.name, c.fn) for c in checks if c.scope == "row" and c.name not in QA_ONLY]
    if shortcut is None:
        return Rules(tuple(rules))
    return Rules(tuple(rules), shortcut.fn, tuple(r for r in rules if r[1] not in shortcut.vouches))


def task_in_catalog(row: dict) -> str | None:
    """The op exists, offers this impl and dtype, and the shape is one of the op's own or model shapes."""

    op = OPS.get(row["op"])
    if op is None:
        return f"unknown op {row['op']!r}"
    if row["impl"] not in op.impls:
        return f"{row['op']} has no {row['impl']} implementation (has {', '.join(op.impls)})"
    if row["dtype"] not in op.dtypes:
        return f"{row['op']} does not take {row['dtype']} (takes {', '.join(op.dtypes)})"
    if row["shape"] not in op.shapes and row["shape"] not in model_shapes_of(row["op"]):
        keys = ",".join(op.shapes[0])
        return f"shape {row['shape']} is not one of {row['op']}'s shapes (keys {keys})"
    return None


def baseline_above_roofline(row: dict) -> str | None:
    """No kernel beats the roofline, the naive baseline included."""
    if row["baseline_ms"] < row["roofline_ms"]:
        return f"baseline_ms {row['baseline_ms']} is below roofline_ms {row['roofline_ms']}"
    return None
