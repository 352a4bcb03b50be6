"""seeding: each row's generator, and the bounded draw that stands in for rng.integers on hot paths."""
from __future__ import annotations

import numpy as np

from generator.sim import seeding
from generator.sim.seeding import rng_for


def test_rng_for_seeds_as_the_plain_entropy_list():
    """rng_for's uint32 entropy array (values below 2**32) gives the state SeedSequence makes from the list."""
    for seed, index in [(0, 0), (3, 5), (2**32 - 1, 2**32 - 1), (2**32, 7), (1, 2**40)] + [(11, i) for i in range(0, 5000, 7)]:
        plain = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 2, index])))
        assert rng_for(seed, 2, index).bit_generator.state == plain.bit_generator.state


def test_below_rejects_a_biased_word_as_numpy_does():
    """A bound just over 2**31 rejects about half of all 32-bit words: the retry path runs many times here."""
    ours, numpys = np.random.default_rng(11), np.random.default_rng(11)
    word32 = seeding.word32(ours)
    bound = 2**31 + 12345
    assert [seeding.below(word32, bound) for _ in range(2000)] == numpys.integers(0, bound, size=2000).tolist()


def test_below_draws_what_numpy_integers_draws():
    """`seeding.below` stands in for `int(rng.integers(bound))` (a bound of 1 draws nothing), with other draws in
    between (the 32-bit buffer is shared), leaving the generator where integers leaves it."""
    ours, numpys, sizes = np.random.default_rng(5), np.random.default_rng(5), np.random.default_rng(6)
    word32 = seeding.word32(ours)
    for _ in range(20_000):
        bound = int(sizes.integers(1, 300))
        assert seeding.below(word32, bound) == int(numpys.integers(bound))
        if sizes.random() < 0.3:
            assert ours.random() == numpys.random()
    assert ours.bit_generator.state == numpys.bit_generator.state
