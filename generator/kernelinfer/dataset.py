"""kernelinfer's `Dataset` descriptor: one session per training task of the seed's split, plus held-out tasks.

Everything the CLI, writer, validator, card, builder and uploader need to know about kernelinfer is read from
`KERNELINFER`; the simulation itself is `session.simulate_session`.
"""
from __future__ import annotations

from functools import lru_cache

from generator.catalog.tasks import split_tasks
from generator.dataset import Dataset, view
from generator.kernelinfer import stats, step_rewards
from generator.kernelinfer.checks import CHECKS
from generator.kernelinfer.session import simulate_session
from generator.layout import SHARD_SIZE, shard_range
from generator.catalog import benchmark, engineers
from generator.sim import rewards
from generator.sim.seeding import rng_for
from generator.sim.workbench import holdout_row
from generator.write import diversity
from generator.kernelinfer.audit_steps import compiled_steps

STREAM = 1   # kernelinfer's word in every SeedSequence (kernelswarm has 2)
BENCHMARK_SIZE = benchmark.KERNELINFER.size   # held-out groups of the fixed benchmark over every op


@lru_cache(maxsize=4)
def split(seed: int, sessions: int, holdout: int):
    """The seed's training/held-out task split (cached: every shard of a run asks for it)."""
    return split_tasks(seed, sessions, holdout, stream=STREAM, benchmark_size=BENCHMARK_SIZE)


def rows_for_shard(seed: int, sessions: int, holdout: int, shard: int, shard_size: int = SHARD_SIZE):
    """Rows of one shard: session i is simulated for training task i with row i's own generator; its id names
    the engineer when the task has several."""
    s = split(seed, sessions, holdout)
    for i in shard_range(shard, sessions, shard_size):
        row = simulate_session(s.train[i], rng_for(seed, STREAM, i))
        row["session_id"] += engineers.suffix(s.engineers[i])
        yield row


def holdout_rows(seed: int, sessions: int, holdout: int) -> list[dict]:
    return [holdout_row(t) for t in split(seed, sessions, holdout).holdout]


def features():
    """The main config's features (imports `datasets`: only loading and describing rows needs them)."""
    from generator.kernelinfer.features import FEATURES

    return FEATURES


def steps_rows(row: dict, *, window_tokens: int) -> list[dict]:
    from generator.kernelinfer import steps

    return steps.rows(row, window_tokens=window_tokens)


def steps_features():
    from generator.kernelinfer.steps import FEATURES

    return FEATURES


def total_steps(stats: dict) -> int:
    return stats["total_steps"]


STEPS = view(
    "steps", steps_features, "step", steps_rows, "one step of a session: the prompt that led to it, the kernel written",
    "`prompt` is TRL's conversational prompt: the session's system turn and one user turn holding the task, one "
    "line per earlier step, the current best kernel with its report and the previous step's kernel with its "
    "feedback (to fit `--window-tokens` the oldest history lines are counted, not listed, and a part that does not "
    "fit is replaced by a note naming it); `completion` is the kernel the engineer wrote "
    "next. `reward` scores the step as kernelswarm scores a result against the running best (starting at the "
    f"baseline): improving `min(1, log2(best / time))`, no gain {rewards.NO_IMPROVEMENT:g}, compile_error "
    f"{rewards.COMPILE_ERROR:g}, launch_error (compiled, but the launch was refused: the kernel never ran) "
    f"{rewards.LAUNCH_ERROR:g}, wrong_result {rewards.WRONG_RESULT:g}, a variant the GPU lacks "
    f"{rewards.UNSUPPORTED_ARCH:g}; `session_id` groups a session's steps (a GRPO group).",
    source_count=total_steps, rule=step_rewards.problems)


DESCRIPTION = (
    "Synthetic long-horizon GPU kernel-optimization sessions for LLM inference kernels: a task, then "
    "alternating full CUDA/Triton kernel candidates and simulated compiler / correctness / benchmark feedback."
)
CITATION = """@misc{kernelstrain_kernelinfer,
  title  = {kernelinfer: simulated inference-kernel optimization sessions},
  author = {kernelstrain contributors},
  year   = {2026},
  note   = {Synthetic data from an analytic performance model; no kernel was compiled or run to produce it}
}"""

FORMAT_NOTES = (
    "One row is one optimization session. `messages` is the training text in chat form: a system turn, the "
    "user's task, then alternating assistant turns (the full kernel source, no prose) and user feedback "
    "whose first line is `[t+H:MM:SS] RESULT <status>` (`ok`, `compile_error`, `launch_error`, `wrong_result`). `trace` is "
    "compact per-step metadata (variant `tag`, step `kind`, tuned `params`, `status`, `time_ms` null unless "
    "ok, `kept`). A `tune` step (constants only) fails only for what its new values cause (a launch limit, "
    "shared memory over the cap); typos and wrong results come with structural rewrites and fixes, so "
    "`step_statuses` is more ok-heavy than the seed's 84.5 % ok / 12.5 % compile_error / 2.9 % wrong_result "
    "(numbers in the table below; why: docs/calibration.md of kernelstrain)."
)

SFT_SNIPPET = """\
# messages are already chat turns ({"role", "content"}): one SFT sample per session
sft = ds.select_columns(["messages"])
# text = tokenizer.apply_chat_template(sft[0]["messages"], tokenize=False)
# one prompt/completion pair per step, within the window (TRL's conversational prompt-completion form):
steps = load_dataset("path/to/kernelinfer", "steps", split="train")"""


KERNELINFER = Dataset(
    name="kernelinfer", title="kernelstrain — kernelinfer", row_unit="session", count_flag="sessions",
    default_rows=1899, default_holdout=BENCHMARK_SIZE, id_field="session_id", merged_file="sessions.jsonl",
    total_key="total_steps", features_fn=features, description=DESCRIPTION,
    citation=CITATION, tags=("long-horizon", "sft"), format_notes=FORMAT_NOTES,
    sft_snippet=SFT_SNIPPET, builder_name="KernelInfer", checks=CHECKS, rows_for_shard=rows_for_shard, holdout_rows=holdout_rows,
    shard_stats=stats.shard_stats, combine_stats=stats.combine, diversity_digests=diversity.kernelinfer_digests,
    diversity_figures=diversity.kernelinfer_figures, views=(STEPS,), compiled_steps=compiled_steps)
