"""kernelinfer generation bench (see dataset_bench)."""
from __future__ import annotations

from pathlib import Path

from dataset_bench import run_bench
from generator.kernelinfer import dataset as ki


def add_arguments(parser) -> None:
    g = parser.add_argument_group("kernelinfer")
    g.add_argument("--ki-gen", type=int, default=ki.KERNELINFER.default_rows,
                   help="sessions for the in-process generation timing (default: the full default scale, so the "
                   "one-time scans of each template family are amortized as in a real run)")
    g.add_argument("--ki-small", type=int, default=200, help="sessions of the small CLI run")
    g.add_argument("--ki-full", type=int, default=ki.KERNELINFER.default_rows, help="sessions of the full CLI run (0 skips)")
    g.add_argument("--ki-profile", action="store_true", help="print the top functions of the generation profile")


def run(args, workdir: Path) -> None:
    run_bench(ki.KERNELINFER, workdir, gen=args.ki_gen, small=args.ki_small, full=args.ki_full, profile=args.ki_profile)
