"""`python -m generator scale DATASET --out URL --engine local|ray|slurm ...`: a dataset generated as independent
shard tasks on an engine, into any fsspec URL, resumed from completion markers, then assembled and validated.

Exit codes as the generation commands: 0 done, 1 validation or QA problems, 2 bad arguments or an unusable
output or engine.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from generator import registry
from generator.scale import engines
from generator.scale.finish import finish
from generator.scale.shards import RunMismatch, RunSpec, claim, missing
from generator.write.generate import add_window_tokens, int_at_least
from generator.write.writer import default_workers


def shard_range(text: str) -> tuple[int, int]:
    try:
        start, stop = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected START:STOP, got {text!r}") from None
    if not 0 <= start < stop:
        raise argparse.ArgumentTypeError(f"expected 0 <= START < STOP, got {text!r}")
    return start, stop


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", choices=sorted(registry.DATASETS))
    parser.add_argument("--out", required=True, help="output folder: a path or an fsspec URL (s3://..., hf://...)")
    parser.add_argument("--seed", type=int_at_least(0), default=0)
    parser.add_argument("--rows", "--sessions", "--episodes", dest="rows", type=int_at_least(1),
                        help="training rows (default: the dataset's default scale)")
    parser.add_argument("--holdout", type=int_at_least(1), help="held-out tasks (default: the whole benchmark)")
    parser.add_argument("--no-views", dest="views", action="store_false",
                        help="the JSONL-only layout, no views or Parquet (as the generation commands' --no-views)")
    add_window_tokens(parser)
    parser.add_argument("--engine", choices=("local", "ray", "slurm"), default="local")
    parser.add_argument("--workers", type=int_at_least(1), default=default_workers(),
                        help="local processes, or the CPUs of a local Ray instance")
    parser.add_argument("--ray-address", help="an existing Ray cluster (default: start a local instance)")
    parser.add_argument("--shards", type=shard_range, help="only shards START:STOP (a Slurm array task's part)")
    step = parser.add_mutually_exclusive_group()
    step.add_argument("--no-finish", action="store_true", help="make shards only; skip the final step")
    step.add_argument("--finish-only", action="store_true", help="only the final step (every shard must be done)")
    slurm = parser.add_argument_group("slurm")
    slurm.add_argument("--slurm-dir", type=Path, default=Path("slurm"), help="where the sbatch scripts go")
    slurm.add_argument("--shards-per-task", type=int_at_least(1), default=engines.SHARDS_PER_WORKER)
    slurm.add_argument("--max-parallel", type=int_at_least(1), default=200, help="array tasks running at once")
    slurm.add_argument("--partition")
    slurm.add_argument("--time", default="01:00:00", help="per-job time limit")
    slurm.add_argument("--submit", action="store_true", help="submit with sbatch (default: write scripts only)")


def run(args: argparse.Namespace) -> int:
    ds = registry.get(args.dataset)
    url = args.out if "://" in args.out else str(Path(args.out).resolve())   # workers may run elsewhere
    spec = RunSpec(ds.name, url, args.seed, args.rows or ds.default_rows,
                   ds.default_holdout if args.holdout is None else args.holdout, args.views, args.window_tokens,
                   args.shard_size)
    try:
        ds.holdout_rows(spec.seed, spec.rows, spec.holdout)        # the split exists for these counts
        claim(spec)
    except (ValueError, RunMismatch) as exc:
        print(f"scale: {exc}", file=sys.stderr)
        return 2
    if args.engine == "slurm":
        return _slurm(spec, args)
    if not args.finish_only:
        todo = missing(spec, range(args.shards[0], min(args.shards[1], spec.shards)) if args.shards else None)
        print(f"{spec.url}: {len(todo)} of {spec.shards} shards to make on {args.engine}", file=sys.stderr)
        try:
            if args.engine == "ray":
                engines.run_ray(spec, todo, args.workers, args.ray_address)
            else:
                engines.run_local(spec, todo, args.workers)
        except engines.EngineMissing as exc:
            print(f"scale: {exc}", file=sys.stderr)
            return 2
    if args.no_finish:
        return 0
    left = missing(spec)
    if left:
        print(f"scale: {len(left)} of {spec.shards} shards are not done (first: {left[0]}); run the shard tasks first",
              file=sys.stderr)
        return 2
    problems = finish(spec, args.workers)
    for p in problems[:50]:
        print(p, file=sys.stderr)
    print(f"{spec.url}: {spec.rows:,} rows in {spec.shards} shards, {len(problems)} problems")
    return 1 if problems else 0


def _slurm(spec: RunSpec, args: argparse.Namespace) -> int:
    """Write the two sbatch scripts; with --submit, submit the array and the final job after it."""
    array, final = engines.slurm_script(spec, shards_per_task=args.shards_per_task, max_parallel=args.max_parallel,
                                        partition=args.partition, time_limit=args.time, python=sys.executable)
    args.slurm_dir.mkdir(parents=True, exist_ok=True)
    (args.slurm_dir / "shards.sbatch").write_text(array)
    (args.slurm_dir / "final.sbatch").write_text(final)
    if not args.submit:
        print(f"wrote {args.slurm_dir}/shards.sbatch and final.sbatch; submit with: "
              f"J=$(sbatch --parsable {args.slurm_dir}/shards.sbatch) && "
              f"sbatch --dependency=afterok:$J {args.slurm_dir}/final.sbatch")
        return 0
    try:
        job = subprocess.run(["sbatch", "--parsable", str(args.slurm_dir / "shards.sbatch")], check=True,
                             capture_output=True, text=True).stdout.strip().split(";")[0]
        subprocess.run(["sbatch", f"--dependency=afterok:{job}", str(args.slurm_dir / "final.sbatch")], check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"scale: sbatch failed: {exc}", file=sys.stderr)
        return 2
    return 0
