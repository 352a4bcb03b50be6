"""The numbers inside a harness report, recomputed from the task: what a GPU engineer reading one would check.

A benchmark report's time is the step's, its speedups divide the row's baseline and the best before it, its GB/s
and TFLOPS are the op's minimum bytes and flops over that time against this GPU's peaks; a correctness report
names the task's tolerance, counts the op's output elements (`correctness.output_elements`), its mismatches and
indices lie inside them, a pass meets its own criterion and a failure breaks it; a launch refusal quotes this GPU's
limits. Shared by both datasets' QA (kernelinfer steps, kernelswarm results), so any file is held to it.
"""
from __future__ import annotations

import re

from generator.catalog import perf
from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.catalog.tasks import Task
from generator.catalog.variants import variants_for
from generator.kernels import Source, full_params
from generator.kernels.faults import expect_clean
from generator.sim import correctness, grid_tail, stride_shift
from generator.sim.feedback import ms_text

# the benchmark's three lines: time, speedups, achieved figures (memory- or compute-bound wording)
_BENCHMARK = re.compile(r"^time: (\S+) ms \(median of 100 runs\)\nspeedup: (\S+)x vs baseline \((\S+) ms\)"
                        r"(?:, (\S+)x vs best so far \((\S+) ms\))?\nachieved: (.*)$", re.M)
_OK_FLOAT = re.compile(r"^correctness: ok \(max_abs_err = (\S+), max_rel_err = (\S+); atol = (\S+), rtol = (\S+)\)$", re.M)
_OK_COUNT = re.compile(r"^correctness: ok \((?:bit-exact|ids): (\d+) / (\d+) ", re.M)
_FAIL_FLOAT = re.compile(r"^  max_abs_err = (\S+) \(atol = (\S+)\), max_rel_err = (\S+) \(rtol = (\S+)\)$", re.M)
_FAIL_COUNT = re.compile(r"^  (?:mismatches|ids): (\d+) / (\d+) (?:differ )?\(([0-9.]+)%\), "
                         r"first (?:bad index:|at index) (\d+)(?:;|$)", re.M)
# where the mismatches lie (correctness.failed_text): the last indices of an output axis (a grid that rounds down
# leaves them), or all of its indices but the first (a moved address); where the axis repeats
_TAIL = re.compile(r"wrong only in the last (\d+) of (\d+) (\w+)(?: in each of (\d+) (\w+))?")
_ALL_BUT_FIRST = re.compile(r"wrong in all but the first of (\d+) (\w+)(?: in each of (\d+) (\w+))?")
_RATIO = re.compile(r"out / ref = (\S+) at the first mismatch")    # a dropped scale's (correctness.failed_text)
_RERUNS = re.compile(r"varies run to run \(3 reruns: (\d+), (\d+), (\d+) mismatches\)")
_RUNTIME = re.compile(r"^RuntimeError: CUDA error: (.*)\Z", re.M)
# what cudaGetErrorString returns for each error a refused launch gets (cudaErrorInvalidValue,
# cudaErrorInvalidConfiguration, cudaErrorLaunchOutOfResources, cudaErrorNotSupported; printed by CUDA 13's runtime)
CUDA_LAUNCH_ERRORS = frozenset({"invalid argument", "invalid configuration argument",
                                "too many resources requested for launch", "operation not supported"})
_TRITON_SMEM = re.compile(r"Required: (\d+), Hardware limit: (\d+)\.")


def problem(task, status: str, body: str, time_ms: float | None, baseline_ms: float, best_ms: float | None,
            config: tuple[str, dict, str] | None = None) -> str | None:
    """What is false in the report `body` (the text after its RESULT line) of a step of `task` with this status
    and measured time, given the row's baseline and the best time before it (None where the report names none);
    `config`, the step's (variant tag, params, source): a CUDA refusal prints no figures, so its error string is
    held to what the configuration's launch hits (faults.expect_clean)."""
    if status == "ok":
        return _benchmark(task, body, time_ms, baseline_ms, best_ms) or _passed(task, body)
    if status == "wrong_result":
        return _failed(task, body)
    if status == "launch_error":
        return _refusal(task, body, config)
    return None


def _near(said: str, value: float, decimals: int) -> bool:
    """`said` is `value` printed with `decimals` decimals (one unit of the last place of slack for rounding)."""
    return abs(float(said) - value) <= 10.0 ** -decimals * 1.01


def _benchmark(task, body: str, time_ms: float, baseline_ms: float, best_ms: float | None) -> str | None:
    """The benchmark lines, against the same figures formatted as the report prints them (times to their recorded
    significant digits, `ms_text`; speedups 2 decimals, GB/s 0, percentages 1, TFLOPS 2 or 1)."""
    said = _BENCHMARK.search(body)
    if said is None:
        return "an ok report without its time, speedup and achieved lines"
    time, speedup, baseline, best_speedup, best, achieved = said.groups()
    if time != ms_text(time_ms) or float(time) != time_ms:      # the speedups below divide time_ms
        return f"reports {time} ms, measured {time_ms} ms"
    if (speedup, baseline) != ("%.2f" % (baseline_ms / time_ms), ms_text(baseline_ms)):
        return f"speedup {speedup}x vs baseline ({baseline} ms) is not {baseline_ms} / {time_ms}"
    if best_ms is None and best is not None or best_ms is not None and (best_speedup, best) != (
            "%.2f" % (best_ms / time_ms), ms_text(best_ms)):
        return f"{best_speedup}x vs best so far ({best} ms): the best before it is {best_ms} ms"
    bandwidth, tflops, compute, bound = perf.achieved_values(task, time_ms)
    dram, unit = GPUS[task.gpu].dram_gbps, perf.rate_unit(task)
    if bound == "memory":
        want = "%.0f GB/s = %.1f%% of peak DRAM bandwidth (%.0f GB/s); %.2f %s" % (
            bandwidth * dram, 100 * bandwidth, dram, tflops, unit)
    else:
        want = "%.1f %s = %.1f%% of peak; %.0f GB/s = %.1f%% of peak DRAM bandwidth" % (
            tflops, unit, 100 * compute, bandwidth * dram, 100 * bandwidth)
    if achieved != want:
        return f"achieved {achieved!r}: the op's bytes and flops over {time_ms} ms are {want!r}"
    return None


def _passed(task, body: str) -> str | None:
    n = correctness.output_elements(task)
    if task.op in correctness.EXACT_OPS or task.op in correctness.ID_OPS:
        said = _OK_COUNT.search(body)
        if said is None or said[1] != "0" or int(said[2]) != n:
            return f"a pass of {task.op} must compare its {n} output elements exactly with none differing"
        return None
    said = _OK_FLOAT.search(body)
    if said is None:
        return "an ok report without its correctness line"
    err, rel, atol, rtol = map(float, said.groups())
    if (atol, rtol) != correctness.TOLERANCES[task.dtype]:
        return _tolerance_named(task, atol, rtol)
    if not (rel > 0 and err > 0):
        return "a rounded float result reports no error at all"
    if err > (atol + rtol * err / rel) * 1.001:      # |ref| of the worst element = err / rel
        return f"passes with max_abs_err {err:g} over its own bound atol + rtol * |ref| = {atol + rtol * err / rel:.4g}"
    return None


def _failed(task, body: str) -> str | None:
    n = correctness.output_elements(task)
    said = _FAIL_COUNT.search(body)
    if said is None:
        return "a wrong result without its mismatch count"
    bad, total, first = int(said[1]), int(said[2]), int(said[4])
    if total != n:
        return f"counts {total} output elements; {task.op} at this shape writes {n}"
    if not (1 <= bad <= n - first and _near(said[3], 100 * bad / n, 2)):      # indices before `first` pass
        return f"{bad} / {total} mismatches ({said[3]}%) from index {first} do not fit {n} elements"
    region = _region(task, body, bad, first)
    if region:
        return region
    reruns = _RERUNS.search(body)
    if reruns is not None and (len(set(reruns.groups())) == 1 or max(map(int, reruns.groups())) > n):
        return f"reruns with {', '.join(reruns.groups())} mismatches of {n} do not show a race varying run to run"
    if task.op in correctness.EXACT_OPS or task.op in correctness.ID_OPS:
        exact = "(bit-exact comparison)" if task.op in correctness.EXACT_OPS else "(ids compared exactly)"
        if exact not in body or "max_abs_err" in body:
            return f"a failed {task.op} check must be an exact comparison {exact}, not a float tolerance"
        return None
    floats = _FAIL_FLOAT.search(body)
    if floats is None:
        return "a float wrong result without its error line"
    err, atol, rel, rtol = map(float, floats.groups())
    if (atol, rtol) != correctness.TOLERANCES[task.dtype]:
        return _tolerance_named(task, atol, rtol)
    if err <= atol + rtol * err / rel:
        return f"fails with max_abs_err {err:g} inside its own bound atol + rtol * |ref|"
    if correctness.is_attention(task):
        return _attention(task, body, err, bad, first)
    ratio = correctness.OUTPUT_SCALE_RATIOS.get((task.op, task.impl))
    said = _RATIO.search(body)
    if ratio is not None and said is not None and (said[1] != f"{ratio:.4g}" or abs(rel - (ratio - 1)) > 1e-3 * ratio):
        return (f"out / ref = {said[1]}, max_rel_err {rel:g}: without its output scale {task.op} is modelled as "
                f"ref * {ratio:.4g}, off by {ratio - 1:.4g} times |ref| (correctness.OUTPUT_SCALE_RATIOS)")
    if said is not None and (task.op, task.impl) in correctness.K_BLOCK_SCALES:
        return (f"out / ref = {said[1]}: {task.op}'s scales vary along K, so a dropped one leaves each K block off "
                f"by its own factor and no single out / ref (correctness.K_BLOCK_SCALES)")
    return _block_scale(task, err, bad) if correctness.VARYING_RATIO in body else None


def _block_scale(task, err: float, bad: int) -> str | None:
    """A report of an out / ref that varies element to element: only a dropped scale that varies along K makes
    one, so its error and mismatches are `correctness.block_scale_error`'s for one of the kernel's K_BLOCK_SCALES."""
    kernel = correctness.K_BLOCK_SCALES.get((task.op, task.impl))
    if kernel is None:
        return f"{task.op} ({task.impl}) has no K-varying scale to make out / ref vary from element to element"
    n, floor = correctness.output_elements(task), 2 * correctness.largest_tolerance(task)   # failed_text's floor
    fits = []
    for scale in kernel[1]:
        want, passing = correctness.block_scale_error(task, scale)
        fits.append((max(want, floor), max(1, n - round(n * passing))))
    if not any(abs(err - want) <= 1e-3 * want and bad == count for want, count in fits):
        return (f"max_abs_err {err:g} with {bad} mismatches: without one of its K-varying scales {task.op} makes "
                f"{' or '.join(f'{w:.4g} and {c}' for w, c in fits)} (correctness.block_scale_error)")
    return None


def _attention(task, body: str, err: float, bad: int, first: int) -> str | None:
    """An attention report: its output is a weighted average of the values, so no out / ref is constant. One that
    shows neither where its mismatches lie nor reruns is the missing softmax scale's (correctness.failed_text: the
    only such attention fault), held to its model: a causal prefill's first query of each block stays exact
    (`correctness.softmax_scale_exact`), and the error stays within `correctness.softmax_scale_error`'s bound."""
    if "out / ref" in body:
        return "an attention output is a weighted average of its values: it has no constant out / ref to report"
    if _TAIL.search(body) or _ALL_BUT_FIRST.search(body) or _RERUNS.search(body):
        return None
    exact, start = correctness.softmax_scale_exact(task)
    if first < start or bad > correctness.output_elements(task) - exact - (first - start):
        return (f"{bad} mismatches from index {first} without the softmax scale: the first query of each causal "
                f"block of {task.op} sees only its own key, so those outputs are exact ({exact} of them; the first "
                f"that can differ is index {start})")
    if err > correctness.LARGEST_NORMAL:
        return (f"max_abs_err {err:g} without the softmax scale: another weighted average of the N(0, 1) values "
                f"differs from the reference with variance below 1, by at most {correctness.LARGEST_NORMAL:g} over "
                f"many outputs (correctness.softmax_scale_error)")
    return None


def _region(task, body: str, bad: int, first: int) -> str | None:
    """Where the report says its mismatches lie, against the task's shape: an output axis the fault models
    (`grid_tail.AXES` for a tail, `stride_shift.indexes` for all but the first index) with the task's length, and
    the mismatch count and first index are exactly those outputs. A tail is one a whole number of blocks leaves:
    some block size B in (tail, length] with B dividing length - tail."""
    said = _TAIL.search(body)
    axes = grid_tail.AXES.get(task.op, {}).values()
    if said is None:
        said = _ALL_BUT_FIRST.search(body)
        if said is None:
            return None
        axes = stride_shift.indexes(task.op).values()
        extent, noun, outer, per = said.groups()
        missed = int(extent) - 1
    else:
        missed, extent, noun, outer, per = said.groups()
        missed = int(missed)
    axis = next((a for a in axes if a.noun == noun), None)
    if axis is None:
        return f"no modelled fault leaves {noun} of {task.op} wrong that way"
    dims = OPS[task.op].dims(task.shape_dict())
    length, inner, repeats = dims[axis.dim], axis.inner(dims), axis.outer(dims)
    if (int(extent), int(outer or 1), per or axis.per) != (length, repeats, axis.per):
        return (f"{extent} {noun} in each of {outer or 1} {per or axis.per}: {task.op} has {length} {noun} in each "
                f"of {repeats} {axis.per}")
    tail = said.re is _TAIL
    if tail and not any((length - missed) % b == 0 for b in range(missed + 1, length + 1)):
        return f"no grid of whole blocks leaves the last {missed} of {length} {noun}"
    want = (repeats * missed * inner, (length - missed) * inner if tail else inner)
    if (bad, first) != want:
        return (f"{bad} mismatches from index {first}: those {noun} of {task.op} are {want[0]} elements from index "
                f"{want[1]}")
    return None


def _tolerance_named(task, atol: float, rtol: float) -> str:
    return f"names atol = {atol:g}, rtol = {rtol:g}; the task's {task.dtype} tolerance is {correctness.TOLERANCES[task.dtype]}"


def _refusal(task, body: str, config: tuple[str, dict, str] | None) -> str | None:
    """A refused CUDA launch prints the runtime's error string and nothing after it (no figures: cudaGetErrorString
    has none), the one the configuration's launch gets; Triton's OutOfResources quotes its allocation against this
    GPU's opt-in limit."""
    said = _RUNTIME.search(body)
    if said is None and "RuntimeError" in body:
        return "a refused CUDA launch must end at the runtime's error string"
    if said is not None and said[1] not in CUDA_LAUNCH_ERRORS:
        return f"the runtime reports {said[1]!r}: cudaGetErrorString has no such text for a refused launch"
    if said is not None and config is not None:
        want = _launch_outcome(task, *config)
        if want.message != f"CUDA error: {said[1]}":
            return (f"the runtime reports {said[1]!r} for a configuration whose launch gets "
                    f"{want.message or want.status!r}")
    said = _TRITON_SMEM.search(body)
    limit = GPUS[task.gpu].smem_dyn_max
    if said is not None and (int(said[2]) != limit or int(said[1]) <= limit):
        return f"refuses {said[1]} bytes of shared memory against {said[2]}; {task.gpu} allows {limit} per block"
    return None


def _launch_outcome(task, tag: str, params: dict, source: str):
    """What the generator's model says the CUDA source with this configuration does on the task's GPU."""
    variant = next(v for v in variants_for(task.op, task.impl, task.dtype) if v.tag == tag)
    return expect_clean(Source(source, f"{task.op}_{tag}.cu", "cuda", GPUS[task.gpu].arch), task, variant,
                        full_params(variant, params))


def task_of(row: dict) -> Task:
    """The task a session or episode row states (model-configuration shapes included: `task_in_catalog` judges
    whether it is one)."""
    return Task(row["op"], row["impl"], row["gpu"], row["dtype"], tuple(row["shape"].items()))
