"""Where every random number comes from: one numpy Generator per (seed, dataset, row index).

A row is a pure function of (seed, index, options) because its generator is seeded by
`SeedSequence([seed, DATASET_IDS[dataset], index])`, never by the wall clock or a global RNG, and no two rows
(or datasets) share a stream. Purposes other than rows (the task split) get their own spawn key, so they can
never collide with a row's stream.
"""
from __future__ import annotations

import ctypes

import numpy as np

DATASET_IDS: dict[str, int] = {"kernelinfer": 1, "kernelswarm": 2}
PURPOSES: dict[str, int] = {"split": 1}
_WORD = 2**32
# PyCapsule_GetPointer with its own prototype (setting restype on ctypes.pythonapi's would change it for everyone)
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_NEXT_UINT32: dict[int, object] = {}   # a bit generator type's next_uint32, by its C address (one per type)


def _dataset_id(dataset: str) -> int:
    try:
        return DATASET_IDS[dataset]
    except KeyError:
        raise ValueError(f"unknown dataset {dataset!r}; known: {', '.join(DATASET_IDS)}") from None


def rng_for(seed: int, dataset: str, index: int) -> np.random.Generator:
    """The generator for row `index` of `dataset` under `seed`."""
    if seed < 0 or index < 0:
        raise ValueError(f"seed and index must be >= 0 (got seed={seed}, index={index})")
    entropy = [seed, _dataset_id(dataset), index]
    if seed < _WORD and index < _WORD:
        # SeedSequence splits each int of a list into 32-bit words; a value below 2**32 is one word, so a uint32
        # array holds the same words and skips the per-int coercion (~3 us less per row; the same state).
        entropy = np.array(entropy, np.uint32)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


def rng_for_purpose(seed: int, dataset: str, purpose: str) -> np.random.Generator:
    """A generator for a dataset-wide decision (e.g. which tasks are held out), disjoint from every row's."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0 (got {seed})")
    ss = np.random.SeedSequence([seed, _dataset_id(dataset)], spawn_key=(PURPOSES[purpose],))
    return np.random.Generator(np.random.PCG64(ss))


def word32(rng: np.random.Generator) -> tuple:
    """(next_uint32, state address) as the generator's ctypes interface has them: its own 32-bit draws for
    `below`. Read from the bit generator's capsule (a bitgen_t: state pointer, then the next_uint64 and
    next_uint32 function pointers): building `bit_generator.ctypes` costs ~4 us, 12-20 us cache-cold between
    rows, where this costs ~0.5 us."""
    bitgen = _capsule_pointer(rng.bit_generator.capsule, b"BitGenerator")
    function = ctypes.c_void_p.from_address(bitgen + 2 * ctypes.sizeof(ctypes.c_void_p)).value
    next_uint32 = _NEXT_UINT32.get(function)
    if next_uint32 is None:
        next_uint32 = _NEXT_UINT32[function] = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)(function)
    return next_uint32, ctypes.c_void_p.from_address(bitgen).value


def below(word32: tuple, bound: int) -> int:
    """`int(rng.integers(bound))` for 1 <= bound < 2**32, drawn as numpy draws it (no draw for a bound of 1, else
    a bounded Lemire step on the 32-bit stream, rejecting only when the word falls in the biased sliver, a chance
    of bound / 2**32), without integers' per-call argument work (~0.8 us less a draw)."""
    if bound == 1:
        return 0
    next_uint32, state = word32
    m = next_uint32(state) * bound
    if m & 0xFFFFFFFF < bound:
        threshold = (0x100000000 - bound) % bound
        while m & 0xFFFFFFFF < threshold:
            m = next_uint32(state) * bound
    return m >> 32
