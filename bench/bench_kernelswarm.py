"""kernelswarm generation bench (see dataset_bench)."""
from __future__ import annotations

from pathlib import Path

from dataset_bench import run_bench
from generator.kernelswarm import dataset as ks


def add_arguments(parser) -> None:
    g = parser.add_argument_group("kernelswarm")
    g.add_argument("--ks-gen", type=int, default=ks.KERNELSWARM.default_rows,
                   help="episodes for the in-process generation timing (default: the full default scale)")
    g.add_argument("--ks-small", type=int, default=200, help="episodes of the small CLI run")
    g.add_argument("--ks-full", type=int, default=ks.KERNELSWARM.default_rows, help="episodes of the full CLI run (0 skips)")
    g.add_argument("--ks-profile", action="store_true", help="print the top functions of the generation profile")


def run(args, workdir: Path) -> None:
    run_bench(ks.KERNELSWARM, workdir, gen=args.ks_gen, small=args.ks_small, full=args.ks_full, profile=args.ks_profile)
