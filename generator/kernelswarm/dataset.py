"""kernelswarm's `Dataset` descriptor: multi-agent episodes over the seed's 17 ops, plus held-out tasks.

Which task and scenario each episode gets is `plan`; the episode itself is `episode.simulate_episode`.
"""
from __future__ import annotations

from generator.dataset import Dataset, view
from generator.kernelswarm import agent_turns_rule, stats, transition_rule
from generator.kernelswarm.checks import CHECKS
from generator.kernelswarm.episode import think_floor_s
from generator.kernelswarm.plan import BENCHMARK_SIZE, episode, plan
from generator.layout import SHARD_SIZE, shard_range
from generator.sim import clock, rewards
from generator.sim.workbench import holdout_row
from generator.write import diversity
from generator.kernelswarm.audit_steps import compiled_steps


def rows_for_shard(seed: int, episodes: int, holdout: int, shard: int, shard_size: int = SHARD_SIZE):
    """Rows of one shard: episode i from its own generator (see plan)."""
    for i in shard_range(shard, episodes, shard_size):
        yield episode(seed, episodes, holdout, i)


def holdout_rows(seed: int, episodes: int, holdout: int) -> list[dict]:
    return [holdout_row(t) for t in plan(seed, episodes, holdout).holdout]


def features():
    """The main config's features (imports `datasets`: only loading and describing rows needs them)."""
    from generator.kernelswarm.features import FEATURES

    return FEATURES


def agent_turns_rows(row: dict, *, window_tokens: int) -> list[dict]:
    from generator.kernelswarm import agent_turns

    return agent_turns.rows(row, window_tokens=window_tokens)


def agent_turns_features():
    from generator.kernelswarm.agent_turns import FEATURES

    return FEATURES


def transitions_rows(row: dict, *, window_tokens: int) -> list[dict]:
    from generator.kernelswarm import transitions

    return transitions.rows(row, window_tokens=window_tokens)


def transitions_features():
    from generator.kernelswarm.transitions import FEATURES

    return FEATURES


def outcome_notes(stats: dict) -> str:
    """The card's Outcomes section: episodes that beat nothing, with their count (empty before stats.json counted
    them)."""
    n, total = stats.get("no_improvement"), stats.get("episodes")
    if not isinstance(n, int) or not total:
        return ""
    return (f"## Outcomes\n\n{n:,} of {total:,} episodes ({100 * n / total:.1f} %) end without beating the naive baseline: no "
            "passing result was faster (a kernel already near its memory bound at the naive version, or every "
            "faster variant refused at launch), so the verdict keeps the baseline (`kept: \"baseline\"`, `best_ms` "
            f"equal to `baseline_ms`, speedup 1.0, verdict reward {rewards.NO_IMPROVEMENT:g}); `stats.json` `no_improvement` "
            "counts them.")


def total_results(stats: dict) -> int:
    return sum(stats["result_statuses"].values())


AGENT_TURNS = view(
    "agent_turns", agent_turns_features, "agent_turn", agent_turns_rows,
    "one agent's chat of an episode (one row per window of it)",
    "`messages` is one agent's chat: a system turn for its role, a user turn stating the task, then what reached "
    "it (messages addressed to it, broadcasts, the results of its own candidates) as user turns and its own "
    "messages as assistant turns, one message each, ending on its last assistant turn; a chat over "
    "`--window-tokens` is cut at exchange boundaries into rows `window` 0, 1, ..., each opening with the system "
    "turn and the task. No reward: an SFT set.", rule=agent_turns_rule.problems)
TRANSITIONS = view(
    "transitions", transitions_features, "transition", transitions_rows,
    "one env result: what the acting agent knew, the kernel it submitted, the reward",
    "`prompt` is the submitting agent's chat up to the candidate the result answers (newest exchanges kept within "
    "`--window-tokens`), `completion` that candidate's source; `done` marks the agent's last result of the "
    "episode; `status`, `time_ms` and `reward` are the env "
    "result's own (the seed card's rewards: improving `min(1, log2(prev_best / new))`, `prev_best` the shared best "
    "when the candidate was sent, which the env announces to the whole team (`new_best`) and so is the last best the "
    "prompt states; no gain "
    f"{rewards.NO_IMPROVEMENT:g}, compile_error {rewards.COMPILE_ERROR:g}, wrong_result {rewards.WRONG_RESULT:g}, "
    f"unsupported arch {rewards.UNSUPPORTED_ARCH:g}; and launch_error, a status the seed lacks (compiled, but the "
    f"launch was refused: the kernel never ran), {rewards.LAUNCH_ERROR:g} as a compile error).",
    source_count=total_results, rule=transition_rule.problems)


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
    'them. Rewards are attached to environment `result` messages and to the final `verdict`, which names the '
    'shared best result (`ref`), or, when no passing result beat the naive baseline, keeps it (`kept: "baseline"`, '
    'no `ref`). The env announces each new shared best to the whole team right after its result (`new_best`, '
    '`ref` that result); a verification names the result it re-checked (`ref`) and is copied to the lead. A '
    "verification's correctness pass is always the truth: a kernel the simulation lets pass once has no fault "
    'that another run can show (a race already fails its first report); its rerun time carries what it measured. '
    '`t` is the team\'s clock: an agent starts a piece of work when it is free and the message it '
    'waits for is out, the dispatch, redirect or handoff that gave it the work (not the lead\'s later messages to '
    'others), else the team\'s latest plan, status, review, verification, leaderboard or merge (a round ends with '
    'its last result); each specialist has its own GPU of the task\'s kind, its builds '
    'and benchmarks one at a time (so runs of different agents overlap, an agent\'s own never do); one pace per '
    'episode (1 or more) scales every think time of the duration model, so writing a whole kernel takes the '
    f'model\'s {clock.think_median_s("new_variant", 1):g} s a line times the pace at the median '
    f'({think_floor_s("new_variant", 1):.2f} s a line at least); a dispatch, redirect or handoff costs '
    'its speaker\'s time only (the rest of the team does not wait for it).'
)

SFT_SNIPPET = """\
# one SFT sample per (agent, window): its own turns as assistant, what reached it as user turns
turns = load_dataset("path/to/kernelswarm", "agent_turns", split="train")
# text = tokenizer.apply_chat_template(turns[0]["messages"], tokenize=False)"""


KERNELSWARM = Dataset(
    name="kernelswarm", title="kernelstrain — kernelswarm", row_unit="episode", count_flag="episodes",
    default_rows=2400, default_holdout=BENCHMARK_SIZE, id_field="episode_id", merged_file="episodes.jsonl",
    total_key="total_messages", features_fn=features, description=DESCRIPTION,
    citation=CITATION, tags=("multi-agent", "reinforcement-learning"), format_notes=FORMAT_NOTES,
    sft_snippet=SFT_SNIPPET, builder_name="KernelSwarm", checks=CHECKS, rows_for_shard=rows_for_shard, holdout_rows=holdout_rows,
    shard_stats=stats.shard_stats, combine_stats=stats.combine, diversity_digests=diversity.kernelswarm_digests,
    diversity_figures=diversity.kernelswarm_figures, views=(AGENT_TURNS, TRANSITIONS), outcome_notes=outcome_notes,
    compiled_steps=compiled_steps)
