"""`python -m generator record-diagnostics`: the notes nvcc prints under "no operator "+=" matches these operands".

A type_mismatch fault turns a `float` accumulator into a vector type (float4, int2, ...); every `acc += x` after it
fails, and nvcc lists each candidate operator that did not match: the half / bfloat16 overloads of the headers the
source includes (their header file, line and text) and the built-in ones (at the user's line). That list is the
compiler's, not ours to type: it is recorded from real nvcc, one tiny translation unit per include set, into
`diagnostics.tsv` (the nvcc version in its header), and `diagnostics.py` re-renders the built-in notes at the
faulty line. No compiler runs at generation time.

Regenerate (nvcc on PATH; three compiles, seconds):
    python -m generator record-diagnostics            # rewrites generator/kernels/diagnostics.tsv
    python -m generator record-diagnostics --check    # exit 1 when the recorded table differs from a fresh run
`--arch` records ptxas's output for arch-gated variants instead (record_arch.py, arch_diagnostics.tsv).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson


TABLE = Path(__file__).with_name("diagnostics.tsv")
COMMAND = "python -m generator record-diagnostics"
# the headers that declare operators (templating.py's base includes and the fp8 / fp4 ones)
OPERATOR_HEADERS = ("cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp4.h")
INCLUDE_SETS = (("cuda_fp16.h", "cuda_bf16.h"), ("cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h"),
                ("cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp4.h"))
OPERATORS = ("+=", "-=", "*=", "/=")
VECTOR_TYPES = ("float2", "float4", "int2", "uint4")   # what a type_mismatch fault turns a scalar into (faults.py)
RHS_TYPES = ("float",)
SITE = "@"       # a note at the user's line: "@<note text>", re-rendered with the faulty line and caret


def _unit(includes) -> tuple[str, list[tuple[str, str, str]]]:
    lines = ["#include <cuda_runtime.h>", *(f"#include <{h}>" for h in includes), "#include <stdint.h>",
             "__global__ void k(float x) {"]
    cases = []
    for lhs in VECTOR_TYPES:
        for rhs in RHS_TYPES:
            for op in OPERATORS:
                cases.append((op, lhs, rhs))
                lines.append(f"  {{ {lhs} a{{}}; {rhs} b = x; a {op} b; }}")
    return "\n".join(lines + ["}"]) + "\n", cases


_ERROR = re.compile(r"^unit\.cu\((\d+)\): error: ", re.M)


def parse_notes(output: str, line: int) -> list[str]:
    """The notes under the error at `line` of unit.cu: header notes verbatim (3 lines), notes at the user's line as
    SITE + their text (the shown line and caret dropped)."""
    start = re.search(rf"^unit\.cu\({line}\): error: .*$", output, re.M)
    lines = output[start.end():].split("\n")[4:]     # past the operand-types line and the shown line + caret
    notes, i = [], 0
    while i < len(lines) and lines[i] and not _ERROR.match(lines[i]):
        site = re.match(r"unit\.cu\(\d+\): (note .*)$", lines[i])
        notes.append(SITE + site.group(1) if site else "\n".join(lines[i:i + 3]))
        i += 3
    return notes


def record() -> str:
    """The table's text, from fresh compiles."""
    from generator.kernels import compilers               # (not needed to read the table)
    from generator.kernels.record_resources import tool_version
    nvcc = compilers.nvcc_path()
    if nvcc is None:
        raise SystemExit("record-diagnostics: nvcc not found (looked on PATH, /usr/local/cuda/bin)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="ks_diag_") as tmp:
        for includes in INCLUDE_SETS:
            text, cases = _unit(includes)
            (Path(tmp) / "unit.cu").write_text(text, encoding="utf-8")
            proc = subprocess.run([nvcc, "-cubin", *compilers.gencode("sm_80"), "unit.cu", "-o", "unit.cubin"],
                                  cwd=tmp, capture_output=True, text=True, timeout=300)
            first = len(text.split("\n")) - len(cases) - 1      # 1-based line of the first case
            for k, (op, lhs, rhs) in enumerate(cases):
                notes = parse_notes(proc.stdout + proc.stderr, first + k)
                rows.append("\t".join((",".join(sorted(includes)), op, lhs, rhs, orjson.dumps(notes).decode())))
    header = [f"# nvcc's notes under 'no operator \"OP\" matches these operands' (recorded by `{COMMAND}`)",
              f"# tool: {tool_version()}",
              "# includes\toperator\tlhs\trhs\tnotes (JSON list; '@...' = a note at the user's line)"]
    return "\n".join(header + rows) + "\n"


def read_table(path: Path = TABLE) -> tuple[str, dict[tuple, tuple[str, ...]]]:
    """(recorded tool version, {(sorted includes, operator, lhs, rhs): notes}); the notes do not depend on the
    order of the includes (cuda_bf16.h includes cuda_fp16.h)."""
    version, table = "", {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# tool: "):
            version = line[len("# tool: "):]
        elif line and not line.startswith("#"):
            includes, op, lhs, rhs, notes = line.split("\t")
            table[(tuple(includes.split(",")), op, lhs, rhs)] = tuple(orjson.loads(notes))
    return version, table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true", help="exit 1 if a fresh record differs from the table")
    parser.add_argument("--arch", action="store_true", help="record ptxas's output for arch-gated variants "
                        "(arch_diagnostics.tsv, ~680 compiles) instead of the operator notes")
    parser.add_argument("--reuse", action="store_true", help="--arch: compile only the renders the table lacks")
    parser.add_argument("--jobs", type=int, default=2, help="--arch: parallel compiles (default 2)")


def run(args) -> int:
    """Exit 0: written (or --check: the same); 1: --check found a difference; 2: no nvcc."""
    from generator.kernels import record_arch

    table = record_arch.TABLE if args.arch else TABLE
    try:
        text = record_arch.record(args.jobs, args.reuse) if args.arch else record()
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.check:
        same = table.is_file() and table.read_text(encoding="utf-8") == text
        print(f"record-diagnostics: {table.name} {'matches' if same else 'differs from'} a fresh record")
        return 0 if same else 1
    table.write_text(text, encoding="utf-8")
    print(f"record-diagnostics: wrote {len(text.splitlines()) - 3} rows to {table}")
    return 0
