"""Shared fixtures: real generated folders, made once per test session (per xdist worker) by the CLI's entry point
with a user's arguments, and the builder class of each dataset. Tests never import each other."""
from __future__ import annotations

from pathlib import Path

import pytest

from generator.__main__ import main
from generator.kernelinfer.builder import KernelInfer
from generator.kernelswarm.builder import KernelSwarm
from generator.registry import DATASETS

# The smallest session folders that still hold every file kind: at seed 4, 12 rows give a train and a validation
# split in every config and view of both datasets (kernelinfer 11 + 1 sessions, kernelswarm 11 + 1 episodes).
GEN_ROWS, GEN_HOLDOUT, GEN_SEED = 12, 4, 4
BUILDERS = {"kernelinfer": KernelInfer, "kernelswarm": KernelSwarm}


def generate(dataset: str, out: Path, *, seed: int = GEN_SEED, rows: int = GEN_ROWS, holdout: int = GEN_HOLDOUT,
             extra: tuple[str, ...] = ()) -> Path:
    """A real generated folder, through the CLI's own entry point (`python -m generator <dataset> ...`'s `main`,
    in this process: the tests that test the command itself start it as a process)."""
    argv = [dataset, "--out", str(out), "--seed", str(seed), f"--{DATASETS[dataset].count_flag}", str(rows),
            "--holdout", str(holdout), *extra]
    code = main(argv)
    assert code == 0, f"python -m generator {' '.join(argv)} exited {code}"
    return out


@pytest.fixture(scope="session")
def generated(tmp_path_factory):
    """dataset name -> a small folder generated once for the whole session (read-only: copy before changing)."""
    made: dict[str, Path] = {}

    def get(dataset: str) -> Path:
        if dataset not in made:
            made[dataset] = generate(dataset, tmp_path_factory.mktemp(dataset) / dataset)
        return made[dataset]
    return get


@pytest.fixture(params=sorted(DATASETS))
def folder(request, generated) -> Path:
    """Each dataset's session-wide generated folder in turn."""
    return generated(request.param)


@pytest.fixture(scope="session")
def builders() -> dict:
    return BUILDERS


@pytest.fixture(scope="session")
def make_folder():
    """`generate` itself, for tests that need a folder of their own (other seed, size or options)."""
    return generate


def pytest_collection_modifyitems(config, items):
    """An `-m` of one's own (the inner loop's `-m "not compiler"`) replaces pyproject's `-m 'not slow'`; unless it
    names them, it then leaves out the `slow` corpora and the `e2e` process runs. The default suite (pyproject's
    expression, `make test`) runs the `e2e` tests: they check what only whole processes show; the code they reach
    is also run by quick tests in this process."""
    expr, addopts = config.getoption("markexpr"), config.getini("addopts")
    left = {"slow"} if expr == addopts[addopts.index("-m") + 1] else {"slow", "e2e"}
    left = {name for name in left if name not in expr}
    out = [item for item in items if any(item.get_closest_marker(name) for name in left)]
    if out:
        config.hook.pytest_deselected(items=out)
        items[:] = [item for item in items if item not in out]
