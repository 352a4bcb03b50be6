"""Think/edit time depends on the change: a constant tweak is quick, a structural rewrite grows with its size."""
import numpy as np

from generator.sim import clock


def _median_think(kind, lines):
    rng = np.random.default_rng(7)
    return float(np.median([clock.step_cost(rng, kind, "cuda", lines, "ok", 0.5)[0] for _ in range(400)]))


def test_rewrite_time_grows_with_the_new_kernel_and_tweaks_stay_quick():
    small, big = _median_think("new_variant", 60), _median_think("new_variant", 240)
    assert 3.0 <= big / small <= 5.0
    tune = _median_think("tune", 240)
    assert tune * 3 < small and abs(tune - _median_think("tune", 60)) / tune < 0.2
    assert _median_think("revert", 100) < tune < _median_think("fix", 100)
