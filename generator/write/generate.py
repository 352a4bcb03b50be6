"""The generation command shared by both datasets: arguments, the writer, QA, stats, card and validation.

Each dataset's `Dataset` descriptor supplies its row function per shard, holdout rows, stats, checks and id
field; this module wires them to the generic writer (`generator.write.writer.write_dataset`) the same way for both, so the two folders are produced,
checked and summarized identically. The folder only gets its final name when the validator and every QA check
pass.
"""
from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import orjson

import generator
from generator import SCHEMA_VERSION, interrupts, tokens
from generator.check import qa
from generator.code_digest import code_digest
from generator.check.validate import validate_paths
from generator.dataset import Dataset
from generator.catalog import benchmark
from generator.catalog import validation
from generator.layout import (HOLDOUT_CONFIG, HOLDOUT_FILE, HOLDOUT_PARQUET, SHARD_SIZE, STATS_FILE, CARD_FILE,
                              num_shards, qa_name, shard_label, view_name)
from generator.write import card_facts, figures
from generator.write.card import config_of_pattern, render_card
from generator.write.parquet import read_rows, to_parquet
from generator.write.plots import render_plots
from generator.write.views import SPLITS, WINDOW_TOKENS, ParquetFiles
from generator.write.writer import OutputError, default_workers, write_dataset

INT64_MAX = 2**63 - 1    # options are recorded as JSON ints (orjson, Arrow int64)


def int_at_least(minimum: int, maximum: int = INT64_MAX):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {value}")
        if value > maximum:
            raise argparse.ArgumentTypeError(f"must be <= {maximum}")
        return value
    return parse


def add_window_tokens(parser: argparse.ArgumentParser) -> None:
    """--window-tokens and --shard-size, the same for the generation commands and `scale` (whose shards must be
    the CLI's)."""
    parser.add_argument("--window-tokens", type=int_at_least(1024), default=WINDOW_TOKENS,
                        help=f"token budget of one view row (default {WINDOW_TOKENS}; see docs/tokens.md)")
    parser.add_argument("--shard-size", type=int_at_least(1), default=SHARD_SIZE,
                        help=f"rows per shard file (default {SHARD_SIZE}): smaller shards spread a small run over more "
                        "processes or Slurm tasks, larger ones make fewer files; the rows are the same")


def add_arguments(dataset: Dataset, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, type=Path, help="output folder (created; must not hold other data)")
    parser.add_argument("--seed", type=int_at_least(0), default=0, help="master seed (default 0)")
    parser.add_argument(f"--{dataset.count_flag}", dest="rows", type=int_at_least(1), default=dataset.default_rows,
                        help=f"training {dataset.count_flag} (default {dataset.default_rows})")
    parser.add_argument("--holdout", type=int_at_least(1), default=dataset.default_holdout,
                        help=f"held-out tasks: the first N of the fixed benchmark {benchmark.VERSION} (default: all "
                        f"{dataset.default_holdout}); training never holds any of its groups, whatever N")
    parser.add_argument("--num-proc", type=int_at_least(1), default=default_workers(),
                        help="processes that make the shards and validate the output (default: usable CPUs, at "
                        "most 8); the bytes do not depend on it")
    names = ", ".join(v.name for v in dataset.views)
    parser.add_argument("--no-views", dest="views", action="store_false",
                        help=f"the seed's JSONL-only layout: no training views ({names}), no Parquet "
                             "(data/, views/), the card's configs read batches/*.jsonl and tasks_holdout.jsonl")
    add_window_tokens(parser)


def task_key(row: dict) -> tuple:
    return row["op"], row["impl"], row["gpu"], row["dtype"], tuple(sorted(row["shape"].items()))


def shard_summary(dataset: Dataset, shards: int, shard: int, rows: list[dict], views: dict[str, bytes] | None = None
                  ) -> dict:
    """Runs in the worker, on shard `shard` of a run of `shards`: stats, the QA report, the keys for the
    cross-shard checks, the rows per split of the main config, each config's `tokens.tally` (the main rows', and
    those of the shard's view files, every split), and the view rows per split."""
    import pyarrow as pa

    sizes = {dataset.main_config.name: tokens.tally(rows)}
    view_splits: dict[str, dict[str, int]] = {}
    for view in dataset.views:
        for split in SPLITS:
            data = (views or {}).get(view_name(view.name, split, shard, shards=shards))
            if data is not None:
                counts = tokens.tally(read_rows(pa.BufferReader(data)))
                fold_sizes(sizes, {view.name: counts})
                view_splits.setdefault(view.name, {})[split] = sum(counts[1].values())
    return {"stats": dataset.shard_stats(rows),
            "qa": qa.run_checks(dataset.checks, rows, shard_label(shard, shards=shards), id_field=dataset.id_field),
            "keys": [task_key(r) for r in rows], "ids": [r[dataset.id_field] for r in rows], "sizes": sizes,
            "splits": [validation.split_of(r) for r in rows], "view_splits": view_splits,
            "figures": figures.shard_figures(dataset.name, rows), "diversity": dataset.diversity_digests(rows),
            "file_bytes": {name: len(data) for name, data in (views or {}).items()},
            "example": card_facts.truncated(rows[0]) if shard == 0 else None}


def fold_sizes(total: dict[str, tokens.Tally], sizes: dict[str, tokens.Tally]) -> dict[str, tokens.Tally]:
    """`sizes` (a shard summary's, per config) folded into `total` (in place), which is returned."""
    for name, counts in sizes.items():
        tokens.fold(total.setdefault(name, ({}, {})), counts)
    return total


def token_summary(results: list[dict]) -> dict:
    """Per config, `tokens.token_stats` over every shard's rows (exact: the shards' tallies folded). A summary
    without `sizes` is one whose sizes were folded into an earlier one's as it arrived (`generator.scale.finish`)."""
    total: dict[str, tokens.Tally] = {}
    for r in results:
        fold_sizes(total, r.get("sizes", {}))
    return {name: tokens.summarize(counts) for name, counts in total.items()}


def split_summary(results: list[dict]) -> dict:
    """The main config's rows per split (`generator.catalog.validation`, whose version it names) and, when the
    views were written, each view's rows per split (`views`)."""
    names = [s for r in results for s in r["splits"]]
    out = {"rule": validation.VERSION, validation.TRAIN: names.count(validation.TRAIN),
           validation.SPLIT: names.count(validation.SPLIT)}
    views: dict[str, dict[str, int]] = {}
    for r in results:
        for view, counts in r["view_splits"].items():
            for split, n in counts.items():
                views.setdefault(view, dict.fromkeys(SPLITS, 0))[split] += n
    return {**out, "views": views} if views else out


def cross_shard_problems(dataset: Dataset, results: list[dict], holdout_rows: list[dict]) -> list[str]:
    """Ids unique across shards; held-out tasks absent from training (and, for sessions, tasks unique)."""
    problems: list[str] = []
    first_id: dict[str, int] = {}
    first_key: dict[tuple, int] = {}

    def label(shard: int) -> str:
        return shard_label(shard, shards=len(results))

    for shard, res in enumerate(results):
        for row_id in res["ids"]:
            if row_id in first_id:
                problems.append(f"{dataset.id_field} {row_id} in {label(first_id[row_id])} and {label(shard)}")
            first_id.setdefault(row_id, shard)
        for key in res["keys"]:
            first_key.setdefault(key, shard)
    for line, row in enumerate(holdout_rows, 1):
        key = task_key(row)
        if key in first_key:
            problems.append(f"{HOLDOUT_FILE}:{line}: held-out task {key} is also in {label(first_key[key])}")
    return problems


def extra_files(dataset: Dataset, options: dict, holdout_rows: list[dict], problems: list[str],
                finished: Path | None = None):
    """The folder's files beyond the shards; the plots of `finished` (the folder a rerun replaces) are kept where
    their inputs are unchanged."""
    def build(results: list[dict], data_bytes: int) -> dict[str, bytes]:
        problems.extend(cross_shard_problems(dataset, results, holdout_rows))
        for res in results:
            problems.extend(qa.failures(res["qa"]))
        summary = dataset.stats_document([r["stats"] for r in results], holdout_tasks=len(holdout_rows),
                                         data_bytes=data_bytes, options=options)
        summary["tokens"] = token_summary(results)
        summary["splits"] = split_summary(results)
        summary["figures"] = figures.combine(dataset.name, [r["figures"] for r in results])
        summary["diversity"] = dataset.diversity_figures([r["diversity"] for r in results])
        files = {HOLDOUT_FILE: b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in holdout_rows)}
        for i, res in enumerate(results):
            files[qa_name(i, shards=len(results))] = orjson.dumps(res["qa"], option=orjson.OPT_INDENT_2)
        if options["views"]:
            files[HOLDOUT_PARQUET] = to_parquet(dataset.config(HOLDOUT_CONFIG).features, holdout_rows)
        summary["disk"] = card_facts.disk_usage(dataset, config_of_pattern(dataset, summary), results, data_bytes,
                                                files)
        files[STATS_FILE] = orjson.dumps(summary, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        files.update(render_plots(summary, reuse_from=finished))
        files[CARD_FILE] = render_card(dataset, summary, example=results[0]["example"]).encode()
        return files
    return build


def folder_check(problems: list[str], jobs: int):
    """The finished folder through the validator, over as many processes as the shards were made with."""
    def check(folder: Path) -> list[str]:
        report = validate_paths([folder], jobs=jobs)
        return problems + [f"{f.path}:{f.line}: {f.message}" if f.line else f"{f.path}: {f.message}"
                           for f in report.findings]
    return check


def run_options(dataset: Dataset, seed: int, rows: int, holdout: int, *, views: bool = False,
                window_tokens: int = WINDOW_TOKENS, shard_size: int = SHARD_SIZE) -> dict:
    """The options stats.json records: the run's, the held-out benchmark's version and the training views'."""
    return {"version": generator.__version__, "schema_version": SCHEMA_VERSION, "seed": seed, dataset.count_flag: rows,
            "holdout": holdout, "benchmark": benchmark.VERSION, "views": views, "window_tokens": window_tokens,
            "shard_size": shard_size}


def run(dataset: Dataset, args) -> int:
    """Exit 0 written, 1 validation or QA problems (the folder kept at its partial name), 2 usage or I/O error,
    130 interrupted; a finished --out is never taken away (see `generator.write.outdir`)."""
    partial = args.out.with_name(f".{args.out.name}.partial")
    try:
        return _run(dataset, args)
    except BaseException as exc:
        if interrupts.is_interruption(exc):
            print(f"{dataset.name}: interrupted; {args.out} is unchanged, the work so far is in {partial} "
                  "(the same command resumes it)", file=sys.stderr)
            return 130
        if not isinstance(exc, OSError):
            raise
        where = exc.filename if exc.filename is not None else args.out
        print(f"{dataset.name}: {where}: {exc.strerror or exc}; {args.out} is unchanged"
              + (f", the work so far is in {partial}" if partial.exists() else ""), file=sys.stderr)
        return 2


def _run(dataset: Dataset, args) -> int:
    options = run_options(dataset, args.seed, args.rows, args.holdout, views=args.views,
                          window_tokens=args.window_tokens, shard_size=args.shard_size)
    try:
        holdout_rows = dataset.holdout_rows(args.seed, args.rows, args.holdout)
    except ValueError as exc:
        print(f"{dataset.name}: {exc}", file=sys.stderr)
        return 2
    problems: list[str] = []
    shards = num_shards(args.rows, args.shard_size)      # the writer's too: it names the files by it
    try:
        summary = write_dataset(
            args.out, rows_for_shard=functools.partial(dataset.rows_for_shard, args.seed, args.rows, args.holdout,
                                                       shard_size=args.shard_size),
            num_rows=args.rows, shard_size=args.shard_size, merged_name=dataset.merged_file, num_proc=args.num_proc,
            per_shard=functools.partial(shard_summary, dataset, shards),
            extra_files=extra_files(dataset, options, holdout_rows, problems, args.out),
            finalize=folder_check(problems, args.num_proc), options={**options, "code": code_digest()},
            shard_files=ParquetFiles(dataset, shards, args.window_tokens) if args.views else None)
    except OutputError as exc:
        print(f"{dataset.name}: {exc}", file=sys.stderr)
        return 2
    total = orjson.loads((summary.out_dir / STATS_FILE).read_bytes())[dataset.total_key]
    print(summary.line({dataset.total_key.removeprefix("total_"): total}))
    if not summary.ok:
        for p in summary.problems[:50]:
            print(p, file=sys.stderr)
        print(f"{dataset.name}: {len(summary.problems)} problems; the folder is left at {summary.out_dir}",
              file=sys.stderr)
        return 1
    return 0
