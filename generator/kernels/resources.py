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
    python -m generator record-resources            # rewrites generator/kernels/resources.tsv
    python -m generator record-resources --check    # exit 1 when the recorded table differs from a fresh run
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

TABLE = Path(__file__).with_name("resources.tsv")
COLUMNS = ("op", "variant", "dtype", "arch", "shape", "params", "threads", "registers", "spill_stores", "smem")
COMMAND = "python -m generator record-resources"
_ENTRY = re.compile(r"'_ZN(\d)ks_(\d+)")           # namespace ks_<i>, its length first: _ZN4ks_221kernel = ks_2
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_SPILL = re.compile(r"(\d+) bytes spill stores")


@dataclass(frozen=True)
class Usage:
    """One kernel source's figures as ptxas printed them (the largest over its entry functions)."""
    threads: int
    registers: int
    spill_stores: int
    smem: int


def key(op: str, tag: str, dtype: str, arch: str, shape: dict, params: dict) -> tuple[str, ...]:
    return (op, tag, dtype, arch, ",".join(f"{k}={v}" for k, v in shape.items()),
            ",".join(f"{k}={v}" for k, v in params.items()))


def tool_version() -> str:
    """nvcc's release line, e.g. `Cuda compilation tools, release 13.0, V13.0.88`."""
    from generator.kernels.compilers import nvcc_path
    nvcc = nvcc_path()
    if nvcc is None:
        return ""
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    return next((ln.strip() for ln in out.splitlines() if "release" in ln), out.strip())


def read_table(path: Path = TABLE) -> tuple[str, dict[tuple[str, ...], Usage]]:
    """(the recorded nvcc version, key -> Usage). A malformed line is a one-line error naming file and line."""
    version, rows = "", {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("# nvcc: "):
            version = line[len("# nvcc: "):]
        if line.startswith("#") or line.startswith("op\t"):
            continue
        cells = line.split("\t")
        if len(cells) != len(COLUMNS) or not all(c.isdigit() for c in cells[6:]):
            raise ValueError(f"{path}:{n}: expected {len(COLUMNS)} tab-separated cells {COLUMNS}")
        rows[tuple(cells[:6])] = Usage(*map(int, cells[6:]))
    return version, rows


@lru_cache(maxsize=1)
def _recorded() -> dict[tuple[str, ...], Usage]:
    return read_table()[1]


def register_refusal(task, variant, params: dict, gpu) -> str | None:
    """The launch error for a register suspect, quoting ptxas's recorded figures; None when the record says it
    fits or there is no record (a `__launch_bounds__` kernel, which ptxas always fits)."""
    if task is None:
        return None
    use = _recorded().get(key(task.op, variant.tag, task.dtype, gpu.arch, dict(task.shape), params))
    if use is None or use.registers * use.threads <= gpu.regs_per_sm:
        return None
    return (f"too many resources requested for launch: {use.registers} registers x {use.threads} threads "
            f"> {gpu.regs_per_sm} per block")


def suspects():
    """Every legal CUDA (task, variant, params, source) whose register estimate exceeds the GPU's limit and whose
    source has no `__launch_bounds__`, in catalog order."""
    from generator.hardware import GPUS
    from generator.kernels import render
    from generator.tasks import all_tasks
    from generator.variants import legal_on, register_suspect, variants_for

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
    from generator.kernels.compilers import batch_unit, gencode, nvcc_path

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
    head = [f"# Registers per thread, spill stores and static shared memory from `nvcc -cubin -gencode ... -Xptxas -v`",
            f"# for the CUDA configurations whose launch could be refused for registers; regenerate: {COMMAND}",
            f"# nvcc: {tool_version()}", "\t".join(COLUMNS)]
    return "\n".join(head + sorted(rows)) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=TABLE, help=f"table to write (default {TABLE.name})")
    parser.add_argument("--check", action="store_true", help="compare a fresh recording with the table; write nothing")
    parser.add_argument("--jobs", type=int, default=2)


def run(args) -> int:
    from generator.kernels.compilers import nvcc_path
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
