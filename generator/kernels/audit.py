"""`python -m generator audit-compile (DIR | --catalog)`: do the real compilers agree with what we predicted?

Every candidate carries an expected outcome (ok / wrong_result compile cleanly; compile errors name a tool, a
kind and, for nvcc and Triton, a line). The audit compiles a stratified sample with real nvcc (`-cubin`,
explicit `-gencode`) and Triton (offline `triton.compile`), classifies the real first diagnostic, and reports
the agreement rate and every disagreement. `--catalog` samples the renderer directly (op x impl x arch x outcome
kind); DIR samples the candidates stored in a generated folder of any dataset (its descriptor's `compiled_steps`:
source, status, feedback = expectation). Launch failures (status launch_error) are "compiles, launch refused": they agree
when the source compiles and, for a register refusal, ptxas -v reports the quoted registers.
"""
from __future__ import annotations

import argparse
import difflib
import math
import os
import re
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import orjson

from generator.kernels import Source, TemplateError, full_params
from generator.kernels import compilers, record_arch, triton_dot
from generator.kernels.templating import EXTENSIONS, TEMPLATE_ROOT
from generator.kernels.faults import OUTCOME_KINDS, TEXT_KINDS, Expected, NoFaultSite, applicable_kinds
from generator.catalog.hardware import GPUS
from generator.catalog.resources import read_table, read_triton_table
from generator.catalog.variants import launch_limits
from generator.catalog.variants import legal_on, variants_for
from generator.kernels.faults import expect_clean, inject
from generator.kernels.record_resources import ptxas_usage
from generator.kernels.style import draw_style
from generator.catalog.tasks import all_tasks
from generator.kernels import render
from generator.kernels.record_resources import COMMAND, tool_version, triton_version
from generator.kernels.record_diagnostics import COMMAND as DIAGNOSTICS_COMMAND, read_table as read_diagnostics_table
from generator.sim.feedback import feedback_text
from generator.layout import SHARD_PATTERN

MISSING_TEMPLATES: set[str] = set()   # variants the catalog skipped because no template file exists yet
RENDER_ERRORS: dict[str, str] = {}    # op/impl/variant -> why its template did not render
ARCH_OF = {"h100": "sm_90a", "a100": "sm_80", "a10": "sm_86", "rtx_5090": "sm_120a"}   # one GPU per arch

_KIND_PATTERNS = (
    ("undefined_identifier", r'identifier ".*" is undefined|NameError\('),
    ("missing_semicolon", r'expected a ";"'),
    ("type_mismatch", r"no suitable constructor exists|cannot be used to initialize|no suitable conversion"),
    ("wrong_template_arg", r"no instance of function template"),
    ("static_smem_overflow", r"uses too much shared data"),
    ("arch_unsupported", r"not supported on \.target|requires \.target sm_|cannot be compiled for architecture"),
    ("triton_fp8_unsupported", r"fp8e4nv not supported in this architecture"),
    ("triton_dot_shape", r"Input shapes should have M >= \d+, N >= \d+ and K >= \d+"),
    ("triton_compilation_error", r"^at \d+:\d+:"),
    ("triton_out_of_resources", r"OutOfResources|out of resource: shared memory"),
    ("dyn_smem_over_cap", r"CUDA error: "),
)


def diagnostic_kind(line: str) -> str:
    """The fault kind a first diagnostic line belongs to ('other' if none)."""
    for kind, pattern in _KIND_PATTERNS:
        if re.search(pattern, line):
            return kind
    return "other"


def _same_kind(expected_kind: str, real_kind: str) -> bool:
    triton = {"triton_compilation_error", "undefined_identifier"}   # Triton NameError is its compilation error
    return expected_kind == real_kind or (expected_kind in triton and real_kind in triton)


@dataclass
class Candidate:
    id: str
    source: Source
    expected: Expected
    meta: dict            # op, impl, gpu, arch, variant, stratum kind
    block: str = ""       # the whole diagnostic the row prints (compile errors only)


@dataclass
class Verdict:
    id: str
    meta: dict
    expected_status: str
    expected_kind: str | None
    expected_first: str
    real_status: str
    real_tool: str
    real_kind: str | None
    real_first: str
    agree: bool
    exact_text: bool
    why: str
    seconds: float
    real_shared: int | None     # Triton: shared memory the compiled kernel needs (calibrates smem models)
    full_block: bool | None = None   # compile errors: the row's whole diagnostic is what the tool printed
    block_diff: str = ""             # where it is not: the row's block against the tool's, as a unified diff


def judge(c: Candidate, out: compilers.Outcome) -> Verdict:
    """Compare one expectation with what the compiler did."""
    exp = c.expected
    compiles_expected = (exp.status in ("ok", "wrong_result")
                         or exp.status == "launch_error" and exp.kind != "triton_out_of_resources")
    real_kind = diagnostic_kind(out.first) if out.status != "ok" else None
    why, exact = "", False
    if compiles_expected:
        agree = out.status == "ok"
        if not agree:
            why = "expected to compile, failed"
    elif out.status == "ok":
        agree, why = False, "expected a compile error, compiled"
    else:
        agree = _same_kind(exp.kind or "", real_kind or "")
        if not agree:
            why = f"kind differs: expected {exp.kind}, got {real_kind}"
        elif exp.tool == "nvcc":
            real_line = re.match(r"\S+\((\d+)\):", out.first)
            agree = bool(real_line) and int(real_line.group(1)) == exp.line
            exact = out.first == exp.message
            why = "" if agree else f"line differs: expected {exp.line}, got {real_line and real_line.group(1)}"
        elif exp.tool == "triton":
            at = re.match(r"at \d+:\d+:", out.first)
            agree = bool(at) and out.first.startswith(exp.message)
            last = exp.context.splitlines()[-1] if exp.context else ""
            exact = agree and out.first.endswith(last)
            why = "" if agree else f"position differs: expected {exp.message}, got {at and at.group(0)}"
        elif exp.kind == "triton_out_of_resources":   # the quoted figures are Triton's, as its launcher prints them
            quoted, real = _REQUIRED.search(exp.message), _REQUIRED.search(out.first)
            agree = exact = bool(quoted and real) and quoted.groups() == real.groups()
            why = "" if agree else (f"shared memory differs: quoted {quoted and quoted.groups()}, "
                                    f"Triton needs {real and real.groups()}")
        else:   # ptxas / runtime: PTX lines and byte counts are not source positions, the kind is the check
            exact = _strip_ptx_where(out.first) == _strip_ptx_where(exp.message)
    full, diff = None, ""
    if exp.status == "compile_error" and out.status == "compile_error" and c.block:
        row, printed = normalize_block(c.block), normalize_block(printed_block(out))
        full = row == printed
        if not full:
            diff = "\n".join(difflib.unified_diff(row.splitlines(), printed.splitlines(), "row", "tool", lineterm=""))
    return Verdict(c.id, c.meta, exp.status, exp.kind, exp.message, out.status, out.tool, real_kind, out.first,
                   agree, exact, why, round(out.seconds, 3), out.shared, full, diff)


_TEMP_NAME = re.compile(r"/tmp/tmpxft_[0-9a-f]+_[0-9a-f]+-\d+_")


def printed_block(out: compilers.Outcome) -> str:
    """What the user sees of a failed compile: nvcc's and ptxas's whole output; Triton's CompilationError as the
    traceback's last line prints it."""
    if out.tool == "triton":
        return f"triton.compiler.errors.CompilationError: {out.output}"
    return out.output


def normalize_block(text: str) -> str:
    """Only what differs from run to run: temporary file names (nvcc's tmpxft_ PTX files), trailing blanks."""
    lines = [ln.rstrip() for ln in _TEMP_NAME.sub("/tmp/tmpxft_N_", text).strip("\n").splitlines()]
    return "\n".join(lines).strip()


_REQUIRED = re.compile(r"Required: (\d+), Hardware limit: (\d+)")


def _strip_ptx_where(line: str) -> str:
    return re.sub(r"^ptxas \S+, line \d+; ", "ptxas ", line)


# ---- catalog sampling ------------------------------------------------------------------------------------

def _legal_params(variant, task, gpu, rng, *, want_fail: bool):

    combos = variant.all_params()
    if want_fail:   # over the limit with the smallest tiles (compile time grows with tile size), then least smem
        failing = [(math.prod(v for k, v in p.items() if k.startswith("BLOCK")), variant.smem_bytes(p, task.dtype, task), i)
                   for i, p in enumerate(combos)
                   if (r := launch_limits(variant, p, gpu, task.dtype, task)) and ("shared memory" in r or "invalid argument" in r)]
        return combos[min(failing)[2]] if failing else None
    for i in rng.permutation(len(combos)):
        p = combos[int(i)]
        if launch_limits(variant, p, gpu, task.dtype, task) is None:
            return p
    return None


def _small_dot(variant, dtype: str) -> bool:
    """Whether some configuration of the variant is an 8-bit `tl.dot` Triton refuses (triton_dot)."""
    return "BLOCK_K" in variant.params and triton_dot.refuses(dtype, {"BLOCK_K": min(variant.params["BLOCK_K"])})


def catalog_candidates(n: int, seed: int) -> list[Candidate]:
    """A stratified sample: strata (op, impl, arch, outcome kind), visited kind by kind, wide coverage first."""

    rng = np.random.default_rng(np.random.SeedSequence([seed, 7301]))
    tasks: dict[tuple, object] = {}
    for t in all_tasks():
        if t.gpu in ARCH_OF:
            tasks.setdefault((t.op, t.impl, t.gpu), t)
    strata: dict[str, list[tuple]] = {}
    for (op, impl, gpu_name), task in sorted(tasks.items()):
        gpu = GPUS[gpu_name]
        for v in variants_for(op, impl, task.dtype):
            if not (TEMPLATE_ROOT / impl / v.kernel_class / f"{v.tag}{EXTENSIONS[impl][0]}").is_file():
                MISSING_TEMPLATES.add(f"{impl}/{v.kernel_class}/{v.tag}")
                continue
            legal = legal_on(v, gpu, task.dtype)
            kinds = ["ok"]
            if not legal:
                kinds = ["arch_unsupported"] if impl == "cuda" else []
                if impl == "triton" and task.dtype == "fp8":
                    kinds = ["triton_fp8_unsupported"]
            else:
                kinds += list(TEXT_KINDS[impl]) + ["dyn_smem_over_cap" if impl == "cuda" else "triton_out_of_resources"]
                if impl == "triton" and _small_dot(v, task.dtype):
                    kinds.append("triton_dot_shape")
            for kind in kinds:
                strata.setdefault(kind, []).append((task, v, gpu))
    for items in strata.values():
        rng.shuffle(items)
    out: list[Candidate] = []
    covered: dict[tuple, int] = {}
    cursors = {k: 0 for k in strata}
    kinds = sorted(strata)
    while len(out) < n:
        progressed = False
        for kind in kinds:
            items = strata[kind]
            for _attempt in range(12):      # a stratum entry may have no site for this kind: try the next
                if len(out) >= n or cursors[kind] >= 3 * len(items):
                    break
                # among the next few entries, the (op, impl, arch) this kind has covered least
                window = [items[(cursors[kind] + j) % len(items)] for j in range(min(8, len(items)))]
                task, v, gpu = min(window, key=lambda x: covered.get((x[0].op, x[0].impl, x[2].arch, kind), 0))
                cursors[kind] += 1
                cand = _make(task, v, gpu, kind, rng, render, inject, expect_clean, len(out))
                if cand is not None:
                    key = (task.op, task.impl, gpu.arch, kind)
                    covered[key] = covered.get(key, 0) + 1
                    out.append(cand)
                    progressed = True
                    break
        if not progressed:
            break
    return out


def _make(task, v, gpu, kind, rng, render, inject, expect_clean, index) -> Candidate | None:

    want_fail = kind in ("dyn_smem_over_cap", "triton_out_of_resources")
    params = v.default_params()
    # faults are made in default-parameter renders (typical, and quick to compile); "ok" samples the space
    if kind == "ok" or want_fail or (kind != "arch_unsupported" and launch_limits(v, params, gpu, task.dtype, task)):
        params = _legal_params(v, task, gpu, rng, want_fail=want_fail)
    if params is None:
        return None
    if kind == "triton_dot_shape":    # the smallest K block of the grid, the rest as sampled
        params = {**params, "BLOCK_K": min(v.params["BLOCK_K"])}
    try:   # in a sampled engineer's style, as the datasets write every candidate
        source = render(task, v, params, style=draw_style(rng, task.impl))
    except TemplateError as exc:
        RENDER_ERRORS.setdefault(f"{task.op}/{task.impl}/{v.tag}", str(exc))
        return None
    expected = expect_clean(source, task, v, params)
    if kind in TEXT_KINDS[task.impl] and kind not in OUTCOME_KINDS:
        if expected.status != "ok" or kind not in applicable_kinds(source):
            if not (kind == "triton_fp8_unsupported" and expected.kind == kind):
                return None
        else:
            try:
                source, expected = inject(source, kind, rng)
            except NoFaultSite:
                return None
    elif kind != "ok" and expected.kind != kind:
        return None
    elif kind == "ok" and expected.status != "ok":
        return None
    meta = {"op": task.op, "impl": task.impl, "gpu": gpu.name, "arch": source.compile_arch, "variant": v.tag,
            "dtype": task.dtype, "params": params, "stratum": kind}
    block = feedback_text(None, expected) if expected.status == "compile_error" else ""
    return Candidate(f"c{index:05d}", source, expected, meta, block)


# ---- dataset folder sampling -----------------------------------------------------------------------------

_FIRST = re.compile(r"^\S+\(\d+\): (?:catastrophic )?error: .*$|^ptxas\b.*\berror\s+: .*$|"
                    r"^triton\.compiler\.errors\.CompilationError: (at \d+:\d+:)$|"
                    r"OutOfResources: .*$|RuntimeError: (CUDA error: .*)$", re.M)


def expected_from_feedback(status: str, text: str) -> Expected:
    """Rebuild the expectation of a stored step from its trace status and feedback text."""
    if status not in ("compile_error", "launch_error"):
        return Expected(status, None, "check", None, "")
    m = _FIRST.search(text)
    if not m:
        return Expected(status, "other", "nvcc", None, text.splitlines()[0] if text else "")
    line = m.group(0)
    if m.group(1):
        after = text[m.end():].splitlines()
        last = next((x for x in reversed(after) if x.strip()), "")
        kind = diagnostic_kind(last)
        return Expected(status, kind if kind in ("triton_fp8_unsupported", "triton_dot_shape")
                        else "triton_compilation_error", "triton", None, m.group(1), last)
    if m.group(2) or "OutOfResources" in line:
        kind = "triton_out_of_resources" if "OutOfResources" in line else "dyn_smem_over_cap"
        return Expected(status, kind, "runtime", None, line, text)
    tool = "ptxas" if line.startswith("ptxas") else "nvcc"
    num = re.match(r"\S+\((\d+)\):", line)
    return Expected(status, diagnostic_kind(line), tool, int(num.group(1)) if num else None, line)


def _folder_dataset(folder: Path, first_row: dict):
    """The registered dataset whose rows the folder holds (its merged file, or its rows' id field)."""
    from generator.registry import DATASETS

    for d in DATASETS.values():
        if d.compiled_steps is not None and ((folder / d.merged_file).is_file() or d.id_field in first_row):
            return d
    return None


def refusal_figures(row: dict, step) -> str:
    """The figures behind a CUDA launch refusal, whose report prints only the runtime's error string: the refusal
    the generator derives for the step's configuration (`variants.launch_limits`), so a register claim is still
    checked against ptxas -v (`_check_register_claims`); "" where it derives none."""
    from generator.check.reports import task_of
    task = task_of(row)
    variant = next(v for v in variants_for(task.op, task.impl, task.dtype) if v.tag == step.variant)
    return launch_limits(variant, full_params(variant, step.params), GPUS[task.gpu], task.dtype, task) or ""


def folder_candidates(folder: Path, n: int, seed: int, *, compile_errors: bool = False,
                      kinds: frozenset[str] | None = None) -> list[Candidate]:
    """Compiled candidates of the folder's rows (any registered dataset: its descriptor's `compiled_steps`),
    stratified by (op, impl, arch, status/kind); `compile_errors`: only the compile errors (the whole-diagnostic
    check's sample); `kinds`: only the steps of those kinds (e.g. the launch refusals, to check a sample of every
    claim of one kind)."""
    from generator.registry import DATASETS

    merged = [folder / d.merged_file for d in DATASETS.values()]
    files = sorted(folder.glob(SHARD_PATTERN)) or [f for f in merged if f.is_file()]
    if not files:
        raise SystemExit(f"audit-compile: {folder}: no {SHARD_PATTERN} or {' / '.join(f.name for f in merged)} "
                         "(not a generated dataset folder)")
    strata: dict[tuple, list[Candidate]] = {}
    dataset = None
    for path in files:
        with open(path, "rb") as fh:
            for line_no, raw in enumerate(fh, 1):
                try:
                    row = orjson.loads(raw)
                    dataset = dataset or _folder_dataset(folder, row)
                    if dataset is None:
                        raise KeyError("no registered dataset has these rows")
                    steps = list(dataset.compiled_steps(row))
                except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as exc:
                    what = f"{dataset.name} {dataset.row_unit}" if dataset else "dataset"
                    raise SystemExit(f"{path}:{line_no}: not a {what} row: {exc}")
                for step in steps:
                    if compile_errors and step.status != "compile_error":
                        continue
                    exp = expected_from_feedback(step.status, step.feedback)
                    if exp.kind == "dyn_smem_over_cap":
                        exp = replace(exp, context=refusal_figures(row, step))
                    kind = exp.kind or exp.status
                    if kinds is not None and kind not in kinds:
                        continue
                    arch = row["arch"]   # the stated target, compiled as stated: never substituted
                    if row["impl"] == "triton":
                        arch = f"sm_{GPUS[row['gpu']].cc}"
                    name = re.match(r"(\S+?)\(\d+\):", exp.message)
                    filename = name.group(1) if name else f"{row['op']}_{step.variant}.{'cu' if row['impl'] == 'cuda' else 'py'}"
                    src = Source(step.text, filename, row["impl"], arch)
                    meta = {"op": row["op"], "impl": row["impl"], "gpu": row["gpu"], "arch": arch,
                            "variant": step.variant, "row": row.get(dataset.id_field), "step": step.label,
                            "stratum": kind, "file": f"{path.name}:{line_no}"}
                    key = (row["op"], row["impl"], arch, kind)
                    strata.setdefault(key, []).append(Candidate("", src, exp, meta, step.feedback))
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7302]))
    keys = sorted(strata)
    for k in keys:
        rng.shuffle(strata[k])
    out, depth = [], 0
    while len(out) < n and any(depth < len(strata[k]) for k in keys):
        for k in keys:
            if depth < len(strata[k]) and len(out) < n:
                c = strata[k][depth]
                c.id = f"s{len(out):05d}"
                out.append(c)
        depth += 1
    return out


# ---- running ----------------------------------------------------------------------------------------------

def audit(candidates: list[Candidate], *, jobs: int = 2, log=None) -> dict:
    """Compile every candidate and return the report (agreement, per-kind table, disagreements)."""
    cuda = [c for c in candidates if c.source.lang == "cuda"]
    triton = [c for c in candidates if c.source.lang == "triton"]
    verdicts: list[Verdict] = []
    skipped = {}
    start = time.perf_counter()
    if cuda:
        if compilers.nvcc_path() is None:
            skipped["cuda"] = "nvcc not found"
        else:
            # compile errors alone: their whole output is compared with the row's diagnostic
            modes = ["ok" if c.expected.status != "compile_error" or c.expected.tool == "runtime" else "alone"
                     for c in cuda]
            outs = compilers.compile_cuda([c.source for c in cuda], modes=modes, jobs=jobs)
            # a batch can mislead (one source's broken braces spill into the next): confirm alone
            again = [i for i, (c, o) in enumerate(zip(cuda, outs)) if modes[i] != "alone" and not judge(c, o).agree]
            if again:
                alone = compilers.compile_cuda([cuda[i].source for i in again], modes=["alone"] * len(again), jobs=jobs)
                for i, o in zip(again, alone):
                    outs[i] = o
            cuda_verdicts = [judge(c, o) for c, o in zip(cuda, outs)]
            _check_register_claims(cuda, cuda_verdicts)
            verdicts += cuda_verdicts
    if triton:
        why = compilers.triton_unavailable()
        if why:
            skipped["triton"] = why
        else:
            outs = compilers.compile_triton([c.source for c in triton], jobs=jobs)
            verdicts += [judge(c, o) for c, o in zip(triton, outs)]
    verdicts.sort(key=lambda v: v.id)
    timed_out = [v for v in verdicts if v.real_status == "timeout"]   # no verdict: the machine was too busy
    verdicts = [v for v in verdicts if v.real_status != "timeout"]
    n = len(verdicts)
    agree = sum(v.agree for v in verdicts)
    by_kind: dict[str, dict] = {}
    for v in verdicts:
        row = by_kind.setdefault(f"{v.meta['impl']}:{v.meta['stratum']}",
                                 {"n": 0, "agree": 0, "exact_text": 0, "blocks": 0, "full_block": 0})
        row["n"] += 1
        row["agree"] += v.agree
        row["exact_text"] += v.exact_text
        row["blocks"] += v.full_block is not None
        row["full_block"] += bool(v.full_block)
    ok_cuda = [v for v in verdicts if v.meta["impl"] == "cuda" and v.expected_status != "compile_error"]
    blocks = [v for v in verdicts if v.full_block is not None]
    return {
        "kernels": n, "agree": agree, "agreement": round(agree / n, 4) if n else None,
        "compile_error_blocks": len(blocks), "full_block_agree": sum(v.full_block for v in blocks),
        "expected_ok_cuda": len(ok_cuda), "expected_ok_cuda_compiled": sum(v.real_status == "ok" for v in ok_cuda),
        "seconds": round(time.perf_counter() - start, 1), "skipped": skipped,
        "timed_out": [f"{v.id} {v.meta['op']}/{v.meta['impl']}/{v.meta['arch']}/{v.meta['variant']}" for v in timed_out],
        "missing_templates": sorted(MISSING_TEMPLATES), "render_errors": dict(sorted(RENDER_ERRORS.items())),
        "strata": sorted({(v.meta["op"], v.meta["impl"], v.meta["arch"], v.meta["stratum"]) for v in verdicts}).__len__(),
        "by_kind": dict(sorted(by_kind.items())),
        "disagreements": [asdict(v) for v in verdicts if not v.agree],
        "kernels_detail": [asdict(v) for v in verdicts],
    }


_REG_CLAIM = re.compile(r"(\d+) registers x (\d+) threads > (\d+)")


def _check_register_claims(cuda: list[Candidate], verdicts: list[Verdict]) -> None:
    """A claimed register launch failure agrees only when ptxas -v reports the quoted count and it really
    exceeds the quoted limit."""
    import tempfile

    for c, v in zip(cuda, verdicts):
        m = _REG_CLAIM.search(f"{c.expected.message}\n{c.expected.context}")
        if not m:
            continue
        regs, threads, limit = map(int, m.groups())
        with tempfile.TemporaryDirectory(prefix="ks_audit_regs_") as tmp:
            real = ptxas_usage([c.source], Path(tmp))[0][0]
        v.real_first = f"ptxas -v: {real} registers"
        if real != regs or real * threads <= limit:
            v.agree, v.why = False, f"register claim: quoted {regs} x {threads}, ptxas reports {real} registers"
        v.exact_text = v.agree


def resource_table_note() -> str | None:
    """A warning when resources.tsv, diagnostics.tsv, arch_diagnostics.tsv / triton_smem.tsv were recorded with
    another nvcc / Triton than the installed ones."""
    notes = []
    installed = tool_version()
    for table, read, command in (("resources.tsv", read_table, COMMAND),
                                 ("diagnostics.tsv", read_diagnostics_table, DIAGNOSTICS_COMMAND),
                                 ("arch_diagnostics.tsv", record_arch.read_table, record_arch.COMMAND)):
        recorded = read()[0]
        if installed and recorded != installed:
            notes.append(f"audit-compile: WARNING {table} was recorded with {recorded!r}, installed nvcc is "
                         f"{installed!r}: rerun `{command}`")
    recorded = read_triton_table()[0]
    installed = triton_version() if compilers.triton_unavailable() is None else ""
    if installed and recorded != installed:
        notes.append(f"audit-compile: WARNING triton_smem.tsv was recorded with {recorded!r}, installed is "
                     f"{installed!r}: rerun `{COMMAND} --triton`")
    return "\n".join(notes) or None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", nargs="?", type=Path, help="a generated dataset folder (any dataset)")
    parser.add_argument("--catalog", action="store_true", help="audit the renderer directly (no dataset needed)")
    parser.add_argument("--sample", type=int, default=500, help="number of kernels to compile (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel compiles (default: cores)")
    parser.add_argument("--compile-errors", action="store_true",
                        help="DIR: sample only compile errors (their whole diagnostics are compared with the tools')")
    parser.add_argument("--json", type=Path, help="write the full report (every kernel, every disagreement) here")
    parser.add_argument("--kinds", help="DIR: only steps of these kinds, comma-separated, as the report's table "
                        "names them (ok, wrong_result, or a diagnostic kind: triton_out_of_resources, dyn_smem_over_cap "
                        "for every CUDA launch refusal, ...)")


def run(args) -> int:
    """Exit 0: full agreement; 1: disagreements (listed); 2: usage or input error."""
    if bool(args.dir) == bool(args.catalog):
        print("audit-compile: give a dataset DIR or --catalog (not both)", file=sys.stderr)
        return 2
    if args.sample < 1:
        print("audit-compile: --sample must be >= 1", file=sys.stderr)
        return 2
    if args.dir and not args.dir.is_dir():
        print(f"audit-compile: {args.dir}: not a directory", file=sys.stderr)
        return 2
    try:
        cands = (catalog_candidates(args.sample, args.seed) if args.catalog else
                 folder_candidates(args.dir, args.sample, args.seed, compile_errors=args.compile_errors,
                                   kinds=frozenset(args.kinds.split(",")) if args.kinds else None))
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    report = audit(cands, jobs=args.jobs)
    note = resource_table_note()
    if note:
        print(note)
    if report["missing_templates"]:
        print(f"audit-compile: {len(report['missing_templates'])} variants have no template yet (skipped): "
              f"{', '.join(report['missing_templates'][:12])}{' ...' if len(report['missing_templates']) > 12 else ''}")
    for name, why in report["render_errors"].items():
        print(f"RENDER ERROR {name}: {why}")
    if report["timed_out"]:
        print(f"audit-compile: {len(report['timed_out'])} compiles did not finish even when retried alone (not "
              f"judged; rerun on a quieter machine): {', '.join(report['timed_out'])}")
    for name, why in report["skipped"].items():
        print(f"audit-compile: skipped {name}: {why}")
    for d in report["disagreements"]:
        m = d["meta"]
        print(f"DISAGREE {d['id']} {m['op']}/{m['impl']}/{m['arch']}/{m['variant']} [{m['stratum']}]: {d['why']}\n"
              f"  expected: {d['expected_first'] or d['expected_status']}\n  real:     {d['real_first'] or d['real_status']}")
    for kind, row in report["by_kind"].items():
        blocks = f", whole diagnostic {row['full_block']}/{row['blocks']}" if row["blocks"] else ""
        print(f"  {kind:40s} {row['agree']:4d}/{row['n']:<4d} agree  ({row['exact_text']} exact text{blocks})")
    print(f"audit-compile: {report['agree']}/{report['kernels']} agree ({100 * (report['agreement'] or 0):.1f}%), "
          f"expected-ok CUDA compiled {report['expected_ok_cuda_compiled']}/{report['expected_ok_cuda']}, "
          f"{report['strata']} strata, {report['seconds']} s; whole compile-error diagnostics as printed "
          f"{report['full_block_agree']}/{report['compile_error_blocks']}")
    if args.json:
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2))
        tmp.replace(args.json)
    return 0 if not report["disagreements"] and report["kernels"] else 1
