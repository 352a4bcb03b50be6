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

Triton's shared memory (`--triton`, `triton_smem.tsv`): Triton only finds out at launch that its pipeline
stages do not fit (`OutOfResources`), so the simulator claims it only from Triton's own allocation, recorded for
every legal Triton (task, variant, tile parameters) whose estimate reaches half the GPU's limit (below that
every recorded figure fits with room to spare), compiled once per distinct kernel (ops sharing a snippet,
GPUs sharing a cc, fp16/bf16 and the grid-placement constants share a figure: catalog/resources.py says why).

Static shared memory (`--static-smem`, `static_smem.tsv`): dynamic shared memory plus the kernel's static
`__shared__` arrays must fit the opt-in cap, so for every legal CUDA configuration whose dynamic figure is within
48 KB of the cap the simulator adds ptxas's static figure, recorded once per (task, the tunables the arrays are
sized by: resources.STATIC_PARAMS).

Regenerate (nvcc on PATH; a few minutes on 2 cores; Triton: about an hour on 2 cores):
    python -m generator record-resources            # rewrites generator/catalog/resources.tsv
    python -m generator record-resources --check    # exit 1 when the recorded table differs from a fresh run
    python -m generator record-resources --static-smem [--check]   # generator/catalog/static_smem.tsv (~10 min)
    python -m generator record-resources --triton [--check]   # the same for generator/catalog/triton_smem.tsv
    python -m generator record-resources --triton --classes attn_prefill,attn_decode,conv   # some kernel classes
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.catalog.resources import (COLUMNS, PLACEMENT, RECORD_FROM, STATIC_COLUMNS, STATIC_TABLE, TABLE,
                                         TRITON_COLUMNS, TRITON_LIMIT, TRITON_TABLE, Usage, key, read_triton_table,
                                         static_key, static_suspect, triton_key)
from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.catalog.tasks import all_tasks
from generator.kernels import templating
from generator.kernels.compilers import batch_unit, gencode, nvcc_path, triton_shared, triton_unavailable
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


def _compile_unique(unique: dict, jobs: int, batch_size: int):
    """(key, Usage) for each key -> (task, variant, params, source) of `unique`, batched per compile arch and
    template: ptxas pads a kernel's static figure to the strictest `extern __shared__` alignment of the whole
    TU (a batch mixing templates printed 128 bytes for a gemm wgmma_tma that alone has 64)."""
    by_arch: dict[tuple, list] = {}
    for k, item in unique.items():
        by_arch.setdefault((item[3].compile_arch, item[1].kernel_class, item[1].tag), []).append((k, item))
    batches = [b[i:i + batch_size] for b in by_arch.values() for i in range(0, len(b), batch_size)]
    with tempfile.TemporaryDirectory(prefix="ks_resources_") as tmp, cf.ThreadPoolExecutor(jobs) as pool:
        dirs = [Path(tmp) / str(i) for i in range(len(batches))]
        for d in dirs:
            d.mkdir()
        for batch, usages in zip(batches, pool.map(_measure, [[item for _k, item in b] for b in batches], dirs)):
            yield from ((k, use) for (k, _item), use in zip(batch, usages))


def record(jobs: int = 2, batch_size: int = 16) -> str:
    """The table's full text, compiled afresh."""
    unique = {}   # GPUs of one arch (h100/h200, a10/rtx_a6000) share sources: compile each key once
    for task, v, params, src in suspects():
        unique.setdefault(key(task.op, v.tag, task.dtype, src.compile_arch, dict(task.shape), params),
                          (task, v, params, src))
    rows = ["\t".join(k + tuple(str(x) for x in (use.threads, use.registers, use.spill_stores, use.smem)))
            for k, use in _compile_unique(unique, jobs, batch_size)]
    head = ["# Registers per thread, spill stores and static shared memory from `nvcc -cubin -gencode ... -Xptxas -v`",
            f"# for the CUDA configurations whose launch could be refused for registers; regenerate: {COMMAND}",
            f"# nvcc: {tool_version()}", "\t".join(COLUMNS)]
    return "\n".join(head + sorted(rows)) + "\n"


def static_suspects():
    """static key -> (task, variant, params): one legal CUDA configuration per key among those whose dynamic
    shared memory static arrays could push past the opt-in cap, in catalog order."""
    unique = {}
    for task in all_tasks():
        if task.impl != "cuda":
            continue
        gpu = GPUS[task.gpu]
        for v in variants_for(task.op, "cuda"):
            if v.static_smem or not legal_on(v, gpu, task.dtype):
                continue
            for params in v.all_params():
                k = static_key(task, v, params, gpu.arch)
                if k not in unique and static_suspect(v.smem_bytes(params, task.dtype, task), gpu):
                    unique[k] = (task, v, params)
    return unique


def record_static(jobs: int = 2, batch_size: int = 16) -> str:
    """The static shared-memory table's full text, compiled afresh (each distinct source once)."""
    keys_of: dict[tuple[str, str], list] = {}
    for k, (task, v, params) in static_suspects().items():
        src = render(task, v, params)
        keys_of.setdefault((src.compile_arch, src.text), []).append((k, (task, v, params, src)))
    figures = _compile_unique({same[0][0]: same[0][1] for same in keys_of.values()}, jobs, batch_size)
    smem = {k: use.smem for k, use in figures}
    rows = ["\t".join(k + (str(smem[same[0][0]]),)) for same in keys_of.values() for k, _item in same]
    head = ["# Static shared memory (ptxas -v 'bytes smem') of the CUDA configurations whose dynamic shared memory is",
            "# within 48 KB of the opt-in cap, keyed by the tunables the static arrays read (catalog/resources.py "
            f"STATIC_PARAMS); regenerate: {COMMAND} --static-smem",
            f"# nvcc: {tool_version()}", "\t".join(STATIC_COLUMNS)]
    return "\n".join(head + sorted(rows)) + "\n"


# ---- Triton ------------------------------------------------------------------------------------------------

_BOUND = re.compile(r"^[A-Za-z_]\w* = \{\{SHAPE_(\w+)\}\}", re.M)


def bound_shape(op: str, variant) -> tuple[str, ...]:
    """The shape values a Triton render binds as module constants (e.g. HEAD_DIM = {{SHAPE_D}}): the only part of
    the shape its kernels are specialized on (every other size is a runtime argument)."""
    paths = [templating.template_path("triton", variant.kernel_class, variant.tag, op=op)]
    snippet = templating.snippet_path("triton", variant.kernel_class, op)
    texts = [p.read_text(encoding="utf-8") for p in paths + ([snippet] if snippet else [])]
    return tuple(dict.fromkeys(name for text in texts for name in _BOUND.findall(text)))


def triton_suspects(ops=None, classes=None):
    """(key, task, variant, params) for every legal Triton configuration (of `ops` and kernel `classes`, default
    all) whose shared-memory estimate reaches RECORD_FROM of the GPU's limit, one per table key (placement
    constants at their defaults)."""
    seen: set = set()
    for task in all_tasks(ops):
        if task.impl != "triton":
            continue
        gpu = GPUS[task.gpu]
        limit = TRITON_LIMIT[gpu.cc]
        for v in variants_for(task.op, "triton"):
            if not legal_on(v, gpu, task.dtype) or classes is not None and v.kernel_class not in classes:
                continue
            constants = bound_shape(task.op, v)
            defaults = v.default_params()
            for params in v.all_params():
                if v.smem_bytes(params, task.dtype, task) < RECORD_FROM * limit:
                    continue
                params = {k: (defaults[k] if k in PLACEMENT else x) for k, x in params.items()}
                k = triton_key(task, v, params, constants)
                if k not in seen:
                    seen.add(k)
                    yield k, task, v, params


def triton_version() -> str:
    import triton
    return f"triton {triton.__version__}"


# GEMM `grouped` is `pipelined` with another program-id -> tile mapping (scalar integer arithmetic), so the two
# allocate the same shared memory: one compile stands for both (tests/kernels/test_triton_smem.py checks a pair).
SAME_KERNEL = {("gemm", "grouped"): "pipelined"}
# Triton lowers tl.dot to mma.sync with cp.async pipelining on sm_80, sm_86 and sm_120 alike (wgmma only on
# sm_90), so their swizzled tiles and stage counts, and the allocation, are the same; only the limit differs.
SAME_PIPELINE = {"sm_86": "sm_80", "sm_120": "sm_80"}


def record_triton(jobs: int = 2, classes=None, keep: Path | None = None) -> str:
    """The Triton table's full text, compiled afresh for the kernel `classes` (default all), with the rows of
    the other classes kept from the table `keep`: one compile per distinct kernel (ops sharing a snippet give
    the same source up to names; the first op's render stands for them). A configuration Triton cannot compile
    at all is left out and named on stderr."""
    rows, by_kernel = [], {}
    recorded = set()
    if classes is not None and keep is not None and keep.is_file():
        _version, kept, kept_classes = read_triton_table(keep)
        recorded |= kept_classes - set(classes)
        rows += ["\t".join(k + (str(x),)) for k, x in kept.items() if OPS[k[0]].kernel_class in recorded]
    for k, task, v, params in triton_suspects(classes=classes):
        recorded.add(v.kernel_class)
        snippet = templating.snippet_path("triton", v.kernel_class, task.op)
        tag = SAME_KERNEL.get((v.kernel_class, v.tag), v.tag)
        kernel = (v.kernel_class, tag, snippet and snippet.name, k[2], SAME_PIPELINE.get(k[3], k[3])) + k[4:]
        by_kernel.setdefault(kernel, []).append((k, task, v, params))
    kernels = list(by_kernel.values())
    figures = triton_shared([render(task, v, params) for (_k, task, v, params), *_ in kernels], jobs=jobs,
                            log=lambda done, n: print(f"record-resources: {done}/{n} Triton kernels", file=sys.stderr))
    for same, shared in zip(kernels, figures):
        if shared < 0:
            print(f"record-resources: Triton cannot compile {' '.join(same[0][0])}: left out", file=sys.stderr)
            continue
        rows += ["\t".join(k + (str(shared),)) for k, *_ in same]
    head = ["# Shared memory Triton allocates (ttg.shared = triton.compile(...).metadata.shared) per kernel, for the",
            "# Triton configurations whose launch could be refused (OutOfResources); bf16 reads the fp16 row, "
            "GROUP_M/SPLIT_K are placement only;",
            f"# regenerate: {COMMAND} --triton --classes {','.join(sorted(recorded))}",
            f"# triton: {triton_version()}", f"# classes: {' '.join(sorted(recorded))}", "\t".join(TRITON_COLUMNS)]
    return "\n".join(head + sorted(set(rows))) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, help=f"table to write (default {TABLE.name}, --triton {TRITON_TABLE.name}, "
                                                 f"--static-smem {STATIC_TABLE.name})")
    parser.add_argument("--check", action="store_true", help="compare a fresh recording with the table; write nothing")
    parser.add_argument("--triton", action="store_true", help="record Triton's shared memory instead of ptxas's figures")
    parser.add_argument("--static-smem", action="store_true",
                        help=f"record ptxas's static shared memory into {STATIC_TABLE.name}")
    parser.add_argument("--classes", help="--triton: only these kernel classes (comma-separated; default all)")
    parser.add_argument("--jobs", type=int, default=2)


def run(args) -> int:
    if args.triton:
        why = triton_unavailable()
        if why:
            print(f"record-resources: {why}", file=sys.stderr)
            return 2
        args.out = args.out or TRITON_TABLE
        if args.check and args.classes:
            print("record-resources: --check re-records every class the table covers; leave out --classes",
                  file=sys.stderr)
            return 2
        classes = set(args.classes.split(",")) if args.classes else None
        if args.check and args.out.is_file():   # check what the table covers
            classes = read_triton_table(args.out)[2]
        text = record_triton(args.jobs, classes, keep=None if args.check else args.out)
    elif nvcc_path() is None:
        print("record-resources: nvcc not found (looked on PATH, /usr/local/cuda/bin, /usr/local/bin)", file=sys.stderr)
        return 2
    elif args.static_smem:
        args.out = args.out or STATIC_TABLE
        text = record_static(args.jobs)
    else:
        args.out = args.out or TABLE
        text = record(args.jobs)
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print(f"record-resources: {args.out} {'matches' if same else 'DIFFERS from'} a fresh recording")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"record-resources: wrote {args.out} ({sum(not x.startswith(('#', 'op')) for x in text.splitlines())} "
          "configurations)")
    return 0
