"""audit-compile: real nvcc/Triton agree with every predicted outcome (fixtures, a catalog sample, a folder)."""
from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np
import orjson
import pytest

from generator.kernels import audit
from generator.sim import correctness, feedback, stride_shift
from generator.catalog.hardware import GPUS
from generator.kernels import compilers, render
from generator.kernels.faults import TEXT_KINDS, expect_clean, inject
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for

pytestmark = pytest.mark.compiler   # real nvcc / Triton compiles: `pytest -m "not compiler"` leaves them out

FIXTURES = Path(__file__).parent / "fixtures" / "templates"
needs_nvcc = pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found: compile audit skipped")


def _rng(i):
    return np.random.default_rng(np.random.SeedSequence([77, i]))


def _fixture_steps(impl: str, gpu: str):
    """(task, source, expected) for the clean fixture and every fault kind that applies on this GPU."""
    task = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == impl and t.gpu == gpu and t.dtype == "fp16")
    variant = next(v for v in variants_for("rmsnorm", impl) if v.tag == "naive")
    clean = render(task, variant, {}, root=FIXTURES)
    steps = [(task, clean, expect_clean(clean, task, variant, {}))]
    for i, kind in enumerate(TEXT_KINDS[impl]):
        if kind == "triton_fp8_unsupported" and GPUS[gpu].cc >= 89:
            continue
        steps.append((task, *inject(clean, kind, _rng(i))))
    return steps


def _report_text(report) -> str:
    return "\n".join(f"{d['meta']}: {d['why']}\n  expected {d['expected_first']}\n  real     {d['real_first']}"
                     for d in report["disagreements"])


@needs_nvcc
def test_fixture_faults_agree_with_real_compilers_across_archs():
    cands = []
    impls = [("cuda", g) for g in ("a100", "a10", "h100", "rtx_5090")]
    if compilers.triton_unavailable() is None:
        impls += [("triton", "a100"), ("triton", "h100")]
    for impl, gpu in impls:
        for task, src, exp in _fixture_steps(impl, gpu):
            meta = {"op": task.op, "impl": impl, "gpu": gpu, "arch": src.compile_arch, "variant": "naive",
                    "stratum": exp.kind or exp.status}
            cands.append(audit.Candidate(f"f{len(cands):03d}", src, exp, meta))
    report = audit.audit(cands, jobs=2)
    assert report["kernels"] == len(cands) and not report["skipped"]
    assert report["disagreements"] == [], _report_text(report)
    nvcc_kinds = {k for k, row in report["by_kind"].items() if row["exact_text"]}
    assert {"cuda:undefined_identifier", "cuda:missing_semicolon", "cuda:type_mismatch",
            "cuda:wrong_template_arg"} <= nvcc_kinds


@needs_nvcc
def test_catalog_sample_agrees():
    """A few dozen real template renders across ops, archs and outcome kinds; any disagreement fails."""
    cands = audit.catalog_candidates(24, seed=3)
    assert cands
    assert len({c.meta["arch"] for c in cands}) >= 3
    report = audit.audit(cands, jobs=2)
    if report["skipped"]:
        print(f"audit skipped: {report['skipped']}")
    assert report["disagreements"] == [], _report_text(report)


def _scale_modelled(task) -> bool:
    key = (task.op, task.impl)
    return key in correctness.OUTPUT_SCALE_RATIOS or key in correctness.K_BLOCK_SCALES


def _session_row(impl: str, gpu: str) -> dict:
    """A kernelinfer-shaped row whose steps are the fixture's clean render and injected faults (but the truncated
    grid: its one row per block leaves no tail to report; a wrong stride whose moved outputs cannot be derived; and
    the fixture's dropped scale, which no kernel of the catalog has, so no report models it: the workbench never
    draws any of them there)."""
    steps = [(task, src, exp) for task, src, exp in _fixture_steps(impl, gpu) if exp.kind != "truncated_grid"
             and not (exp.kind == "wrong_stride" and stride_shift.wrong(task, exp.message) is None)
             and not (exp.kind == "dropped_scale" and not _scale_modelled(task))]
    task = steps[0][0]
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "task"}]
    trace = []
    for i, (_task, src, exp) in enumerate(steps):
        body = feedback.feedback_text(task, exp, time_ms=0.05, baseline_ms=0.2, rng=_rng(100 + i)) \
            if exp.status == "ok" else feedback.feedback_text(task, exp, rng=_rng(100 + i))
        messages += [{"role": "assistant", "content": src.text},
                     {"role": "user", "content": f"{feedback.result_line(60.0 * i, exp.status)}\n{body}"}]
        trace.append({"step": i, "tag": "naive", "kind": "fix", "params": {}, "status": exp.status,
                      "time_ms": 0.05 if exp.status == "ok" else None, "kept": False})
    return {"session_id": f"s_{impl}_{gpu}", "op": task.op, "impl": impl, "gpu": gpu, "arch": GPUS[gpu].arch,
            "messages": messages, "trace": trace}


@needs_nvcc
def test_folder_audit_reads_sessions_and_agrees(tmp_path):
    rows = [_session_row("cuda", "a100"), _session_row("cuda", "h100")]
    (tmp_path / "batches").mkdir()
    (tmp_path / "batches" / "batch_000.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    cands = audit.folder_candidates(tmp_path, 100, seed=0)
    assert len(cands) == sum(len(r["trace"]) for r in rows)
    by_status = {c.expected.status for c in cands}
    assert by_status == {"ok", "compile_error", "wrong_result"}
    report = audit.audit(cands, jobs=2)
    assert report["disagreements"] == [], _report_text(report)


def test_folder_audit_samples_only_the_kinds_asked(tmp_path):
    rows = [_session_row("cuda", "a100"), _session_row("triton", "h100")]
    (tmp_path / "batches").mkdir()
    (tmp_path / "batches" / "batch_000.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    every = audit.folder_candidates(tmp_path, 100, seed=0)
    kinds = {c.meta["stratum"] for c in every if c.expected.status == "compile_error"}
    assert kinds and len(kinds) < len({c.meta["stratum"] for c in every})
    some = audit.folder_candidates(tmp_path, 100, seed=0, kinds=frozenset(kinds))
    assert sorted(c.meta["file"] + str(c.meta["step"]) for c in some) == sorted(
        c.meta["file"] + str(c.meta["step"]) for c in every if c.meta["stratum"] in kinds)


def test_folder_sample_of_compile_errors_only(tmp_path):
    rows = [_session_row("cuda", "a100"), _session_row("cuda", "h100")]
    (tmp_path / "batches").mkdir()
    (tmp_path / "batches" / "batch_000.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    cands = audit.folder_candidates(tmp_path, 100, seed=0, compile_errors=True)
    errors = sum(s["status"] == "compile_error" for r in rows for s in r["trace"])
    assert errors and len(cands) == errors
    assert {c.expected.status for c in cands} == {"compile_error"} and all(c.block for c in cands)


def _args(**kw):
    base = dict(dir=None, catalog=False, sample=500, seed=0, jobs=2, json=None, compile_errors=False, kinds=None)
    return argparse.Namespace(**{**base, **kw})


def test_cli_usage_errors(tmp_path, capsys):
    assert audit.run(_args()) == 2
    assert audit.run(_args(dir=tmp_path, catalog=True)) == 2
    assert audit.run(_args(dir=tmp_path / "missing")) == 2
    assert audit.run(_args(dir=tmp_path)) == 2
    assert "no batches/*.jsonl or sessions.jsonl" in capsys.readouterr().err
    (tmp_path / "sessions.jsonl").write_text('{"messages": 1}\n')
    assert audit.run(_args(dir=tmp_path)) == 2
    assert "sessions.jsonl:1: not a kernelinfer session row" in capsys.readouterr().err


@pytest.mark.parametrize("line,kind", [
    ('k.cu(3): error: identifier "x" is undefined', "undefined_identifier"),
    ('k.cu(3): error: expected a ";"', "missing_semicolon"),
    ("ptxas error   : Entry function '_Z1kv' uses too much shared data (0x10000 bytes, 0xc000 max)",
     "static_smem_overflow"),
    ("ptxas /tmp/x.ptx, line 3; error   : Feature '%cluster_ctarank' requires .target sm_90 or higher",
     "arch_unsupported"),
    ("at 3:25: arange's range must be a power of 2", "triton_compilation_error"),
    ("k.cu(3): error: something new", "other"),
])
def test_diagnostic_kind(line, kind):
    assert audit.diagnostic_kind(line) == kind


@pytest.mark.parametrize("op, shape, gpu, dtype, tag, params, error, figures", [
    ("logits_softmax", {"B": 1, "V": 128256}, "h100", "fp32", "register_cached",
     {"VEC": 8, "NUM_THREADS": 1024, "ROWS_PER_BLOCK": 1}, "too many resources requested for launch",
     "registers x 1024 threads > 65536 per block"),
    ("flash_decode", {"B": 8, "H": 32, "D": 128, "T": 4096, "P": 16}, "h100", "fp16", "cp_async_pipeline",
     {"BLOCK_N": 128, "NUM_STAGES": 4, "NUM_WARPS": 4}, "invalid argument", "262144 bytes of dynamic shared memory"),
])
def test_a_folder_refusal_reads_its_figures_from_the_rows_configuration(op, shape, gpu, dtype, tag, params, error,
                                                                        figures):
    """A CUDA refusal's report prints only the runtime's error string; the audit derives the figures behind it from
    the step's variant and params (so ptxas -v still checks a register claim), and they name the same error."""
    from generator.kernels.audit import refusal_figures
    from generator.kernels.audit_steps import CompiledStep
    row = {"op": op, "impl": "cuda", "gpu": gpu, "dtype": dtype, "shape": shape}
    step = CompiledStep("1", tag, "", "launch_error", f"RuntimeError: CUDA error: {error}", params)
    said = refusal_figures(row, step)
    assert said.startswith(f"{error}: ") and figures in said
    assert refusal_figures(row, replace(step, params={**params, "NUM_STAGES": 2} if "NUM_STAGES" in params
                                        else {**params, "NUM_THREADS": 256})) == ""
