"""`python bench/scale.py [--tenx] [--linearity K]`: the distributed path's throughput, and its cost per row.

Shard throughput: `python -m generator scale kernelinfer --no-finish` makes SHARDS fresh shards on the local
engine with 1 and with 2 worker processes (each in a fresh child process, so startup and spawning are counted
as a real run pays them). An end-to-end run is `python -m generator scale kernelinfer` at N sessions with its
training views (shards, views, merge, stats, card and folder validation), run as its two steps (`--no-finish`, then
`--finish-only`, as a cluster runs them) so that each step's peak RSS is told apart: the shards' (main process and
the largest generation worker) and the final step's (main process and the largest validation worker). Wall time
and CPU time of the whole process tree (user + sys: on a machine shared with other jobs, the figure that
contention does not stretch) are the two steps' sums, both also per 1,000 sessions; and the folder's size on disk.
--linearity K runs it at the default scale (1,899 sessions) and at K times it and prints the ratio of the
per-session figures (#20's acceptance: within 15 %); --tenx runs it at 10x (18,990 sessions, ~25 GB). Neither is
part of `make bench`: they take many CPU-minutes.
"""
from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from common import row, run_cli  # noqa: E402
from generator.kernelinfer.dataset import KERNELINFER  # noqa: E402

SHARDS = 4
DEFAULT = KERNELINFER.default_rows
TENX = 10 * DEFAULT


def shards_per_second(workdir: Path, workers: int) -> float:
    out = workdir / f"w{workers}"
    run = run_cli("scale", "kernelinfer", "--out", str(out), "--rows", str(SHARDS * 100), "--holdout", "10",
                  "--workers", str(workers), "--no-finish")
    shutil.rmtree(out)
    return SHARDS / run.wall_s


def _tree_cpu_s() -> float:
    """User + sys seconds of every finished child process (and theirs) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def end_to_end(workdir: Path, sessions: int, workers: int) -> dict:
    """One whole run at `sessions`, printed and returned (per-1,000-session figures included); its folder is
    removed afterwards."""
    out = workdir / f"e2e{sessions}"
    command = ("scale", "kernelinfer", "--out", str(out), "--rows", str(sessions), "--workers", str(workers))
    cpu = _tree_cpu_s()
    steps = {"shards": run_cli(*command, "--no-finish"), "final step": run_cli(*command, "--finish-only")}
    cpu = _tree_cpu_s() - cpu
    wall = sum(run.wall_s for run in steps.values())
    disk = int(subprocess.run(["du", "-sb", str(out)], capture_output=True, text=True, check=True).stdout.split()[0])
    shutil.rmtree(out)
    label = f"{sessions:,} sessions, {workers} workers"
    print(row(f"{label}: wall", wall, "s", f"({1000 * wall / sessions:.1f} s per 1,000)"))
    print(row(f"{label}: CPU, process tree", cpu, "s", f"({1000 * cpu / sessions:.1f} s per 1,000)"))
    for step, run in steps.items():
        print(row(f"{label}: peak RSS, {step}", run.peak_rss_mb, "MB",
                  f"(main {run.rss_mb:,.0f}, largest child {run.children_rss_mb:,.0f}; {run.wall_s:,.0f} s)"))
    print(row(f"{label}: folder on disk", disk / 1e9, "GB"))
    return {"wall": wall / sessions, "cpu": cpu / sessions, "rss": max(run.peak_rss_mb for run in steps.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenx", action="store_true", help="also run the 10x end-to-end measurement")
    parser.add_argument("--linearity", type=int, metavar="K", help="end-to-end at 1x and Kx the default scale")
    parser.add_argument("--skip-throughput", action="store_true", help="leave out the 1- and 2-worker shards/s")
    parser.add_argument("--workdir", type=Path, help="where the runs write (default: a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        if not args.skip_throughput:
            one, two = (shards_per_second(Path(tmp), w) for w in (1, 2))
            print(row("shards/s, local engine, 1 worker", one, "1/s"))
            print(row("shards/s, local engine, 2 workers", two, "1/s", f"(x{two / one:.2f})"))
        if args.linearity:
            base = end_to_end(Path(tmp), DEFAULT, 2)
            big = end_to_end(Path(tmp), DEFAULT * args.linearity, 2)
            for key, what in (("cpu", "CPU"), ("wall", "wall"), ("rss", "peak RSS")):
                print(row(f"{args.linearity}x / 1x, {what} per session" if key != "rss" else
                          f"{args.linearity}x / 1x, {what}", big[key] / base[key], "ratio", "(target: within 1.15)"))
        if args.tenx:
            end_to_end(Path(tmp), TENX, 2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
