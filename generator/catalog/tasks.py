"""Tasks (op, impl, gpu, dtype, shape) and the deterministic split into training and held-out sets.

The held-out set is chosen by (op, gpu, shape) group: once a group holds a held-out task, no task of that group
(any impl or dtype) can appear in training, so an evaluation never sees a problem the training rows solved, and
kernelswarm can repeat training tasks across episodes without leaking a held-out one. Which groups are held out
is the fixed benchmark (`generator.catalog.benchmark`): it reads neither the seed nor the run's size. Training
leaves out the groups of both published benchmarks (kernelinfer's and kernelswarm's), so neither dataset trains on
the other's.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS, shape_label
from generator.sim.seeding import rng_for_purpose
from generator.catalog import benchmark, engineers
from generator.catalog.models import model_shapes_of
from generator.catalog.variants import legal_on, variants_for


@dataclass(frozen=True)
class Task:
    op: str
    impl: str
    gpu: str
    dtype: str
    shape: tuple[tuple[str, int], ...]

    def __post_init__(self):
        # The hash the dataclass would compute, computed once: per-task caches look a task up on every step.
        object.__setattr__(self, "_hash", hash((self.op, self.impl, self.gpu, self.dtype, self.shape)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        return Task, (self.op, self.impl, self.gpu, self.dtype, self.shape)   # str hashes differ per process

    def shape_dict(self) -> dict[str, int]:
        return dict(self.shape)

    def key(self) -> tuple:
        """(op, impl, gpu, dtype, shape): unique per task."""
        return (self.op, self.impl, self.gpu, self.dtype, self.shape)

    def group(self) -> tuple:
        """(op, gpu, shape): the unit held out as a whole."""
        return (self.op, self.gpu, self.shape)

    @property
    def arch(self) -> str:
        return GPUS[self.gpu].arch

    def label(self) -> str:
        """`flash_decode_h100_B=8,H=32,D=128,T=4096,P=16`, as the seeds build ids."""
        return f"{self.op}_{self.gpu}_{shape_label(self.shape_dict())}"


def make_task(op: str, impl: str, gpu: str, dtype: str, shape: dict[str, int]) -> Task:
    """A Task from plain values, checked against the catalog."""
    o = OPS.get(op)
    if o is None:
        raise ValueError(f"unknown op {op!r}")
    if impl not in o.impls or dtype not in o.dtypes or gpu not in GPUS:
        raise ValueError(f"{op}: no task for impl={impl!r} gpu={gpu!r} dtype={dtype!r}")
    if shape not in o.shapes:
        raise ValueError(f"{op}: shape {shape} is not in the catalog")
    return Task(op, impl, gpu, dtype, tuple(shape.items()))


def _shapes(name: str, models: bool) -> tuple[dict[str, int], ...]:
    return model_shapes_of(name) if models else OPS[name].shapes


@lru_cache(maxsize=None)
def _all_tasks(ops: tuple[str, ...] | None, models: bool = False) -> tuple[Task, ...]:
    names = OPS if ops is None else ops
    out = []
    for name in names:
        op = OPS[name]
        for shape in _shapes(name, models):
            for gpu in GPUS:
                for impl in op.impls:
                    naive = variants_for(name, impl)[0]
                    for dtype in op.dtypes:
                        if legal_on(naive, gpu, dtype):  # e.g. Triton has no fp8 type below sm_89
                            out.append(Task(name, impl, gpu, dtype, tuple(shape.items())))
    return tuple(out)


def all_tasks(ops: Iterable[str] | None = None) -> tuple[Task, ...]:
    """Every task of the catalog (or of `ops`), in catalog order: op, shape, gpu, impl, dtype; a task exists
    only where its impl can express the dtype on that GPU at all."""
    if ops is not None:
        ops = tuple(ops)
        unknown = [o for o in ops if o not in OPS]
        if unknown:
            raise ValueError(f"unknown ops: {', '.join(unknown)}")
    return _all_tasks(ops)


def model_tasks() -> tuple[Task, ...]:
    """Every task at a model-configuration shape the catalog lacks (`generator.catalog.models`), in catalog order."""
    return _all_tasks(None, True)


def _groups(tasks: Iterable[Task]) -> dict[tuple, list[Task]]:
    """The tasks of each (op, gpu, shape) group, groups in order of their first task."""
    groups: dict[tuple, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.group(), []).append(t)
    return groups


@lru_cache(maxsize=1)
def withheld_groups() -> frozenset[tuple]:
    """Every group of every published benchmark (`benchmark.PUBLISHED`): no dataset trains on any of them, so a
    model trained on one folder has seen no group of the other's benchmark either."""
    return frozenset(g for b in benchmark.PUBLISHED
                     for g in benchmark.held_groups(tuple(_groups(all_tasks(b.ops))), b.size))


@dataclass(frozen=True)
class Split:
    train: tuple[Task, ...]      # one task per training row (or the whole training pool when n_train is None)
    holdout: tuple[Task, ...]    # n_holdout tasks, one per benchmark group, in benchmark order
    engineers: tuple[int, ...]   # the engineer of each training row (0 unless rows outnumber tasks)


def split_tasks(seed: int, n_train: int | None, n_holdout: int, *, ops: Iterable[str] | None = None,
                stream: int, benchmark_size: int = benchmark.KERNELINFER.size) -> Split:
    """The first `n_holdout` tasks of the benchmark (`benchmark_size` groups, all excluded from training, as are
    those of every published benchmark: `withheld_groups`) and `n_train` training rows from the groups left,
    drawn from `seed` and the dataset's `stream`; past the catalog's pool the model-configuration tasks join it
    (all ops only), and past that a task gets several engineers. `benchmark_size` is the dataset's
    (`benchmark.PUBLISHED`). Raises ValueError when the catalog is too small."""
    tasks = all_tasks(ops)
    groups = _groups(tasks)
    if n_holdout > benchmark_size:
        raise ValueError(f"asked for {n_holdout} held-out tasks but benchmark {benchmark.VERSION} has "
                         f"{benchmark_size}")
    held_keys = benchmark.held_groups(tuple(groups), benchmark_size)
    holdout = tuple(benchmark.representative(groups[k]) for k in held_keys[:n_holdout])
    held = withheld_groups() | set(held_keys)
    pool = [t for t in tasks if t.group() not in held]
    if n_train is None:
        return Split(tuple(pool), holdout, (0,) * len(pool))
    if n_train > len(pool) and ops is None:
        pool += model_tasks()
    rng = rng_for_purpose(seed, stream, "split")
    picks = engineers.pick(rng, len(pool), n_train, "training tasks")
    return Split(tuple(pool[i] for _, i in picks), holdout, tuple(e for e, _ in picks))
