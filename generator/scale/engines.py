"""Where the shard tasks run: this machine's processes, a Ray cluster, or a Slurm job array.

Ray is used directly (not through datatrove): the work is one pure function per shard with no pipeline of
readers and filters around it, so a Ray task per shard (`ray.remote(make_shard)`, retried by Ray when a worker
dies) is the whole integration, and a Ray cluster is what most GPU-lab clusters already run (KubeRay, `ray up`
on EC2/GCP, or `ray start` inside a Slurm allocation). Slurm without Ray gets a plain job array of the same CLI.
Every engine runs only the shards without a completion marker, so a restart after a failure resumes.
"""
from __future__ import annotations

import shlex
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from generator.scale.shards import RunSpec, make_shard

RAY_HINT = "ray is not installed: pip install -e '.[ray]' (or pip install 'ray>=2.9')"
# A worker process makes at most about this many shards, so a run of any size has the memory of the default one
# (whose 2 workers make ~10 shards each): a worker's size creeps from shard to shard (the simulators' caches
# fill, the allocators keep freed memory), and a new process costs ~1.9 CPU-s of imports against ~50 of ten
# shards. Local: a fresh pool per `workers` x this many shards (ProcessPoolExecutor's max_tasks_per_child can
# deadlock on Python 3.11-3.13, cpython#115634); Ray: `max_calls`; Slurm: --shards-per-task per process.
SHARDS_PER_WORKER = 10


class EngineMissing(Exception):
    """The engine's package is not installed."""


def run_local(spec: RunSpec, shards: list[int], workers: int) -> None:
    """The shards over `workers` processes of this machine (spawned, as the local CLI's; fresh ones every
    SHARDS_PER_WORKER shards each)."""
    if workers <= 1 or len(shards) <= 1:
        for i in shards:
            make_shard(spec, i)
        return
    step = workers * SHARDS_PER_WORKER
    for start in range(0, len(shards), step):
        part = shards[start:start + step]
        with ProcessPoolExecutor(max_workers=min(workers, len(part)), mp_context=get_context("spawn")) as pool:
            for fut in [pool.submit(make_shard, spec, i) for i in part]:
                fut.result()


def run_ray(spec: RunSpec, shards: list[int], workers: int, address: str | None) -> None:
    """One Ray task per shard on the cluster at `address` (None: a local instance of `workers` CPUs)."""
    try:
        import ray
    except ImportError:
        raise EngineMissing(RAY_HINT) from None
    started = not ray.is_initialized()
    if started:
        # Workers import `generator` as the driver does: the driver's sys.path travels as PYTHONPATH.
        env = {"env_vars": {"PYTHONPATH": ":".join(p for p in sys.path if p)}}
        if address:
            ray.init(address=address, runtime_env=env, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, runtime_env=env, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1, max_retries=3, max_calls=SHARDS_PER_WORKER)(make_shard)
        ray.get([task.remote(spec, i) for i in shards])
    finally:
        if started:
            ray.shutdown()


FINAL_CPUS = 16   # the final step validates the whole folder over this many processes


def slurm_script(spec: RunSpec, *, shards_per_task: int, max_parallel: int, partition: str | None,
                 time_limit: str, python: str = "python") -> tuple[str, str]:
    """(array job, final job) sbatch scripts: array task t makes shards [t*K, (t+1)*K) that are not done; the
    final job (submitted with --dependency=afterok on the array) assembles and validates the folder."""
    tasks = -(-spec.shards // shards_per_task)
    common = (f"{python} -m generator scale {spec.dataset} --out {shlex.quote(spec.url)} --seed {spec.seed} "
              f"--rows {spec.rows} --holdout {spec.holdout} --window-tokens {spec.window_tokens} "
              f"--shard-size {spec.shard_size}"
              + ("" if spec.views else " --no-views"))
    def head(cpus: int) -> list[str]:
        return ["#!/bin/bash", f"#SBATCH --job-name=kernelstrain-{spec.dataset}", f"#SBATCH --cpus-per-task={cpus}",
                f"#SBATCH --mem={4 * cpus}G", f"#SBATCH --time={time_limit}"] + (
                    [f"#SBATCH --partition={partition}"] if partition else [])
    array = "\n".join(head(1) + [
        f"#SBATCH --array=0-{tasks - 1}%{max_parallel}",
        "#SBATCH --output=kernelstrain-%A_%a.log",
        f"START=$((SLURM_ARRAY_TASK_ID * {shards_per_task}))",
        f"exec {common} --engine local --workers 1 --shards $START:$((START + {shards_per_task})) --no-finish",
        ""])
    final = "\n".join(head(FINAL_CPUS) + ["#SBATCH --output=kernelstrain-final-%j.log",
                                          f"exec {common} --engine local --workers {FINAL_CPUS} --finish-only", ""])
    return array, final
