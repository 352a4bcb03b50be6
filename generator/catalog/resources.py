"""Register and shared-memory figures of kernel sources as the real `ptxas -v` printed them, recorded in
`resources.tsv` beside this module by `python -m generator record-resources` (generator/kernels/record_resources.py,
which also states the nvcc version in the table). The model claims a register launch failure only from these
figures, never from an estimate.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from pathlib import Path
from typing import Callable, NamedTuple

TABLE = Path(__file__).with_name("resources.tsv")
COLUMNS = ("op", "variant", "dtype", "arch", "shape", "params", "threads", "registers", "spill_stores", "smem")


@dataclass(frozen=True)
class Usage:
    """One kernel source's figures as ptxas printed them (the largest over its entry functions)."""
    threads: int
    registers: int
    spill_stores: int
    smem: int


def key(op: str, tag: str, dtype: str, arch: str, shape: dict, params: dict) -> tuple[str, ...]:
    return op, tag, dtype, arch, _cell(shape), _cell(params)


def _cell_format(names) -> str:
    """A key cell (shape or params) as a %-format of its values: `name=value` pairs joined by commas. The one
    writing of a cell, for the recorders' keys and for the launch checks' per-(task, variant) lookups (_Cells)."""
    return ",".join(f"{k}=%s" for k in names)


def _cell(values: dict) -> str:
    return _cell_format(values) % tuple(values.values())


def read_tsv(path: Path, columns: tuple[str, ...], counts: int) -> tuple[dict[str, str], list[list[str]]]:
    """A recorded table: its `# name: value` header lines, and the cells of each row (the last `counts` cells are
    integers). A malformed line is a one-line error naming file and line."""
    header, rows = {}, []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("# ") and ": " in line:
            name, value = line[2:].split(": ", 1)
            header[name] = value
        if line.startswith("#") or line.startswith("op\t"):
            continue
        cells = line.split("\t")
        if len(cells) != len(columns) or not all(c.isdigit() for c in cells[-counts:]):
            raise ValueError(f"{path}:{n}: expected {len(columns)} tab-separated cells {columns}")
        rows.append(cells)
    return header, rows


class _Cells(NamedTuple):
    """One (task, variant)'s rows of a recorded table by their params cell, and how to write a configuration's cell
    (a %-format and the getter of the values it writes): built once per (task, variant), so a launch check formats
    one cell rather than the whole key."""
    rows: dict[str, int]
    cell: str
    values: Callable[[dict], object]

    def get(self, params: dict) -> int | None:
        return self.rows.get(self.cell % self.values(params)) if self.rows else None


def _cells(groups: dict[tuple[str, ...], dict[str, int]], group: tuple[str, ...], names: list[str]) -> _Cells:
    """The `_Cells` of `group` (a key without its params cell) in `groups`, whose cells write `names` in order."""
    values = itemgetter(*names) if names else (lambda params: ())
    return _Cells(groups.get(group, {}), _cell_format(names), values)


def _grouped(rows: dict[tuple[str, ...], int]) -> dict[tuple[str, ...], dict[str, int]]:
    """A table's figures by key without its last cell (the params), then by that cell."""
    groups: dict[tuple[str, ...], dict[str, int]] = {}
    for k, figure in rows.items():
        groups.setdefault(k[:-1], {})[k[-1]] = figure
    return groups


def read_table(path: Path = TABLE) -> tuple[str, dict[tuple[str, ...], Usage]]:
    """(the recorded nvcc version, key -> Usage)."""
    header, rows = read_tsv(path, COLUMNS, len(COLUMNS) - 6)
    return header.get("nvcc", ""), {tuple(cells[:6]): Usage(*map(int, cells[6:])) for cells in rows}


@lru_cache(maxsize=1)
def _recorded() -> dict[tuple[str, ...], Usage]:
    return read_table()[1]


def register_refusal(task, variant, params: dict, gpu) -> tuple[int, str] | None:
    """(registers x threads, the launch error quoting ptxas's recorded figures) for a register suspect; None when
    the record says it fits or there is no record (a `__launch_bounds__` kernel, which ptxas always fits)."""
    if task is None:
        return None
    use = _recorded().get(key(task.op, variant.tag, task.dtype, gpu.arch, dict(task.shape), params))
    if use is None or use.registers * use.threads <= gpu.regs_per_sm:
        return None
    return use.registers * use.threads, (f"too many resources requested for launch: {use.registers} registers x "
                                         f"{use.threads} threads > {gpu.regs_per_sm} per block")


# ---- static shared memory beside dynamic ------------------------------------------------------------------
# A kernel's dynamic shared memory may be raised (cudaFuncAttributeMaxDynamicSharedMemorySize) only so far that
# it plus the kernel's static __shared__ arrays (sharedSizeBytes) fit cudaDevAttrMaxSharedMemoryPerBlockOptin
# (CUDA Runtime API, cudaFuncSetAttribute: https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__EXECUTION.html).
# The static part is what ptxas -v prints as "bytes smem", recorded in `static_smem.tsv` by
# `python -m generator record-resources --static-smem` for every legal configuration whose dynamic figure is
# within the GPU's static cap (48 KB) of the opt-in cap: below that the sum always fits.

STATIC_TABLE = Path(__file__).with_name("static_smem.tsv")
STATIC_COLUMNS = ("op", "variant", "dtype", "arch", "shape", "params", "smem")
# The tunables a template's static __shared__ arrays are sized by (mbarriers per stage, a softmax slot per
# warp, ...); a variant not named has none. The table is keyed by these alone, one compile standing for every
# configuration that shares them (tests/kernels/test_static_smem.py compiles others that share a row).
STATIC_PARAMS = {
    ("gemm", "wgmma_tma"): ("NUM_STAGES",), ("gemm", "persistent"): ("NUM_STAGES",),
    ("attn_prefill", "tma_pipeline"): ("NUM_STAGES",), ("attn_prefill", "wgmma_tma"): ("NUM_STAGES",),
    ("attn_decode", "cp_async_pipeline"): ("NUM_WARPS",), ("attn_decode", "split_kv"): ("NUM_WARPS",),
    ("attn_decode", "tma_pipeline"): ("NUM_WARPS", "NUM_STAGES"), ("attn_decode", "wgmma_tma"): ("NUM_STAGES",),
    ("gather", "tma_bulk"): ("NUM_STAGES", "ROWS_PER_BLOCK"), ("scan", "cp_async_pipeline"): ("NUM_WARPS", "VEC"),
}


def static_key(task, variant, params: dict, arch: str) -> tuple[str, ...]:
    """The table key: the task, the arch, and only the params the static arrays read."""
    names = STATIC_PARAMS.get((variant.kernel_class, variant.tag), ())
    return key(task.op, variant.tag, task.dtype, arch, dict(task.shape), {k: params[k] for k in names})


def static_suspect(dynamic: int, gpu) -> bool:
    """True when static arrays could push `dynamic` bytes past the opt-in cap (ptxas refuses more than
    smem_static_max of them)."""
    return gpu.smem_dyn_max - gpu.smem_static_max < dynamic <= gpu.smem_dyn_max


def read_static_table(path: Path = STATIC_TABLE) -> tuple[str, dict[tuple[str, ...], int]]:
    """(the recorded nvcc version, key -> static bytes)."""
    header, rows = read_tsv(path, STATIC_COLUMNS, 1)
    return header.get("nvcc", ""), {tuple(cells[:-1]): int(cells[-1]) for cells in rows}


@lru_cache(maxsize=1)
def _static_recorded() -> dict[tuple[str, ...], dict[str, int]]:
    return _grouped(read_static_table()[1])


@lru_cache(maxsize=1024)
def _static_cells(task, variant, arch: str) -> _Cells:
    """static_key's rows of the task's variant on `arch` (static_key: the cell writes the STATIC_PARAMS only)."""
    group = key(task.op, variant.tag, task.dtype, arch, dict(task.shape), {})[:-1]
    return _cells(_static_recorded(), group, list(STATIC_PARAMS.get((variant.kernel_class, variant.tag), ())))


def static_smem(task, variant, params: dict, gpu) -> int | None:
    """ptxas's recorded static shared memory of the configuration; None when it is not recorded."""
    return _static_cells(task, variant, gpu.arch).get(params)


def static_refusal(task, variant, params: dict, gpu, dynamic: int) -> tuple[int, str] | None:
    """(dynamic + static bytes, the launch error) when the recorded static arrays plus `dynamic` bytes exceed the
    opt-in cap: cudaFuncSetAttribute then returns cudaErrorInvalidValue, and the launch asking for more than the
    default 48 KB fails with the same "invalid argument". None when it fits, or without a task (no shape to look
    up)."""
    if task is None or not static_suspect(dynamic, gpu):
        return None
    static = static_smem(task, variant, params, gpu)
    if static is None or dynamic + static <= gpu.smem_dyn_max:
        return None
    return dynamic + static, (f"invalid argument: {dynamic} bytes of dynamic + {static} bytes of static shared "
                              f"memory > {gpu.smem_dyn_max} (cudaFuncAttributeMaxDynamicSharedMemorySize)")


# ---- Triton shared memory ---------------------------------------------------------------------------------
# Triton keeps its pipeline stages in shared memory and only finds out at launch that they do not fit
# (`OutOfResources`). The figure is Triton's own allocation, recorded per (op, variant, dtype, arch, the shape
# values the source binds as constants, tile parameters) by `python -m generator record-resources --triton`.

TRITON_TABLE = Path(__file__).with_name("triton_smem.tsv")
TRITON_COLUMNS = ("op", "variant", "dtype", "arch", "constants", "params", "shared")
# Grid-placement constants: which tiles a program takes (GROUP_M) or how K is split over programs (SPLIT_K) do
# not change a program's tiles, so not its shared memory; the recorder compiles them at their defaults.
PLACEMENT = frozenset({"GROUP_M", "SPLIT_K"})
# fp16 and bf16 tiles have the same width, so the same layouts and allocation: bf16 reads the fp16 figure.
SAME_ALLOCATION = {"bf16": "fp16"}
# Configurations whose estimate is below this fraction of the limit are not recorded: they fit (the recorded
# figures are at most 2x the estimate; docs/calibration.md).
RECORD_FROM = 0.5
TRITON_LIMIT = {80: 166912, 86: 101376, 89: 101376, 90: 232448, 100: 232448, 120: 101376}   # sharedMemPerBlockOptin


def triton_key(task, variant, params: dict, constants: tuple[str, ...]) -> tuple[str, ...]:
    """The table key; `constants` names the shape values the source binds (e.g. ("D",) for HEAD_DIM)."""
    op, dtype, arch, bound = _task_key(task, constants)
    return op, variant.tag, dtype, arch, bound, _cell({k: params[k] for k in variant.params if k not in PLACEMENT})


@lru_cache(maxsize=1024)
def _task_key(task, constants: tuple[str, ...]) -> tuple[str, str, str, str]:
    """The task's part of its table keys (op, the dtype whose row it reads, arch, the bound shape values): the same
    for every configuration of it a session checks (each launch check of a Triton candidate reads the table)."""
    from generator.catalog.hardware import GPUS

    shape = dict(task.shape)
    return (task.op, SAME_ALLOCATION.get(task.dtype, task.dtype), f"sm_{GPUS[task.gpu].cc}",
            _cell({k: shape[k] for k in constants}))


def read_triton_table(path: Path = TRITON_TABLE) -> tuple[str, dict[tuple[str, ...], int], frozenset[str]]:
    """(the recorded Triton version line, key -> bytes, the kernel classes recorded)."""
    header, rows = read_tsv(path, TRITON_COLUMNS, 1)
    return (header.get("triton", ""), {tuple(cells[:-1]): int(cells[-1]) for cells in rows},
            frozenset(header.get("classes", "").split()))


@lru_cache(maxsize=1)
def _triton_recorded() -> tuple[dict[tuple[str, ...], dict[str, int]], dict[tuple[str, str], tuple[str, ...]],
                                frozenset[str]]:
    """The table's bytes grouped by all but the params cell (_grouped); per (op, variant) the shape names its rows
    bind (the same for every row of a pair); and the kernel classes it covers."""
    _version, rows, classes = read_triton_table()
    names = {(k[0], k[1]): tuple(c.split("=")[0] for c in k[4].split(",") if c) for k in rows}
    return _grouped(rows), names, classes


@lru_cache(maxsize=1024)
def _triton_cells(task, variant) -> _Cells | None:
    """triton_key's rows of the task's variant (the cell writes the tiles, not the PLACEMENT); None when the pair
    binds no recorded shape."""
    groups, names, _classes = _triton_recorded()
    constants = names.get((task.op, variant.tag))
    if constants is None:
        return None
    op, dtype, arch, bound = _task_key(task, constants)
    return _cells(groups, (op, variant.tag, dtype, arch, bound), [k for k in variant.params if k not in PLACEMENT])


def triton_shared(task, variant, params: dict) -> int | None:
    """Triton's recorded shared memory for the configuration, None when it is not recorded."""
    cells = _triton_cells(task, variant)
    return None if cells is None else cells.get(params)


def triton_refusal(task, variant, params: dict, gpu, estimate: int) -> tuple[int, str] | None:
    """(the bytes required, Triton's OutOfResources text) when the recorded figure exceeds the GPU's limit, quoting
    both as Triton prints them. Without a task (no shape: a what-if question), or for a kernel class the table does
    not cover yet (its header's `# classes:`), the estimate answers, worded the same way."""
    limit = TRITON_LIMIT[gpu.cc]
    covered = task is not None and variant.kernel_class in _triton_recorded()[2]
    need = triton_shared(task, variant, params) if covered else estimate
    if need is None or need <= limit:
        return None
    return need, out_of_resources(need, limit)


def out_of_resources(required: int, limit: int) -> str:
    """The message of the OutOfResources exception Triton 3.9's launcher raises when a kernel needs more shared
    memory than the device allows per block (triton/runtime/errors.py); one text for the rows and the audit."""
    return (f"out of resource: shared memory, Required: {required}, Hardware limit: {limit}. "
            f"Reducing block sizes or `num_stages` may help.")
