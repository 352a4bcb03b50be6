"""Scanning C/CUDA and Python kernel text: code views with comments and strings blanked, identifiers, blocks,
macro expansion, function definitions and dead (never instantiated) template ranges.

Shared by the fault makers (faults.py, fault_families.py) and the styles (style.py): each finds its sites in
the rendered text with these, so a fault or a rename never lands in a comment, a string or dead code.
"""
from __future__ import annotations

import bisect
import re
from functools import lru_cache
from typing import Callable, Mapping

# A directive is matched from the newline before it (code_view puts one in front of the text): so every alternative
# starts with a literal, and the regex engine skips to one of those five characters instead of trying each offset,
# as the plain `^[ \t]*#...` (re.M) made it (~4x slower; tests/kernels/test_literal_first_patterns.py compares them).
C_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|\n[ \t]*#[^\n]*(?:\\\n[^\n]*)*',
                       re.S)


PY_TOKENS = re.compile(r'#[^\n]*|"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')


@lru_cache(maxsize=64)
def code_view(text: str, lang: str) -> str:
    """`text` with comments, string literals and (C) preprocessor lines blanked, same offsets and newlines."""
    if lang == "cuda":
        return C_TOKENS.sub(blank, "\n" + text)[1:]     # (a newline before a directive on the first line)
    return PY_TOKENS.sub(blank, text)


def blank(m: re.Match) -> str:
    token = m.group(0)
    return NOT_NEWLINE.sub(" ", token) if "\n" in token else " " * len(token)


NOT_NEWLINE = re.compile(r"[^\n]")


def line_col(text: str, pos: int) -> tuple[int, int]:
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1)


def line_text(text: str, line: int) -> str:
    return text.split("\n")[line - 1]


def identifiers(code: str) -> set[str]:
    """The names `IDENTIFIER` finds in `code`: an ASCII text's words are split out in C (bytes.translate, split), ~2x
    faster than a regex attempt at each offset."""
    if not code.isascii():
        return set(IDENTIFIER.findall(code))
    return {w.decode() for w in set(code.encode().translate(WORD_BYTES_ELSE_SPACE).split()) if w[0] in NAME_START_BYTES}


class NamesOf:
    """The names of a text, asked one at a time: `name in NamesOf(text)` is `name in identifiers(text)` (a whole run
    of word characters that starts with `[A-Za-z_]`), found by a whole-word search for that name. A fault asks only
    whether a misspelling's few options are taken, which costs less than splitting the whole text (~0.4 ms)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __contains__(self, name: str) -> bool:
        return name[:1] in ASCII_NAME_START and all(map(is_word_char, name)) \
            and next(whole_word(self.text, name, 0, len(self.text)), None) is not None


WORD_BYTES_ELSE_SPACE = bytes(b if b < 128 and (chr(b).isalnum() or b == ord("_")) else ord(" ") for b in range(256))


ASCII_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")   # what `[A-Za-z_]` matches


NAME_START_BYTES = frozenset(map(ord, ASCII_NAME_START))


@lru_cache(maxsize=64)
def blocks(code: str) -> tuple[list[int], list[int], list[int]]:
    """Every `{...}` block of `code` in order of its `{`: (open offsets, close offsets, parent index or -1).
    One pass per text, so each `block_end` is a bisection instead of a scan (faults run ~30K times a run)."""
    opens, closes, parents, stack = [], [], [], []
    for m in re.finditer(r"[{}]", code):
        if m.group(0) == "{":
            parents.append(stack[-1] if stack else -1)
            stack.append(len(opens))
            opens.append(m.start())
            closes.append(len(code))
        elif stack:
            closes[stack.pop()] = m.start()
    return opens, closes, parents


def block_end(code: str, pos: int) -> int:
    """Offset of the `}` closing the block that contains `pos` (len(code) at file scope)."""
    opens, closes, parents = blocks(code)
    i = bisect.bisect_left(opens, pos) - 1       # the last block opened before pos ...
    while i >= 0 and closes[i] < pos:            # ... or the nearest enclosing one still open at pos
        i = parents[i]
    return closes[i] if i >= 0 else len(code)


def enclosing(code: str, pos: int):
    """Indices of the blocks holding `pos` (`{` before it, `}` after it), innermost first: only the last block
    opened before `pos` and its parents can (any other closed before that one opened), so a walk up the block
    tree instead of a test of every block (asked for each candidate site of several fault kinds)."""
    opens, closes, parents = blocks(code)
    i = bisect.bisect_left(opens, pos) - 1
    while i >= 0:
        if pos < closes[i]:
            yield i
        i = parents[i]


def value_uses(code: str, name: str, start: int, end: int) -> list[int]:
    """Offsets of `name` used as a value (not a member, not a call) in code[start:end], `end` at a block's `}` (or
    the end): what the pattern `(?<![\\w.>:])NAME\\b(?!\\s*\\()` finds there, from str.find (a compiled pattern per
    name, or an index of every name, cost more than the few names a family's faults ask for)."""
    out = []
    for at in whole_word(code, name, start, end):
        if at > 0 and code[at - 1] in ".>:":           # a member (`.x`, `->x`) or a qualified name
            continue
        j = skip_space(code, at + len(name), end)
        if j >= end or code[j] != "(":                 # not a call
            out.append(at)
    return out


def whole_word(code: str, name: str, start: int, end: int):
    """Offsets where `name` stands as a whole word in code[start:end]."""
    n = len(name)
    at = code.find(name, start, end)
    while at >= 0:
        if (at == 0 or not is_word_char(code[at - 1])) and (at + n == len(code) or not is_word_char(code[at + n])):
            yield at
        at = code.find(name, at + 1, end)


def skip_space(code: str, j: int, end: int) -> int:
    """The first offset at or after j that is no space (`end` if none before it): one regex match, not a loop over
    the characters (regex whitespace is str.isspace)."""
    return SPACES.match(code, j, end).end() if j < end else j


SPACES = re.compile(r"\s*")


# CUDA keyword macros as nvcc's preprocessor expands them (the front end prints preprocessed lines).
CUDA_MACROS = {
    "__global__": "__attribute__((global))", "__device__": "__attribute__((device))",
    "__host__": "__attribute__((host))", "__shared__": "__attribute__((shared))",
    "__constant__": "__attribute__((constant))", "__forceinline__": "__inline__ __attribute__((always_inline))",
    "__noinline__": "__attribute__((noinline))",
}


DEFINE_LINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*([^\n]*?)[ \t]*(?://[^\n]*)?$", re.M)


IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def expand_macro(name: str, raw: Mapping[str, str]) -> str:
    """`raw[name]` with the macros it names expanded, as far as 8 levels (a self-reference stays)."""
    value, seen = raw[name], {name}
    for _ in range(8):
        new = IDENTIFIER.sub(lambda m: m.group(0) if m.group(0) in seen else raw.get(m.group(0), m.group(0)), value)
        if new == value:
            break
        value = new
    return value


@lru_cache(maxsize=64)
def macros(text: str) -> dict[str, str]:
    """Object-like `#define NAME VALUE` of the source, fully expanded."""
    raw = dict(DEFINE_LINE.findall(text))
    out = dict(CUDA_MACROS)
    out.update((name, expand_macro(name, raw)) for name in raw)
    return out


def display_line(code_line: str, col: int, macro: Callable[[str], str | None]) -> str:
    """The source line and caret as nvcc prints them: preprocessed (`macro(name)` is a macro's expansion or
    None), comments gone."""
    code_line = code_line.rstrip()
    out, shift, last = [], 0, 0
    for m in IDENTIFIER.finditer(code_line):
        value = macro(m.group(0))
        if value is None:
            continue
        out.append(code_line[last:m.start()] + value)
        if m.start() < col:
            shift += len(value) - len(m.group(0))
        last = m.end()
    shown = "".join(out) + code_line[last:]
    return f"  {shown}\n  {' ' * (col + shift)}^"


NOT_FUNCS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "__launch_bounds__", "asm"}


# the plain `\btemplate\s*<` with the word boundary checked after the literal, so the regex engine skips to each
# `template` (tests/kernels/test_literal_first_patterns.py)
TEMPLATE_HEAD = re.compile(r"template(?<!\wtemplate)\s*<")


def skip_space_back(code: str, j: int) -> int:
    """The last non-space offset at or before j (-1 if none)."""
    while j >= 0 and code[j].isspace():
        j -= 1
    return j


@lru_cache(maxsize=64)
def function_defs(code: str) -> tuple[tuple[str, bool, int, int], ...]:
    """(name, is a template, body start, body end) of every function definition: each block whose `{`
    follows `name(...)` (or `name(...) const`), found from the block list rather than by one big regex. Cached per
    code: a render's dead code and its function templates both read them."""
    opens, closes, _parents = blocks(code)
    defs = []
    for o, c in zip(opens, closes):
        j = skip_space_back(code, o - 1)
        if code.endswith("const", 0, j + 1):
            j = skip_space_back(code, j - 5)
        if j < 0 or code[j] != ")":
            continue
        k = opening_paren(code, j)
        name = name_before(code, max(0, k - 256), k)
        if name is None or code[name[0]:name[1]] in NOT_FUNCS or any(ch in code[k:j] for ch in ";{}"):
            continue
        start = name[0]
        head = max(code.rfind(ch, 0, start) for ch in ";{}") + 1
        defs.append((code[start:name[1]], TEMPLATE_HEAD.search(code, head, start) is not None, o + 1, c))
    return tuple(defs)


def opening_paren(code: str, close: int) -> int:
    """The offset of the `(` that the `)` at `close` closes, -1 if none: going left, the first `(` with as many
    `(` as `)` from it to `close` (found `(` by `(`, the `)` between counted in C)."""
    depth, pos = 1, close
    while True:
        at = code.rfind("(", 0, pos)
        if at < 0:
            return -1
        depth += code.count(")", at + 1, pos) - 1
        if depth == 0:
            return at
        pos = at


def name_before(code: str, lo: int, end: int) -> tuple[int, int] | None:
    """(start, end) of the name code[lo:end] ends with (spaces after it allowed), None if it ends with none: what
    `([A-Za-z_]\\w*)\\s*$` searched in code[lo:end] finds, without a regex attempt at each offset."""
    e = end
    while e > lo and code[e - 1].isspace():
        e -= 1
    start = e
    while start > lo and is_word_char(code[start - 1]):
        start -= 1
    while start < e and code[start] not in ASCII_NAME_START:
        start += 1
    return (start, e) if start < e else None


# a name called (or launched), template arguments allowed; `(?=[A-Za-z_])` and the possessive quantifiers only
# spare the regex engine attempts that fail (a shorter name or fewer spaces cannot be followed by `<` or `(`)
CALLED = re.compile(r"(?=[A-Za-z_])\b([A-Za-z_]\w*+)\s*+(?:<(?:[^<>;()]|<[^<>;()]*>)*>\s*)?(?:\(|<<<)")


def dead_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """Bodies of function templates nothing compiled instantiates. nvcc does not even diagnose them, so a
    fault there is no fault."""
    return dead_code_ranges(code_view(text, "cuda"))


@lru_cache(maxsize=64)
def dead_code_ranges(code: str) -> tuple[tuple[int, int], ...]:
    """`dead_ranges` of a code view (`code_view` output), cached per code: the fault sites and the unreferenced
    variables of one render ask for the same. Reachable: the non-template functions, then each function template
    called from reachable code. A call is looked for at its name's whole-word places (str.find), not by CALLED
    over every body: CALLED matches there exactly where its scan of the body does (no match of it can hold the
    start of another: its template arguments hold no `(` and no `<<<`)."""
    defs = function_defs(code)
    templates: dict[str, list] = {}          # name -> its template definitions, in order
    for d in defs:
        if d[1]:
            templates.setdefault(d[0], []).append(d)
    live = [d for d in defs if not d[1]]
    unreached = templates.keys() - {d[0] for d in live}
    while live and unreached:        # once every template is named, the rest of the code cannot change the answer
        _name, _tmpl, start, end = live.pop()
        for name in [name for name in templates if name in unreached]:
            if any(CALLED.match(code, at, end) for at in whole_word(code, name, start, end)):
                unreached.discard(name)
                live += templates[name]
    return tuple((start, end) for name, tmpl, start, end in defs if tmpl and name in unreached)


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"
