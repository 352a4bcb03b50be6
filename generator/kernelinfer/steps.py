"""kernelinfer `steps` view: one training row per step of a session, in TRL's conversational prompt-completion form.

Why: a session is median ~150K tokens and ends on a user turn, so it neither fits a context nor trains a policy
step by step. Here every step becomes a self-contained decision: the prompt is the system turn and one user turn
holding the task and a compact state (one line per earlier step, the current best source with its report, and
the previous step's source with its feedback when that is not the best), the completion the kernel the engineer
wrote next. `session_id` groups a session's steps (the group of GRPO), and `reward` scores the step exactly as
kernelswarm scores a result against the running best, which starts at the baseline; a step whose variant needs a
feature the GPU lacks (the row's arch gating) scores as kernelswarm's unsupported_arch
(`generator.kernelinfer.step_rewards`, which the validator recomputes).

What does not fit `window_tokens` (counted by `generator.tokens`) is dropped in this order: the oldest history
lines (a line then says how many), the previous step's source, its feedback, the best source, the best report.
A step whose system turn, task and completion alone exceed the window yields no row.
"""
from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from datasets import Value

from generator import tokens
from generator.kernelinfer.step_rewards import rewards
from generator.task_features import prompt_completion

WINDOW_TOKENS = 32_768
FEATURES = prompt_completion({
    "session_id": Value("string"),
    "step": Value("int64"),
    "kind": Value("string"),
    "tag": Value("string"),
    "status": Value("string"),
    "time_ms": Value("float64"),
    "reward": Value("float64"),
})


def rows(row: dict, *, window_tokens: int = WINDOW_TOKENS) -> list[dict]:
    """The step rows of one session row, in step order."""
    msgs, trace = row["messages"], row["trace"]
    out = []
    best = None                        # the trace entry of the running best (lowest ok time so far)
    best_ms = row["baseline_ms"]
    history = _History(trace)          # made once: every later step's prompt lists the earlier ones
    for i, (step, reward) in enumerate(zip(trace, rewards(row))):
        completion = [{"role": "assistant", "content": msgs[2 + 2 * i]["content"]}]
        prompt = _prompt(row, i, best, history, window_tokens - tokens.chat(completion))
        if prompt is not None:
            out.append({
                "session_id": row["session_id"], "step": step["step"], "kind": step["kind"], "tag": step["tag"],
                "status": step["status"], "time_ms": step["time_ms"], "reward": reward,
                "prompt": prompt, "completion": completion,
                "prompt_tokens": tokens.chat(prompt), "completion_tokens": tokens.chat(completion)})
        if step["status"] == "ok" and step["time_ms"] < best_ms:
            best, best_ms = step, step["time_ms"]
    return out


class _History:
    """A session's history lines (one per step) and their running token costs, so that a step's prompt finds how
    many of the newest earlier lines fit its room by bisection, not by recounting them for every step."""

    def __init__(self, trace: list[dict]):
        self.lines = [_summary(step) for step in trace]
        self.costs = [0, *accumulate(tokens.count("\n" + line) for line in self.lines)]   # costs[j]: lines[:j]

    def newest(self, i: int, room: int) -> int:
        """The first index of the longest run of lines before `i` whose cost fits `room` (i when none fits)."""
        return bisect_left(self.costs, self.costs[i] - room, 0, i)


def _prompt(row: dict, i: int, best: dict | None, history: _History, budget: int) -> list[dict] | None:
    """System and user turns for step index `i` within `budget` tokens (`history`: one line per step; the lines
    before `i` are offered), or None when even the bare task does not fit. Sections are added most important
    first; the history keeps its newest lines."""
    msgs, trace = row["messages"], row["trace"]
    system = msgs[0]
    head, ask = msgs[1]["content"], f"Write step {trace[i]['step']}: the full kernel source."
    left = budget - tokens.chat([system, {"content": f"{head}\n\n{ask}"}])
    if left < 0:
        return None
    sections: dict[str, str] = {}      # name -> text, joined in a fixed order below

    def add(name: str, text: str) -> None:
        nonlocal left
        cost = tokens.count("\n\n" + text)     # a part's count is never below its share of the whole's
        if cost <= left:
            sections[name] = text
            left -= cost

    if best is None:
        add("best", f"No kernel has passed yet; the baseline is {row['baseline_ms']} ms.")
    else:
        b = best["step"] - 1
        add("best_report", f"Report of the best kernel (step {best['step']}):\n{msgs[3 + 2 * b]['content']}")
        add("best", f"Current best kernel (step {best['step']}, {_label(best)}, {best['time_ms']} ms):\n"
                    f"{msgs[2 + 2 * b]['content']}")
    previous = trace[i - 1] if i else None
    if previous is not None and previous is not best:
        add("previous_feedback", f"Feedback on the previous step (step {previous['step']}):\n"
                                 f"{msgs[1 + 2 * i]['content']}")
        add("previous", f"Previous step's kernel (step {previous['step']}, {_label(previous)}):\n"
                        f"{msgs[2 * i]['content']}")
    room = left - tokens.count(f"\n\nSteps so far:\n({i} earlier steps omitted)")
    omitted = history.newest(i, room)
    if omitted < i:
        add("history", "Steps so far:\n" + (f"({omitted} earlier steps omitted)\n" if omitted else "")
            + "\n".join(history.lines[omitted:i]))
    order = ("history", "best", "best_report", "previous", "previous_feedback")
    text = "\n\n".join([head] + [sections[name] for name in order if name in sections] + [ask])
    return [system, {"role": "user", "content": text}]


def _label(step: dict) -> str:
    params = ",".join(f"{k}={v}" for k, v in step["params"].items())
    return f"{step['tag']} {params}" if params else step["tag"]


def _summary(step: dict) -> str:
    """One line for an earlier step."""
    result = f"ok {step['time_ms']} ms" if step["status"] == "ok" else step["status"]
    return f"{step['step']}. {step['kind']} {_label(step)}: {result}"
