"""The `steps` view's rewards, from a session's trace, and the validator's rule that recomputes them.

Why one module: the view writes each step's `reward` from `rewards` and `python -m generator validate` checks a
written steps file against the session rows of its shard with `problems`, so a reward edited after generation,
or a step row that no longer matches its session's trace (its prompt included: `generator.kernelinfer.step_state`),
is found with the view file and row named. A step is
scored as kernelswarm scores an env result (`generator.sim.rewards`) against the running best, which starts at
the baseline and moves with every faster ok step; a step whose variant needs a feature the GPU lacks (an arch
refusal) scores as unsupported_arch. Imports no `datasets`: the validator runs it.
"""
from __future__ import annotations

from typing import Iterator

from generator.catalog.variants import gpu_lacks
from generator.kernelinfer import step_state
from generator.sim.rewards import result_reward

SAME = ("kind", "tag", "status", "time_ms")      # a step row's fields copied from its trace entry


def rewards(row: dict) -> list[float]:
    """The reward of every step of session `row`, in trace order."""
    lacks = gpu_lacks(row["op"], row["impl"], row["dtype"], row["gpu"])
    best_ms = row["baseline_ms"]
    out = []
    for step in row["trace"]:
        status = "unsupported_arch" if lacks[step["tag"]] else step["status"]
        out.append(result_reward(status, step["time_ms"], best_ms))
        if step["status"] == "ok" and step["time_ms"] < best_ms:
            best_ms = step["time_ms"]
    return out


def problems(row: dict, steps: list[dict]) -> Iterator[tuple[int, str]]:
    """(index in `steps`, message) for each step row of session `row` that its trace does not give: an unknown
    step, a copied field that differs, a completion that is not the step's kernel, a reward not the formula's, a
    prompt that is not the session's state before the step (`prompt_problem`)."""
    trace, msgs = row["trace"], row["messages"]
    want = rewards(row)
    best = step_state.bests(row)
    history = [step_state.summary(step) for step in trace]
    for k, view in enumerate(steps):
        n = view["step"]
        if not 1 <= n <= len(trace):
            yield k, f"step {n}: session {row['session_id']} has {len(trace)} steps"
            continue
        step = trace[n - 1]
        for field in SAME:
            if view[field] != step[field]:
                yield k, f"step {n}: {field} {view[field]!r} but the trace says {step[field]!r}"
        if [m["content"] for m in view["completion"]] != [msgs[2 * n]["content"]]:
            yield k, f"step {n}: the completion is not the kernel of the session's step {n}"
        if view["reward"] != want[n - 1]:
            yield k, f"step {n}: reward {view['reward']} but the formula on the trace gives {want[n - 1]}"
        problem = prompt_problem(row, n - 1, best[n - 1], history, view["prompt"])
        if problem:
            yield k, f"step {n}: {problem}"


def prompt_problem(row: dict, i: int, best: dict | None, history: list[str], prompt: list[dict]) -> str | None:
    """What is wrong with `prompt` as step index `i`'s (None when nothing; `best`: `step_state.bests(row)[i]`,
    `history`: `step_state.summary` of every step of the trace): the session's system turn, then one
    user turn: the task, the history (the newest lines of the earlier steps, the others counted), each state part
    verbatim or its note, the request. So a prompt that drops a part silently, cuts a message, states a wrong
    best or a wrong history line, or shows a later step's feedback fails."""
    msgs, trace = row["messages"], row["trace"]
    if [m.get("role") for m in prompt] != ["system", "user"] or prompt[0]["content"] != msgs[0]["content"]:
        return "the prompt is not the session's system turn and one user turn"
    text, head = prompt[1]["content"], msgs[1]["content"] + "\n\n"
    if not text.startswith(head):
        return "the user turn does not open with the session's task"
    at = len(head)                    # where the next piece must start (the text is read in place, not copied)
    if i:
        end = text.find("\n\n", at)
        note = text[at:end].split("\n")[1:2] if end >= 0 else []
        omitted = int(note[0][1:].split(" ")[0]) if note and note[0][1:].split(" ")[0].isdigit() else 0
        if text[at:end] != step_state.history_text(history[omitted:i], omitted):
            return f"the history is not the trace's lines of steps {omitted + 1}..{i} (the others counted)"
        at = end + 2
    parts = {part.name: part for part in step_state.parts(row, i, best)}
    for name in (name for name in step_state.ORDER if name in parts):
        option = next((o for o in (parts[name].text, parts[name].note) if text.startswith(o + "\n\n", at)), None)
        if option is None:
            return f"the {name} part is neither the session's text nor the note saying it is omitted"
        at += len(option) + 2
    if text[at:] != step_state.ask(trace[i]):
        return "the user turn does not end on the request for this step"
    return None
