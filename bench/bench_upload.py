"""upload --dry-run (offline) against a plain copy of the same folder, in the same run.

Why: a dry run is what a user runs before every push, and it used to cost 7.8x a copy of the folder, 7 s of it
retries of huggingface_hub's OfflineModeIsEnabled. The reference is `shutil.copytree` of the folder (staging is a
copy at heart); the dry run is `python -m generator upload DIR --repo-id org/name --dry-run` with HF_HUB_OFFLINE=1
in a fresh process (its wall time from inside, imports excluded), and its parts are timed in this process:
validation, staging, hashing, the (offline) look at the remote. `--upload-dir DIR` measures an existing folder;
otherwise a kernelinfer folder of `--upload-rows` sessions (default: the dataset's default scale) is generated.
"""
from __future__ import annotations

import os
import resource
import shutil
import time
from pathlib import Path

from common import row, run_cli
from generator.hub import client as hub, network, publish
from generator.check.validate import validate_paths
from generator.registry import DATASETS

REPEATS = 2   # best of: the first pass also warms the page cache
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def add_arguments(parser) -> None:
    g = parser.add_argument_group("upload")
    g.add_argument("--upload-dir", type=Path, help="a generated folder to dry-run (default: generate kernelinfer)")
    g.add_argument("--upload-rows", type=int, help="sessions of the generated folder (default: the default scale)")


def best(fn, clock: str = "wall") -> float:
    """Best of REPEATS runs of fn, in wall or CPU seconds (CPU: this process, user + system)."""
    times = []
    for _ in range(REPEATS):
        t = CLOCKS[clock]()
        fn()
        times.append(CLOCKS[clock]() - t)
    return min(times)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def dry_run(folder: Path) -> tuple[float, float, float]:
    """The CLI's dry run in a fresh process: (wall s from inside, CPU s of the whole child, peak RSS MB)."""
    cpu = children_cpu()
    done = run_cli("upload", str(folder), "--repo-id", "org/name", "--dry-run")
    return done.wall_s, children_cpu() - cpu, done.peak_rss_mb


def copy(folder: Path, workdir: Path) -> None:
    target = workdir / "copy"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(folder, target)


def parts(folder: Path, workdir: Path) -> dict[str, float]:
    """The dry run's steps, timed one by one in this process: `validate` of the folder, `stage` (links, card, the
    staged folder's validation, hashing every staged file and checking the merged file: what the dry run does
    before its look at the remote), `hash` alone (part of `stage`), the look at the remote."""
    dataset = publish.dataset_of(folder)
    stage = workdir / "stage" / dataset.name
    times = {"validate": best(lambda: validate_paths([str(folder)], progress=False))}

    def stage_once() -> None:
        shutil.rmtree(stage, ignore_errors=True)
        publish.stage(folder, dataset, stage, repo_id="org/name")

    times["stage"] = best(stage_once)
    times["hash"] = best(lambda: hub.local_files(stage))
    network.install(network.Settings(**network.DEFAULTS))
    from huggingface_hub import HfApi

    def look() -> None:
        try:
            hub.remote_files(HfApi(), "org/name", None, retry=network.Retry().once())
        except hub.HubError:
            pass

    times["remote look (offline)"] = best(look)
    return times


def run(args, workdir: Path) -> None:
    folder = args.upload_dir
    if folder is None:
        folder = workdir / "kernelinfer"
        rows = args.upload_rows or DATASETS["kernelinfer"].default_rows
        run_cli("kernelinfer", "--out", str(folder), "--sessions", str(rows), "--holdout", "10")
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    print(f"  folder {folder}: {size / 1e6:,.1f} MB")
    before = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"   # the child (and this process's huggingface_hub, imported below) is offline
    try:
        from huggingface_hub import constants
        constants.HF_HUB_OFFLINE = True
        copy_wall = best(lambda: copy(folder, workdir))
        copy_cpu = best(lambda: copy(folder, workdir), "cpu")
        runs = [dry_run(folder) for _ in range(REPEATS)]
        steps = parts(folder, workdir)
    finally:
        if before is None:
            del os.environ["HF_HUB_OFFLINE"]
        else:
            os.environ["HF_HUB_OFFLINE"] = before
    wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
    print(row("copy (shutil.copytree), wall", copy_wall, "s"))
    print(row("copy, CPU", copy_cpu, "s"))
    print(row("upload --dry-run offline, wall (no imports)", wall, "s"))
    print(row("upload --dry-run offline, CPU (whole process)", cpu, "s"))
    print(row("  ratio to the copy, wall", wall / copy_wall, "x", "(issue #18: 7.8x before; little more than 1x)"))
    print(row("  ratio to the copy, CPU", cpu / copy_cpu, "x"))
    for name, seconds in steps.items():
        print(row(f"  part: {name}, wall", seconds, "s"))
    print(row("peak RSS of the dry run", max(r[2] for r in runs), "MB"))
