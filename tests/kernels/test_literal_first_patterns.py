"""Fault patterns rewritten to start with a literal (so the regex engine skips to it) find what their plain forms
find, over styled renders of the catalog (text and code view) and edge cases."""
from __future__ import annotations

import random
import re

import numpy as np
import pytest

from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for
from generator.kernels import faults, render, scanner
from generator.kernels.style import draw_style

_PLAIN = {
    "_SHARED": r"(?<!extern )__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?([A-Za-z_]\w*)\s+([A-Za-z_]\w*)"
               r"\s*((?:\[[^\]]+\])+)\s*;",
    "_KERNEL": r"(?:template\s*<([^{;]*?)>\s*)?__global__\s+(?:void\s+)?"
               r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:void\s+)?([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{",
}
_EDGES = ["__shared__ float a[4];", "extern __shared__ float a[4];", "xtern __shared__ float b[2][3];",
          "template <int N> __global__ void k(int x) {}", "template <int N>\n__device__ void h() {}\n__global__ k(float a) {",
          "template <typename T, int N> __global__ void __launch_bounds__(128) k2(T* p) {", "__global__ void z() {"]


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
    fast, plain = getattr(faults, name), re.compile(_PLAIN[name])
    found = 0
    for text in _texts():
        matches = [(m.span(), m.groups()) for m in fast.finditer(text)]
        assert matches == [(m.span(), m.groups()) for m in plain.finditer(text)], text[:120]
        found += len(matches)
    assert found > 20


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
