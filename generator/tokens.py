"""The one token count of the training views: a deterministic, conservative estimate, and its statistics.

Why an estimate: a view row must fit a model's context, but the bytes we write must not depend on which
tokenizer happens to be installed. So a text counts `ceil(utf8_bytes / BYTES_PER_TOKEN)` tokens and a chat
message `PER_MESSAGE` more (role markers and turn delimiters of a chat template: ChatML spends 5, Llama 3's
header and end-of-turn 5). The estimate must never be below what a real tokenizer spends, so the divisor is the
worst case, not the mean:

- a real BPE tokenizer (DeepSeek-V3's) spends ~2.7 characters per token on this text (all ASCII, so bytes =
  characters), as the project's audit of the generated datasets measured (docs/tokens.md);
- a byte-level BPE trained with the `tokenizers` package on generated sessions (digits in groups of at most
  three, as DeepSeek-V3 and Llama 3 split them) spends, on 4,632 messages of 25 other sessions, 2.60 bytes per
  token on average and 2.11 on the worst message (a benchmark report, dense with numbers) when trained on 4
  sessions; 2.75 and 2.17 when trained on 12 (`bench/token_calibration.py`, docs/tokens.md).

Since 0.6.0 compile errors carry ptxas's whole output (one line per offending instruction, temporary file names
and PTX line numbers): on those the 4-session tokenizer spends 1.92 bytes per token (the worst of 1,816 messages of
15 sessions, seeds 8 and 11), so two bytes per token, the divisor up to 0.5.0, under-counted them. 1.75 stays 9 %
below that worst message; tests/test_tokens.py retrains such a tokenizer and checks messages and view rows against
it. A chars/3.5 rule under-counts by ~29 %.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from itertools import accumulate
from typing import Iterable

BYTES_PER_TOKEN = 1.75
PER_MESSAGE = 8
WINDOWS = (32_768, 131_072)          # the context sizes token_stats reports the share of rows fitting
RULE = f"`ceil(utf8 bytes / {BYTES_PER_TOKEN:g})` per text plus {PER_MESSAGE} per chat turn"   # as the card says it
Tally = tuple[dict[int, int], dict[int, int]]   # (rows per character count, rows per token count)


def count(text: str) -> int:
    """Tokens of `text` alone."""
    return math.ceil(len(text.encode()) / BYTES_PER_TOKEN)


def chat(messages: Iterable[dict]) -> int:
    """Tokens of chat messages ({role, content}), template overhead included."""
    return sum(count(m["content"]) + PER_MESSAGE for m in messages)


def turns(row: dict) -> list[dict]:
    """The chat messages of a view row (prompt then completion) or of a session (`messages`)."""
    if "messages" in row:
        return row["messages"]
    return row["prompt"] + row["completion"]


def token_stats(rows: Iterable[dict]) -> dict:
    """Characters and tokens per row (mean, p50, p90, max) and the share of rows whose tokens fit each of
    WINDOWS; rows are view rows or sessions (see `turns`)."""
    return summarize(tally(rows))


def sizes(rows: Iterable[dict]) -> tuple[list[int], list[int]]:
    """(characters, tokens) of each row."""
    chars, tokens = [], []
    for row in rows:
        messages = turns(row)
        chars.append(sum(len(m["content"]) for m in messages))
        count = stated(row)
        tokens.append(chat(messages) if count is None else count)
    return chars, tokens


def stated(row: dict) -> int | None:
    """The count a view row states (`tokens`, or `prompt_tokens` + `completion_tokens`: the views write `chat`'s
    count of their turns, so it is not recounted), or None for a row that states none (a session, an episode)."""
    if "tokens" in row:
        return row["tokens"]
    if "prompt_tokens" in row:
        return row["prompt_tokens"] + row["completion_tokens"]
    return None


def tally(rows: Iterable[dict]) -> Tally:
    """`sizes` as per-value counts: what `summarize` needs, exactly, in memory bounded by the distinct sizes (not
    the rows), so a shard's worker can send it and the final step can fold every shard's (`fold`) and stay flat."""
    chars, tokens = sizes(rows)
    return Counter(chars), Counter(tokens)


def fold(total: Tally, more: Tally) -> Tally:
    """`more`'s counts added into `total` (in place), which is returned."""
    for into, counts in zip(total, more):
        for value, n in counts.items():
            into[value] = into.get(value, 0) + n
    return total


def summarize(counts: Tally) -> dict:
    """`token_stats` from a `tally` (the shards' tallies folded give the whole's exact statistics)."""
    chars, tokens = counts
    rows = sum(tokens.values())
    out = {"rows": rows, "chars": _summary(chars), "tokens": _summary(tokens)}
    for window in WINDOWS:
        fit = sum(n for value, n in tokens.items() if value <= window)
        out[f"fit_{window // 1024}k"] = round(fit / rows, 4) if rows else None
    return out


def _summary(counts: dict[int, int]) -> dict:
    """mean, p50, p90 (nearest rank) and max of the values counted in `counts` (value -> rows)."""
    ordered = sorted(counts.items())
    below = list(accumulate(n for _, n in ordered))      # rows with a value up to each one's
    if not below:
        return {"mean": None, "p50": None, "p90": None, "max": None}

    def rank(q: float) -> int:
        return ordered[bisect_left(below, max(1, math.ceil(q * below[-1])))][0]

    return {"mean": round(sum(v * n for v, n in ordered) / below[-1], 1), "p50": rank(0.5), "p90": rank(0.9),
            "max": ordered[-1][0]}
