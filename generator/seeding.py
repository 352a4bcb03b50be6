"""Where every random number comes from: one numpy Generator per (seed, dataset, row index).

A row is a pure function of (seed, index, options) because its generator is seeded by
`SeedSequence([seed, DATASET_IDS[dataset], index])`, never by the wall clock or a global RNG, and no two rows
(or datasets) share a stream. Purposes other than rows (the task split) get their own spawn key, so they can
never collide with a row's stream.
"""
from __future__ import annotations

import numpy as np

DATASET_IDS: dict[str, int] = {"kernelinfer": 1, "kernelswarm": 2}
PURPOSES: dict[str, int] = {"split": 1}


def _dataset_id(dataset: str) -> int:
    try:
        return DATASET_IDS[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; known: {', '.join(DATASET_IDS)}") from None


def rng_for(seed: int, dataset: str, index: int) -> np.random.Generator:
    """The generator for row `index` of `dataset` under `seed`."""
    if seed < 0 or index < 0:
        raise ValueError(f"seed and index must be >= 0 (got seed={seed}, index={index})")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _dataset_id(dataset), index])))


def rng_for_purpose(seed: int, dataset: str, purpose: str) -> np.random.Generator:
    """A generator for a dataset-wide decision (e.g. which tasks are held out), disjoint from every row's."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0 (got {seed})")
    ss = np.random.SeedSequence([seed, _dataset_id(dataset)], spawn_key=(PURPOSES[purpose],))
    return np.random.Generator(np.random.PCG64(ss))
