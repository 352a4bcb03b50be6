"""The team's clock: who waits for what.

Why: every time in an episode is made of think seconds (the duration model's, `clock`, times the team's pace, one
factor for the whole episode) and machine seconds (fixed), and an agent starts a piece of work when it is free and
the message it waits for is out. Each agent works on its own clock; `now` is the last message the whole team waits
for (a plan, leaderboard, merge, status, review, verification, verdict, and the end of a round). An assignment
(dispatch, redirect, handoff) costs its speaker's time and starts its recipient's work, nobody else's: an agent
dispatched first starts first. Each specialist builds and benchmarks on its own GPU of the task's kind (the task
states a single-tenant timing, a median of 100 runs with L2 flushed; a team sharing one GPU would queue or
contend), so a run waits only for its author: an agent's runs never overlap one another, other agents' may.
"""
from __future__ import annotations

SAY, ASSIGN, WRITE, RUN, BOARD, CLOSE = range(6)


class Timeline:
    """The clocks of `agents` agents (indexes into the episode's agent list), think time at `pace`."""

    def __init__(self, agents: int, pace: float):
        self.pace = pace
        self._clocks = [0.0] * agents
        self._now = 0.0
        self._round: list[float] = []     # the times of the steps since the last CLOSE

    def step(self, kind: int, agent: int = 0, seconds: float = 0.0, recipient: int = 0) -> float:
        """The time a step ends: SAY / ASSIGN / WRITE think `seconds` (at the model's pace: scaled here), RUN machine
        `seconds`, BOARD (the env's leaderboard) after the team's last message, CLOSE the end of a round."""
        if kind == CLOSE:           # the round's messages are out: the team waits for the last
            t = self._now = max([self._now, *self._round])
            self._round.clear()
            return t
        if kind == BOARD:
            t = self._now = self._now + self.pace * seconds
        else:
            start = self._clocks[agent] if self._clocks[agent] > self._now else self._now
            t = self._clocks[agent] = start + (seconds if kind == RUN else self.pace * seconds)
            if kind == ASSIGN:
                self._clocks[recipient] = max(self._clocks[recipient], t)
            elif kind == SAY:
                self._now = t
        self._round.append(t)
        return t
