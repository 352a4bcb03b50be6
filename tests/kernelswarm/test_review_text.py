"""A failed review speaks from the source it read: no compiler ran on the candidate it sends back, so it quotes no
diagnostic (the 600-episode audit: 30 of 37 failed reviews quoted nvcc's `x.cu(264): error: ...` or Triton's bare
`at 27:58:`), and the line it names holds the mistake; the `review_quotes` rule reports a row where one does not."""
from __future__ import annotations

import copy
import re

import pytest

from generator.check import semantic
from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import simulate_episode
from generator.kernelswarm.review import TOOL_TEXT
from generator.sim.seeding import rng_for


@pytest.fixture(scope="module")
def pipelines() -> list[dict]:
    rows = []
    for op, impl in (("flash_decode", "cuda"), ("fused_qkv_rope", "triton")):
        task = make_task(op, impl, "h100", OPS[op].dtypes[0], OPS[op].shapes[0])
        for i in range(45):
            row = simulate_episode(task, "pipeline", rng_for(7, 3, i))
            rows.append({"episode_id": f"x_pipeline_{row['num_messages']}", **row})
    return rows


def _failed_builds(rows):
    """(row, review, the candidate's source lines) of every review that rejects a candidate as not compiling."""
    for row in rows:
        for m in row["messages"]:
            if m["kind"] == "review" and "will not compile" in m["content"]:
                yield row, m, row["messages"][m["ref"]]["content"].splitlines()


def _holds(finding: str, lines: list[str]) -> bool:
    """Whether the source shows the mistake the reviewer names."""
    if m := re.fullmatch(r"line (\d+) uses (\w+), which is declared nowhere", finding):
        return re.search(rf"\b{m[2]}\b", lines[int(m[1]) - 1]) is not None
    if m := re.fullmatch(r"line (\d+) lacks its closing ';'", finding):
        return not lines[int(m[1]) - 1].rstrip().endswith((";", "{", "}"))
    if m := re.fullmatch(r"line (\d+) passes template arguments .*", finding):
        return "<" in lines[int(m[1]) - 1]
    if m := re.fullmatch(r"the kernel uses (\w+), which it never defines", finding):
        return any(re.search(rf"\b{m[1]}\b", x) for x in lines)
    return finding == "a tl.arange range is not a power of 2"


def test_failed_reviews_name_the_mistake_in_the_source_they_read(pipelines):
    kinds = set()
    for row, review, lines in _failed_builds(pipelines):
        assert not TOOL_TEXT.search(review["content"]), review["content"]
        finding = review["content"].split("will not compile: ", 1)[1]
        assert _holds(finding, lines), (finding, row["impl"])
        kinds.add(re.sub(r"\d+|(?<=uses )\w+", "", finding))
        assert semantic.check("episode", row) == [] and row_checks_pass(row)
    assert len(kinds) >= 3, kinds


@pytest.mark.parametrize("quote", ['flash_decode_vectorized.cu(210): error: identifier "lanch_plan" is undefined',
                                   "at 27:58:", "1 error detected in the compilation of \"x.cu\"."])
def test_the_review_quotes_rule_reports_a_quoted_diagnostic(pipelines, quote):
    row, review, _lines = next(_failed_builds(pipelines))
    row = copy.deepcopy(row)
    planted = next(m for m in row["messages"] if m["content"] == review["content"])
    planted["content"] = f"{review['content'].split(': will not compile: ')[0]}: will not compile: {quote}"
    found = [m for m in semantic.check("episode", row) if m.startswith("review_quotes: ")]
    assert found and "never ran" in found[0]
    assert not row_checks_pass(row)
