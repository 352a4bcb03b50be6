"""Faults for the many renders of one template family, at the cost of one.

The renders of a family (the workbench's: one op, impl, variant and line count; any dtype, GPU, shape or tuned
parameters) differ only in placeholder values, on the same lines: a GPU name in a comment, `#define BLOCK_M 64`,
`constexpr int HEAD_DIM = 128;`, a dtype in a signature. So the places a fault can be made, and the edit a random
choice makes, are the same in all of them. Finding them is what costs (scans of a 10-15 KB source, ~2-5 ms a
fault, ~45,000 faults a default run), so each family's first render is scanned once per fault kind, each choice's
edit is made there once, and the other renders get that edit by line and column. The tool's report is rebuilt for
the render itself (its own macros, file name and lines), and kept per made choice and what it reads of the render
where that differs from the first render (the excerpt's differing lines, the differing #define lines of the macros
the shown line reads). When the edit, a line the tool shows, or the names a misspelling must avoid involve a line
on which the two renders differ, the fault is tried in the next, narrower family the caller names (the same dtype
too), else made on the render directly (`faults.inject`), the rng rewound each time, so the result is what
`faults.inject` gives in every case; tests/kernels/test_fault_families.py checks that over the catalog. A render is
compared with the first in place: the text between the few lines some render differed on must match exactly,
those lines are read up to their newline (a render that differs elsewhere is split into lines). A kind that is not
carried (its edit reads the compile target) is made on the render directly.
"""
from __future__ import annotations

import bisect
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, compress, count
from operator import ne
from typing import Hashable

from generator.kernels import Source
from generator.kernels.faults import (FAULT_KINDS, Edit, Expected, NvccAt, TritonAt, inject, maker_for, nvcc_expected,
                                      triton_expected, typo_options)
from generator.kernels.scanner import CUDA_MACROS, DEFINE_LINE, IDENTIFIER, display_line, expand_macro, identifiers, code_view

# triton_fp8_unsupported reads the compile target, which a family does not fix.
CARRIED_KINDS = frozenset(FAULT_KINDS) - {"triton_fp8_unsupported"}
_MISSPELLING_KINDS = frozenset({"undefined_identifier", "triton_compilation_error"})
_VIEW_DELIMITERS = re.compile(r"""[/*"'#\n]""")   # characters that could open a comment or string if inserted
_MAX_VARYING = 64      # lines checked one by one against a render; past that, splitting it into lines is cheaper


@dataclass(slots=True)
class _Made:
    """One choice's fault on the family's first render, in that render's coordinates. Fixed once made, but for the
    two caches at the end (not frozen: its per-field setattr cost ~2 us a made choice)."""

    edit: Edit
    edit_line: int               # 0-based line of edit.start
    lines: int                   # of the edited text
    needs: frozenset[int]        # 0-based lines that must read the same in a render that takes this edit
    misspelt: frozenset[str] | None   # a misspelling's options (they must not be names on a differing line)
    report: object               # Expected, NvccAt or TritonAt (offsets in the edited text)
    at: tuple[tuple[int, int], ...]   # the report's (line, col) in the edited text: NvccAt pos; TritonAt def, pos
    code_line: str | None        # nvcc: the shown line of the edited text, comments and strings blanked
    reads: frozenset[str] | None = None   # nvcc: the names the shown line reads, through macro values too
    reports: dict = field(default_factory=dict, compare=False)   # carried reports by what they read of a render


class _Render:
    """A render of the family, as the lines on which it reads otherwise than the family's first render."""

    __slots__ = ("lines", "_above", "_shift", "_macro_change")

    def __init__(self, fam: _Family, lines: dict[int, str]):
        self.lines = lines                     # 0-based line -> the render's text, for each differing line, in order
        self._above = list(lines)
        self._shift = shift = []               # the length change up to each of them
        total = 0
        for i, text in lines.items():
            total += len(text) - len(fam.lines[i])
            shift.append(total)
        self._macro_change: tuple | None = None

    @property
    def differ(self):
        return self.lines.keys()

    def differing(self, first: int, last: int) -> tuple[tuple[int, str], ...]:
        """(line, the render's text) of each of lines `first` to `last` that reads otherwise than in the family's
        first render."""
        above = self._above
        k = bisect.bisect_left(above, first)
        if k == len(above) or above[k] > last:
            return ()
        lines = self.lines
        return tuple((i, lines[i]) for i in above[k:bisect.bisect_right(above, last, k)])

    def line_start(self, fam: _Family, line: int) -> int:
        """Where line `line` starts in the render: the first render's start, moved by the differing lines above."""
        k = bisect.bisect_left(self._above, line)
        return fam.starts[line] + (self._shift[k - 1] if k else 0)

    def macro_change(self, fam: _Family) -> tuple[tuple[tuple[int, str], ...], frozenset[str]]:
        """(the differing lines that hold a #define in either render, the names they define): where the render's
        macros can differ from the first render's."""
        if self._macro_change is None:
            lines, names = [], set()
            for i, text in self.lines.items():
                ours, first = _defined_in(text), _defined_in(fam.lines[i])
                if ours or first:
                    lines.append((i, text))
                    names.update(ours)
                    names.update(first)
            self._macro_change = (tuple(lines), frozenset(names))
        return self._macro_change


class _Family:
    """A family's first render, its sites per kind and its made choices."""

    def __init__(self, source: Source):
        self.source = source
        self.lines = source.text.split("\n")
        self.starts = list(accumulate((len(line) + 1 for line in self.lines), initial=0))
        self.sites: dict[str, object] = {}
        self.made: dict[tuple, _Made] = {}
        self._defines: list[tuple[int, str, str]] | None = None
        self._raw: dict[tuple, dict[str, str]] = {}
        self._varying: list[int] = []            # lines on which some render differed, in order
        self._pieces = [source.text]             # the text around them: before the first, after each
        self._checks: list[tuple[int, str, str]] = []
        self._last: tuple[str, _Render | None] = (source.text, _Render(self, {}))

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1

    def render(self, source: Source) -> _Render | None:
        """The render's differing lines; None when it has another line count, language or file name."""
        if source.lang != self.source.lang or source.filename != self.source.filename:
            return None
        text = source.text
        if text is not self._last[0]:      # a render is often faulted again right after (same object)
            self._last = (text, self._render(text))
        return self._last[1]

    def _render(self, text: str) -> _Render | None:
        lines = self._known_lines(text) if len(self._varying) <= _MAX_VARYING else None
        if lines is None:
            split = text.split("\n")
            if len(split) != len(self.lines):
                return None
            lines = {i: split[i] for i in compress(count(), map(ne, self.lines, split))}
            if not lines.keys() <= set(self._varying):
                self._vary(lines)
        return _Render(self, lines)

    def _known_lines(self, text: str) -> dict[int, str] | None:
        """The render's differing lines when they are all among the lines known to vary, else None: each piece
        of unvarying text is compared in place, each varying line read up to its newline."""
        head = self._pieces[0]
        if not text.startswith(head):
            return None
        pos, out = len(head), {}
        for i, line, after in self._checks:
            end = text.find("\n", pos)
            if not after:                        # the file's last line
                if end >= 0:
                    return None
                end = len(text)
            elif end < 0 or not text.startswith(after, end):
                return None
            read = text[pos:end]
            if read != line:
                out[i] = read
            pos = end + len(after)
        return out if pos == len(text) else None

    def _vary(self, lines: dict[int, str]) -> None:
        """Count `lines` among the varying lines from now on."""
        self._varying = varying = sorted(set(self._varying) | lines.keys())
        text, starts = self.source.text, self.starts
        ends = [starts[i + 1] - 1 for i in varying]          # the newline after each (or the text's end)
        self._pieces = [text[:starts[varying[0]]]] + [text[end:starts[nxt]] for end, nxt in zip(ends, varying[1:])] \
            + [text[ends[-1]:]]
        # (line, its text in the first render, the unvarying text after it) per varying line: what a render is read by
        self._checks = [(i, self.lines[i], after) for i, after in zip(varying, self._pieces[1:])]

    def sites_for(self, kind: str):
        sites = self.sites.get(kind)
        if sites is None:
            sites = self.sites[kind] = maker_for(self.source, kind).sites(self.source)
        return sites

    def make(self, kind: str, choice: tuple) -> _Made:
        key = (kind, choice)
        made = self.made.get(key)
        if made is None:
            made = self.made[key] = self._make(kind, choice)
        return made

    def _make(self, kind: str, choice: tuple) -> _Made:
        source = self.source
        edit, report = maker_for(self.source, kind).make(source, self.sites[kind], choice)
        replaced = source.text[edit.start:edit.end]
        lines = len(self.lines) + edit.new.count("\n") - replaced.count("\n")
        first = self.line_of(edit.start)
        needs = set(range(first, self.line_of(max(edit.start, edit.end - 1)) + 1))
        at: tuple[tuple[int, int], ...] = ()
        code_line = None
        if isinstance(report, (NvccAt, TritonAt)):
            if "\n" in replaced or "\n" in edit.new:    # positions after the edit would move between lines
                return _Made(edit, first, lines, frozenset(range(len(self.lines))), None, report, (), None)
            at = tuple(self._edited_line_col(edit, pos) for pos in
                       ((report.pos,) if isinstance(report, NvccAt) else (report.def_pos, report.pos)))
            needs.update(line for line, _col in at)
            if isinstance(report, NvccAt) and (report.follow or report.notes):   # these show lines of their own
                needs.update(range(len(self.lines)))
        if isinstance(report, NvccAt):
            code_line = self._edited_code_line(edit, at[0][0])
        misspelt = frozenset(typo_options(replaced)) if kind in _MISSPELLING_KINDS else None
        return _Made(edit, first, lines, frozenset(needs), misspelt, report, at, code_line)

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
            self._defines = [(self.line_of(m.start()), m.group(1), m.group(2)) for m in DEFINE_LINE.finditer(text)]
        return self._defines

    def raw_macros(self, key: tuple[tuple[int, str], ...]) -> dict[str, str]:
        """NAME -> raw value of the #defines of a render whose differing #define lines are `key` (a later one of a
        name wins, as in the file): the first render's, with those lines read from the render."""
        raw = self._raw.get(key)
        if raw is None:
            changed = {line for line, _text in key}
            ordered = [d for d in self.defines() if d[0] not in changed]
            patched = [(line, m.group(1), m.group(2)) for line, text in key for m in DEFINE_LINE.finditer(text)]
            if patched:                       # in line order, so a later #define of a name wins as in the file
                ordered = sorted(ordered + patched, key=lambda d: d[0])
            raw = self._raw[key] = {name: value for _line, name, value in ordered}
        return raw


# The families in use, least recently used first. A family belongs to one engineer's style (a session, an agent),
# so older ones are never asked again: the bound keeps memory flat over a run (unbounded, a default kernelswarm run
# kept ~4,700 of them: 593 MB peak RSS, 450 MB with the bound). Dropping one changes no output: a family only spares
# work.
_FAMILIES: OrderedDict[Hashable, _Family] = OrderedDict()
_MAX_FAMILIES = 512


def inject_like(source: Source, kind: str, rng, *families: Hashable) -> tuple[Source, Expected, int]:
    """`faults.inject(source, kind, rng)` and the edited source's line count (known for a carried fault without
    counting a 10-15 KB text: ~8 us a fault), computed once per family (a key naming renders of one template that
    differ only in placeholder values, e.g. op, impl, variant and line count) and carried over. Several keys, widest
    first: a fault a wide family cannot carry (its edit or report reads a line on which the render differs) is
    tried in the next, narrower one (e.g. with the dtype too), so a wide family's scans serve most renders and a
    narrow one's the rest."""
    if kind not in CARRIED_KINDS:
        return _injected(source, kind, rng)
    for family in families:
        fam = _family(family, source)
        render = fam.render(source)
        if render is None:
            continue
        differ = render.differ
        rewind = rng.bit_generator.state if differ else None
        made = fam.make(kind, maker_for(fam.source, kind).draw(fam.source, fam.sites_for(kind), rng))
        if differ and (not made.needs.isdisjoint(differ) or _misspelling_differs(made, fam, render)):
            rng.bit_generator.state = rewind
            continue
        return _carry(made, fam, source, render)
    return _injected(source, kind, rng)


def _family(family: Hashable, source: Source) -> _Family:
    """The family named `family`, made with `source` as its first render if it is new."""
    fam = _FAMILIES.get(family)
    if fam is None:
        fam = _FAMILIES[family] = _Family(source)
        if len(_FAMILIES) > _MAX_FAMILIES:
            _FAMILIES.popitem(last=False)
    else:
        _FAMILIES.move_to_end(family)
    return fam


def _injected(source: Source, kind: str, rng) -> tuple[Source, Expected, int]:
    """`faults.inject`'s fault, with its text's line count."""
    edited, expected = inject(source, kind, rng)
    return edited, expected, edited.text.count("\n") + 1


def _misspelling_differs(made: _Made, fam: _Family, render: _Render) -> bool:
    """Whether a misspelling's options could be filtered differently: the names the render has (which a
    misspelling must avoid) differ from the first render's only by the names on the differing lines."""
    options = made.misspelt
    if options is not None:
        for i, text in render.lines.items():
            if not options.isdisjoint(_line_names(fam.lines[i])) or not options.isdisjoint(_line_names(text)):
                return True
    return False


@lru_cache(maxsize=4096)
def _line_names(line: str) -> frozenset[str]:
    return frozenset(identifiers(line))


@lru_cache(maxsize=4096)
def _defined_in(line: str) -> tuple[str, ...]:
    """The names a line #defines (renders repeat their few #define lines' texts: `#define BLOCK_M 64`)."""
    return tuple(m.group(1) for m in DEFINE_LINE.finditer(line))


def _carry(made: _Made, fam: _Family, source: Source, render: _Render) -> tuple[Source, Expected, int]:
    """The made fault moved into `source` (a render of `fam`) by line and column."""
    edit, edit_line = made.edit, made.edit_line
    start = render.line_start(fam, edit_line) + edit.start - fam.starts[edit_line]
    text = source.text[:start] + edit.new + source.text[start + edit.end - edit.start:]
    report = made.report
    if isinstance(report, TritonAt):
        (def_line, _def_col), (line, col) = made.at
        key = render.differing(def_line, line)   # what the excerpt (its def line to its error line) reads otherwise
        expected = made.reports.get(key)
        if expected is None:
            delta = len(edit.new) - (edit.end - edit.start)

            def edited_start(line: int) -> int:
                return render.line_start(fam, line) + (delta if line > edit_line else 0)
            end = edited_start(line + 1) - 1 if line + 1 < len(fam.lines) else len(text)
            expected = made.reports[key] = triton_expected(report.kind, line + 1, col, def_line + 1,
                                                           text[edited_start(def_line):end], report.error)
    elif isinstance(report, NvccAt):
        lines, names = render.macro_change(fam)
        if names and made.reads is None:
            made.reads = _macro_reads(made.code_line, fam.raw_macros(()))
        key = lines if names and not made.reads.isdisjoint(names) else ()   # no changed macro read: as first
        expected = made.reports.get(key)
        if expected is None:
            (line, col), = made.at
            expected = made.reports[key] = nvcc_expected(source.filename, report, line + 1,
                                                         _display_for(made.code_line, col, fam.raw_macros(key)))
    else:
        expected = report
    return Source(text, source.filename, source.lang, source.compile_arch), expected, made.lines


def _macro_reads(code_line: str, raw: dict[str, str]) -> frozenset[str]:
    """The names nvcc's shown `code_line` reads: its own, and those in the values of the macros it reads."""
    reads = set(IDENTIFIER.findall(code_line))
    todo = list(reads)
    while todo:
        for name in IDENTIFIER.findall(raw.get(todo.pop(), "")):
            if name not in reads:
                reads.add(name)
                todo.append(name)
    return frozenset(reads)


def _display_for(code_line: str, col: int, raw: dict[str, str]) -> str:
    """nvcc's shown line, its macros expanded with the render's own #defines (`raw`)."""
    def macro(name: str) -> str | None:
        if name in raw:
            return expand_macro(name, raw)
        return CUDA_MACROS.get(name)
    return display_line(code_line, col, macro)
