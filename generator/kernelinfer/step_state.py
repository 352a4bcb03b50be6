"""What a `steps` prompt states about a session before one of its steps, and what stands in for a part that does
not fit: the parts (the running best kernel and its report, the previous step's kernel and its feedback, one
history line per earlier step), each with the note that replaces it when the token window has no room for it.

Why a module of its own: the view builds its prompts from these parts (`generator.kernelinfer.steps`) and the
validator's rule (`generator.kernelinfer.step_rewards.problems`) checks a written prompt against them, so a
prompt holds every part verbatim or the note naming what was left out, never a silent gap. A `fix` step edits
the previous step's kernel (the session's fix replaces that source), so there the previous kernel and its
feedback come before the best's; elsewhere the best comes first. Times print as the reports print them
(`feedback.ms_text`: 0.19960 ms, not 0.1996). Imports no `datasets`: the validator runs it.
"""
from __future__ import annotations

from typing import NamedTuple

from generator.sim.feedback import ms_text

HISTORY = "Steps so far:"
ORDER = ("best", "best_report", "previous", "previous_feedback")    # the parts' order in the prompt's text


class Part(NamedTuple):
    name: str        # one of ORDER
    text: str        # the part as the prompt holds it when it fits
    note: str        # what the prompt holds instead when it does not


def bests(row: dict) -> list[dict | None]:
    """The running best before each step (the trace entry of the fastest ok step so far; None while no step beat
    the baseline), in trace order."""
    best, best_ms, out = None, row["baseline_ms"], []
    for step in row["trace"]:
        out.append(best)
        if step["status"] == "ok" and step["time_ms"] < best_ms:
            best, best_ms = step, step["time_ms"]
    return out


def parts(row: dict, i: int, best: dict | None) -> list[Part]:
    """The parts of step index `i`'s state (`best`: `bests(row)[i]`), most important first."""
    msgs, trace = row["messages"], row["trace"]
    if best is None:
        # true whether nothing has passed or only kernels slower than the baseline (their history lines say so):
        # the running best, as the rewards score it, starts at the baseline
        text = f"No kernel has beaten the baseline yet ({ms_text(row['baseline_ms'])} ms)."
        out = [Part("best", text, text)]
    else:
        b, n = best["step"] - 1, best["step"]
        out = [Part("best_report", f"Report of the best kernel (step {n}):\n{msgs[3 + 2 * b]['content']}",
                    _omitted(f"the report of the best kernel (step {n})")),
               Part("best", f"Current best kernel (step {n}, {label(best)}, {ms_text(best['time_ms'])} ms):\n"
                            f"{msgs[2 + 2 * b]['content']}",
                    _omitted(f"the current best kernel (step {n}, {label(best)}, {ms_text(best['time_ms'])} ms)"))]
    previous = trace[i - 1] if i else None
    if previous is not None and previous is not best:
        n = previous["step"]
        mine = [Part("previous_feedback", f"Feedback on the previous step (step {n}):\n{msgs[1 + 2 * i]['content']}",
                     _omitted(f"the feedback on the previous step (step {n})")),
                Part("previous", f"Previous step's kernel (step {n}, {label(previous)}):\n{msgs[2 * i]['content']}",
                     _omitted(f"the previous step's kernel (step {n}, {label(previous)})"))]
        out = mine + out if trace[i]["kind"] == "fix" else out + mine
    return out


def history_text(lines: list[str], omitted: int) -> str:
    """The history part: the lines kept, after a note counting the `omitted` oldest ones."""
    return "\n".join([HISTORY] + [f"({omitted} earlier steps omitted)"] * bool(omitted) + lines)


def summary(step: dict) -> str:
    """One history line for an earlier step (its time as the step's report printed it)."""
    result = f"ok {ms_text(step['time_ms'])} ms" if step["status"] == "ok" else step["status"]
    return f"{step['step']}. {step['kind']} {label(step)}: {result}"


def label(step: dict) -> str:
    params = ",".join(f"{k}={v}" for k, v in step["params"].items())
    return f"{step['tag']} {params}" if params else step["tag"]


def ask(step: dict) -> str:
    """The prompt's closing request."""
    return f"Write step {step['step']}: the full kernel source."


def _omitted(what: str) -> str:
    return f"({what} is omitted: it does not fit the token window)"
