"""The workbench's rounding of measured times."""
import math
import random

from generator.sim.workbench import sig


def test_sig_gives_the_text_of_a_g_format_with_that_many_digits():
    rand = random.Random(3)
    values = [rand.uniform(-1e6, 1e6) for _ in range(2000)] + [10 ** rand.uniform(-12, 12) for _ in range(2000)]
    values += [0.0, -0.0, 7, 123456789, math.inf, -math.inf, 5e-324, 1.7976931348623157e308]
    for digits in (3, 4, 5):
        for x in values:
            assert sig(x, digits) == float(f"{x:.{digits}g}")
            assert isinstance(sig(x, digits), float)
