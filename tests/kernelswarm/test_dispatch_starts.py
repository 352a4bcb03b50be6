"""A dispatch scenario's lead tells each agent where it starts, and that is what the agent sends first.

With fewer variants than agents the lead dealt variants round-robin and told every agent on a variant to "implement
X (start from its defaults)" (43 of 64 dispatch episodes of a 300-episode folder, 126 dispatches more than the
variants); only the first sent the defaults, the others, finding them taken, a neighbour no message named. Now the
lead starts each further agent on a variant from a configuration of its own, named in the dispatch (its pick of
the defaults' neighbours), and the `dispatch_starts` rule reports a start told to two agents or one its agent does
not send first."""
from __future__ import annotations

import copy
import re

import pytest

from generator.catalog.ops import OPS
from generator.catalog.tasks import make_task
from generator.check import semantic
from generator.kernelswarm.checks import row_checks_pass
from generator.kernelswarm.episode import simulate_episode
from generator.sim.seeding import rng_for
from generator.sim.workbench import Workbench

# (op, gpu, dtype, shape) with 3 or 4 legal variants for the dispatch scenario's 2-8 agents (minp_sample: one of
# 3 configurations)
FEW_VARIANTS = (("flash_decode", "rtx_a6000", "fp16", {"B": 1, "H": 32, "D": 128, "T": 32768, "P": 16}),
                ("minp_sample", "a10", "fp32", OPS["minp_sample"].shapes[0]))
_START = re.compile(r"^implement (\S+) \(start from (?:its defaults\)|(\S+); (\S+) takes its defaults\))$")


@pytest.fixture(scope="module")
def episodes() -> list[tuple[Workbench, dict]]:
    out = []
    for i, (op, gpu, dtype, shape) in enumerate(FEW_VARIANTS):
        task = make_task(op, "cuda", gpu, dtype, dict(shape))
        wb = Workbench(task)
        for j in range(10):
            row = simulate_episode(task, "dispatch", rng_for(7, i, j))
            out.append((wb, {"episode_id": f"x_dispatch_{row['num_messages']}", **row}))
    return out


def _text(params: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())


def _starts(wb: Workbench, row: dict) -> list[tuple[dict, str, str | None]]:
    """(dispatch, the configuration it names as its agent's start, the agent it says holds the defaults) in order."""
    out = []
    for m in row["messages"]:
        said = m["kind"] == "dispatch" and _START.match(m["subtask"])
        if said:
            assert said[1] == m["variant"], m
            out.append((m, said[2] or _text(wb.defaults(m["variant"])), said[3]))
    return out


def _first_candidate(row: dict, after: dict) -> dict:
    msgs = row["messages"]
    return next(m for m in msgs[msgs.index(after):] if m["kind"] == "candidate" and m["agent"] == after["to"])


def test_every_agent_sends_first_the_start_it_was_told_and_no_two_share_one(episodes):
    named = 0
    for wb, row in episodes:
        starts = _starts(wb, row)
        assert len(starts) == row["n_agents"], [m["subtask"] for m, _c, _h in starts]
        told = [(m["variant"], config) for m, config, _holder in starts]
        assert len(set(told)) == len(told), told
        on_defaults = {m["variant"]: m["to"] for m, _config, holder in starts if holder is None}
        for m, config, holder in starts:
            first = _first_candidate(row, m)
            assert (first["variant"], _text(first["params"])) == (m["variant"], config), (m["subtask"], first)
            if holder is not None:
                named += 1
                assert holder == on_defaults[m["variant"]], (m["subtask"], on_defaults)
        assert _rule(row) == [] and row_checks_pass(row)
    assert named >= 20, named


def _rule(row: dict) -> list[str]:
    return [p for p in semantic.check("episode", row) if p.startswith("dispatch_starts: ")]


def _named_start(episodes) -> tuple[Workbench, dict, dict, str]:
    """A copy of an episode, its first dispatch naming a start other than the defaults, and that start."""
    wb, row = next((wb, r) for wb, r in episodes if any(h for _m, _c, h in _starts(wb, r)))
    row = copy.deepcopy(row)
    m, config, _holder = next(s for s in _starts(wb, row) if s[2])
    return wb, row, m, config


def test_the_rule_reports_a_start_told_to_two_agents(episodes):
    wb, row, m, _config = _named_start(episodes)
    holder = _START.match(m["subtask"])[3]
    m["subtask"] = f"implement {m['variant']} (start from its defaults)"
    m["content"] = f"{m['to']}: {m['subtask']}"
    found = _rule(row)
    defaults = _text(wb.defaults(m["variant"]))
    assert found and f"{m['to']} is told to start {m['variant']} from {defaults}, as {holder} was" in found[0], found
    assert not row_checks_pass(row)


def test_the_rule_reports_a_start_its_agent_does_not_send_first(episodes):
    wb, row, m, config = _named_start(episodes)
    told = {c for _m, c, _h in _starts(wb, row)}
    other = next(_text(p) for p in wb.grid(m["variant"]) if _text(p) not in told)
    m["subtask"], m["content"] = m["subtask"].replace(config, other), m["content"].replace(config, other)
    found = _rule(row)
    assert found and f"{m['to']} was told to start {m['variant']} from {other}, but its candidate is " \
                     f"{m['variant']} {config}" in found[0], found
    assert not row_checks_pass(row)
