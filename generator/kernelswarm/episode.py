"""One kernelswarm row: a lead and specialist agents optimizing one kernel together, as a pure function.

Why rounds: agents work in parallel on a shared clock, but a team synchronizes: the lead reads everyone's
results (status, leaderboard), merges the best and re-assigns work before the next round. Within a round each
agent's turns are sequential on its own clock, from the message that gave it its work (`timeline`); the round's
messages are then put in time order, and each result's reward is computed against the shared best its agent
had been told of when it sent the candidate (`rewards`): the env announces every new shared best to the whole
team (`new_best`). Candidates, compile/launch/correctness
failures and timings come from the same `workbench` as kernelinfer, so both datasets share one physics and one
renderer. An agent's `skill` sets how often its edits break, how well it guesses which configuration is
faster before running it and, for a reviewer, how often it catches an editing mistake by reading.

A result is feedback: the team keeps one tracker of the configurations its members have written, and no agent sends one again
once it is measured or refused (only the author's fix of its own editing mistake repeats a configuration), nor,
once a variant was refused at launch, a configuration of it over the same limit, nor one of a variant measured further
behind the shared best than any tune of it can close (`hopeless`). A tune step takes an untried
neighbour, else an untried configuration further away, else of another variant; when none is left the search is
over. Some campaigns end without beating the naive baseline (a kernel
already memory-bound at the naive version, or every faster variant refused): the verdict then keeps the
baseline (`kept: "baseline"`, speedup 1.0), as real teams report it.

Causality: every message is written after what it speaks of. A result, review, verification, merge, handoff and
the verdict name the message they answer or judge by `ref`, its index in `messages`: while the episode is built
`ref` holds that message itself, and `simulate_episode` turns it into the index once the order is final.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from operator import itemgetter

import numpy as np

from generator.sim import clock, rewards
from generator.kernelswarm import review, wording
from generator.kernelswarm.timeline import ASSIGN, BOARD, CLOSE, RUN, SAY, WRITE, Timeline
from generator.sim.feedback import ms_text, result_line
from generator.kernels.style import Style, draw_style
from generator.catalog import calibration
from generator.catalog.ops import shape_label
from generator.sim.workbench import EDIT_FAULTS, LIMIT_COMPILE_ERRORS, Outcome, sig, workbench

SCENARIOS: dict[str, tuple[int, int]] = {"dispatch": (2, 8), "parallel_sweep": (4, 20), "pipeline": (3, 6),
                                         "campaign": (5, 20)}
HOURS_RANGE = (1.0, 5.0)            # every episode's horizon, as the seed's card states
HORIZON_MEDIAN_H = 2.3
ARCH_KINDS = ("arch_unsupported", "triton_fp8_unsupported")   # the GPU cannot run it: reward -0.05
LEAD_THINK_S = 45.0                  # median seconds the lead spends on a coordination message
ASSIGNMENTS = ("dispatch", "redirect", "handoff")   # the messages that give their recipient its work
# The team's pace: every think time of an episode is the duration model's (`clock`, LEAD_THINK_S) times one factor,
# drawn to aim at a horizon drawn around HORIZON_MEDIAN_H (as kernelinfer fits a session's think time to its window):
# the aim over the seconds per message such a scenario takes at the model's pace (PACE_1_S_PER_MESSAGE, the medians
# over 200 episodes) times the episode's budget of messages. Never below PACE_MIN: no team thinks faster than the
# model's medians (the `write_time` rule's floor). An episode that still lands outside HOURS_RANGE is played again
# at the pace that lands on its aim (PLAYS at most).
PACE_MIN = 1.0
PACE_1_S_PER_MESSAGE = {"dispatch": 32.0, "parallel_sweep": 20.0, "pipeline": 43.0, "campaign": 21.0}
PLAYS = 3
THINK_FLOOR_SIGMAS = 3.0
# How a lead opens its plan: engineers word it differently, and every wording names the task as `task_label` does
# (the `plan_names_task` rule reads it)
PLAN_OPENINGS = ("campaign: {task}.", "Goal: speed up {task}.", "target: {task}.", "Kicking off {task}.",
                 "next up: {task}.", "Team, we're on {task}.", "objective: beat the naive kernel of {task}.",
                 "{task}, let's make it fast.")
PLAN_WORDS = ("plan:", "Plan:", "approach:", "how:")
LAST_PUSH = 12                       # candidates a team with nothing faster than the baseline tries before conceding


@dataclass
class Agent:
    id: str
    role: str                        # lead | worker | reviewer | verifier | tuner
    skill: float
    slot: int = 0                    # its clock on the episode's timeline (its index in the agent list)
    # env results of its candidates (the row's `tries`: a candidate a reviewer sent back never ran), what its status
    # counts, as the verdict does
    results: int = 0
    kept: int = 0
    best: Outcome | None = None
    # (variant tag, configurations to work through) of the latest dispatch, redirect or handoff to it: the only
    # variant it writes, besides a pipeline proposer's `ladder`
    assignment: tuple[str, list[dict]] | None = None
    fresh: bool = False              # assigned since its last candidate: its next tune starts where it was told
    ladder: tuple[str, ...] = ()     # the variants a pipeline's proposer was told to propose, in order
    best_result: dict | None = None  # the env result message of `best`
    last_result: dict | None = None  # the env result message of the agent's latest candidate
    style: Style | None = None       # how this agent writes code, the whole episode
    last_code: str = ""              # the source of the agent's latest candidate (a fix never sends it again)
    sources: set[str] = field(default_factory=set)   # the variants it has a source of: written by it or handed to it
    fixed: frozenset[str] = frozenset()   # the kinds of editing mistake it has fixed (Workbench.submit's `avoid`)
    voice: np.random.Generator | None = None   # its choice of words (`_Episode.word`), spawned on first use

    def assign(self, tag: str, configs: list[dict]) -> None:
        """A dispatch, redirect or handoff: the variant it writes from now on, and where it starts."""
        self.assignment = (tag, list(configs))
        self.fresh = True

    def assigned(self, tag: str) -> bool:
        """Whether the lead (or, for a tuner, a handoff) gave this agent variant `tag` to write."""
        return (self.assignment is not None and self.assignment[0] == tag) or tag in self.ladder

    def row(self) -> dict:
        return {"id": self.id, "role": self.role, "skill": round(self.skill, 4), "tries": self.results,
                "kept": self.kept, "best_ms": self.best.time_ms if self.best else None}


@dataclass
class _Episode:
    task: object
    scenario: str
    rng: np.random.Generator
    agents: list[Agent] = field(default_factory=list)
    messages: list[dict] = field(default_factory=list)
    pace: float | None = None        # the team's pace (see PACE_MIN); None: `_aimed_pace`

    def __post_init__(self):
        self.wb = workbench(self.task)
        self.baseline = self.wb.fields["baseline_ms"]
        self.best: Outcome | None = None
        self.best_owner: Agent | None = None
        self.best_result: dict | None = None     # the env result message of `best`
        self.best_ms = self.baseline
        # A round's messages, each as (t, message, agent, outcome, status), the last three for env results only
        # (plain tuples: ~100,000 a run); the round's end puts them in time order, same-time ones as queued.
        self.pending: list[tuple] = []
        self.sent_best: dict[int, float] = {}    # id of a candidate written -> the shared best when it was sent
        self.notices = 0                          # new_best notices so far (`announce_best`)
        lo, hi = SCENARIOS[self.scenario]
        n = int(self.rng.integers(lo, hi + 1))
        self.lead = Agent("lead", "lead", 1.0)
        skills = self.rng.normal(1.0, 0.13, n).tolist()        # the same draws as n calls, in one
        self.agents = [self.lead] + [Agent(f"a{i:02d}", self._role(i, n), _clip(skill, 0.6, 1.4), slot=i)
                                     for i, skill in enumerate(skills, 1)]
        self.budget = _clip(round(21 + 6.2 * n + self.rng.normal(0, 6)), 20, 220)
        self.hours = _clip(float(np.exp(np.log(HORIZON_MEDIAN_H) + 0.3 * self.rng.standard_normal())),
                           HOURS_RANGE[0] + 0.02, HOURS_RANGE[1] - 0.02)     # the horizon its pace aims at
        self.slots = {agent.id: agent.slot for agent in self.agents}
        self.timeline = Timeline(len(self.agents), self.pace or self._aimed_pace())
        for agent in self.agents:          # every agent its own engineer
            agent.style = draw_style(self.rng, self.task.impl)
        self.results = self.passed = 0       # result messages so far, and the ok ones (for the verdict)
        self.board_passed = 0                # ok results when the last leaderboard was posted
        self.refused = 0                     # launch refusals so far (for the verdict)
        # the team's tracker: (tag, params items) of every candidate written, claimed by its author from the moment
        # it is written (specialists work at once: one still fixing a typo in a configuration keeps it, so another
        # does not send it in the same round; its author's fix is the only resend)
        self.sent: set[tuple] = set()
        self.refusals: list[Outcome] = []    # clean launch refusals, oldest first: what a last push shrinks
        self.fastest: dict[str, float] = {}  # each variant's fastest ok time so far (`hopeless`)
        self.launch_failed: set[str] = set()  # variants refused at launch, for a dot shape or past ptxas's static
                                              # smem cap: the team has read which limit they hit (wb.over_limit)
        self.exhausted = False               # no legal variant has a configuration left worth sending
        self.merged: Outcome | None = None   # the shared best the lead merged last
        self.repo: set[str] = set()          # the variants merged: a source of each is the team's to start from
        self.said: set[str] = set()          # the wordings said so far (`word`)

    # ------------------------------------------------------------------ setup
    def _role(self, i: int, n: int) -> str:
        if self.scenario == "pipeline":
            return {1: "worker", 2: "reviewer", 3: "verifier"}.get(i, "tuner")
        if self.scenario == "campaign" and i == n:
            return "verifier"
        return "worker"

    @property
    def specialists(self) -> list[Agent]:
        return self.agents[1:]

    def builders(self, role: str = "worker") -> list[Agent]:
        return [a for a in self.specialists if a.role == role]

    # ------------------------------------------------------------------ messages
    def _aimed_pace(self) -> float:
        """The team's pace (see PACE_MIN): its aimed horizon over what its budget of messages takes at pace 1."""
        return max(PACE_MIN, 3600 * self.hours / (PACE_1_S_PER_MESSAGE[self.scenario] * self.budget))

    def _think(self, median: float) -> float:
        """Seconds of a coordination message's thinking (at the pace of the duration model's medians)."""
        return median * float(np.exp(0.5 * self.rng.standard_normal()))

    def post(self, t: float, msg: dict, agent: Agent | None = None, outcome: Outcome | None = None,
             status: str | None = None) -> dict:
        """Queue `msg`, at `t` on the timeline, for the round's end (`close_round`), which puts it in time order."""
        msg["t"] = t
        self.pending.append((t, msg, agent, outcome, status))
        return msg

    def say(self, agent: Agent, kind: str, content: str, **extra) -> dict:
        """A coordination message (reward 0), once its speaker is free and the team's last one is out. An
        assignment (dispatch, redirect, handoff) costs its speaker's time and starts its recipient's work; the rest
        of the team does not wait for it, so a lead's round of dispatches keeps no agent from starting."""
        think = self._think(LEAD_THINK_S if agent is self.lead else 25.0)
        t = self.timeline.step(ASSIGN, agent.slot, think, self.slots[extra["to"]]) if kind in ASSIGNMENTS \
            else self.timeline.step(SAY, agent.slot, think)
        return self.post(t, {"role": agent.role, "agent": agent.id, "kind": kind, "content": content, "t": None,
                                "reward": 0.0, **extra})

    def word(self, agent: Agent, wordings: list[str]) -> str:
        """One of `wordings` (the same facts, as different engineers put them: `wording`) as `agent` says it, among
        those not said yet in the episode while any is left (people do not paste their last sentence). Drawn from the
        agent's own generator, spawned from the episode's (spawning draws nothing from it): how an agent words a
        message moves none of the episode's draws."""
        if agent.voice is None:
            agent.voice = self.rng.spawn(1)[0]
        fresh = [text for text in wordings if text not in self.said] or wordings
        text = fresh[int(agent.voice.integers(len(fresh)))]
        self.said.add(text)
        return text

    def announce_plan(self, body: str) -> None:
        """The lead's plan: an opening in its own words that names the task (`task_label`), then `body`."""
        opening = PLAN_OPENINGS[int(self.rng.integers(len(PLAN_OPENINGS)))]
        then = PLAN_WORDS[int(self.rng.integers(len(PLAN_WORDS)))]
        self.say(self.lead, "plan", f"{opening.format(task=task_label(self.wb.fields))} {then} {body}")

    def queue_candidate(self, agent: Agent, t: float, tag: str, params: dict, text: str) -> dict:
        """The agent's candidate inside a round, at its own clock (kept in time order at the round's end)."""
        return self.post(t, {"role": agent.role, "agent": agent.id, "kind": "candidate", "content": text,
                                "t": None, "reward": 0.0, "variant": tag, "params": dict(params)})

    def write(self, agent: Agent, tag: str, params: dict, kind: str,
              outcome: Outcome | None = None) -> tuple[Outcome, float, dict]:
        """The agent writes a candidate (`outcome`: one already drawn): (outcome, the machine seconds its build and
        run will take, the candidate message)."""
        if outcome is None:
            # (a tune edit, constants only, carries no mistake: what its values break is the clean render's outcome)
            fault = kind != "tune" and self.rng.random() < _fault_chance(agent)
            outcome = self.wb.submit(tag, params, self.rng, fault=fault, style=agent.style,
                                     replaces=agent.last_code if kind == "fix" else None, avoid=agent.fixed)
        agent.last_code = outcome.source.text
        # a variant the agent has no source of (its own, handed to it, merged) it writes whole, whatever the edit
        timed = kind if tag in agent.sources or tag in self.repo else "new_variant"
        agent.sources.add(tag)
        think, machine = clock.step_cost(self.rng, timed, self.task.impl, outcome.lines, outcome.expected.status,
                                         outcome.time_ms)
        t = self.timeline.step(WRITE, agent.slot, max(think, think_floor_s(timed, outcome.lines)))
        self.sent.add(_key(tag, params))
        return outcome, machine, self.queue_candidate(agent, t, tag, params, outcome.source.text)

    def run(self, agent: Agent, outcome: Outcome, machine: float, candidate: dict) -> Outcome:
        """The env builds and runs a written candidate, after anything said about it since; the result's reward
        waits for the round."""
        status = "unsupported_arch" if outcome.expected.kind in ARCH_KINDS else outcome.expected.status
        env = {"role": "env", "agent": "env", "kind": "result", "content": "", "t": None, "reward": 0.0,
               "to": agent.id, "variant": outcome.tag, "status": status, "time_ms": outcome.time_ms, "ref": candidate}
        self.post(self.timeline.step(RUN, agent.slot, machine), env, agent, outcome, status)
        agent.last_result = env
        return outcome

    def attempt(self, agent: Agent, tag: str, params: dict, kind: str) -> Outcome:
        """The agent writes a candidate and the env builds and runs it."""
        return self.run(agent, *self.write(agent, tag, params, kind))

    def close_round(self) -> None:
        """Put the round's messages in time order and score each result against the shared best its agent knew
        when it sent the candidate (`sent_best`): every new shared best is announced to the team at once
        (`announce_best`), so that is the last best the agent's chat states before its candidate."""
        wb, rng, messages = self.wb, self.rng, self.messages
        self.pending.sort(key=_pending_time)         # stable: same-time messages stay in the order they were queued
        for _, msg, agent, outcome, status in self.pending:
            if outcome is None:
                if msg["kind"] == "candidate":
                    self.sent_best[id(msg)] = self.best_ms
            else:
                time_ms = outcome.time_ms
                msg["reward"] = rewards.result_reward(status, time_ms, self.sent_best.pop(id(msg["ref"])))
                best_before = self.best_ms if self.best is not None else None
                msg["content"] = wb.feedback(outcome, best_before, rng)   # RESULT line: _stamp
                self.results += 1
                agent.results += 1
                if status == "launch_error":
                    self.refused += 1
                    if outcome.expected.kind not in EDIT_FAULTS:
                        self.refusals.append(outcome)
                        self.launch_failed.add(outcome.tag)
                elif outcome.expected.kind in LIMIT_COMPILE_ERRORS:   # the team read which limit the variant hit
                    self.launch_failed.add(outcome.tag)
                if status == "ok":
                    self.passed += 1
                    if time_ms < self.fastest.get(outcome.tag, math.inf):
                        self.fastest[outcome.tag] = time_ms
                    if time_ms < self.best_ms:
                        self.best_ms, self.best, self.best_owner, self.best_result = time_ms, outcome, agent, msg
                        agent.kept += 1
                    if agent.best is None or time_ms < agent.best.time_ms:
                        agent.best, agent.best_result = outcome, msg
            messages.append(msg)
            if msg is self.best_result:
                self.announce_best()
        if self.pending:
            self.timeline.step(CLOSE)    # the team waits for the last in time order
            self.pending.clear()

    def announce_best(self) -> None:
        """The env's notice of a new shared best to the whole team, with the result that set it, as a shared
        leaderboard service posts one: no agent acts on a best it was not told of. The team's work budget
        (`room`) does not count it."""
        b, result = self.best, self.best_result
        self.notices += 1
        self.messages.append({"role": "env", "agent": "env", "kind": "new_best", "t": result["t"], "reward": 0.0,
                              "content": f"new team best: {ms_text(b.time_ms)} ms by {self.best_owner.id} ({b.tag} "
                                         f"{params_text(b.params)}), {self.baseline / b.time_ms:.2f}x over the "
                                         f"{ms_text(self.baseline)} ms baseline",
                              "variant": b.tag, "time_ms": b.time_ms, "ref": result})

    def room(self, reserve: int) -> bool:
        return len(self.messages) - self.notices + len(self.pending) + reserve < self.budget

    def searching(self, reserve: int) -> bool:
        """Room for another round, and something left to try."""
        return not self.exhausted and self.room(reserve)

    # ------------------------------------------------------------------ choices
    def legal_tags(self) -> list[str]:
        return [v.tag for v in self.wb.variants if self.wb.legal[v.tag] and v.level > 0] or \
               [self.wb.variants[0].tag]

    def gated_tags(self) -> list[str]:
        return [v.tag for v in self.wb.variants if not self.wb.legal[v.tag]]

    def guesses(self, agent: Agent, candidates: list[tuple[str, dict]]) -> list[float]:
        """The agent's estimates of (tag, params) candidates' times, in order: the model blurred by inexperience
        (a candidate the model cannot time is guessed from the best so far). Where every candidate has a model,
        their noise is drawn and exponentiated in one call each (the same draws and values as one by one, ~1 us
        less per candidate)."""
        models = [self.wb.model_ms(tag, params) for tag, params in candidates]
        blur = 0.3 / agent.skill
        if None not in models:
            noise = np.exp(blur * self.rng.standard_normal(len(models))).tolist()
            return [model * factor for model, factor in zip(models, noise)]
        out = []
        for model in models:
            base = model if model is not None else self.best_ms * float(self.rng.uniform(0.7, 1.1))
            out.append(base * float(np.exp(blur * self.rng.standard_normal())))
        return out

    def pick(self, agent: Agent, tag: str, options: list[dict]) -> dict:
        """Of `options`, the one the agent believes fastest among the few it has time to consider (the first
        such on a tie)."""
        k = min(len(options), 1 + round(2 * agent.skill))
        considered = [options[i] for i in self.rng.choice(len(options), size=k, replace=False).tolist()]
        guesses = self.guesses(agent, [(tag, params) for params in considered])
        return considered[guesses.index(min(guesses))]

    def nearby(self, agent: Agent, tag: str, params: dict) -> tuple[str, dict] | None:
        """The agent's pick of the configurations worth sending nearest (tag, params): its neighbours, else the rest
        of the variant's space, else another legal variant of its ladder (the most advanced first); None when none
        is left. Only a pipeline's proposer was given other variants: a worker whose variant is used up waits for
        the lead to move it (`keep_busy`), a tuner for a handoff; a proposer whose ladder holds every legal variant
        ends the search."""
        options = [p for p in self.wb.neighbours(tag, params) if self.worth_sending(tag, p)]
        if options:
            return tag, self.pick(agent, tag, options)
        legal = self.legal_tags()
        for other in [tag] + [t for t in reversed(legal) if t != tag and t in agent.ladder]:
            options = [p for p in self.wb.grid(other) if self.worth_sending(other, p)]
            if options:
                return other, self.pick(agent, other, options)
        if set(legal) <= set(agent.ladder):
            self.exhausted = True
        return None

    def untried(self, tag: str) -> bool:
        """Whether variant `tag` has a configuration left worth sending."""
        return any(self.worth_sending(tag, p) for p in self.wb.grid(tag))

    def worth_sending(self, tag: str, params: dict) -> bool:
        """Not sent yet, not over the launch limit this variant was already refused for, and of a variant that can
        still catch up (`hopeless`)."""
        key = _key(tag, params)
        return key not in self.sent and not (tag in self.launch_failed and self.wb.over_limit(tag, key[1])) \
            and not self.hopeless(tag)

    def hopeless(self, tag: str) -> bool:
        """Whether variant `tag` ran and is further behind the shared best (the baseline until a result beats it)
        than any tune of it can close (wb.out_of_reach), as the team knows both after its last round: a team stops
        tuning a variant that cannot catch up, as kernelinfer's engineer does (0.6.7's leads still sent agents to
        such variants). A variant never measured is fair to try."""
        fastest = self.fastest.get(tag)
        return fastest is not None and self.wb.out_of_reach(tag, fastest, self.best_ms)

    def configs(self, tag: str) -> list[dict]:
        """Every configuration of a variant's space, in a shuffled but deterministic order."""
        grid = list(self.wb.grid(tag))
        self.rng.shuffle(grid)      # the swaps (and draws) of rng.permutation(len(grid)), without its array
        return grid

    # ------------------------------------------------------------------ shared turns
    def work(self, agent: Agent, tag: str, params: dict, kind: str, written: tuple | None = None) -> Outcome | None:
        """One candidate (`written`: one `write` already made), and a fix of the agent's own editing mistake right
        after it when there was one. A configuration not worth sending (already sent, or over a limit the variant
        was refused for) gives way to the nearest one that is (None: nothing is left); a `fix` is the author's own
        configuration again."""
        if written is None:
            if kind != "fix" and not self.worth_sending(tag, params):
                fresh = self.nearby(agent, tag, params)
                if fresh is None:
                    return None
                tag, params = fresh
            written = self.write(agent, tag, params, kind)
        agent.fresh = False
        out = self.run(agent, *written)
        if out.expected.kind in EDIT_FAULTS and self.room(4):
            agent.fixed |= {out.expected.kind}
            out = self.attempt(agent, tag, params, "fix")
        return out

    def tune_around(self, agent: Agent, tag: str, params: dict) -> Outcome | None:
        fresh = self.nearby(agent, tag, params)
        return None if fresh is None else self.work(agent, *fresh, "tune")

    def tune_assigned(self, agent: Agent) -> Outcome | None:
        """The agent tunes the variant it was assigned: around the configuration it was given right after the
        assignment (a redirect says "tune around" it), later around its own best of that variant if it has one."""
        tag, configs = agent.assignment
        mine = not agent.fresh and agent.best is not None and agent.best.tag == tag
        return self.tune_around(agent, tag, agent.best.params if mine else configs[0])

    def keep_busy(self, agents: list[Agent]) -> None:
        """Before a round, the lead moves each of `agents` whose variant has nothing left worth sending (every
        configuration sent, or the variant out of reach: `worth_sending`) to the shared best's variant, else the most
        advanced legal one, that has (a redirect saying so) and is not `crowded` by the others (else the agent sits
        the round out); where no legal variant has anything left, the search is over."""
        for agent in agents:
            done = agent.assignment[0]
            if self.untried(done):
                continue
            lead_to = ([self.best.tag] if self.best is not None else []) + list(reversed(self.legal_tags()))
            left = [t for t in lead_to if t != done and self.untried(t)]
            if not left:
                self.exhausted = True
                return
            tag = next((t for t in left if not self.crowded(t, agent, agents)), None)
            if tag is None:
                continue
            if not self.room(3):
                return
            params = self.best.params if self.best is not None and tag == self.best.tag else self.wb.defaults(tag)
            agent.assign(tag, [params])
            text = self.word(self.lead, wording.move_on(done, tag, params_text(params), self.hopeless(done)))
            self.say(self.lead, "redirect", f"{agent.id}: {text}", to=agent.id, subtask=text, variant=tag)

    def statuses(self, agents: list[Agent]) -> None:
        """Each agent's report to the lead: its env results (as the verdict counts them: a candidate a reviewer
        sent back never ran), how many of them became the shared best, its fastest."""
        for a in agents:
            if not self.room(3):
                return
            best = f"best {ms_text(a.best.time_ms)} ms ({a.best.tag})" if a.best else "no passing kernel yet"
            self.say(a, "status", f"{a.id}: {a.results} result{'s' * (a.results != 1)}, {a.kept} kept, {best}")

    def leaderboard(self) -> None:
        ranked = sorted((a for a in self.specialists if a.best), key=lambda a: (a.best.time_ms, a.id))
        lines = [f"{i}. {a.id} {ms_text(a.best.time_ms)} ms ({a.best.tag} {params_text(a.best.params)})"
                 for i, a in enumerate(ranked, 1)]
        self.post(self.timeline.step(BOARD, seconds=self._think(5.0)),
                  {"role": "env", "agent": "env", "kind": "leaderboard", "t": None, "reward": 0.0,
                   "content": "leaderboard (best time per agent):\n" + ("\n".join(lines) or "(empty)")})
        self.board_passed = self.passed

    def board_for_lead(self) -> None:
        """The lead names a result's time and settings only from what reaches it: results go to their authors and
        statuses round the time, so a leaderboard is posted first when a result has passed since the last one."""
        if self.passed != self.board_passed:
            self.leaderboard()

    def merge(self) -> None:
        if self.best is None:
            return
        self.board_for_lead()
        b, owner = self.best, self.best_owner
        text = self.word(self.lead, wording.merge(owner.id, b.tag, params_text(b.params), ms_text(b.time_ms),
                                                  f"{self.baseline / b.time_ms:.2f}", ms_text(self.baseline),
                                                  b is self.merged))
        self.merged = b
        self.repo.add(b.tag)
        self.say(self.lead, "merge", text, to=owner.id, variant=b.tag, params=dict(b.params), time_ms=b.time_ms,
                 ref=self.best_result)

    def dispatch(self, agent: Agent, tag: str, configs: list[dict], text: str) -> None:
        agent.assign(tag, configs)
        self.say(self.lead, "dispatch", f"{agent.id}: {text}", to=agent.id, subtask=text, variant=tag)

    def crowded(self, tag: str, agent: Agent, team: list[Agent]) -> bool:
        """Whether variant `tag` has no more configurations left worth sending than the others of `team` (the agents
        working this round) already on it: `agent` sent there would find nothing to send, and the lead, who reads
        the team's tracker, would have to take the order back before it acted."""
        on = sum(1 for a in team if a is not agent and a.assignment is not None and a.assignment[0] == tag)
        return sum(self.worth_sending(tag, p) for p in self.wb.grid(tag)) <= on

    def redirect(self, agent: Agent, team: list[Agent]) -> None:
        """The lead sends `agent` to tune around the shared best, unless the best's variant is `crowded`: then it
        gives no order that `keep_busy` would take back before the agent could act (one order, the one the agent
        acts on)."""
        tag, params = self.best.tag, self.best.params
        if self.crowded(tag, agent, team):
            return
        agent.assign(tag, [params])
        on = agent.last_result["variant"] if agent.last_result else None
        text = self.word(self.lead, wording.redirect(tag, params_text(params), on))
        self.say(self.lead, "redirect", f"{agent.id}: {text}", to=agent.id, subtask=text, variant=tag)

    def handoff(self, giver: Agent, tuner: Agent, kernel: Outcome, result: dict) -> None:
        """`giver` hands its passing `kernel` (measured in `result`) to `tuner`, which tunes that variant next."""
        tuner.assign(kernel.tag, [kernel.params])
        tuner.sources.add(kernel.tag)
        text = self.word(giver, wording.handoff(giver.id, tuner.id, kernel.tag, params_text(kernel.params),
                                                ms_text(kernel.time_ms)))
        self.say(giver, "handoff", text, to=tuner.id, variant=kernel.tag, params=dict(kernel.params), ref=result)

    def ensure_improvement(self) -> None:
        """A team that found nothing faster than the baseline gives its strongest builder a last push of at most
        LAST_PUSH candidates, each one worth sending (`worth_sending`): a refused configuration shrunk (fewer
        stages, a smaller tile), else the variant it guesses fastest among those not tried yet, else a neighbour of
        the fastest passing one; the lead first assigns it a variant it was not given (a dispatch). It may still end
        without an improvement."""
        agent = max(self.builders() or self.specialists, key=lambda a: a.skill)
        for _ in range(LAST_PUSH):
            if self.best is not None:
                return
            idea = self.last_idea(agent)
            if idea is None:
                return
            if not agent.assigned(idea[0]):
                text = self.word(self.lead, wording.last_push(idea[0]))
                self.dispatch(agent, idea[0], [idea[1]], text)
            self.work(agent, *idea)
            self.close_round()

    def last_idea(self, agent: Agent) -> tuple[str, dict, str] | None:
        """(tag, params, kind) of the last push's next candidate, None when it has no idea left."""
        for refused in reversed(self.refusals):
            smaller = [p for p in self.wb.shrunk(refused.tag, refused.params) if self.worth_sending(refused.tag, p)]
            if smaller:
                return refused.tag, smaller[0], "tune"
        fresh = [(t, self.wb.defaults(t)) for t in self.legal_tags() if self.worth_sending(t, self.wb.defaults(t))]
        if fresh:
            guesses = self.guesses(agent, fresh)
            return *fresh[guesses.index(min(guesses))], "new_variant"
        passing = [a.best for a in self.specialists if a.best is not None]
        fastest = min(passing, key=lambda o: o.time_ms) if passing else None
        near = self.nearby(agent, fastest.tag, fastest.params) if fastest else None
        return None if near is None else (*near, "tune")

    @property
    def speedup(self) -> float:
        return sig(self.baseline / self.best.time_ms, 4) if self.best is not None else 1.0

    def verdict(self) -> None:
        self.ensure_improvement()
        self.board_for_lead()
        b = self.best
        if b is None:
            self.keep_baseline()
            return
        speedup = self.speedup
        # the speedup it states is the ratio of the two times it prints, not the row's rounded speedup rounded again
        text = self.word(self.lead, wording.verdict(self.best_owner.id, b.tag, params_text(b.params),
                                                    ms_text(b.time_ms), f"{self.baseline / b.time_ms:.3g}",
                                                    ms_text(self.baseline), f"{self.passed}/{self.results}"))
        msg = self.say(self.lead, "verdict", text, variant=b.tag, params=dict(b.params), time_ms=b.time_ms,
                       ref=self.best_result)
        msg["reward"] = rewards.verdict_reward(speedup)

    def keep_baseline(self) -> None:
        """The verdict of a campaign that beat nothing: the naive baseline stays, for the reasons the results give."""
        passing = sorted((a for a in self.specialists if a.best), key=lambda a: (a.best.time_ms, a.id))
        if passing:
            fastest = passing[0]
            why = (f"none faster than it (fastest {ms_text(fastest.best.time_ms)} ms by {fastest.id}, "
                   f"{fastest.best.tag} {params_text(fastest.best.params)})")
        else:
            why = "none of them ran"
        refused = f"; {self.refused} refused at launch" if self.refused else ""
        opening = self.word(self.lead, wording.no_improvement(ms_text(self.baseline)))
        msg = self.say(self.lead, "verdict", f"{opening} {self.passed}/{self.results} results passed, {why}{refused}",
                       kept="baseline", time_ms=self.baseline)
        msg["reward"] = rewards.verdict_reward(1.0, improved=False)


_pending_time = itemgetter(0)


def task_label(row: dict) -> str:
    """`{op} {gpu} {shape}`: how a plan names its task (`row`: the episode's row or its workbench fields)."""
    return f"{row['op']} {row['gpu']} {shape_label(row['shape'])}"


def _key(tag: str, params: dict) -> tuple:
    """A configuration as the team's tracker holds it."""
    return tag, tuple(params.items())


def params_text(params: dict) -> str:
    """A configuration as the team's messages write it: `K=V,K=V` (the validator reads dispatches' starts so)."""
    return _items_text(tuple(params.items()))


@cache      # a run prints ~1,500 configurations ~53,000 times (leaderboards repeat every round)
def _items_text(items: tuple) -> str:
    return ",".join([f"{k}={v}" for k, v in items])


def _clip(x, lo, hi):
    """np.clip for one number, without numpy's per-call overhead (same value: no NaNs here); comparisons, not
    min(max()), which return the same object (x where it equals a bound) without two builtin calls."""
    return lo if x < lo else hi if x > hi else x


def _fault_chance(agent: Agent) -> float:
    """How often the agent's edit of a candidate carries a mistake."""
    return _clip(0.13 / agent.skill, 0.03, 0.3)


def _catch_chance(reviewer: Agent, status: str) -> float:
    """How often `reviewer` catches an editing mistake by reading (the env would report `status`): in proportion to
    its skill (0.6-1.4), a typo half the time at skill 1, a wrong result (code that reads as plausible) a quarter."""
    return (0.5 if status == "compile_error" else 0.25) * reviewer.skill



# ---------------------------------------------------------------------- scenarios
def _dispatch(ep: _Episode) -> None:
    workers = ep.builders()
    tags = ep.legal_tags()
    gated = ep.gated_tags()
    if len(tags) >= len(workers):
        picks = tags[-len(workers):]
    else:       # more agents than variants: a variant takes no more agents than it has configurations
        picks = [tags[k] for k in _round_robin_picks([len(ep.wb.grid(t)) for t in tags], len(workers))]
    if gated and ep.rng.random() < 0.35:                     # the lead overlooks an arch limit once
        picks[int(ep.rng.integers(len(picks)))] = gated[int(ep.rng.integers(len(gated)))]
    ep.announce_plan(f"split {len(set(picks))} variants across {len(workers)} agents"
                     f"{_left_out(len(workers) - len(picks))}, merge best, redirect losers")
    workers = workers[:len(picks)]
    starts: dict[str, tuple[Agent, list[dict]]] = {}     # variant -> (the agent on its defaults, the starts given)
    for w, tag in zip(workers, picks):
        if tag in starts:           # one more agent on it: a start of its own, named
            holder, given = starts[tag]
            given.append(_other_start(ep, tag, given))
            text = f"implement {tag} (start from {params_text(given[-1])}; {holder.id} takes its defaults)"
        else:
            starts[tag] = (w, [ep.wb.defaults(tag)])
            text = f"implement {tag} (start from its defaults)"
        ep.dispatch(w, tag, starts[tag][1][-1:], text)
    for w in workers:
        tag, cfgs = w.assignment
        ep.work(w, tag, cfgs[0], "new_variant")
    ep.close_round()
    ep.statuses(workers)
    while ep.searching(2 * len(workers)) and ep.best is not None:
        ep.leaderboard()
        ep.merge()
        for w in workers:
            if w is not ep.best_owner and ep.room(3):
                ep.redirect(w, workers)
        ep.keep_busy(workers)
        for w in workers:
            ep.tune_assigned(w)
        ep.close_round()
        ep.statuses(workers)
    ep.merge()
    ep.verdict()


def _parallel_sweep(ep: _Episode) -> None:
    workers = ep.builders()
    tags = ep.legal_tags()
    guesses = ep.guesses(ep.lead, [(t, ep.wb.defaults(t)) for t in tags])
    strongest_first = [t for _, _, t in sorted(zip(guesses, range(len(tags)), tags))]
    crews = _sweep_crews([(t, len(ep.wb.grid(t))) for t in strongest_first], len(workers))
    ep.announce_plan(_sweep_plan(len(workers), [(size, len(ep.wb.grid(tag))) for tag, size in crews]))
    crew_members = iter(workers)
    per_worker = max(1, min(3, (ep.budget - 3 * len(workers) - 12) // (2 * len(workers))))
    for tag, size in crews:
        grid = ep.configs(tag)
        for i in range(size):       # the slice's first configurations, as many as the round has room for
            w, part = next(crew_members), grid[i::size][:per_worker]
            ep.dispatch(w, tag, part, f"sweep {tag}: {len(part)} of {len(grid)} configs (slice {w.id})")
    for w in workers:
        if w.assignment is not None:
            tag, part = w.assignment
            for cfg in part:
                ep.work(w, tag, cfg, "tune")
    ep.close_round()
    ep.leaderboard()
    ep.merge()
    ranked = sorted((w for w in workers if w.best), key=lambda a: (a.best.time_ms, a.id))[:2]
    for w in ranked:                # (one whose best's variant is crowded is moved on by keep_busy instead)
        if not ep.crowded(w.best.tag, w, ranked):
            ep.dispatch(w, w.best.tag, [w.best.params], f"refine around your best {params_text(w.best.params)}")
    while ranked and ep.searching(len(ranked) * 3):
        ep.keep_busy(ranked)
        for w in ranked:
            ep.tune_assigned(w)
        ep.close_round()
        ep.statuses(ranked)
    ep.leaderboard()
    ep.merge()
    ep.verdict()


def _other_start(ep: _Episode, tag: str, given: list[dict]) -> dict:
    """Where the lead starts one more agent on variant `tag`, none of the starts `given` out (the defaults first): a
    real lead sets no two agents on the same configuration, so it names its pick of the defaults' neighbours not
    given, else of the rest of the variant's space (it has one left: `_round_robin_picks`)."""
    options = [p for p in ep.wb.neighbours(tag, given[0]) if p not in given] or \
              [p for p in ep.wb.grid(tag) if p not in given]
    return dict(ep.pick(ep.lead, tag, options))


def _sweep_crews(grids: list[tuple[str, int]], agents: int) -> list[tuple[str, int]]:
    """(variant, agents) of a parallel sweep over `grids` ((variant, configurations), strongest first): the strongest
    variant's configurations split among the agents, one agent per configuration at most (a lead hands no one an
    empty slice); agents left over sweep the next strongest the same way, while any variant is left."""
    crews = []
    for tag, size in grids:
        if agents == 0:
            break
        crews.append((tag, min(agents, size)))
        agents -= crews[-1][1]
    return crews


def _sweep_plan(agents: int, crews: list[tuple[int, int]]) -> str:
    """The plan of a parallel sweep of `agents` agents in `crews` ((agents, the variant's configurations), strongest
    variant first): it names every variant swept, and the agents left without a configuration."""
    if len(crews) == 1 and crews[0][0] == agents:
        return f"{agents}-agent parallel cfg sweep on strongest variant, leaderboard merge, top-2 refine"
    ranks = ["the strongest variant"] + ["the next strongest"] * (len(crews) - 1)
    split = ", ".join(f"{_counted(size, 'agent')} on {rank} ({_counted(configs, 'config')})"
                      for rank, (size, configs) in zip(ranks, crews))
    return f"{agents}-agent parallel cfg sweep, one agent per config at most: {split}" \
           f"{_left_out(agents - sum(size for size, _ in crews))}; leaderboard merge, top-2 refine"


def _left_out(idle: int) -> str:
    """What a plan adds about `idle` agents left without a configuration (none: nothing)."""
    return f", {_counted(idle, 'agent')} left without a config" if idle else ""


def _counted(n: int, noun: str) -> str:
    """`n noun`, the noun plural unless n is 1."""
    return f"{n} {noun}{'s' * (n != 1)}"


def _pipeline(ep: _Episode) -> None:
    proposer, reviewer, verifier = (ep.specialists[0], ep.specialists[1], ep.specialists[2])
    tuners = ep.builders("tuner") or [proposer]
    ep.announce_plan("proposer -> review -> verify -> tune pipeline over variants; every shared best re-checked by "
                     "the verifier before it is merged")
    ladder = ep.legal_tags()
    gated = ep.gated_tags()
    if gated and ep.rng.random() < 0.35:
        ladder.insert(int(ep.rng.integers(len(ladder) + 1)), gated[int(ep.rng.integers(len(gated)))])
    ep.dispatch(proposer, ladder[0], [], f"propose variants in order: {', '.join(ladder)}")
    proposer.ladder = tuple(ladder)
    for tag in ladder:
        if not ep.searching(10):
            break
        # the proposer, tuning alone, already went there, or measured it out of reach of the best
        if _key(tag, ep.wb.defaults(tag)) in ep.sent or ep.hopeless(tag):
            continue
        _pipeline_stage(ep, proposer, reviewer, verifier, tuners, tag)
    while ep.best is not None and ep.searching(6):           # the ladder is done: the tuners polish the winner
        _merge_verified(ep, verifier)
        polishers = _holders(ep, tuners)
        tried = [ep.tune_around(tuner, ep.best.tag, ep.best.params) for tuner in polishers]
        if all(out is None for out in tried):
            break                                             # the winner's variant holds nothing left to try
        ep.close_round()
        ep.statuses(polishers)
    _merge_verified(ep, verifier)
    ep.verdict()


def _merge_verified(ep: _Episode, verifier: Agent) -> None:
    """The lead merges the shared best once the verifier has re-checked its result (`_verify`), as the plan says:
    once, whether that verification is out already or still in the round (`pending`)."""
    said = chain(ep.messages, (queued[1] for queued in ep.pending))
    if ep.best is not None and not any(m["kind"] == "verify" and m["ref"] is ep.best_result for m in said):
        _verify(ep, verifier, ep.best_result)
    ep.merge()


def _verify(ep: _Episode, verifier: Agent, result: dict) -> None:
    """The verifier re-checks a passing result: its kernel against the fp64 reference on 3 more seeds, a pass every
    time (no kernel the workbench passes carries a fault one run can miss: a racy kernel fails its first report
    already), and its benchmark re-run, a second median of 100 runs that differs from the reported one by the
    model's run-to-run noise (`rebench`). Where the result beat an earlier shared best, it says whether the re-run
    still does: a gain within the noise is flagged."""
    who, tag, ms = result["to"], result["variant"], result["time_ms"]
    rerun = rebench(ms, float(ep.rng.standard_normal()))
    text = (f"{ep.word(verifier, wording.verify(who, tag, params_text(result['ref']['params'])))}; {ms_text(ms)} ms "
            f"reported, {ms_text(rerun)} ms on rerun ({100 * (rerun / ms - 1):+.1f}%)")
    prior = _best_before(ep, result)
    if ms < prior < ep.baseline:
        text += (f"; the rerun still beats the previous best {ms_text(prior)} ms" if rerun < prior else
                 f"; the rerun does not beat the previous best {ms_text(prior)} ms: the gain is within run-to-run noise")
    ep.say(verifier, "verify", text, to=who, status="pass", variant=tag, time_ms=ms, ref=result)


def _best_before(ep: _Episode, result: dict) -> float:
    """The shared best before env result message `result` (the baseline when none)."""
    best = ep.baseline
    for m in ep.messages:
        if m is result:
            return best
        if m["kind"] == "result" and m["status"] == "ok" and m["time_ms"] < best:
            best = m["time_ms"]
    raise ValueError("not a result of this episode")


def _pipeline_stage(ep, proposer, reviewer, verifier, tuners, tag) -> None:
    params = ep.wb.defaults(tag)
    cand = ep.wb.submit(tag, params, ep.rng, fault=ep.rng.random() < _fault_chance(proposer), style=proposer.style,
                        avoid=proposer.fixed)
    # The reviewer knows the task's GPU and reads the features the code uses: it always sends back a variant the GPU
    # lacks one for (the `review_arch` rule); what it may miss is an editing mistake, as people do.
    lacks = ep.wb.by_tag[tag].requires_for(ep.task.dtype) - ep.wb.gpu.features
    readable = cand.status == "compile_error" and cand.expected.kind in EDIT_FAULTS or \
        cand.expected.kind in review.READABLE_WRONG
    caught = bool(lacks) or readable and ep.rng.random() < _catch_chance(reviewer, cand.status)
    written = ep.write(proposer, tag, params, "new_variant", cand)    # the reviewer reads it before the env runs it
    ep.close_round()
    if caught:
        why = (f"{tag} needs {', '.join(sorted(lacks))}, which {ep.task.gpu} ({ep.wb.gpu.arch}) lacks" if lacks
               else review.fault_text(cand.expected, cand.source.text,
                                      ep.wb.clean_source(tag, params, proposer.style).text))
        ep.say(reviewer, "review", f"FAIL {proposer.id}/{tag}: {why}", to=proposer.id, status="fail", variant=tag,
               ref=written[2])
        if lacks:
            return
        proposer.fixed |= {cand.expected.kind}
        out = ep.work(proposer, tag, params, "fix")
    else:
        lines = len(written[2]["content"].splitlines())
        note = ep.word(reviewer, review.passing_notes(ep.wb.by_tag[tag], ep.task.op, params_text(params), lines,
                                                      ep.task.dtype, ep.task.gpu, ep.wb.gpu))
        ep.say(reviewer, "review", f"PASS {proposer.id}/{tag}: {note}", to=proposer.id, status="pass", variant=tag,
               ref=written[2])
        out = ep.work(proposer, tag, params, "new_variant", written)
    ep.close_round()
    if out.status != "ok":
        return
    _verify(ep, verifier, proposer.last_result)
    if ep.hopeless(tag):        # measured out of reach of the shared best: no tuner is handed what it cannot tune
        ep.statuses([proposer])
        return
    tuner = tuners[int(ep.rng.integers(len(tuners)))]
    if tuner is not proposer:
        ep.handoff(proposer, tuner, out, proposer.last_result)
    base = out
    for _ in range(int(ep.rng.integers(1, 4))):
        if not ep.searching(8):
            break
        res = ep.tune_around(tuner, base.tag, base.params)
        ep.close_round()
        if res is not None and res.status == "ok" and res.time_ms < base.time_ms:
            base = res
    ep.statuses([proposer, tuner] if tuner is not proposer else [proposer])


def _holders(ep: _Episode, tuners: list[Agent]) -> list[Agent]:
    """The tuners that polish the shared best: its author hands it to each other tuner working on another variant
    (while the budget has room for the handoff and a turn); one still on another variant sits the round out."""
    best, owner = ep.best, ep.best_owner
    for tuner in tuners:
        if tuner.role == "tuner" and not tuner.assigned(best.tag) and tuner is not owner and ep.room(4):
            ep.handoff(owner, tuner, best, ep.best_result)
    return [tuner for tuner in tuners if tuner.role != "tuner" or tuner.assigned(best.tag)]


def _campaign(ep: _Episode) -> None:
    workers = ep.builders()
    verifier = ep.builders("verifier")[0]
    tags = ep.legal_tags()
    picks = _round_robin_picks([len(ep.wb.grid(t)) for t in tags], len(workers))
    ep.announce_plan(f"fleet dispatch over {len(set(picks))} variants x cfg space on {len(workers)} agents"
                     f"{_left_out(len(workers) - len(picks))}, verifier rebench of winners")
    workers = workers[:len(picks)]
    grids = {t: ep.configs(t) for t in tags}
    crews = [picks.count(k) for k in range(len(tags))]
    dealt = [0] * len(tags)
    for w, k in zip(workers, picks):       # each variant's configurations dealt among its crew
        tag = tags[k]
        share = grids[tag][dealt[k]::crews[k]][:4]
        dealt[k] += 1
        ep.dispatch(w, tag, share, f"{tag}: {_counted(len(share), 'config')} of {len(grids[tag])}")
    for w in workers:
        tag, share = w.assignment
        ep.work(w, tag, share[0], "new_variant")
    ep.close_round()
    rnd = 1
    while ep.searching(2 * len(workers)) and ep.best is not None:
        ep.leaderboard()
        ep.merge()
        ranked = sorted(workers, key=lambda a: (a.best.time_ms if a.best else math.inf, a.id))
        for w in ranked[len(ranked) // 2:]:
            if ep.room(3):
                ep.redirect(w, workers)
        ep.keep_busy(workers)
        for w in workers:
            tag, share = w.assignment
            if len(share) > rnd and w.best is None:
                ep.work(w, tag, share[rnd], "tune")
            else:
                ep.tune_assigned(w)
        ep.close_round()
        rnd += 1
    ep.leaderboard()
    ranked = sorted((w for w in workers if w.best), key=lambda a: (a.best.time_ms, a.id))[:3]
    for w in ranked:
        rerun = rebench(w.best.time_ms, float(ep.rng.standard_normal()))
        ep.say(verifier, "verify", f"rebench {w.id}: {w.best.tag} {ms_text(w.best.time_ms)} ms reported, "
               f"{ms_text(rerun)} ms on rerun ({100 * (rerun / w.best.time_ms - 1):+.1f}%), correctness pass",
               to=w.id, status="pass", variant=w.best.tag, time_ms=w.best.time_ms, ref=w.best_result)
    ep.merge()
    ep.verdict()


def _round_robin_picks(sizes: list[int], agents: int) -> list[int]:
    """The variant (an index into `sizes`, each variant's configurations) of each of a team's agents in turn:
    dealt round-robin, a variant skipped once it has an agent per configuration, so that each agent's share of it is
    its own and not empty (a lead gives no two agents the same configuration, nor one nothing to do); agents past
    every configuration get none (the list is shorter)."""
    picks, crews = [], [0] * len(sizes)
    turn = 0
    while len(picks) < agents and sum(crews) < sum(sizes):
        k = turn % len(sizes)
        if crews[k] < sizes[k]:
            picks.append(k)
            crews[k] += 1
        turn += 1
    return picks


_PLAYS = {"dispatch": _dispatch, "parallel_sweep": _parallel_sweep, "pipeline": _pipeline, "campaign": _campaign}


def simulate_episode(task, scenario: str, rng: np.random.Generator) -> dict:
    """One episode row (DESIGN.md "Row formats"), without its id (which depends on its siblings: see ids)."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; known: {', '.join(SCENARIOS)}")
    start = copy.deepcopy(rng)      # to play it again at another pace
    ep = _played(task, scenario, rng)
    for _ in range(PLAYS - 1):
        hours = ep.messages[-1]["t"] / 3600
        if HOURS_RANGE[0] < hours < HOURS_RANGE[1]:
            break
        # outside the card's range: the same team at the pace that lands on its aim (the end is mostly think
        # time, which the pace scales)
        ep = _played(task, scenario, copy.deepcopy(start), max(PACE_MIN, ep.timeline.pace * ep.hours / hours))
    _stamp(ep)
    _link(ep.messages)
    fields = ep.wb.fields
    return {
        "scenario": scenario, "n_agents": len(ep.specialists),
        **{k: fields[k] for k in ("op", "impl", "gpu", "arch", "dtype", "shape")},
        "baseline_ms": ep.baseline, "roofline_ms": fields["roofline_ms"],
        "best_ms": ep.best.time_ms if ep.best is not None else ep.baseline,
        "speedup": ep.speedup, "elapsed_s": ep.messages[-1]["t"],
        "agents": [a.row() for a in ep.agents], "num_messages": len(ep.messages), "messages": ep.messages,
    }


def think_floor_s(kind: str, lines: int) -> float:
    """The least seconds an agent takes over a candidate of this kind and length: the duration model's median at
    PACE_MIN, THINK_FLOOR_SIGMAS deviations below (`write` holds its draws to it; the `write_time` rule checks it)."""
    return PACE_MIN * clock.think_median_s(kind, lines) * math.exp(-THINK_FLOOR_SIGMAS * clock.THINK_SIGMA)


def _played(task, scenario: str, rng: np.random.Generator, pace: float | None = None) -> _Episode:
    """The episode played out at `pace` (None: `_aimed_pace`), its last round closed."""
    ep = _Episode(task, scenario, rng, pace=pace)
    _PLAYS[scenario](ep)
    ep.close_round()
    return ep


def rebench(time_ms: float, z: float) -> float:
    """A verifier's re-measurement of a kernel reported at `time_ms` (`z` a standard normal deviate): a second
    median of 100 runs, so it differs from the first by the two measurements' noise (`calibration.noise_sigma`,
    sqrt(2) of it; deviates clipped as the workbench clips them)."""
    return time_ms * math.exp(math.sqrt(2) * calibration.noise_sigma(time_ms) * calibration.clipped(z))


def _link(messages: list[dict]) -> None:
    """Each `ref` (the message it answers, as built) becomes that message's index in the final order."""
    position = {id(m): i for i, m in enumerate(messages)}
    for m in messages:
        if "ref" in m:
            m["ref"] = position[id(m["ref"])]


def _stamp(ep: _Episode) -> None:
    """Each message's time to 0.1 s (rounding keeps the order), and each result's RESULT line, which states it."""
    for m in ep.messages:
        x = m["t"]
        x10 = x * 10
        tenths = round(x10)
        # round(x, 1), which rounds x's exact value: the same float as tenths / 10 unless x10 (rounded once)
        # lies within its rounding error of a half; there round itself decides (~2x cheaper on ~180,000 times)
        t = m["t"] = tenths / 10 if -0.49 < x10 - tenths < 0.49 else round(x, 1)
        if m["kind"] == "result":
            m["content"] = f"{result_line(t, m['status'])}\n{m['content']}"

