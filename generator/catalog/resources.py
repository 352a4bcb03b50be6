"""Register and shared-memory figures of kernel sources as the real `ptxas -v` printed them, recorded in
`resources.tsv` beside this module by `python -m generator record-resources` (generator/kernels/record_resources.py,
which also states the nvcc version in the table). The model claims a register launch failure only from these
figures, never from an estimate.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

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
    return (op, tag, dtype, arch, ",".join(f"{k}={v}" for k, v in shape.items()),
            ",".join(f"{k}={v}" for k, v in params.items()))


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
