"""One task's test bench: per-task facts, and what happens to a candidate when the harness builds and runs it.

Both simulators (kernelinfer sessions, kernelswarm episodes) submit candidates through this one place, so a
(variant, params) pair renders, compiles, fails and times the same way whoever wrote it. Rendering and the model
time are cached per (variant, params): an optimizer revisits the same candidates many times.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

from generator.catalog import calibration, perf
from generator.sim import feedback
from generator.sim.feedback import TIME_DIGITS
from generator.catalog.hardware import GPUS
from generator.kernels import Source, Style, render, triton_dot
from generator.kernels.fault_families import inject_like
from generator.kernels.faults import OK, Expected, NoFaultSite, expect_clean
from generator.kernels.retyped import retyped_mistake
from generator.catalog.ops import OPS
from generator.catalog.variants import Refusal, launch_refusal, legal_on, variants_for

# Editing mistakes a candidate can carry (fault kinds a human edit introduces), per language.
COMPILE_FAULTS = {"cuda": ("undefined_identifier", "missing_semicolon", "type_mismatch", "wrong_template_arg"),
                  "triton": ("triton_compilation_error",)}
WRONG_FAULTS = {"cuda": ("missing_syncthreads", "truncated_grid", "wrong_stride", "dropped_scale", "racy_reduction"),
                "triton": ("truncated_grid", "wrong_stride", "dropped_scale")}
# Kernels whose every dropped_scale site multiplies by a scale their templates define as `{ return 1.f; }` (the real
# per-tensor or per-channel scale is applied as `op.a_scale[0] * op.b_scale[0]` or `__half2float(op.scales[n])`,
# which no deletion reaches: faults._TIMES_SCALE takes a member scale only indexed by one name): the fp8 GEMMs'
# dequantizing path (a_k_scale, b_k_scale: gemm/ops/fp8_gemm.cuh, moe_grouped_gemm.fp8.cuh), the fp16 and int8
# GEMVs' w_scale (gemv/ops/_default.cuh, int8_gemv.cuh) and the samplers without a temperature (row_scale:
# sampler/ops/minp_sample.cuh, nucleus_sample.cuh, moe_topk_gating.cuh). Deleting `* scale` there changes nothing.
UNIT_SCALE_KERNELS = frozenset({("fp8_gemm", "cuda"), ("moe_grouped_gemm", "cuda"), ("gemv_fp16", "cuda"),
                                ("int8_gemv", "cuda"), ("minp_sample", "cuda"), ("nucleus_sample", "cuda"),
                                ("moe_topk_gating", "cuda")})
# A tune edit changes constants only and carries no mistake of its own: what its new values break (a static array
# past the 48 KB cap, shared memory or registers past a launch limit) is the clean render's outcome (expect_clean).
EDIT_FAULTS = frozenset(COMPILE_FAULTS["cuda"] + COMPILE_FAULTS["triton"] + WRONG_FAULTS["cuda"])
# Compile errors that name a limit of the variant as a launch refusal does (over_limit tells the configurations that
# hit it): a dot shape Triton refuses, static shared memory past ptxas's cap ("uses too much shared data").
LIMIT_COMPILE_ERRORS = frozenset({"triton_dot_shape", "static_smem_overflow"})


def sig(x: float, digits: int = TIME_DIGITS) -> float:
    """Round to `digits` significant digits, always returning a float (one JSON type per field). The precision
    as a `*` argument: the same text as f"{x:.{digits}g}", without formatting the spec first (~0.1 us less, on
    every measured time)."""
    return float("%.*g" % (digits, x))


def task_fields(task) -> dict:
    """The task as a row states it (sessions, episodes and holdout rows share these fields)."""
    op, gpu = OPS[task.op], GPUS[task.gpu]
    return {"op": task.op, "impl": task.impl, "gpu": task.gpu, "arch": gpu.arch, "dtype": task.dtype,
            "shape": dict(task.shape), "signature": op.signature(task.impl, task.dtype), "desc": op.desc,
            "baseline_ms": sig(perf.baseline_ms(task)), "roofline_ms": sig(perf.roofline_ms(task))}


def task_id(task) -> str:
    """Readable and unique per task: `{op}_{impl}_{gpu}_{dtype}_{8 hex of the shape}` (kernelinfer's session_id,
    every dataset's held-out task_id)."""
    shape = ",".join(f"{k}={v}" for k, v in task.shape)
    return f"{task.op}_{task.impl}_{task.gpu}_{task.dtype}_{hashlib.blake2s(shape.encode(), digest_size=4).hexdigest()}"


def holdout_row(task) -> dict:
    """A `tasks_holdout.jsonl` row: the task without a solution."""
    return {"task_id": task_id(task), **task_fields(task)}


@dataclass(slots=True)
class Outcome:
    """A submitted candidate after the harness: its source, what the tools did, and the measured time (read-only
    by convention: a frozen dataclass pays a setattr call per field, on ~55,000 submits a kernelswarm run)."""

    tag: str
    params: dict
    source: Source
    expected: Expected
    time_ms: float | None            # measured (noisy, rounded, >= roofline) when status is ok
    lines: int                       # of the source (the clock's compile time grows with it)

    @property
    def status(self) -> str:
        return self.expected.status


class Workbench:
    """Per-task facts computed once, and candidate evaluation."""

    def __init__(self, task, style: Style | None = None):
        self.task = task
        self.style = style                 # the writer's, when one engineer uses this bench (kernelinfer)
        self.gpu = GPUS[task.gpu]
        self.fields = task_fields(task)
        self.ceiling = perf.ceiling_ms(task)  # no measurement beats it (>= the roofline)
        self.variants = variants_for(task.op, task.impl, task.dtype)
        self.by_tag = {v.tag: v for v in self.variants}
        self.legal = {v.tag: legal_on(v, self.gpu, task.dtype) for v in self.variants}
        self._renders: dict[tuple, tuple[Source, Expected, float | None]] = {}
        # per (variant, params): the model time, None when the candidate cannot compile or launch here. The same in
        # every style (what the tools do with a clean render depends on its variant and params, not on how it is
        # written), so a kernelswarm candidate that the agents estimate and then write in their own styles is
        # timed once, and estimated without a render once an agent has written it.
        self._models: dict[tuple, float | None] = {}
        self._lines: dict[tuple, int] = {}   # per (variant, style): tuning changes constants' values, never lines
        self._limits: dict[tuple, bool] = {}  # (variant, params items) -> over_limit (asked again and again)
        self._refusals: dict[tuple, Refusal | None] = {}   # (variant, params items) -> refusal (over_limit, shrunk)
        self._spread: dict[str, list] = {}   # variant -> [fastest, slowest, model times not yet read or None]

    def defaults(self, tag: str) -> dict:
        return self.by_tag[tag].default_params()

    def grid(self, tag: str) -> list[dict]:
        """Every configuration of the variant's space, in product order (shared: copy one before keeping it)."""
        return _grid(self.by_tag[tag])

    def neighbours(self, tag: str, params: dict) -> list[dict]:
        """The configurations one value away from `params` in one tunable, `params` itself when none is (shared:
        copy one before keeping it)."""
        return _neighbours(self.by_tag[tag], tuple(params.items()))

    def shrunk(self, tag: str, params: dict) -> list[dict]:
        """What an engineer tries after a launch refusal (too much shared memory, too many registers or threads):
        `params` with one resource-hungry parameter at its next smaller value, pipeline stages first, then tiles, then
        the rest, most likely to fit first; only those that launch or lower the figure the refusal named (who read
        "262144 bytes of dynamic shared memory" does not change only NUM_WARPS: 0.6.4 re-sent such, refused again
        byte for byte). Empty when `params` launches: a smaller configuration cures no other failure."""
        refused = self.refusal(tag, tuple(params.items()))
        if refused is None:
            return []
        space = self.by_tag[tag].params
        out = []
        for name in sorted(space, key=lambda n: ("STAGES" not in n, "BLOCK" not in n, n)):
            value = params[name]
            below = [v for v in space[name] if isinstance(value, int) and v < value]
            if below:       # the next smaller value (a space lists its default first: (64, 128, 32))
                smaller = {**params, name: max(below)}
                hit = self.refusal(tag, tuple(smaller.items()))
                if hit is None or hit.cap == refused.cap and hit.figure < refused.figure:
                    out.append(smaller)
        return out

    def refusal(self, tag: str, items: tuple) -> Refusal | None:
        """The launch limit the configuration (params as an items tuple) hits on this GPU, None when it launches."""
        hit = self._refusals.get((tag, items), _UNKNOWN)
        if hit is _UNKNOWN:
            hit = self._refusals[tag, items] = launch_refusal(self.by_tag[tag], dict(items), self.gpu,
                                                              self.task.dtype, self.task)
        return hit

    def over_limit(self, tag: str, items: tuple) -> bool:
        """Whether the configuration (params as an items tuple) hits a launch limit on this GPU, or a dot shape
        Triton refuses (triton_dot): what an engineer who has read such a refusal of this variant can tell
        before sending another configuration of it."""
        hit = self._limits.get((tag, items))
        if hit is None:
            hit = self._limits[tag, items] = (
                self.refusal(tag, items) is not None
                or self.task.impl == "triton" and triton_dot.refuses(self.task.dtype, dict(items)))
        return hit

    def out_of_reach(self, tag: str, fastest_ms: float, best_ms: float) -> bool:
        """Whether variant `tag`, its fastest measured time `fastest_ms`, is further behind the best `best_ms` than
        any tune of it can close: further than its slowest configuration's model time over its fastest's, among
        those that launch (both clamped to the ceiling no measurement beats). A tune changes constants only, so
        such a variant cannot catch up by tuning (beyond the timing noise): an engineer stops tuning it.
        Configurations a compiler refuses for other reasons (a static array past 48 KB) count too: they only widen
        the bound. The spread is read one configuration at a time until it covers the gap (one perf-model call
        each, from the grid's ends inwards: _ends_first; the whole grid only for a variant out of reach), and the
        best's own variant never reads it. Reading more only widens the spread, so the answer is the whole grid's
        whatever the order."""
        if fastest_ms <= best_ms:
            return False
        state = self._spread.get(tag)
        if state is None:
            state = self._spread[tag] = [math.inf, 0.0, self._model_times(tag)]
        lo, hi, rest = state
        while rest is not None and not fastest_ms <= hi / lo * best_ms:
            time = next(rest, None)
            if time is None:
                rest = None
            else:
                lo, hi = min(lo, time), max(hi, time)
        state[:] = lo, hi, rest
        return not fastest_ms <= hi / lo * best_ms

    def _model_times(self, tag: str):
        """The model times of variant `tag`'s configurations that launch here, clamped to the ceiling (lazily, in
        _ends_first order)."""
        v, ceiling = self.by_tag[tag], self.ceiling
        return (max(perf.time_ms(self.task, v, p), ceiling) for p in _ends_first(v)
                if not self.over_limit(tag, tuple(p.items())))

    def model_ms(self, tag: str, params: dict) -> float | None:
        """The noiseless model time of a clean candidate, None when it cannot compile or launch here."""
        model = self._models.get((tag, tuple(params.items())), _UNKNOWN)
        return self._clean(tag, params, self.style)[2] if model is _UNKNOWN else model

    def clean_source(self, tag: str, params: dict, style: Style | None = None) -> Source:
        """The candidate as its author writes it without a mistake: what a mistake's edit changed (a reviewer's
        finding names the line that differs)."""
        return self._clean(tag, params, style or self.style)[0]

    def _clean(self, tag: str, params: dict, style: Style | None) -> tuple[Source, Expected, float | None]:
        key = (tag, tuple(params.items()), style)
        hit = self._renders.get(key)
        if hit is None:
            v = self.by_tag[tag]
            source = render(self.task, v, params, style=style)
            model = self._models.get(key[:2], _UNKNOWN)
            if model is _UNKNOWN or model is None:   # only a failure's report reads the text: a run is OK in any style
                expected = expect_clean(source, self.task, v, params)
            else:
                expected = OK
            if model is _UNKNOWN:
                model = self._models[key[:2]] = perf.time_ms(self.task, v, params) if expected.status == "ok" else None
            hit = self._renders[key] = (source, expected, model)
        return hit

    def submit(self, tag: str, params: dict, rng: np.random.Generator, *, fault: bool = False,
               p_wrong: float = 0.17, style: Style | None = None, replaces: str | None = None,
               avoid: frozenset[str] = frozenset()) -> Outcome:
        """Build and run one candidate written in `style` (default: the bench's); with `fault`, the author's edit
        carries a mistake (when one fits), made in the styled text (never pass it for a `tune` edit: constants only,
        whose new values' failures are the clean render's, see EDIT_FAULTS). `replaces`: the broken source a fix
        replaces; the fix's mistake is made only on the lines it retypes (retyped.retyped_mistake: a typo there,
        another wrong correction of the same expression; none there: the fix succeeds), and never gives the
        broken source back (the same code would build to the same result: a fix changes the broken lines).
        `avoid`: fault kinds the author has fixed before; each is passed over half the time (a new edit's
        mistake)."""
        style = style or self.style
        source, expected, model = self._clean(tag, params, style)
        lines = self._lines.get((tag, style)) or self._lines.setdefault((tag, style), _line_count(source))
        if fault and expected.status == "ok":
            if replaces is None:
                edited = self._edit_mistake(tag, params, source, rng, p_wrong, style, lines, avoid)
            else:
                edited = retyped_mistake(source, replaces, rng, partial(self._changes_result, tag=tag, params=params))
            if edited is not None and edited[0].text != replaces:
                source, expected, lines = edited
        time_ms = None
        if expected.status == "ok":
            z = calibration.clipped(rng.standard_normal())
            noisy = model * float(np.exp(calibration.noise_sigma(model) * z))
            time_ms = sig(self.ceiling if self.ceiling > noisy else noisy)       # max(noisy, ceiling)
        return Outcome(tag, dict(params), source, expected, time_ms, lines)

    def _edit_mistake(self, tag: str, params: dict, source: Source, rng: np.random.Generator, p_wrong: float, style,
                      lines: int, avoid: frozenset[str]):
        """A mistake of a random kind that has a site in `source` and changes what the candidate does
        (_changes_result); a kind in `avoid` is passed over half the time."""
        impl = self.task.impl
        kinds = list(WRONG_FAULTS[impl] if rng.random() < p_wrong else COMPILE_FAULTS[impl])
        rng.shuffle(kinds)      # the swaps (and draws) of rng.permutation(len(kinds)), without building an array
        # renders that differ only in placeholder values (one style): of any dtype with the same line count, else
        # of this dtype
        families = ((self.task.op, impl, tag, lines, style), (self.task.op, impl, tag, self.task.dtype, style))
        for kind in kinds:
            if kind == "dropped_scale" and (self.task.op, impl) in UNIT_SCALE_KERNELS:
                continue        # (before its draw: _changes_result refuses it)
            if kind in avoid and rng.random() < 0.5:
                continue
            try:
                edited = inject_like(source, kind, rng, *families)
            except NoFaultSite:
                continue
            if self._changes_result(kind, edited[1], tag, params):
                return edited
        return None

    def _changes_result(self, kind: str, expected: Expected, tag: str, params: dict) -> bool:
        """Whether a made fault changes what the candidate does: a grid that rounds down only where it leaves a
        tail uncomputed for this task and `params` (grid_tail), a wrong stride only where it moves a modelled output
        axis's addresses at this task's shape (stride_shift), a dropped scale only where the scale is not 1
        (UNIT_SCALE_KERNELS)."""
        if kind == "dropped_scale" and (self.task.op, self.task.impl) in UNIT_SCALE_KERNELS:
            return False
        return kind not in feedback.REGION_KINDS or bool(feedback.failure_region(self.task, expected,
                                                                                 self.by_tag[tag], params))

    def feedback(self, outcome: Outcome, best_ms: float | None, rng: np.random.Generator) -> str:
        """The harness report for `outcome` (the text after the RESULT line)."""
        return feedback.feedback_text(self.task, outcome.expected, outcome.time_ms, self.fields["baseline_ms"],
                                      best_ms, rng, self.by_tag[outcome.tag], outcome.params)


_UNKNOWN = object()     # a configuration not modelled yet (None is a model: it cannot run here)


def _line_count(source: Source) -> int:
    return source.text.count("\n") + 1


# A variant's configuration space is the same on every task, so its views are built once per catalog variant.
@lru_cache(maxsize=None)
def _grid(variant) -> list[dict]:
    return variant.all_params()


@lru_cache(maxsize=None)
def _ends_first(variant) -> tuple[dict, ...]:
    """The variant's grid from both ends inwards (first, last, second, second to last, ...): the first and last take
    each parameter's first and last value, so out_of_reach's spread covers a gap after fewer configurations than in
    product order (300 sessions: 7,585 model times instead of 11,459, 9,014 launch checks instead of 12,594)."""
    grid = _grid(variant)
    return tuple(grid[k // 2] if k % 2 == 0 else grid[-1 - k // 2] for k in range(len(grid)))


@lru_cache(maxsize=None)
def _neighbours(variant, config: tuple) -> list[dict]:
    params = dict(config)
    out = []
    for name, values in variant.params.items():
        i = values.index(params[name])
        for j in (i - 1, i + 1):
            if 0 <= j < len(values):
                out.append({**params, name: values[j]})
    return out or [params]


@lru_cache(maxsize=4)
def workbench(task) -> Workbench:
    """The cached bench of `task`: the kernelswarm plan puts a task's episodes next to each other, so a few
    benches are reused as much as many would be, and memory stays flat (a bench keeps every render it made)."""
    return Workbench(task)
