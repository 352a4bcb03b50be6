"""`python -m generator kernelinfer`: write the kernelinfer dataset folder (defaults = the seed's scale).

The command itself is the shared `dataset_cli` runner; this module supplies what is kernelinfer's own: one
session per training task of the seed's split, the holdout rows, stats and QA (registered in `generator.check.qa`).
"""
from __future__ import annotations

from functools import lru_cache

from generator.write import generate as dataset_cli
from generator.kernelinfer import stats
from generator.sim.seeding import rng_for
from generator.catalog.tasks import split_tasks

DATASET = "kernelinfer"
DEFAULT_SESSIONS = 1899
DEFAULT_HOLDOUT = 195


@lru_cache(maxsize=4)
def split(seed: int, sessions: int, holdout: int):
    """The seed's training/held-out task split (cached: every shard of a run asks for it)."""
    return split_tasks(seed, sessions, holdout, dataset=DATASET)


def rows_for_shard(seed: int, sessions: int, holdout: int, shard: int):
    """Rows of one shard: session i is simulated for training task i with row i's own generator."""
    from generator.kernelinfer.session import simulate_session

    train = split(seed, sessions, holdout).train
    for i in range(shard * dataset_cli.SHARD_SIZE, min((shard + 1) * dataset_cli.SHARD_SIZE, sessions)):
        yield simulate_session(train[i], rng_for(seed, DATASET, i))


def holdout_rows(seed: int, sessions: int, holdout: int) -> list[dict]:
    from generator.kernelinfer.session import holdout_row

    return [holdout_row(t) for t in split(seed, sessions, holdout).holdout]


SPEC = dataset_cli.DatasetSpec(
    name=DATASET, count_flag="sessions", default_rows=DEFAULT_SESSIONS, default_holdout=DEFAULT_HOLDOUT,
    merged_name="sessions.jsonl", id_field="session_id", total_key="total_steps", qa_module="generator.check.qa",
    rows_for_shard=rows_for_shard, holdout_rows=holdout_rows, shard_stats=stats.shard_stats,
    combine_stats=stats.combine)


def add_arguments(parser) -> None:
    dataset_cli.add_arguments(SPEC, parser)


def run(args) -> int:
    return dataset_cli.run(SPEC, args)
