"""Registers, spills and shared memory as ptxas reports them, for the CUDA kernels whose launch can be refused.

The per-variant register figures in `variants.py` are estimates for the performance model; a launch failure
quoted to the model must be one the real toolchain produces. So the simulator claims "too many resources
requested for launch" only for a configuration recorded in `resources.tsv` whose ptxas register count times
its threads per block exceeds the GPU's registers per block, and quotes the recorded figures.

Which configurations are recorded: every legal CUDA (task, variant, params) whose estimate exceeds the limit
(a "suspect") and whose source has no `__launch_bounds__`. A kernel declared `__launch_bounds__(T)` can always
launch with T threads: ptxas caps its registers to fit (spilling instead), as the CUDA C++ Programming Guide
says (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#launch-bounds), so it is never refused for
registers and needs no record.

Regenerate (nvcc on PATH; a few minutes on 2 cores):
    python -m generator record-resources            # rewrites generator/catalog/resources.tsv
    python -m generator record-resources --check    # exit 1 when the recorded table differs from a fresh run
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.catalog.resources import COLUMNS, TABLE, Usage, key
from generator.catalog.hardware import GPUS
from generator.catalog.tasks import all_tasks
from generator.kernels.compilers import batch_unit, gencode, nvcc_path
from generator.catalog.variants import legal_on, register_suspect, variants_for
from generator.kernels import render

COMMAND = "python -m generator record-resources"
_ENTRY = re.compile(r"'_ZN(\d)ks_(\d+)")           # namespace ks_<i>, its length first: _ZN4ks_221kernel = ks_2
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_SPILL = re.compile(r"(\d+) bytes spill stores")


def tool_version() -> str:
    """nvcc's release line, e.g. `Cuda compilation tools, release 13.0, V13.0.88`."""
    nvcc = nvcc_path()
    if nvcc is None:
        return ""
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    return next((ln.strip() for ln in out.splitlines() if "release" in ln), out.strip())


def suspects():
    """Every legal CUDA (task, variant, params, source) whose register estimate exceeds the GPU's limit and whose
    source has no `__launch_bounds__`, in catalog order."""

    for task in all_tasks():
        if task.impl != "cuda":
            continue
        gpu = GPUS[task.gpu]
        for v in variants_for(task.op, "cuda"):
            if not legal_on(v, gpu, task.dtype):
                continue
            for params in v.all_params():
                if register_suspect(v, params, gpu, task.dtype, task):
                    src = render(task, v, params)
                    if "__launch_bounds__" not in src.text:
                        yield task, v, params, src


def parse_ptxas(output: str, n: int) -> list[tuple[int, int, int]]:
    """Per batch member (its namespace ks_i): (max registers, summed spill stores, max static smem) over the
    entry functions ptxas -v reports for it."""
    found = [(0, 0, 0)] * n
    for block in output.split("Compiling entry function")[1:]:
        m, used, smem = _ENTRY.search(block), _USED.search(block), _SMEM.search(block)
        if not m or not used:
            continue
        i = int(m.group(2)[:int(m.group(1)) - 3])
        spill = sum(int(s) for s in _SPILL.findall(block))
        regs, smem = int(used.group(1)), int(smem.group(1)) if smem else 0
        r, s, sm = found[i]
        found[i] = (max(r, regs), s + spill, max(sm, smem))
    return found


def ptxas_usage(sources: list, workdir: Path) -> list[tuple[int, int, int]]:
    """(registers, spill stores, static smem) per source, from one `nvcc -Xptxas -v` run over one TU holding
    them all (sources of one compile arch)."""

    text, _ = batch_unit(sources)
    path = workdir / "batch.cu"
    path.write_text(text, encoding="utf-8")
    arch = sources[0].compile_arch
    proc = subprocess.run([nvcc_path(), "-cubin", *gencode(arch), "-Xptxas", "-v", path.name, "-o", "batch.cubin"],
                          cwd=workdir, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"nvcc failed on a batch ({arch}): {proc.stderr.strip().splitlines()[:3]}")
    return parse_ptxas(proc.stdout + proc.stderr, len(sources))


def _measure(batch: list, workdir: Path) -> list[Usage]:
    figures = ptxas_usage([src for *_, src in batch], workdir)
    return [Usage(v.threads(p), *f) for (_t, v, p, _s), f in zip(batch, figures)]


def record(jobs: int = 2, batch_size: int = 16) -> str:
    """The table's full text, compiled afresh."""
    unique = {}   # GPUs of one arch (h100/h200, a10/rtx_a6000) share sources: compile each key once
    for task, v, params, src in suspects():
        unique.setdefault(key(task.op, v.tag, task.dtype, src.compile_arch, dict(task.shape), params),
                          (task, v, params, src))
    by_arch: dict[str, list] = {}
    for item in unique.values():
        by_arch.setdefault(item[3].compile_arch, []).append(item)
    batches = [b[k:k + batch_size] for b in by_arch.values() for k in range(0, len(b), batch_size)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="ks_resources_") as tmp, cf.ThreadPoolExecutor(jobs) as pool:
        dirs = [Path(tmp) / str(i) for i in range(len(batches))]
        for d in dirs:
            d.mkdir()
        for batch, usages in zip(batches, pool.map(_measure, batches, dirs)):
            for (task, v, params, src), use in zip(batch, usages):
                k = key(task.op, v.tag, task.dtype, src.compile_arch, dict(task.shape), params)
                rows.append("\t".join(k + tuple(str(x) for x in (use.threads, use.registers, use.spill_stores,
                                                                   use.smem))))
    head = ["# Registers per thread, spill stores and static shared memory from `nvcc -cubin -gencode ... -Xptxas -v`",
            f"# for the CUDA configurations whose launch could be refused for registers; regenerate: {COMMAND}",
            f"# nvcc: {tool_version()}", "\t".join(COLUMNS)]
    return "\n".join(head + sorted(rows)) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=TABLE, help=f"table to write (default {TABLE.name})")
    parser.add_argument("--check", action="store_true", help="compare a fresh recording with the table; write nothing")
    parser.add_argument("--jobs", type=int, default=2)


def run(args) -> int:
    if nvcc_path() is None:
        print("record-resources: nvcc not found (looked on PATH, /usr/local/cuda/bin, /usr/local/bin)", file=sys.stderr)
        return 2
    text = record(args.jobs)
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print(f"record-resources: {args.out} {'matches' if same else 'DIFFERS from'} a fresh recording")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"record-resources: wrote {args.out} ({text.count(chr(10)) - 4} configurations)")
    return 0
