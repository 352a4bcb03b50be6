"""Whether a row tunes a variant out of reach of its best, replayed from the row: both datasets' `tune_within_reach`.

Why one replay: kernelinfer's engineer and kernelswarm's team stop tuning a variant once its fastest measured time
is further behind the best than any tune of it can close (`Workbench.out_of_reach`); each dataset's rule replays its
own row format (a trace, a message log) through this one bookkeeping and asks the bench the same question.
"""
from __future__ import annotations

import math

from generator.check import reports
from generator.sim.workbench import Workbench


class Reach:
    """Each variant's fastest ok time and the best so far, as a replay of `row` reaches them (`best`: where the best
    starts, e.g. the baseline a team must beat); the task's bench is built only when a question needs it."""

    def __init__(self, row: dict, best: float = math.inf):
        self.row = row
        self.fastest: dict[str, float] = {}
        self.best = best
        self._bench: Workbench | None = None

    def saw(self, tag: str, time_ms: float) -> None:
        """An ok result of variant `tag` in `time_ms`."""
        if time_ms < self.fastest.get(tag, math.inf):
            self.fastest[tag] = time_ms
            self.best = min(self.best, time_ms)

    def hopeless(self, tag: str, fastest_ms: float | None = None) -> bool:
        """Whether variant `tag`, measured in this replay, is out of reach of its best: at its own fastest time, or
        at `fastest_ms` (a time of it this replay has not seen yet, no slower). A variant never measured is fair."""
        own = self.fastest.get(tag)
        if own is None:
            return False
        time_ms = own if fastest_ms is None else fastest_ms
        if time_ms <= self.best:
            return False
        if self._bench is None:
            self._bench = Workbench(reports.task_of(self.row))
        return self._bench.out_of_reach(tag, time_ms, self.best)
