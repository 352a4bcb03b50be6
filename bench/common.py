"""Shared bench helpers: run a command in a child process and report its wall time and peak RSS.

Why a child process: peak RSS only ever grows, so each measurement needs a fresh process. The child reads its
own peak from /proc/self/status (VmHWM): ru_maxrss would not do, since Linux carries the forking process's peak
across exec into it (the bench process, grown by the in-process timing, would be measured instead). The
--num-proc workers' peak comes from RUSAGE_CHILDREN, an upper bound for the same reason (it may include the
CLI process's size when it spawned them).
"""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from generator.__main__ import main
t = time.perf_counter()
rc = main(sys.argv[2:])
wall = time.perf_counter() - t
me = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("BENCH " + json.dumps({"rc": rc, "wall_s": wall, "rss_mb": me / 1024, "children_rss_mb": kids / 1024}))
"""


@dataclass(frozen=True)
class Run:
    rc: int
    wall_s: float
    rss_mb: float            # the main process's peak
    children_rss_mb: float   # the largest worker's peak (0 without workers)

    @property
    def peak_rss_mb(self) -> float:
        return max(self.rss_mb, self.children_rss_mb)


def run_cli(*argv: str) -> Run:
    """`python -m generator ARGV...` in a fresh process; its stdout summary line is echoed."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), *argv], capture_output=True, text=True,
                          cwd=ROOT)
    report = None
    for line in proc.stdout.splitlines():
        if line.startswith("BENCH "):
            report = json.loads(line[6:])
        else:
            print(f"    {line}")
    if report is None or report["rc"] != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"bench: `python -m generator {' '.join(argv)}` failed")
    return Run(**report)


def row(label: str, value: float, unit: str, target: str = "") -> str:
    """One result line: label, value, unit and, when there is one, the target it is judged against."""
    return f"  {label:<46} {value:>10.2f} {unit:<6} {target}"
