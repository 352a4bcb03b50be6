"""seeding: each row's generator."""
from __future__ import annotations

import numpy as np

from generator.sim.seeding import rng_for


def test_rng_for_seeds_as_the_plain_entropy_list():
    """rng_for's uint32 entropy array (values below 2**32) gives the state SeedSequence makes from the list."""
    for seed, index in [(0, 0), (3, 5), (2**32 - 1, 2**32 - 1), (2**32, 7), (1, 2**40)] + [(11, i) for i in range(0, 5000, 7)]:
        plain = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 2, index])))
        assert rng_for(seed, 2, index).bit_generator.state == plain.bit_generator.state

