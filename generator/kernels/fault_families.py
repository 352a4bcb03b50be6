"""Faults for the many renders of one template family, at the cost of one.

The renders of a family (one op, impl, dtype and variant; any GPU, shape or tuned parameters) differ only in
placeholder values, on the same lines: a GPU name in a comment, `#define BLOCK_M 64`, `constexpr int HEAD_DIM =
128;`. So the places a fault can be made, and the edit a random choice makes, are the same in all of them. Finding
them is what costs (scans of a 10-15 KB source, ~2-5 ms a fault, ~45,000 faults a default run), so each family's
first render is scanned once per fault kind, each choice's edit is made there once, and the other renders get
that edit by line and column. The tool's report is rebuilt for the render itself (its own macros, file name and
lines). When the edit, a line the tool shows, or the names a misspelling must avoid involve a line on which the
two renders differ, the fault is made on the render directly (`faults.inject`, the rng rewound), so the result
is what `faults.inject` gives in every case; tests/test_fault_families.py checks that over the catalog.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, compress, count
from operator import ne
from typing import Hashable

from generator.kernels import Source
from generator.kernels.faults import (_CUDA_MACROS, _DEFINE, FAULT_KINDS, Edit, Expected, NvccAt, TritonAt,
                                      _display, _expand, _identifiers, _triton_error, code_view, inject, maker_for,
                                      typo_options)

# static_smem_overflow and triton_fp8_unsupported read the compile target, which a family does not fix.
CARRIED_KINDS = frozenset(FAULT_KINDS) - {"static_smem_overflow", "triton_fp8_unsupported"}
_MISSPELLING_KINDS = frozenset({"undefined_identifier", "triton_compilation_error"})
_VIEW_DELIMITERS = re.compile(r"""[/*"'#\n]""")   # characters that could open a comment or string if inserted


@dataclass(frozen=True)
class _Made:
    """One choice's fault on the family's first render, in that render's coordinates."""

    edit: Edit
    needs: frozenset[int]        # 0-based lines that must read the same in a render that takes this edit
    misspelt: str | None         # the name a misspelling replaced (its options must not hit a differing line)
    report: object               # Expected, NvccAt or TritonAt (offsets in the edited text)
    at: tuple[tuple[int, int], ...]   # the report's (line, col) in the edited text: NvccAt pos; TritonAt def, pos
    code_line: str | None        # nvcc: the shown line of the edited text, comments and strings blanked


class _Family:
    """A family's first render, its sites per kind and its made choices."""

    def __init__(self, source: Source):
        self.source = source
        self.lines = source.text.split("\n")
        self.starts = list(accumulate((len(line) + 1 for line in self.lines), initial=0))
        self.sites: dict[str, object] = {}
        self.made: dict[tuple, _Made] = {}
        self._defines: list[tuple[int, str, str]] | None = None

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1

    def sites_for(self, kind: str):
        if kind not in self.sites:
            self.sites[kind] = maker_for(self.source, kind).sites(self.source)
        return self.sites[kind]

    def make(self, kind: str, choice: tuple) -> _Made:
        key = (kind, choice)
        made = self.made.get(key)
        if made is None:
            made = self.made[key] = self._make(kind, choice)
        return made

    def _make(self, kind: str, choice: tuple) -> _Made:
        source = self.source
        edit, report = maker_for(source, kind).make(source, self.sites[kind], choice)
        replaced = source.text[edit.start:edit.end]
        first = self.line_of(edit.start)
        needs = set(range(first, self.line_of(max(edit.start, edit.end - 1)) + 1))
        at: tuple[tuple[int, int], ...] = ()
        code_line = None
        if isinstance(report, (NvccAt, TritonAt)):
            if "\n" in replaced or "\n" in edit.new:    # positions after the edit would move between lines
                return _Made(edit, frozenset(range(len(self.lines))), None, report, (), None)
            at = tuple(self._edited_line_col(edit, pos) for pos in
                       ((report.pos,) if isinstance(report, NvccAt) else (report.def_pos, report.pos)))
            needs.update(line for line, _col in at)
        if isinstance(report, NvccAt):
            code_line = self._edited_code_line(edit, at[0][0])
        misspelt = replaced if kind in _MISSPELLING_KINDS else None
        return _Made(edit, frozenset(needs), misspelt, report, at, code_line)

    def _edited_line_col(self, edit: Edit, pos: int) -> tuple[int, int]:
        """(0-based line, col) of offset `pos` of the edited text (the edit changes no line count)."""
        delta = len(edit.new) - (edit.end - edit.start)
        edit_line = self.line_of(edit.start)
        if pos < edit.start:
            line = self.line_of(pos)
        elif pos < edit.start + len(edit.new):
            line = edit_line
        else:
            line = self.line_of(pos - delta)
        return line, pos - self.starts[line] - (delta if line > edit_line else 0)

    def _edited_code_line(self, edit: Edit, line: int) -> str:
        """Line `line` of code_view(edited text), from the unedited view: an edit of plain code that inserts no
        comment or string delimiter changes the view exactly as it changes the text."""
        text = self.source.text
        view = code_view(text, "cuda")
        if view[edit.start:edit.end] != text[edit.start:edit.end] or _VIEW_DELIMITERS.search(edit.new):
            return code_view(edit.apply(text), "cuda").split("\n")[line]
        start = self.starts[line]
        shown = view[start:self.starts[line + 1] - 1]
        if self.line_of(edit.start) == line:
            shown = shown[:edit.start - start] + edit.new + shown[edit.end - start:]
        return shown

    def defines(self) -> list[tuple[int, str, str]]:
        """(line, name, raw value) of each object-like #define of the first render."""
        if self._defines is None:
            text = self.source.text
            self._defines = [(self.line_of(m.start()), m.group(1), m.group(2)) for m in _DEFINE.finditer(text)]
        return self._defines


_FAMILIES: dict[Hashable, _Family] = {}


def inject_like(source: Source, kind: str, rng, family: Hashable) -> tuple[Source, Expected]:
    """`faults.inject(source, kind, rng)`, computed once per `family` (a key naming renders of one template that
    differ only in placeholder values: op, impl, dtype and variant) and carried over."""
    if kind not in CARRIED_KINDS:
        return inject(source, kind, rng)
    fam = _FAMILIES.get(family)
    if fam is None:
        fam = _FAMILIES[family] = _Family(source)
    same = source.text == fam.source.text
    lines = fam.lines if same else source.text.split("\n")
    if len(lines) != len(fam.lines) or source.lang != fam.source.lang or source.filename != fam.source.filename:
        return inject(source, kind, rng)
    differ = () if same else set(compress(count(), map(ne, fam.lines, lines)))
    rewind = rng.bit_generator.state if differ else None
    maker = maker_for(fam.source, kind)
    made = fam.make(kind, maker.draw(fam.source, fam.sites_for(kind), rng))
    if differ and (not made.needs.isdisjoint(differ) or _misspelling_differs(made, fam, lines, differ)):
        rng.bit_generator.state = rewind
        return inject(source, kind, rng)
    return _carry(made, fam, source, lines, differ)


def _misspelling_differs(made: _Made, fam: _Family, lines: list[str], differ) -> bool:
    """Whether a misspelling's options could be filtered differently: the names the render has (which a
    misspelling must avoid) differ from the first render's only by the names on the differing lines."""
    if made.misspelt is None:
        return False
    options = typo_options(made.misspelt)
    return any(not _line_names(line).isdisjoint(options) for i in differ for line in (fam.lines[i], lines[i]))


@lru_cache(maxsize=4096)
def _line_names(line: str) -> frozenset[str]:
    return frozenset(_identifiers(line))


def _carry(made: _Made, fam: _Family, source: Source, lines: list[str], differ) -> tuple[Source, Expected]:
    """The made fault moved into `source` (its lines in `lines`) by line and column."""
    def line_start(line: int) -> int:
        """Where line `line` starts in the render: the first render's start, moved by the differing lines above."""
        return fam.starts[line] + sum(len(lines[i]) - len(fam.lines[i]) for i in differ if i < line)

    def moved(pos: int) -> int:
        line = fam.line_of(pos)
        return line_start(line) + pos - fam.starts[line]

    edit = made.edit
    start = moved(edit.start)
    text = source.text[:start] + edit.new + source.text[start + edit.end - edit.start:]
    report = made.report
    if isinstance(report, TritonAt):
        edit_line, delta = fam.line_of(edit.start), len(edit.new) - (edit.end - edit.start)
        def_pos, pos = (line_start(line) + (delta if line > edit_line else 0) + col for line, col in made.at)
        expected = _triton_error(source, report.kind, text, def_pos, pos, report.error)
    elif isinstance(report, NvccAt):
        (line, col), = made.at
        shown = _display_for(made.code_line, col, fam, lines, differ)
        expected = Expected("compile_error", report.kind, "nvcc", line + 1,
                            f"{source.filename}({line + 1}): error: {report.message}", report.prefix + shown,
                            report.n_errors)
    else:
        expected = report
    return Source(text, source.filename, source.lang, source.compile_arch), expected


def _display_for(code_line: str, col: int, fam: _Family, lines: list[str], differ) -> str:
    """nvcc's shown line, its macros expanded with the render's own #defines (those on the differing lines
    read from the render)."""
    ordered = [d for d in fam.defines() if d[0] not in differ]
    patched = [(line, m.group(1), m.group(2)) for line in differ for m in _DEFINE.finditer(lines[line])]
    if patched:                       # in line order, so a later #define of a name wins as in the file
        ordered = sorted(ordered + patched, key=lambda d: d[0])
    raw = {name: value for _line, name, value in ordered}

    def macro(name: str) -> str | None:
        if name in raw:
            return _expand(name, raw)
        return _CUDA_MACROS.get(name)
    return _display(code_line, col, macro)
