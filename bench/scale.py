"""`python bench/scale.py [--tenx]`: the distributed path's throughput and the cost of a 10x run.

Shard throughput: `python -m generator scale kernelinfer --no-finish` makes SHARDS fresh shards on the local
engine with 1 and with 2 worker processes (each in a fresh child process, so startup and spawning are counted
as a real run pays them). With --tenx it then runs the whole 10x kernelinfer run (18,990 sessions, 190 shards,
then merge, stats, card and folder validation) and reports its wall time, peak RSS (main process and the largest
worker) and the folder's size on disk. Not part of `make bench`: the 10x run takes many CPU-minutes and ~25 GB.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from common import row, run_cli  # noqa: E402

SHARDS = 4
TENX = 18_990


def shards_per_second(workdir: Path, workers: int) -> float:
    out = workdir / f"w{workers}"
    run = run_cli("scale", "kernelinfer", "--out", str(out), "--rows", str(SHARDS * 100), "--holdout", "10",
                  "--workers", str(workers), "--no-finish")
    shutil.rmtree(out)
    return SHARDS / run.wall_s


def tenx(workdir: Path, workers: int) -> None:
    out = workdir / "tenx"
    run = run_cli("scale", "kernelinfer", "--out", str(out), "--rows", str(TENX), "--workers", str(workers))
    disk = int(subprocess.run(["du", "-sb", str(out)], capture_output=True, text=True, check=True).stdout.split()[0])
    print(row(f"10x run ({TENX:,} sessions, {workers} workers) wall", run.wall_s, "s"))
    print(row("10x run peak RSS (largest process)", run.peak_rss_mb, "MB"))
    print(row("10x run folder on disk", disk / 1e9, "GB"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenx", action="store_true", help="also run the 10x end-to-end measurement")
    parser.add_argument("--workdir", type=Path, help="where the runs write (default: a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        one, two = (shards_per_second(Path(tmp), w) for w in (1, 2))
        print(row("shards/s, local engine, 1 worker", one, "1/s"))
        print(row("shards/s, local engine, 2 workers", two, "1/s", f"(x{two / one:.2f})"))
        if args.tenx:
            tenx(Path(tmp), 2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
