"""The correctness line: exact ops report zero error, id ops compare ids, float errors scale with the output
format's unit roundoff, and each wrong result carries its bug's signature."""
import re

import pytest

from generator.sim import correctness
from generator.catalog.tasks import make_task

ROPE = {"T": 1, "H": 32, "D": 128}


def _task(op, dtype, shape, impl="cuda", gpu="h100"):
    return make_task(op, impl, gpu, dtype, shape)


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
                                  (0.5, 0.5, 0.5, 0.5))
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
    n = 32 * 128
    u = (0.7, 0.2, 0.4, 0.9)
    tail = correctness.failed_text(t, "off_by_one_mask", u)
    first = int(re.search(r"first bad index: (\d+)", tail).group(1))
    assert n - correctness.TILE <= first < n and "last tile" in tail
    assert "varies run to run" in correctness.failed_text(t, "racy_reduction", u)
    assert "constant factor" in correctness.failed_text(t, "dropped_scale", u)
