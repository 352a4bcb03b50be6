"""The fixed held-out benchmark and several engineers per task: the held-out set reads neither the seed nor the
size, training never touches it, and runs past the task pool get distinct (task, engineer) rows and ids."""
from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from generator.catalog.tasks import all_tasks, split_tasks
from generator.kernelinfer.dataset import BENCHMARK_SIZE, split
from generator.kernelswarm.plan import BENCHMARK_SIZE as SWARM_BENCHMARK_SIZE, plan
from generator.catalog import benchmark, engineers
from generator.sim.workbench import task_id

SEEDS = (0, 1, 2, 3)


@pytest.mark.parametrize("size", [150, 1899, 20_000])
def test_kernelinfer_holdout_is_fixed_and_never_trained_on(size):
    reference = split(0, 150, BENCHMARK_SIZE).holdout
    held = {t.group() for t in reference}
    assert len(held) == len(reference) == BENCHMARK_SIZE
    for seed in SEEDS:
        s = split(seed, size, BENCHMARK_SIZE)
        assert s.holdout == reference
        assert not held & {t.group() for t in s.train}
        assert len(s.train) == size


@pytest.mark.parametrize("size", [150, 2400, 20_000])
def test_kernelswarm_holdout_is_fixed_and_never_trained_on(size):
    reference = plan(0, 150, 100).holdout
    held = {t.group() for t in reference}
    assert len(held) == 100
    for seed in SEEDS:
        p = plan(seed, size, 100)
        assert p.holdout == reference
        assert not held & {t.group() for t, _ in p.episodes}
        assert len(set(zip(p.episodes, p.engineers))) == size


@pytest.mark.parametrize("sessions, episodes", [(150, 150), (1899, 2400), (20_000, 20_000)])
def test_neither_dataset_trains_on_the_other_ones_benchmark(sessions, episodes):
    infer_held = {t.group() for t in split(0, 150, BENCHMARK_SIZE).holdout}
    swarm_held = {t.group() for t in plan(0, 150, SWARM_BENCHMARK_SIZE).holdout}
    assert swarm_held - infer_held               # the quotas differ, so training on the union is not vacuous
    for seed in SEEDS:
        infer_train = {t.group() for t in split(seed, sessions, BENCHMARK_SIZE).train}
        swarm_train = {t.group() for t, _ in plan(seed, episodes, SWARM_BENCHMARK_SIZE).episodes}
        assert not swarm_held & infer_train, seed
        assert not infer_held & swarm_train, seed


def test_a_smaller_holdout_is_a_prefix_of_the_benchmark():
    assert split_tasks(5, 10, 20, stream=1).holdout == split_tasks(5, 10, 195, stream=1).holdout[:20]
    with pytest.raises(ValueError, match="benchmark v1 has 195"):
        split_tasks(0, 10, 196, stream=1)


def test_the_ranking_is_the_documented_digest():
    group = ("rmsnorm", "h100", (("T", 1), ("H", 4096)))
    want = hashlib.blake2b(b"v1|rmsnorm|h100|T=1,H=4096", digest_size=16).digest()
    assert benchmark.group_rank(group) == want


def test_20000_sessions_have_distinct_ids_and_several_engineers():
    s = split(0, 20_000, BENCHMARK_SIZE)
    ids = [task_id(t) + engineers.suffix(e) for t, e in zip(s.train, s.engineers)]
    assert len(set(ids)) == 20_000
    assert max(s.engineers) == 1                      # 20,000 over 10,764 catalog and model-shape tasks
    for start in range(0, 20_000, 100):              # a shard never holds one task twice (the QA check)
        assert len(set(s.train[start:start + 100])) == len(s.train[start:start + 100])


def test_default_scale_has_one_engineer_per_task():
    s = split(0, 1899, BENCHMARK_SIZE)
    assert set(s.engineers) == {0} and len(set(s.train)) == 1899


def test_190000_sessions_are_accepted_and_too_many_refused():
    assert len(split_tasks(0, 190_000, 195, stream=1).train) == 190_000
    with pytest.raises(ValueError, match="engineers per task"):
        split_tasks(0, 10_000_000, 195, stream=1)


def test_every_op_is_benchmarked_in_proportion_to_its_groups():
    groups = Counter(op for op, _gpu, _shape in {t.group() for t in all_tasks()})
    held = Counter(t.op for t in split(0, 150, BENCHMARK_SIZE).holdout)
    assert set(held) == set(groups)
    for op, n in groups.items():
        assert abs(held[op] - BENCHMARK_SIZE * n / sum(groups.values())) < 1, op
