"""The workbench: its rounding of measured times, and the mistakes it draws only where they change the result."""
import math
import random
import re

import numpy as np

from generator.sim.workbench import sig


def test_sig_gives_the_text_of_a_g_format_with_that_many_digits():
    rand = random.Random(3)
    values = [rand.uniform(-1e6, 1e6) for _ in range(2000)] + [10 ** rand.uniform(-12, 12) for _ in range(2000)]
    values += [0.0, -0.0, 7, 123456789, math.inf, -math.inf, 5e-324, 1.7976931348623157e308]
    for digits in (3, 4, 5):
        for x in values:
            assert sig(x, digits) == float(f"{x:.{digits}g}")
            assert isinstance(sig(x, digits), float)


def _submitted_faults(task, tries=12):
    """(variant, params, outcome) of faulty submits of every legal variant's first configurations."""
    from generator.sim.workbench import Workbench
    wb, rng = Workbench(task), np.random.default_rng(7)
    return wb, [(v, p, wb.submit(v.tag, p, rng, fault=True, p_wrong=1.0)) for v in wb.variants if wb.legal[v.tag]
                for p in wb.grid(v.tag)[:4] for _ in range(tries)]


def test_a_truncated_grid_is_drawn_only_where_it_leaves_a_tail():
    """Every GEMM block divides 4096 x 4096: a grid that rounds down launches the same blocks, so no candidate
    fails by it (0.6.3 reported a last-tile failure for a `<` made `<=` that no thread reached). N = 2112 leaves
    64 columns: there it is drawn, and its report names the tail the step's own block leaves."""
    from generator.catalog.tasks import all_tasks
    from generator.check import reports
    square = next(t for t in all_tasks() if t.op == "gemm_fp16" and t.impl == "cuda" and t.shape_dict()["N"] == 4096
                  and t.shape_dict()["M"] == 4096)
    _wb, outcomes = _submitted_faults(square)
    kinds = {out.expected.kind for _v, _p, out in outcomes if out.status == "wrong_result"}
    assert kinds and "truncated_grid" not in kinds and "off_by_one_mask" not in kinds
    ragged = next(t for t in all_tasks() if t.op == "fp8_blockwise_gemm" and t.impl == "cuda"
                  and t.shape_dict()["N"] == 2112)
    wb, outcomes = _submitted_faults(ragged)
    truncated = [(v, p, out) for v, p, out in outcomes if out.expected.kind == "truncated_grid"]
    assert truncated
    for v, p, out in truncated:
        assert out.expected.message == "N / BLOCK_N" and "N / BLOCK_N" in out.source.text
        text = wb.feedback(out, None, np.random.default_rng(0))
        assert reports.problem(ragged, "wrong_result", text, None, wb.fields["baseline_ms"], None) is None
        assert text.endswith(f"; wrong only in the last {2112 % p['BLOCK_N']} of 2112 columns in each of 4096 rows")
        assert "BLOCK_N" not in text and "grid" not in text      # the harness sees the output, not the launch


_SCALE_FUNCTIONS = re.compile(r"float (w_scale|a_k_scale|b_k_scale|row_scale)\([^)]*\)(?: const)? \{ return ([^;]*); \}")


def test_a_dropped_scale_is_drawn_only_where_the_scale_is_not_one():
    """The kernels of UNIT_SCALE_KERNELS are those whose renders with a dropped_scale site define every scale those
    sites multiply by (w_scale, a_k_scale, b_k_scale, row_scale) as 1.f, where deleting `* scale` changes nothing;
    0.6.4 reported such deletions as wrong results (gemv_fp16, minp_sample). Faulty submits never draw it there,
    and still do where the scale is real (an int4 group scale, a sampler's 1 / temperature)."""
    from generator.catalog.tasks import all_tasks
    from generator.catalog.variants import variants_for
    from generator.kernels import render
    from generator.kernels.faults import applicable_kinds
    from generator.sim.workbench import UNIT_SCALE_KERNELS
    unit = set()
    for t in {(t.op, t.impl, t.dtype): t for t in all_tasks()}.values():
        for v in variants_for(t.op, t.impl, t.dtype):
            source = render(t, v, v.default_params())
            if "dropped_scale" in applicable_kinds(source):
                scales = _SCALE_FUNCTIONS.findall(source.text)
                if scales and all(value == "1.f" for _name, value in scales):
                    unit.add((t.op, t.impl))
    assert unit == UNIT_SCALE_KERNELS
    for op, real in (("gemv_fp16", False), ("minp_sample", False), ("int4_gemv", True), ("topk_sample", True)):
        task = next(t for t in all_tasks() if t.op == op and t.impl == "cuda")
        _wb, outcomes = _submitted_faults(task, tries=6)
        assert any(out.expected.kind == "dropped_scale" for _v, _p, out in outcomes) == real, op


def test_every_dropped_scale_a_kernel_can_make_has_a_report():
    """Each kernel with a dropped_scale site in its renders is one whose report follows from the scale: attention
    (the softmax scale), an id op (scores), a scale on the output (correctness.OUTPUT_SCALE_RATIOS), one that varies
    along K (K_BLOCK_SCALES), or one the workbench never draws (UNIT_SCALE_KERNELS); correctness.failed_text refuses
    any other, where 0.6.6 drew an out / ref. No table names a kernel without a site."""
    from generator.catalog.tasks import all_tasks
    from generator.catalog.variants import variants_for
    from generator.kernels import render
    from generator.kernels.faults import applicable_kinds
    from generator.sim import correctness
    from generator.sim.workbench import UNIT_SCALE_KERNELS
    sited = set()
    for t in {(t.op, t.impl, t.dtype): t for t in all_tasks()}.values():
        if any("dropped_scale" in applicable_kinds(render(t, v, v.default_params()))
               for v in variants_for(t.op, t.impl, t.dtype)):
            sited.add(t)
    tables = set(correctness.OUTPUT_SCALE_RATIOS) | set(correctness.K_BLOCK_SCALES)
    assert tables <= {(t.op, t.impl) for t in sited} and not tables & UNIT_SCALE_KERNELS
    for t in sited:
        modelled = correctness.is_attention(t) or t.op in correctness.ID_OPS or (t.op, t.impl) in tables
        assert modelled or (t.op, t.impl) in UNIT_SCALE_KERNELS, t


def test_a_drawn_dropped_scale_is_reported_from_the_scale_it_drops():
    """Faulty submits that drop a scale report it as check.reports recomputes it: CUDA int8_gemm's per-row or
    per-column output scale as out / ref = 127 / 4, fp8_blockwise_gemm's dequant_mma K-block scale with no single
    out / ref and the error of the operand its edited line decodes (never named: no harness sees the source)."""
    from generator.sim import correctness
    from generator.catalog.tasks import all_tasks
    from generator.check import reports
    for op, said in (("int8_gemm", "out / ref = 31.75 at the first mismatch"),
                     ("fp8_blockwise_gemm", correctness.VARYING_RATIO)):
        task = next(t for t in all_tasks() if t.op == op and t.impl == "cuda" and t.gpu == "a100")
        wb, outcomes = _submitted_faults(task, tries=6)
        dropped = [out for _v, _p, out in outcomes if out.expected.kind == "dropped_scale"]
        assert dropped, op
        for out in dropped:
            text = wb.feedback(out, None, np.random.default_rng(0))
            assert said in text and reports.problem(task, "wrong_result", text, None, 1.0, None) is None, text
            if op == "fp8_blockwise_gemm":
                operand = re.search(r"decode_([ab])\(", out.expected.message)[1]
                scale = correctness.dropped_block_scale(task, out.expected.message)
                err = correctness.block_scale_error(task, scale)[0]
                assert f"max_abs_err = {err:.4g} " in text and "scale" not in text, (operand, text)


def test_out_of_reach_answers_for_the_whole_grid_whatever_was_read_before():
    """out_of_reach reads a variant's model times lazily (_ends_first order) until their spread covers the gap: its
    answer is the whole grid's spread (of the configurations that launch), on a fresh bench and on one that read
    for smaller gaps before."""
    from generator.catalog import perf
    from generator.catalog.tasks import all_tasks
    from generator.sim.workbench import Workbench
    firsts = {}
    for t in all_tasks():
        firsts.setdefault((t.op, t.impl), t)
    for task in list(firsts.values())[::5]:
        again = Workbench(task)
        for v in again.variants:
            if not again.legal[v.tag]:
                continue
            times = [max(perf.time_ms(task, v, p), again.ceiling) for p in again.grid(v.tag)
                     if not again.over_limit(v.tag, tuple(p.items()))]
            if not times:
                continue
            spread = max(times) / min(times)
            for gap in sorted({1 + (spread - 1) * f for f in (0.3, 0.999)} | {spread * 1.001, spread * 3}):
                assert Workbench(task).out_of_reach(v.tag, gap, 1.0) == (gap > spread), (task, v.tag, gap)
                assert again.out_of_reach(v.tag, gap, 1.0) == (gap > spread), (task, v.tag, gap)
