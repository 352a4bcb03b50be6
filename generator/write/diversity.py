"""Code diversity of a dataset's kernel sources: can a model learn kernels from them, or only 157 templates?

Issue #16's figures, computed from the rows (kernelinfer: the sessions' assistant sources; kernelswarm: the
episodes' candidate sources): distinct sources, distinct digit-masked skeletons (every run of decimal digits
replaced by one placeholder, so tuned values and shapes do not count as different code), and how much of a
session's code also appears in another session. `stats.json` `diversity` holds them, the card's Diversity section
prints them, `bench/diversity_audit.py DIR` checks a folder against the issue's bounds.

Two stages, like every statistic, so generation stays sharded and flat: `*_digests(rows)` runs in the worker
that wrote the shard and keeps only 8-byte sha256 digests of the sources (base64 in the shard's summary, which
the scale engines keep in a JSON marker); `*_figures(shards)` merges them in the final step with numpy over the
fixed-size digest arrays. Memory: the summaries hold ~16.5 bytes per distinct (session, source) pair (8 of digest
+ 4 of turn count, as base64), the merge ~45 more while it runs (the decoded arrays, np.unique's sorted copy and
counts); measured on a default kernelinfer folder (148,492 pairs): 2.5 MB held, 6.7 MB peak for the merge, so
~0.25 GB and ~0.7 GB at 100x. Counts are exact up to a 64-bit digest collision (odds below 1e-5 at 100x). In the
worker the digests cost ~15 % of a kernelinfer shard's CPU time: tune steps are compared and masked through the
bytes they change (`_edit`), not line by line.
"""
from __future__ import annotations

import base64
import hashlib
import operator
import re
import statistics
from collections import Counter, defaultdict
from typing import Iterable

import numpy as np

_DIGITS = re.compile(r"[0-9]+")
_DIGITS_BYTES = re.compile(rb"[0-9]+")
_WINDOW = 512
_DIGEST = np.dtype("<u8")
_COUNT = np.dtype("<u4")
_DIGIT = np.zeros(256, bool)            # byte -> is a decimal digit (what `mask_digits` masks)
_DIGIT[ord("0"):ord("9") + 1] = True


def mask_digits(text: str) -> str:
    """The source with every run of decimal digits (0-9) replaced by `#`."""
    return _DIGITS.sub("#", text)


def digest(data: bytes) -> bytes:
    """8 bytes of a source's sha256 (its UTF-8 bytes): what the shards keep instead of the text."""
    return hashlib.sha256(data).digest()[:8]


def _pack(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unpack(texts: list[str], dtype: np.dtype) -> tuple[np.ndarray, list[np.ndarray]]:
    """The shards' packed arrays decoded into one array, a shard's bytes at a time: (it, each shard's view of it)."""
    sizes = [len(t) // 4 * 3 - t[-2:].count("=") for t in texts]
    whole = np.empty(sum(sizes) // dtype.itemsize, dtype)
    parts, at = [], 0
    for text, size in zip(texts, sizes):
        part = whole[at:at + size // dtype.itemsize]
        part[:] = np.frombuffer(base64.b64decode(text), dtype=dtype)
        parts.append(part)
        at += len(part)
    return whole, parts


def _median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else 0.0


def changed_lines(before: bytes, after: bytes, edit: tuple[int, int, int] | None = None) -> int:
    """Lines (split at `\\n`) of `after` that differ from `before`: position by position when the line counts
    agree (a tune step edits lines in place), else the lines of `after` that no line of `before` matches (as
    multisets: a moved line is not a change). Only the lines around the edit (`_edit`, given or found) are
    compared: the others are the same lines, at the same positions."""
    start, _end, tail = edit or _edit(before, after)
    start = before.rfind(b"\n", 0, start) + 1
    old = before[start:_line_end(before, len(before) - tail)].split(b"\n")
    new = after[start:_line_end(after, len(after) - tail)].split(b"\n")
    if len(old) == len(new):
        return sum(map(operator.ne, old, new))
    return sum((Counter(new) - Counter(old)).values())


def _line_end(data: bytes, at: int) -> int:
    end = data.find(b"\n", at)
    return len(data) if end < 0 else end


def _edit(before: bytes, after: bytes) -> tuple[int, int, int]:
    """(head, before's end of the edit, tail): the lengths of the longest common prefix and (not overlapping it)
    suffix of the two sources, as `before`'s edit window [head, len - tail)."""
    m = min(len(before), len(after))
    a, b = _bytes(before), _bytes(after)
    head = _first_difference(a[:m], b[:m])
    tail = min(_first_difference(a[len(a) - m:][::-1], b[len(b) - m:][::-1]), m - head)
    return head, len(before) - tail, tail


def _first_difference(a: np.ndarray, b: np.ndarray) -> int:
    differ = a != b
    i = int(differ.argmax())
    return i if differ[i] else len(differ)


def _bytes(data: bytes) -> np.ndarray:
    return np.frombuffer(data, np.uint8)


def masked_digest(data: bytes) -> bytes:
    """`digest` of the source with digits masked (`mask_digits`), on its UTF-8 bytes."""
    a = _bytes(data)
    digit = _DIGIT[a]
    keep = ~(digit & np.concatenate(([False], digit[:-1])))     # the first digit of each run, and non-digits
    return digest(np.where(digit[keep], np.uint8(ord("#")), a[keep]).tobytes())


def _same_mask(before: bytes, after: bytes, edit: tuple[int, int, int]) -> bool:
    """Whether the two sources mask alike (a tuned constant: only digits changed), from the edit window alone,
    widened to whole digit runs so the masked text is the common prefix, the masked window, the common suffix;
    False for a window wider than `_WINDOW` bytes, where masking the whole source (the caller) is as quick."""
    head, end, tail = edit
    if end - head > _WINDOW:
        return False
    while head and _DIGIT[before[head - 1]]:
        head -= 1
    while tail and _DIGIT[before[len(before) - tail]]:
        tail -= 1
    return (_DIGITS_BYTES.sub(b"#", before[head:len(before) - tail])
            == _DIGITS_BYTES.sub(b"#", after[head:len(after) - tail]))


def session_sources(row: dict) -> list[tuple[str, str, str, str]]:
    """A kernelinfer row's assistant turns as (source, step kind, status, variant tag), in step order."""
    sources = [m["content"] for m in row["messages"] if m["role"] == "assistant"]
    return [(src, t["kind"], t["status"], t["tag"]) for src, t in zip(sources, row["trace"])]


def kernelinfer_digests(rows: Iterable[dict]) -> dict:
    """One shard's part, per session in row order: its distinct sources' digests with their turn counts, its
    distinct masked ok sources' digests, its (op, impl, gpu) group; over the shard: the (session, variant) pairs
    that reached ok and a histogram of changed lines between consecutive tune steps."""
    sources, counts, masked = bytearray(), [], bytearray()
    pairs_per_session, masked_per_session, groups = [], [], []
    ok_pairs = 0
    tune_changes: Counter = Counter()
    for row in rows:
        turns: Counter = Counter()
        masked_ok: dict[bytes, None] = {}
        ok_tags: set[str] = set()
        previous_ok = previous_tune = None     # (bytes, masked digest) of the last ok step; bytes of the last tune
        for src, kind, status, tag in session_sources(row):
            data = src.encode()
            turns[digest(data)] += 1
            edits = {}                         # previous source -> its edit window to this one, found once
            def edit(previous: bytes) -> tuple[int, int, int]:
                return edits.get(id(previous)) or edits.setdefault(id(previous), _edit(previous, data))
            if status == "ok":
                same = previous_ok is not None and _same_mask(previous_ok[0], data, edit(previous_ok[0]))
                previous_ok = data, previous_ok[1] if same else masked_digest(data)
                masked_ok[previous_ok[1]] = None
                ok_tags.add(tag)
            if kind == "tune" and previous_tune is not None:
                tune_changes[changed_lines(previous_tune, data, edit(previous_tune))] += 1
            previous_tune = data if kind == "tune" else None
        for d, n in turns.items():
            sources += d
            counts.append(n)
        masked += b"".join(masked_ok)
        pairs_per_session.append(len(turns))
        masked_per_session.append(len(masked_ok))
        groups.append(f"{row['op']}/{row['impl']}/{row['gpu']}")
        ok_pairs += len(ok_tags)
    return {"sources": _pack(bytes(sources)), "counts": _pack(np.asarray(counts, dtype=_COUNT).tobytes()),
            "masked": _pack(bytes(masked)), "pairs_per_session": pairs_per_session,
            "masked_per_session": masked_per_session, "groups": groups, "ok_pairs": ok_pairs,
            "tune_changes": sorted(tune_changes.items())}


def _split_like(whole: np.ndarray, parts: list[np.ndarray]) -> list[np.ndarray]:
    """`whole` (one value per element of the concatenated `parts`) cut into pieces of the parts' lengths."""
    return np.split(whole, np.cumsum([len(p) for p in parts])[:-1]) if parts else []


def _shared(digests: np.ndarray) -> tuple[int, np.ndarray]:
    """(number of distinct digests, the digests found more than once)."""
    values, times = np.unique(digests, return_counts=True)
    return len(values), values[times > 1]


def _median_of_histogram(pairs: list[tuple[int, int]]) -> float:
    """The median of the values a {value: count} histogram (as sorted pairs) holds, as statistics.median."""
    total = sum(n for _v, n in pairs)
    if not total:
        return 0.0
    def at(k: int) -> int:        # the k-th smallest value, 0-based
        for value, n in pairs:
            if k < n:
                return value
            k -= n
        raise IndexError(k)
    return float(at(total // 2)) if total % 2 else (at(total // 2 - 1) + at(total // 2)) / 2


def kernelinfer_figures(shards: list[dict]) -> dict:
    """The figures of kernelinfer sessions, from the shards' `kernelinfer_digests`:

    - `assistant_turns`, `distinct_sources`, `distinct_masked_ok`: turns, distinct sources, distinct masked
      sources of ok steps;
    - `ok_session_variants`: distinct (session, variant) pairs that reached an ok step (`masked_ok_per_pair` is
      distinct_masked_ok over it);
    - `cross_session_turn_share`: share of turns byte-identical to a turn of another session;
    - `median_private_masked_ok`: per session, the share of its distinct masked ok sources that occur in no other
      session, median over sessions (those with an ok step);
    - `median_same_task_overlap`: per session, the share of its turns whose source also occurs in another session
      of the same (op, impl, gpu), median over sessions whose group has another;
    - `median_tune_changed_lines`: lines changed between consecutive `tune` steps of a session, median.
    """
    all_sources, sources = _unpack([s["sources"] for s in shards], _DIGEST)
    all_counts, counts = _unpack([s["counts"] for s in shards], _COUNT)
    all_masked, masked = _unpack([s["masked"] for s in shards], _DIGEST)
    distinct, shared = _shared(all_sources)
    distinct_masked, shared_masked = _shared(all_masked)
    turns = int(all_counts.sum(dtype=np.int64))
    group_size = Counter(g for s in shards for g in s["groups"])
    owners: Counter = Counter()                  # (digest, group) -> sessions, for digests found more than once
    found = []                                   # per shard: its sessions' turns, (session, digest, turns) of those
    shared_turns, private = 0, []
    source_hits = _split_like(np.isin(all_sources, shared), sources)     # one sort of `shared`, not one per shard
    masked_hits = _split_like(np.isin(all_masked, shared_masked), masked)
    for s, src, cnt, hit, masked_hit in zip(shards, sources, counts, source_hits, masked_hits):
        sessions = len(s["groups"])
        session = np.repeat(np.arange(sessions), s["pairs_per_session"])
        shared_turns += int(cnt[hit].sum())
        picked = [(int(i), int(d), int(n)) for i, d, n in zip(session[hit], src[hit], cnt[hit])]
        owners.update((d, s["groups"][i]) for i, d, _n in picked)
        found.append((np.bincount(session, weights=cnt, minlength=sessions).astype(np.int64), picked))
        in_other = np.bincount(np.repeat(np.arange(sessions), s["masked_per_session"])[masked_hit],
                               minlength=sessions)
        private += [(n - int(k)) / n for n, k in zip(s["masked_per_session"], in_other) if n]
    overlap = []
    for s, (session_turns, picked) in zip(shards, found):
        overlapping: Counter = Counter()
        for i, d, n in picked:
            if owners[d, s["groups"][i]] > 1:
                overlapping[i] += n
        overlap += [overlapping[i] / int(n) for i, (g, n) in enumerate(zip(s["groups"], session_turns))
                    if group_size[g] > 1 and n]
    pairs = sum(s["ok_pairs"] for s in shards)
    histogram: Counter = Counter()
    for s in shards:
        histogram.update(dict((int(v), int(n)) for v, n in s["tune_changes"]))
    return {
        "assistant_turns": turns,
        "distinct_sources": distinct,
        "distinct_masked_ok": distinct_masked,
        "ok_session_variants": pairs,
        "masked_ok_per_pair": distinct_masked / pairs if pairs else 0.0,
        "cross_session_turn_share": shared_turns / turns if turns else 0.0,
        "median_private_masked_ok": _median(private),
        "median_same_task_overlap": _median(overlap),
        "median_tune_changed_lines": _median_of_histogram(sorted(histogram.items())),
    }


def kernelswarm_digests(rows: Iterable[dict]) -> dict:
    """One shard's part: its candidates, the digests of its distinct candidate sources and of its distinct masked
    sources of candidates whose env result was ok, and its (episode, agent, variant) triples with an ok result."""
    sources: set[bytes] = set()
    masked_ok: set[bytes] = set()
    candidates = ok_triples = 0
    for row in rows:
        waiting: dict[str, list[dict]] = defaultdict(list)    # agent -> its candidates awaiting a result, in order
        triples: set[tuple[str, str]] = set()
        for msg in row["messages"]:
            if msg["kind"] == "candidate":
                candidates += 1
                sources.add(digest(msg["content"].encode()))
                waiting[msg["agent"]].append(msg)
            elif msg["kind"] == "result" and waiting.get(msg.get("to")):
                cand = _take(waiting[msg["to"]], msg.get("variant"))
                if cand is not None and msg.get("status") == "ok":
                    masked_ok.add(masked_digest(cand["content"].encode()))
                    triples.add((cand["agent"], cand["variant"]))
        ok_triples += len(triples)
    return {"candidates": candidates, "sources": _pack(b"".join(sorted(sources))),
            "masked": _pack(b"".join(sorted(masked_ok))), "ok_triples": ok_triples}


def kernelswarm_figures(shards: list[dict]) -> dict:
    """The figures of kernelswarm candidates, from the shards' `kernelswarm_digests`: `candidates`,
    `distinct_sources`, `distinct_masked_ok` (masked sources of candidates whose env result was ok) and
    `ok_triples`, the distinct (episode, agent, variant) triples with an ok result (`masked_ok_per_triple` is
    distinct_masked_ok over it)."""
    distinct, _ = _shared(_unpack([s["sources"] for s in shards], _DIGEST)[0])
    distinct_masked, _ = _shared(_unpack([s["masked"] for s in shards], _DIGEST)[0])
    triples = sum(s["ok_triples"] for s in shards)
    return {"candidates": sum(s["candidates"] for s in shards), "distinct_sources": distinct,
            "distinct_masked_ok": distinct_masked, "ok_triples": triples,
            "masked_ok_per_triple": distinct_masked / triples if triples else 0.0}


def _take(queue: list[dict], variant: str | None) -> dict | None:
    """The agent's oldest waiting candidate of `variant` (results come back in time order, per agent)."""
    for j, cand in enumerate(queue):
        if cand["variant"] == variant:
            return queue.pop(j)
    return None


FIGURES = {      # stats.json `diversity` key -> what the card calls it
    "assistant_turns": "assistant turns (one kernel source each)",
    "candidates": "candidate sources",
    "distinct_sources": "distinct sources",
    "distinct_masked_ok": "distinct skeletons of ok sources",
    "ok_session_variants": "(session, variant) pairs that reached an ok step",
    "masked_ok_per_pair": "skeletons per such pair",
    "ok_triples": "(episode, agent, variant) triples with an ok result",
    "masked_ok_per_triple": "skeletons per such triple",
    "cross_session_turn_share": "share of turns byte-identical to a turn of another session",
    "median_private_masked_ok": "a session's skeletons found in no other session (median share)",
    "median_same_task_overlap": "a session's turns also in another session of the same (op, impl, GPU) (median share)",
    "median_tune_changed_lines": "lines changed between consecutive tune steps (median)",
}


def card_section(stats: dict) -> str:
    """The card's Diversity section: `stats.json` `diversity`, one row per figure."""
    rows = "\n".join(f"| {FIGURES.get(key, key)} | {value:,.4g} |" if isinstance(value, float) else
                     f"| {FIGURES.get(key, key)} | {value:,} |" for key, value in stats["diversity"].items())
    return ("## Diversity\n\nHow varied the kernel code is, from the rows' sources (`stats.json` `diversity`; "
            "`generator/write/diversity.py` defines each figure). A skeleton is a source with every run of digits "
            "masked, so tuned constants and shapes do not count as different code.\n\n| figure | value |\n|---|---|\n"
            + rows)
