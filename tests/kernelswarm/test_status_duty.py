"""Nobody asks for a status: a worker or tuner that reports statuses in an episode is told in its system turn that it
reports one after each round of results, unasked (0.6.7 told workers "when asked", and tuners nothing, while
18,125 status turns followed no request); one that never reports one is told nothing about it."""
from __future__ import annotations

from generator.kernelswarm import agent_view
from tests.rows import simulated_episodes


def test_the_system_turn_states_the_status_duty_of_those_who_report():
    told = untold = 0
    for row in simulated_episodes((("rmsnorm", "cuda", "h100"),), seed=4, per_task=2):
        for agent in row["agents"][1:]:
            reports = any(m["kind"] == "status" and m["agent"] == agent["id"] for m in row["messages"])
            system = agent_view.system_turn(row, agent)["content"]
            assert (agent_view.STATUS_DUTY in system) == reports
            assert "when asked" not in system
            told += reports
            untold += not reports
    assert told >= 4 and untold >= 4
