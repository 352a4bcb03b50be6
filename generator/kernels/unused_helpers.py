"""CUDA helper functions a render would define and never use, left out of it.

Why: five CUDA kernel classes share helpers among their variants and ops (gemm's `load_a` / `b_frag` / `mma`,
attn_prefill's `k_base`, gather's and scan's `copy_n` / `load_n`, conv's `conv_tile`): an op snippet provides every
variant's interface, so 196 of 360 renders (0.6.4) carried functions nothing in them calls, a habit a model trained
on them would learn. An engineer's file holds what its kernels use. The template texts of one translation unit
(the variant's template and the op snippet pasted into it) are pruned together, before any style or binding: a
file-scope function that nothing in the unit names (outside its own definitions) goes, with the comment lines
right above it, until none is left (a helper only an unused helper called goes next). Kernels (`__global__`) and
host launchers (`launch_*`) are entry points and stay. nvcc never emits an unreferenced function of a whole-program
compile, so the kernels' code, registers and shared memory are what they were.
"""
from __future__ import annotations

import re
from functools import lru_cache

from generator.kernels import scanner

# A placeholder on a line of its own (`{{PRELUDE}}`, `{{TUNED_CONSTANTS}}`) stands for whole statements: to the
# scanner a `;` (a definition after it starts after it); any other `{{NAME}}` is part of a name: `__NAME__`. Both the
# same length (a placeholder's braces are no block).
_LINE_PLACEHOLDER = re.compile(r"^([ \t]*)\{\{\w+\}\}(?=[ \t]*$)", re.M)
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
# what a use may not be in: comments and string literals (a directive's text is code: a macro may call a helper)
_NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_WORD_RUN = re.compile(r"\w+")    # \w is scanner.is_word_char: str.isalnum or "_"


def pruned(texts: tuple[str, ...]) -> tuple[str, ...]:
    """`texts` (one translation unit's template texts) without the helpers nothing in the unit names."""
    while True:
        spans = _unused_spans(texts)
        if not any(spans):
            return texts
        texts = tuple(_cut(text, cut) for text, cut in zip(texts, spans))


def _unused_spans(texts: tuple[str, ...]) -> list[list[tuple[int, int]]]:
    """Per text, the (start, end) spans of the definitions, with their comments, whose name nothing else names."""
    scans = [_scan(text) for text in texts]
    defs: dict[str, list[tuple[int, int, int]]] = {}      # name -> (text index, start, end) of each definition
    for i, (text_defs, _uses) in enumerate(scans):
        for name, where in text_defs.items():
            defs.setdefault(name, []).extend((i, a, b) for a, b in where)
    spans: list[list[tuple[int, int]]] = [[] for _ in texts]
    for name, where in defs.items():
        if not any(_named_outside(uses.get(name, ()), [(a, b) for j, a, b in where if j == i])
                   for i, (_defs, uses) in enumerate(scans)):
            for i, a, b in where:
                spans[i].append((a, b))
    return spans


@lru_cache(maxsize=1024)   # per text: a class template is in a unit with each op's snippet (~160 texts a run)
def _scan(text: str) -> tuple[dict[str, list[tuple[int, int]]], dict[str, list[int]]]:
    """One text's helper definitions (name -> the (start, end) of each, with its comments) and where each word
    stands whole in its code (word -> offsets; not in comments or strings). Shared: read-only."""
    neutral = _PLACEHOLDER.sub(lambda m: f"__{m.group(1)}__", _LINE_PLACEHOLDER.sub(_statements, text))
    code = scanner.code_view(neutral, "cuda")
    defs: dict[str, list[tuple[int, int]]] = {}
    for name, _template, body, end in scanner.function_defs(code):
        if next(scanner.enclosing(code, body - 1), None) is not None or name.startswith("launch_"):
            continue
        head = max(code.rfind(ch, 0, body - 1) for ch in ";{}") + 1
        if "__global__" in code[head:body]:
            continue
        defs.setdefault(name, []).append((_with_comments(neutral, code, head), _line_end(neutral, end)))
    uses: dict[str, list[int]] = {}
    for m in _WORD_RUN.finditer(_NOT_CODE.sub(scanner.blank, neutral)):   # a whole word is a maximal run
        uses.setdefault(m.group(), []).append(m.start())
    return defs, uses


def _statements(m: re.Match) -> str:
    return m.group(1) + ";" + " " * (len(m.group(0)) - len(m.group(1)) - 1)


def _named_outside(offsets, own: list[tuple[int, int]]) -> bool:
    return any(not any(a <= at < b for a, b in own) for at in offsets)


def _with_comments(text: str, code: str, head: int) -> int:
    """The start of the line the definition starting after `head` begins on, moved up over the comment lines
    right above it (its doc comment)."""
    start = text.rfind("\n", 0, scanner.skip_space(code, head, len(code))) + 1
    while start > 0:
        above = text.rfind("\n", 0, start - 1) + 1
        if not text[above:start].strip().startswith("//") or code[above:start].strip():
            break
        start = above
    return start


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end + 1


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` without `spans`; a blank line that a cut leaves next to another goes too."""
    for a, b in sorted(spans, reverse=True):
        if (a == 0 or text.endswith("\n\n", 0, a)) and text.startswith("\n", b):
            b += 1
        text = text[:a] + text[b:]
    return text
