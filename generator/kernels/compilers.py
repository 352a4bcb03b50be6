"""Offline compile drivers: real nvcc (`-cubin`, explicit `-gencode`) and Triton (`triton.compile` to a cubin).

nvcc: a translation unit costs ~0.4 s, mostly fixed; many kernels in one TU are ~8x cheaper each. So sources
expected to compile go in batches (each wrapped in its own namespace, `#include`s hoisted, macros undefined
after it); a batch that fails is recompiled one source at a time so every source gets its own diagnostics.
Triton: each source is written to a module file (the @triton.jit functions need real source lines), imported
in a worker process, and every `*_kernel` is compiled for `GPUTarget("cuda", cc, 32)`. Shared memory over the
hardware limit is only detected at launch by Triton, so it is checked here against `metadata.shared`.
"""
from __future__ import annotations

import concurrent.futures as cf
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from generator.kernels import Source
from generator.kernels.faults import TRITON_SMEM_LIMIT

# A pathological source (e.g. a huge fully unrolled loop) must not stall the audit: it is reported instead.
BATCH_TIMEOUT_S = 60.0
SINGLE_TIMEOUT_S = 40.0
_NVCC_ERROR = re.compile(r"^\S+\(\d+\): (?:catastrophic )?error: .*$|^ptxas\b.*\berror\s+: .*$", re.M)


@dataclass(frozen=True)
class Outcome:
    """What a real compiler did with one source."""

    status: str          # ok | compile_error
    tool: str            # nvcc | ptxas | triton | runtime | python ("" when ok)
    first: str           # the first error line as printed ("" when ok)
    output: str          # the tool's whole output, or the exception text
    shared: int | None = None   # Triton: bytes of shared memory the kernel needs
    seconds: float = 0.0


def nvcc_path() -> str | None:
    found = shutil.which("nvcc")
    for candidate in (found, "/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def triton_unavailable() -> str | None:
    """None when Triton can compile here, else why not."""
    if importlib.util.find_spec("triton") is None:
        return "Triton is not installed (pip install '.[audit]')"
    try:
        from triton.backends.compiler import GPUTarget  # noqa: F401
        from triton.compiler import ASTSource  # noqa: F401
    except Exception as exc:  # a broken install must not break the CUDA audit
        return f"Triton is installed but cannot be used: {type(exc).__name__}: {exc}"
    return None


def gencode(arch: str) -> list[str]:
    """`-gencode arch=compute_90a,code=sm_90a` (never the -arch shorthand, which also checks generic PTX)."""
    return ["-gencode", f"arch=compute_{arch[3:]},code={arch}"]


def _nvcc_outcome(rc: int, output: str, seconds: float) -> Outcome:
    if rc == 0:
        return Outcome("ok", "", "", output, seconds=seconds)
    m = _NVCC_ERROR.search(output)
    first = m.group(0) if m else next((ln for ln in output.splitlines() if ln.strip()), f"nvcc exited {rc}")
    return Outcome("compile_error", "ptxas" if first.startswith("ptxas") else "nvcc", first, output, seconds=seconds)


def _run_nvcc(nvcc: str, path: Path, arch: str, timeout: float) -> Outcome:
    start = time.perf_counter()
    try:
        proc = subprocess.run([nvcc, "-cubin", *gencode(arch), path.name, "-o", path.stem + ".cubin"],
                              cwd=path.parent, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        msg = f"nvcc: compile of {path.name} did not finish within {timeout:.0f} s"
        return Outcome("compile_error", "nvcc", msg, msg, seconds=time.perf_counter() - start)
    return _nvcc_outcome(proc.returncode, proc.stdout + proc.stderr, time.perf_counter() - start)


def batch_unit(sources: list[Source]) -> tuple[str, list[int]]:
    """One TU holding every source in its own namespace (their file-scope names would clash otherwise), and
    for each source the offset to add to its line numbers to get the batch file's."""
    includes: dict[str, None] = {}
    bodies, defines = [], []
    for src in sources:
        lines, defined = [], []
        for line in src.text.split("\n"):
            if re.match(r"\s*#\s*include\b", line):
                includes[line.strip()] = None
                lines.append("")
                continue
            d = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)", line)
            if d:
                defined.append(d.group(1))
            lines.append(line)
        bodies.append(lines)
        defines.append(dict.fromkeys(defined))
    out = list(includes)
    offsets = []
    for i, (lines, defined) in enumerate(zip(bodies, defines)):
        out.append(f"namespace ks_{i} {{")
        offsets.append(len(out))
        out += lines
        out.append(f"}}  // namespace ks_{i}")
        out += [f"#undef {name}" for name in defined]
    return "\n".join(out) + "\n", offsets


_NAMESPACE = re.compile(r"\bks_[0-9]+::")
_BATCH_ERROR = re.compile(r"^batch\.cu\((\d+)\): (error: .*)$", re.M)


def _split_frontend_errors(output: str, sources: list[Source], offsets: list[int]) -> list[Outcome | None]:
    """Each source's first front-end error in a batch's output, renamed to its own file and line."""
    found: list[Outcome | None] = [None] * len(sources)
    ends = offsets[1:] + [10 ** 9]
    for m in _BATCH_ERROR.finditer(output):
        line = int(m.group(1))
        i = next((k for k, (a, b) in enumerate(zip(offsets, ends)) if a < line <= b - 1), None)
        if i is not None and found[i] is None:
            local = line - offsets[i]
            first = f"{sources[i].filename}({local}): {_NAMESPACE.sub('', m.group(2))}"
            found[i] = Outcome("compile_error", "nvcc", first, output)
    return found


def _cuda_batch(nvcc: str, sources: list[Source], workdir: Path, tag: str, mode: str) -> list[Outcome]:
    """Compile a batch in one TU. `ok` batches that fail, and `frontend` sources whose error cannot be found
    in the batch output, are compiled alone so every source gets its own diagnostics."""
    results: list[Outcome | None] = [None] * len(sources)
    if len(sources) > 1:
        batch_dir = workdir / f"batch_{tag}"
        batch_dir.mkdir()
        path = batch_dir / "batch.cu"
        text, offsets = batch_unit(sources)
        path.write_text(text, encoding="utf-8")
        outcome = _run_nvcc(nvcc, path, sources[0].compile_arch, BATCH_TIMEOUT_S)
        share = outcome.seconds / len(sources)
        if outcome.status == "ok":
            return [Outcome("ok", "", "", "", seconds=share) for _ in sources]
        if mode == "frontend" and outcome.tool == "nvcc" and "catastrophic" not in outcome.output:
            results = [r and Outcome(r.status, r.tool, r.first, r.output, seconds=share)
                       for r in _split_frontend_errors(outcome.output, sources, offsets)]
    for i, src in enumerate(sources):
        if results[i] is None:
            one = workdir / f"one_{tag}_{i}"
            one.mkdir()
            path = one / src.filename
            path.write_text(src.text, encoding="utf-8")
            results[i] = _run_nvcc(nvcc, path, src.compile_arch, SINGLE_TIMEOUT_S)
    return results  # type: ignore[return-value]


MODES = ("ok", "frontend", "alone")


def compile_cuda(sources: list[Source], *, modes: list[str] | None = None, jobs: int = 2,
                 batch_size: int = 12) -> list[Outcome]:
    """Compile each source for its `compile_arch`. modes[i]: "ok" (expected to compile: batched), "frontend"
    (an nvcc front-end error is expected: batched, errors split per source), "alone" (ptxas errors and
    anything else: one TU each, since ptxas names PTX lines and stops the batch)."""
    nvcc = nvcc_path()
    if nvcc is None:
        raise RuntimeError("nvcc not found (looked on PATH, /usr/local/cuda/bin, /usr/local/bin)")
    modes = modes if modes is not None else ["alone"] * len(sources)
    if set(modes) - set(MODES):
        raise ValueError(f"unknown compile mode(s) {sorted(set(modes) - set(MODES))}; known: {MODES}")
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (src, mode) in enumerate(zip(sources, modes)):
        groups.setdefault((src.compile_arch, mode), []).append(i)
    chunks = []
    for (_arch, mode), idx in sorted(groups.items()):
        size = 1 if mode == "alone" else batch_size
        chunks += [(mode, idx[k:k + size]) for k in range(0, len(idx), size)]
    results: list[Outcome | None] = [None] * len(sources)
    with tempfile.TemporaryDirectory(prefix="ks_nvcc_") as tmp, cf.ThreadPoolExecutor(max(1, jobs)) as pool:
        futures = {pool.submit(_cuda_batch, nvcc, [sources[i] for i in chunk], Path(tmp), str(n), mode): chunk
                   for n, (mode, chunk) in enumerate(chunks)}
        for fut in cf.as_completed(futures):
            for i, outcome in zip(futures[fut], fut.result()):
                results[i] = outcome
    return results  # type: ignore[return-value]


# ---- Triton ----------------------------------------------------------------------------------------------

def _triton_worker_init(cache_dir: str) -> None:
    os.environ["TRITON_CACHE_DIR"] = cache_dir
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def _compile_triton_one(text: str, filename: str, cc: int, index: int) -> Outcome:
    """Import the module from a real file and compile every `*_kernel` in it, in definition order."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.errors import CompilationError
    from triton.runtime.jit import JITFunction

    start = time.perf_counter()
    mod_dir = Path(tempfile.mkdtemp(prefix="ks_triton_"))
    try:
        path = mod_dir / filename
        path.write_text(text, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"ks_candidate_{index}_{os.getpid()}", path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            msg = f"{type(exc).__name__}: {exc}"
            return Outcome("compile_error", "python", msg, msg, seconds=time.perf_counter() - start)
        kernels = [v for k, v in vars(module).items() if isinstance(v, JITFunction) and k.endswith("_kernel")]
        if not kernels:
            msg = f"{filename}: no @triton.jit function named *_kernel"
            return Outcome("compile_error", "python", msg, msg)
        options = {"num_warps": getattr(module, "NUM_WARPS", 4), "num_stages": getattr(module, "NUM_STAGES", 3)}
        shared = 0
        for fn in kernels:
            missing = [p.name for p in fn.params if p.is_constexpr and not hasattr(module, p.name)]
            unannotated = [p.name for p in fn.params if not p.is_constexpr and not p.annotation]
            if missing or unannotated:
                msg = (f"{filename}: {fn.__name__}: template convention broken: constexpr without a module "
                       f"constant {missing}, parameter without a type annotation {unannotated}")
                return Outcome("compile_error", "python", msg, msg)
            signature = {p.name: ("constexpr" if p.is_constexpr else p.annotation) for p in fn.params}
            constexprs = {p.name: getattr(module, p.name) for p in fn.params if p.is_constexpr}
            # What Triton's launcher specializes on for a real call: 16-byte aligned tensors and ints that are
            # multiples of 16 (every catalog shape). Without it Triton cannot vectorize or pipeline, and its
            # shared-memory use (the OutOfResources check) would be that of a kernel nobody launches.
            attrs = {(p.num,): [["tt.divisibility", 16]] for p in fn.params
                     if not p.is_constexpr and (p.annotation.startswith("*") or p.annotation == "i32")}
            try:
                compiled = triton.compile(ASTSource(fn, signature=signature, constexprs=constexprs, attrs=attrs),
                                          target=GPUTarget("cuda", cc, 32), options=options)
            except CompilationError as exc:
                lines = str(exc).splitlines()
                return Outcome("compile_error", "triton", f"{lines[0]} {lines[-1]}", str(exc),
                               seconds=time.perf_counter() - start)
            shared = max(shared, compiled.metadata.shared)
        limit = TRITON_SMEM_LIMIT.get(cc, 101376)
        seconds = time.perf_counter() - start
        if shared > limit:
            msg = (f"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: {shared}, "
                   f"Hardware limit: {limit}. Reducing block sizes or `num_stages` may help.")
            return Outcome("compile_error", "runtime", msg, msg, shared, seconds)
        return Outcome("ok", "", "", "", shared, seconds)
    finally:
        shutil.rmtree(mod_dir, ignore_errors=True)


def compile_triton(sources: list[Source], *, jobs: int = 2) -> list[Outcome]:
    """Compile Triton sources in `jobs` worker processes with a private, temporary Triton cache."""
    why = triton_unavailable()
    if why:
        raise RuntimeError(why)
    with tempfile.TemporaryDirectory(prefix="ks_triton_cache_") as cache:
        ctx = __import__("multiprocessing").get_context("spawn")
        with cf.ProcessPoolExecutor(max(1, jobs), mp_context=ctx, initializer=_triton_worker_init,
                                    initargs=(cache,)) as pool:
            futures = [pool.submit(_compile_triton_one, s.text, s.filename, int(re.sub(r"\D", "", s.compile_arch)), i)
                       for i, s in enumerate(sources)]
            return [f.result() for f in futures]
