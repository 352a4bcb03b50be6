"""kernelinfer's QA checks: the invariants the session format promises, recomputed per row.

The writer runs them per batch (qa_reports/) and the validator (`generator.check.semantic`) on any session file.
"""
from __future__ import annotations

import operator
import re
from difflib import SequenceMatcher
from itertools import zip_longest

from generator.catalog.hardware import GPUS
from generator.catalog.variants import gpu_lacks, variant_requires
from generator.check import reports
from generator.check.qa import CheckSet
from generator.check.reach import Reach
from generator.sim.clock import machine_range
from generator.sim.prompt import user_prompt
from generator.sim.workbench import Workbench

CHECKS = CheckSet("kernelinfer")
# a feedback turn's first line, matched from the start of the turn up to its first newline or its end
_HEADER = re.compile(r"\[t\+(\d+):(\d\d):(\d\d)\] RESULT (ok|compile_error|launch_error|wrong_result)(?=\n|\Z)")
_SPEEDUP_RTOL = 2e-3     # speedup and times are rounded to a few significant digits


_NO_HEADER = object()   # what a turn without a RESULT line says: equal to no status a trace can hold


def _headers(row) -> list[re.Match | None]:
    """The RESULT line of every feedback turn, matched (None where the first line is not one)."""
    return list(map(_HEADER.match, [m["content"] for m in row["messages"][3::2]]))


def _seconds(headers: list[re.Match]) -> list[int]:
    """The `t+H:MM:SS` of matched RESULT lines, in seconds."""
    return [int(h[1]) * 3600 + int(h[2]) * 60 + int(h[3]) for h in headers]


def _length_fits(row) -> bool:
    """30-200 steps; fewer only for a session that ran out of configurations worth running and ended re-measuring
    its best."""
    n, trace = row["num_steps"], row["trace"]
    return 30 <= n <= 200 or 0 < n < 30 and trace[-1]["kind"] == "revert" and _space_used_up(row)


def _space_used_up(row) -> bool:
    """The session measured every configuration its task offers of each legal variant, but those of a variant out of
    reach of its best at the end (Workbench.out_of_reach: the engineer stops tuning it) and, once a variant was
    refused at launch or for its dot shape, its configurations over the same limit (Workbench.over_limit)."""
    trace = row["trace"]
    fastest, best = _fastest(trace)
    bench = Workbench(reports.task_of(row))
    ran = {(t["tag"], tuple(t["params"].items())) for t in trace}
    refused = {tag for tag, items in ran if bench.over_limit(tag, items)}   # such a configuration always fails
    return all(key in ran or v.tag in refused and bench.over_limit(*key)
               for v in bench.variants if bench.legal[v.tag]
               and not (v.tag in fastest and bench.out_of_reach(v.tag, fastest[v.tag], best))
               for key in ((v.tag, tuple(p.items())) for p in v.all_params()))


def _fastest(trace) -> tuple[dict[str, float], float | None]:
    """Each variant's fastest ok time over `trace`, and the fastest of all (None when no step passed)."""
    fastest = {}
    for t in trace:
        time = t["time_ms"]
        if t["status"] == "ok" and time < fastest.get(t["tag"], float("inf")):
            fastest[t["tag"]] = time
    return fastest, min(fastest.values(), default=None)


@CHECKS.check("step_count", "30 <= num_steps <= 200 (fewer only ending in a revert after every configuration of "
              "the task ran, but those of variants out of reach of the best), num_steps == len(trace), steps "
              "numbered 1..n")
def _step_count(row):
    n, trace = row["num_steps"], row["trace"]
    if n != len(trace):
        return f"num_steps {n} != len(trace) {len(trace)}"
    if not _length_fits(row):
        return (f"num_steps {n} outside 30..200 (fewer only ending in a revert after every configuration worth "
                f"running ran)")
    if [t["step"] for t in trace] != list(range(1, n + 1)):
        return "trace steps are not 1..n"


@CHECKS.check("message_roles", "messages are system, user, then (assistant, user) per step")
def _message_roles(row):
    roles = [m["role"] for m in row["messages"]]
    pairs = (len(roles) - 2) // 2      # num_steps may be any int64: the expected list is never built from it
    if pairs != row["num_steps"] or roles != ["system", "user"] + ["assistant", "user"] * pairs:
        return f"roles {roles[:6]}... do not follow system, user, (assistant, user) x {row['num_steps']}"


@CHECKS.check("feedback_header", "each feedback turn starts with '[t+H:MM:SS] RESULT <status>' matching the trace")
def _feedback_header(row):
    said = [h[4] if h else _NO_HEADER for h in _headers(row)]
    trace = row["trace"]
    if said[:len(trace)] == [entry["status"] for entry in trace]:
        return None
    for i, entry in enumerate(trace):
        status = said[i] if i < len(said) else _NO_HEADER
        if status is _NO_HEADER:
            return f"step {entry['step']}: feedback first line is not '[t+H:MM:SS] RESULT <status>'"
        if status != entry["status"]:
            return f"step {entry['step']}: feedback says {status}, trace says {entry['status']}"


@CHECKS.check("timestamps", "feedback timestamps strictly increase; the last equals elapsed_s and elapsed_hms")
def _timestamps(row):
    secs = _seconds([h for h in _headers(row) if h])
    if not all(map(operator.lt, secs, secs[1:])):
        return "timestamps do not strictly increase"
    if not secs or secs[-1] != row["elapsed_s"]:
        return f"last timestamp {secs[-1] if secs else None} != elapsed_s {row['elapsed_s']}"
    h, rem = divmod(int(row["elapsed_s"]), 3600)
    if row["elapsed_hms"] != f"{h}:{rem // 60:02d}:{rem % 60:02d}":
        return f"elapsed_hms {row['elapsed_hms']} != elapsed_s {row['elapsed_s']}"


@CHECKS.check("step_time", "each step lasts at least its build's machine seconds (`clock.machine_range`: compile, "
              "check and, for an ok step, the benchmark with its 111 runs of the measured time)")
def _step_time(row):
    secs = _seconds([h for h in _headers(row) if h])
    messages, impl = row["messages"], row["impl"]
    for step, (t, before, now) in enumerate(zip(row["trace"], [0] + secs, secs), 1):
        lo = machine_range(impl, messages[2 * step]["content"].count("\n") + 1, t["status"], t["time_ms"])[0]
        if now - before < lo - 1:        # two stamps rounded to whole seconds
            return f"step {step}: {t['status']} step lasts {now - before} s; its build and run take >= {lo:.0f} s"


@CHECKS.check("report_numbers", "every report's numbers are the task's (check.reports): time, speedups vs the baseline "
              "and the best before it, GB/s and TFLOPS, tolerance, output element counts and indices, launch limits")
def _report_numbers(row):
    task, baseline, best = reports.task_of(row), row["baseline_ms"], None
    messages = row["messages"]
    for t, source, m in zip(row["trace"], messages[2::2], messages[3::2]):
        time = t["time_ms"]
        said = reports.problem(task, t["status"], m["content"].partition("\n")[2], time, baseline, best,
                               (t["tag"], t["params"], source["content"]))
        if said:
            return f"step {t['step']}: {said}"
        if time is not None and (best is None or time < best):
            best = time


@CHECKS.check("task_turn", "the task turn is the harness's statement of the row's task (prompt.user_prompt): op, "
              "shape, dtype, the GPU and its limits, compile target, baseline, roofline and the correctness criterion")
def _task_turn(row):
    said, want = row["messages"][1]["content"], user_prompt(reports.task_of(row), row)
    if said != want:
        n, line, should = next((n, a, b) for n, (a, b) in enumerate(zip_longest(said.splitlines(), want.splitlines(),
                                                                                 fillvalue=""), 1) if a != b)
        return f"task turn line {n} says {line[:80]!r}; the task states {should[:80]!r}"


@CHECKS.check("duration", "simulated duration within 1.0-5.0 h")
def _duration(row):
    if not 3600 <= row["elapsed_s"] <= 5 * 3600:
        return f"elapsed {row['elapsed_s'] / 3600:.2f} h outside 1-5 h"


@CHECKS.check("time_physics", "time_ms is null exactly when status != ok; every ok time >= roofline_ms")
def _time_physics(row):
    roof = row["roofline_ms"]
    for t in row["trace"]:
        if (t["time_ms"] is None) != (t["status"] != "ok"):
            return f"step {t['step']}: status {t['status']} with time_ms {t['time_ms']}"
        if t["time_ms"] is not None and t["time_ms"] < roof:
            return f"step {t['step']}: time {t['time_ms']} ms below roofline {roof} ms"


@CHECKS.check("best_step", "best.step is the ok step with the minimum time, and best.time_ms is that time")
def _best_step(row):
    oks = [t for t in row["trace"] if t["status"] == "ok"]
    if not oks:
        return "no ok step"
    fastest = min(oks, key=lambda t: (t["time_ms"], t["step"]))
    best = row["best"]
    if best["time_ms"] != fastest["time_ms"]:
        return f"best.time_ms {best['time_ms']} != fastest ok time {fastest['time_ms']}"
    if row["trace"][best["step"] - 1]["time_ms"] != fastest["time_ms"]:
        return f"best.step {best['step']} is not a fastest ok step ({fastest['step']})"


@CHECKS.check("speedup", "best.speedup == baseline_ms / best.time_ms to rounding")
def _speedup(row):
    want = row["baseline_ms"] / row["best"]["time_ms"]
    if abs(row["best"]["speedup"] - want) > _SPEEDUP_RTOL * want:
        return f"speedup {row['best']['speedup']} != {row['baseline_ms']} / {row['best']['time_ms']} = {want:.4g}"


@CHECKS.check("kept_marks_improvements", "kept is true exactly on ok steps that beat the running best")
def _kept(row):
    running = float("inf")
    for t in row["trace"]:
        improved = t["status"] == "ok" and t["time_ms"] < running
        if t["kept"] != improved:
            return f"step {t['step']}: kept={t['kept']} but improvement={improved}"
        if improved:
            running = t["time_ms"]


@CHECKS.check("attempts", "attempts == number of ok steps (candidates that reached the benchmark)")
def _attempts(row):
    n_ok = sum(t["status"] == "ok" for t in row["trace"])
    if row["attempts"] != n_ok:
        return f"attempts {row['attempts']} != ok steps {n_ok}"


@CHECKS.check("arch_matches_gpu", "arch is the GPU's arch")
def _arch(row):
    if row["arch"] != GPUS[row["gpu"]].arch:
        return f"arch {row['arch']} is not {row['gpu']}'s {GPUS[row['gpu']].arch}"


@CHECKS.check("arch_gating", "no ok step uses a variant whose hardware features the GPU lacks")
def _arch_gating(row):
    features = GPUS[row["gpu"]].features
    for t in row["trace"]:
        if t["status"] == "ok":
            missing = variant_requires(row["op"], row["impl"], t["tag"], row["dtype"]) - features
            if missing:
                return f"step {t['step']}: ok {t['tag']} needs {sorted(missing)} absent on {row['gpu']}"


@CHECKS.check("fix_follows_error", "a fix step follows a failed step, resubmits its variant and params, and changes "
              "its code (the same code would build to the same result), only on the lines its parent broke (where "
              "the parent differs from the variant's code as an ok step shows it)")
def _fix(row):
    trace, messages = row["trace"], row["messages"]
    for i, t in enumerate(trace):
        if t["kind"] == "fix":
            prev = trace[i - 1] if i else None
            if prev is None or prev["status"] == "ok":
                return f"step {t['step']}: fix without a preceding failure"
            if (prev["tag"], prev["params"]) != (t["tag"], t["params"]):
                return f"step {t['step']}: fix changes variant or params"
            if messages[2 * i + 2]["content"] == messages[2 * i]["content"]:
                return f"step {t['step']}: fix resends the broken code unchanged"
            stray = _stray_edit(row, i)
            if stray is not None:
                return f"step {t['step']}: fix edits line {stray + 1} of its parent, which the parent had right"


def _stray_edit(row, i: int) -> int | None:
    """The first 0-based line of step i's parent (a fix's) that the fix edits outside the lines the parent broke,
    None when there is none or the variant's code is not known. The parent broke the lines on which it differs
    from the variant's code as the session shows it: an ok step of the variant (no mistake passes), this
    configuration's if one other than the fix is ok, else another's (a tune changes constant lines only, so they
    count as broken too). A fix that fails again has its mistake on the lines it retypes (retyped.retyped_mistake):
    a second hunk is an edit nothing motivated."""
    trace, messages = row["trace"], row["messages"]
    fix = trace[i]
    clean = [k for k, t in enumerate(trace) if t["status"] == "ok" and t["tag"] == fix["tag"] and k != i]
    if not clean:
        return None
    same = [k for k in clean if trace[k]["params"] == fix["params"]]
    parent = messages[2 * i]["content"].split("\n")
    broken = _changed(parent, messages[2 * (same or clean)[0] + 2]["content"].split("\n"))
    for start, end in _changed(parent, messages[2 * i + 2]["content"].split("\n")):
        if not any(a <= start and end <= b for a, b in broken):
            return start
    return None


def _changed(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """[start, end) of each run of lines of `a` that `b` replaces or deletes (start == end: where `b` inserts)."""
    return [(i1, i2) for op, i1, i2, _j1, _j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            if op != "equal"]


@CHECKS.check("tune_within_reach", "no tune step tunes a variant whose fastest ok time so far is further behind the "
              "session's best than any configuration change of it can close (Workbench.out_of_reach)")
def _tune_within_reach(row):
    step = _hopeless_tune(row)
    if step is not None:
        return f"step {step['step']}: tunes {step['tag']}, out of reach of the session's best"


def _hopeless_tune(row) -> dict | None:
    """The first tune step of a variant already out of reach of the session's best, replaying the trace as the
    engineer saw it; None when there is none."""
    reach = Reach(row)
    for t in row["trace"]:
        if t["kind"] == "tune" and reach.hopeless(t["tag"]):
            return t
        if t["status"] == "ok":
            reach.saw(t["tag"], t["time_ms"])
    return None


@CHECKS.check("assistant_code_only", "assistant turns are kernel source only: no markdown fences, a kernel entry")
def _code_only(row):
    marker = "__global__" if row["impl"] == "cuda" else "@triton.jit"
    for m in row["messages"][2::2]:
        text = m["content"]
        if "```" in text or marker not in text:
            return f"assistant turn is not bare {row['impl']} source (fences or no {marker})"


@CHECKS.check("number_types", "times, speedups and elapsed_s are floats; counts and step numbers are ints")
def _types(row):
    floats = [row["baseline_ms"], row["roofline_ms"], row["best"]["time_ms"], row["best"]["speedup"], row["elapsed_s"]]
    floats += [t["time_ms"] for t in row["trace"] if t["time_ms"] is not None]
    ints = [row["num_steps"], row["attempts"], row["best"]["step"]] + [t["step"] for t in row["trace"]]
    if not all(type(x) is float for x in floats):
        return "a time, speedup or elapsed_s is not a float"
    if not all(type(x) is int for x in ints):
        return "a count or step number is not an int"


@CHECKS.shortcut((_step_count, _message_roles, _feedback_header, _timestamps, _step_time, _report_numbers, _task_turn,
                  _duration, _time_physics, _best_step, _speedup, _kept, _attempts, _arch_gating, _fix,
                  _tune_within_reach))
def _session_checks_pass(row) -> bool:
    """True only if every check it vouches for passes on `row`: the validator's hot path, one match per feedback
    turn and one pass over the trace instead of one of each per check. False says only "look closer": the checks
    themselves then name what fails. A malformed row raises, as the checks would."""
    trace, n = row["trace"], row["num_steps"]
    if n != len(trace) or not _length_fits(row):
        return False
    if [m["role"] for m in row["messages"]] != ["system", "user"] + ["assistant", "user"] * n:
        return False
    headers = _headers(row)
    if [h[4] if h else _NO_HEADER for h in headers] != [t["status"] for t in trace]:
        return False
    secs = _seconds(headers)
    elapsed = row["elapsed_s"]
    if not all(map(operator.lt, secs, secs[1:])) or secs[-1] != elapsed or not 3600 <= elapsed <= 5 * 3600:
        return False
    h, rem = divmod(int(elapsed), 3600)
    if row["elapsed_hms"] != f"{h}:{rem // 60:02d}:{rem % 60:02d}":
        return False
    roof, lacks = row["roofline_ms"], gpu_lacks(row["op"], row["impl"], row["dtype"], row["gpu"])
    messages = row["messages"]      # step s's source is messages[2 * s], its report messages[2 * s + 1]
    task, impl, baseline = reports.task_of(row), row["impl"], row["baseline_ms"]
    if messages[1]["content"] != user_prompt(task, row):
        return False
    running, n_ok, prev = float("inf"), 0, None
    for step, (t, before, now) in enumerate(zip(trace, [0] + secs, secs), 1):
        time, ok, status = t["time_ms"], t["status"] == "ok", t["status"]
        if t["step"] != step or (time is None) == ok:
            return False
        if now - before < machine_range(impl, messages[2 * step]["content"].count("\n") + 1, status, time)[0] - 1:
            return False
        if reports.problem(task, status, messages[2 * step + 1]["content"].partition("\n")[2], time, baseline,
                           None if running == float("inf") else running,
                           (t["tag"], t["params"], messages[2 * step]["content"])):
            return False
        improved = ok and time < running
        if t["kept"] != improved:
            return False
        if ok:
            if time < roof or lacks[t["tag"]]:
                return False
            n_ok += 1
            if improved:
                running = time
        if t["kind"] == "fix" and (prev is None or prev["status"] == "ok"
                                   or (prev["tag"], prev["params"]) != (t["tag"], t["params"])
                                   or messages[2 * step]["content"] == messages[2 * step - 2]["content"]
                                   or _stray_edit(row, step - 1) is not None):
            return False
        prev = t
    best = row["best"]
    if not n_ok or row["attempts"] != n_ok or best["time_ms"] != running or _hopeless_tune(row) is not None:
        return False
    if trace[best["step"] - 1]["time_ms"] != running:
        return False
    want = row["baseline_ms"] / best["time_ms"]
    return abs(best["speedup"] - want) <= _SPEEDUP_RTOL * want


@CHECKS.check("unique_sessions", "session_id and (op, impl, gpu, dtype, shape) unique within the batch", scope="batch")
def _unique(rows):
    seen_ids, seen_keys, problems = set(), set(), []
    for i, row in enumerate(rows):
        key = (row["op"], row["impl"], row["gpu"], row["dtype"], tuple(sorted(row["shape"].items())))
        if row["session_id"] in seen_ids or key in seen_keys:
            problems.append(f"row {i} ({row['session_id']}): duplicate session_id or task")
        seen_ids.add(row["session_id"])
        seen_keys.add(key)
    return problems
