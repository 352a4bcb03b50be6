"""The correctness line: exact ops report zero error, id ops compare ids, float errors scale with the output
format's unit roundoff, and each wrong result carries its bug's signature."""
import math
import random
import re

import pytest

from generator.sim import correctness, grid_tail, stride_shift
from generator.catalog.tasks import Task, make_task

ROPE = {"T": 1, "H": 32, "D": 128}


def _task(op, dtype, shape, impl="cuda", gpu="h100"):
    return make_task(op, impl, gpu, dtype, shape)


def _shaped(op, dtype, shape, impl="cuda", gpu="h100"):
    """A task of any shape (a model configuration's, as rows state them), not only the catalog's."""
    return Task(op, impl, gpu, dtype, tuple(shape.items()))


def _err(text):
    return float(re.search(r"max_abs_err = (\S+?),", text).group(1))


def test_exact_ops_report_zero_error():
    for op, shape in (("paged_kv_copy", {"NB": 256, "P": 16, "H": 8, "D": 128}),
                      ("embedding_gather", {"T": 1, "V": 128256, "H": 4096})):
        text = correctness.ok_text(_task(op, "fp16", shape), 0.9)
        assert "bit-exact: 0 /" in text and "max_abs_err" not in text


def test_samplers_compare_ids_not_floats():
    text = correctness.ok_text(_task("topk_sample", "fp32", {"B": 1, "V": 128256, "K": 50}), 0.3)
    assert "ids: 0 /" in text and "max_abs_err" not in text
    bad = correctness.failed_text(_task("topk_sample", "fp32", {"B": 1, "V": 128256, "K": 50}), "racy_reduction",
                                  (0.5,) * 6)
    assert "ids:" in bad and "max_abs_err" not in bad


def test_error_scales_with_unit_roundoff_and_reduction_length():
    fp16 = _err(correctness.ok_text(_task("rope", "fp16", ROPE), 0.5))
    bf16 = _err(correctness.ok_text(_task("rope", "bf16", ROPE), 0.5))
    assert bf16 / fp16 == pytest.approx(8, rel=0.01)           # 2^-8 / 2^-11
    short = _err(correctness.ok_text(_task("gemm_fp16", "fp16", {"M": 4096, "N": 4096, "K": 4096}), 0.5))
    long = _err(correctness.ok_text(_task("gemm_fp16", "fp16", {"M": 4096, "N": 4096, "K": 14336}), 0.5))
    assert long / short == pytest.approx((14336 / 4096) ** 0.5, rel=0.01)


def test_wrong_results_show_their_signature():
    t = _task("rope", "fp16", ROPE)
    u = (0.7, 0.2, 0.4, 0.9, 0.1, 0.6)
    assert "varies run to run" in correctness.failed_text(t, "racy_reduction", u)
    # a dropped scale is no constant factor where it varies along K (a group's): the report states no ratio, and an
    # id op none at all (0.6.2 claimed a constant everywhere); a kernel with no model of it has no report
    grouped = _task("int4_gemm", "int4", {"M": 16, "N": 8192, "K": 8192, "G": 128}, impl="triton")
    dropped = correctness.failed_text(grouped, "dropped_scale", u, correctness.dropped_block_scale(grouped, ""))
    assert correctness.VARYING_RATIO in dropped and "out / ref =" not in dropped
    ids = correctness.failed_text(_task("topk_sample", "fp32", {"B": 1, "V": 128256, "K": 50}), "dropped_scale", u)
    assert "ids:" in ids and "out / ref" not in ids
    with pytest.raises(ValueError, match="no model of a dropped scale in rope"):
        correctness.failed_text(t, "dropped_scale", u)


# What a harness comparing the output with the reference can say after the first bad index: where the mismatches
# lie, how out / ref behaves, how reruns differ; never the fault, the edit or a source constant (0.6.7 quoted them)
_OBSERVED = re.compile(r"(?:; wrong (?:only in the last \d+|in all but the first) of \d+ [a-z]+"
                       r"(?: in each of \d+ [a-z]+)?|; out / ref = [0-9.e+]+ at the first mismatch"
                       r"|; " + re.escape(correctness.VARYING_RATIO) +
                       r"|; varies run to run \(3 reruns: \d+, \d+, \d+ mismatches\))?")


def _reports_of(t, u):
    """The wrong-result reports of task `t` for every kind it can show (regions of every modelled axis)."""
    texts = [correctness.failed_text(t, "racy_reduction", u)]
    try:
        texts.append(correctness.failed_text(t, "dropped_scale", u, correctness.dropped_block_scale(t, "")))
    except ValueError:              # no model of a dropped scale for the kernel: never drawn
        pass
    for extent in grid_tail.AXES.get(t.op, {}):
        tail = grid_tail.unwritten(t, f"{extent} / BLOCK", {"BLOCK": 192})
        if tail is not None:
            texts.append(correctness.failed_text(t, "truncated_grid", u, tail))
    for index in stride_shift.indexes(t.op):
        shift = stride_shift.wrong(t, f"{index} * S -> {index} * (S + 1)")
        if shift is not None:
            texts.append(correctness.failed_text(t, "wrong_stride", u, shift))
    return texts


def test_a_failed_report_says_only_what_a_harness_observes():
    """Over every catalog task and wrong-result kind, the mismatch line ends at the first bad index or with one
    observable pattern, and no report names a cause, an edit or a source constant."""
    from generator.catalog.tasks import all_tasks
    u = (0.6, 0.4, 0.5, 0.2, 0.7, 0.9)
    seen = set()
    for t in all_tasks():
        for text in _reports_of(t, u):
            line = text.splitlines()[-1]
            tail = line[re.search(r"first (?:bad index:|at index) \d+", line).end():]
            assert _OBSERVED.fullmatch(tail), (t, line)
            assert not re.search(r"->|missing|scale|grid|block|[A-Z_]{3,} = \d", text), (t, text)
            seen.add(tail[:14])
    assert len(seen) == 6, seen     # every pattern occurs, and reports without one


@pytest.mark.parametrize("kind", ["racy_reduction", "dropped_scale"])
def test_no_report_counts_more_mismatches_than_elements_from_its_first_bad_index(kind):
    """Indices before the first bad one pass, so mismatches <= n - first (0.6.7 drew a race's first index apart from
    its count: 16611 of 65536 from index 54497). A race's first is the lowest of its scattered bad indices."""
    from generator.catalog.tasks import all_tasks
    rng = random.Random(0)
    tasks = [t for t in all_tasks() if kind == "racy_reduction" or correctness.is_attention(t)]
    for t in tasks[::7]:
        for _ in range(20):
            _n, bad, first = _counted(correctness.failed_text(t, kind, tuple(rng.random() for _ in range(6))))
            assert 1 <= bad <= _n - first, (t, bad, first)
    few = _task("rope", "fp16", ROPE)      # 1 in 100 bad: the first lies near n / 100, not anywhere in n
    firsts = [_counted(correctness.failed_text(few, "racy_reduction", (0.5, v, 0.5, 0.5, 0.5, 0.5)))
              for v in (0.1, 0.5, 0.9)]
    assert all(first < 10 * n / bad for n, bad, first in firsts), firsts


def test_a_missing_softmax_scale_keeps_attention_within_its_values():
    """Attention without its softmax scale is another weighted average of the same N(0, 1) values: over every
    attention task of the catalog its report's error lies under 4 (`softmax_scale_error`), whatever the key length,
    and states no out / ref ratio (0.6.4 drew factors up to 100 from the GEMMs' range: max_abs_err 13.83)."""
    from generator.catalog.tasks import all_tasks
    attention = [t for t in all_tasks() if correctness.is_attention(t)]
    assert len({t.op for t in attention}) == 8
    for t in attention:
        for c in (0.0, 0.5, 0.999):
            text = correctness.failed_text(t, "dropped_scale", (0.5, 0.5, c, 0.9, 0.5, 0.5))
            assert "out / ref" not in text and "scale" not in text, t
            assert 2 < float(re.search(r"max_abs_err = (\S+) ", text)[1]) <= correctness.LARGEST_NORMAL, (t, c)


def test_a_missing_output_scale_divides_every_output_by_that_scale():
    """Where every site drops an absmax scale applied to the output, out / ref is qmax / amax with amax = 4, the
    largest of the N(0, 1) inputs, whatever the draw: 127 / 4 for int8 (CUDA's int8 GEMM too, whose store_c
    multiplies by op.a_scale[m] and op.b_scale[n]), (448 / 4)^2 for the fp8 GEMM's two per-tensor scales (0.6.4 drew
    0.01-0.21 or 5-100 for them too, impossible for a scale below 1)."""
    from generator.catalog.tasks import all_tasks
    expected = {"fp8_gemm": 12544.0, "int8_gemm": 31.75, "int8_gemv": 31.75}
    tasks = [t for t in all_tasks() if (t.op, t.impl) in correctness.OUTPUT_SCALE_RATIOS]
    assert {(t.op, t.impl) for t in tasks} == {("fp8_gemm", "triton"), ("int8_gemm", "triton"), ("int8_gemm", "cuda"),
                                               ("int8_gemv", "triton")}
    for t in tasks:
        magnitude = correctness._facts(t)[1]
        for u in ((0.0,) * 6, (0.3, 0.6, 0.1, 0.2, 0.5, 0.5), (0.9, 0.1, 0.95, 0.8, 0.5, 0.5)):
            text = correctness.failed_text(t, "dropped_scale", u)
            assert re.search(r"out / ref = (\S+) at", text)[1] == f"{expected[t.op]:.4g}", (t, u)
            err = float(re.search(r"max_abs_err = (\S+) ", text)[1])
            assert err == pytest.approx(magnitude * (expected[t.op] - 1), rel=1e-3), (t, u)


def test_sharpened_softmax_weights_bound_the_error_as_derived():
    """The derivation behind `softmax_scale_error`, checked on drawn scores: raising a query's weights to a power
    c > 1 (the scale dropped: c = sqrt(D), or ln(2) sqrt(D) through exp2) gives sum (w' - w)^2 <= sum w'^2 -
    sum w^2 < 1, and the most concentrated of 32 queries reaches at least 1/2."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(7)
    for keys in (16, 1024, 32768):
        z = rng.standard_normal((32, keys))
        for c in (math.log(2) * 8, 8.0, math.sqrt(576)):
            w, sharp = (np.exp(t * z - (t * z).max(1, keepdims=True)) for t in (1.0, c))
            w, sharp = w / w.sum(1, keepdims=True), sharp / sharp.sum(1, keepdims=True)
            variance = ((sharp - w) ** 2).sum(1)
            assert (variance <= (sharp ** 2).sum(1) - (w ** 2).sum(1) + 1e-12).all() and variance.max() < 1
            assert variance.max() >= 0.5, (keys, c)


def _counted(text):
    """(elements counted, mismatches or None, first index or None) of a correctness report."""
    m = re.search(r"(\d+) / (\d+)", text)
    first = re.search(r"first (?:bad index:|at index) (\d+)", text)
    return int(m[2]), int(m[1]), int(first[1]) if first else None


def test_every_op_counts_its_output_tensors():
    """Each op's count is defined, and never more elements than the op's minimum traffic can write."""
    from generator.catalog.ops import OPS
    from generator.catalog.tasks import all_tasks
    assert set(correctness.OUTPUTS) == set(OPS)
    for t in all_tasks():
        assert 1 <= correctness.output_elements(t) <= OPS[t.op].bytes_moved(t.shape_dict(), t.dtype), t


@pytest.mark.parametrize("op, dtype, shape, n", [
    # what the op's description says it writes (0.6.1 counted the shape without its "reduction-like" keys)
    ("conv2d_nhwc", "fp16", {"N": 1, "H": 64, "W": 64, "C": 320, "K": 320, "R": 3, "S": 3}, 64 * 64 * 320),
    ("flash_prefill", "fp16", {"B": 1, "H": 32, "S": 4096, "D": 128}, 4096 * 32 * 128),
    ("logits_softmax", "fp32", {"B": 1, "V": 128256}, 128256),
    ("paged_kv_copy", "fp16", {"NB": 256, "P": 16, "H": 8, "D": 128}, 2 * 256 * 16 * 8 * 128),
    ("swa_decode", "fp16", {"B": 8, "H": 8, "D": 128, "T": 32768, "W": 4096}, 8 * 8 * 128),
    ("moe_topk_gating", "fp32", {"T": 4096, "E": 8, "K": 2}, 4096 * 2),
    ("layernorm", "fp16", {"T": 1500, "H": 1280}, 1500 * 1280),
])
def test_reports_count_the_output_elements(op, dtype, shape, n):
    t = _task(op, dtype, shape)
    ok = correctness.ok_text(t, 0.5)
    assert "max_abs_err" in ok or _counted(ok)[0] == n
    for u in ((0.0,) * 6, (0.99,) * 6):
        for text in [correctness.failed_text(t, "racy_reduction", u), *_dropped_scale_texts(t, u)]:
            total, bad, first = _counted(text)
            assert total == n and 1 <= bad <= n and 0 <= first < n, (text, u)


def _dropped_scale_texts(t, u):
    """The reports of each scale `t`'s kernel can drop (none where it has no model of one: no site there)."""
    kernel = correctness.K_BLOCK_SCALES.get((t.op, t.impl))
    if kernel is not None:
        return [correctness.failed_text(t, "dropped_scale", u, scale) for scale in kernel[1]]
    modelled = (correctness.is_attention(t) or t.op in correctness.ID_OPS
                or (t.op, t.impl) in correctness.OUTPUT_SCALE_RATIOS)
    return [correctness.failed_text(t, "dropped_scale", u)] if modelled else []


def _catalog_sample():
    """One task per (op, dtype): its first shape on its first GPU."""
    from generator.catalog.tasks import all_tasks
    seen = {}
    for t in all_tasks():
        seen.setdefault((t.op, t.dtype), t)
    return list(seen.values())


def test_every_report_meets_or_breaks_its_own_criterion():
    """A pass lies within atol + rtol * |ref| (|ref| = max_abs_err / max_rel_err); a failure lies beyond it, its
    counts inside the output. 0.6.1: logits_softmax passed with errors over its fp32 bound and a |ref| of 4 (a
    probability), and a race under fp8's loose tolerance "failed" inside it."""
    from generator.check import reports
    grid = [(a, b, c, d, d, 1 - d) for a in (0.0, 0.99) for b in (0.0, 0.99) for c in (0.0, 0.5, 0.99)
            for d in (0.2, 0.8)]
    for t in _catalog_sample() + _every_impl_of(correctness.K_BLOCK_SCALES):
        for u in (0.0, 0.5, 0.999):
            assert reports._passed(t, correctness.ok_text(t, u)) is None, (t, u)
        for u in grid:
            for text in [correctness.failed_text(t, "racy_reduction", u), *_dropped_scale_texts(t, u)]:
                assert reports._failed(t, text) is None, (t, text)


def _every_impl_of(kernels):
    """One catalog task of each (op, impl) in `kernels`."""
    from generator.catalog.tasks import all_tasks
    return list({(t.op, t.impl): t for t in all_tasks() if (t.op, t.impl) in kernels}.values())


def test_a_truncated_grid_reports_the_tail_its_blocks_leave():
    """A GEMM grid that rounds N / BLOCK_N down computes no output of the last N mod BLOCK_N columns of each row
    (0.6.3 reported 1-63 elements "in the last tile", whatever the shape and block)."""
    m, n, block = 4096, 2112, 128          # N = 16 blocks of 128 and 64 columns
    t = _task("fp8_blockwise_gemm", "fp8", {"M": m, "N": n, "K": 7168})
    tail = grid_tail.unwritten(t, "N / BLOCK_N", {"BLOCK_N": block})
    text = correctness.failed_text(t, "truncated_grid", (0.5, 0.5, 0.5, 0.5), tail)
    missed = n - n // block * block
    assert _counted(text) == (m * n, m * missed, n - missed)
    assert text.endswith(f"; wrong only in the last {missed} of {n} columns in each of {m} rows")
    assert "BLOCK_N" not in text and str(block) not in text      # what a harness sees: the output, not the grid
    rows = grid_tail.unwritten(_shaped("moe_grouped_gemm", "fp16", {"E": 8, "M": 96, "N": 4096, "K": 4096}),
                               "M / BLOCK_M", {"BLOCK_M": 64})
    assert (rows.count, rows.first) == (8 * 32 * 4096, 64 * 4096)      # the last 32 rows of each expert's output


def test_every_truncated_grid_report_meets_the_report_check():
    """Over every catalog task of a modelled op and block size, a tail the floored grid leaves is reported as
    check.reports recomputes it from the shape."""
    from generator.catalog.ops import OPS
    from generator.catalog.tasks import all_tasks
    from generator.check import reports
    checked = 0
    for t in all_tasks():
        axes = grid_tail.AXES.get(t.op, {})
        dims = OPS[t.op].dims(t.shape_dict())
        for extent, axis in axes.items():
            for block in (2, 8, 64, 100, 128, 192, 256, 4096):
                tail = grid_tail.unwritten(t, f"{extent} / BLOCK", {"BLOCK": block})
                if tail is None:
                    assert dims[axis.dim] % block == 0 or dims[axis.dim] < block
                    continue
                checked += 1
                text = correctness.failed_text(t, "truncated_grid", (0.3, 0.6, 0.9, 0.1), tail)
                assert reports._failed(t, text) is None, (t, extent, block)
    assert checked


@pytest.mark.parametrize("op, impl, shape, product, bad, first", [
    # the row audit's cases: 0.6.3 reported first bad index sqrt(n) x {1, 2, 3} and 50-95 % of n, whatever the edit
    ("gemv_fp16", "triton", {"M": 8, "N": 8192, "K": 8192}, "m * stride_ym -> m * (stride_ym + 1)", 7 * 8192, 8192),
    ("int4_gemm", "cuda", {"M": 16, "N": 8192, "K": 8192}, "n * K -> n * (K + 1)", 16 * 8191, 1),
    ("fp8_gemm", "cuda", {"M": 64, "N": 7168, "K": 7168}, "m * K -> m * (K + 1)", 63 * 7168, 7168),
    ("moe_grouped_gemm", "triton", {"E": 8, "M": 96, "N": 4096, "K": 4096}, "offs_m * stride_cm -> "
     "offs_m * (stride_cm + 1)", 8 * 95 * 4096, 4096),
    ("rmsnorm", "triton", {"T": 16, "H": 4096}, "rows * stride_x -> rows * (stride_x + 1)", 15 * 4096, 4096),
])
def test_a_wrong_stride_reports_every_index_but_the_first_of_its_axis(op, impl, shape, product, bad, first):
    """The edit moves the address of every index of one output axis but 0: exactly those outputs are wrong."""
    from generator.check import reports
    t = _shaped(op, "fp16", shape, impl)
    text = correctness.failed_text(t, "wrong_stride", (0.5,) * 6, stride_shift.wrong(t, product))
    assert _counted(text)[1:] == (bad, first) and "->" not in text and "address" not in text
    assert reports._failed(t, text) is None
    assert reports._failed(t, text.replace(f"first bad index: {first}", f"first bad index: {first + 1}")) is not None


def test_every_wrong_stride_report_meets_the_report_check():
    """Over every catalog task of a modelled op and each index its templates name, a moved axis is reported as
    check.reports recomputes it from the shape and the product the report names."""
    from generator.catalog.ops import OPS
    from generator.catalog.tasks import all_tasks
    from generator.check import reports
    checked = 0
    for t in all_tasks():
        names = ["rows"] if t.op in stride_shift.ROW_OPS else list(
            stride_shift.INDEXES.get(OPS[t.op].kernel_class, {}))
        for index in names:
            shift = stride_shift.wrong(t, f"{index} * S -> {index} * (S + 1)")
            if shift is None:
                assert OPS[t.op].dims(t.shape_dict())[stride_shift.axis_of(t.op, index).dim] == 1
                continue
            checked += 1
            assert reports._failed(t, correctness.failed_text(t, "wrong_stride", (0.3,) * 6, shift)) is None
    assert checked


def test_a_wrong_stride_that_moves_no_address_is_not_modelled():
    """One index on the axis (a GEMV or norm of one token), a swapped name of the same value (K = N), or an index
    of no output axis (a reduction's, a tile's): no region, so the step draws another kind."""
    square = _shaped("gemm_fp16", "fp16", {"M": 4096, "N": 4096, "K": 4096})
    assert stride_shift.wrong(square, "m * N -> m * K") is None
    assert stride_shift.wrong(_shaped("gemm_fp16", "fp16", {"M": 4096, "N": 4096, "K": 14336}),
                              "m * N -> m * K").count == 4095 * 4096
    assert stride_shift.wrong(_shaped("gemv_fp16", "fp16", {"M": 1, "N": 4096, "K": 4096}),
                              "m * K -> m * (K + 1)") is None
    assert stride_shift.wrong(square, "tm * TM -> tm * (TM + 1)") is None
    with pytest.raises(ValueError, match="stride_shift"):
        correctness.failed_text(square, "wrong_stride", (0.5,) * 6)


def test_probabilities_are_reported_as_probabilities():
    t = _task("logits_softmax", "fp32", {"B": 1, "V": 128256})
    text = correctness.ok_text(t, 0.999)
    err, rel = (float(x) for x in re.search(r"max_abs_err = (\S+), max_rel_err = (\S+);", text).groups())
    assert err / rel < 1e-3          # the largest of 128,256 probabilities: ~6e-4


def test_exact_and_id_ops_state_and_apply_an_exact_criterion():
    """The task statement and every report of a copy or an id op name an exact comparison, never a float
    tolerance (0.6.1 stated atol / rtol for them and failed copies against atol)."""
    for t in _catalog_sample():
        if t.op in correctness.EXACT_OPS or t.op in correctness.ID_OPS:
            stated = correctness.tolerance_text(t)
            assert "exact" in stated and ("rtol" not in stated), stated
            failed = correctness.failed_text(t, "racy_reduction", (0.5,) * 6)
            assert "exact" in failed and "atol" not in failed, failed


def test_a_race_on_one_id_varies_between_reruns():
    """0.6.1 printed "varies run to run (3 reruns: 1, 1, 1 mismatches)" for a race on a single sampled id."""
    t = _task("topk_sample", "fp32", {"B": 1, "V": 128256, "K": 50})
    for u3 in (0.0, 0.3, 0.7, 0.99):
        text = correctness.failed_text(t, "racy_reduction", (0.5, 0.5, 0.5, u3, u3, u3))
        runs = re.search(r"3 reruns: (\d+), (\d+), (\d+) mismatches", text).groups()
        assert len(set(runs)) > 1 and max(map(int, runs)) <= 1, text


def _reruns(text):
    return [int(x) for x in re.search(r"3 reruns: (\d+), (\d+), (\d+) mismatches", text).groups()]


def test_race_reruns_are_independent_draws_of_the_reported_rate():
    """Each rerun's count is drawn on its own: equal draws give equal counts whatever the other reruns draw, and
    the counts scatter around the reported run's as a binomial of its rate would. 0.6.3 took all three from one
    uniform (its fractions of x, 2x, 3x: an arithmetic progression in 53 of 76 race reports, row audit)."""
    t = _task("gemm_fp16", "fp16", {"M": 4096, "N": 4096, "K": 4096})
    n = 4096 * 4096
    text = correctness.failed_text(t, "racy_reduction", (0.6, 0.5, 0.5, 0.1, 0.5, 0.9))
    bad = int(re.search(r"mismatches: (\d+) /", text)[1])
    low, mid, high = _reruns(text)
    sd = (bad * (1 - bad / n)) ** 0.5
    assert low < mid < high and abs(mid - bad) <= 1
    assert (mid - low) / sd == pytest.approx(1.2816, abs=0.01) and (high - mid) / sd == pytest.approx(1.2816, abs=0.01)
    again = _reruns(correctness.failed_text(t, "racy_reduction", (0.6, 0.5, 0.5, 0.9, 0.3, 0.1)))
    assert again[0] == high and again[2] == low and again[1] < mid
    spaced = [_reruns(correctness.failed_text(t, "racy_reduction", (0.6, 0.5, 0.5, a, b, c)))
              for a, b, c in ((0.2, 0.45, 0.7), (0.7, 0.45, 0.2))]
    assert all(r[0] - r[1] != r[1] - r[2] for r in spaced)


def test_small_race_rates_draw_exact_binomial_counts():
    """Where a race hits a few elements, the reruns are the binomial's own quantiles (no normal approximation)."""
    n, p = 1000, 0.004
    pmf = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(20)]
    cdf = [sum(pmf[:k + 1]) for k in range(20)]
    for v in (0.0, 0.3, 0.5, 0.8, 0.95):
        assert correctness._binomial_quantile(n, p, v) == next(k for k in range(20) if cdf[k] > v)


def test_a_race_error_is_drawn_beyond_the_tolerance_not_pinned_to_it():
    """The largest error of a race ranges continuously from just past the tolerance (fp8's loose one) upward: 0.6.3
    raised every draw below twice the bound to exactly twice it (15 of 66 float race reports, row audit)."""
    t = _task("fp8_gemm", "fp8", {"M": 4096, "N": 4096, "K": 4096})
    atol, rtol = correctness.TOLERANCES["fp8"]
    bound = atol + rtol * correctness._facts(t)[1]
    errs = [float(re.search(r"max_abs_err = (\S+) ", correctness.failed_text(
        t, "racy_reduction", (0.5, 0.5, c, 0.2, 0.5, 0.8)))[1]) for c in (0.0, 0.05, 0.1, 0.2)]
    assert errs == sorted(set(errs)) and bound < errs[0] < 2 * bound < errs[-1]


def test_a_passing_configuration_reports_the_same_error_every_time():
    """The ok line's error is fixed by the task and the configuration (deterministic kernel, fixed inputs), and
    differs between configurations. 0.6.3 drew it per step: 338 byte-identical resubmissions reported another."""
    t = _task("gemm_fp16", "fp16", {"M": 4096, "N": 4096, "K": 4096})
    v = next(iter(_variants(t)))
    params = v.default_params()
    draw = correctness.configuration_draw(t, v, dict(params))
    assert draw == correctness.configuration_draw(t, v, dict(reversed(list(params.items()))))
    others = {correctness.configuration_draw(t, v, dict(p)) for p in v.all_params()[:20]}
    assert len(others) == min(20, len(v.all_params())) and all(0 <= x < 1 for x in others)


def _variants(t):
    from generator.catalog.variants import variants_for
    return variants_for(t.op, t.impl, t.dtype)


def _variant(t, tag):
    from generator.catalog.variants import variants_for
    return {v.tag: v for v in variants_for(t.op, t.impl, t.dtype)}[tag]


def _rel(text):
    return float(re.search(r"max_rel_err = (\S+?);", text).group(1))


def _accumulation(t, tag, **params):
    v = _variant(t, tag)
    return correctness.accumulation_error(t, v, {**v.default_params(), **params})


FP8_4096 = {"M": 4096, "N": 4096, "K": 4096}


@pytest.mark.parametrize("impl, tag", [("cuda", "wgmma_tma"), ("cuda", "mma_sync"), ("cuda", "split_k"),
                                       ("triton", "pipelined")])
def test_hopper_fp8_gemm_without_promotion_reports_percent_errors(impl, tag):
    """DeepSeek-V3 sec. 3.3.2: nearly 2% max relative error at K = 4096 on Hopper fp8 tensor cores without
    promotion (0.6.2 stated bf16 rounding plus fp32 accumulation: 0.3%). Triton never promotes on sm_90."""
    t = _task("fp8_gemm", "fp8", FP8_4096, impl=impl)
    v = _variant(t, tag)
    rel = _rel(correctness.ok_text(t, 0.999, v, v.default_params()))
    splits = v.default_params().get("SPLIT_K", 1)
    assert rel == pytest.approx(correctness.UNIT_ROUNDOFF["bf16"] + 0.02 / splits ** 0.5, rel=0.01)
    assert rel > 1e-2 / splits ** 0.5


def test_fp8_gemm_accumulates_in_fp32_off_hopper_and_on_cuda_cores():
    """sm_120's fp8 mma and the CUDA-core / fp16-dequantizing variants keep fp32 chains: the bf16 output rounding
    dominates their error."""
    for gpu, tag in (("rtx_5090", "mma_sync"), ("h100", "reg_tiled"), ("h100", "dequant_mma")):
        t = _task("fp8_gemm", "fp8", FP8_4096, gpu=gpu)
        assert _accumulation(t, tag) == pytest.approx(correctness.FP32_U * 64), (gpu, tag)


def test_promotion_bounds_the_fp8_chain_to_one_block():
    """fp8_blockwise_gemm adds each K block into fp32 registers (DeepSeek's N_C = 128): its error is that of one
    block's chain, far below the unpromoted GEMM's at the same K, and grows with the block, not with K."""
    blockwise = _task("fp8_blockwise_gemm", "fp8", {"M": 4096, "N": 2112, "K": 7168})
    unpromoted = _accumulation(_task("moe_grouped_gemm", "fp8", {"E": 256, "M": 32, "N": 4096, "K": 7168}), "wgmma_tma")
    per128 = _accumulation(blockwise, "wgmma_tma", BLOCK_K=128)
    per64 = _accumulation(blockwise, "wgmma_tma", BLOCK_K=64)
    per32 = _accumulation(blockwise, "mma_sync")               # promoted after every m16n8k32 instruction
    assert per32 < per64 < per128 < unpromoted / 5
    assert per128 / per64 == pytest.approx(2 ** 0.5, rel=0.01)
    assert per128 / unpromoted == pytest.approx((128 / 7168) ** 0.5, rel=0.01)


def test_a_tree_reduction_states_less_fp32_error_than_a_sequential_one():
    """Higham sec. 4.2, pairwise summation: a tree over the row's threads leaves each thread a chain of C / threads
    terms plus log2(threads) levels, where one thread per row (naive) sums a chain of C."""
    t = _task("rmsnorm", "fp16", {"T": 16384, "H": 8192})
    sequential = _accumulation(t, "naive")
    tree = _accumulation(t, "block_reduce", NUM_THREADS=256)
    assert sequential == pytest.approx(correctness.FP32_U * 8192 ** 0.5)
    assert tree == pytest.approx(correctness.FP32_U * (8192 / 256 + 8) ** 0.5)
    naive, block = _variant(t, "naive"), _variant(t, "block_reduce")
    assert (_rel(correctness.ok_text(t, 0.5, block, {"NUM_THREADS": 256}))
            < _rel(correctness.ok_text(t, 0.5, naive, naive.default_params())))


def test_split_k_shortens_the_chains_and_adds_the_partials():
    t = _task("splitk_gemm", "fp16", {"M": 16, "N": 4096, "K": 14336})
    assert _accumulation(t, "split_k", SPLIT_K=8) == pytest.approx(correctness.FP32_U * (14336 / 8 + 7) ** 0.5)
    assert _accumulation(t, "split_k", SPLIT_K=8) < _accumulation(t, "cp_async_pipeline")


def test_per_token_fp8_quant_states_the_e4m3_rounding_of_x_over_its_scale():
    """scale = amax / 448: the largest error is half the e4m3 spacing of the top binade (32 / 2) times the scale,
    amax / 28, at an element of that binade, |x| in [256, 448) * amax / 448, so its relative error lies in
    (16 / 448, 2^-4]. 0.6.2 stated 2^-4 of amax at |x| = amax, an element the quantizer maps exactly to 448."""
    t = _task("per_token_fp8_quant", "fp8", {"T": 4096, "H": 7168})
    v = _variant(t, "block_reduce")
    for u in (0.0, 0.5, 0.999):
        text = correctness.ok_text(t, u, v, v.default_params())
        err, rel = _err(text), _rel(text)
        amax = 4.0
        assert err == pytest.approx(amax / 28, rel=0.01)
        assert 256 / 448 * amax * 0.99 <= err / rel <= amax * 1.01 and 16 / 448 * 0.99 < rel <= 2 ** -4 * 1.01


def test_kv_int8_quant_states_half_a_scale_of_absmax_rounding():
    """scale = amax / 127: the dequantized error is half a scale, amax / 254 (0.6.2 stated the fp16 unit roundoff,
    2^-11 of amax, ~8x too small), within the int8 tolerance."""
    t = _task("kv_int8_quant", "int8", {"T": 256, "H": 8, "D": 128, "P": 16})
    v = _variant(t, "warp_shuffle")
    atol, rtol = correctness.TOLERANCES["int8"]
    for u in (0.0, 0.5, 0.999):
        text = correctness.ok_text(t, u, v, v.default_params())
        err, rel = _err(text), _rel(text)
        assert err == pytest.approx(4.0 / 254, rel=0.01) and err <= atol
        assert 1 / 254 * 0.99 <= rel <= 1 / 127 * 1.01


def test_every_variant_of_every_fp8_gemm_task_passes_its_own_criterion():
    """The largest unpromoted Hopper chain (K = 18432) still lies within atol + rtol * |ref| at the worst draw."""
    from generator.catalog.hardware import GPUS
    from generator.catalog.tasks import all_tasks
    from generator.catalog.variants import legal_on, variants_for
    from generator.check import reports
    seen = 0
    for t in all_tasks():
        if t.dtype != "fp8" or t.op in correctness.FP8_QUANT_OPS:
            continue
        for v in variants_for(t.op, t.impl, t.dtype):
            if legal_on(v, GPUS[t.gpu], t.dtype):
                for params in (v.default_params(), v.all_params()[-1]):
                    assert reports._passed(t, correctness.ok_text(t, 0.999, v, params)) is None, (t, v.tag, params)
                    seen += 1
    assert seen > 100


def test_the_bench_reports_the_error_of_the_submitted_variant():
    """Workbench.feedback hands the candidate's variant and params to the report: the same fp8 task states a
    percent-level error for its unpromoted wgmma kernel and a bf16-level one for its CUDA-core kernel."""
    import numpy as np
    from generator.sim.workbench import Workbench
    wb = Workbench(_task("fp8_gemm", "fp8", FP8_4096))
    stated = {}
    for tag in ("wgmma_tma", "reg_tiled"):
        out = wb.submit(tag, wb.defaults(tag), np.random.default_rng(1))
        assert out.status == "ok", (tag, out.status)
        stated[tag] = _rel(wb.feedback(out, None, np.random.default_rng(2)))
    assert stated["wgmma_tma"] > 1e-2 > 5e-3 > stated["reg_tiled"]


def test_attention_outputs_shrink_with_the_keys_a_query_sees():
    """A decode query averages T values with softmax weights: its outputs' largest |ref| is ~4 sqrt(e / T) (a float64
    reference of N(0, 1) inputs agrees within 1.5x), not 4 (0.6.2: ~40x too large at T = 4096); a causal prefill's
    first query sees one key, so its largest output is a value's, ~4."""
    import numpy as np
    from generator.catalog.tasks import all_tasks
    rng = np.random.default_rng(0)
    decode = {t.shape_dict()["T"]: t for t in all_tasks() if t.op == "flash_decode" and t.dtype == "fp16"}
    for keys in (min(decode), max(decode)):
        t = decode[keys]
        d = t.shape_dict()["D"]
        q, k, v = (rng.standard_normal((n, d)) for n in (64, keys, keys))
        s = q @ k.T / np.sqrt(d)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        ref = (p / p.sum(axis=1, keepdims=True)) @ v
        stated = correctness._facts(t)[1]
        assert stated < 1.0 and stated / 1.5 <= np.abs(ref).max() <= stated * 1.5
    prefill = _task("flash_prefill", "fp16", {"B": 1, "H": 32, "S": 4096, "D": 128})
    assert correctness._facts(prefill)[1] == 4.0


def test_only_samplers_state_seeds():
    """Samplers draw from seeded Philox streams; the MoE router is deterministic: its criterion names no seed."""
    from generator.catalog.tasks import all_tasks
    first = {}
    for t in all_tasks():
        first.setdefault(t.op, t)
    assert "Philox" not in correctness.tolerance_text(first["moe_topk_gating"])
    assert "Philox" in correctness.tolerance_text(first["topk_sample"])


def test_the_router_task_states_the_slot_order_its_ids_are_compared_in():
    """moe_topk_gating's ids are compared slot by slot, so the task states the order: descending weight, ties to the
    lower id, as vLLM's fused_topk writes them and both templates do (0.6.3 stated none: CUDA wrote ids by expert
    id, Triton by weight)."""
    from generator.catalog.ops import OPS
    router = _task("moe_topk_gating", "fp32", {"T": 4096, "E": 8, "K": 2})
    for stated in (correctness.tolerance_text(router), OPS["moe_topk_gating"].desc):
        assert "descending weight" in stated and "lower" in stated, stated


@pytest.mark.parametrize("op, impl, tensor", [("int4_gemv", "cuda", "scales"), ("fp4_gemm", "cuda", "a_scale"),
                                              ("fp8_blockwise_gemm", "cuda", "a_scale"),
                                              ("fp8_blockwise_gemm", "cuda", "b_scale")])
def test_a_dropped_k_block_scale_reports_what_quantized_inputs_give(op, impl, tensor):
    """`block_scale_error` against the fault made on drawn inputs: N(0, 1) A and B, quantized per block by their
    absmax (x / s, s = amax / qmax), multiplied with the scale of the site's k left off (every k for the int4
    groups, one in four for dequant_mma), compared with the float64 reference. The error's spread (the report's
    max_abs_err is LARGEST_NORMAL of them) and the share of outputs within tolerance (the report's mismatches) are
    those of the drawn outputs; the report states them and no out / ref (0.6.6 drew one: each block has its own)."""
    np = pytest.importorskip("numpy")
    m, n, k = 64, 256, 4096
    shape = {"M": m, "N": n, "K": k, "G": 128} if op.startswith("int4") else {"M": m, "N": n, "K": k}
    task = _shaped(op, {"int4_gemv": "int4", "fp4_gemm": "fp4", "fp8_blockwise_gemm": "fp8"}[op], shape, impl)
    share, scales = correctness.K_BLOCK_SCALES[(op, impl)]
    scale = next(s for s in scales if s.tensor == tensor)
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((n, k))
    unscaled = np.isin(np.arange(k) % 16, [0, 2, 4, 6]) if share == 0.25 else np.ones(k, bool)
    values = scale.values(task.shape_dict())
    if tensor == "b_scale" and values == 128 * 128:          # 128 x 128 blocks of B: n / 128, k / 128
        amax = np.abs(b.reshape(n // 128, 128, k // 128, 128)).max(axis=(1, 3))
        factor = np.repeat(np.repeat(scale.qmax / amax, 128, 0), 128, 1)
    else:                                                    # 1 x `values` blocks along K of one operand's rows
        x = a if tensor == "a_scale" else b
        amax = np.abs(x.reshape(x.shape[0], k // values, values)).max(axis=2)
        factor = np.repeat(scale.qmax / amax, values, 1)
    used = np.where(unscaled, factor, 1.0)
    ref = a @ b.T
    out = (a * used) @ b.T if tensor == "a_scale" else a @ (b * used).T
    atol, rtol = correctness.TOLERANCES[task.dtype]
    passing = (np.abs(out - ref) <= atol + rtol * np.abs(ref)).mean()
    err, model_passing = correctness.block_scale_error(task, scale)
    assert err / correctness.LARGEST_NORMAL == pytest.approx((out - ref).std(), rel=0.05)
    assert abs(model_passing - passing) <= 4 * math.sqrt(model_passing / (m * n)) + 0.1 * model_passing
    text = correctness.failed_text(task, "dropped_scale", (0.5,) * 6, scale)
    total, bad, _first = _counted(text)
    assert f"max_abs_err = {err:.4g} " in text and bad == total - round(total * model_passing)
    assert "out / ref =" not in text and text.endswith(correctness.VARYING_RATIO) and tensor not in text
