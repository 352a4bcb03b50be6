"""kernelinfer `steps` view: one training row per step of a session, in TRL's conversational prompt-completion form.

Why: a session is median ~150K tokens and ends on a user turn, so it neither fits a context nor trains a policy
step by step. Here every step becomes a self-contained decision: the prompt is the system turn and one user turn
holding the task and a compact state (one line per earlier step, the current best source with its report, and
the previous step's source with its feedback when that is not the best), the completion the kernel the engineer
wrote next. `session_id` groups a session's steps (the group of GRPO), and `reward` scores the step exactly as
kernelswarm scores a result against the running best, which starts at the baseline; a step whose variant needs a
feature the GPU lacks (the row's arch gating) scores as kernelswarm's unsupported_arch
(`generator.kernelinfer.step_rewards`, which the validator recomputes).

What does not fit `window_tokens` (counted by `generator.tokens`) is left out and said: the oldest history lines
first (a line then says how many), then whole parts, least important first, each replaced by a note naming it
(`generator.kernelinfer.step_state`: the previous step's kernel, its feedback, the best kernel, its report; on a
`fix` step the best's before the previous step's, whose kernel the fix edits). A message is never cut inside. A
step whose system turn, task, notes and completion alone exceed the window yields no row.
"""
from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from datasets import Value

from generator import tokens
from generator.kernelinfer import step_state
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
    history = _History(trace)          # made once: every later step's prompt lists the earlier ones
    for i, (step, reward, best) in enumerate(zip(trace, rewards(row), step_state.bests(row))):
        completion = [{"role": "assistant", "content": msgs[2 + 2 * i]["content"]}]
        prompt = _prompt(row, i, best, history, window_tokens - tokens.chat(completion))
        if prompt is not None:
            out.append({
                "session_id": row["session_id"], "step": step["step"], "kind": step["kind"], "tag": step["tag"],
                "status": step["status"], "time_ms": step["time_ms"], "reward": reward,
                "prompt": prompt, "completion": completion,
                "prompt_tokens": tokens.chat(prompt), "completion_tokens": tokens.chat(completion)})
    return out


class _History:
    """A session's history lines (one per step) and their running token costs, so that a step's prompt finds how
    many of the newest earlier lines fit its room by bisection, not by recounting them for every step."""

    def __init__(self, trace: list[dict]):
        self.lines = [step_state.summary(step) for step in trace]
        self.costs = [0, *accumulate(tokens.count("\n" + line) for line in self.lines)]   # costs[j]: lines[:j]

    def newest(self, i: int, room: int) -> int:
        """The first index of the longest run of lines before `i` whose cost fits `room` (i when none fits)."""
        return bisect_left(self.costs, self.costs[i] - room, 0, i)


def _prompt(row: dict, i: int, best: dict | None, history: _History, budget: int) -> list[dict] | None:
    """System and user turns for step index `i` within `budget` tokens (`history`: one line per step; the lines
    before `i` are offered), or None when even the bare task and the notes do not fit. Every part's note is
    counted first, so a part that does not fit is always replaced by its note; parts are then added most
    important first, and the history keeps its newest lines in the room left."""
    system, head = row["messages"][0], row["messages"][1]["content"]
    ask = step_state.ask(row["trace"][i])
    parts = step_state.parts(row, i, best)
    history_note = tokens.count("\n\n" + step_state.history_text([], i)) if i else 0
    left = (budget - tokens.chat([system, {"content": f"{head}\n\n{ask}"}]) - history_note
            - sum(tokens.count("\n\n" + part.note) for part in parts))
    if left < 0:
        return None
    chosen = {}
    for part in parts:
        extra = tokens.count("\n\n" + part.text) - tokens.count("\n\n" + part.note)
        if extra <= left:      # a part's count is never below its share of the whole's
            chosen[part.name], left = part.text, left - extra
        else:
            chosen[part.name] = part.note
    texts = [head]
    if i:
        omitted = history.newest(i, left)
        texts.append(step_state.history_text(history.lines[omitted:i], omitted))
    texts += [chosen[name] for name in step_state.ORDER if name in chosen] + [ask]
    return [system, {"role": "user", "content": "\n\n".join(texts)}]
