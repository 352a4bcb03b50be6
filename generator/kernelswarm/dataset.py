"""kernelswarm's `Dataset` descriptor: multi-agent episodes over the seed's 17 ops, plus held-out tasks.

Which task and scenario each episode gets is `plan`; the episode itself is `episode.simulate_episode`.
"""
from __future__ import annotations

from generator.dataset import Dataset
from generator.kernelswarm import features, stats
from generator.kernelswarm.checks import CHECKS
from generator.kernelswarm.plan import BENCHMARK_SIZE, STREAM, episode, plan
from generator.layout import shard_range
from generator.sim.workbench import holdout_row


def rows_for_shard(seed: int, episodes: int, holdout: int, shard: int):
    """Rows of one shard: episode i from its own generator (see plan)."""
    for i in shard_range(shard, episodes):
        yield episode(seed, episodes, holdout, i)


def holdout_rows(seed: int, episodes: int, holdout: int) -> list[dict]:
    return [holdout_row(t) for t in plan(seed, episodes, holdout).holdout]


KERNELSWARM = Dataset(
    name="kernelswarm", title="kernelstrain — kernelswarm", row_unit="episode", count_flag="episodes",
    default_rows=2400, default_holdout=BENCHMARK_SIZE, stream=STREAM, id_field="episode_id", merged_file="episodes.jsonl",
    total_key="total_messages", features=features.FEATURES, description=features.DESCRIPTION,
    citation=features.CITATION, tags=("multi-agent", "reinforcement-learning"), format_notes=features.FORMAT_NOTES,
    sft_snippet=features.SFT_SNIPPET, builder_name="KernelSwarm", checks=CHECKS, rows_for_shard=rows_for_shard, holdout_rows=holdout_rows,
    shard_stats=stats.shard_stats, combine_stats=stats.combine)
