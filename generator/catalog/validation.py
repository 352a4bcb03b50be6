"""The fixed validation split: which training rows form the `validation` split of the main config, by a rule
that reads neither the seed nor the run's size (like the held-out benchmark, `generator.catalog.benchmark`).

Rule (version `v1`): a row's family is its (op, gpu): one kernel on one device, every shape, dtype, impl and
engineer of it. Every family of the catalog (each op x each GPU) is ranked by the blake2b digest of
`v1|op|gpu`; the lowest-ranked FRACTION of them are validation families. Whole (op, gpu) families, not single
tasks, because tasks of one family share their tuning landscape (the same variants win at neighbouring shapes):
a validation task whose sibling shape is in training would measure recall, not generalization. Op x GPU rather
than a coarser op family: 7 op families cannot give ~5 %, and holding out a whole op would remove its code from
training. The benchmark's (op, gpu, shape) groups never reach training at all, so validation (a part of
training's tasks) is disjoint from it by construction. A new rule is a new version; v1's digests never change.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache

from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS

VERSION = "v1"
FRACTION = 0.05
SPLIT = "validation"
TRAIN = "train"


def family_rank(op: str, gpu: str) -> bytes:
    return hashlib.blake2b(f"{VERSION}|{op}|{gpu}".encode(), digest_size=16).digest()


@lru_cache(maxsize=1)
def families() -> frozenset[tuple[str, str]]:
    """The validation (op, gpu) families: the lowest-ranked FRACTION of every op x GPU of the catalog."""
    every = sorted(((op, gpu) for op in OPS for gpu in GPUS), key=lambda f: family_rank(*f))
    return frozenset(every[:round(FRACTION * len(every))])


def split_of(row: dict) -> str:
    """`validation` or `train` for a training row (any dict with `op` and `gpu`: a session, an episode)."""
    return SPLIT if (row["op"], row["gpu"]) in families() else TRAIN
