"""`python -m generator kernelswarm`: write the kernelswarm dataset folder (defaults = the seed's scale)."""
from __future__ import annotations

from generator.write import generate as dataset_cli
from generator.kernelswarm import stats as swarm_stats
from generator.kernelinfer.session import holdout_row
from generator.kernelswarm.plan import episode, plan

DEFAULT_EPISODES = 2400
DEFAULT_HOLDOUT = 100


def rows_for_shard(seed: int, episodes: int, holdout: int, shard: int):
    """Rows of one shard: episode i from its own generator (see swarm_plan)."""
    stop = min((shard + 1) * dataset_cli.SHARD_SIZE, episodes)
    for i in range(shard * dataset_cli.SHARD_SIZE, stop):
        yield episode(seed, episodes, holdout, i)


def holdout_rows(seed: int, episodes: int, holdout: int) -> list[dict]:
    return [holdout_row(t) for t in plan(seed, episodes, holdout).holdout]


SPEC = dataset_cli.DatasetSpec(
    name="kernelswarm", count_flag="episodes", default_rows=DEFAULT_EPISODES, default_holdout=DEFAULT_HOLDOUT,
    merged_name="episodes.jsonl", id_field="episode_id", total_key="total_messages",
    qa_module="generator.kernelswarm.checks", rows_for_shard=rows_for_shard, holdout_rows=holdout_rows,
    shard_stats=swarm_stats.shard_stats, combine_stats=swarm_stats.combine)


def add_arguments(parser) -> None:
    dataset_cli.add_arguments(SPEC, parser)


def run(args) -> int:
    return dataset_cli.run(SPEC, args)
