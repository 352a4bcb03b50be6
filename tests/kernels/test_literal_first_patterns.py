"""Fault patterns rewritten to start with a literal (so the regex engine skips to it) find what their plain forms
find, over styled renders of the catalog (text and code view) and edge cases; lookups rewritten to start from a
literal's matches answer as the plain reading does."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest

from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for
from generator.kernels import diagnostics, faults, render, scanner
from generator.kernels.style import draw_style

_PLAIN = {
    "diagnostics._NAMESPACE_CONSTANT": r"^constexpr\s+[\w:]+\s+([A-Za-z_]\w*)\s*=",
    "scanner.TEMPLATE_HEAD": r"\btemplate\s*<",
    "faults._CLASS_NAME": r"\b(?:struct|class)\s+(?=([A-Za-z_]\w*))",
    "faults._KERNEL": r"(?:template\s*<([^{;]*?)>\s*)?__global__\s+(?:void\s+)?"
               r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:void\s+)?([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{",
}
_EDGES = ["template <int N> __global__ void k(int x) {}", "template <int N>\n__device__ void h() {}\n__global__ k(float a) {",
          "template <typename T, int N> __global__ void __launch_bounds__(128) k2(T* p) {", "__global__ void z() {",
          "template <int N> __device__ void f(int);\n__global__ void g() {}", "a_template<int> x; template<int M>",
          "constexpr int A = 1;\nconstexpr int B = 2;", "struct A {}; class  B; mystruct C; struct\tstruct D; xclass E", "x constexpr int C = 3;\n constexpr int D = 4;\n\nconstexpr E = 5;"]


def _texts() -> list[str]:
    rand, rng = random.Random(13), np.random.default_rng(13)
    tasks = [t for t in all_tasks() if t.impl == "cuda"]
    texts = list(_EDGES)
    for task in rand.sample(tasks, 50):
        variant = rand.choice(variants_for(task.op, task.impl, task.dtype))
        style = draw_style(rng, "cuda") if rand.random() < 0.7 else None
        text = render(task, variant, variant.default_params(), style=style).text
        texts += [text, scanner.code_view(text, "cuda")]
    return texts


@pytest.mark.parametrize("name", sorted(_PLAIN))
def test_a_literal_first_pattern_finds_what_its_plain_pattern_finds(name):
    module, attribute = name.split(".")
    fast, plain = getattr({"faults": faults, "diagnostics": diagnostics, "scanner": scanner}[module], attribute), re.compile(_PLAIN[name], re.M)
    found = 0
    for text in _texts():
        matches = [(m.span(), m.groups()) for m in fast.finditer(text)]
        assert matches == [(m.span(), m.groups()) for m in plain.finditer(text)], text[:120]
        found += len(matches)
    assert found > 20


_GRID_EDGES = ["dim3 grid(1, 2);", "xdim3 grid(1);", "dim3  grid (a)", "  grid = (1,)", "self.grid = (2,)", "mygrid = (3,)",
               "grid=(n,)", "grid == (1,)"]


def test_the_literal_first_grid_patterns_find_what_their_plain_patterns_find():
    plain = {"cuda": re.compile(r"\bdim3\s+grid\s*\("), "triton": re.compile(r"(?<![\w.])grid\s*=\s*\(")}
    texts = {"cuda": _texts(), "triton": _triton_codes()}
    for lang, pattern in plain.items():
        found = 0
        for text in texts[lang] + _GRID_EDGES:
            matches = [m.span() for m in faults._GRID[lang].finditer(text)]
            assert matches == [m.span() for m in pattern.finditer(text)], text[:120]
            found += len(matches)
        assert found > 20, lang


_PLAIN_C_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#[^\n]*(?:\\\n[^\n]*)*',
                             re.S | re.M)
_VIEW_EDGES = ["#include <a.h>\nint x; // c", "  # define A 1 \\\n  + 2\nint y = A;", "/* c */\n#pragma unroll\nfor (;;) {}",
               "/* a\n b */ #define NOT_A_DIRECTIVE 1", 'char* s = "# not a directive\\n";\n#endif', "x;\n\n\t#if 1\n#endif"]


def test_code_view_blanks_what_the_plain_directive_pattern_finds():
    """code_view's newline-led directive pattern blanks exactly what the plain `^[ \\t]*#` (re.M) pattern does."""
    texts = _VIEW_EDGES + [text for text in _texts()[len(_EDGES)::2]]
    directives = 0
    for text in texts:
        plain = _PLAIN_C_TOKENS.sub(scanner.blank, text)
        assert scanner.code_view(text, "cuda") == plain, text[:120]
        directives += sum(m.group(0).lstrip().startswith("#") for m in _PLAIN_C_TOKENS.finditer(text))
    assert directives > 100


def test_template_blocks_are_the_blocks_whose_head_holds_template():
    """_template_blocks, found from the `template <`s, is every block whose own head holds one."""
    codes = [text for text in _texts()[len(_EDGES) + 1::2]] + [scanner.code_view(text, "cuda") for text in _EDGES]
    found = 0
    for code in codes:
        opens = scanner.blocks(code)[0]
        plain = {i for i, o in enumerate(opens) if scanner.TEMPLATE_HEAD.search(diagnostics._head(code, o))}
        assert diagnostics._template_blocks(code) == plain, code[:120]
        found += len(plain)
    assert found > 20


_TYPEDEF_EDGES = ["typedef half scalar_t;\nint value = 1;", "x; typedef int T; int y = 1;", "  typedef struct { int a = 0; } S; float b;",
                  "mytypedef int q;", "int z = 2; typedef float F", "typedefx int w = 3;"]


def test_declarations_skip_the_typedef_statements_a_per_statement_reading_skips():
    """_declarations, reading the few `typedef` statements once, skips what reading each match's statement skips."""
    def plain(code):
        return [faults.declaration_of(m) for m in faults.DECL.finditer(code)
                if not ({*faults.declaration_of(m)[:2]} & faults._C_KEYWORDS)
                and not code.startswith("typedef", scanner.skip_space(code, faults._statement_start(code, m.start()),
                                                                       m.start()))]
    codes = [text for text in _texts()[len(_EDGES) + 1::2]] + _TYPEDEF_EDGES
    skipped = 0
    for code in codes:
        assert faults._declarations(code) == plain(code), code[:120]
        skipped += sum(code.startswith("typedef", scanner.skip_space(code, faults._statement_start(code, m.start()),
                                                                     m.start())) for m in faults.DECL.finditer(code))
    assert skipped > 20



def _triton_codes() -> list[str]:
    rand, rng = random.Random(17), np.random.default_rng(17)
    tasks = [t for t in all_tasks() if t.impl == "triton"]
    codes = []
    for task in rand.sample(tasks, 30):
        variant = rand.choice(variants_for(task.op, task.impl, task.dtype))
        style = draw_style(rng, "triton") if rand.random() < 0.7 else None
        codes.append(scanner.code_view(render(task, variant, variant.default_params(), style=style).text, "triton"))
    return codes


def test_multiplied_and_called_read_what_their_regex_forms_read():
    """_multiplied (read back from the `*`) names what `\\w+$` finds in the stripped text before it, and _called
    (whole words from str.find) counts what `\\bNAME\\b` finds, at every `*` and function head of styled renders."""
    def multiplied(code, star):
        left = code[:star].rstrip()
        if left.endswith("]"):
            left = left[:left.rfind("[")].rstrip()
        name = re.search(r"\w+$", left)
        return name[0] if name and not name[0][0].isdigit() else ""

    codes = _texts()[len(_EDGES) + 1::2] + _triton_codes() + ["a]* b", "x [i] * y", "3 * k", "* z", "f(q)  *  r"]
    names = heads = 0
    for code in codes:
        for star in (i for i, ch in enumerate(code) if ch == "*"):
            assert faults._multiplied(code, star) == multiplied(code, star), code[max(0, star - 60):star + 1]
            names += faults._multiplied(code, star) != ""
        for head in re.findall(r"(?:__global__|__device__|\ndef)[^{:;]*\(", code):
            name = re.search(r"(\w+)\s*\(", head)[1]
            assert faults._called(code, head) == ("__global__" in head or len(re.findall(rf"\b{name}\b", code)) > 1)
            heads += 1
    assert names > 500 and heads > 100


_SEMICOLON_EDGES = ["void f() {\n  int a = 1;\n  a += 2;  \n  g(a);\n}", "x = 1;\nint k() { y = 2; z(); }\n",
                    "void h() {\n  p = 1; q = 2;\n\n  #pragma unroll\n  r(3);\n  s(4);\t\n}", "void e() {\n  t = 5;"]


def test_semicolon_candidates_read_only_the_lines_ending_in_a_semicolon_as_a_reading_of_every_line_does():
    """_semicolon_candidates, skipping to the lines whose last character (spaces aside) is `;` and counting the brace
    depth between them in C, finds what the plain reading of every line finds."""
    def plain(code, text):
        lines, raw_lines = code.split("\n"), text.split("\n")
        offsets = [0]
        for ln in lines:
            offsets.append(offsets[-1] + len(ln) + 1)
        sites, depth = [], 0
        for i, ln in enumerate(lines):
            s = ln.strip()
            at_file_scope = depth == 0
            depth += ln.count("{") - ln.count("}")
            if (at_file_scope or not s.endswith(";") or s in ("};", ";") or s.startswith(("for", "}", "using ", "typedef "))
                    or s.count("(") != s.count(")") or faults._JUMP.search(s) or "{" in s
                    or ("=" not in s and (faults.DECL.match(s) or "__shared__" in s or s.endswith("];")))):
                continue
            j = i + 1
            while j < len(lines) and not lines[j].strip() and not raw_lines[j].strip().startswith("#"):
                j += 1
            if j >= len(lines) or raw_lines[j].strip().startswith("#"):
                continue
            nxt = lines[j].lstrip()
            if not faults._STATEMENT_START.match(nxt) or faults._ELSE_WHILE.match(nxt) or '"' in raw_lines[j]:
                continue
            sites.append((offsets[i] + lines[i].rindex(";"), offsets[j] - 1 + (len(lines[j]) - len(nxt))))
        return sites

    texts = _texts()[len(_EDGES)::2] + _SEMICOLON_EDGES
    found = 0
    for text in texts:
        code = scanner.code_view(text, "cuda")
        sites = faults._semicolon_candidates(code, text)
        assert sites == plain(code, text), text[:120]
        found += len(sites)
    assert found > 500


_NAME_EDGES = ["int café = 1; x_é2 = 3; éabc = 4; _ = 0;", "a1 _b 9c b9 (x)+y->z", "tail_name"]


def test_names_of_answers_as_the_identifier_set_does():
    """scanner.NamesOf (a whole-word search per name asked) holds a name exactly when scanner.identifiers has it:
    for every identifier of styled renders, the misspellings the faults ask about, and non-names."""
    texts = _texts()[len(_EDGES)::2] + _triton_codes() + _NAME_EDGES
    held = missing = 0
    for text in texts:
        ids = scanner.identifiers(text)
        asked = set(ids) | {"", "9c", "é", "éabc", "caf", "x_é", "b 9", "a-b"}
        for name in sorted(ids)[:40]:
            asked.update(faults.typo_options(name))
        names = scanner.NamesOf(text)
        for name in asked:
            assert (name in names) == (name in ids), (name, text[:80])
        held += len(ids)
        missing += len(asked - ids)
    assert held > 5000 and missing > 5000
