"""One kernelinfer row: an engineer optimizing one kernel, as a pure function of (task, rng).

Why it behaves this way: real optimization sessions climb structural rewrites in order of sophistication
(naive -> vectorized -> tiled -> async pipelines -> tensor-core paths), then tune launch parameters by local
search around the best candidate with diminishing returns; an edit sometimes breaks the build or the result and
the next step fixes exactly that; an engineer sometimes reaches for a feature the GPU lacks, reads the
compiler's refusal and never tries it again; after a regression they sometimes go back to the best source.
Physics (times), sources and tool text all come from the model modules (`perf`, `kernels`, `feedback`); this
module only decides what the engineer does next and records it.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from generator.sim import clock, feedback
from generator.sim.prompt import user_prompt
from generator.kernels.style import draw_style
from generator.sim.workbench import EDIT_FAULTS, LIMIT_COMPILE_ERRORS, Outcome, Workbench, sig, task_id

MIN_STEPS, MAX_STEPS = 30, 200
MIN_HOURS, MAX_HOURS = 1.0, 5.0
# Behaviour rates. Typo-class mistakes come with structural rewrites and fixes (a rewrite of a kernel rarely
# compiles and passes first time: an assumption, docs/calibration.md); a tune edit only fails for what its values
# cause, so the step-status mix is more ok-heavy than the seed's (issue #15, numbers in docs/calibration.md).
P_FAULT = 0.5           # mean chance that a structural rewrite carries a mistake (per-session spread around it)
P_WRONG = 0.4           # ... that the mistake compiles but computes a wrong result
P_REFIX = 0.25          # ... that the fix itself carries a new mistake, on the lines it retypes (where one fits)
P_REVERT = 0.08         # chance to go back to the best source after a >3 % regression
P_ARCH_MISTAKE = 0.5    # chance to try one variant the GPU cannot run (where one exists)
P_SKIP_IDEA = 0.12      # chance to not think of a structural variant
P_EXPLORE = 0.25        # chance a tuning step works on a runner-up variant rather than the best
# Failures a smaller configuration does not cure: an edit's own mistake (fixed instead), a dot shape Triton refuses
# (its K block is already the smallest; the refused K blocks are skipped from then on: wb.over_limit).
NO_BACK_OFF = EDIT_FAULTS | {"triton_dot_shape"}

SYSTEM_PROMPT = (
    "You are a GPU kernel engineer optimizing one inference kernel for one GPU. Each turn, reply with the "
    "complete kernel source file and nothing else: no prose, no markdown fences, no explanation. The harness "
    "compiles it for the target architecture, checks it against a float64 reference within the stated "
    "tolerance, and benchmarks it; its report comes back as the next message, first line "
    "`[t+H:MM:SS] RESULT <status>` with status ok, compile_error, launch_error (compiled, the launch was refused) or wrong_result. Keep the interface the task's Signature states. "
    "The goal is the lowest time that passes the correctness check."
)


DEFAULTS = 0   # a variant's defaults are its first configuration (all_params: the first value of each)


class _Space:
    """A variant's configurations numbered in all_params order, with their one-parameter moves as numbers: the
    engineer's bookkeeping (tried, blocked, neighbours) then hashes ints, not params item tuples, on every step.
    Built once per catalog variant (_space)."""

    def __init__(self, variant):
        self.grid = tuple(variant.all_params())       # params dicts by number (shared: submit copies what it keeps)
        self.keys = tuple(tuple(p.items()) for p in self.grid)   # params item tuples, by number
        self.number = {key: i for i, key in enumerate(self.keys)}
        self.radices = tuple(len(values) for values in variant.params.values())
        self._near: dict[tuple[int, int], tuple[int, ...]] = {}   # at most 2 per configuration

    def near(self, i: int, reach: int) -> tuple[int, ...]:
        """The configurations `reach` value-index steps from configuration i in one parameter, per parameter the
        lower then the higher (all_params is a product: the last parameter varies fastest). Kept: every session
        of the variant asks about the same few configurations (its defaults' neighbourhood)."""
        moves = self._near.get((i, reach))
        if moves is None:
            found, stride = [], len(self.keys)
            for radix in self.radices:
                stride //= radix
                at = i // stride % radix
                found += [i + d * stride for d in (-reach, reach) if 0 <= at + d < radix]
            moves = self._near[i, reach] = tuple(found)
        return moves


@lru_cache(maxsize=512)   # at most one per catalog variant
def _space(variant) -> _Space:
    """The variant's numbered configurations, shared by every session."""
    return _Space(variant)


class _Engineer:
    """The decision loop over one task's workbench; `steps` is the session's history, one (kind, outcome,
    report after the RESULT line) tuple per step (a tuple: ~180K steps a run, no class to build)."""

    def __init__(self, wb: Workbench, rng: np.random.Generator):
        self.wb, self.rng = wb, rng
        self.dtype = wb.task.dtype
        if not any(wb.legal.values()):
            raise ValueError(f"{wb.task}: no {wb.task.impl} variant of {wb.task.op} can run {self.dtype} "
                             f"on {wb.task.gpu}")
        self.steps: list[tuple[str, Outcome, str]] = []
        self.best: Outcome | None = None
        self.best_number = -1                  # the best's configuration number (in its variant's _Space)
        self.per_tag: dict[str, tuple[Outcome, int]] = {}  # the fastest ok outcome of each variant, its number
        self.spaces = {v.tag: _space(v) for v in wb.variants}
        self.tried: dict[str, set[int]] = {tag: set() for tag in self.spaces}   # per variant: numbers submitted
        self.banned: set[str] = set()          # variant tags the compiler refused on this GPU
        self.launch_failed: set[str] = set()   # variant tags that hit a launch limit, a refused dot shape or
                                               # ptxas's static shared-memory cap (read why: wb.over_limit)
        self.moves: dict[tuple, list] = {}     # (tag, number, reach) -> its neighbours still untried at last ask
        self.pending: dict[str, list] = {}     # per variant: configuration numbers not yet offered by _untried
        self._ranked = False                   # whether the two orders below reflect per_tag
        self._frontier: list = []              # per_tag's (outcome, number) fastest first, less exhausted ones
        self._tag_order: list = []             # _untried's: variants that ran, fastest first, then the others
        # Legal variants in climbing order, and those whose defaults are untried: late ideas for _untried.
        self.runnable = tuple(v.tag for v in wb.variants
                              if wb.legal[v.tag] and (not v.dtypes or self.dtype in v.dtypes))
        self.ideas = list(self.runnable)
        # Session character: a few draws make each engineer different.
        self.budget = int(min(MAX_STEPS, MIN_STEPS + rng.gamma(3.5, 50.0)))
        self.patience = int(rng.integers(80, 180))
        p_fault = rng.normal(P_FAULT, 0.08)   # clipped to [0.15, 0.75] as np.clip does, without its ~3 us
        self.p_fault = 0.15 if p_fault < 0.15 else 0.75 if p_fault > 0.75 else p_fault
        self.arch_mistake = rng.random() < P_ARCH_MISTAKE
        # Fault kinds this engineer has fixed: who has just found a dropped scale or a wrong stride checks for it in
        # the next rewrite, so a new variant repeats such a kind half as often (Workbench.submit's `avoid`; 0.6.7
        # repeated a fixed fault, same report, in 7 % of its new-variant wrong results).
        self.fixed: frozenset[str] = frozenset()

    @property
    def full(self) -> bool:
        return len(self.steps) >= self.budget

    # -------------------------------------------------------------- submitting
    def _submit(self, tag: str, kind: str, number: int, *, fault: bool, replaces: str | None = None) -> Outcome:
        """Submit configuration `number` of variant `tag` and record what came back."""
        out = self.wb.submit(tag, self.spaces[tag].grid[number], self.rng, fault=fault, p_wrong=P_WRONG,
                             replaces=replaces, avoid=self.fixed)
        best = self.best
        text = self.wb.feedback(out, best.time_ms if best else None, self.rng)
        self.steps.append((kind, out, text))
        self.tried[tag].add(number)
        time_ms = out.time_ms
        if time_ms is None:
            if out.expected.status == "launch_error" or out.expected.kind in LIMIT_COMPILE_ERRORS:
                self.launch_failed.add(tag)
            return out
        if best is None or time_ms < best.time_ms:
            self.best, self.best_number = out, number
        fastest = self.per_tag.get(tag)
        if fastest is None or time_ms < fastest[0].time_ms:
            self.per_tag[tag] = out, number
            self._ranked = False
        return out

    def _step(self, tag: str, kind: str, number: int) -> Outcome:
        """Submit a new candidate; a failure caused by an edit is fixed in the following step(s). A `tune` step
        changes constants only: it carries no mistake, it fails only where its new values do (the clean render's
        outcome: a static array past the cap, a launch limit)."""
        out = self._submit(tag, kind, number, fault=kind != "tune" and self.rng.random() < self.p_fault)
        while out.expected.kind in EDIT_FAULTS and not self.full:
            self.fixed |= {out.expected.kind}
            out = self._submit(tag, "fix", number, fault=self.rng.random() < P_REFIX, replaces=out.source.text)
        return out

    def _revert(self) -> None:
        self._submit(self.best.tag, "revert", self.best_number, fault=False)

    # -------------------------------------------------------------- phases
    def climb(self) -> None:
        """Naive first, then structural variants by level; at most one arch-gated mistake, never repeated."""
        gated_done = not self.arch_mistake
        for v in self.wb.variants:
            if self.full:
                return
            if v.tag in self.banned or (v.dtypes and self.dtype not in v.dtypes):
                continue
            if not self.wb.legal[v.tag]:       # the one arch mistake, only where the tools do refuse it
                if gated_done or self.wb.model_ms(v.tag, self.wb.defaults(v.tag)) is not None:
                    continue
                gated_done = True
                self._submit(v.tag, "new_variant", DEFAULTS, fault=False)
                self._learn_arch(v)
                continue
            if v.level > 0 and self.rng.random() < P_SKIP_IDEA:
                continue                       # an idea this engineer does not have
            out = self._step(v.tag, "new_variant", DEFAULTS)
            if out.status != "ok" and out.expected.kind not in NO_BACK_OFF:
                self._back_off(v.tag, DEFAULTS)    # launch limit at the defaults

    def _learn_arch(self, variant) -> None:
        missing = variant.requires_for(self.dtype) - self.wb.gpu.features
        self.banned.update(v.tag for v in self.wb.variants if v.requires_for(self.dtype) & missing)

    def _back_off(self, tag: str, number: int) -> None:
        """After a launch failure: shrink the most resource-hungry parameter (stages, tiles, warps) once, one that
        lowers the figure the refusal named (wb.shrunk); none left untried: the engineer moves on."""
        space = self.spaces[tag]
        for smaller in self.wb.shrunk(tag, space.grid[number]):
            smaller_number = space.number[tuple(smaller.items())]
            if smaller_number not in self.tried[tag] and not self.full:
                self._step(tag, "tune", smaller_number)
                return

    def _neighbours(self, tag: str, base: int, reach: int) -> list[int]:
        """Untried one-parameter moves of `reach` index steps from configuration number `base`. The moves of a
        (tag, base, reach) are built on its first ask; later asks drop from the last answer what has been tried or
        blocked since (both only grow), in the same order."""
        where = (tag, base, reach)
        moves = self.moves.get(where)
        if not moves:
            if moves is not None:          # nothing is ever untried again
                return moves
            moves = self.spaces[tag].near(base, reach)
        tried = self.tried[tag]
        if tag in self.launch_failed:
            moves = [i for i in moves if i not in tried and not self._known_limit(tag, i)]
        else:
            moves = [i for i in moves if i not in tried]
        self.moves[where] = moves
        return moves

    def _next_move(self) -> tuple[str, int, str] | None:
        """Local search: an untried neighbour of the best, sometimes (or when the best's are exhausted) of the
        best candidate of a runner-up variant that could still catch up (_hopeless)."""
        best = self.best
        if best is not None and self.rng.random() >= P_EXPLORE:
            moves = self._moves(best.tag, self.best_number)
            if moves:
                return best.tag, moves[int(self.rng.integers(len(moves)))], "tune"
        self._rank()
        frontier = self._frontier
        while frontier:
            o, number = frontier[0]
            moves = not self._hopeless(o.tag) and self._moves(o.tag, number)
            if moves:
                return o.tag, moves[int(self.rng.integers(len(moves)))], "tune"
            del frontier[0]                    # exhausted or hopeless for good: tried, blocked and the best only grow
        return self._untried()

    def _moves(self, tag: str, number: int) -> list[int]:
        """The untried neighbours one index step away, else two."""
        return self._neighbours(tag, number, 1) or self._neighbours(tag, number, 2)

    def _rank(self) -> None:
        """Sort per_tag's outcomes by time into the frontier and _untried's variant order (again only after
        per_tag has changed)."""
        if not self._ranked:
            self._frontier = sorted(self.per_tag.values(), key=lambda fastest: fastest[0].time_ms)
            self._tag_order = [o.tag for o, _ in self._frontier] + [tag for tag in self.runnable
                                                                     if tag not in self.per_tag]
            self._ranked = True

    def _untried(self) -> tuple[str, int, str] | None:
        """Local search is exhausted: a structural variant not tried yet (a late idea), else any untried
        configuration of a legal variant that could still catch up (_hopeless), fastest variants first (skipping,
        once a variant has failed to launch, the configurations that would hit the same limit)."""
        while self.ideas and DEFAULTS in self.tried[self.ideas[0]]:   # what is tried stays tried
            del self.ideas[0]
        if self.ideas:
            return self.ideas[0], DEFAULTS, "new_variant"
        self._rank()
        for tag in self._tag_order:
            if self._hopeless(tag):
                continue
            pending = self.pending.get(tag)
            if pending is None:                # a random starting point, then the space in order
                size = len(self.spaces[tag].keys)
                start = int(self.rng.integers(size))
                pending = self.pending[tag] = [*range(start, size), *range(start)]
            tried = self.tried[tag]
            limited = tag in self.launch_failed    # _known_limit asked only where it can say yes
            while pending:                     # tried and blocked only grow: what is skipped stays skipped
                number = pending.pop()
                if number not in tried and not (limited and self._known_limit(tag, number)):
                    return tag, number, "tune"
        return None

    def _hopeless(self, tag: str) -> bool:
        """Whether variant `tag` ran and is further behind the session's best than any tune of it can close
        (wb.out_of_reach): an engineer stops tuning a variant that cannot catch up (0.6.6 tuned such variants 5-70x
        behind on 5 % of its tune steps: row audit)."""
        fastest = self.per_tag.get(tag)
        return fastest is not None and self.wb.out_of_reach(tag, fastest[0].time_ms, self.best.time_ms)

    def _known_limit(self, tag: str, number: int) -> bool:
        """True when this variant already hit a limit here (a launch refusal, LIMIT_COMPILE_ERRORS) and
        configuration `number` would hit one too."""
        return tag in self.launch_failed and self.wb.over_limit(tag, self.spaces[tag].keys[number])

    def tune(self) -> None:
        """Tune around the best with diminishing returns; stop on a stall longer than patience, or budget, or when
        every configuration it can run of a variant that could still catch up has been measured (a small space:
        the session may end before MIN_STEPS)."""
        since = 0
        while not self.full:
            if since >= self.patience and len(self.steps) >= MIN_STEPS:
                return
            move = self._next_move()
            if move is None:
                # every configuration worth running is measured: a short session re-measures its best once and
                # stops (0.6.3 resubmitted that source until MIN_STEPS, 16 times in a row: row audit)
                if len(self.steps) < MIN_STEPS and self.best is not None:
                    self._revert()
                return
            before = self.best
            tag, number, kind = move
            out = self._step(tag, kind, number)
            since = 0 if self.best is not before else since + 1
            if out.status != "ok" and out.expected.kind not in NO_BACK_OFF:
                self._back_off(tag, number)
            elif (out.status == "ok" and out.time_ms > 1.03 * self.best.time_ms and not self.full
                  and self.rng.random() < P_REVERT):
                self._revert()


def simulate_session(task, rng: np.random.Generator) -> dict:
    """One session row (DESIGN.md "Row formats"); a pure function of the task and the generator's state."""
    # not the shared cache: one session per task, its renders go with it; one engineer, one style all session
    wb = Workbench(task, draw_style(rng, task.impl))
    eng = _Engineer(wb, rng)
    eng.climb()
    eng.tune()
    if eng.best is None:
        raise ValueError(f"{task}: no candidate compiled, launched and passed in {len(eng.steps)} steps")
    steps = eng.steps
    impl = task.impl
    draws = [clock.step_draws(rng, kind, impl, out.lines, out.expected.status, out.time_ms)
             for kind, out, _text in steps]
    lo = 3600 * (MIN_HOURS + 0.03 + 0.25 * rng.random())
    hi = 3600 * (MAX_HOURS - 0.02 - 0.3 * rng.random())
    stamps = clock.schedule(draws, min_total_s=lo, max_total_s=hi)
    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": user_prompt(task, wb.fields)}]
    trace = []
    running = float("inf")
    attempts = 0
    best, best_step = eng.best, None
    for i, ((kind, out, text), t) in enumerate(zip(steps, stamps), 1):
        status, time_ms = out.expected.status, out.time_ms
        messages += ({"role": "assistant", "content": out.source.text},
                     {"role": "user", "content": f"{feedback.result_line(t, status)}\n{text}"})
        attempts += status == "ok"
        kept = time_ms is not None and time_ms < running
        if kept:
            running = time_ms
        if out is best:                    # each submit is its own Outcome: one step is the best
            best_step = i
        trace.append({"step": i, "tag": out.tag, "kind": kind, "params": out.params, "status": status,
                      "time_ms": time_ms, "kept": kept})
    fields = wb.fields
    return {
        "session_id": task_id(task), **fields,
        "best": {"step": best_step, "time_ms": best.time_ms, "speedup": sig(fields["baseline_ms"] / best.time_ms, 4)},
        "attempts": attempts,
        "elapsed_s": float(stamps[-1]), "elapsed_hms": clock.hms(stamps[-1]),
        "num_steps": len(steps), "messages": messages, "trace": trace,
    }
