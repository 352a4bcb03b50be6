"""The card's sections that state facts of the data: what the rows cover, what the folder holds, how big it is,
what a row looks like, what the plots show, and what the data is for and not for.

Every figure comes from `stats.json` (computed from the rows), the folder's files or one of its rows, never from
the catalog: a card describes the folder it sits in (a 30-episode folder names the ops those episodes have). The
catalog only adds what a name means (a GPU's device name and DRAM bandwidth, an op's family).
"""
from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import orjson

from generator.catalog.calibration import DRAM_CEILING
from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.dataset import Dataset
from generator.layout import HOLDOUT_FILE, QA_DIR, SHARD_PATTERN
from generator.write.plots import PLOTS, plot_names, plot_path
from generator.tokens import RULE as TOKEN_RULE

TEXT_CHARS = 160     # an example row's strings are cut after this many characters
LIST_ITEMS = 3       # and its lists after this many items


def truncated(value, *, chars: int = TEXT_CHARS, items: int = LIST_ITEMS):
    """`value` with long strings cut and long lists shortened, each cut saying how much it left out."""
    if isinstance(value, str) and len(value) > chars:
        return f"{value[:chars]}… [{len(value) - chars:,} more chars]"
    if isinstance(value, list):
        kept = [truncated(v, chars=chars, items=items) for v in value[:items]]
        return kept + ([f"… [{len(value) - items:,} more items]"] if len(value) > items else [])
    if isinstance(value, dict):
        return {k: truncated(v, chars=chars, items=items) for k, v in value.items()}
    return value


def disk_usage(dataset: Dataset, configs: dict[str, str], results: list[dict], data_bytes: int,
               files: dict[str, bytes]) -> dict:
    """stats.json `disk`: per file pattern of the folder, the config it makes (null for the others), files, bytes.

    `configs` maps the card's file patterns to their config (`card.data_files`); `results` are the writer's shard
    summaries (`file_bytes`: each shard's Parquet files), `data_bytes` the JSONL shards' total (= the merged file),
    `files` the extra files already made (holdout, its Parquet, QA reports)."""
    sizes = {name: n for r in results for name, n in r["file_bytes"].items()}
    sizes |= {name: len(data) for name, data in files.items()}
    out = {SHARD_PATTERN: {"config": configs.get(SHARD_PATTERN), "files": len(results), "bytes": data_bytes}}
    patterns = {**configs, **{raw: None for raw in (HOLDOUT_FILE, f"{QA_DIR}/*.json") if raw not in configs}}
    for pattern, config in patterns.items():
        matched = [n for name, n in sizes.items() if fnmatch(name, pattern)]
        if matched and pattern not in out:
            out[pattern] = {"config": config, "files": len(matched), "bytes": sum(matched)}
    out[dataset.merged_file] = {"config": None, "files": 1, "bytes": data_bytes}
    return out


def megabytes(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 100_000 else f"{n / 1e3:,.1f} KB"


def family(op: str) -> str:
    """The op's family in the catalog ("other" for a name the catalog lacks)."""
    return OPS[op].family if op in OPS else "other"


def scope(dataset: Dataset, stats: dict) -> str:
    """The ops, implementations and dtypes the rows hold, ops grouped by family, with row counts."""
    ops = stats.get("ops") or {}
    families: dict[str, list[str]] = {}
    for op in sorted(ops, key=lambda o: (family(o), o)):
        families.setdefault(family(op), []).append(op)
    lines = [f"- **{family}** ({sum(ops[o] for o in names):,} {dataset.row_unit}s): "
             + ", ".join(f"`{o}` ({ops[o]:,})" for o in names) for family, names in families.items()]
    impls = " and ".join(f"{i} ({n:,})" for i, n in (stats.get("impls") or {}).items())
    dtypes = ", ".join(f"{d} ({n:,})" for d, n in (stats.get("dtypes") or {}).items())
    count = next((stats[k] for k in (dataset.count_flag, "rows") if isinstance(stats.get(k), int)), None)
    head = f"{count:,} {dataset.row_unit}s" if count is not None else f"The {dataset.row_unit}s"
    return (f"## Scope\n\nInference kernels only (no training kernels). {head} over {len(ops)} ops, "
            f"implemented in {impls or '-'}; dtypes {dtypes or '-'}. Ops by family ({dataset.row_unit}s in "
            "parentheses):\n\n" + "\n".join(lines))


def hardware(dataset: Dataset, stats: dict) -> str:
    """The GPUs the rows target, with the vendor figures the model uses and the rows per GPU."""
    gpus = stats.get("gpus") or {}
    rows = [f"| `{g}` | {GPUS[g].display} | `{GPUS[g].arch}` | {GPUS[g].dram_gbps:g} GB/s | "
            f"{', '.join(sorted(GPUS[g].features)) or '-'} | {n:,} |" if g in GPUS else f"| `{g}` | - | - | - | - | {n:,} |"
            for g, n in gpus.items()]
    head = (f"| gpu | device | arch | DRAM bandwidth | features | {dataset.row_unit}s |\n"
            "|---|---|---|---|---|---|")
    return (f"## Hardware targets\n\n{len(gpus)} GPUs (vendor specs with sources: docs/gpu_facts.md of "
            "kernelstrain).\n\n" + head + "\n" + "\n".join(rows))


def results(dataset: Dataset, stats: dict) -> str:
    """The plots (relative links into `plots/`) and the tables they draw."""
    figures = stats.get("figures")
    if not figures:
        return "## Results\n\nNo figures were recorded (stats.json has no `figures`)."
    images = "\n\n".join(f"![{PLOTS[name][0]}]({plot_path(name)})" for name in plot_names(stats))
    cells = figures["speedup_by_family_gpu"]
    gpus = sorted({g for row in cells.values() for g in row})
    speedup = [f"| {fam} | " + " | ".join(f"{row[g]['geomean']:g}x ({row[g]['rows']:,})" if g in row else "-"
                                          for g in gpus) + " |" for fam, row in cells.items()]
    mix = figures["status_by_gpu"]
    statuses = list(next(iter(mix.values()))) if mix else []
    status = [f"| `{g}` | " + " | ".join(f"{counts[s]:,}" for s in statuses) + " |" for g, counts in mix.items()]
    unit = "steps" if dataset.name == "kernelinfer" else "env results"
    medians = ", ".join(f"{fam} {m:g}" for fam, m in figures["efficiency"]["median_by_family"].items())
    return (f"## Results\n\nDrawn from `stats.json` (`figures`) alone; `python -m generator.write.plots FOLDER` "
            f"redraws them.\n\n{images}\n\nBest speedup over the naive baseline, geometric mean per op family and "
            f"GPU ({dataset.row_unit}s in parentheses):\n\n| family | " + " | ".join(f"`{g}`" for g in gpus)
            + " |\n|---|" + "---|" * len(gpus) + "\n" + "\n".join(speedup)
            + f"\n\nStatus of the {unit} per GPU:\n\n| gpu | " + " | ".join(statuses) + " |\n|---|"
            + "---|" * len(statuses) + "\n" + "\n".join(status)
            + f"\n\nMedian best efficiency (roofline time / best time) per op family: {medians}.")


def config_cell(config: str | None) -> str:
    return f"`{config}`" if config else "-"


def folder_disk(folder: Path, patterns: dict[str, str | None]) -> dict:
    """`disk_usage`'s table measured on a folder's own files: pattern -> the config it makes (None: no config)."""
    out = {}
    for pattern, config in patterns.items():
        sizes = [p.stat().st_size for p in sorted(folder.glob(pattern)) if p.is_file()]
        if sizes:
            out[pattern] = {"config": config, "files": len(sizes), "bytes": sum(sizes)}
    return out


def layout(stats: dict) -> str:
    """The files of the folder, the config each makes, and their size on disk (`stats.json` `disk`)."""
    disk = stats.get("disk") or {}
    rows = [f"| `{path}` | {config_cell(d['config'])} | {d['files']:,} | {megabytes(d['bytes'])} |"
            for path, d in disk.items()]
    plots = ", ".join(f"`{plot_path(n)}`" for n in plot_names(stats)) if stats.get("figures") else ""
    return ("## Files\n\nWhat this folder holds (sizes on disk):\n\n| files | config | count | size |\n"
            "|---|---|---|---|\n" + "\n".join(rows)
            + "\n\nAlso `stats.json` (statistics computed from the rows, and the figures the plots draw), this "
            "`README.md`" + (f", the plots {plots}" if plots else "")
            + ".")


def token_lengths(stats: dict) -> str:
    """Characters and tokens per row of every config (stats.json `tokens`)."""
    tokens = stats.get("tokens") or {}
    if not tokens:
        return "## Lengths\n\nNo token statistics were recorded."
    rows = [f"| `{name}` | {t['rows']:,} | {t['chars']['mean']:,.1f} | {t['chars']['max']:,} | "
            f"{t['tokens']['mean']:,.1f} | {t['tokens']['p50']:,} | {t['tokens']['p90']:,} | {t['tokens']['max']:,} | "
            f"{t['fit_32k']:.1%} | {t['fit_128k']:.1%} |" for name, t in tokens.items()]
    return ("## Lengths\n\nPer row of each config (`tokens` of `stats.json`; tokens are a conservative count, "
            f"{TOKEN_RULE}, above what common BPE tokenizers give):\n\n"
            "| config | rows | chars mean | chars max | tokens mean | p50 | p90 | max | fit 32K | fit 128K |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows))


def example(dataset: Dataset, row: dict | None, first_shard: str) -> str:
    """The card's example: `row`, the first of `first_shard` (its file, relative to the folder)."""
    if row is None:
        return ""
    text = orjson.dumps(row, option=orjson.OPT_INDENT_2).decode()
    return (f"## Example row\n\nThe first {dataset.row_unit} of `{first_shard}`, strings cut after "
            f"{TEXT_CHARS} characters and lists after {LIST_ITEMS} items (each cut says how much it left out):"
            f"\n\n```json\n{text}\n```")


INTENDED_USES = f"""## Intended uses and limitations

Intended uses:
- Supervised fine-tuning of models that write and iteratively improve CUDA / Triton inference kernels from
  compiler, correctness and benchmark feedback (long-horizon chat transcripts, or the per-step views).
- Prototyping RL setups (rewards, credit assignment over long episodes, multi-agent coordination) before paying
  for real GPU rollouts.
- The `holdout` tasks as a fixed benchmark of task specs; scoring a model on them needs a real GPU harness.

What is modelled (sources in kernelstrain's docs/calibration.md and docs/gpu_facts.md): each task's roofline
(minimum DRAM traffic over the GPU's spec bandwidth, FLOPs over the dtype's peak, launch overhead); best kernels
at the fractions of peak published kernels reach, never above the measured ceilings ({DRAM_CEILING * 100:.0f} % of DRAM bandwidth, the
best published tensor-core fraction), naive baselines at what naive kernels get; exact arch gating (wgmma only on
sm_90a, TMA on sm_90+/sm_120a, fp8 tensor cores on sm_89+, fp4 only on sm_120a, per-block shared-memory caps);
compile and launch diagnostics as nvcc / ptxas / Triton print them for the injected fault (the kernel sources are
real, and a sample is recompiled by `audit-compile`).

Limitations:
- **No kernel ran.** Every time, speedup and status is the model's output; noise is a simple model, and clocks,
  thermals, caches beyond the roofline, drivers and toolkit versions are not modelled, nor multi-GPU work.
- **No numerical results.** Correctness reports are simulated; a `wrong_result` comes from an injected bug.
- **One scripted strategy.** The engineers are a policy (structural variants in order, then local search over
  launch parameters, fixes, reverts), not people or LLMs: a model trained on these rows learns that strategy and
  its feedback format, not the variety of real engineering sessions.
- Some figures are not yet calibrated (small-M int4 GEMM, samplers, Triton prefill baselines: docs/calibration.md
  "Not yet calibrated"). Compare against real measurements before drawing performance conclusions."""
