"""ptxas's whole output for an arch-gated CUDA variant compiled for a target without the feature.

ptxas names every offending instruction with its PTX line, and PTX lines depend on the code nvcc generates, not
on names, comments or layout. Measured with nvcc 13.0 (styled renders of flash_decode/tma_pipeline and
gemm_fp16/wgmma_tma): the output is the same for every shape of a task, every naming, comment, brace, const,
constant-declaration and include habit, and for sm_80 and sm_86 (the same PTX; only the target's name in the
messages differs); it changes with the variant's op, dtype, target and the two codegen habits that survive in
the text: `#pragma unroll` and `__restrict__`. So one compile per (op, variant, dtype, target, unroll,
restrict), of the catalog's first task with the variant's default parameters (the parameters every session
tries a gated variant with), is recorded into `arch_diagnostics.tsv`; `arch_block` re-renders the temporary PTX
file's name. No compiler runs at generation time.

Regenerate (nvcc on PATH; ~450 compiles, about 20 min on 2 cores):
    python -m generator record-diagnostics --arch            # rewrites generator/kernels/arch_diagnostics.tsv
    python -m generator record-diagnostics --arch --check    # exit 1 when the table differs from a fresh record
"""
from __future__ import annotations

import re
import sys
import zlib
from functools import lru_cache
from pathlib import Path

import orjson

from generator.kernels import scanner

TABLE = Path(__file__).with_name("arch_diagnostics.tsv")
COMMAND = "python -m generator record-diagnostics --arch"
SAME_PTX = {"sm_86": "sm_80"}     # targets whose PTX is another's (recorded once, the target's name substituted)
_PTX_FILE = re.compile(r"/tmp/tmpxft_[0-9a-f]+_[0-9a-f]+-\d+_[\w.]+?\.ptx")
PTX = "{ptx}"      # the temporary PTX file's place in a recorded output


def codegen(text: str) -> tuple[bool, bool]:
    """The habits a source's PTX depends on, read from its code: (`#pragma unroll` kept, `__restrict__` kept)."""
    code = scanner.code_view(text, "cuda")
    return "#pragma unroll" in code, "__restrict__" in code


def gated_configs():
    """(task, variant, arch) of the first catalog task for each (op, variant, dtype, target) that ptxas refuses,
    targets of SAME_PTX excepted."""
    from generator.catalog.hardware import GPUS
    from generator.catalog.tasks import all_tasks
    from generator.catalog.variants import variants_for
    from generator.kernels.faults import _lacking as lacking

    seen = set()
    for task in all_tasks():
        arch = GPUS[task.gpu].arch
        if task.impl != "cuda" or arch in SAME_PTX:
            continue
        for v in variants_for(task.op, "cuda", task.dtype):
            key = (task.op, v.tag, task.dtype, arch)
            if key not in seen and lacking(v, task.dtype, task.gpu)[1]:
                seen.add(key)
                yield task, v, arch


def record(jobs: int = 2) -> str:
    """The table's text, from fresh compiles (one per distinct (config, unroll, restrict) render)."""
    from generator.kernels import Style, compilers, render
    from generator.kernels.record_resources import tool_version

    if compilers.nvcc_path() is None:
        raise SystemExit("record-diagnostics: nvcc not found (looked on PATH, /usr/local/cuda/bin)")
    keys, sources = [], []
    for task, v, arch in gated_configs():
        done = set()
        for unroll in (True, False):
            for restrict in (True, False):
                style = Style(seed=0, camel=False, comments="none", indent=4, brace_same_line=False,
                              east_const=False, constants="constexpr", includes="given", using_alias=False,
                              unroll=unroll, restrict=restrict)
                src = render(task, v, v.default_params(), style=style)
                key = (task.op, v.tag, task.dtype, arch, *codegen(src.text))
                if key not in done:
                    done.add(key)
                    keys.append(key)
                    sources.append(src)
    outs = compilers.compile_cuda(sources, modes=["alone"] * len(sources), jobs=jobs)
    outputs = {}
    for key, out in zip(keys, outs):
        refused = out.status == "compile_error" and out.tool == "ptxas"
        if not refused:     # the catalog's gating is wrong for it: an empty record (arch_block: None)
            print(f"record-diagnostics: {'/'.join(map(str, key))} did not fail in ptxas ({out.status}"
                  f"{': ' + out.first if out.first else ''})", file=sys.stderr)
        outputs[key] = _PTX_FILE.sub(PTX, out.output.strip("\n")) if refused else ""
    return table_text(tool_version(), outputs)


def table_text(version: str, outputs: dict[tuple, str]) -> str:
    """The table file for {(op, variant, dtype, arch, unroll, restrict): output} (read_table's inverse)."""
    rows = ["\t".join((*key[:4], str(int(key[4])), str(int(key[5])), orjson.dumps(outputs[key]).decode()))
            for key in sorted(outputs)]
    header = [f"# ptxas's output for arch-gated CUDA variants on targets without the feature (recorded by `{COMMAND}`;",
              "# an empty output: the render compiled, the catalog's gating is wrong for it)",
              f"# tool: {version}",
              "# op\tvariant\tdtype\tarch\tunroll\trestrict\toutput (JSON string; {ptx} = the temporary PTX file)"]
    return "\n".join(header + rows) + "\n"


@lru_cache(maxsize=1)
def read_table(path: Path = TABLE) -> tuple[str, dict[tuple, str]]:
    """(recorded tool version, {(op, variant, dtype, arch, unroll, restrict): output})."""
    version, table = "", {}
    if not path.is_file():
        return version, table
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# tool: "):
            version = line[len("# tool: "):]
        elif line and not line.startswith("#"):
            op, tag, dtype, arch, unroll, restrict, out = line.split("\t")
            table[(op, tag, dtype, arch, unroll == "1", restrict == "1")] = orjson.loads(out)
    return version, table


def arch_block(source, op: str, tag: str, dtype: str) -> tuple[str, str] | None:
    """(first line, the rest) of what nvcc prints for this gated source on its target, from the table (None when
    not recorded, or recorded as compiling)."""
    arch = source.compile_arch
    recorded = SAME_PTX.get(arch, arch)
    out = read_table()[1].get((op, tag, dtype, recorded, *codegen(source.text)))
    if not out:
        return None
    if recorded != arch:
        out = out.replace(f"'{recorded}'", f"'{arch}'")
    crc = zlib.crc32(source.text.encode())
    ptx = f"/tmp/tmpxft_{crc >> 16:08x}_00000000-6_{source.filename.rsplit('.', 1)[0]}.ptx"
    first, _, rest = out.replace(PTX, ptx).partition("\n")
    return first, rest
