"""The mistake a fix can carry: made only on the lines the fix retypes.

A fix rewrites the lines its report points at. A real failed fix gets those lines wrong again (a typo in the
retyped line, another wrong correction of the same expression); it rarely breaks a working line it did not touch.
0.6.7 drew a re-fix's mistake anywhere in the file: 19 % of its fixes also broke an unrelated line (a deleted
barrier, another operand's stride), an edit no report motivated.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from generator.kernels import Source
from generator.kernels.faults import MAKERS, Expected, NoFaultSite, _typo, report_expected

# A typo in a retyped line: a misspelt name (nvcc, Triton), a dropped `;` (nvcc).
TYPO_KINDS = {"cuda": ("undefined_identifier", "missing_semicolon"), "triton": ("triton_compilation_error",)}
# Wrong results one expression can get in more than one way (another stride, another scale of the line, another
# grid axis); a deleted barrier or a half-mask shuffle has one way per line: its retyped line is right or typo'd.
CORRECTION_KINDS = ("wrong_stride", "dropped_scale", "truncated_grid")


def broken_span(clean: str, broken: str) -> tuple[int, int]:
    """[start, end) offsets in `clean` of the lines `broken` changes: all but their common leading and trailing
    lines (end takes the last such line's newline, so a deleted line is its whole text)."""
    a, b = clean.split("\n"), broken.split("\n")
    n = min(len(a), len(b))
    head = next((i for i in range(n) if a[i] != b[i]), n)
    tail = next((i for i in range(n - head) if a[-1 - i] != b[-1 - i]), n - head)
    start = sum(map(len, a[:head])) + head
    end = start + sum(map(len, a[head:len(a) - tail])) + len(a) - tail - head
    return start, min(end, len(clean))


def retyped_mistake(source: Source, broken: str, rng,
                    fits: Callable[[str, Expected], bool]) -> tuple[Source, Expected, int] | None:
    """A mistake made retyping, in `source` (the clean render), the lines `broken` got wrong: a typo there, or
    (when `broken` is a CORRECTION_KINDS fault) another wrong correction on those lines. None when there is none
    (the fix succeeds); with the edited text's line count, as fault_families.inject_like. `fits(kind, expected)`:
    whether a wrong result counts (it changes what the candidate does)."""
    start, end = broken_span(source.text, broken)
    typos = TYPO_KINDS[source.lang]
    sites_of = {kind: _sites(source, kind) for kind in typos + CORRECTION_KINDS}
    kinds = list(typos) + _parent_kinds(source, sites_of, broken, start, end)
    rng.shuffle(kinds)
    for kind in kinds:
        sites = sites_of[kind]
        choices = _choices(source, kind, sites, start, end, broken)
        if not choices:
            continue
        choice = choices[int(rng.integers(len(choices)))]
        if kind in typos:
            choice = _misspelt(kind, sites, choice, rng)
        edit, report = MAKERS[kind].make(source, sites, choice)
        text = edit.apply(source.text)
        expected = report_expected(source, text, report)
        if expected.status == "compile_error" or fits(kind, expected):
            return replace(source, text=text), expected, text.count("\n") + 1
    return None


def _sites(source: Source, kind: str):
    try:
        return MAKERS[kind].sites(source)
    except NoFaultSite:
        return None


def _parent_kinds(source: Source, sites_of: dict, broken: str, start: int, end: int) -> list[str]:
    """The CORRECTION_KINDS fault `broken` is (a list of one), else none."""
    for kind in CORRECTION_KINDS:
        sites = sites_of[kind]
        if sites is not None and any(edit.apply(source.text) == broken
                                     for _c, edit in _within(source, kind, sites, start, end)):
            return [kind]
    return []


def _choices(source: Source, kind: str, sites, start: int, end: int, broken: str) -> list[tuple]:
    """The choices of `kind` on the lines [start, end) (a typo kind's without its misspelling), but the one
    that gives `broken` back."""
    if sites is None:
        return []
    if kind == "undefined_identifier":
        span = source.text[start:end]
        return [(at, name) for i, (name, _pos) in enumerate(sites.decls) if name in span
                for _n, at in sites.uses(i) if start <= at < end]
    if kind == "missing_semicolon":
        return [(i,) for i, (semi, _tok) in enumerate(sites.candidates) if start <= semi < end and sites.regular(i)]
    if kind == "triton_compilation_error":
        return [(i,) for i, (what, _def, at, _arg) in enumerate(sites[0]) if what == "name" and start <= at < end]
    return [c for c, edit in _within(source, kind, sites, start, end) if edit.apply(source.text) != broken]


def _within(source: Source, kind: str, sites, start: int, end: int) -> list[tuple]:
    """(choice, its edit) of wrong-result `kind`, for every choice whose edit lies within [start, end)."""
    if kind == "wrong_stride":
        every = [(i, other) for i, (_m, others, _index) in enumerate(sites) for other in (*others, None)]
    else:
        every = [(i,) for i in range(len(sites))]
    made = ((c, MAKERS[kind].make(source, sites, c)[0]) for c in every)
    return [(c, edit) for c, edit in made if start <= edit.start and edit.end <= end]


def _misspelt(kind: str, sites, choice: tuple, rng) -> tuple:
    """A typo kind's full choice: its site and a misspelling no name of the source has (faults._typo)."""
    if kind == "undefined_identifier":
        at, name = choice
        return at, name, _typo(name, rng, sites.taken) or name + "_"
    if kind == "triton_compilation_error":
        arg = sites[0][choice[0]][3]
        return choice[0], _typo(arg, rng, sites[1]) or arg + "_"
    return choice
