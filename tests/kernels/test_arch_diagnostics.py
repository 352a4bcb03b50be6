"""ptxas's whole output for arch-gated variants, recorded from the real tool (record_arch.py)."""
from __future__ import annotations

import numpy as np
import pytest

from generator.catalog.hardware import GPUS
from generator.kernels import Style, compilers, render, record_arch
from generator.kernels.audit import normalize_block, printed_block
from generator.kernels.faults import expect_clean
from generator.kernels.style import draw_style
from generator.sim.feedback import feedback_text


def _style(unroll: bool, restrict: bool) -> Style:
    return Style(seed=3, camel=True, comments="full", indent=2, brace_same_line=True, east_const=True,
                 constants="define", includes="sorted", using_alias=True, unroll=unroll, restrict=restrict)


def _gated():
    """Every gated (task, variant) of the catalog, every target included."""
    return record_arch.gated()


def test_a_styled_render_has_its_canonical_renders_key():
    task, v = next(iter(_gated()))
    for unroll in (True, False):
        for restrict in (True, False):
            src = render(task, v, v.default_params(), style=_style(unroll, restrict))
            assert record_arch.key(task, v, *record_arch.codegen(src.text)) == record_arch.key(task, v, unroll, restrict)


def test_codegen_habits_are_read_from_the_text():
    assert record_arch.codegen("#include <x.h>\n  #pragma unroll\nfor (;;) {}\nint* __restrict__ p;") == (True, True)
    assert record_arch.codegen("// #pragma unroll\n/* __restrict__ */ int x;") == (False, False)


def test_the_committed_table_is_written_as_table_text_writes_it():
    """Each message and each distinct output once, rows naming them: decoding and re-encoding gives the file's bytes
    (a hand edit or a stale format fails here, before `--check` compiles anything)."""
    version, table = record_arch.read_table()
    assert len(set(table.values())) < len(table)      # outputs are shared: each is written once
    assert record_arch.table_text(version, table) == record_arch.TABLE.read_text(encoding="utf-8")


def test_every_gated_render_has_a_record():
    version, table = record_arch.read_table()
    assert version.startswith("Cuda compilation tools")
    missing = [f"{task.op}/{v.tag}/{task.dtype}/{task.gpu}/{unroll}/{restrict}" for task, v in _gated()
               for unroll in (True, False) for restrict in (True, False)
               if record_arch.key(task, v, unroll, restrict) not in table]
    assert not missing, f"not recorded (run `{record_arch.COMMAND}`): {missing[:5]}"


def test_a_gated_render_prints_the_recorded_output_for_its_target():
    task, v = next((t, v) for t, v in _gated() if GPUS[t.gpu].arch == "sm_86")
    src = render(task, v, v.default_params(), style=_style(True, True))
    exp = expect_clean(src, task, v, v.default_params())
    k = record_arch.key(task, v, *record_arch.codegen(src.text))
    recorded = record_arch.read_table()[1][k]
    assert k[3] == "sm_80"      # sm_86 reads sm_80's records
    stem = src.filename.rsplit(".", 1)[0]
    assert (exp.status, exp.kind, exp.tool) == ("compile_error", "arch_unsupported", "ptxas")
    assert exp.message.startswith("ptxas /tmp/tmpxft_") and f"-6_{stem}.ptx, line " in exp.message
    block = feedback_text(None, exp)
    assert block.count("\n") == recorded.count("\n") and "'sm_80'" not in block
    assert block.splitlines()[-1] == "ptxas fatal   : Ptx assembly aborted due to errors"


@pytest.mark.compiler
@pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found: real-compiler check skipped")
def test_recorded_outputs_are_what_ptxas_prints_for_styled_renders():
    """Two gated renders in random styles (one on a SAME_PTX target): the whole block is ptxas's."""
    picks = [next((t, v) for t, v in _gated() if GPUS[t.gpu].arch == arch) for arch in ("sm_86", "sm_120a")]
    rng = np.random.default_rng(7)
    cases = []
    for task, v in picks:
        src = render(task, v, v.default_params(), style=draw_style(rng, "cuda"))
        cases.append((src, expect_clean(src, task, v, v.default_params())))
    outs = compilers.compile_cuda([s for s, _ in cases], modes=["alone"] * len(cases), jobs=2)
    for (src, exp), out in zip(cases, outs):
        assert normalize_block(feedback_text(None, exp)) == normalize_block(printed_block(out)), src.filename


# The PTX instruction (or feature) ptxas names when a target lacks a hardware feature (hardware.FEATURES).
FEATURE_PTX = {"wgmma": "wgmma", "tma": "cp.async.bulk", "fp8_mma": "FP8", "fp4_mma": "block scale",
               "clusters": "cluster", "cp_async": "cp.async"}


def test_every_record_is_a_refusal_of_what_the_catalog_gates():
    """The committed table against the catalog, no compile: every record's (op, variant, dtype) is gated on every
    GPU that reads it, and ptxas refused it naming each gated feature's instruction (an empty record is a render
    that compiled: the catalog would claim arch_unsupported for code that builds)."""
    from generator.catalog.variants import lacking, variant
    from generator.catalog.ops import OPS

    wrong = []
    for (op, tag, dtype, arch, *_), out in record_arch.read_table()[1].items():
        v = variant(OPS[op].kernel_class, tag, "cuda")
        gpus = [g.name for g in GPUS.values() if record_arch.SAME_PTX.get(g.arch, g.arch) == arch]
        for gpu in gpus:
            gated = lacking(v, dtype, gpu)[1]
            unnamed = [f for f in gated if FEATURE_PTX[f] not in out]
            if not gated or not out or unnamed or "ptxas fatal" not in out:
                wrong.append(f"{op}/{tag}/{dtype} on {gpu}: gated {sorted(gated)}, "
                             f"{'empty' if not out else 'unnamed ' + str(unnamed)}")
    assert not wrong, f"{len(wrong)} records disagree with the catalog: {sorted(set(wrong))[:8]}"
