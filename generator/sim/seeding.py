"""Where every random number comes from: one numpy Generator per (seed, dataset stream, row index).

A row is a pure function of (seed, index, options) because its generator is seeded by
`SeedSequence([seed, stream, index])` (`stream`: the dataset descriptor's own number), never by the wall clock or a global RNG, and no two rows
(or datasets) share a stream. Purposes other than rows (the task split) get their own spawn key, so they can
never collide with a row's stream. A kernelswarm agent words its messages from a generator spawned from its row's
(`_Episode.word`): spawning draws nothing, so the wording moves none of the row's other draws.
"""
from __future__ import annotations

import numpy as np

PURPOSES: dict[str, int] = {"split": 1}
_WORD = 2**32


def rng_for(seed: int, stream: int, index: int) -> np.random.Generator:
    """The generator for row `index` of the dataset numbered `stream` under `seed`."""
    if seed < 0 or index < 0:
        raise ValueError(f"seed and index must be >= 0 (got seed={seed}, index={index})")
    entropy = [seed, stream, index]
    if seed < _WORD and index < _WORD:
        # SeedSequence splits each int of a list into 32-bit words; a value below 2**32 is one word, so a uint32
        # array holds the same words and skips the per-int coercion (~3 us less per row; the same state).
        entropy = np.array(entropy, np.uint32)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


def rng_for_purpose(seed: int, stream: int, purpose: str) -> np.random.Generator:
    """A generator for a dataset-wide decision (e.g. which tasks are held out), disjoint from every row's."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0 (got {seed})")
    ss = np.random.SeedSequence([seed, stream], spawn_key=(PURPOSES[purpose],))
    return np.random.Generator(np.random.PCG64(ss))

