"""kernelswarm's `Dataset` descriptor: multi-agent episodes over the seed's 17 ops, plus held-out tasks.

Which task and scenario each episode gets is `plan`; the episode itself is `episode.simulate_episode`.
"""
from __future__ import annotations

from generator.dataset import Dataset
from generator.kernelswarm import stats
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


def features():
    """The main config's features (imports `datasets`: only loading and describing rows needs them)."""
    from generator.kernelswarm.features import FEATURES

    return FEATURES


DESCRIPTION = (
    "Synthetic multi-agent GPU kernel-optimization episodes for LLM inference kernels: a lead and specialist "
    "agents plan, dispatch, submit kernels and receive simulated compile / verify / benchmark results with rewards."
)
CITATION = """@misc{kernelstrain_kernelswarm,
  title  = {kernelswarm: simulated multi-agent kernel-optimization episodes},
  author = {kernelstrain contributors},
  year   = {2026},
  note   = {Synthetic data from an analytic performance model; no kernel was compiled or run to produce it}
}"""

FORMAT_NOTES = (
    "One row is one multi-agent episode. `messages` is the episode's log; each message has the common fields "
    '`role`, `agent`, `kind`, `content`, `t` (seconds since start) and `reward`, plus kind-specific fields '
    '(`to`, `subtask`, `variant`, `params`, `status`, `time_ms`) that are null where a kind does not use '
    'them. Rewards are attached to environment `result` messages and to the final `verdict`.'
)

SFT_SNIPPET = """\
# one SFT sample per agent: its own turns as assistant, what it saw as user turns
def agent_view(row, agent):
    return [
        {"role": "assistant" if m["agent"] == agent else "user",
         "content": m["content"] if m["agent"] == agent else f"[{m['agent']} {m['kind']}] {m['content']}"}
        for m in row["messages"]
    ]
sample = agent_view(ds[0], ds[0]["agents"][1]["id"])"""


KERNELSWARM = Dataset(
    name="kernelswarm", title="kernelstrain — kernelswarm", row_unit="episode", count_flag="episodes",
    default_rows=2400, default_holdout=BENCHMARK_SIZE, stream=STREAM, id_field="episode_id", merged_file="episodes.jsonl",
    total_key="total_messages", features_fn=features, description=DESCRIPTION,
    citation=CITATION, tags=("multi-agent", "reinforcement-learning"), format_notes=FORMAT_NOTES,
    sft_snippet=SFT_SNIPPET, builder_name="KernelSwarm", checks=CHECKS, rows_for_shard=rows_for_shard, holdout_rows=holdout_rows,
    shard_stats=stats.shard_stats, combine_stats=stats.combine)
