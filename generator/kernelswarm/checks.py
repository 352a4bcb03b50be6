"""Mechanical QA of kernelswarm episodes: the invariants the episode format promises, recomputed per row.

Registered on `CHECKS`, so the writer runs them per batch and the validator
(`generator.check.semantic`) runs them on any episode file. Every number is recomputed from the episode's own
messages: rewards from the shared best at each result, agent tallies from candidates and results, the best time
from the kept results.
"""
from __future__ import annotations

import math
import re
from functools import cache

from generator.catalog.variants import gpu_lacks, variant_requires, variants_for
from generator.check import reports
from generator.check.qa import CheckSet
from generator.check.reach import Reach
from generator.sim.feedback import ms_text
from generator.sim.rewards import result_reward, verdict_reward
from generator.sim.clock import machine_range
from generator.catalog.calibration import noise_bound
from generator.kernelswarm.episode import HOURS_RANGE, SCENARIOS, params_text, task_label, think_floor_s
from generator.kernelswarm.review import TOOL_TEXT
from generator.catalog.hardware import GPUS

CHECKS = CheckSet("kernelswarm")
_SPEEDUP_RTOL = 2e-3
# kind -> roles allowed to send it
KIND_ROLES = {
    "plan": {"lead"}, "dispatch": {"lead"}, "merge": {"lead"}, "redirect": {"lead"}, "verdict": {"lead"},
    "candidate": {"worker", "tuner"}, "result": {"env"}, "leaderboard": {"env"}, "new_best": {"env"},
    "status": {"worker", "tuner", "reviewer", "verifier"}, "review": {"reviewer"}, "verify": {"verifier"},
    "handoff": {"worker", "tuner"},
}
REQUIRED_FIELDS = {kind: frozenset(fields) for kind, fields in {
    "dispatch": ("to", "subtask"), "redirect": ("to", "subtask"), "candidate": ("params", "variant"),
    "result": ("to", "status", "time_ms"), "review": ("to", "status"), "verify": ("to", "status"),
    "merge": ("to", "time_ms"), "handoff": ("to",), "verdict": ("time_ms",), "new_best": ("time_ms",)}.items()}
_NONE: frozenset = frozenset()
# the seed's id, then a clash suffix `_2` ... and an engineer's `_e1` ... where there are any (plan.episode)
_ID = re.compile(r"^(?P<prefix>.+)_(?P<scenario>dispatch|parallel_sweep|pipeline|campaign)_(?P<n>\d+)(?:_\d+)?(?:_e\d+)?$")
_BOARD_LINE = re.compile(r"^\d+\. (\S+) ([0-9.eE+-]+) ms")
# every line at once, same matches: each line after a newline (the pattern's leading literal is found fast)
_BOARD_ENTRIES = re.compile("\n" + _BOARD_LINE.pattern.removeprefix("^"))
_LADDER = re.compile(r"propose variants in order: (.+)$")   # a pipeline's dispatch to its proposer
# an agent's share of one variant's configurations: a campaign's `{variant}: k configs of N`, a parallel sweep's
# `sweep {variant}: k of N configs (slice ...)`
_SHARE = re.compile(r"^(?:sweep )?(\S+): (\d+) (?:configs? )?of (\d+)\b")
# where a dispatch tells its agent to start: `implement {variant} (start from its defaults)`, `... (start from
# K=V,...; aNN takes its defaults)`
_START = re.compile(r"\(start from (its defaults|[^;)]+)")
_BUILD_STATUS = {"unsupported_arch": "compile_error"}    # ptxas / Triton refuse the target at compile time
_CLOCK_ATOL = 0.15       # two times rounded to 0.1 s
_REBENCH = re.compile(r"([0-9.eE+-]+) ms reported, ([0-9.eE+-]+) ms on rerun \(([+-][0-9.]+)%\)")
_GAIN = re.compile(r"the rerun (still beats|does not beat) the previous best (\S+) ms")   # a pipeline verifier's
_REWARD_ATOL = 2e-6      # |a - b| <= this also passes the checks' math.isclose(a, b, abs_tol=this)


def _results(row):
    return [m for m in row["messages"] if m["kind"] == "result"]


def _kept_baseline(m: dict) -> bool:
    """Whether message `m` is a verdict that keeps the naive baseline (no passing result beat it)."""
    return m.get("kept") == "baseline"


@CHECKS.check("message_count", "num_messages == len(messages) and the id ends with it")
def _message_count(row):
    if row["num_messages"] != len(row["messages"]):
        return f"num_messages {row['num_messages']} != {len(row['messages'])} messages"
    m = _ID.match(row["episode_id"])
    if not m or int(m["n"]) != row["num_messages"] or m["scenario"] != row["scenario"]:
        return f"episode_id {row['episode_id']!r} is not {{op}}_{{gpu}}_{{shape}}_{row['scenario']}_{row['num_messages']}"
    return None


@CHECKS.check("agents", "n_agents specialists plus the lead, within the scenario's range")
def _agents(row):
    lo, hi = SCENARIOS[row["scenario"]]
    if not lo <= row["n_agents"] <= hi:
        return f"{row['n_agents']} agents outside {lo}-{hi} for {row['scenario']}"
    if len(row["agents"]) != row["n_agents"] + 1 or row["agents"][0]["id"] != "lead":
        return "agents must be the lead plus n_agents specialists"
    return None


@CHECKS.check("kind_roles", "every message kind comes only from its role, with its kind-specific fields")
def _kind_roles(row):
    roles = {a["id"]: a["role"] for a in row["agents"]}
    for i, m in enumerate(row["messages"]):
        kind, role = m["kind"], m["role"]
        allowed = KIND_ROLES.get(kind)
        if allowed is None:
            return f"message {i}: unknown kind {kind!r}"
        if role not in allowed:
            return f"message {i}: {kind} from role {role!r} (allowed: {', '.join(sorted(allowed))})"
        if role != "env" and roles.get(m["agent"]) != role:
            return f"message {i}: agent {m['agent']!r} does not have role {role!r}"
        required = REQUIRED_FIELDS.get(kind, _NONE)
        if not m.keys() >= required:
            return f"message {i}: {kind} lacks {', '.join(sorted(required - m.keys()))}"
    return None


@CHECKS.check("plan_names_task", "every plan names the row's task as `{op} {gpu} {shape}`, whatever the lead's wording")
def _plan_names_task(row):
    label = task_label(row)
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "plan" and label not in m["content"]:
            return f"message {i}: the plan does not name the task {label!r}"
    return None


@CHECKS.check("rewards", "every reward equals the seed's formula recomputed from the episode's own numbers: a "
              "result's against the shared best when its candidate was sent (the last one announced before it)")
def _rewards(row):
    best = row["baseline_ms"]
    sent: dict[int, float] = {}     # candidate index -> the shared best when it was sent
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "candidate":
            sent[i] = best
        if m["kind"] == "result":       # (a ref to no candidate is the causality check's to name)
            want = result_reward(m["status"], m["time_ms"], sent.get(m["ref"], best))
            if m["status"] == "ok" and m["time_ms"] < best:
                best = m["time_ms"]
        elif m["kind"] == "verdict":
            want = verdict_reward(row["speedup"], improved=not _kept_baseline(m))
        else:
            want = 0.0
        if not math.isclose(m["reward"], want, abs_tol=_REWARD_ATOL):
            return f"message {i} ({m['kind']}): reward {m['reward']} != {want}"
    return None


@CHECKS.check("agent_tallies", "agents' tries (their candidates the env ran: a candidate a reviewer sent back never "
              "ran), kept and best_ms equal what the messages say")
def _agent_tallies(row):
    tries, kept, best = {}, {}, {}
    shared = row["baseline_ms"]
    for m in _results(row):
        tries[m["to"]] = tries.get(m["to"], 0) + 1
        if m["status"] == "ok":
            who, t = m["to"], m["time_ms"]
            best[who] = min(best.get(who, math.inf), t)
            if t < shared:
                shared = t
                kept[who] = kept.get(who, 0) + 1
    for a in row["agents"]:
        want = (tries.get(a["id"], 0), kept.get(a["id"], 0), best.get(a["id"]))
        if (a["tries"], a["kept"], a["best_ms"]) != want:
            return f"agent {a['id']}: tries/kept/best_ms {a['tries']}/{a['kept']}/{a['best_ms']} != {want}"
    return None


@CHECKS.check("leaderboards", "every leaderboard ranks agents by best time so far")
def _leaderboards(row):
    best: dict[str, float] = {}
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "result" and m["status"] == "ok":
            best[m["to"]] = min(best.get(m["to"], math.inf), m["time_ms"])
        elif m["kind"] == "leaderboard":
            entries = [(a, float(t)) for a, t in (_BOARD_LINE.match(x).groups()
                                                   for x in m["content"].splitlines()[1:] if _BOARD_LINE.match(x))]
            times = [t for _a, t in entries]
            if times != sorted(times):
                return f"message {i}: leaderboard not sorted by time"
            if {a for a, _t in entries} != set(best):
                return f"message {i}: leaderboard lists {sorted(a for a, _ in entries)}, agents with results {sorted(best)}"
    return None


@CHECKS.check("merges", "a merge picks the best result so far")
def _merges(row):
    shared, owner = row["baseline_ms"], None
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "result" and m["status"] == "ok" and m["time_ms"] < shared:
            shared, owner = m["time_ms"], m["to"]
        elif m["kind"] == "merge" and (m["time_ms"] != shared or m["to"] != owner):
            return f"message {i}: merge of {m['to']} at {m['time_ms']} but the best so far is {owner} at {shared}"
    return None


@CHECKS.check("best_notices", "every new shared best is announced to the team (a new_best notice naming its "
              "result and time) right after the result that set it, and every notice announces one")
def _best_notices(row):
    return _first_problem(row, lambda m, state: _notice_problem(m, state, row["baseline_ms"]))


def _notice_problem(m: dict, state: dict, baseline: float) -> str | None:
    """What is wrong with message `m` as a new-best notice or what must follow one, given `state` (which `m`
    updates): `state["best"]`, the shared best so far; `state["due"]`, the time a notice must announce next."""
    due = state.pop("due", None)
    if m["kind"] == "new_best":
        if m["time_ms"] != due:
            return f"announces {m['time_ms']} ms, but the result before it set no new shared best" if due is None \
                else f"announces {m['time_ms']} ms, but the new shared best is {due} ms"
    elif due is not None:
        return f"the new shared best {due} ms is not announced right after its result"
    elif m["kind"] == "result" and m["status"] == "ok" and m["time_ms"] < state.get("best", baseline):
        state["best"] = state["due"] = m["time_ms"]
    return None


@CHECKS.check("lead_sees", "a merge or verdict comes after a leaderboard that shows every passing result before it")
def _lead_sees(row):
    """Results go to their authors and statuses round the time: the lead knows a result's time and settings from
    a leaderboard, so one posted after the last passing result precedes each merge and verdict."""
    last_ok = last_board = -1
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "result" and m["status"] == "ok":
            last_ok = i
        elif m["kind"] == "leaderboard":
            last_board = i
        elif m["kind"] in ("merge", "verdict") and last_board < last_ok:
            return f"message {i}: {m['kind']} after passing result {last_ok} that no leaderboard has shown the lead"
    return None


@CHECKS.check("clock", "t never decreases, elapsed_s is the last t, and the horizon is 1-5 h")
def _clock(row):
    ts = [m["t"] for m in row["messages"]]
    if any(b < a for a, b in zip(ts, ts[1:])):
        return "t decreases"
    if row["elapsed_s"] != ts[-1]:
        return f"elapsed_s {row['elapsed_s']} != last t {ts[-1]}"
    lo, hi = HOURS_RANGE
    if not lo * 3600 <= row["elapsed_s"] <= hi * 3600:
        return f"elapsed {row['elapsed_s'] / 3600:.2f} h outside {lo}-{hi} h"
    return None


@CHECKS.check("best_and_speedup", "best_ms is the best kept result, below baseline_ms; or no passing result beat the "
              "baseline and the verdict keeps it (best_ms == baseline_ms); the verdict states best_ms; speedup == "
              "baseline_ms / best_ms")
def _best(row):
    baseline = row["baseline_ms"]
    faster = [m["time_ms"] for m in _results(row) if m["status"] == "ok" and m["time_ms"] < baseline]
    verdict = next((m for m in reversed(row["messages"]) if m["kind"] == "verdict"), None)
    kept = verdict is not None and _kept_baseline(verdict)
    if faster and kept:
        return f"the verdict keeps the {baseline} ms baseline, but a passing result ran in {min(faster)} ms"
    if not faster and not kept:
        return f"no passing result beat the {baseline} ms baseline, but the verdict does not keep it"
    if row["best_ms"] != (min(faster) if faster else baseline):
        return f"best_ms {row['best_ms']} is not the best kept result"
    if verdict is not None and verdict["time_ms"] != row["best_ms"]:
        return f"the verdict states {verdict['time_ms']} ms, best_ms is {row['best_ms']}"
    want = baseline / row["best_ms"]
    if not math.isclose(row["speedup"], want, rel_tol=_SPEEDUP_RTOL):
        return f"speedup {row['speedup']} != baseline/best {want:.4g}"
    return None


@CHECKS.check("physics", "every ok time is at or above the task's roofline")
def _physics(row):
    for m in _results(row):
        if m["status"] == "ok" and m["time_ms"] < row["roofline_ms"]:
            return f"ok time {m['time_ms']} below roofline {row['roofline_ms']}"
    return None


@CHECKS.check("arch_gating", "no variant passes on a GPU that lacks a feature it needs")
def _arch_gating(row):

    have = GPUS[row["gpu"]].features
    for m in _results(row):
        missing = variant_requires(row["op"], row["impl"], m["variant"], row["dtype"]) - have
        if missing and m["status"] not in ("unsupported_arch",):
            return f"{m['variant']} needs {sorted(missing)} on {row['gpu']} but its result is {m['status']}"
    return None


# kind -> the kind of message its `ref` must name (the schema makes `ref` required on exactly these kinds)
LINKS = {"result": "candidate", "review": "candidate", "verify": "result", "merge": "result", "handoff": "result",
         "verdict": "result", "new_best": "result"}
_STATUS = re.compile(r"^(\S+): (\d+) results?, (\d+) kept")


@CHECKS.check("causality", "every message comes after what it speaks of: ref names an earlier message of the linked "
       "kind about the same agent and variant, each candidate is built at most once, a status counts its agent's "
       "results so far")
def _causality(row):
    msgs = row["messages"]
    built: set[int] = set()
    ran: dict[str, int] = {}
    kept: dict[str, int] = {}
    shared = row["baseline_ms"]
    for i, m in enumerate(msgs):
        problem = _ref_problem(msgs, i, m)
        if problem:
            return f"message {i} ({m['kind']}): {problem}"
        kind = m["kind"]
        if kind == "result":
            if m["ref"] in built:
                return f"message {i}: candidate {m['ref']} was already built"
            built.add(m["ref"])
            ran[m["to"]] = ran.get(m["to"], 0) + 1
            if m["status"] == "ok" and m["time_ms"] < shared:
                shared = m["time_ms"]
                kept[m["to"]] = kept.get(m["to"], 0) + 1
        elif kind == "status" and _status_problem(m, ran, kept):
            return f"message {i}: {_status_problem(m, ran, kept)}"
    return None


def _ref_problem(msgs: list[dict], i: int, m: dict) -> str | None:
    """What is wrong with message `i`'s link (`ref`), if anything: it must name an earlier message of the kind
    LINKS says, about the same agent and variant."""
    want, ref = LINKS.get(m["kind"]), m.get("ref")
    if want is not None and _kept_baseline(m):    # a verdict that keeps the baseline names no result
        want = None
    if want is None:
        return None if ref is None else f"links to no message, but has ref {ref}"
    if not isinstance(ref, int) or not 0 <= ref < i:
        return f"ref {ref} does not name an earlier message"
    target = msgs[ref]
    if target["kind"] != want:
        return f"ref {ref} is a {target['kind']}, not a {want}"
    problem = _link_problem(m, target)
    return problem and f"ref {ref}: {problem}"


def _status_problem(m: dict, ran: dict, kept: dict) -> str | None:
    """A status that does not report its agent's env results and kept ones so far (`ran`, `kept`: per agent), the
    results the verdict counts: a candidate a reviewer sent back never ran."""
    said = _STATUS.match(m["content"])
    if said is None:
        return f"status {m['content']!r} does not say its agent's results and kept ones"
    who, now = said[1], (ran.get(said[1], 0), kept.get(said[1], 0))
    if (int(said[2]), int(said[3])) != now:
        return f"status says {said[2]} results, {said[3]} kept for {who}, but so far {now[0]} and {now[1]}"
    return None


def _link_problem(m: dict, target: dict) -> str | None:
    """What is wrong with `m` speaking of `target` (the message its ref names), if anything."""
    if m["variant"] != target["variant"]:
        return f"variant {m['variant']} != {target['variant']}"
    kind = m["kind"]
    if kind in ("result", "review"):
        return None if target["agent"] == m["to"] else f"names {m['to']}, but the candidate is {target['agent']}'s"
    if target["status"] != "ok":
        return f"the result it names is {target['status']}"
    if kind == "handoff" and target["to"] != m["agent"]:
        return f"hands off {target['to']}'s result"
    if kind in ("verify", "merge") and target["to"] != m["to"]:
        return f"names {m['to']}, but the result is {target['to']}'s"
    if m.get("time_ms") is not None and m["time_ms"] != target["time_ms"]:
        return f"time {m['time_ms']} != the result's {target['time_ms']}"
    return None


@CHECKS.check("tuner_handoffs", "a tuner's candidate comes after a handoff to that tuner and is of the latest one's "
              "variant: a tuner changes the constants of the kernel it was handed, never its variant")
def _tuner_handoffs(row):
    return _first_problem(row, _tuner_problem)


def _first_problem(row: dict, problem) -> str | None:
    """The first message `problem(message, state)` finds wrong, walking the messages in order with one state dict
    (who was handed, assigned, dealt or told what so far) that `problem` keeps up to date."""
    state: dict = {}
    for i, m in enumerate(row["messages"]):
        found = problem(m, state)
        if found:
            return f"message {i}: {found}"
    return None


def _tuner_problem(m: dict, handed: dict[str, str]) -> str | None:
    """What is wrong with message `m` if it is a tuner's candidate, given `handed` (tuner id -> the variant of the
    latest handoff to it so far, which `m` updates if it is a handoff)."""
    if m["kind"] == "handoff":
        handed[m["to"]] = m["variant"]
    elif m["kind"] == "candidate" and m["role"] == "tuner":
        variant = handed.get(m["agent"])
        if variant is None:
            return f"tuner {m['agent']}'s candidate precedes any handoff to it"
        if m["variant"] != variant:
            return f"tuner {m['agent']}'s candidate is {m['variant']}, but it was handed {variant}"
    return None


@CHECKS.check("worker_assignments", "a worker's candidate is of the variant its latest dispatch, redirect or handoff "
              "gave it (or of the ladder a pipeline's proposer was told to propose): no worker takes up a variant "
              "nobody assigned it")
def _worker_assignments(row):
    return _first_problem(row, _worker_problem)


def _worker_problem(m: dict, assigned: dict[str, frozenset]) -> str | None:
    """What is wrong with message `m` if it is a worker's candidate, given `assigned` (agent id -> the variants its
    latest assignment so far gave it, which `m` updates if it assigns one)."""
    kind = m["kind"]
    if kind in ("dispatch", "redirect", "handoff"):
        ladder = _LADDER.search(m.get("subtask", ""))
        assigned[m["to"]] = frozenset(ladder[1].split(", ")) if ladder else frozenset([m.get("variant")])
    elif kind == "candidate" and m["role"] == "worker" and m["variant"] not in assigned.get(m["agent"], _NONE):
        given = ", ".join(sorted(assigned[m["agent"]])) if m["agent"] in assigned else "nothing"
        return f"worker {m['agent']}'s candidate is {m['variant']}, but it was assigned {given}"
    return None


@CHECKS.check("orders_stand", "no dispatch, redirect or handoff is replaced by another order to the same agent before "
              "that agent sent a candidate with no env result in between: without news the lead takes back no order "
              "it gave")
def _orders_stand(row):
    return _first_problem(row, _order_problem)


def _order_problem(m: dict, state: dict) -> str | None:
    """What is wrong with message `m` as an order, given `state` (which `m` updates): `state["results"]`, the env
    results so far; `state["open"]`, agent -> the results there were when it got an order it has not acted on yet."""
    kind = m["kind"]
    if kind == "result":
        state["results"] = state.get("results", 0) + 1
    elif kind == "candidate":
        state.setdefault("open", {}).pop(m["agent"], None)
    elif kind in ("dispatch", "redirect", "handoff"):
        orders, news = state.setdefault("open", {}), state.get("results", 0)
        if orders.get(m["to"]) == news:
            return f"this {kind} replaces the order {m['to']} got before it sent anything, with no result in between"
        orders[m["to"]] = news
    return None


@CHECKS.check("dispatch_shares", "the shares of a variant's configurations the lead deals out (a campaign's, a "
              "parallel sweep's) hold one configuration at least each and no more than the variant has together: no "
              "agent is dispatched with nothing to do, no configuration goes to two agents")
def _dispatch_shares(row):
    return _first_problem(row, _share_problem)


def _share_problem(m: dict, dealt: dict[str, int]) -> str | None:
    """What is wrong with message `m` if it is a dispatch of a share, given `dealt` (variant -> configurations
    dealt out of it so far, which `m` updates)."""
    share = m["kind"] == "dispatch" and _SHARE.match(m["subtask"])
    if not share:
        return None
    variant, count, size = share[1], int(share[2]), int(share[3])
    if count == 0:
        return f"{m['to']} is dispatched 0 of {variant}'s {size} configurations"
    dealt[variant] = dealt.get(variant, 0) + count
    if dealt[variant] > size:
        return f"the shares of {variant} add up to {dealt[variant]} configurations, but it has {size}: " \
               f"some configuration goes to two agents"
    return None


@CHECKS.check("dispatch_starts", "a dispatch that says where its agent starts (`start from its defaults`, `start from "
              "K=V,...`) is followed by that agent's candidate of that very configuration, and no two agents are told "
              "the same start: the lead's words are what each agent does")
def _dispatch_starts(row):
    return _first_problem(row, lambda m, starts: _start_problem(m, starts, row))


def _start_problem(m: dict, starts: dict, row: dict) -> str | None:
    """What is wrong with message `m` of `row` as a stated start or what follows one, given `starts` (which `m`
    updates): `starts["told"]`, (variant, configuration text) -> the agent told to start there; `starts["due"]`, agent
    -> the (variant, configuration text) its next candidate must be, until it is sent or another assignment comes."""
    kind = m["kind"]
    if kind == "candidate":
        due = starts.get("due", {}).pop(m["agent"], None)
        sent = (m["variant"], params_text(m["params"]))
        if due is not None and sent != due:
            return f"{m['agent']} was told to start {due[0]} from {due[1]}, but its candidate is {sent[0]} {sent[1]}"
    elif kind in ("dispatch", "redirect", "handoff"):
        due = starts.setdefault("due", {})
        due.pop(m["to"], None)
        said = _START.search(m.get("subtask", "")) if kind == "dispatch" else None
        if said is None:
            return None
        variant = m["variant"]
        config = said[1] if said[1] != "its defaults" else _defaults_text(row["op"], row["impl"]).get(variant)
        if config is None:
            return f"{m['to']} is told to start from the defaults of {variant}, a variant {row['op']} does not have"
        told = starts.setdefault("told", {})
        other = told.setdefault((variant, config), m["to"])
        if other != m["to"]:
            return f"{m['to']} is told to start {variant} from {config}, as {other} was"
        due[m["to"]] = (variant, config)
    return None


@cache
def _defaults_text(op: str, impl: str) -> dict[str, str]:
    """Variant tag -> its default configuration as messages write it, for `op` in `impl`."""
    return {v.tag: params_text(v.default_params()) for v in variants_for(op, impl)}


@CHECKS.check("review_quotes", "a review judges its candidate before any build, so it quotes no compiler or runtime "
              "output (a failed review sends the candidate back unbuilt)")
def _review_quotes(row):
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "review" and TOOL_TEXT.search(m["content"]):
            return f"message {i}: review quotes tool output of a build that never ran: {m['content']!r}"
    return None


@CHECKS.check("review_arch", "no review passes a candidate whose variant needs a feature the task's GPU lacks: the "
              "reviewer knows the GPU and reads what the code uses (the env would refuse it)")
def _review_arch(row):
    lacks = gpu_lacks(row["op"], row["impl"], row["dtype"], row["gpu"])
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "review" and m["status"] == "pass" and lacks[m["variant"]]:
            return (f"message {i}: passes {m['variant']}, which needs {', '.join(sorted(lacks[m['variant']]))} that "
                    f"{row['gpu']} lacks")
    return None


@CHECKS.check("fix_resends", "no agent sends the very code of its own previous candidate: a fix changes the broken "
              "lines (the same code builds to the same result)")
def _fix_resends(row):
    last: dict[str, str] = {}
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "candidate":
            if last.get(m["agent"]) == m["content"]:
                return f"message {i}: {m['agent']} resends the code of its previous candidate"
            last[m["agent"]] = m["content"]
    return None


@CHECKS.check("build_time", "a result comes its build's machine seconds after its candidate (or the review that "
              "cleared it): within what `clock.machine_range` allows for its language, source length, status and "
              "measured time")
def _build_time(row):
    msgs = row["messages"]
    cleared: dict[int, float] = {}      # candidate index -> when a review cleared it
    for i, m in enumerate(msgs):
        if m["kind"] == "review":
            cleared[m["ref"]] = m["t"]
        elif m["kind"] == "result":
            problem = _build_problem(row["impl"], msgs, m, cleared)
            if problem:
                return f"message {i}: {problem}"
    return None


def _build_problem(impl: str, msgs: list[dict], m: dict, cleared: dict[int, float]) -> str | None:
    """What is wrong with the time result `m` took after its candidate (or the review that cleared it), if anything."""
    candidate = msgs[m["ref"]]
    took = m["t"] - max(candidate["t"], cleared.get(m["ref"], 0.0))
    lines = candidate["content"].count("\n") + 1
    lo, hi = machine_range(impl, lines, _BUILD_STATUS.get(m["status"], m["status"]), m["time_ms"])
    if lo - _CLOCK_ATOL <= took <= hi + _CLOCK_ATOL:
        return None
    return f"the {m['status']} result comes {took:.1f} s after its candidate; its build takes {lo:.1f}-{hi:.1f} s"


@CHECKS.check("write_time", "no candidate comes sooner after its agent's latest message (or message to it: its "
              "assignment, a review, its last result) than writing it takes at the duration model's floor: a variant "
              "the agent has no source of (none written by it, handed to it or merged) is a whole kernel, at least "
              "`think_floor_s('new_variant', lines)`; an edit of one it has, the least of a tune or fix")
def _write_time(row):
    return _first_problem(row, _write_problem)


_EDIT_FLOOR_S = min(think_floor_s(kind, 0) for kind in ("tune", "fix"))


def _write_problem(m: dict, state: dict) -> str | None:
    """What is wrong with message `m` if it is a candidate written sooner than writing it takes, given `state`
    (agent -> the time of its latest message or message to it, agent -> the variants it has a source of, the
    variants merged), which `m` updates."""
    latest, repo = state.setdefault("latest", {}), state.setdefault("repo", set())
    sources = state.setdefault("sources", {})
    who, kind, problem = m["agent"], m["kind"], None
    if kind == "candidate":
        mine = sources.setdefault(who, set())
        whole = m["variant"] not in mine and m["variant"] not in repo
        lines = m["content"].count("\n") + 1
        least = think_floor_s("new_variant", lines) if whole else _EDIT_FLOOR_S
        took = m["t"] - latest.get(who, 0.0)
        if took < least - _CLOCK_ATOL:
            what = "a whole kernel" if whole else "an edit"
            problem = (f"{who}'s {lines}-line candidate ({what}) comes {took:.1f} s after its latest message; "
                       f"writing it takes {least:.1f} s at least")
        mine.add(m["variant"])
    elif kind == "merge":
        repo.add(m["variant"])
    elif kind == "handoff":
        sources.setdefault(m["to"], set()).add(m["variant"])
    latest[who] = m["t"]
    if "to" in m:
        latest[m["to"]] = m["t"]
    return problem


@CHECKS.check("own_runs", "each specialist has its own GPU and runs one build at a time: a result's build starts (at "
              "its candidate, or the review that cleared it) no sooner than the agent's previous result")
def _own_runs(row):
    msgs = row["messages"]
    cleared: dict[int, float] = {}
    ends: dict[str, float] = {}
    for i, m in enumerate(msgs):
        if m["kind"] == "review":
            cleared[m["ref"]] = m["t"]
        problem = _run_problem(msgs, m, cleared, ends)
        if problem:
            return f"message {i}: {problem}"
    return None


def _run_problem(msgs: list[dict], m: dict, cleared: dict[int, float], ends: dict[str, float]) -> str | None:
    """What is wrong with message `m` if it is a result whose build overlaps its agent's previous one, given
    `cleared` (candidate index -> when a review cleared it) and `ends` (agent -> its latest result's time, which `m`
    updates)."""
    if m["kind"] != "result":
        return None
    start = max(msgs[m["ref"]]["t"], cleared.get(m["ref"], 0.0))
    before = ends.get(m["to"], 0.0)
    ends[m["to"]] = m["t"]
    if start < before:
        return f"{m['to']}'s build of candidate {m['ref']} starts at {start} s, before its previous run ends ({before} s)"
    return None


@CHECKS.check("rebench_noise", "a verifier's rerun differs from the reported time by no more than re-measuring the same "
              "source can (calibration.noise_bound), and its percentage is that difference")
def _rebench_noise(row):
    for i, m in enumerate(row["messages"]):
        problem = m["kind"] == "verify" and _rebench_problem(m)
        if problem:
            return f"message {i}: {problem}"
    return None


@CHECKS.check("verify_gains", "a verification that says whether its rerun still beats the previous shared best names "
              "the best before the result it re-checks, and says it true")
def _verify_gains(row):
    before: dict[int, float] = {}       # result index -> the shared best before it
    shared = row["baseline_ms"]
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "result":
            before[i] = shared
            if m["status"] == "ok" and m["time_ms"] < shared:
                shared = m["time_ms"]
        problem = m["kind"] == "verify" and _gain_problem(m, before)
        if problem:
            return f"message {i}: {problem}"
    return None


def _gain_problem(m: dict, before: dict[int, float]) -> str | None:
    """What is false in verification `m`'s word on the gain over the previous best (`before`: result index -> the
    shared best before it), if it has one."""
    said, rerun = _GAIN.search(m["content"]), _REBENCH.search(m["content"])
    if said is None:
        return None
    prior = before.get(m["ref"])
    if rerun is None or prior is None or said[2] != ms_text(prior):
        return f"names the previous best {said[2]} ms, but the best before the result it re-checks is {prior} ms"
    if (float(rerun[2]) < prior) != (said[1] == "still beats"):
        return f"says the {rerun[2]} ms rerun {said[1]} the previous best {said[2]} ms"
    return None


def _rebench_problem(m: dict) -> str | None:
    said = _REBENCH.search(m["content"])
    if said is None:
        return None
    reported, rerun, percent = float(said[1]), float(said[2]), float(said[3])
    change = rerun / reported - 1
    if abs(change) > noise_bound(reported) + 1e-4:
        return f"rerun {rerun} ms vs {reported} ms reported: {100 * change:+.2f}%, beyond the noise ({100 * noise_bound(reported):.2f}%)"
    if abs(100 * change - percent) > 0.06:
        return f"says {percent:+.1f}%, but {rerun} / {reported} is {100 * change:+.2f}%"
    return None


@CHECKS.check("verify_once", "the verifier re-checks a result once: a second verification of the same result would "
              "rerun and time it again and contradict the first")
def _verify_once(row):
    return _first_problem(row, _reverify_problem)


def _reverify_problem(m: dict, state: dict) -> str | None:
    """What is wrong with message `m` if it verifies a result already verified, given `state["verified"]` (the
    results verified so far), which `m` updates."""
    if m["kind"] != "verify":
        return None
    verified = state.setdefault("verified", set())
    if m["ref"] in verified:
        return f"verifies result {m['ref']} again"
    verified.add(m["ref"])
    return None


@CHECKS.check("report_numbers", "every result's numbers are the task's (check.reports): time, speedups vs the baseline "
              "and the team's best before it, GB/s and TFLOPS, tolerance, output element counts and indices, launch limits")
def _report_numbers(row):
    task, baseline = reports.task_of(row), row["baseline_ms"]
    shared = baseline           # the team's best; a report names it once a result has beaten the baseline
    for i, m in enumerate(row["messages"]):
        if m["kind"] == "result":
            time = m["time_ms"]
            candidate = row["messages"][int(m["ref"])]
            said = reports.problem(task, m["status"], m["content"].partition("\n")[2], time, baseline,
                                   shared if shared < baseline else None,
                                   (m["variant"], candidate["params"], candidate["content"]))
            if said:
                return f"message {i}: {said}"
            if time is not None and time < shared:
                shared = time
    return None


@CHECKS.check("tune_within_reach", "no candidate is of a variant the team had measured further behind its best (the "
              "baseline until a result beats it) than any configuration change of it can close (Workbench.out_of_reach), "
              "as the team knew both when it was written")
def _tune_within_reach(row):
    i = hopeless_candidate(row)
    if i is not None:
        m = row["messages"][i]
        return f"message {i}: {m['agent']} writes {m['variant']}, out of reach of the team's best"
    return None


_ROUND_READ = frozenset({"leaderboard", "merge"})    # posted once the lead has read a round's results


def hopeless_candidate(row) -> int | None:
    """The index of the first candidate of a variant out of reach of the team's best, None when there is none. A
    team reads results as a round closes, and rounds are not marked (a round's dispatches interleave with its first
    results in time order): what it knew when it wrote a candidate holds at least the results before the latest
    leaderboard or merge (what the lead posts once it has read a round) and at most those before the candidate. So
    the variant must have run ok in the first, and its fastest time over the second is held against the best of
    the first: a candidate flagged so was out of reach whatever its author had read."""
    known, seen = Reach(row, row["baseline_ms"]), Reach(row)
    unread: list[tuple[str, float]] = []     # ok results since the latest message outside a round
    for i, m in enumerate(row["messages"]):
        kind = m["kind"]
        if kind == "candidate":
            if known.hopeless(m["variant"], seen.fastest.get(m["variant"])):
                return i
        elif kind == "result":
            if m["status"] == "ok":
                unread.append((m["variant"], m["time_ms"]))
                seen.saw(m["variant"], m["time_ms"])
        elif unread and kind in _ROUND_READ:
            for tag, time_ms in unread:
                known.saw(tag, time_ms)
            unread.clear()
    return None


@CHECKS.check("unique_ids", "episode_id is unique in the batch", scope="batch")
def _unique(rows):
    seen, out = set(), []
    for r in rows:
        if r["episode_id"] in seen:
            out.append(f"duplicate episode_id {r['episode_id']}")
        seen.add(r["episode_id"])
    return out


ROW_CHECKS = (_message_count, _agents, _kind_roles, _plan_names_task, _rewards, _agent_tallies, _leaderboards, _merges,
              _clock, _best, _physics, _arch_gating, _causality, _tuner_handoffs, _worker_assignments,
              _dispatch_shares, _dispatch_starts, _review_quotes, _review_arch, _fix_resends, _build_time,
              _rebench_noise, _report_numbers, _lead_sees, _tune_within_reach, _best_notices, _orders_stand,
              _verify_gains, _verify_once, _write_time, _own_runs)


@CHECKS.shortcut(ROW_CHECKS)
def row_checks_pass(row) -> bool:
    """True only if every check of ROW_CHECKS passes on `row`, a row valid against schema/episode.schema.json: the
    validator's hot path, one pass over the messages instead of one per check.

    It leans on what the schema already guarantees (each kind's sender roles and fields, a zero reward on every
    kind but result and verdict; tests/check/test_validate_semantic.py proves the schema says so): only env sends results
    and leaderboards, only the other roles send candidates, merges and the verdict. False says only "look closer":
    the checks themselves then name what fails. A malformed row raises, as the checks would.
    """
    msgs, agents, n = row["messages"], row["agents"], row["num_messages"]
    found = _ID.match(row["episode_id"])
    if n != len(msgs) or not found or int(found["n"]) != n or found["scenario"] != row["scenario"]:
        return False
    lo, hi = SCENARIOS[row["scenario"]]
    if not lo <= row["n_agents"] <= hi or len(agents) != row["n_agents"] + 1 or agents[0]["id"] != "lead":
        return False
    roles = {a["id"]: a["role"] for a in agents}
    kept, best = dict.fromkeys(roles, 0), {}
    ran = dict.fromkeys(roles, 0)   # env results per agent (what a status counts, and its `tries`)
    baseline, roofline = row["baseline_ms"], row["roofline_ms"]
    lacks = gpu_lacks(row["op"], row["impl"], row["dtype"], row["gpu"])
    shared, owner, last = baseline, None, msgs[0]["t"]
    task = reports.task_of(row)
    verdict = None
    built: set[int] = set()
    cleared: dict[int, float] = {}
    code: dict[str, str] = {}       # each agent's latest candidate
    handed: dict[str, str] = {}     # each tuner's latest handed variant
    assigned: dict[str, frozenset] = {}     # each agent's latest assigned variants
    dealt: dict[str, int] = {}      # each variant's configurations dealt out in shares
    starts: dict = {}               # the starts dispatches stated, and those still due (`_start_problem`)
    notices: dict = {}              # the shared best so far, and the one a notice must announce next
    orders: dict = {}               # the orders not acted on yet (`_order_problem`)
    sent: dict[int, float] = {}     # candidate index -> the shared best when it was sent
    before: dict[int, float] = {}   # result index -> the shared best before it
    verifies: dict = {}             # `_reverify_problem`'s state
    label = task_label(row)
    unseen = False                  # a passing result no leaderboard has shown the lead yet
    writes: dict = {}               # `_write_problem`'s state
    ends: dict[str, float] = {}     # each agent's latest result's time (`_run_problem`)
    for i, m in enumerate(msgs):   # in order: results move the bests that merges, leaderboards and rewards follow
        now, role = m["t"], m["role"]
        if now < last or _ref_problem(msgs, i, m) or _notice_problem(m, notices, baseline) or _order_problem(m, orders) \
                or _write_problem(m, writes):
            return False
        last = now
        if role == "env":
            kind = m["kind"]
            if kind == "result":
                if m["ref"] in built or _build_problem(row["impl"], msgs, m, cleared) \
                        or _run_problem(msgs, m, cleared, ends):
                    return False
                built.add(m["ref"])
                ran[m["to"]] += 1
                status, ms = m["status"], m["time_ms"]
                before[i] = shared
                if abs(m["reward"] - result_reward(status, ms, sent.get(m["ref"], shared))) > _REWARD_ATOL:
                    return False
                candidate = msgs[int(m["ref"])]
                if reports.problem(task, status, m["content"].partition("\n")[2], ms, baseline,
                                   shared if shared < baseline else None,
                                   (m["variant"], candidate["params"], candidate["content"])):
                    return False
                if lacks[m["variant"]] and status != "unsupported_arch":
                    return False
                if status == "ok":
                    who = m["to"]
                    unseen = True
                    if ms < roofline:
                        return False
                    if ms < best.get(who, math.inf):
                        best[who] = ms
                    if ms < shared:
                        shared, owner = ms, who
                        kept[who] += 1
            elif kind == "leaderboard":
                entries = _BOARD_ENTRIES.findall("\n" + "\n".join(m["content"].splitlines()[1:]))
                times = [float(x) for _agent, x in entries]
                if times != sorted(times) or {a for a, _x in entries} != best.keys():
                    return False
                unseen = False
        elif roles.get(m["agent"]) != role or _tuner_problem(m, handed) or _worker_problem(m, assigned) \
                or _start_problem(m, starts, row):
            return False
        else:
            kind = m["kind"]
            if kind == "candidate":
                if code.get(m["agent"]) == m["content"]:
                    return False
                code[m["agent"]] = m["content"]
                sent[i] = shared
            elif kind == "status":
                if _status_problem(m, ran, kept):
                    return False
            elif kind == "plan":
                if label not in m["content"]:
                    return False
            elif kind == "dispatch":
                if _share_problem(m, dealt):
                    return False
            elif kind == "review":
                if TOOL_TEXT.search(m["content"]) or (m["status"] == "pass" and lacks[m["variant"]]):
                    return False
                cleared[m["ref"]] = now
            elif kind == "verify":
                if _reverify_problem(m, verifies) or _rebench_problem(m) or _gain_problem(m, before):
                    return False
            elif kind == "merge":
                if m["time_ms"] != shared or m["to"] != owner or unseen:
                    return False
            elif kind == "verdict":
                verdict = m
                if unseen:
                    return False
                if abs(m["reward"] - verdict_reward(row["speedup"], improved=not _kept_baseline(m))) > _REWARD_ATOL:
                    return False
    lo, hi = HOURS_RANGE
    if row["elapsed_s"] != last or not lo * 3600 <= last <= hi * 3600:
        return False
    if any((a["tries"], a["kept"], a["best_ms"]) != (ran[a["id"]], kept[a["id"]], best.get(a["id"])) for a in agents):
        return False
    best_ms = row["best_ms"]      # the shared best: the fastest passing result below the baseline, else the baseline
    kept = verdict is not None and _kept_baseline(verdict)
    return (best_ms == shared and (shared == baseline) == kept
            and (verdict is None or verdict["time_ms"] == best_ms)
            and math.isclose(row["speedup"], baseline / best_ms, rel_tol=_SPEEDUP_RTOL)
            and hopeless_candidate(row) is None)
