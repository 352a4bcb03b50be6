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

Two bytes per token stays below every one of them (the worst message by 5 %); tests/test_tokens.py retrains
such a tokenizer and checks messages and view rows against it. A chars/3.5 rule under-counts by ~29 %.
"""
from __future__ import annotations

import math
from typing import Iterable

BYTES_PER_TOKEN = 2.0
PER_MESSAGE = 8
WINDOWS = (32_768, 131_072)          # the context sizes token_stats reports the share of rows fitting
RULE = f"`ceil(utf8 bytes / {BYTES_PER_TOKEN:g})` per text plus {PER_MESSAGE} per chat turn"   # as the card says it


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
    return summarize(sizes(rows))


def sizes(rows: Iterable[dict]) -> tuple[list[int], list[int]]:
    """(characters, tokens) of each row: what `summarize` needs, small enough to send from a shard's worker."""
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


def summarize(sizes: tuple[list[int], list[int]]) -> dict:
    """`token_stats` from `sizes` (those of several shards concatenated give the whole's exact statistics)."""
    chars, tokens = sizes
    out = {"rows": len(tokens), "chars": _summary(chars), "tokens": _summary(tokens)}
    for window in WINDOWS:
        out[f"fit_{window // 1024}k"] = round(sum(t <= window for t in tokens) / len(tokens), 4) if tokens else None
    return out


def _summary(values: list[int]) -> dict:
    """mean, p50, p90 (nearest rank) and max of `values`."""
    if not values:
        return {"mean": None, "p50": None, "p90": None, "max": None}
    ordered = sorted(values)

    def rank(q: float) -> int:
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]

    return {"mean": round(sum(ordered) / len(ordered), 1), "p50": rank(0.5), "p90": rank(0.9), "max": ordered[-1]}
