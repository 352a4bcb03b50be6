"""A reviewer catches a proposer's editing mistake by reading, the more often the more skilled it is (0.6.7 caught a
typo with a fixed 0.5, so the `skill` every agent row states changed no review), and may read a wrong result one
line shows; its FAIL names that line as the edit made it."""
from __future__ import annotations

import re

import numpy as np
import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.kernelswarm import review
from generator.kernelswarm.episode import Agent, _catch_chance, simulate_episode
from generator.sim.seeding import rng_for
from generator.sim.workbench import Workbench

# quick pipelines (~0.45 typos a proposal ladder each)
_TASKS = (("moe_scatter", "h100"), ("kv_append", "h100"), ("topk_sample", "a100"), ("swiglu_act", "h100"))


def _reviewed_typos(row) -> list[tuple[float, bool]]:
    """(the reviewer's skill, whether it caught it) of each typo a proposer sent to review, from the row alone: a
    failed review says the candidate will not compile; a missed one passed a candidate that then failed to compile
    and was fixed (the author's next candidate is the same configuration)."""
    msgs = row["messages"]
    skill = next(a["skill"] for a in row["agents"] if a["role"] == "reviewer")
    passed = {m["ref"] for m in msgs if m["kind"] == "review" and m["status"] == "pass"}
    out = [(skill, True) for m in msgs if m["kind"] == "review" and "will not compile" in m["content"]]
    for i, m in enumerate(msgs):
        if m["kind"] == "result" and m["status"] == "compile_error" and m["ref"] in passed:
            cand = msgs[m["ref"]]
            after = next(x for x in msgs[i:] if x["kind"] == "candidate" and x["agent"] == cand["agent"])
            if (after["variant"], after["params"]) == (cand["variant"], cand["params"]):
                out.append((skill, False))
    return out


def test_more_skilled_reviewers_catch_a_larger_share_of_typos():
    """The draw itself: a reviewer's catch chance grows with its skill over the whole range agents are drawn in
    (0.6-1.4), a typo half the time at skill 1. Row counts cannot pin the slope in a test's budget: 1,200 pipelines
    hold ~400 reviewed typos, whose catch shares above and below skill 1 differ by 0.07-0.14 over seeds either way."""
    skills = np.linspace(0.6, 1.4, 9)
    typo = [_catch_chance(Agent("a01", "reviewer", s), "compile_error") for s in skills]
    wrong = [_catch_chance(Agent("a01", "reviewer", s), "wrong_result") for s in skills]
    assert all(b > a for a, b in zip(typo, typo[1:])) and all(b > a for a, b in zip(wrong, wrong[1:]))
    assert typo[4] == pytest.approx(0.5) and 0 < wrong[0] < typo[0] and typo[-1] < 1


def test_reviewers_both_catch_and_miss_typos_as_the_rows_show():
    typos = []
    for j, (op, gpu) in enumerate(_TASKS):
        task = make_task(op, "cuda", gpu, OPS[op].dtypes[0], OPS[op].shapes[0])
        for i in range(100):
            typos += _reviewed_typos(simulate_episode(task, "pipeline", rng_for(0, j, i)))
    caught = [c for _s, c in typos]
    assert len(caught) > 60 and 0.25 < np.mean(caught) < 0.75, (len(caught), np.mean(caught))


@pytest.fixture(scope="module")
def readable_wrongs() -> list[tuple]:
    """(fault_text, the edited source's lines, the clean source's lines, expected) of wrong-result edits a reader
    can see, over tasks whose templates have each kind's site (a rounding-down grid needs a tail: cross_attn at
    448 queries)."""
    out = []
    for op, impl, shape in (("flash_decode", "cuda", 0), ("gemm_fp16", "cuda", 0), ("triton_flash_decode", "triton", 0),
                            ("triton_rmsnorm", "triton", 0), ("cross_attn", "cuda", 1)):
        task = make_task(op, impl, "h100", OPS[op].dtypes[0], OPS[op].shapes[shape])
        bench, rng = Workbench(task), np.random.default_rng(0)
        for v in bench.variants:
            params = bench.defaults(v.tag)
            clean = bench.clean_source(v.tag, params).text
            for _ in range(4):
                out_ = bench.submit(v.tag, params, rng, fault=True, p_wrong=1.0)
                if out_.expected.kind in review.READABLE_WRONG:
                    text = review.fault_text(out_.expected, out_.source.text, clean)
                    out.append((text, out_.source.text.splitlines(), clean.splitlines(), out_.expected))
    return out


def test_a_wrong_result_review_names_the_line_the_edit_changed(readable_wrongs):
    kinds = set()
    for text, lines, clean, expected in readable_wrongs:
        assert not review.TOOL_TEXT.search(text), text
        n = int(re.match(r"computes wrong results: line (\d+) ", text)[1])
        line = lines[n - 1]
        assert line != clean[n - 1], text                       # the line it names is the one the edit changed
        kinds.add(expected.kind)
        if expected.kind == "truncated_grid":
            floor = re.search(r"sizes the grid as (.+), which rounds down", text)[1]
            assert floor in line and floor not in clean[n - 1], (text, line)
        elif expected.kind == "wrong_stride":
            after, before = re.search(r"offsets by (.+) where the layout's offset is (.+)$", text).groups()
            assert after in line and before in clean[n - 1] and after not in clean[n - 1], (text, line)
        else:
            factor = re.search(r"leaves out its (.+) factor", text)[1]
            assert factor in clean[n - 1] and factor not in line, (text, line)
    assert kinds == set(review.READABLE_WRONG), kinds
