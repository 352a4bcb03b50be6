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
from dataclasses import dataclass, replace
from pathlib import Path

from generator.kernels import Source
from generator.catalog.resources import TRITON_LIMIT, out_of_resources

# A pathological source (e.g. a huge fully unrolled loop) must not stall the audit, and a busy machine must not
# turn a slow compile into a verdict: a source that times out is retried alone with TIMEOUT_RETRY x the time,
# then reported with status "timeout" (not judged; audit-compile lists it).
BATCH_TIMEOUT_S = 120.0
SINGLE_TIMEOUT_S = 60.0
TIMEOUT_RETRY = 4
_NVCC_ERROR = re.compile(r"^\S+\(\d+\): (?:catastrophic )?error: .*$|^ptxas\b.*\berror\s+: .*$", re.M)


@dataclass(frozen=True)
class Outcome:
    """What a real compiler did with one source."""

    status: str          # ok | compile_error | timeout (nvcc did not finish, even retried: not a verdict)
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
        return Outcome("timeout", "nvcc", msg, msg, seconds=time.perf_counter() - start)
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
            if results[i].status == "timeout":
                results[i] = _run_nvcc(nvcc, path, src.compile_arch, SINGLE_TIMEOUT_S * TIMEOUT_RETRY)
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


def _load_kernels(text: str, filename: str, index: int, mod_dir: Path):
    """(module, its `*_kernel` JIT functions in definition order) from a real file, or an Outcome saying why the
    source cannot be compiled at all (it does not import, or breaks the template conventions)."""
    from triton.runtime.jit import JITFunction

    path = mod_dir / filename
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"ks_candidate_{index}_{os.getpid()}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        msg = f"{type(exc).__name__}: {exc}"
        return Outcome("compile_error", "python", msg, msg)
    kernels = [v for k, v in vars(module).items() if isinstance(v, JITFunction) and k.endswith("_kernel")]
    if not kernels:
        msg = f"{filename}: no @triton.jit function named *_kernel"
        return Outcome("compile_error", "python", msg, msg)
    for fn in kernels:
        missing = [p.name for p in fn.params if p.is_constexpr and not hasattr(module, p.name)]
        unannotated = [p.name for p in fn.params if not p.is_constexpr and not p.annotation]
        if missing or unannotated:
            msg = (f"{filename}: {fn.__name__}: template convention broken: constexpr without a module "
                   f"constant {missing}, parameter without a type annotation {unannotated}")
            return Outcome("compile_error", "python", msg, msg)
    return module, kernels


def _ast_source(fn, module):
    """The kernel as Triton's launcher specializes it for a real call: module constants as constexprs, 16-byte
    aligned tensors and ints that are multiples of 16 (every catalog shape). Without the alignment Triton cannot
    vectorize or pipeline, and its shared-memory use would be that of a kernel nobody launches."""
    from triton.compiler import ASTSource

    signature = {p.name: ("constexpr" if p.is_constexpr else p.annotation) for p in fn.params}
    constexprs = {p.name: getattr(module, p.name) for p in fn.params if p.is_constexpr}
    attrs = {(p.num,): [["tt.divisibility", 16]] for p in fn.params
             if not p.is_constexpr and (p.annotation.startswith("*") or p.annotation == "i32")}
    return ASTSource(fn, signature=signature, constexprs=constexprs, attrs=attrs)


def _options(module) -> dict:
    return {"num_warps": getattr(module, "NUM_WARPS", 4), "num_stages": getattr(module, "NUM_STAGES", 3)}


def _compile_triton_one(text: str, filename: str, cc: int, index: int) -> Outcome:
    """Import the module from a real file and compile every `*_kernel` in it, in definition order."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler.errors import CompilationError

    start = time.perf_counter()
    mod_dir = Path(tempfile.mkdtemp(prefix="ks_triton_"))
    try:
        loaded = _load_kernels(text, filename, index, mod_dir)
        if isinstance(loaded, Outcome):
            return replace(loaded, seconds=time.perf_counter() - start)
        module, kernels = loaded
        shared = 0
        for fn in kernels:
            try:
                compiled = triton.compile(_ast_source(fn, module), target=GPUTarget("cuda", cc, 32),
                                          options=_options(module))
            except CompilationError as exc:
                lines = str(exc).splitlines()
                return Outcome("compile_error", "triton", f"{lines[0]} {lines[-1]}", str(exc),
                               seconds=time.perf_counter() - start)
            shared = max(shared, compiled.metadata.shared)
        limit = TRITON_LIMIT[cc]
        seconds = time.perf_counter() - start
        if shared > limit:
            msg = f"triton.runtime.errors.OutOfResources: {out_of_resources(shared, limit)}"
            return Outcome("compile_error", "runtime", msg, msg, shared, seconds)
        return Outcome("ok", "", "", "", shared, seconds)
    finally:
        shutil.rmtree(mod_dir, ignore_errors=True)


def _allocated_shared(src, cc: int, options: dict) -> int:
    """Shared memory Triton allocates for one kernel: its own front end and TTGIR pipeline (`make_ttir`,
    `make_ttgir`), then the first passes of `make_llir` up to `allocate_shared_memory_nv`, whose `ttg.shared`
    attribute is what `triton.compile(...).metadata.shared` reports. Skipping the LLVM lowering and ptxas makes
    it 3-100x cheaper than a full compile (a 256x256x128 tile takes up to 80 s to lower)."""
    from triton._C.libtriton import ir, nvidia, passes
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import get_ptx_version_from_options
    from triton.compiler.compiler import make_backend

    target = GPUTarget("cuda", cc, 32)
    backend = make_backend(target)
    opts = backend.parse_options(dict(options))
    stages: dict = {}
    backend.add_stages(stages, opts, src.language)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    module = src.make_ir(target, opts, backend.get_codegen_implementation(opts), backend.get_module_map(), context)
    metadata = {"target": target, **opts.__dict__}
    for ext in ("ttir", "ttgir"):
        module = stages[ext](module, metadata)
    pm = ir.pass_manager(module.context)
    passes.ttgpuir.add_combine_tensor_select_and_if(pm)
    passes.ttgpuir.add_allocate_warp_groups(pm, False)
    passes.convert.add_scf_to_cf(pm)
    passes.gluon.add_inliner(pm)
    nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, cc, get_ptx_version_from_options(opts, cc))
    pm.run(module, "ks_allocate_shared")
    return module.get_int_attr("ttg.shared") or 0


def _shared_one(text: str, filename: str, cc: int, index: int) -> int:
    """The largest shared-memory figure over the source's kernels (-1 when Triton cannot compile it: a
    CompilationError, or a pass that fails)."""
    mod_dir = Path(tempfile.mkdtemp(prefix="ks_triton_"))
    try:
        loaded = _load_kernels(text, filename, index, mod_dir)
        if isinstance(loaded, Outcome):
            return -1
        module, kernels = loaded
        try:
            return max(_allocated_shared(_ast_source(fn, module), cc, _options(module)) for fn in kernels)
        except Exception:   # noqa: BLE001 - any failure to compile is "no figure", named by the recorder
            return -1
    finally:
        shutil.rmtree(mod_dir, ignore_errors=True)


def triton_shared(sources: list[Source], *, jobs: int = 2, log=None) -> list[int]:
    """Shared memory per Triton source as Triton allocates it for the source's compile arch (-1: no compile);
    `log(done, total)` is called every 100 sources."""
    return _in_workers(_shared_one, sources, jobs, log)


def compile_triton(sources: list[Source], *, jobs: int = 2) -> list[Outcome]:
    """Compile Triton sources in `jobs` worker processes with a private, temporary Triton cache."""
    return _in_workers(_compile_triton_one, sources, jobs)


def _in_workers(fn, sources: list[Source], jobs: int, log=None) -> list:
    """fn(text, filename, cc, index) for every source, in `jobs` spawned workers sharing a temporary Triton cache."""
    why = triton_unavailable()
    if why:
        raise RuntimeError(why)
    with tempfile.TemporaryDirectory(prefix="ks_triton_cache_") as cache:
        ctx = __import__("multiprocessing").get_context("spawn")
        with cf.ProcessPoolExecutor(max(1, jobs), mp_context=ctx, initializer=_triton_worker_init,
                                    initargs=(cache,)) as pool:
            futures = [pool.submit(fn, s.text, s.filename, int(re.sub(r"\D", "", s.compile_arch)), i)
                       for i, s in enumerate(sources)]
            if log:
                for done, _ in enumerate(cf.as_completed(futures), 1):
                    if done % 100 == 0:
                        log(done, len(futures))
            return [f.result() for f in futures]
