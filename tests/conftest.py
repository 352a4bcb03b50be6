"""Shared fixtures: real generated folders, made once per test session (per xdist worker) through the CLI exactly
as a user runs it, and the builder class of each dataset. Tests never import each other."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.kernelinfer.builder import KernelInfer
from generator.kernelswarm.builder import KernelSwarm
from generator.registry import DATASETS

ROOT = Path(__file__).resolve().parent.parent
GEN_ROWS, GEN_HOLDOUT, GEN_SEED = 30, 10, 3
BUILDERS = {"kernelinfer": KernelInfer, "kernelswarm": KernelSwarm}


def generate(dataset: str, out: Path, *, seed: int = GEN_SEED, rows: int = GEN_ROWS, holdout: int = GEN_HOLDOUT,
             extra: tuple[str, ...] = ()) -> Path:
    """A real generated folder, via the CLI (`python -m generator <dataset> ...`)."""
    subprocess.run([sys.executable, "-m", "generator", dataset, "--out", str(out), "--seed", str(seed),
                    f"--{DATASETS[dataset].count_flag}", str(rows), "--holdout", str(holdout), *extra],
                   check=True, cwd=ROOT, capture_output=True)
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
