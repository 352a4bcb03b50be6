"""kernelinfer's `Dataset` descriptor: one session per training task of the seed's split, plus held-out tasks.

Everything the CLI, writer, validator, card, builder and uploader need to know about kernelinfer is read from
`KERNELINFER`; the simulation itself is `session.simulate_session`.
"""
from __future__ import annotations

from functools import lru_cache

from generator.catalog.tasks import split_tasks
from generator.dataset import Dataset
from generator.kernelinfer import features, stats
from generator.kernelinfer.checks import CHECKS
from generator.kernelinfer.session import simulate_session
from generator.layout import shard_range
from generator.scale import engineers
from generator.sim.seeding import rng_for
from generator.sim.workbench import holdout_row

STREAM = 1   # kernelinfer's word in every SeedSequence (kernelswarm has 2)
BENCHMARK_SIZE = 195   # held-out groups of the fixed benchmark (the seed's held-out count)


@lru_cache(maxsize=4)
def split(seed: int, sessions: int, holdout: int):
    """The seed's training/held-out task split (cached: every shard of a run asks for it)."""
    return split_tasks(seed, sessions, holdout, stream=STREAM, benchmark_size=BENCHMARK_SIZE)


def rows_for_shard(seed: int, sessions: int, holdout: int, shard: int):
    """Rows of one shard: session i is simulated for training task i with row i's own generator; its id names
    the engineer when the task has several."""
    s = split(seed, sessions, holdout)
    for i in shard_range(shard, sessions):
        row = simulate_session(s.train[i], rng_for(seed, STREAM, i))
        row["session_id"] += engineers.suffix(s.engineers[i])
        yield row


def holdout_rows(seed: int, sessions: int, holdout: int) -> list[dict]:
    return [holdout_row(t) for t in split(seed, sessions, holdout).holdout]


KERNELINFER = Dataset(
    name="kernelinfer", title="kernelstrain — kernelinfer", row_unit="session", count_flag="sessions",
    default_rows=1899, default_holdout=BENCHMARK_SIZE, stream=STREAM, id_field="session_id", merged_file="sessions.jsonl",
    total_key="total_steps", features=features.FEATURES, description=features.DESCRIPTION,
    citation=features.CITATION, tags=("long-horizon", "sft"), format_notes=features.FORMAT_NOTES,
    sft_snippet=features.SFT_SNIPPET, builder_name="KernelInfer", checks=CHECKS, rows_for_shard=rows_for_shard, holdout_rows=holdout_rows,
    shard_stats=stats.shard_stats, combine_stats=stats.combine)
