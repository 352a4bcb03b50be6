"""Code diversity of a dataset's kernel sources: can a model learn kernels from them, or only 157 templates?

Computed from the rows alone (kernelinfer sessions or kernelswarm episodes) by `bench/diversity_audit.py`:
distinct sources, distinct digit-masked skeletons (every run of decimal digits replaced by one placeholder, so
tuned values and shapes do not count as different code), and how much of a session's code also appears in another
session. Not in stats.json or the card yet: exact figures hold every distinct source (here the text itself), so
the generator would need per-shard digests carried to its final step, whose memory must stay flat.
"""
from __future__ import annotations

import re
import statistics
from collections import defaultdict
from typing import Iterable

_DIGITS = re.compile(r"\d+")


def mask_digits(text: str) -> str:
    """The source with every run of decimal digits replaced by `#`."""
    return _DIGITS.sub("#", text)


def _median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def session_sources(row: dict) -> list[tuple[str, str, str]]:
    """A kernelinfer row's assistant turns as (source, step kind, status), in step order."""
    sources = [m["content"] for m in row["messages"] if m["role"] == "assistant"]
    return [(src, t["kind"], t["status"]) for src, t in zip(sources, row["trace"])]


def kernelinfer_diversity(rows: Iterable[dict]) -> dict:
    """The diversity figures of kernelinfer sessions:

    - `assistant_turns`, `distinct_sources`, `distinct_masked_ok`: turns, distinct sources, distinct masked
      sources of ok steps;
    - `ok_session_variants`: distinct (session, variant) pairs that reached an ok step (`masked_ok_per_pair` is
      distinct_masked_ok over it);
    - `cross_session_turn_share`: share of turns byte-identical to a turn of another session;
    - `median_private_masked_ok`: per session, the share of its distinct masked ok sources that occur in no other
      session, median over sessions;
    - `median_same_task_overlap`: per session, the share of its steps whose source also occurs in another session
      of the same (op, impl, gpu), median over sessions;
    - `median_tune_changed_lines`: lines changed between consecutive `tune` steps of a session, median.
    """
    owners: dict[str, set[int]] = defaultdict(set)           # source -> sessions
    masked_owners: dict[str, set[int]] = defaultdict(set)    # masked ok source -> sessions
    groups: dict[tuple, list[int]] = defaultdict(list)       # (op, impl, gpu) -> sessions
    per_session: list[tuple[list[str], set[str]]] = []
    pairs: set[tuple[int, str]] = set()
    tune_changes: list[int] = []
    for i, row in enumerate(rows):
        groups[(row["op"], row["impl"], row["gpu"])].append(i)
        steps = session_sources(row)
        masked_ok: set[str] = set()
        previous_tune = None
        for (src, kind, status), t in zip(steps, row["trace"]):
            owners[src].add(i)
            if status == "ok":
                masked_ok.add(mask_digits(src))
                pairs.add((i, t["tag"]))
            if kind == "tune":
                if previous_tune is not None:
                    tune_changes.append(changed_lines(previous_tune, src))
                previous_tune = src
            else:
                previous_tune = None
        for m in masked_ok:
            masked_owners[m].add(i)
        per_session.append(([src for src, _k, _s in steps], masked_ok))
    turns = sum(len(srcs) for srcs, _ in per_session)
    shared_turns = sum(1 for srcs, _ in per_session for s in srcs if len(owners[s]) > 1)
    private = [sum(1 for m in masked if len(masked_owners[m]) == 1) / len(masked)
               for _, masked in per_session if masked]
    group_of = {i: key for key, members in groups.items() for i in members}
    overlap = []
    for i, (srcs, _) in enumerate(per_session):
        members = set(groups[group_of[i]])
        if len(members) > 1 and srcs:
            overlap.append(sum(1 for s in srcs if (owners[s] & members) - {i}) / len(srcs))
    return {
        "assistant_turns": turns,
        "distinct_sources": len(owners),
        "distinct_masked_ok": len(masked_owners),
        "ok_session_variants": len(pairs),
        "masked_ok_per_pair": len(masked_owners) / len(pairs) if pairs else 0.0,
        "cross_session_turn_share": shared_turns / turns if turns else 0.0,
        "median_private_masked_ok": _median(private),
        "median_same_task_overlap": _median(overlap),
        "median_tune_changed_lines": _median(tune_changes),
    }


def changed_lines(before: str, after: str) -> int:
    """Lines of `after` that differ from `before`: position by position when the line counts agree (a tune step
    edits lines in place), else the lines difflib reports added."""
    old, new = before.splitlines(), after.splitlines()
    if len(old) == len(new):
        return sum(1 for a, b in zip(old, new) if a != b)
    import difflib
    return sum(1 for ln in difflib.unified_diff(old, new, lineterm="", n=0) if ln[:1] == "+" and ln[:3] != "+++")


def kernelswarm_diversity(rows: Iterable[dict]) -> dict:
    """The diversity figures of kernelswarm candidates: `candidates`, `distinct_sources`, `distinct_masked_ok`
    (masked sources of candidates whose env result was ok) and `ok_triples`, the distinct (episode, agent, variant)
    triples with an ok result (`masked_ok_per_triple` is distinct_masked_ok over it)."""
    sources: set[str] = set()
    masked_ok: set[str] = set()
    triples: set[tuple[int, str, str]] = set()
    candidates = 0
    for i, row in enumerate(rows):
        waiting: dict[str, list[dict]] = defaultdict(list)    # agent -> its candidates awaiting a result, in order
        for msg in row["messages"]:
            if msg["kind"] == "candidate":
                candidates += 1
                sources.add(msg["content"])
                waiting[msg["agent"]].append(msg)
            elif msg["kind"] == "result" and waiting.get(msg.get("to")):
                cand = _take(waiting[msg["to"]], msg.get("variant"))
                if cand is not None and msg.get("status") == "ok":
                    masked_ok.add(mask_digits(cand["content"]))
                    triples.add((i, cand["agent"], cand["variant"]))
    return {"candidates": candidates, "distinct_sources": len(sources), "distinct_masked_ok": len(masked_ok),
            "ok_triples": len(triples), "masked_ok_per_triple": len(masked_ok) / len(triples) if triples else 0.0}


def _take(queue: list[dict], variant: str | None) -> dict | None:
    """The agent's oldest waiting candidate of `variant` (results come back in time order, per agent)."""
    for j, cand in enumerate(queue):
        if cand["variant"] == variant:
            return queue.pop(j)
    return None
