"""A fix changes the broken lines, nothing else: a fix that carries a mistake of its own makes it on the lines it
retypes (0.6.7 drew it anywhere: 19 % of a folder's fixes also broke an unrelated line, a deleted barrier or another
operand's stride), and the `fix_follows_error` rule reports a fix that edits a line its parent had right. An
engineer who fixed a kind of mistake makes it again in a new variant half as often."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from generator.catalog.tasks import make_task
from generator.check import semantic
from generator.kernelinfer.checks import CHECKS
from generator.kernelinfer.dataset import STREAM
from generator.kernelinfer.session import simulate_session
from generator.kernels.retyped import broken_span
from generator.sim.seeding import rng_for
from generator.sim.workbench import Workbench

TASKS = (make_task("gemm_fp16", "cuda", "a10", "fp16", {"M": 4096, "N": 4096, "K": 4096}),
         make_task("gemm_fp16", "triton", "rtx_a6000", "fp16", {"M": 4096, "N": 4096, "K": 4096}),
         make_task("flash_prefill", "cuda", "h100", "fp16", {"B": 1, "H": 32, "S": 4096, "D": 128}))


def test_broken_span_is_the_changed_lines_of_the_clean_text():
    clean = "a\nb;\nc\nd\n"
    assert broken_span(clean, "a\nb\nc\nd\n") == (2, 5)            # a dropped `;`: line 2, its newline too
    assert broken_span(clean, "a\nc\nd\n") == (2, 5)               # a deleted line: its whole text
    assert broken_span(clean, "a\nB;\nC\nd\n") == (2, 7)           # two neighbouring lines


@pytest.mark.parametrize("task", TASKS, ids=lambda t: f"{t.op}_{t.impl}")
def test_a_fixs_mistake_lies_on_the_lines_its_parent_broke(task):
    """The mechanism, whichever sessions draw it: for many broken candidates B, a faulty fix replacing B differs from
    the clean render only on the lines where B does; and it does carry mistakes there (typos, other corrections)."""
    bench = Workbench(task)
    made = 0
    for v in bench.variants:
        if not bench.legal[v.tag]:
            continue
        params = bench.defaults(v.tag)
        clean = bench.submit(v.tag, params, np.random.default_rng(0)).source.text
        for seed in range(8):
            rng = np.random.default_rng(seed)
            broken = bench.submit(v.tag, params, rng, fault=True, p_wrong=0.5)
            if broken.status == "ok":
                continue
            start, end = broken_span(clean, broken.source.text)
            fix = bench.submit(v.tag, params, rng, fault=True, replaces=broken.source.text)
            assert fix.source.text != broken.source.text
            if fix.source.text != clean:
                made += 1
                at, until = broken_span(clean, fix.source.text)
                assert start <= at and until <= end, (v.tag, seed, clean[at:until], clean[start:end])
    assert made >= 5, made


@pytest.fixture(scope="module")
def row() -> dict:
    """A real session with a fix of a CUDA GEMM's wrong result."""
    task = make_task("gemm_fp16", "cuda", "h100", "fp16", {"M": 4096, "N": 4096, "K": 4096})
    for i in range(20):
        row = simulate_session(task, rng_for(0, STREAM, i))
        if any(t["kind"] == "fix" for t in row["trace"]):
            return row
    raise AssertionError("no session with a fix")


def _stray_problems(row):
    return [p for p in semantic.check("session", row) if p.startswith("fix_follows_error: ")]


def test_the_real_sessions_fixes_touch_only_the_broken_lines(row):
    assert not _stray_problems(row)
    assert CHECKS.shortcut_fn.fn(row)


def test_the_rule_reports_a_fix_that_also_edits_a_line_its_parent_had_right(row):
    row = copy.deepcopy(row)
    i = next(i for i, t in enumerate(row["trace"]) if t["kind"] == "fix")
    parent, fix = row["messages"][2 * i]["content"], row["messages"][2 * i + 2]["content"]
    lines = fix.split("\n")
    far = next(k for k in (0, len(lines) - 1) if parent.split("\n")[k] == lines[k] and lines[k])
    lines[far] = lines[far] + " "                  # plant: a second hunk, on a line the parent had right
    row["messages"][2 * i + 2]["content"] = "\n".join(lines)
    found = _stray_problems(row)
    assert found and f"fix edits line {far + 1} of its parent, which the parent had right" in found[0], found
    assert not CHECKS.shortcut_fn.fn(row)       # the validator's shortcut does not vouch for it either


def test_a_kind_fixed_before_is_made_half_as_often():
    """Same generator states, with and without the memory: the avoided kind is drawn about half as often, and the
    other kinds take its place (the edit still carries a mistake)."""
    task = TASKS[0]
    bench = Workbench(task)
    tag = bench.variants[0].tag
    params = bench.defaults(tag)
    plain, avoided = [], []
    for seed in range(120):
        plain.append(bench.submit(tag, params, np.random.default_rng(seed), fault=True).expected.kind)
    kind = max(set(plain), key=plain.count)
    for seed in range(120):
        avoided.append(bench.submit(tag, params, np.random.default_rng(seed), fault=True,
                                    avoid=frozenset({kind})).expected.kind)
    assert 0.3 * plain.count(kind) <= avoided.count(kind) <= 0.7 * plain.count(kind), (kind, plain, avoided)
    others = [len(kinds) - kinds.count(kind) - kinds.count(None) for kinds in (plain, avoided)]
    assert others[1] > others[0], others
