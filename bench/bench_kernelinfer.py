"""kernelinfer: generation MB/s per process, its ratio to re-serializing the same rows, --num-proc 2 speed-up,
and peak RSS at a small and at the full default scale (flat memory means the two stay within 1.5x)."""
from __future__ import annotations

import cProfile
import functools
import pstats
import time
from pathlib import Path

import orjson

from common import row, run_cli
from generator import cli_kernelinfer as ki
from generator.dataset_cli import SHARD_SIZE
from generator.io import shard_name, write_shard


def add_arguments(parser) -> None:
    g = parser.add_argument_group("kernelinfer")
    g.add_argument("--ki-gen", type=int, default=200, help="sessions for the in-process generation timing")
    g.add_argument("--ki-small", type=int, default=200, help="sessions of the small CLI run")
    g.add_argument("--ki-full", type=int, default=ki.DEFAULT_SESSIONS, help="sessions of the full CLI run (0 skips)")
    g.add_argument("--ki-profile", action="store_true", help="print the top functions of the generation profile")


def _generation(n: int, workdir: Path, profile: bool) -> tuple[float, float, int]:
    """Seconds to simulate+serialize+write n sessions, seconds to re-serialize+write the same rows, bytes."""
    rows_fn = functools.partial(ki.rows_for_shard, 0, n, ki.DEFAULT_HOLDOUT)
    shards = range(-(-n // SHARD_SIZE))
    ki.split(0, n, ki.DEFAULT_HOLDOUT)           # the task split is setup, not generation
    prof = cProfile.Profile() if profile else None
    t = time.perf_counter()
    if prof:
        prof.enable()
    size = sum(write_shard(workdir / "gen", i, rows_fn, None)[0] for i in shards)
    if prof:
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    gen_s = time.perf_counter() - t
    rows = {i: [orjson.loads(line) for line in (workdir / "gen" / shard_name(i)).read_bytes().splitlines()]
            for i in shards}
    t = time.perf_counter()
    for i in shards:
        write_shard(workdir / "again", i, rows.__getitem__, None)
    return gen_s, time.perf_counter() - t, size


def run(args, workdir: Path) -> None:
    gen_s, ser_s, size = _generation(args.ki_gen, workdir, args.ki_profile)
    mb = size / 1e6
    print(row(f"generation, 1 process ({args.ki_gen} sessions, {mb:.0f} MB)", mb / gen_s, "MB/s", "target >= 50"))
    print(row("orjson re-serialize + write of the same rows", mb / ser_s, "MB/s"))
    print(row("generation time / re-serialize time", gen_s / ser_s, "x", "target <= 3"))
    small = [run_cli("kernelinfer", "--out", str(workdir / f"p{p}"), "--sessions", str(args.ki_small),
                     "--num-proc", str(p)) for p in (1, 2)]
    same = all((workdir / "p1" / f).read_bytes() == (workdir / "p2" / f).read_bytes()
               for f in ("sessions.jsonl", "stats.json", "README.md", "tasks_holdout.jsonl"))
    print(row(f"CLI end to end, {args.ki_small} sessions, --num-proc 1", small[0].wall_s, "s"))
    print(row(f"CLI end to end, {args.ki_small} sessions, --num-proc 2", small[1].wall_s, "s"))
    print(row("speed-up from --num-proc 2", small[0].wall_s / small[1].wall_s, "x",
              f"(bytes identical: {same})"))
    print(row(f"peak RSS, {args.ki_small} sessions", small[0].peak_rss_mb, "MB"))
    if args.ki_full:
        full = run_cli("kernelinfer", "--out", str(workdir / "full"), "--sessions", str(args.ki_full))
        full_mb = (workdir / "full" / "sessions.jsonl").stat().st_size / 1e6
        print(row(f"CLI end to end, {args.ki_full} sessions ({full_mb:.0f} MB)", full.wall_s, "s"))
        print(row("CLI end to end throughput", full_mb / full.wall_s, "MB/s"))
        print(row(f"peak RSS, {args.ki_full} sessions", full.peak_rss_mb, "MB"))
        print(row("peak RSS ratio full / small", full.peak_rss_mb / small[0].peak_rss_mb, "x", "target <= 1.5"))
        stats = orjson.loads((workdir / "full" / "stats.json").read_bytes())
        fractions = stats["step_status_fractions"]
        print(f"  calibration: {stats['total_steps']:,} steps, {stats['steps_per_session']['mean']} steps/session "
              f"(94.6), {stats['hours_per_session']['mean']} h (2.18), speedup {stats['best_speedup']['mean']}x "
              f"(13.4), ok/compile/wrong {fractions['ok']:.3f}/{fractions['compile_error']:.3f}/"
              f"{fractions['wrong_result']:.3f} (0.845/0.125/0.029)")
