"""Realistic faults as real edits of rendered sources, with the diagnostic the real tool prints.

Two ways a candidate fails:
- `inject(source, kind, rng)` edits the text (a typo, a dropped `;`, a deleted barrier, ...). Sites are found
  by pattern in the rendered text; a kind with no site raises `NoFaultSite` (use `applicable_kinds(source)` to
  pick a kind that has one).
- `expect_clean(source, task, variant, params)` says what an *unedited* render does on its GPU: ok, or an
  outcome of the choice itself (`OUTCOME_KINDS`: an arch-gated instruction on a GPU without it, dynamic shared
  memory over the per-block cap, Triton shared memory over the hardware limit, fp8 on cc 80/86, an 8-bit
  `tl.dot` with BLOCK_K < 32: triton_dot).
The predicted texts were fixed by experiment with nvcc 13.0 and Triton 3.9 (`audit-compile` re-checks them).
Line numbers are 1-based in the shown source; Triton's `at L:C:` counts the `def` line as 1 (col 0-based).
"""
from __future__ import annotations

import bisect
import re
import zlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable

from generator.catalog.hardware import GPUS
from generator.kernels import Source, diagnostics, full_params, record_arch, record_diagnostics, scanner, triton_dot
from generator.catalog.variants import lacking, launch_limits

FAULT_KINDS = (
    "undefined_identifier", "missing_semicolon", "type_mismatch", "wrong_template_arg", "arch_unsupported",
    "static_smem_overflow", "triton_compilation_error", "triton_fp8_unsupported", "triton_dot_shape",
    "dyn_smem_over_cap", "triton_out_of_resources",
    "missing_syncthreads", "truncated_grid", "wrong_stride", "dropped_scale", "racy_reduction",
)
WRONG_RESULT_KINDS = ("missing_syncthreads", "truncated_grid", "wrong_stride", "dropped_scale", "racy_reduction")
OUTCOME_KINDS = ("arch_unsupported", "static_smem_overflow", "dyn_smem_over_cap", "triton_out_of_resources",
                 "triton_dot_shape")
TEXT_KINDS = {
    "cuda": ("undefined_identifier", "missing_semicolon", "type_mismatch", "wrong_template_arg") + WRONG_RESULT_KINDS,
    "triton": ("triton_compilation_error", "triton_fp8_unsupported", "truncated_grid", "wrong_stride",
               "dropped_scale", "racy_reduction"),
}
STATIC_SMEM_LIMIT = {"sm_90a": 0x38C00, "sm_100a": 0x38C00, "sm_120a": 0x18C00}   # else 0xC000 (48 KB)


@dataclass(frozen=True)
class Expected:
    """What the real tool does with a candidate."""

    status: str              # ok | compile_error | launch_error (compiled, launch refused) | wrong_result
    kind: str | None         # a FAULT_KINDS entry, None when clean
    tool: str                # nvcc | ptxas | triton | runtime | check
    line: int | None         # 1-based line the tool names, in the shown source (None for ptxas / runtime)
    message: str             # the first diagnostic line as printed; a wrong result's is what the models read and the
                             # report never prints (truncated_grid: its floored "M / BLOCK_M"; wrong_stride: its
                             # product before and after, "m * N -> m * (N + 1)"; dropped_scale: the line the factor
                             # is deleted from, stripped)
    context: str = ""        # what the tool prints after it (source line + caret, notes, further lines); a CUDA
                             # launch refusal's figures behind the runtime's error string, never printed
    n_errors: int = 1        # nvcc's "N errors detected" count


OK = Expected("ok", None, "check", None, "")


class NoFaultSite(ValueError):
    """The source has no place where this fault kind can be made."""







































def nvcc_expected(filename: str, report: NvccAt, line: int, shown: str) -> Expected:
    """nvcc's report of `report` on 1-based `line` of `filename`; `shown` is the line and caret (scanner.display_line's)."""
    follow = f"\n\n{report.follow}" if report.follow else ""
    notes = f"\n{report.notes}" if report.notes else ""
    return Expected("compile_error", report.kind, "nvcc", line, f"{filename}({line}): error: {report.message}",
                    report.prefix + shown + notes + follow, report.n_errors)


# Names a typo must not land on: they exist in the CUDA/C headers every source includes.
_HEADER_NAMES = frozenset("""abs min max fmin fmax fminf fmaxf exp expf exp2 exp2f log logf log2 log2f sqrt sqrtf
rsqrt rsqrtf sin sinf cos cosf tan tanh tanhf erf erff pow powf fma fmaf floor ceil round rint trunc signbit isnan
isinf div ldiv abort exit free malloc puts printf assert dim3 half half2 int2 int4 uint2 uint4 float2 float4 char2
char4 short2 size_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t clock time
cosl sinl tanl expl logl powl sqrtl fabs fabsf fabsl floorf ceilf roundf truncf fmod fmodf acos asin atan atan2 cosh
sinh log10 log1p expm1 cbrt hypot ldexp frexp modf copysign nan
tm timespec div_t ldiv_t lldiv_t clock_t time_t FILE""".split())   # + long double / other libm: `cols` -> `cosl` is
# declared, not undefined; the headers' types (time.h's `struct tm`): nvcc says "type name is not allowed"
_HEADER_FUNCTIONS = _HEADER_NAMES | {"index", "rindex"}    # (strings.h, which the CUDA headers include)
# ... nor a keyword (`dot` -> `do` is a syntax error, not an undefined name), C++ or Python.
_HEADER_NAMES |= frozenset("""do if for int new try and or not xor auto bool case char const else enum goto long
void this true false using while break float short union in is def del as""".split())


@lru_cache(maxsize=4096)
def typo_options(name: str) -> tuple[str, ...]:
    """Plausible misspellings of `name`: swapped neighbours, a dropped or a doubled letter (none a header name)."""
    options = []
    for i in range(1, len(name) - 1):
        if name[i] != name[i + 1]:
            options.append(name[:i] + name[i + 1] + name[i] + name[i + 2:])
    options += [name[:i] + name[i + 1:] for i in range(1, len(name))]
    options += [name[:i] + name[i] + name[i:] for i in range(1, len(name)) if name[i].isalpha()]
    return tuple(o for o in dict.fromkeys(options) if o not in _HEADER_NAMES and o != name
                 and not o.startswith("__") and re.fullmatch(r"[A-Za-z_]\w*", o))


def _typo(name: str, rng, taken: scanner.NamesOf) -> str | None:
    """A misspelling of `name` that is no name of the source (`taken`)."""
    options = [o for o in typo_options(name) if o not in taken]
    return options[_index(rng, len(options))] if options else None


def _live(sites: list, source: Source, pos: Callable) -> list:
    """The sites (`pos`: site -> offset) in code the compiler instantiates; Python sources have no dead code.
    Dead code is the body of a function template (its head holds `template <`), so a site outside every template
    is live: the dead code is looked for only when a site is in one."""
    if source.lang != "cuda" or not sites:      # no site, no need to know the dead code
        return sites
    code = scanner.code_view(source.text, "cuda")
    if not any(diagnostics.in_template(code, pos(s)) for s in sites):
        return sites
    dead = scanner.dead_ranges(source.text)
    if not dead:
        return sites
    return [s for s in sites if not any(a <= pos(s) < b for a, b in dead)]


def _pick(sites: list, kind: str, source: Source, rng) -> int:
    """The index of one site, at random."""
    if not sites:
        raise _no_site(kind, source)
    return _index(rng, len(sites))


def _no_site(kind: str, source: Source) -> NoFaultSite:
    return NoFaultSite(f"{source.filename}: no site for fault kind {kind!r} in this {source.lang} source")


def _index(rng, n: int) -> int:
    """`int(rng.integers(n))` (so also `rng.choice` of an n-item list); the site prober's stand-in rng always
    takes the first."""
    return 0 if rng.__class__ is _NullRng else int(rng.integers(n))


















# ---- CUDA compile faults ---------------------------------------------------------------------------------

_C_KEYWORDS = {"return", "else", "case", "goto", "delete", "new", "throw", "typedef", "using", "sizeof", "if",
               "while", "for", "switch", "do", "const", "constexpr", "static", "volatile", "unsigned", "signed",
               "struct", "class", "template", "typename", "namespace", "asm", "auto", "break", "continue"}
# `type name` before `=`, `[` or `;`, as the plain pattern `(?<![\w.>])(?:const\s+|constexpr\s+|unsigned\s+)*
# ([A-Za-z_]\w*)\s*\**\s*(?:__restrict__\s+)?([A-Za-z_]\w*)\s*(?:=(?!=)|\[|;)` finds it, without its retries: two words
# (the first taken whole, as a shorter one cannot be followed by spaces, stars or a name), or else, where one word
# stands before `=`, `[` or `;`, that word split before its last letter (the plain pattern reads `count =` as type
# `coun`, name `t`). `(?=[A-Za-z_])` and the possessive quantifiers only spare attempts that fail.
DECL = re.compile(r"(?=[A-Za-z_])(?<![\w.>])(?:const\s+|constexpr\s+|unsigned\s+)*"
                   r"(?:([A-Za-z_]\w*+)\s*+\**+\s*+(?:__restrict__\s+)?([A-Za-z_]\w*+)"
                   r"|(?=\w++\s*+(?:=(?!=)|\[|;))([A-Za-z_]\w*)([A-Za-z_]\w*+))\s*+(?:=(?!=)|\[|;)")


def declaration_of(m: re.Match) -> tuple[str, str, int]:
    """(type, name, offset of name) of a DECL match."""
    if m.group(2) is None:
        return m.group(3), m.group(4), m.start(4)
    return m.group(1), m.group(2), m.start(2)


def _declarations(code: str) -> list[tuple[str, str, int]]:
    """(type, name, offset of name) for local-looking declarations of variables: not of a type alias (`typedef
    half scalar_t;` reads as one, while `using scalar_t = half;` does not: a misspelled type at the start of a
    declaration, `salar_t* p = x;`, is parsed as a product, and nvcc adds `identifier "p" is undefined`)."""
    out = []
    typedefs = _typedef_statements(code)
    for m in DECL.finditer(code):
        typ, name, at = declaration_of(m)
        if typ in _C_KEYWORDS or name in _C_KEYWORDS or any(a <= m.start() < b for a, b in typedefs):
            continue
        out.append((typ, name, at))
    return out


def _typedef_statements(code: str) -> list[tuple[int, int]]:
    """(start, end) of each statement that starts with `typedef`: from it to the first `;`, `{` or `}`. A match at
    `at` (no `;{}` there) lies in one exactly when its statement (`_statement_start`, spaces skipped) starts with
    `typedef`: the few of them found once, not the statement of every declaration (~130 a render)."""
    out = []
    at = code.find("typedef")
    while at >= 0:
        if scanner.skip_space(code, _statement_start(code, at), at) == at:
            ends = [e for e in (code.find(c, at) for c in ";{}") if e >= 0]
            out.append((at, min(ends, default=len(code))))
        at = code.find("typedef", at + 1)
    return out


@dataclass(frozen=True)
class Edit:
    """One splice of the text: `text[start:end]` becomes `new`. Every text fault is one such edit."""

    start: int
    end: int
    new: str

    def apply(self, text: str) -> str:
        return text[:self.start] + self.new + text[self.end:]


@dataclass(frozen=True)
class NvccAt:
    """An nvcc front-end error at offset `pos` of the edited text; the context is `prefix`, then the shown line."""

    kind: str
    pos: int
    message: str
    n_errors: int = 1
    prefix: str = ""
    follow: str = ""         # the diagnostics nvcc prints after this one (diagnostics.py), rendered
    notes: str = ""          # the notes under it (each with its own line shown), rendered


@dataclass(frozen=True)
class TritonAt:
    """A Triton compile error at offset `pos` of the edited text, in the kernel whose `def` is at `def_pos`."""

    kind: str
    def_pos: int
    pos: int
    error: str


def report_expected(source: Source, text: str, report) -> Expected:
    """The tool's output for a made fault: `report` is an Expected already, or a position in the edited text."""
    if isinstance(report, NvccAt):
        line, col = scanner.line_col(text, report.pos)
        return nvcc_expected(source.filename, report, line,
                             scanner.display_line(scanner.line_text(scanner.code_view(text, "cuda"), line), col, scanner.macros(text).get))
    if isinstance(report, TritonAt):
        return _triton_error(source, report.kind, text, report.def_pos, report.pos, report.error)
    return report


class _DeclaredNames:
    """Sites of undefined_identifier: the declarations, and (found on first need) the live later uses of each.
    The fault takes declarations in random order and misspells a use of the first that has one, so most
    declarations' uses are never needed."""

    def __init__(self, source: Source):
        self.text = source.text
        self.code = scanner.code_view(source.text, "cuda")
        self.decls = [(name, pos) for _typ, name, pos in _declarations(self.code) if len(name) >= 3]
        self.taken = scanner.NamesOf(source.text)
        self._uses: dict[int, list[tuple[str, int]]] = {}

    def uses(self, i: int) -> list[tuple[str, int]]:
        hit = self._uses.get(i)
        if hit is None:
            name, pos = self.decls[i]
            code = self.code
            # a misspelled name followed by `<` parses as a template-id ("x is not a template"): not this kind
            hit = self._uses[i] = [(name, at) for at in scanner.value_uses(code, name, pos + len(name), scanner.block_end(code, pos))
                                   if not code[at + len(name):at + len(name) + 3].lstrip().startswith("<")
                                   and diagnostics.in_function_body(code, at)
                                   and not diagnostics.in_template(code, at)    # (so not in dead code either)
                                   and not _TYPE_BEFORE.search(code, max(0, at - 80), at)   # a redeclaration
                                   and _plain_use(self.text, code, at)
                                   and not _const_init_reaches_asm(self.text, code, at)]
            if not _plain_use(self.text, code, pos, branch=False):   # the #177-D it may get would show it
                hit[:] = [(n, at) for n, at in hit if not diagnostics.unreferenced(code, (n,), (at, at + len(n)))]
        return hit


# a type just before a name (`for (int off = 16; ...)` in a later loop declares `off` again: no use of the first)
_TYPE_BEFORE = re.compile(r"(?<![\w.>])(?!(?:return|case|else|goto|sizeof|throw|delete|new|do)\b)[A-Za-z_][\w:]*"
                          r"(?:<[^;{}()]*>)?\s*[*&]*\s*$")


_CONST_DECLARATION = re.compile(r"(?:static\s+)?const(?:expr)?\b")


def _const_init_reaches_asm(text: str, code: str, at: int) -> bool:
    """Whether `at` lies in a `const` declaration whose variable is used later on a line holding a string literal
    (an `asm` operand) or in a statement with `?:`: an error in its initializer gives the constant EDG's error type,
    and `nvcc -cubin` then adds 'an asm operand must have scalar type' at such an operand, 'ambiguous "?"
    operation' where the other branch has a class type (a variable that is not const keeps its type)."""
    start = scanner.skip_space(code, _statement_start(code, at), len(code))
    if not _CONST_DECLARATION.match(code, start):
        return False
    end = diagnostics.statement_end(code, start)
    if end is None or end < at:
        return False
    block_end = scanner.block_end(code, start)
    return any('"' in _line_around(text, use) or _in_conditional(code, use)
               for name in diagnostics.declarators(code, start, end)
               for use in scanner.value_uses(code, name, end, block_end))


def _in_conditional(code: str, at: int) -> bool:
    """Whether the statement around `at` holds a `?:`."""
    end = code.find(";", at)
    return "?" in code[_statement_start(code, at):end if end >= 0 else len(code)]


def _statement_start(code: str, at: int) -> int:
    """Where the statement holding offset `at` starts: after the last `;`, `{` or `}` before it."""
    return max(code.rfind(";", 0, at), code.rfind("{", 0, at), code.rfind("}", 0, at)) + 1


def _line_around(text: str, at: int) -> str:
    """The whole line holding offset `at` (the file's last line too, without a newline after it)."""
    end = text.find("\n", at)
    return text[text.rfind("\n", 0, at) + 1:end if end >= 0 else len(text)]


def _plain_use(text: str, code: str, at: int, branch: bool = True) -> bool:
    """Whether nvcc's report of an undefined name at `at` is the one diagnostics.py renders: its line holds no
    string literal nor header macro (nvcc shows those otherwise), and (`branch`) it is not in a branch of `?:`
    (where EDG may add 'ambiguous "?" operation' for the other branch's class type)."""
    line = _line_around(text, at)
    return '"' not in line and not _HEADER_MACRO.search(line) and not (
        branch and "?" in code[_statement_start(code, at):at])


def _draw_undefined_identifier(source: Source, sites: _DeclaredNames, rng) -> tuple:
    """Declarations in random order; the first with a live use wins (a uniform draw over declarations without
    scanning every one)."""
    uses: list = []
    for i in rng.permutation(len(sites.decls)):
        uses = sites.uses(int(i))
        if uses:
            break
    name, pos = uses[_pick(uses, "undefined_identifier", source, rng)]
    return pos, name, _typo(name, rng, sites.taken) or name + "_"


def _make_undefined_identifier(source: Source, sites: _DeclaredNames, choice: tuple):
    """The misspelled name is undefined; the variable loses a reference (its last: nvcc warns, diagnostics.py).
    Uses in function templates are no sites: an error nvcc finds when it instantiates one carries the
    instantiation context."""
    pos, name, typo = choice
    edit = Edit(pos, pos + len(name), typo)
    warned = diagnostics.unreferenced(sites.code, (name,), (pos, pos + len(name)))
    follow = diagnostics.render(source.filename, edit.apply(source.text), warned)
    return edit, NvccAt("undefined_identifier", pos, f'identifier "{typo}" is undefined', follow=follow.text)


_JUMP = re.compile(r"\b(return|break|continue)\s*;$")
# the words `_JUMP` ends with: a line that has none of them before its `;` needs no regex search (which tries every
# offset of the line: a third of the time of finding the candidates)
_JUMP_WORDS = ("return", "break", "continue")
_STATEMENT_START = re.compile(r"[A-Za-z_}]")
_ELSE_WHILE = re.compile(r"(else|while)\b")


class _SemicolonSites:
    """Sites of missing_semicolon: each plain statement followed by another, as (offset of the `;` to drop, offset
    of the next statement's token). Finding the candidates is one pass over the lines; whether nvcc's recovery from
    one is the one diagnostics.py renders (`_regular_recovery`: a scan of the names the skipped statement declares
    and reads, ~40 us a candidate; a median CUDA render has 112 candidates, 16 of them regular) is checked only for
    the candidates a draw reaches (~7 a fault), once each: the fault takes candidates in random order and drops
    the first regular one's `;`, a uniform draw over the regular ones (as undefined_identifier's declarations)."""

    def __init__(self, source: Source):
        self.text = source.text
        self.code = code = scanner.code_view(source.text, "cuda")
        self.candidates = _semicolon_candidates(code, source.text)
        self._regular: dict[int, bool] = {}

    def regular(self, i: int) -> bool:
        hit = self._regular.get(i)
        if hit is None:
            semi, tok = self.candidates[i]
            # (a site in a template is irregular, so none lies in dead code: no `_live` filter is needed)
            hit = self._regular[i] = _regular_recovery(self.code, semi, tok, self.text)
        return hit

    def valid(self) -> list[tuple[int, int]]:
        """Every regular site, in text order (checks every candidate: for tests and audits, not for a draw)."""
        return [site for i, site in enumerate(self.candidates) if self.regular(i)]


def _semicolon_candidates(code: str, text: str) -> list[tuple[int, int]]:
    """(offset of the `;`, offset of the next statement's token) of each plain statement followed by another. Only
    the lines ending in `;` are read (the regex finds them); the brace depth before each is counted in C from the
    last one's start."""
    lines = code.split("\n")
    raw_lines = text.split("\n")
    sites = []
    depth = i = start = 0
    for semi in _LINE_END_SEMICOLON.finditer(code):
        line_start = code.rfind("\n", 0, semi.start()) + 1
        i += code.count("\n", start, line_start)
        depth += code.count("{", start, line_start) - code.count("}", start, line_start)
        start = line_start
        ln = lines[i]
        s = ln.strip()
        at_file_scope = depth == 0
        # (an alias run on into a declaration, `using L = Lanes<Op>` `float dot = 0.f;`, is nvcc's "invalid
        # combination of type specifiers", not its missing ';')
        if (at_file_scope or s in ("};", ";") or s.startswith(("for", "}", "using ", "typedef "))
                or s.count("(") != s.count(")")
                or s[:-1].rstrip().endswith(_JUMP_WORDS) and _JUMP.search(s) or "{" in s
                or ("=" not in s and (DECL.match(s) or "__shared__" in s or s.endswith("];")))):
            continue    # not a plain statement; a bare declaration or a type alias would run on into the next line
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            if raw_lines[j].strip().startswith("#"):
                break
            j += 1
        if j >= len(lines) or raw_lines[j].strip().startswith("#"):
            continue
        nxt = lines[j].lstrip()
        if not _STATEMENT_START.match(nxt) or _ELSE_WHILE.match(nxt) or '"' in raw_lines[j]:
            continue    # (nvcc shows a string literal that the reported line, read from the code view, lacks)
        next_start = line_start + sum(len(lines[k]) + 1 for k in range(i, j))
        sites.append((semi.start(), next_start - 1 + (len(lines[j]) - len(nxt))))
    return sites


_LINE_END_SEMICOLON = re.compile(r";[^\S\n]*$", re.M)    # a line's last `;` when nothing but spaces follows it


def _draw_missing_semicolon(source: Source, sites: _SemicolonSites, rng) -> tuple:
    for i in rng.permutation(len(sites.candidates)):
        if sites.regular(int(i)):
            return (int(i),)
    raise _no_site("missing_semicolon", source)


_HEADER_MACROS = r"INFINITY|NAN|HUGE_VALF?|FLT_MAX|FLT_MIN|INT_MAX|INT_MIN|UINT_MAX"    # (math.h, limits.h)
_SKIPPED_MACRO = re.compile(rf"\b(?:{_HEADER_MACROS}|__align__)\b")
_HEADER_MACRO = re.compile(rf"\b(?:{_HEADER_MACROS})\b")
_HEADER_MACRO_END = re.compile(rf"\b(?:{_HEADER_MACROS})\s*$")


def _regular_recovery(code: str, semi: int, tok: int, text: str) -> bool:
    """Whether nvcc's report of the `;` at `semi` missing before the statement at `tok` is the one diagnostics.py
    computes: not in a function template (errors found when it is instantiated carry the instantiation context),
    nor when that statement holds a block (EDG skips blocks, "parsing restarts here") or is a `return` (the
    function then ends without one: warning #940-D) or the first set of a variable declared without a value
    (warning #549-D at its next read), nor when a header macro ends the statement (nvcc shows the next line as
    expanded), nor when a name it declares is used next on a line with a string literal (an `asm` operand: nvcc
    adds "an asm operand must have scalar type" and more)."""
    if _HEADER_MACRO_END.search(code, max(0, semi - 24), semi) or diagnostics.in_template(code, semi) \
            or not diagnostics.in_function_body(code, semi):     # (a member declaration: the class changes)
        return False
    start = scanner.skip_space(code, tok, len(code))
    if code[start] == "}":
        return True
    end = diagnostics.statement_end(code, start)
    # a skipped declaration of a name the headers declare too (`index`, strings.h) leaves that name, not nothing;
    # one holding a header macro or `__align__` is shown and parsed otherwise, a launch is not skipped whole
    if code.startswith(("return", "asm"), start) or end is None or _SKIPPED_MACRO.search(code, start, end) \
            or "<<<" in code[start:end] or diagnostics.sets_unset_variable(code, start, end):
        return False             # (a skipped `asm`: EDG restarts parsing after its operands, warning #12-D)
    return _HEADER_FUNCTIONS.isdisjoint(diagnostics.declarators(code, start, end)) \
        and all(_plain_use(text, code, at, branch=h.startswith("error")) for _e, at, h in _skipped(code, start, end))


def _skipped(code: str, start: int, end: int) -> list[tuple]:
    """What nvcc reports after skipping the statement code[start:end] (diagnostics.py): the names it declared,
    undefined at their next uses; the variables only it read, unreferenced."""
    names = diagnostics.declarators(code, start, end)
    found = diagnostics.undefined_uses(code, names, end + 1) if names else []
    read = [m.group(0) for m in scanner.IDENTIFIER.finditer(code, start, end)
            if m.group(0) not in names and code[m.start() - 1] not in ".>"]
    return found + diagnostics.unreferenced(code, read, (start, end))


def _make_missing_semicolon(source: Source, sites: _SemicolonSites, choice: tuple):
    """nvcc skips the next statement to recover: the names it declared are undefined at their next uses, the
    variables only it read are unreferenced (diagnostics.py)."""
    semi, tok = sites.candidates[choice[0]]
    edit = Edit(semi, semi + 1, "")
    code = sites.code                                   # unedited: offsets after the dropped `;` move by one
    start = scanner.skip_space(code, tok, len(code))    # the skipped statement's first token
    end = start if code[start] == "}" else diagnostics.statement_end(code, start)   # `}`: nothing is skipped
    moved = [(e - (e > semi), p - (p > semi), h) for e, p, h in _skipped(code, start, end)]
    follow = diagnostics.render(source.filename, edit.apply(source.text), moved)
    return edit, NvccAt("missing_semicolon", tok, 'expected a ";"', 1 + follow.errors, follow=follow.text)


_LITERAL_TYPES = tuple((name, re.compile(pat)) for name, pat in (
    ("float", r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fF]"), ("double", r"-?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?"),
    ("int", r"-?\d+")))
# a scalar declared from a value (possessive quantifiers as in DECL); each type's lookbehind after its literal, so
# the pattern starts with one of four letters the regex engine skips to (~1.5x faster than a leading guard)
SCALAR_INIT = re.compile(r"(float(?<![\w.]float)|int(?<![\w.]int)|acc_t(?<![\w.]acc_t)|double(?<![\w.]double))(\s+)"
                         r"([A-Za-z_]\w*+)\s*+=\s*([^;,()]+?)\s*;")
_VECTOR_TYPES = record_diagnostics.VECTOR_TYPES     # the types whose operator notes are recorded


def _type_mismatch_sites(source: Source) -> list[tuple[re.Match, str]]:
    """Scalar declarations initialized from a literal (the match, the literal's type) whose later uses nvcc
    reports as diagnostics.py computes them (others would print a block nvcc does not: not sites)."""
    code = scanner.code_view(source.text, "cuda")
    headers = diagnostics.operator_headers(source.text)
    sites = []
    for m in SCALAR_INIT.finditer(code):
        lit_type = next((t for t, pat in _LITERAL_TYPES if pat.fullmatch(m.group(4))), None)
        if lit_type and not code.endswith(("const", "constexpr", "static", "("), 0,
                                          scanner.skip_space_back(code, m.start() - 1) + 1) \
                and _vector_follow(code, m, _VECTOR_TYPES[0], headers) is not None:
            sites.append((m, lit_type))
    return _live(sites, source, lambda s: s[0].start())


def _vector_follow(code: str, m: re.Match, new_type: str, headers: tuple[str, ...]):
    """nvcc's errors at the later uses of the scalar `m` declares, once it is declared `new_type` (None when the
    rules of diagnostics.py do not cover them: a template, a use of another shape)."""
    if m.group(1) not in record_diagnostics.RHS_TYPES or diagnostics.in_template(code, m.start()):
        return None
    uses = scanner.value_uses(code, m.group(3), m.end(3), scanner.block_end(code, m.end(3)))
    return diagnostics.vector_uses(code, m.group(3), uses, new_type, m.group(1), headers)


def _draw_type_mismatch(source: Source, sites: list, rng) -> tuple:
    return _pick(sites, "type_mismatch", source, rng), _VECTOR_TYPES[_index(rng, len(_VECTOR_TYPES))]


def _make_type_mismatch(source: Source, sites: list, choice: tuple):
    (m, lit_type), new_type = sites[choice[0]], choice[1]
    delta = len(new_type) - len(m.group(1))
    code = scanner.code_view(source.text, "cuda")     # the later uses are counted in the unedited code (same braces)
    edit = Edit(m.start(1), m.end(1), new_type)
    message = f'no suitable constructor exists to convert from "{lit_type}" to "{new_type}"'
    found = _vector_follow(code, m, new_type, diagnostics.operator_headers(source.text))   # a site: not None
    found += diagnostics.unreferenced(code, (), (m.start(), m.start()))
    follow = diagnostics.render(source.filename, edit.apply(source.text),
                                [(e + delta * (e > m.start()), p + delta * (p > m.start()), *rest)
                                 for e, p, *rest in found])
    return edit, NvccAt("type_mismatch", m.start(4) + delta, message, 1 + follow.errors, follow=follow.text)


# (the guard and possessive quantifiers as in DECL)
LAUNCH = re.compile(r"(?=[A-Za-z_])(?<![\w.])([A-Za-z_]\w*+)\s*+<((?:[^<>;()]|<[^<>;]*>)*)>\s*<<<")
CALL = re.compile(r"(?=[A-Za-z_])(?<![\w.>:])(?<!template )([A-Za-z_]\w*+)\s*+<((?:[^<>;()]|<[^<>;]*>)*)>\s*\(")
_CASTS = {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"}


@lru_cache(maxsize=64)
def function_templates(code: str) -> dict[str, int]:
    """name -> number of function templates of that name defined in the source (2+ = overloaded)."""
    out: dict[str, int] = {}
    for m in re.finditer(r"template\s*<([^{};]*?)>\s*(?:[\w:*&<>,]+\s+)*?([A-Za-z_]\w*)\s*\([^;{]*\)\s*(?:const\s*)?\{", code):
        if "..." not in m.group(1):
            out[m.group(2)] = out.get(m.group(2), 0) + 1
    return out


def _split_args(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


_TEMPLATE_PARAMS = re.compile(r"template\s*<([^{};]*?)>")
_TEMPLATE_PARAM_NAME = re.compile(r"(?:int|typename|class|bool|unsigned|size_t)\s+([A-Za-z_]\w*)")


def _template_arg_sites(source: Source) -> list[tuple[re.Match, bool]]:
    """Template argument lists of kernel launches and of calls to the source's function templates
    (the match, whether it is a launch)."""
    code = scanner.code_view(source.text, "cuda")
    templates = function_templates(code)
    sites = [(m, True) for start, end in statements_with(code, ("<<<",)) for m in LAUNCH.finditer(code, start, end)
             if _split_args(m.group(2))]
    if not templates:        # calls are sites only where they name a function template of the source
        return _live(sites, source, lambda s: s[0].start())
    # a call whose arguments depend on a template parameter is checked only when (if ever) it is instantiated
    tparams = {p for m in _TEMPLATE_PARAMS.finditer(code) for p in _TEMPLATE_PARAM_NAME.findall(m.group(1))}
    for m in (m for start, end in statements_with(code, templates) for m in CALL.finditer(code, start, end)):
        if m.group(1) in templates and m.group(1) not in _CASTS and _split_args(m.group(2)):
            call_end = code.find(";", m.end())
            if not tparams & set(scanner.IDENTIFIER.findall(code[m.start(2):call_end])) \
                    and _substitution_note_args(code, m) is not None:
                sites.append((m, False))
    return _live(sites, source, lambda s: s[0].start())


_EXPRESSION = re.compile(r"[-+*/%&|^()]")


def _substitution_note_args(code: str, m: re.Match) -> list[str] | None:
    """The explicit arguments of call `m`, one repeated (the fault's edit), as EDG's note #3323-D prints them: a
    class name as written, an expression as `<expression>`; None when EDG's report of the edited call is not
    known that exactly (an overloaded template, another argument, an argument list without declared types)."""
    if function_templates(code).get(m.group(1)) != 1:
        return None
    shown = []
    for arg in _split_args(m.group(2)):
        if _NAME.fullmatch(arg) and arg in _class_names(code):
            shown.append(arg)
        elif _EXPRESSION.search(arg) and not _NAME.fullmatch(arg):
            shown.append("<expression>")
        else:
            return None
    # (the call's argument types last: most explicit argument lists, `<128>` or `<float>`, end the check before)
    return None if _call_arg_types(code, m.end() - 1) is None else shown + shown[-1:]


@lru_cache(maxsize=64)
def _class_names(code: str) -> frozenset[str]:
    """The names written after `struct` or `class`, once per code (rather than a search of the code compiled per
    argument): the lookahead takes the whole name without consuming it, so `class struct X` yields both."""
    return frozenset(_CLASS_NAME.findall(code))


# the plain `\b(?:struct|class)\s+(?=...)` with the word boundary checked after each literal, so the regex engine skips
# to an `s` or a `c` (~15x faster; tests/kernels/test_literal_first_patterns.py)
_CLASS_NAME = re.compile(r"(?:struct(?<!\wstruct)|class(?<!\wclass))\s+(?=([A-Za-z_]\w*))")


def _substitution_note(source: Source, code: str, m: re.Match) -> str:
    """EDG's note under a call whose explicit template arguments do not fit the one function template: at the
    template's name, with its line shown."""
    name = m.group(1)
    decl = re.search(rf"template\s*<[^{{}};]*?>\s*(?:[\w:*&<>,]+\s+)*?({name})\s*\(", code)
    line, col = scanner.line_col(source.text, decl.start(1))
    raw = scanner.line_text(source.text, line)       # its string literals shown, its comments not
    raw = scanner.C_TOKENS.sub(lambda t: t.group(0) if t.group(0)[0] in "\"'" else scanner.blank(t), raw)
    shown = scanner.display_line(raw, col, scanner.macros(source.text).get)
    args = ", ".join(_substitution_note_args(code, m))
    return (f'{source.filename}({line}): note #3323-D: substituting explicit template arguments "<{args}>" for '
            f'function template "{name}" failed\n{shown}')


def statements_with(code: str, needles) -> list[tuple[int, int]]:
    """The `;`-delimited stretches of `code` that hold one of `needles` (no `;` in them), in order. A pattern whose
    matches hold no `;` (a launch, a call with template arguments) finds in them what it finds in the whole code,
    without an attempt at every offset of the rest."""
    spans = set()
    for needle in needles:
        at = code.find(needle)
        while at >= 0:
            end = code.find(";", at)
            end = end if end >= 0 else len(code)
            spans.add((code.rfind(";", 0, at) + 1, end))
            at = code.find(needle, end)
    return sorted(spans)


def _draw_wrong_template_arg(source: Source, sites: list, rng) -> tuple:
    i = _pick(sites, "wrong_template_arg", source, rng)
    return i, _index(rng, 3) if sites[i][1] else 2


def _make_wrong_template_arg(source: Source, sites: list, choice: tuple):
    (m, launch), how = sites[choice[0]], choice[1]
    code = scanner.code_view(source.text, "cuda")
    args = _split_args(source.text[m.start(2):m.end(2)])
    if how == 0 and len(args) > 1 and not _has_default_targs(code, m.group(1)):
        new = args[:-1]
    elif how == 1 and re.fullmatch(r"[\w\s*+()/-]+", args[0]) and not re.search(r"\b(typename|class)\b", code):
        new = ["float"] + args[1:]
    else:
        new = args + [args[-1]]
    what = "overloaded function" if function_templates(code).get(m.group(1), 1) > 1 else "function template"
    arg_types = _call_arg_types(code, code.find("(", code.find(">>>", m.end()) if launch else m.end() - 1))
    prefix = f"            argument types are: ({', '.join(arg_types)})\n" if arg_types else ""
    notes = "" if launch else _substitution_note(source, code, m)
    return Edit(m.start(2), m.end(2), ", ".join(new)), NvccAt(
        "wrong_template_arg", m.start(1), f'no instance of {what} "{m.group(1)}" matches the argument list',
        prefix=prefix, notes=notes)


def _has_default_targs(code: str, kernel: str) -> bool:
    m = re.search(rf"template\s*<([^>]*)>\s*(?:__global__|static|__launch_bounds__|\s|\w|\(|\))*?\b{kernel}\s*\(", code)
    return bool(m and "=" in m.group(1))


_INT_LITERAL = re.compile(r"-?\d+")
_NAME = re.compile(r"[A-Za-z_]\w*")
# `type name` before `,)=;`. The guard spares attempts inside a word: one that matches there has a match one
# character earlier too, unless the word ends in `const` (the possessive quantifiers as in DECL)
DECLARED = re.compile(r"(?=[A-Za-z_])(?:(?<![A-Za-z_])|(?=const\s))((?:const\s+)?[A-Za-z_]\w*(?:\s*\*+)?)\s*"
                       r"(?:__restrict__\s+)?\b([A-Za-z_]\w*+)\s*+(?=[,)=;])")


def _call_arg_types(code: str, paren: int) -> list[str] | None:
    """EDG's 'argument types are' list when every argument is a plainly declared name or an int literal."""
    depth, i = 0, paren
    while i < len(code):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        if depth == 0:
            break
        i += 1
    args = _split_args(code[paren + 1:i])
    if not all(_INT_LITERAL.fullmatch(a) or _NAME.fullmatch(a) for a in args):
        return None                      # an expression: no declared name to read its type from
    starts, declared = _declared(code)
    decls = dict(declared[:bisect.bisect_left(starts, paren)])     # the last one of a name before the call wins
    out = []
    for a in args:
        if _INT_LITERAL.fullmatch(a):
            out.append("int")
        elif a in decls and decls[a].split()[0] not in _C_KEYWORDS:
            out.append(re.sub(r"\s*(\*+)", r" \1", decls[a].strip()))
        else:
            return None
    return out


@lru_cache(maxsize=64)
def _declared(code: str) -> tuple[list[int], list[tuple[str, str]]]:
    """(offsets, (name, type)) of the DECLARED matches of `code`, in order: found once per code, not before each
    call asked about. Those starting before a call's `(` are what a search of the code up to it finds (a match holds
    only word characters, spaces and `*`, so none reaches past the `(`)."""
    matches = list(DECLARED.finditer(code))
    return [m.start() for m in matches], [(m.group(2), m.group(1)) for m in matches]


def _int_eval(expr: str, macros: dict[str, str]) -> int | None:
    expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: macros.get(m.group(0), m.group(0)), expr)
    expr = re.sub(r"(?<=\d)[uUlL]+\b", "", expr)
    if not re.fullmatch(r"[\d\s+\-*/%()<>]+", expr):
        return None
    try:
        return int(eval(expr.replace("/", "//"), {"__builtins__": {}}))   # digits and operators only
    except Exception:
        return None


@lru_cache(maxsize=64)
def _constants(text: str) -> dict[str, str]:
    """Macros plus `constexpr int NAME = ...;` values: the source's named constants, as expressions."""
    out = dict(scanner.macros(text))
    for m in re.finditer(r"constexpr\s+(?:int|unsigned|size_t|uint32_t)\s+([A-Za-z_]\w*)\s*=\s*([^;]+);", text):
        out.setdefault(m.group(1), f"({m.group(2)})")
    return out


# the plain `(?:template\s*<(...)>\s*)?__global__...` as two alternatives tried in the same order (the template
# head first), so the pattern starts with a choice of two letters the regex engine skips to (a leading lookahead
# made it try every offset)
_KERNEL = re.compile(r"(?:template\s*<([^{;]*?)>\s*__global__|__global__)\s+(?:void\s+)?"
                     r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:void\s+)?([A-Za-z_]\w*)\s*\(([^)]*)\)\s*\{")


def _kernels(code: str) -> list[tuple[re.Match, int, int]]:
    """(header match, body start, body end) of each `__global__` function."""
    out = []
    for m in _KERNEL.finditer(code):
        out.append((m, m.end(), scanner.block_end(code, m.end())))
    return out


# ---- Itanium mangling of a kernel name (ptxas prints it) -------------------------------------------------

_BUILTIN = {"void": "v", "bool": "b", "char": "c", "signed char": "a", "unsigned char": "h", "short": "s",
            "unsigned short": "t", "int": "i", "unsigned int": "j", "unsigned": "j", "long": "l",
            "unsigned long": "m", "long long": "x", "unsigned long long": "y", "float": "f", "double": "d",
            "int8_t": "a", "uint8_t": "h", "int16_t": "s", "uint16_t": "t", "int32_t": "i", "uint32_t": "j",
            "int64_t": "l", "uint64_t": "m", "size_t": "m", "acc_t": "f"}
_CLASS_ALIASES = {"half": "__half", "half2": "__half2", "CUtensorMap": "CUtensorMap_st"}


def _mangle(text: str, code: str, kernel) -> str:
    header = kernel[0]
    name, tparams, params = header.group(2), header.group(1), header.group(3)
    subs: list = []

    def ref(i: int) -> str:
        return "S_" if i == 0 else f"S{i - 1}_"

    def enc(t) -> str:
        if t[0] == "builtin":
            return t[1]
        if t in subs:
            return ref(subs.index(t))
        if t[0] == "class":
            s = f"{len(t[1])}{t[1]}"
        elif t[0] == "tparam":
            s = "T_" if t[1] == 0 else f"T{t[1] - 1}_"
        else:
            s = t[0] + enc(t[1])
        subs.append(t)
        return s

    tnames = [re.sub(r"=.*", "", p).split()[-1] for p in tparams.split(",")] if tparams else []

    def parse(decl: str):
        decl = re.sub(r"\b(__restrict__|__grid_constant__|volatile)\b", " ", decl)
        ptrs = decl.count("*")
        words = decl.replace("*", " * ").split()
        names = [w for w in words if w != "*"]
        const_inner = "const" in names[: max(1, len(names) - 1)] and ptrs > 0
        base_words = [w for w in names if w not in ("const",)]
        if len(base_words) > 1:
            base_words = base_words[:-1]          # drop the parameter name
        base = " ".join(base_words)
        base = _resolve(text, base)
        if base in tnames:
            t = ("tparam", tnames.index(base))
        elif base in _BUILTIN:
            t = ("builtin", _BUILTIN[base])
        else:
            t = ("class", _CLASS_ALIASES.get(base, base))
        if const_inner:
            t = ("K", t)
        for _ in range(ptrs):
            t = ("P", t)
        return t

    out = f"_Z{len(name)}{name}"
    if tparams is not None:
        subs.append(("tname", name))
        launch = re.search(rf"(?<![\w.]){name}\s*<((?:[^<>;()]|<[^<>;]*>)*)>\s*<<<", code)
        targs = _split_args(launch.group(1)) if launch else []
        consts = _constants(text)
        enc_args = []
        for a in targs:
            v = _int_eval(a, consts)
            enc_args.append(f"Li{v}E" if v is not None else enc(parse(a + " x")))
        out += "I" + "".join(enc_args) + "Ev"
    plist = [p for p in _split_args(params) if p and p != "void"]
    return out + ("".join(enc(parse(p)) for p in plist) if plist else "v")


def _resolve(text: str, typ: str) -> str:
    for _ in range(4):
        if typ in _BUILTIN or typ in _CLASS_ALIASES:
            return typ
        m = re.search(rf"typedef\s+([\w\s]+?)\s+{re.escape(typ)}\s*;", text)
        if not m:
            return typ
        typ = m.group(1).strip()
    return typ


# ---- wrong-result faults (compile fine) ------------------------------------------------------------------

def _wrong(kind: str) -> Expected:
    return Expected("wrong_result", kind, "check", None, "")


def _barrier_sites(source: Source) -> list[Edit]:
    """Deleting one `__syncthreads();` line."""
    sites = [Edit(m.start(), m.end(), "") for m in re.finditer(r"^[ \t]*__syncthreads\(\);[ \t]*\n", source.text, re.M)]
    return _live(sites, source, lambda s: s.start)


# One axis of a launch grid as a ceiling division: CUDA `dim3 grid(..., (E + B - 1) / B, ...)` (a `(unsigned)` cast
# allowed), Triton `grid = (..., triton.cdiv(E, B), ...)`; an axis that multiplies two divisions (a 1-D grid over
# tiles) is no site: which tiles it drops depends on the kernel's tile order.
# `\bdim3\s+grid\s*\(` and `(?<![\w.])grid\s*=\s*\(` with the check before the literal made after it, so the regex
# engine skips to each `dim3` / `grid` (~100x faster over a render; tests/kernels/test_literal_first_patterns.py)
_GRID = {"cuda": re.compile(r"dim3(?<!\wdim3)\s+grid\s*\("), "triton": re.compile(r"grid(?<![\w.]grid)\s*=\s*\(")}
_GRID_AXIS = {"cuda": re.compile(r"(?P<cast>\(unsigned\)\s*\()?(?P<div>\((?P<extent>\w+)\s*\+\s*(?P<block>\w+)"
                                  r"\s*-\s*1\)\s*/\s*(?P=block))(?(cast)\))"),
              "triton": re.compile(r"(?P<div>triton\.cdiv\((?P<extent>\w+),\s*(?P<block>\w+)\))")}


def _grid_sites(source: Source) -> list[tuple[Edit, str]]:
    """A launch grid's ceiling division made a floor division (the edit, and "E / B" for the report), in code the
    compiler instantiates."""
    code = scanner.code_view(source.text, source.lang)
    floor = " / " if source.lang == "cuda" else " // "
    sites = []
    for grid in _GRID[source.lang].finditer(code):
        for start, end in _top_level_args(code, grid.end()):
            axis = _GRID_AXIS[source.lang].fullmatch(code, start, end)
            if axis:
                extent, block = axis["extent"], axis["block"]
                edit = Edit(axis.start("div"), axis.end("div"), f"{extent}{floor}{block}")
                sites.append((edit, f"{extent} / {block}"))
    return _live(sites, source, lambda s: s[0].start)


def _top_level_args(code: str, pos: int) -> list[tuple[int, int]]:
    """(start, end) of each argument, spaces trimmed, of the call or tuple whose `(` ends just before `pos`."""
    out, depth, start = [], 0, pos
    for i in range(pos, len(code)):
        ch = code[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}" and depth:
            depth -= 1
        elif ch in ",)" and not depth:
            piece = code[start:i]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                out.append((start + lead, start + len(piece.rstrip())))
            if ch == ")":
                return out
            start = i + 1
    return out


def _make_truncated_grid(source: Source, sites: list, choice: tuple):
    edit, division = sites[choice[0]]
    return edit, replace(_wrong("truncated_grid"), message=division)



_TIMES_NAME = re.compile(r"[\w)\]]\s*\*\s*([A-Za-z_]\w*)\b(?!\s*(?:[\[(.]|->|::))")


_STRIDE_NAME = re.compile(r"stride_\w+")


def stride_names(code: str, start: int, end: int) -> set[str]:
    """The names `\\b(stride_\\w+)\\b` finds in code[start:end], its `\\b` checked here: the regex skips ahead to each
    `stride_` (a match inside a word hides no other: no word boundary there)."""
    return {m.group(0) for m in _STRIDE_NAME.finditer(code, start, end)
            if m.start() == 0 or not scanner.is_word_char(code[m.start() - 1])}


def _stride_sites(source: Source) -> list[tuple[re.Match, list[str], str]]:
    """Multipliers inside subscripts (the match, the other multipliers in scope there, the name they multiply)."""
    code = scanner.code_view(source.text, source.lang)
    if source.lang == "cuda":
        # a match cannot start before the `[` and reach into the subscript (no part of it matches `[`)
        found = [m for sub in re.finditer(r"\[([^\[\]]+)\]", code)
                 for m in _TIMES_NAME.finditer(code, sub.start(), sub.end())]
    else:
        found = list(re.finditer(r"\*\s*(stride_\w+)\b", code))
    sites = []
    constants = set(_constants(source.text)) if source.lang == "cuda" else set()
    visible_in: dict[int, set[str] | None] = {}
    for m in found:
        # another multiplier already seen in the same function is in scope there: the realistic mix-up
        start = _function_start(code, m.start(), source.lang)
        # names visible everywhere in the function: its parameters and file-scope constants
        if start not in visible_in:
            head = code[start:code.find("{" if source.lang == "cuda" else ":", start)]
            visible_in[start] = set(scanner.IDENTIFIER.findall(head)) | constants if _called(code, head) else None
        visible = visible_in[start]
        if visible is None:         # a function nothing in the source names (the harness's entry: a launcher, a
            continue                # Triton wrapper): an edit there is not modelled
        seen = {o.group(1) for o in found if o.start() < m.start() and o.group(1) in visible} | \
               stride_names(code, start, m.start()) & visible
        others = sorted(n for n in seen if n != m.group(1) and
                        n.startswith("stride") == m.group(1).startswith("stride"))
        sites.append((m, others, _multiplied(code, code.index("*", m.start()))))
    return _live(sites, source, lambda s: s[0].start())


def _called(code: str, head: str) -> bool:
    """Whether the function whose header is `head` runs: a CUDA kernel, or a function named anywhere but there
    (called, or a Triton kernel launched as `name[grid]`); code outside any function counts as run."""
    if "__global__" in head:
        return True
    name = re.search(r"(\w+)\s*\(", head)
    return name is None or len(list(scanner.whole_word(code, name[1], 0, len(code)))) > 1   # (`\bNAME\b`)


def _multiplied(code: str, star: int) -> str:
    """The name the `*` at `star` multiplies (`m` of `(int64_t)m * K`, `offs_m` of `offs_m[:, None] * stride_cm`), ""
    where it multiplies an expression (`(p - l + t) * CHANNELS`, `page.to(tl.int64) * stride_kb`)."""
    end = star
    last = scanner.skip_space_back(code, star - 1)
    if last >= 0 and code[last] == "]":     # a Triton broadcast of an index vector
        bracket = code.rfind("[", 0, last)
        end = bracket if bracket >= 0 else last
    name, _char = _word_before(code, end)   # what `\w+$` finds in code[:end].rstrip(), read back from its end
    return name if name and not name[0].isdigit() else ""


def _draw_wrong_stride(source: Source, sites: list, rng) -> tuple:
    i = _pick(sites, "wrong_stride", source, rng)
    others = sites[i][1]
    return i, others[_index(rng, len(others))] if others else None


def _make_wrong_stride(source: Source, sites: list, choice: tuple):
    """The edit, and the product before and after as its Expected.message ("m * N -> m * (N + 1)": `stride_shift`
    reads it; the report never prints it)."""
    m, _others, index = sites[choice[0]]
    stride = choice[1] or f"({m.group(1)} + 1)"
    product = f"{index} * {m.group(1)} -> {index} * {stride}" if index else ""
    return Edit(m.start(1), m.end(1), stride), replace(_wrong("wrong_stride"), message=product)


def _function_start(code: str, pos: int, lang: str) -> int:
    """Offset where the function enclosing `pos` begins (its header for C, its `def` for Python)."""
    if lang != "cuda":
        d = code.rfind("\ndef ", 0, pos)
        return d + 1 if d >= 0 else 0
    opens = _top_level_opens(code)
    i = bisect.bisect_left(opens, pos) - 1          # the last file-scope `{` before pos
    if i < 0:
        return 0
    return max(code.rfind(";", 0, opens[i]), code.rfind("}", 0, opens[i])) + 1


@lru_cache(maxsize=64)
def _top_level_opens(code: str) -> list[int]:
    opens, _closes, parents = scanner.blocks(code)
    return [o for o, parent in zip(opens, parents) if parent < 0]


_TYPE_WORDS = frozenset("half float int double char void __half __nv_bfloat16 half2 float2 float4 const".split())


def _word_before(code: str, pos: int) -> tuple[str, str]:
    """(the word code[:pos] ends with, spaces skipped; the character that ends it, or "")."""
    j = scanner.skip_space_back(code, pos - 1)
    k = j
    while k >= 0 and scanner.is_word_char(code[k]):
        k -= 1
    return code[k + 1:j + 1], code[j] if j >= 0 else ""


def _is_type_word(word: str) -> bool:
    """A type name (or `const`): a `*` after it declares a pointer."""
    return word in _TYPE_WORDS or (len(word) > 2 and word.endswith("_t"))


# Without a leading `\s*` in the pattern: on the long blank runs of a code view that costs quadratic time. A member
# scale (`op.a_scale[m]`, CUDA int8_gemm's store_c) counts where one name indexes it: a per-row or per-column scale
# of the output; members indexed by a K block or by 0 (fp8_blockwise_gemm's loads, fp8_gemm's per-tensor pair) do not.
# The online softmax's correction factor (`alpha`, styled `rescale`: exp(m_old - m_new)) is no scale: deleting it is
# another bug than a missing softmax scale (its error grows with the key tiles), and `failed_text` models none.
_TIMES_SCALE = re.compile(r"\*\s*(?![Rr]escale)([A-Za-z_]\w*[Ss]cale\w*(?:\[[^\]\n]*\])?|[Ss]cale\w*(?:\[[^\]\n]*\])?"
                          r"|[A-Za-z_]\w*\.\w*[Ss]cale\w*\[\s*[A-Za-z_]\w*\s*\])(?![\w(])")


TIMES_AFTER = re.compile(r"\s*\*\s*(?!=)")




def scale_names(code: str):
    """(start, end) of each name containing `scale`/`Scale` that starts with a letter or `_`, in order: found
    from the text's `cale`s (a regex trying every name of the source costs ~1 ms a source)."""
    pos = code.find("cale", 1)
    while pos >= 0:
        if code[pos - 1] not in "Ss":
            pos = code.find("cale", pos + 1)
            continue
        start, end = pos - 1, pos + 4
        while start > 0 and scanner.is_word_char(code[start - 1]):
            start -= 1
        while end < len(code) and scanner.is_word_char(code[end]):
            end += 1
        if not code[start].isdigit():
            yield start, end
        pos = code.find("cale", end)


def _scale_sites(source: Source) -> list[Edit]:
    """A multiplication by a scale factor, deleted."""
    code = scanner.code_view(source.text, source.lang)
    sites = []
    end = 0
    for m in _TIMES_SCALE.finditer(code):
        start = m.start()            # the deletion takes the spaces before the `*` too
        while start > end and code[start - 1].isspace():
            start -= 1
        end = m.end()
        if _is_type_word(_word_before(code, start)[0]) or code[start - 1:start] in "*/=":
            continue
        sites.append((start, end))
    for start, name_end in scale_names(code):     # `scale * x`: the factor and its `*`
        times = TIMES_AFTER.match(code, name_end)
        if times is None or start > 0 and code[start - 1] == "." or code.startswith(("rescale", "Rescale"), start):
            continue
        word, last = _word_before(code, start)
        if not _is_type_word(word) and not (word or (last and last in ")]")) and code[start - 1:start] not in "*/":
            sites.append((start, times.end()))
    return [Edit(start, end, "") for start, end in _live(sites, source, lambda s: s[0])]


def _reduction_sites(source: Source) -> list[Edit]:
    """An atomic accumulation made a plain read-modify-write, or a warp shuffle with half the lanes."""
    code = scanner.code_view(source.text, source.lang)
    name = "atomicAdd" if source.lang == "cuda" else "tl.atomic_add"
    sites = []
    for m in re.finditer(rf"(?<![\w.]){re.escape(name)}\s*\(", code) if name in code else ():
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        args = _split_args(source.text[m.end():i - 1])
        line_start = code.rfind("\n", 0, m.start()) + 1
        statement = not code[line_start:m.start()].strip() or code[line_start:m.start()].rstrip().endswith(("{", ")", ";"))
        if len(args) >= 2 and statement and re.match(r"[ \t]*(;|\n|$)", code[i:i + 3]):
            sites.append((m.start(), i, args))
    if source.lang == "cuda":
        sites += [(m.start(1), m.end(1), None) for m in re.finditer(r"__shfl_(?:xor|down)_sync\s*\(\s*(0x[fF]{8}[uU]?|FULL_MASK)\b", code)]
    return [Edit(start, end, _unsynchronized(source.lang, args)) for start, end, args in _live(sites, source, lambda s: s[0])]


def _unsynchronized(lang: str, args: list[str] | None) -> str:
    if args is None:
        return "0x0000ffff"                      # half the warp leaves the exchange: lanes read stale values
    if lang == "cuda":
        target = args[0][1:] if args[0].startswith("&") else f"*({args[0]})"
        return f"{target} += {args[1]}"
    kw = [a for a in args[2:] if a.startswith("mask")]
    mask = f", {kw[0]}" if kw else ""
    return f"tl.store({args[0]}, tl.load({args[0]}{mask}) + {args[1]}{mask})"


# ---- Triton compile faults -------------------------------------------------------------------------------

_JIT_DEF = re.compile(r"^@triton\.jit[^\n]*\n(def ([A-Za-z_]\w*_kernel)\s*\()", re.M)


def triton_kernels(source: Source) -> list[tuple[str, int, int]]:
    """(name, offset of `def`, end of body) of each entry kernel."""
    out = []
    for m in _JIT_DEF.finditer(source.text):
        header_end = re.compile(r"\)\s*(?:->[^:\n]*)?:[ \t]*(?:#[^\n]*)?\n").search(source.text, m.end())
        body = header_end.end() if header_end else m.end()
        body_end = re.compile(r"\n(?=\S)").search(source.text, body)
        out.append((m.group(2), m.start(1), body_end.start() if body_end else len(source.text)))
    return out


def _triton_error(source: Source, kind: str, text: str, def_pos: int, pos: int, error: str) -> Expected:
    line, col = scanner.line_col(text, pos)
    def_line = scanner.line_col(text, def_pos)[0]
    end = text.find("\n", pos)
    excerpt = text[text.rfind("\n", 0, def_pos) + 1:end if end >= 0 else len(text)]   # the def line to pos's
    return triton_expected(kind, line, col, def_line, excerpt, error)


# Triton 3.x's CompilationError shows at most this many source lines, ending with the error's
# (triton/compiler/errors.py: source_line_count_max_in_message).
TRITON_EXCERPT_LINES = 12


def triton_expected(kind: str, line: int, col: int, def_line: int, excerpt: str, error: str) -> Expected:
    """Triton's report of an error at 1-based `line`, `col` in the kernel whose `def` is on `def_line`; `excerpt`
    is the source from the def line through the error line (Triton prints its last TRITON_EXCERPT_LINES)."""
    shown = "\n".join(excerpt.split("\n")[-TRITON_EXCERPT_LINES:])
    return Expected("compile_error", kind, "triton", line, f"at {line - def_line + 1}:{col}:",
                    f"{shown}\n{' ' * col}^\n{error}")


def _assigned(code: str, at: int, j: int, end: int) -> bool:
    """Whether the name at code[at:j] is assigned, not read: followed by `=` (not `==`; a keyword argument too), or
    one of the names of a tuple target (`a, name, b = ...`: a misspelled target is a new name, no error)."""
    k = scanner.skip_space(code, j, end)
    if k + 1 < end and code[k] == "=" and code[k + 1] != "=":
        return True
    line = code.rfind("\n", 0, at) + 1
    return bool(_TUPLE_HEAD.fullmatch(code, line, at) and _TUPLE_TAIL.match(code, j, end))


_TUPLE_HEAD = re.compile(r"[ \t]*(?:[A-Za-z_]\w*[ \t]*,[ \t]*)*")      # the line before a tuple target's name
_TUPLE_TAIL = re.compile(r"(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*[ \t]*,?[ \t]*=(?!=)")   # and after it


def triton_error_sites(source: Source) -> tuple[list[tuple], scanner.NamesOf]:
    """Uses of a kernel's local names (to misspell) and `tl.arange` bounds (to make not a power of 2); and the
    names the source already has."""
    code = scanner.code_view(source.text, "triton")
    sites: list[tuple] = []
    for _name, start, end in triton_kernels(source):
        for a in re.finditer(r"^[ \t]+([a-z_]\w*)\s*=[^=]", code[start:end], re.M):
            var = a.group(1)
            if len(var) < 3:
                continue
            sites += [("name", start, at, var) for at in scanner.whole_word(code, var, start + a.end(), end)
                      if code[at - 1] != "." and not _assigned(code, at, at + len(var), end)]
        sites += [("arange", start, m.start(), m) for m in
                  re.finditer(r"tl\.arange\(\s*0\s*,\s*([A-Za-z_]\w*|\d+)\s*\)", code[:end]) if m.start() > start]
    return sites, scanner.NamesOf(source.text)


def _draw_triton_compilation_error(source: Source, sites: tuple, rng) -> tuple:
    found, taken = sites
    i = _pick(found, "triton_compilation_error", source, rng)
    what, _def_pos, _pos, arg = found[i]
    if what == "name":
        return i, _typo(arg, rng, taken) or arg + "_"
    return i, str((24, 48, 96, 100, 192)[_index(rng, 5)])


def _make_triton_compilation_error(source: Source, sites: tuple, choice: tuple):
    (what, def_pos, pos, arg), new = sites[0][choice[0]], choice[1]
    if what == "name":
        return Edit(pos, pos + len(arg), new), TritonAt("triton_compilation_error", def_pos, pos,
                                                        f"NameError('{new} is not defined')")
    return Edit(arg.start(1), arg.end(1), new), TritonAt("triton_compilation_error", def_pos, pos,
                                                         "arange's range must be a power of 2")


_FP8_REFUSED = ("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are "
                "('fp8e4b15', 'fp8e5')")


def _fp8_cast_sites(source: Source) -> list[tuple[int, re.Match]]:
    """Float results cast down for storing (the kernel's `def` offset, the cast), where fp8e4nv is refused."""
    if _cc(source) >= 89:
        raise NoFaultSite(f"{source.filename}: fp8e4nv compiles on {source.compile_arch}; no fault to make")
    code = scanner.code_view(source.text, "triton")
    sites = []
    for _name, start, end in triton_kernels(source):
        # a float result cast down for storing (integer data cast to fp8 fails with another message)
        sites += [(start, m) for m in re.finditer(r"(?<![\w.)\]])([A-Za-z_]\w*)\.to\((?:tl\.(?:float16|bfloat16)|"
                                                 r"\w+\.dtype(?:\.element_ty)?)\)", code[:end]) if m.start() > start]
    return sites


def _make_triton_fp8_unsupported(source: Source, sites: list, choice: tuple):
    def_pos, m = sites[choice[0]]
    return (Edit(m.start(), m.end(), f"{m.group(1)}.to(tl.float8e4nv)"),
            TritonAt("triton_fp8_unsupported", def_pos, m.start(), _FP8_REFUSED))


def _cc(source: Source) -> int:
    return int(re.sub(r"\D", "", source.compile_arch))


@dataclass(frozen=True)
class FaultMaker:
    """How one fault kind is made, in three steps, so that the costly one can run once for many renders:
    `sites(source)` finds where it can be made (pure; NoFaultSite where the kind cannot apply to the source, as
    fp8 on a target that compiles it); `draw(source, sites, rng)` is the random choice, a hashable tuple and the
    only use of rng (raises NoFaultSite when there is no site); `make(source, sites, choice)` is the edit and the
    tool's report (an Expected, or a position in the edited text: NvccAt/TritonAt)."""

    sites: Callable
    draw: Callable
    make: Callable


def _one_site(kind: str) -> Callable:
    def draw(source: Source, sites: list, rng) -> tuple:
        return (_pick(sites, kind, source, rng),)
    return draw


def _site_edit(kind: str) -> Callable:
    """`make` of a wrong-result kind whose sites are the edits themselves."""
    def make(source: Source, sites: list[Edit], choice: tuple):
        return sites[choice[0]], _wrong(kind)
    return make


def _make_dropped_scale(source: Source, sites: list[Edit], choice: tuple):
    """The deletion, its report naming the line it edits (which operand's scale a dequantizing GEMM loses:
    correctness.dropped_block_scale)."""
    edit = sites[choice[0]]
    line = scanner.line_text(source.text, source.text.count("\n", 0, edit.start) + 1)
    return edit, replace(_wrong("dropped_scale"), message=line.strip())


MAKERS = {
    "undefined_identifier": FaultMaker(_DeclaredNames, _draw_undefined_identifier, _make_undefined_identifier),
    "missing_semicolon": FaultMaker(_SemicolonSites, _draw_missing_semicolon, _make_missing_semicolon),
    "type_mismatch": FaultMaker(_type_mismatch_sites, _draw_type_mismatch, _make_type_mismatch),
    "wrong_template_arg": FaultMaker(_template_arg_sites, _draw_wrong_template_arg, _make_wrong_template_arg),
    "missing_syncthreads": FaultMaker(_barrier_sites, _one_site("missing_syncthreads"),
                                      _site_edit("missing_syncthreads")),
    "truncated_grid": FaultMaker(_grid_sites, _one_site("truncated_grid"), _make_truncated_grid),
    "wrong_stride": FaultMaker(_stride_sites, _draw_wrong_stride, _make_wrong_stride),
    "dropped_scale": FaultMaker(_scale_sites, _one_site("dropped_scale"), _make_dropped_scale),
    "racy_reduction": FaultMaker(_reduction_sites, _one_site("racy_reduction"), _site_edit("racy_reduction")),
    "triton_compilation_error": FaultMaker(triton_error_sites, _draw_triton_compilation_error,
                                           _make_triton_compilation_error),
    "triton_fp8_unsupported": FaultMaker(_fp8_cast_sites, _one_site("triton_fp8_unsupported"),
                                         _make_triton_fp8_unsupported),
}


def maker_for(source: Source, kind: str) -> FaultMaker:
    """The maker of text fault `kind` for this source's language; NoFaultSite for a kind that is no text edit."""
    if kind not in FAULT_KINDS:
        raise ValueError(f"unknown fault kind {kind!r}; known: {', '.join(FAULT_KINDS)}")
    if kind not in TEXT_KINDS[source.lang]:
        why = ("it comes from the variant/params choice: see expect_clean" if kind in OUTCOME_KINDS
               else f"it does not apply to {source.lang} sources")
        raise NoFaultSite(f"{source.filename}: fault kind {kind!r} is not made by editing text: {why}")
    return MAKERS[kind]


def inject(source: Source, kind: str, rng) -> tuple[Source, Expected]:
    """Make fault `kind` in `source` (a real edit at a site chosen by `rng`); raise NoFaultSite if none."""
    maker = maker_for(source, kind)
    sites = maker.sites(source)
    edit, report = maker.make(source, sites, maker.draw(source, sites, rng))
    text = edit.apply(source.text)
    return replace(source, text=text), report_expected(source, text, report)


class _NullRng:
    """Stand-in rng for site probing: always the first choice."""

    def permutation(self, n):
        return range(n)


@lru_cache(maxsize=64)
def applicable_kinds(source: Source) -> tuple[str, ...]:
    """The text kinds that have at least one site in `source`."""
    out = []
    for kind in TEXT_KINDS[source.lang]:
        maker = MAKERS[kind]
        try:
            maker.draw(source, maker.sites(source), _NullRng())
        except NoFaultSite:
            continue
        out.append(kind)
    return tuple(out)


# ---- clean renders -------------------------------------------------------------------------------------

# First arch-gated PTX in the source, in order, and what ptxas says about it: (pattern, feature, message, min cc).
_GATED = (
    (r"wgmma\.fence", "wgmma", "Instruction 'wgmma.fence' not supported on .target '{sm}'"),
    (r"wgmma\.mma_async", "wgmma", "Instruction 'wgmma.mma_async with floating point types' not supported on .target '{sm}'"),
    (r"wgmma\.commit_group", "wgmma", "Instruction 'wgmma.commit_group' not supported on .target '{sm}'"),
    (r"wgmma\.wait_group", "wgmma", "Instruction 'wgmma.wait_group' not supported on .target '{sm}'"),
    (r"fence\.proxy\.async", "tma", "Modifier '.async' requires .target sm_90 or higher"),
    (r"cp\.async\.bulk\.tensor", "tma", "Modifier '.tensormap' requires .target sm_90 or higher"),
    (r"mbarrier\.[\w.:]*expect_tx", "tma", "Feature '.expect_tx' requires .target sm_90 or higher"),
    (r"kind::(?:f8f6f4|mxf4nvf4|mxf8f6f4)", "fp4_mma",
     "Instruction 'mma with with FP6/FP4 floating point type' not supported on .target '{sm}'"),
    (r"%cluster_ctarank|%clusterid|%cluster_nctarank", "clusters", "Feature '{reg}' requires .target sm_90 or higher"),
    (r"barrier\.cluster", "clusters", "Feature 'barrier.cluster' requires .target sm_90 or higher"),
    (r"mma\.sync[\w.:]*\.e[45]m[23]", "fp8_mma", "Feature 'mma with FP8 floating point type' requires .target sm_89 or higher"),
)


def _ptxas_arch(source: Source, missing: set[str], task, variant) -> Expected:
    recorded = record_arch.arch_block(source, task, variant)   # ptxas's whole output
    if recorded is not None:
        return Expected("compile_error", "arch_unsupported", "ptxas", None, *recorded)
    sm = source.compile_arch
    hits = sorted((m.start(), msg, m.group(0)) for pat, feat, msg in _GATED if feat in missing
                  for m in [re.search(pat, source.text)] if m)
    if hits:
        first = hits[0][1].format(sm=sm, reg=hits[0][2])
    else:
        feat = sorted(missing)[0]
        first = {"wgmma": "Instruction 'wgmma.fence' not supported on .target '{sm}'",
                 "tma": "Modifier '.tensormap' requires .target sm_90 or higher",
                 "fp8_mma": "Feature 'mma with FP8 floating point type' requires .target sm_89 or higher",
                 "fp4_mma": "Instruction 'mma with with FP6/FP4 floating point type' not supported on .target '{sm}'",
                 }.get(feat, f"Feature '{feat}' not supported on .target '{{sm}}'").format(sm=sm)
    crc = zlib.crc32(source.text.encode())
    stem = source.filename.rsplit(".", 1)[0]
    ptx_line = 40 + crc % 900
    where = f"ptxas /tmp/tmpxft_{crc >> 16:08x}_00000000-6_{stem}.ptx, line {ptx_line}; error   : "
    context = "ptxas fatal   : Ptx assembly aborted due to errors"
    return Expected("compile_error", "arch_unsupported", "ptxas", None, where + first, context)


def expect_clean(source: Source, task, variant, params) -> Expected:
    """What an unedited render does on the task's GPU: ok, or the failure its variant/params choice causes."""
    gpu = GPUS[task.gpu]
    if source.lang == "triton":
        if task.dtype == "fp8" and gpu.cc < 89:
            kernels = triton_kernels(source)
            if kernels:
                return _triton_error(source, "triton_fp8_unsupported", source.text, kernels[0][1], kernels[0][1],
                                     f'ValueError("{_FP8_REFUSED}")')
        full = full_params(variant, params)
        if triton_dot.refuses(task.dtype, full):
            dot = _first_dot(source)
            if dot:
                return _triton_error(source, "triton_dot_shape", source.text, *dot, triton_dot.REFUSAL)
        reason = launch_limits(variant, full, gpu, task.dtype, task)
        if reason and "shared memory" in reason:
            return Expected("launch_error", "triton_out_of_resources", "runtime", None,
                            f"triton.runtime.errors.OutOfResources: {reason}")
        return OK
    missing, gated = lacking(variant, task.dtype, task.gpu)
    if gated:
        return _ptxas_arch(source, gated, task, variant)
    if missing:   # e.g. clusters: compiles everywhere, the launch is refused
        return Expected("launch_error", "arch_unsupported", "runtime", None, "CUDA error: operation not supported",
                        f"cluster launch needs {', '.join(sorted(missing))}, which {gpu.display} lacks")
    full = full_params(variant, params)
    reason = launch_limits(variant, full, gpu, task.dtype, task)
    if reason and reason.startswith("ptxas"):
        return _static_over_limit(source, variant.smem_bytes(full, task.dtype, task))
    if reason:
        err = reason.partition(":")[0]    # each reason starts with the runtime error it is
        return Expected("launch_error", "dyn_smem_over_cap", "runtime", None, f"CUDA error: {err}", reason)
    return OK


def _first_dot(source: Source) -> tuple[int, int] | None:
    """(offset of the kernel's `def`, offset of its first `tl.dot`) where Triton reports a refused dot shape."""
    code = scanner.code_view(source.text, "triton")
    for _name, start, end in triton_kernels(source):
        m = triton_dot.DOT_CALL.search(code, start, end)
        if m:
            return start, m.start()
    return None


def _static_over_limit(source: Source, smem: int) -> Expected:
    """Static shared memory over 48 KB: a ptxas error on generic targets; arch-specific targets (sm_90a, sm_120a)
    accept more at compile time, and then the launch is refused."""
    limit = STATIC_SMEM_LIMIT.get(source.compile_arch, 0xC000)
    if smem <= limit:
        return Expected("launch_error", "dyn_smem_over_cap", "runtime", None,
                        "CUDA error: too many resources requested for launch",
                        f"{smem} bytes of static shared memory > 49152 without the opt-in attribute")
    code = scanner.code_view(source.text, "cuda")
    kernels = [k for k in _kernels(code) if "__shared__" in code[k[1]:k[2]]] or _kernels(code)
    entry = _mangle(source.text, code, kernels[0]) if kernels else "kernel"
    return Expected("compile_error", "static_smem_overflow", "ptxas", None,
                    f"ptxas error   : Entry function '{entry}' uses too much shared data "
                    f"(0x{smem:x} bytes, 0x{limit:x} max)")
