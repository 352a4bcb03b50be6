"""Fault injection: real edits found by pattern, and predictions that real nvcc/Triton confirm."""
from __future__ import annotations

from dataclasses import replace

import re
from pathlib import Path

import numpy as np
import pytest

from generator.kernels import Source, render
from generator.kernels import compilers
from generator.kernels.scanner import code_view
from generator.kernels.faults import (FAULT_KINDS, OUTCOME_KINDS, TEXT_KINDS, WRONG_RESULT_KINDS, NoFaultSite,
                                      _kernels, _mangle, applicable_kinds, expect_clean, inject)
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for

FIXTURES = Path(__file__).parent / "fixtures" / "templates"


def _task(op, impl, gpu):
    return next(t for t in all_tasks() if t.op == op and t.impl == impl and t.gpu == gpu and t.dtype == "fp16")


def _fixture(impl: str, gpu: str) -> Source:
    task = _task("rmsnorm", impl, gpu)
    variant = next(v for v in variants_for("rmsnorm", impl) if v.tag == "naive")
    return render(task, variant, {}, root=FIXTURES)


def _rng(i=0):
    return np.random.default_rng(np.random.SeedSequence([1234, i]))


def test_kind_lists_are_consistent():
    assert set(TEXT_KINDS["cuda"]) | set(TEXT_KINDS["triton"]) | set(OUTCOME_KINDS) == set(FAULT_KINDS)
    assert set(WRONG_RESULT_KINDS) <= set(TEXT_KINDS["cuda"])


@pytest.mark.parametrize("impl", ["cuda", "triton"])
def test_every_text_kind_has_a_site_in_the_fixture(impl):
    src = _fixture(impl, "a100")
    assert applicable_kinds(src) == TEXT_KINDS[impl]


@pytest.mark.parametrize("impl", ["cuda", "triton"])
def test_inject_is_a_real_deterministic_edit(impl):
    src = _fixture(impl, "a100")
    for kind in TEXT_KINDS[impl]:
        a, exp_a = inject(src, kind, _rng())
        b, exp_b = inject(src, kind, _rng())
        assert a == b and exp_a == exp_b, kind
        assert a.text != src.text and a.filename == src.filename, kind
        assert exp_a.kind == kind
        assert exp_a.status == ("wrong_result" if kind in WRONG_RESULT_KINDS else "compile_error")
        if exp_a.tool == "nvcc":
            assert exp_a.message.startswith(f"{src.filename}({exp_a.line}): error: ")
            assert exp_a.context.split("\n\n")[0].splitlines()[-1].strip() == "^"   # (follow-ons after it)


def test_outcome_kinds_are_not_text_edits():
    src = _fixture("cuda", "a100")
    for kind in OUTCOME_KINDS:
        with pytest.raises(NoFaultSite, match="expect_clean"):
            inject(src, kind, _rng())
    with pytest.raises(ValueError, match="unknown fault kind"):
        inject(src, "bogus", _rng())


def test_no_site_is_a_clear_error():
    src = Source("__global__ void k(float* y) { y[0] = 1.f; }\n", "k.cu", "cuda", "sm_80")
    with pytest.raises(NoFaultSite, match="k.cu: no site for fault kind 'racy_reduction'"):
        inject(src, "racy_reduction", _rng())
    fp8_ok = _fixture("triton", "h100")      # fp8e4nv compiles on cc 90: no fp8 fault to make there
    with pytest.raises(NoFaultSite, match="compiles on sm_90a"):
        inject(fp8_ok, "triton_fp8_unsupported", _rng())


def test_code_view_blanks_comments_strings_and_directives():
    text = '#define A 1\nint x = 2; // x\nconst char* s = "y;z";\n'
    view = code_view(text, "cuda")
    assert len(view) == len(text) and view.count("\n") == text.count("\n")
    assert "define" not in view and "// x" not in view and "y;z" not in view and "int x = 2;" in view


# Real mangled names printed by nvcc 13 (`.entry` in the PTX) for these declarations.
MANGLED = [
    ("typedef half scalar_t;\ntemplate <int BM, int BN>\n__global__ void ka(const scalar_t* __restrict__ x, "
     "scalar_t* y, const scalar_t* z, int n, float s) {}\nvoid l() { ka<64, 128><<<1, 1>>>(0, 0, 0, 0, 0.f); }\n",
     "_Z2kaILi64ELi128EEvPK6__halfPS0_S2_if"),
    ("__global__ void kb(const half* x, half* y, const float* sc, float* o, const int* idx, int64_t n, "
     "const uint8_t* q, __nv_bfloat16* b) {}\n", "_Z2kbPK6__halfPS_PKfPfPKilPKhP13__nv_bfloat16"),
    ("template <typename T, int V>\n__global__ void kc(const T* x, T* y, int n) {}\n"
     "void l() { kc<float, 4><<<1, 1>>>(0, 0, 0); }\n", "_Z2kcIfLi4EEvPKT_PS0_i"),
]


@pytest.mark.parametrize("text,mangled", MANGLED)
def test_mangled_entry_names_match_nvcc(text, mangled):
    code = code_view(text, "cuda")
    assert _mangle(text, code, _kernels(code)[0]) == mangled


def test_expect_clean_arch_and_launch_outcomes():
    task = _task("rmsnorm", "cuda", "a100")
    variant = next(v for v in variants_for("rmsnorm", "cuda") if v.tag == "naive")
    assert expect_clean(_fixture("cuda", "a100"), task, variant, {}).status == "ok"
    gemm = [t for t in all_tasks() if t.impl == "cuda" and t.gpu == "a100" and "wgmma_tma" in
            {v.tag for v in variants_for(t.op, "cuda")}][0]
    wg = next(v for v in variants_for(gemm.op, "cuda") if v.tag == "wgmma_tma")
    src = Source('asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");', "g.cu", "cuda", "sm_80")
    exp = expect_clean(src, gemm, wg, {})
    assert (exp.status, exp.kind, exp.tool, exp.line) == ("compile_error", "arch_unsupported", "ptxas", None)
    assert re.fullmatch(r"ptxas /tmp/tmpxft_[0-9a-f]{8}_00000000-6_g\.ptx, line \d+; error   : "
                        r".*(?:not supported on \.target 'sm_80'|requires \.target sm_90 or higher)", exp.message)


@pytest.mark.compiler
@pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found: real-compiler check skipped")
def test_cuda_predictions_match_real_nvcc():
    cases = []
    for gpu in ("a100", "h100"):
        src = _fixture("cuda", gpu)
        cases.append((src, None))
        for i, kind in enumerate(TEXT_KINDS["cuda"]):
            if kind not in WRONG_RESULT_KINDS:
                cases.append(inject(src, kind, _rng(i)))
    modes = ["ok" if c[1] is None else "frontend" if c[1].tool == "nvcc" else "alone" for c in cases]
    outs = compilers.compile_cuda([c[0] for c in cases], modes=modes, jobs=2)
    for (src, exp), out in zip(cases, outs):
        if exp is None:
            assert out.status == "ok", out.output
        elif exp.tool == "nvcc":
            assert out.first == exp.message, out.output
        else:
            assert _strip(out.first) == _strip(exp.message), out.output


def _strip(line: str) -> str:
    return re.sub(r"^ptxas \S+, line \d+; ", "ptxas ", line)


@pytest.mark.compiler
@pytest.mark.skipif(compilers.triton_unavailable() is not None, reason="Triton not importable: check skipped")
def test_triton_predictions_match_real_triton():
    src = _fixture("triton", "a100")
    cases = [(src, None)] + [inject(src, k, _rng(i)) for i, k in enumerate(("triton_compilation_error",) * 3 +
                                                                        ("triton_fp8_unsupported",))]
    outs = compilers.compile_triton([c[0] for c in cases], jobs=2)
    assert outs[0].status == "ok", outs[0].output
    for (_src, exp), out in zip(cases[1:], outs[1:]):
        assert out.status == "compile_error" and out.tool == "triton", out.output
        assert out.first == f"{exp.message} {exp.context.splitlines()[-1]}", out.output


@pytest.mark.compiler
@pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found: real-compiler check skipped")
def test_wrong_template_arg_at_launches_and_calls_matches_nvcc():
    src = _fixture("cuda", "a10")
    cases = {}
    for i in range(12):
        edited, exp = inject(src, "wrong_template_arg", _rng(i))
        cases.setdefault(exp.message, (edited, exp))
    assert any('"rmsnorm_naive"' in m for m in cases)   # (warp_sum<WARP>: no note EDG's text is known for)
    outs = compilers.compile_cuda([c[0] for c in cases.values()], modes=["frontend"] * len(cases), jobs=2)
    for (edited, exp), out in zip(cases.values(), outs):
        assert out.first == exp.message, out.output
        assert exp.context.splitlines()[0] in out.output, out.output


def test_fault_draws_are_the_draws_of_integers_and_choice():
    """The faults' index draws are rng.integers(n)'s (and rng.choice's of an n-item list), from the same state."""
    from generator.kernels.faults import _index
    for seed in range(5):
        rng, same = np.random.default_rng(seed), np.random.default_rng(seed)
        for n in (1, 2, 3, 5, 7, 64, 1000, 2**31 + 1):
            assert [_index(rng, n) for _ in range(50)] == [int(same.integers(n)) for _ in range(50)]
        for n in (1, 4, 5):
            assert [_index(rng, n) for _ in range(50)] == [int(same.choice(list(range(n)))) for _ in range(50)]
        assert rng.random() == same.random()


def test_a_missing_semicolon_is_never_made_after_a_type_alias():
    """`using L = Lanes<Op>` run on into `float dot = 0.f;` makes nvcc say "invalid combination of type
    specifiers", not 'expected a ";"': an alias line is no site (the default folder's audit found one)."""
    text = ("template <int N> struct Lanes { static constexpr int K = N; };\n"
            "__global__ void k(float* out) {\n"
            "    using L = Lanes<4>;\n"
            "    float dot = 0.f;\n"
            "    typedef float acc_t;\n"
            "    acc_t sum = dot + L::K;\n"
            "    out[0] = sum;\n"
            "}\n")
    dropped = set()
    for seed in range(40):
        try:
            broken, _expected = inject(Source(text, "k.cu", "cuda", "sm_80"), "missing_semicolon",
                                       np.random.default_rng(seed))
        except NoFaultSite:
            continue
        dropped |= {n for n, (a, b) in enumerate(zip(text.split("\n"), broken.text.split("\n"))) if a != b}
    assert dropped and not dropped & {2, 4}     # the alias lines (0-based 2 and 4) keep their ';'


@pytest.mark.parametrize("impl, tag, ceiling, floor", [
    ("cuda", "smem_tiled", r"\(([MN]) \+ (BLOCK_[MN]) - 1\) / \2", r"\1 / \2"),
    ("triton", "naive", r"triton\.cdiv\(([MN]), (BLOCK_[MN])\)", r"\1 // \2"),
])
def test_a_truncated_grid_floors_one_axis_of_the_launch_grid(impl, tag, ceiling, floor):
    """The edit is the launch grid's ceiling division over one output axis made a floor division (a `<` made
    `<=` in 0.6.3, which leaves no tail unwritten), and its report names that division for grid_tail."""
    variant = next(v for v in variants_for("gemm_fp16", impl) if v.tag == tag)
    src = render(_task("gemm_fp16", impl, "h100"), variant, {})
    grid_line = next(line for line in src.text.splitlines() if re.search(r"\bgrid\s*=\s*\(|dim3 grid\(", line))
    floored = {re.sub(ceiling, floor, m.group(0)).replace("//", "/"):
               src.text.replace(grid_line, grid_line.replace(m.group(0), re.sub(ceiling, floor, m.group(0))), 1)
               for m in re.finditer(ceiling, grid_line)}
    assert set(floored) == {"M / BLOCK_M", "N / BLOCK_N"}
    for seed in range(6):
        edited, expected = inject(src, "truncated_grid", _rng(seed))
        assert expected.status == "wrong_result" and edited.text == floored[expected.message]


@pytest.mark.parametrize("impl, tag", [("cuda", "naive"), ("cuda", "reg_tiled"), ("triton", "blocked")])
def test_a_wrong_stride_reports_the_product_it_edits(impl, tag):
    """The report is the product before and after, "X * S -> X * S'", as the edited text has it: X the name the
    stride multiplies (the index stride_shift maps to an output axis), S' the edit (0.6.3 reported nothing, so the
    correctness report could not follow from the edit)."""
    variant = next(v for v in variants_for("gemm_fp16", impl) if v.tag == tag)
    src = render(_task("gemm_fp16", impl, "h100"), variant, {})
    products = set()
    for seed in range(12):
        edited, expected = inject(src, "wrong_stride", _rng(seed))
        index, stride, new = re.fullmatch(r"(\w+) \* (\w+) -> \1 \* (.+)", expected.message).groups()
        assert re.search(rf"\b{index}(\[[^\]]*\])?\s*\*\s*{re.escape(new)}", code_view(edited.text, impl))
        assert new in (f"({stride} + 1)",) or re.fullmatch(r"\w+", new)
        products.add(expected.message)
    assert len(products) > 1


def test_a_wrong_stride_is_made_only_in_code_that_runs():
    """A stride edited in a function nothing calls changes nothing the kernel computes, so it is no wrong result
    (0.6.3 made one in the GEMM op header's load_a / load_b accessors, which the tensor-core variants never call;
    renders now leave such helpers out, kernels/unused_helpers.py). The naive variant calls both; an accessor
    nobody calls, appended to its render, gets no site."""
    from generator.kernels.faults import _stride_sites
    spare = ("__device__ __forceinline__ float load_spare(const Operands& op, const Group& g, int m, int k, int lda) {\n"
             "  return static_cast<float>(g.a[(int64_t)m * lda + k]);\n}\n")
    for tag, called in (("mma_sync", False), ("naive", True)):
        variant = next(v for v in variants_for("gemm_fp16", "cuda") if v.tag == tag)
        src = render(_task("gemm_fp16", "cuda", "h100"), variant, {})
        assert ("load_a(" in code_view(src.text, "cuda")) == called
        src = replace(src, text=src.text + spare)
        lines = {src.text[src.text.rfind("\n", 0, m.start()) + 1:src.text.find("\n", m.end())].strip()
                 for m, _others, _index in _stride_sites(src)}
        assert any("g.a[(int64_t)m * K + k]" in line for line in lines) == called, (tag, lines)
        assert not any("m * lda" in line for line in lines), (tag, lines)
        assert any("g.c[(int64_t)m * N + n]" in line for line in lines)


def _any_task(op, impl):
    return next(t for t in all_tasks() if t.op == op and t.impl == impl)


def test_a_per_row_or_per_column_member_scale_is_a_dropped_scale_site():
    """CUDA int8_gemm's store_c multiplies by op.a_scale[m] and op.b_scale[n] (a token's and a channel's absmax
    scale): each is a site, and dropping it leaves the rest of the product (0.6.6 found no site there). A member
    scale indexed by 0 or by a K block is none: fp8_gemm's per-tensor pair (its dequant_mma renders' a_k_scale is
    1.f, workbench.UNIT_SCALE_KERNELS) and fp8_blockwise_gemm's loads."""
    from generator.kernels.faults import _scale_sites
    product = "acc * op.a_scale[m] * op.b_scale[n]"
    for v in variants_for("int8_gemm", "cuda"):
        src = render(_any_task("int8_gemm", "cuda"), v, v.default_params())
        assert product in src.text, v.tag
        edited = {src.text[:e.start] + src.text[e.end:] for e in _scale_sites(src)}
        assert edited == {src.text.replace(product, "acc * op.b_scale[n]"),
                          src.text.replace(product, "acc * op.a_scale[m]")}, v.tag
        for seed in range(4):
            _broken, expected = inject(src, "dropped_scale", _rng(seed))
            assert expected.status == "wrong_result" and product in expected.message
    for op in ("fp8_gemm", "fp8_blockwise_gemm"):
        for v in variants_for(op, "cuda"):
            src = render(_any_task(op, "cuda"), v, v.default_params())
            assert not any("op." in src.text[e.start:e.end] for e in _scale_sites(src)), (op, v.tag)


def test_a_dequantizing_gemm_drops_one_operand_scale_from_one_k_in_four():
    """dequant_mma's sites (the only ones of the CUDA fp4 and fp8-blockwise GEMMs) are the eight `* scale` of its
    A and B fragments, one per k offset 0, 1, 8, 9 (of 2t in a 16-deep step) and operand: a deletion leaves one
    operand's block scale off one k in four (correctness.K_BLOCK_SCALES' share), and its report names the line,
    whose decode_a / decode_b tells the operand (correctness.dropped_block_scale)."""
    from generator.kernels.faults import _scale_sites
    from generator.sim import correctness
    for op in ("fp4_gemm", "fp8_blockwise_gemm"):
        task = _any_task(op, "cuda")
        assert correctness.K_BLOCK_SCALES[(op, "cuda")][0] == 0.25
        for v in variants_for(op, "cuda"):
            src = render(task, v, v.default_params())
            sites = _scale_sites(src)
            assert bool(sites) == (v.tag == "dequant_mma"), (op, v.tag)
            if not sites:
                continue
            products = set()
            for e in sites:
                before = src.text[:e.start]
                products.add(re.search(r"decode_([ab])\(row, kl(?: \+ (\d+))?\)\s*$", before).groups())
            assert products == {(x, k) for x in "ab" for k in (None, "1", "8", "9")}
            for seed in range(8):
                broken, expected = inject(src, "dropped_scale", _rng(seed))
                operand = re.search(r"decode_([ab])\(", expected.message)[1]
                assert expected.message in src.text and expected.message not in broken.text
                assert correctness.dropped_block_scale(task, expected.message).tensor == f"{operand}_scale"


def test_the_online_softmax_correction_is_no_dropped_scale_site():
    """A session's style may call the online softmax's correction exp(m_old - m_new) `rescale` (style: alpha ->
    corr / rescale); deleting it is no missing softmax scale, whose error model the report would apply (0.6.7: 29 of
    182 "softmax scale missing" reports were fixed by restoring the rescale, row audit). The sm_scale stays a site."""
    from generator.kernels.faults import _scale_sites
    for v in variants_for("flash_prefill", "triton"):
        src = render(_any_task("flash_prefill", "triton"), v, v.default_params())
        if not re.search(r"\balpha\b", src.text):
            continue
        styled = replace(src, text=re.sub(r"\balpha\b", "rescale", src.text))
        assert "* rescale" in styled.text, v.tag
        deleted = [styled.text[e.start:e.end] for e in _scale_sites(styled)]
        assert deleted and all("rescale" not in d for d in deleted), (v.tag, deleted)
        assert any("scale" in d for d in deleted), (v.tag, deleted)
    leading = Source("def f(acc, p, rescale, sm_scale):\n    acc = rescale * acc + p * sm_scale\n", "k.py",
                     "triton", "sm_90")
    assert [leading.text[e.start:e.end] for e in _scale_sites(leading)] == [" * sm_scale"]
