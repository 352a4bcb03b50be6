"""Engineer styles: one draw each, applied to every render of a session alike, semantics-preserving rewrites only
(names renamed consistently and never where a member, keyword argument, string or the task's interface uses them),
tuning still touches only the tuned lines, and the real compilers accept styled renders."""
from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from generator.write.diversity import mask_digits
from generator.catalog.hardware import GPUS
from generator.kernels import compilers, render
from generator.kernels.style import _NAMES, Style, draw_style, style_texts, template_name
from generator.kernels.templating import EXTENSIONS, TEMPLATE_ROOT
from generator.catalog.ops import OPS
from generator.kernelinfer.session import simulate_session
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import legal_on, variants_for

PLAIN = Style(seed=0, camel=False, comments="full", indent=4, brace_same_line=False, east_const=False,
              constants="define", includes="given", using_alias=False, unroll=True, restrict=True)


def _renderable(task):
    gpu = GPUS[task.gpu]
    return [v for v in variants_for(task.op, task.impl, task.dtype)
            if (TEMPLATE_ROOT / task.impl / v.kernel_class / f"{v.tag}{EXTENSIONS[task.impl][0]}").is_file()
            and legal_on(v, gpu, task.dtype)]


def _one_task_per_class():
    """One task of each (impl, kernel class), with its renderable variants."""
    seen = {}
    for t in all_tasks():
        key = (t.impl, OPS[t.op].kernel_class)
        if key not in seen and _renderable(t):
            seen[key] = t
    return list(seen.values())


def test_a_style_is_one_draw_of_the_rows_generator():
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    style = draw_style(a, "cuda")
    b.integers(1 << 62)
    assert a.random() == b.random()
    assert draw_style(np.random.default_rng(7), "cuda") == style        # and a pure function of it
    assert style.codegen_key() == (style.unroll, style.restrict)
    assert draw_style(np.random.default_rng(7), "triton").constants in ("plain", "annotated")


def test_styles_rewrite_every_template_but_never_its_interface_nor_its_tuned_lines():
    rng = np.random.default_rng(3)
    for task in _one_task_per_class():
        op = OPS[task.op]
        for v in _renderable(task):
            style = draw_style(rng, task.impl)
            base = render(task, v, {}, style=style)
            assert render(task, v, {}, style=style).text == base.text            # deterministic
            assert not re.search(r"\{\{[A-Z_0-9]+\}\}", base.text)
            plain = render(task, v, {}).text
            commented = render(task, v, {}, style=replace(style, comments="full")).text   # every name kept
            for name in set(re.findall(r"[A-Za-z_]\w*", op.signature(task.impl, task.dtype))) - {"__restrict__"}:
                if re.search(rf"\b{name}\b", plain):
                    assert re.search(rf"\b{name}\b", commented), (v.tag, name)
            for name, values in v.params.items():
                if len(values) < 2:
                    continue
                tuned = render(task, v, {name: values[1]}, style=style).text.splitlines()
                old = base.text.splitlines()
                assert len(tuned) == len(old), (task.op, v.tag, name)
                changed = [(a, b) for a, b in zip(old, tuned) if a != b]
                assert changed and all(name in b for _a, b in changed), (task.op, v.tag, name, changed)


def test_renames_are_consistent_and_skip_members_strings_keywords_and_protected_names():
    cuda = ('// smem: a comment keeps its words\n'
            '__device__ int warp_sum(int lane) { int row = lane; asm("bar.sync 0;"); return row + s.acc; }\n'
            'int acc = 1; int bar = 2; int tile = 3; int smem = row;\n')
    styles = [replace(PLAIN, seed=s) for s in range(40)]
    renamed_row, renamed_smem = set(), set()
    for style in styles:
        (text,) = style_texts((cuda,), "cuda", frozenset({"tile"}), style)
        assert '"bar.sync 0;"' in text                          # strings untouched
        assert text.startswith("// smem: a comment keeps its words\n")    # comments untouched
        renamed_smem.add(re.search(r"int (\w+) = \w+;\n$", text).group(1))
        assert "s.acc" in text and "int acc = 1" in text        # a member name anywhere blocks the rename
        assert "int tile = 3" in text                           # protected
        row = re.search(r"int (\w+) = \w+; asm", text).group(1)
        assert text.count(row) == cuda.count("row")             # every use renamed alike
        renamed_row.add(row)
    assert len(renamed_row) > 1 and len(renamed_smem) > 1
    py = "def f(acc, offs_n):\n    return g(acc=acc) + offs_n\n"
    for style in styles:
        (text,) = style_texts((py,), "triton", frozenset(), style)
        assert "g(acc=acc)" in text                             # used as a keyword argument: kept
        new = re.search(r"def f\(acc, (\w+)\)", text).group(1)
        assert text.endswith(f"+ {new}\n")


def test_every_name_a_style_gives_maps_back_to_its_template_name():
    """A reader who sees a render but not its session's style reads each name back as the template's (the report
    checks do, for a wrong stride's index): every engineer's name for a template name, snake or camel, maps back
    to it alone, so no two template names share a synonym."""
    styles = [replace(PLAIN, seed=s, camel=c) for s in range(40) for c in (False, True)]
    for lang, words in _NAMES.items():
        for word in words:
            names = {style.name(word, lang) for style in styles}
            assert len(names) > 2 and {template_name(n, lang) for n in names} == {word}, (lang, word, names)
    assert template_name("rowsM", "triton") == "offs_m" and template_name("rowsM", "cuda") == "rowsM"
    assert template_name("K", "cuda") == "K"                    # no style's name: itself


def test_styles_make_the_same_variant_read_differently():
    task = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == "cuda")
    v = _renderable(task)[-1]
    rng = np.random.default_rng(11)
    texts = {mask_digits(render(task, v, {}, style=draw_style(rng, "cuda")).text) for _ in range(60)}
    assert len(texts) >= 57


def test_a_session_holds_one_style_and_tune_steps_change_only_constants():
    task = next(t for t in all_tasks() if t.op == "flash_decode" and t.impl == "cuda")
    row = simulate_session(task, np.random.default_rng(5))
    turns = [m["content"] for m in row["messages"] if m["role"] == "assistant"]
    by_tag: dict[str, set[str]] = {}
    for text, step in zip(turns, row["trace"]):
        if step["status"] == "ok":
            by_tag.setdefault(step["tag"], set()).add(mask_digits(text))
    assert all(len(masked) == 1 for masked in by_tag.values()), {t: len(m) for t, m in by_tag.items()}
    for (before, a), (after, b) in zip(zip(turns, row["trace"]), list(zip(turns, row["trace"]))[1:]):
        if b["kind"] == "tune" and a["tag"] == b["tag"] and a["status"] == b["status"] == "ok":
            old, new = before.splitlines(), after.splitlines()
            assert len(old) == len(new)
            diff = [n for o, n in zip(old, new) if o != n]
            assert len(diff) <= len(b["params"]) and all(any(k in n for k in b["params"]) for n in diff)


needs_nvcc = pytest.mark.skipif(compilers.nvcc_path() is None, reason="nvcc not found")


@pytest.mark.compiler
@needs_nvcc
def test_styled_cuda_renders_compile():
    """Every dimension's non-default value at once, on templates that use what the style rewrites (shuffles,
    `#pragma unroll`, `__restrict__`, inline PTX): nvcc builds them."""
    extreme = Style(seed=12345, camel=True, comments="none", indent=2, brace_same_line=True, east_const=True,
                    constants="static_constexpr", includes="sorted", using_alias=True, unroll=False, restrict=False)
    picks = {("rmsnorm", "warp_shuffle"), ("flash_decode", "split_kv")}
    sources = []
    for task in all_tasks():
        for v in _renderable(task) if task.impl == "cuda" and task.gpu == "h100" else ():
            if (task.op, v.tag) in picks:
                picks.discard((task.op, v.tag))
                sources.append(render(task, v, {}, style=extreme))
    assert sources
    for out in compilers.compile_cuda(sources, jobs=2):
        assert out.status == "ok", out


def test_styles_pick_among_a_templates_structural_alternatives():
    from generator.kernels.templating import alternatives, template_path

    path = template_path("cuda", "rownorm", "block_reduce")
    options = alternatives(path)
    assert options[0] == path and [p.name for p in options[1:]] == ["block_reduce~warp_finish.cu"]
    task = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == "cuda")
    v = next(v for v in variants_for(task.op, task.impl, task.dtype) if v.tag == "block_reduce")
    finished = {"__shfl_down_sync" in render(task, v, {}, style=replace(PLAIN, seed=s)).text for s in range(16)}
    assert finished == {True, False}                  # both ways are written, each by some engineers
    assert replace(PLAIN, seed=3).pick(options) == replace(PLAIN, seed=3).pick(options)


# A line only the alternative has, per alternative file: each is picked by some engineers and renders its way.
ALTERNATIVE_MARKS = {
    "cuda/gemm/smem_tiled~swizzled.cu": "const int first_m = tile / per_group * SWIZZLE;",
    "cuda/attn_decode/warp_per_head~two_pass.cu": "for (int pass = 0; pass < 2; ++pass) {",
    "cuda/elementwise/vectorized~raw_words.cu": "using W = typename Word<sizeof(T) * N>::type;",
    "triton/gemm/blocked~column_major.py": "return pid % tiles_m, pid // tiles_m",
}


@pytest.mark.parametrize("rel", sorted(ALTERNATIVE_MARKS))
def test_each_structural_alternative_is_written_by_some_engineers(rel):
    lang, kernel_class, name = rel.split("/")
    tag = name.split("~")[0]
    task = next(t for t in all_tasks() if t.impl == lang and OPS[t.op].kernel_class == kernel_class
                and any(v.tag == tag for v in _renderable(t)))
    v = next(v for v in _renderable(task) if v.tag == tag)
    mark = ALTERNATIVE_MARKS[rel]
    texts = [render(task, v, {}, style=replace(PLAIN, seed=s)).text for s in range(32)]
    assert {mark in t for t in texts} == {True, False}
    assert mark in (TEMPLATE_ROOT / rel).read_text() and mark not in (TEMPLATE_ROOT / lang / kernel_class /
                                                                        f"{tag}{EXTENSIONS[lang][0]}").read_text()


def test_layout_rewritten_once_per_layout_is_the_rewrite_of_each_renamed_text():
    """The layout rewrites run on the template with its renameable names marked, once per layout: every template
    (each alone and each main template with an op snippet) in random styles reads exactly as renaming first and
    rewriting the layout of the renamed text."""
    from generator.kernels import style as styling

    rng = np.random.default_rng(16)
    checked = 0
    for lang, (main_ext, _snippet_ext) in EXTENSIONS.items():
        paths = sorted((TEMPLATE_ROOT / lang).rglob("*.*"))
        snippets = [p for p in paths if p.parent.name == "ops"]
        for path in paths:
            texts = (path.read_text(),) if path in snippets or path.suffix != main_ext else \
                (path.read_text(), snippets[int(rng.integers(len(snippets)))].read_text())
            for _ in range(3):
                style = draw_style(rng, lang)
                plan = styling._plan(texts, lang, frozenset())
                renames = styling._renames(plan.names, lang, style, plan.taken)
                expected = tuple(_restyle("".join(renames.get(p, p) if i % 2 else p for i, p in enumerate(parts)),
                                                  lang, style.layout())
                                 for parts in map(styling._split_at_marks, plan.texts))
                assert style_texts(texts, lang, frozenset(), style) == expected, (path, style)
                checked += bool(plan.names)
    assert checked > 200


def _restyle(text: str, lang: str, layout) -> str:
    """`text` in a layout as a build lays it out (`style._rewritten` takes the text after a leading newline)."""
    from generator.kernels import style as styling

    return styling._rewritten("\n" + text, lang, layout)[1:]


def _restyle_all_rewrites(text: str, lang: str, layout) -> str:
    """The layout rewrites applied one after the other to the whole text, every one of them (no cache, no skip):
    what `_restyle` must equal."""
    from generator.kernels import style as styling

    text = "\n" + text
    if layout.comments != "full":
        text = styling._COMMENT_BLOCK[lang].sub("" if layout.comments == "none" else styling._first_sentence, text)
    if lang == "cuda":
        if not layout.unroll:
            text = styling._UNROLL.sub("", text)
        if not layout.restrict:
            text = text.replace(" __restrict__", "")
        if layout.east_const:
            text = styling._EAST_CONST.sub(r"\1\2 const", text)
        if layout.brace_same_line:
            text = styling._OWN_LINE_BRACE.sub(styling._join_brace, text)
    if layout.indent == 2:
        text = styling._INDENT.sub(lambda m: "\n" + "  " * (len(m.group(1)) // 4), text)
    return text[1:]


def test_restyle_with_shared_rewrites_is_every_rewrite_in_order():
    """`style._rewritten` shares its rewrites between layouts (cached per text, skipping the habits a template is
    written in): every template in every layout reads as all six rewrites applied in order, and the cache was used."""
    import itertools

    from generator.kernels import style as styling

    styling._rewrite.cache_clear()
    layouts = [styling.Layout(*values) for values in itertools.product(
        styling.COMMENTS, (4, 2), (False, True), (False, True), (False, True), (False, True))]
    changed = 0
    for lang in EXTENSIONS:
        for path in sorted((TEMPLATE_ROOT / lang).rglob("*.*")):
            text = path.read_text()
            for layout in layouts:
                expected = _restyle_all_rewrites(text, lang, layout)
                assert _restyle(text, lang, layout) == expected, (path, layout)
                changed += expected != text
    assert changed > 1000
    assert styling._rewrite.cache_info().hits > styling._rewrite.cache_info().misses


def test_a_template_split_at_its_names_binds_as_the_renamed_text_parsed():
    """Rendering binds the laid-out template with its renameable names as slots (`templating.parse_split`) instead
    of writing the renamed text out and parsing it: for every template (with and without its open slots) in random
    styles, both give the same bound pieces."""
    from generator.kernels import templating
    from generator.kernels.style import styled_parts

    rng = np.random.default_rng(7)
    renamed = 0
    for lang in EXTENSIONS:
        for path in sorted((TEMPLATE_ROOT / lang).rglob("*.*")):
            text = path.read_text()
            values = {name: f"<{name.lower()}>" for name in templating.parse(text, path).lines_of}
            for _ in range(3):
                style = draw_style(rng, lang)
                (parts,), names = styled_parts((text,), lang, frozenset(), style)
                (styled,) = style_texts((text,), lang, frozenset(), style)
                for slots in (frozenset(), frozenset({"TUNED_CONSTANTS", "OP_SNIPPET"})):
                    expected = templating.parse(styled, path).bind(values, slots)
                    assert templating.parse_split(parts, path).bind({**values, **names}, slots) == expected, path
                renamed += styled != text and any(new != old for old, new in names.items())
    assert renamed > 100


def test_terse_comments_keep_each_blocks_first_sentence_whole():
    """A terse engineer's comment is a whole sentence: every block of every template, terse, is its full block cut
    right after a sentence end, or a whole one-line block (0.6.3 kept each block's first line: "acc = sum of")."""
    from generator.kernels import style as styling

    for lang, exts in EXTENSIONS.items():
        for path in sorted((TEMPLATE_ROOT / lang).rglob("*.*")):
            if path.suffix not in exts:
                continue
            full = [m.group() for m in styling._COMMENT_BLOCK[lang].finditer("\n" + path.read_text())]
            terse = [m.group() for m in styling._COMMENT_BLOCK[lang].finditer(
                "\n" + _restyle(path.read_text(), lang, PLAIN.layout()._replace(comments="terse")))]
            assert len(terse) == len(full), path
            for kept, block in zip(terse, full):
                assert block.startswith(kept), (path, kept)
                assert re.search(r"[.!?]$", kept) or kept == block and block.count("\n") == 1, (path, kept)
