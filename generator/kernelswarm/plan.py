"""Which task and scenario each kernelswarm episode gets, and its seed-style id.

The seed's 17 ops, each with the one implementation the seed's card gives it (14 CUDA, 3 Triton: the two
`triton_*` ops and fused_qkv_rope, whose fused QKV-split + RoPE kernel is a Triton staple in vLLM/SGLang).
Held-out (op, gpu, shape) groups never appear in training. Each training (task, scenario) pair is used at most
once per engineer, so episodes differ by task, scenario or engineer. The id has the seed's form
`{op}_{gpu}_{B=..,H=..}_{scenario}_{num_messages}`, and `_e1`, `_e2` ... for engineers past the first (as
kernelinfer's ids; none at the default scale); two episodes can share it only when they share (op, gpu, shape,
scenario, engineer), i.e. differ only by dtype, so an id gets a suffix `_2`, `_3` ... (before the engineer's) only
then, decided by those few siblings' message counts (pure functions of (seed, index), so every shard names its
rows alone; a sibling already simulated in this process is not simulated again). Siblings are neighbours in the
plan's order, so that costs little: without the engineer in the id, an episode of engineer e had e earlier
siblings ~3,000 indices away, each simulated again.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from generator.catalog.ops import shape_label
from generator.sim.seeding import rng_for, rng_for_purpose
from generator.kernelswarm.episode import SCENARIOS, simulate_episode
from generator.catalog.tasks import Task, split_tasks
from generator.catalog import benchmark, engineers

STREAM = 2   # kernelswarm's word in every SeedSequence (kernelinfer has 1)
BENCHMARK_SIZE = benchmark.KERNELSWARM.size   # held-out groups of the fixed benchmark over these ops
SWARM_IMPLS = {
    "flash_decode": "cuda", "swa_decode": "cuda", "gemm_fp16": "cuda", "int8_gemm": "cuda", "fp8_gemm": "cuda",
    "int4_gemv": "cuda", "rmsnorm": "cuda", "rope": "cuda", "swiglu_act": "cuda", "topk_sample": "cuda",
    "nucleus_sample": "cuda", "mamba_scan": "cuda", "moe_scatter": "cuda", "kv_append": "cuda",
    "fused_qkv_rope": "triton", "triton_flash_decode": "triton", "triton_rmsnorm": "triton",
}


@dataclass(frozen=True)
class Plan:
    episodes: tuple[tuple[Task, str], ...]     # (task, scenario) per episode index
    holdout: tuple[Task, ...]
    engineers: tuple[int, ...]                 # the engineer of each episode (0 unless episodes outnumber pairs)


@lru_cache(maxsize=4)
def plan(seed: int, episodes: int, holdout: int) -> Plan:
    """The episode assignment for (seed, counts): deterministic, catalog-ordered like the seed's rows."""
    split = split_tasks(seed, None, holdout, ops=tuple(SWARM_IMPLS), stream=STREAM, benchmark_size=BENCHMARK_SIZE)
    train = [t for t in split.train if SWARM_IMPLS[t.op] == t.impl]
    held = tuple(t if SWARM_IMPLS[t.op] == t.impl else _with_impl(t) for t in split.holdout)
    pairs = [(t, s) for t in train for s in SCENARIOS]
    rng = rng_for_purpose(seed, STREAM, "split")
    rng.random()   # a stream apart from the one the task split used
    chosen = engineers.pick(rng, len(pairs), episodes, "episodes of distinct (task, scenario) pairs")
    return Plan(tuple(pairs[i] for _, i in chosen), held, tuple(e for e, _ in chosen))


def _with_impl(task: Task) -> Task:
    return Task(task.op, SWARM_IMPLS[task.op], task.gpu, task.dtype, task.shape)


def _prefix(task: Task, scenario: str) -> str:
    return f"{task.op}_{task.gpu}_{shape_label(dict(task.shape))}_{scenario}"


# num_messages of the latest episodes simulated here, by (seed, episodes, holdout, index): siblings sit at most a
# few indices apart, so a shard written in index order finds each earlier sibling's count here instead of
# simulating it again. Bounded (oldest out first) so memory stays flat however many episodes a process writes.
_RECENT_COUNTS: dict[tuple[int, int, int, int], int] = {}
_RECENT_MAX = 64


def _remember(key: tuple[int, int, int, int], num_messages: int) -> None:
    _RECENT_COUNTS[key] = num_messages
    if len(_RECENT_COUNTS) > _RECENT_MAX:
        del _RECENT_COUNTS[next(iter(_RECENT_COUNTS))]


def _num_messages(seed: int, episodes: int, holdout: int, index: int) -> int:
    key = (seed, episodes, holdout, index)
    count = _RECENT_COUNTS.get(key)
    if count is None:
        task, scenario = plan(seed, episodes, holdout).episodes[index]
        count = simulate_episode(task, scenario, rng_for(seed, STREAM, index))["num_messages"]
        _remember(key, count)
    return count


def episode(seed: int, episodes: int, holdout: int, index: int) -> dict:
    """Episode `index` as a row, its `episode_id` first."""
    p = plan(seed, episodes, holdout)
    task, scenario = p.episodes[index]
    row = simulate_episode(task, scenario, rng_for(seed, STREAM, index))
    _remember((seed, episodes, holdout, index), row["num_messages"])
    base = f"{_prefix(task, scenario)}_{row['num_messages']}"
    engineer = p.engineers[index]
    clashes = sum(1 for j in _groups(seed, episodes, holdout)[_group_key(task, scenario, engineer)]
                  if j < index and _num_messages(seed, episodes, holdout, j) == row["num_messages"])
    unique = base if clashes == 0 else f"{base}_{clashes + 1}"
    return {"episode_id": unique + engineers.suffix(engineer), **row}


def _group_key(task: Task, scenario: str, engineer: int) -> tuple:
    return (task.op, task.gpu, task.shape, scenario, engineer)


@lru_cache(maxsize=4)
def _groups(seed: int, episodes: int, holdout: int) -> dict[tuple, list[int]]:
    """Episode indices by id prefix: the only episodes an id can clash with."""
    groups: dict[tuple, list[int]] = {}
    p = plan(seed, episodes, holdout)
    for j, ((t, s), engineer) in enumerate(zip(p.episodes, p.engineers)):
        groups.setdefault(_group_key(t, s, engineer), []).append(j)
    return groups
