"""ptxas's whole output for an arch-gated CUDA variant compiled for a target without the feature.

ptxas names every offending instruction with its PTX line, and PTX lines depend on the code nvcc generates, not
on names, comments or layout. Measured with nvcc 13.0 (styled renders of flash_decode/tma_pipeline,
gemm_fp16/wgmma_tma, cross_attn/tma_pipeline): the output is the same for every naming, comment, brace, const,
constant-declaration and include habit, and for sm_80 and sm_86 (the same PTX; only the target's name in the
messages differs); it changes with the two codegen habits that survive in the text (`#pragma unroll`,
`__restrict__`) and with the code itself: op, variant, dtype and some shapes (cross_attn's head dim 128 moves
every line). So the key is the code: a digest of the task's render in one fixed style with the source's two
codegen habits ("canonical"), the GPU's and target's names masked. One compile per distinct canonical render of
every gated (task, variant) at the variant's default parameters (the parameters every session tries a gated
variant with) is recorded into `arch_diagnostics.tsv`; `arch_block` re-renders the temporary PTX file's name.
No compiler runs at generation time.

Regenerate (nvcc on PATH; ~680 compiles, about an hour on 2 loaded cores):
    python -m generator record-diagnostics --arch            # rewrites generator/kernels/arch_diagnostics.tsv
    python -m generator record-diagnostics --arch --reuse    # compiles only the renders the table lacks
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
_PRAGMA_UNROLL = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+unroll\b", re.M)


def codegen(text: str) -> tuple[bool, bool]:
    """The habits a source's PTX depends on, read from its text: (`#pragma unroll` kept, `__restrict__` kept)."""
    return _PRAGMA_UNROLL.search(text) is not None, "__restrict__" in scanner.code_view(text, "cuda")


@lru_cache(maxsize=256)
def key(task, variant, unroll: bool, restrict: bool) -> tuple:
    """(op, variant, dtype, target, unroll, restrict, digest of the canonical render): a record's key; a target of
    SAME_PTX reads the other's records."""
    from generator.catalog.hardware import GPUS

    text = _canonical(task, variant, unroll, restrict).text
    unroll, restrict = codegen(text)    # (a habit the template gives no room to is not in the key)
    gpu = GPUS[task.gpu]
    masked = text.replace(gpu.arch, "ARCH").replace(gpu.name, "GPU").replace(gpu.display, "GPU")
    return (task.op, variant.tag, task.dtype, SAME_PTX.get(gpu.arch, gpu.arch), unroll, restrict,
            f"{zlib.crc32(masked.encode()):08x}")


def _canonical(task, variant, unroll: bool, restrict: bool):
    """The render a record is made from and keyed by: the variant at its defaults in one fixed style, with only
    the two habits that move PTX lines."""
    from generator.kernels import Style, render

    style = Style(seed=0, camel=False, comments="none", indent=4, brace_same_line=False, east_const=False,
                  constants="constexpr", includes="given", using_alias=False, unroll=unroll, restrict=restrict)
    return render(task, variant, variant.default_params(), style=style)


def gated():
    """Every CUDA (task, variant) of the catalog whose variant ptxas refuses on the task's GPU."""
    from generator.catalog.tasks import all_tasks
    from generator.catalog.variants import variants_for
    from generator.catalog.variants import lacking

    for task in all_tasks():
        if task.impl == "cuda":
            for v in variants_for(task.op, "cuda", task.dtype):
                if lacking(v, task.dtype, task.gpu)[1]:
                    yield task, v


def record(jobs: int = 2, reuse: bool = False) -> str:
    """The table's text, from fresh compiles of each distinct canonical render (`reuse`: only of those the table
    lacks; the others keep their recorded output)."""
    from generator.catalog.hardware import GPUS
    from generator.kernels import compilers
    from generator.kernels.record_resources import tool_version

    if compilers.nvcc_path() is None:
        raise SystemExit("record-diagnostics: nvcc not found (looked on PATH, /usr/local/cuda/bin)")
    kept = read_table()[1] if reuse else {}
    outputs, todo = {}, {}
    for task, v in gated():
        if GPUS[task.gpu].arch in SAME_PTX:
            continue
        for unroll in (True, False):
            for restrict in (True, False):
                k = key(task, v, unroll, restrict)
                if k in kept:
                    outputs[k] = kept[k]
                elif k not in todo:
                    todo[k] = (task, v, unroll, restrict)
    sources = [_canonical(*todo_args) for todo_args in todo.values()]
    outs = compilers.compile_cuda(sources, modes=["alone"] * len(sources), jobs=jobs)
    for k, out in zip(todo, outs):
        refused = out.status == "compile_error" and out.tool == "ptxas"
        if not refused:     # the catalog's gating is wrong for it: an empty record (arch_block: None)
            print(f"record-diagnostics: {'/'.join(map(str, k))} did not fail in ptxas ({out.status}"
                  f"{': ' + out.first if out.first else ''})", file=sys.stderr)
        outputs[k] = _PTX_FILE.sub(PTX, out.output.strip("\n")) if refused else ""
    return table_text(tool_version(), outputs)


_PTXAS_LINE = re.compile(r"ptxas \{ptx\}, line (\d+); (.*)")   # a recorded line naming a PTX line


def table_text(version: str, outputs: dict[tuple, str]) -> str:
    """The table file for {key: output} (read_table's inverse). ptxas repeats a few dozen messages over ~47K lines,
    and ~685 renders print ~145 distinct outputs, so each message is written once (`# message K: ...`) and each
    output once (`# output K: ...`, a JSON list of its lines: `[PTX line, K]` for `ptxas {ptx}, line N; <message
    K>`, any other line as its text); a row names its output's K (the same bytes back, 1/35 the size)."""
    messages: dict[str, int] = {}
    distinct: dict[str, int] = {}

    def encoded(out: str) -> str:
        lines = []
        for line in out.split("\n") if out else []:
            m = _PTXAS_LINE.fullmatch(line)
            lines.append([int(m.group(1)), messages.setdefault(m.group(2), len(messages))] if m else line)
        return orjson.dumps(lines).decode()

    rows = ["\t".join((*k[:4], str(int(k[4])), str(int(k[5])), k[6],
                       str(distinct.setdefault(encoded(outputs[k]), len(distinct))))) for k in sorted(outputs)]
    header = [f"# ptxas's output for arch-gated CUDA variants on targets without the feature (recorded by `{COMMAND}`;",
              "# an empty output: the render compiled, the catalog's gating is wrong for it)",
              f"# tool: {version}",
              *(f"# message {i}: {orjson.dumps(text).decode()}" for text, i in messages.items()),
              *(f"# output {i}: {lines}" for lines, i in distinct.items()),
              "# op\tvariant\tdtype\tarch\tunroll\trestrict\tdigest\toutput (K of `# output K`: a JSON list of lines, "
              "[PTX line, message] is `ptxas {ptx}, line N; <message>`, {ptx} = the temporary PTX file)"]
    return "\n".join(header + rows) + "\n"


@lru_cache(maxsize=1)
def read_table(path: Path = TABLE) -> tuple[str, dict[tuple, str]]:
    """(recorded tool version, {key: output})."""
    version, table, messages, outputs = "", {}, [], []
    if not path.is_file():
        return version, table
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# tool: "):
            version = line[len("# tool: "):]
        elif line.startswith("# message "):
            messages.append(orjson.loads(line.split(": ", 1)[1]))
        elif line.startswith("# output "):
            outputs.append("\n".join(f"ptxas {PTX}, line {part[0]}; {messages[part[1]]}" if isinstance(part, list)
                                     else part for part in orjson.loads(line.split(": ", 1)[1])))
        elif line and not line.startswith("#"):
            op, tag, dtype, arch, unroll, restrict, digest, out = line.split("\t")
            table[(op, tag, dtype, arch, unroll == "1", restrict == "1", digest)] = outputs[int(out)]
    return version, table


def arch_block(source, task, variant) -> tuple[str, str] | None:
    """(first line, the rest) of what nvcc prints for this gated source of `task` on its target, from the table
    (None when not recorded, or recorded as compiling)."""
    k = key(task, variant, *codegen(source.text))
    out = read_table()[1].get(k)
    if not out:
        return None
    arch = source.compile_arch
    if k[3] != arch:
        out = out.replace(f"'{k[3]}'", f"'{arch}'")
    crc = zlib.crc32(source.text.encode())
    ptx = f"/tmp/tmpxft_{crc >> 16:08x}_00000000-6_{source.filename.rsplit('.', 1)[0]}.ptx"
    first, _, rest = out.replace(PTX, ptx).partition("\n")
    return first, rest
