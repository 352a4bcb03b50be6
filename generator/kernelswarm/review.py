"""What a reviewer says of a candidate: in its own words, from the source it read.

Why: a review judges a candidate before the env builds it, and a failed review sends it back unbuilt, so no
compiler ever ran on it. Quoting the diagnostic the compiler would have printed (`x.cu(264): error: expected a
";"`, Triton's `at 35:44:`) claims a build that never happened; the reviewer names the faulty line and what is
wrong with it instead. `TOOL_TEXT` is what such a quote looks like (the QA's `review_quotes` rule). Besides a typo,
a reviewer may read a wrong result that one line shows (a grid that rounds down, a wrong stride, a dropped scale:
READABLE_WRONG), named as the edit made it. A passing review names something it read in the candidate (every one
used to say "structure and indexing look right"): only facts its build cannot contradict.
"""
from __future__ import annotations

import os
import re

from generator.catalog.hardware import GPU
from generator.catalog.variants import Variant
from generator.kernels.faults import Expected

# nvcc's `file(line): error:`, ptxas's `ptxas error`/`ptxas fatal`, Triton's `at L:C:` and exception reprs
TOOL_TEXT = re.compile(r"\(\d+\): (?:error|warning)|\bptxas (?:error|fatal)|\bat \d+:\d+:|CompilationError|"
                       r"NameError\(|\d+ errors? detected")
_NAME = re.compile(r'"(\w+)"')
_TRITON_NAME = re.compile(r"NameError\('(\w+) is not defined'\)")


def finding(expected: Expected, source: str) -> str:
    """The reviewer's account of the mistake `expected` describes (the fault the env would hit) in `source`."""
    kind, line = expected.kind, expected.line
    if kind == "undefined_identifier":
        return f"line {line} uses {_NAME.search(expected.message)[1]}, which is declared nowhere"
    if kind == "missing_semicolon":     # nvcc names the next token's line; the statement before it lacks the ';'
        lines = source.splitlines()
        before = next(i for i in range(line - 1, 0, -1) if lines[i - 1].strip())
        return f"line {before} lacks its closing ';'"
    if kind == "type_mismatch":
        return f"line {line} mixes types that do not convert"
    if kind == "wrong_template_arg":
        return f"line {line} passes template arguments no instance of the template takes"
    if kind == "triton_compilation_error":
        name = _TRITON_NAME.search(expected.context)
        return (f"the kernel uses {name[1]}, which it never defines" if name
                else "a tl.arange range is not a power of 2")
    return f"a {kind.replace('_', ' ')} in the edit"


# Wrong-result edits a reader sees on one line (Expected.message names what changed); a missing barrier or a racy
# reduction shows only in how threads interleave, which no one line states
READABLE_WRONG = frozenset({"truncated_grid", "wrong_stride", "dropped_scale"})


def fault_text(expected: Expected, source: str, clean: str) -> str:
    """Why a reviewer sends back `source`, which carries the editing mistake `expected` (a compile error, or a
    READABLE_WRONG result) that `clean`, the same candidate without it, does not."""
    if expected.status == "compile_error":
        return f"will not compile: {finding(expected, source)}"
    n, edited = next((i, line) for i, (line, was) in enumerate(zip(source.splitlines(), clean.splitlines()), 1)
                     if line != was)
    kind, said = expected.kind, expected.message
    if kind == "truncated_grid":      # `said` is "E / B"; Triton's line floors with //
        floor = said if said in edited else said.replace(" / ", " // ")
        return f"computes wrong results: line {n} sizes the grid as {floor}, which rounds down: no block computes " \
               f"what lies past the last whole one"
    if kind == "wrong_stride":
        before, _, after = said.partition(" -> ")
        return f"computes wrong results: line {n} " + (f"offsets by {after} where the layout's offset is {before}"
                                                       if after else "indexes with a stride the layout does not have")
    # dropped_scale: `said` is the line before the edit; what the edit deleted is the factor
    edited = edited.strip()
    head = len(os.path.commonprefix([said, edited]))
    tail = len(os.path.commonprefix([said[head:][::-1], edited[head:][::-1]]))
    factor = said[head:len(said) - tail].strip(" *")
    return f"computes wrong results: line {n} leaves out its {factor} factor, so the values it gives miss that scale"


def passing_notes(variant: Variant, op: str, cfg: str, lines: int, dtype: str, gpu: str, hardware: GPU) -> list[str]:
    """What a reviewer who passes a `lines`-line candidate of `variant` at `cfg` for `gpu` can say it read: true of
    the source whatever its build gives (its constants and length, tensor-core math, the features it needs when
    the GPU has them), never a judgement of correctness the env may contradict."""
    notes = [f"{cfg} in {lines} lines; ready to build", f"read all {lines} lines at {cfg}; send it to the env"]
    if variant.tensor_cores(op):
        notes.append(f"tensor-core math at {cfg}; ready to build")
    needs = variant.requires_for(dtype)
    if not needs:
        notes.append(f"{cfg}; it needs no feature {gpu} ({hardware.arch}) lacks")
    elif needs <= hardware.features:
        notes.append(f"needs {', '.join(sorted(needs))}, which {gpu} ({hardware.arch}) has; {cfg}")
    return notes
