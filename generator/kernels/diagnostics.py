"""What nvcc prints after a front-end fault's first error: the follow-on errors and the warnings the edit causes.

The first error alone is not the block a user sees. Rules of nvcc 13.0's front end (EDG), read off its output
for the catalog's faults (`audit-compile` compares whole blocks and re-checks them):
- a statement skipped after a missing `;` declares nothing: each name it declared is undefined where it is used
  next. EDG reports an undefined name once per scope: it then declares the name in the innermost scope of that
  use (a block, or the body of a `for`/`while`/`if`/`else` written without braces), so later uses inside that
  scope are silent and a use after it closes is reported again;
- a variable (local, or namespace-scope `constexpr`) left without a reference, because its only use was
  misspelled or sat in the skipped statement, gets `warning #177-D` at its declaration when its scope closes (a
  namespace-scope one at the end of the file), in order with the errors; a read in a function template that
  nothing instantiates (or only the skipped statement did, or a call whose template arguments hold the
  misspelled name) is no reference; one left with stores only (`x[i] = ...`,
  `x.y = ...`, an `asm` output operand) gets `warning #550-D` ("set but never used") there; neither when its
  initialization calls a function (initializers.py: EDG keeps such a variable quiet); the first warning is
  followed by the "Remark" line;
- a scalar turned into a vector type (type_mismatch) fails again at each later use: `v += x` lists the operators
  that did not match (the notes recorded from nvcc by `record-diagnostics`, diagnostics.tsv), `return v;` or
  `f(v)` into a scalar parameter has no conversion; other uses, and templates (whose errors carry the
  instantiation context), are not modelled;
- warnings do not count in "N errors detected".
Sites whose recovery is not this simple (the skipped statement holds a brace: EDG then skips blocks and warns
"parsing restarts here") get no follow-ons, as before.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

from generator.kernels import initializers, scanner
from generator.kernels.record_diagnostics import OPERATOR_HEADERS, SITE, read_table

REMARK = 'Remark: The warnings can be suppressed with "-diag-suppress <warning-number>"'
_UNREFERENCED = 'warning #177-D: variable "{}" was declared but never referenced'
_SET_NOT_USED = 'warning #550-D: variable "{}" was set but never used'
_UNDEFINED = 'error: identifier "{}" is undefined'
_AGGREGATE = re.compile(r"\b(?:struct|class|union|enum)\b[^;{}()]*$")


@dataclass(frozen=True)
class FollowOn:
    """What nvcc prints after the first error: the rendered text (each diagnostic, blank-line separated) and how
    many errors it holds."""

    text: str = ""
    errors: int = 0


NONE = FollowOn()


# what stands before a declared name in its statement: `const int64_t `, `int const `, `const uint8_t* `, `dim3 `,
# or a former declarator and a comma (`int a = 1, `)
_TYPE_HEAD = (r"(?:(?:const|constexpr|static|unsigned|signed|long|short|volatile|__shared__)\s+)*"
              r"(?!(?:return|else|case|goto|delete|new|throw|typedef|using|sizeof|if|for|while|switch|do)\b)"
              r"[A-Za-z_][\w:]*(?:<[^;{}]*>)?(?:\s+const)?(?:\s*[*&]+\s*|\s+)(?:const\s+)?(?:__restrict__\s+)?")
_DECL_HEAD = re.compile(r"\s*" + _TYPE_HEAD + r"(?:[A-Za-z_]\w*\s*=[^;{}]*,\s*\**\s*)?")
_FIRST_DECLARATOR = re.compile(_TYPE_HEAD + r"([A-Za-z_]\w*)\s*[=\[({;]")
# `constexpr` at a line's start: the plain `^constexpr` (re.M) with the check after the literal, so the regex engine
# skips to each `constexpr` instead of trying every offset (~3x faster; tests/kernels/test_literal_first_patterns.py)
_NAMESPACE_CONSTANT = re.compile(r"constexpr(?<![^\n]constexpr)\s+[\w:]+\s+([A-Za-z_]\w*)\s*=")


def _declaration(code: str, name: str, pos: int) -> int | None:
    """Offset of the declaration of variable `name` that `pos` sees (None: a parameter, a member, not found)."""
    for at in reversed(list(scanner.whole_word(code, name, 0, pos))):
        start = max(code.rfind(";", 0, at), code.rfind("{", 0, at), code.rfind("}", 0, at)) + 1
        follow = scanner.skip_space(code, at + len(name), len(code))
        if (follow < len(code) and code[follow] in "=[;({,") and _DECL_HEAD.fullmatch(code, start, at) \
                and code.count("(", start, at) == code.count(")", start, at) and scanner.block_end(code, at) > pos:
            inner = _innermost_open(code, at)
            if inner is not None and _AGGREGATE.search(code, max(0, inner - 200), inner):
                return None          # a member: EDG does not warn about those
            return at
    return None


def _innermost_open(code: str, pos: int) -> int | None:
    """Offset of the `{` of the innermost block holding `pos` (None at file scope)."""
    inner = next(scanner.enclosing(code, pos), None)
    return None if inner is None else scanner.blocks(code)[0][inner]


def in_function_body(code: str, pos: int) -> bool:
    """Whether `pos` is in a function's body, not at namespace or class scope (an undefined name in a constant
    there breaks every declaration that reads it: not a fault whose report is one error)."""
    inner = _innermost_open(code, pos)
    return inner is not None and not _AGGREGATE.search(code, max(0, inner - 200), inner)


_WRITE = re.compile(r"\s*(?:\[[^\];]*\]\s*|\.\s*[A-Za-z_]\w*\s*)*=(?!=)")   # `x = `, `x[i] = `, `x.y = `


def _references(code: str, name: str, decl: int, unseen: tuple[tuple[int, int], ...]) -> list[int]:
    """Offsets where `name` declared at `decl` is referenced in its scope, outside the `unseen` ranges."""
    end = scanner.block_end(code, decl)
    return [at for at in scanner.whole_word(code, name, decl + len(name), end)
            if not (at > 0 and code[at - 1] in ".>") and not any(s <= at < e for s, e in unseen)]   # not a member


_ASM = re.compile(r"\s*asm\b[\w\s]*\(")


def _asm_output(code: str, at: int) -> bool:
    """Whether `at` is in an output operand of an `asm` statement (`asm("..." : "=f"(v.x) : ...)`): a store."""
    start = max(code.rfind(";", 0, at), code.rfind("{", 0, at), code.rfind("}", 0, at)) + 1
    head = _ASM.match(code, start)
    return head is not None and code.count(":", head.end(), at) == 1     # (the strings are blank in the code view)


def _unused_warning(code: str, name: str, decl: int, unseen: tuple[tuple[int, int], ...]) -> str | None:
    """EDG's warning for a variable whose references outside the `unseen` ranges are none (#177-D) or only stores
    into it, `x = ...` / `x[i] = ...` / `x.y = ...` or an `asm` output operand (#550-D); None when it is read."""
    refs = _references(code, name, decl, unseen)
    if not refs:
        return _UNREFERENCED.format(name)
    if all(_WRITE.match(code, at + len(name)) and code[scanner.skip_space_back(code, at - 1)] in ";{})"
           or _asm_output(code, at) for at in refs):
        return _SET_NOT_USED.format(name)
    return None


def _initialized_by_call(code: str, name: str, decl: int) -> bool:
    """Whether the initialization of `name` declared at `decl` calls a function (EDG then warns of it in no case:
    initializers.py)."""
    init = initializers.initializer(code, decl, name)
    start = max(code.rfind(";", 0, decl), code.rfind("{", 0, decl), code.rfind("}", 0, decl)) + 1
    head = re.match(_TYPE_HEAD, code[start:decl].lstrip())    # (`int a = 1, b`: the statement's type)
    return init is not None and initializers.calls_function(code, head.group(0) if head else "", init)


def unreferenced(code: str, names, skip: tuple[int, int]) -> list[tuple[int, int, str]]:
    """(emitted at, declaration offset, warning) for each variable without a reference outside code[skip[0]:skip[1]]:
    those of `names` (read in that range), and the namespace-scope constants (some renders never read one)."""
    found = {}
    for name in dict.fromkeys(names):
        decl = _declaration(code, name, skip[0])
        if decl is not None:
            found[decl] = name
    for m in _NAMESPACE_CONSTANT.finditer(code):
        found.setdefault(m.start(1), m.group(1))
    unseen = (skip, *_uninstantiated(code, skip))
    warned = ((decl, name, _unused_warning(code, name, decl, unseen)) for decl, name in found.items())
    return [(scanner.block_end(code, decl), decl, warning) for decl, name, warning in warned
            if warning and not _initialized_by_call(code, name, decl)]


def _uninstantiated(code: str, skip: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """Bodies of the function templates nothing instantiates once code[skip[0]:skip[1]] is skipped: EDG counts no
    reference there, so a constant read only in one is unreferenced. A call whose template arguments hold the
    skipped text (an undefined name there: `conv_tile<BM, BN, THEADS>(...)`) instantiates nothing either (nvcc 13
    then warns of TAPS, read only in conv1d_causal smem_tiled's conv_tile). Found again without the skipped text
    and such calls only when either calls a function template (its only instantiation may be there); else the
    render's own."""
    templates = _function_templates(code)
    calls = []
    for m in scanner.CALLED.finditer(code, _statement_start(code, skip[0])):
        if m.start() >= skip[1]:
            break
        if m.group(1) in templates and m.end() > skip[0]:
            calls.append(m.span())
    if not calls:
        return scanner.dead_code_ranges(code)
    blank = (min(skip[0], calls[0][0]), max(skip[1], calls[-1][1]))
    return scanner.dead_code_ranges(code[:blank[0]] + " " * (blank[1] - blank[0]) + code[blank[1]:])


@lru_cache(maxsize=64)
def _function_templates(code: str) -> frozenset[str]:
    return frozenset(name for name, is_template, _start, _end in scanner.function_defs(code) if is_template)


def sets_unset_variable(code: str, start: int, end: int) -> bool:
    """Whether the statement code[start:end] sets a local declared without an initializer (`T x;`, `T x[4];`, not
    `__shared__`) that nothing set before it and that is read next: skipped after a missing `;`, EDG then warns
    "used before its value is set" (#549-D) at that read, which `render` does not model (probed with nvcc 13: a
    store `x = `, `x[i] = `, `x.y = `, or `&x` passed on; a read next inside a loop may stay quiet)."""
    for name in _set_names(code, start, end):
        decl = _declaration(code, name, start)
        if decl is not None and "__shared__" not in _head(code, decl) \
                and _UNINITIALIZED.match(code, decl + len(name)) \
                and name not in _set_names(code, decl + len(name), start) and _read_next(code, name, decl, end):
            return True
    return False


_UNINITIALIZED = re.compile(r"\s*(?:\[[^\];]*\]\s*)*[;,]")
_ADDRESS_OF = re.compile(r"[(,=]\s*&\s*([A-Za-z_]\w*)")
_NAME = re.compile(r"(?<![\w.>])[A-Za-z_]\w*")


def _set_names(code: str, start: int, end: int) -> set[str]:
    """The names code[start:end] stores into or passes the address of."""
    stored = {m.group(0) for m in _NAME.finditer(code, start, end) if _WRITE.match(code, m.end())}
    return stored | {m.group(1) for m in _ADDRESS_OF.finditer(code, start, end)}


def _read_next(code: str, name: str, decl: int, end: int) -> bool:
    """Whether the first use of `name` (declared at `decl`) after `end` reads it rather than sets it."""
    for m in _NAME.finditer(code, end, scanner.block_end(code, decl)):
        if m.group(0) == name:
            before = scanner.skip_space_back(code, m.start() - 1)
            return not (_WRITE.match(code, m.end())
                        or code[before] == "&" and code[scanner.skip_space_back(code, before - 1)] in "(,=")
    return False


_NESTED_BODY = re.compile(r"\s*(?:for|while|if|switch|do)\b")


def statement_end(code: str, tok: int) -> int | None:
    """Offset of the `;` ending the statement at `tok` (a `for`/`while`/`if` one after its header), or None when
    it holds a block or its body is another control statement (a `#pragma` line before it is blank in the code
    view): EDG's recovery from an error before such a statement is not the one-statement skip rendered here."""
    head = re.match(r"(?:for|while|if|switch)\s*\(", code[tok:tok + 12])
    at = tok
    if head:
        depth, at = 0, tok + head.end() - 1
        while at < len(code):
            depth += (code[at] == "(") - (code[at] == ")")
            if depth == 0:
                break
            at += 1
        if _NESTED_BODY.match(code, at + 1):
            return None
    end = code.find(";", at)
    return None if end < 0 or "{" in code[tok:end] or "}" in code[tok:end] else end


def undefined_uses(code: str, names, start: int) -> list[tuple[int, int, str]]:
    """(emitted at, offset, error) for the uses of the undeclared `names` from `start` to the end of its block that
    EDG reports (once per block, see the module docstring)."""
    end = scanner.block_end(code, start)
    out = []
    for name in names:
        silent_until = -1
        for at in scanner.value_uses(code, name, start, end):
            if at < silent_until:
                continue
            silent_until = _scope_end(code, at)
            out.append((at, at, _UNDEFINED.format(name)))
    return out


_CONTROL = re.compile(r"(?:for|while|if|switch)\s*\(|else\b")


def _scope_end(code: str, at: int) -> int:
    """End of the innermost scope holding `at`: its block's `}`, or, in the body of a `for`/`while`/`if`/`else`
    written without braces (a scope of its own), the `;` ending that body."""
    end = scanner.block_end(code, at)
    inner = _innermost_open(code, at)
    depth, stmt = 0, 0 if inner is None else inner + 1
    for j in range(stmt, at):               # the statement holding `at` starts after the last `;`, `{`, `}` at depth 0
        depth += (code[j] == "(") - (code[j] == ")")
        if depth == 0 and code[j] in ";{}":
            stmt = j + 1
    head = _CONTROL.match(code, scanner.skip_space(code, stmt, at))
    if head is None or (head.group(0) != "else" and initializers.closing(code, head.end() - 1) > at):
        return end                          # not in a braceless body (a use in a control's header)
    depth = 0
    for j in range(at, end):
        depth += (code[j] == "(") - (code[j] == ")")
        if code[j] == ";" and depth <= 0:
            return j
    return end


def render(filename: str, text: str, diagnostics: list[tuple]) -> FollowOn:
    """The diagnostics (emitted at, offset, `error: ...` / `warning ...`[, recorded notes]) of the edited `text`, in
    nvcc's order."""
    if not diagnostics:
        return NONE
    code = scanner.code_view(text, "cuda")
    macro = scanner.macros(text).get
    blocks, warned = [], False
    for _emit, pos, header, *notes in sorted(diagnostics):
        line, col = scanner.line_col(text, pos)
        shown = scanner.display_line(scanner.line_text(code, line), col, macro)
        block = [f"{filename}({line}): {header}\n{shown}"]
        for note in notes[0] if notes else ():     # recorded notes; those at the user's line show it again
            block.append(f"{filename}({line}): {note[1:]}\n{shown}" if note.startswith(SITE) else note)
        blocks.append("\n".join(block))
        if header.startswith("warning") and not warned:
            blocks.append(REMARK)
            warned = True
    return FollowOn("\n\n".join(blocks), sum(d[2].startswith("error") for d in diagnostics))


def declarators(code: str, start: int, end: int) -> list[str]:
    """The names the statement code[start:end] declares, if it is a declaration (the first, and those after
    top-level commas: `const int m0 = a, n0 = b;`)."""
    first = _FIRST_DECLARATOR.match(code, start, end + 1)
    if first is None:
        return []
    first = first.group(1)
    names, depth, part = [first], 0, []
    stmt = code[start:end]
    for ch in stmt[stmt.find(first) + len(first):]:
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            part.append("")
        elif part:
            part[-1] += ch
    for p in part:
        m = re.match(r"\s*\**\s*([A-Za-z_]\w*)\s*(?:=|\[|$)", p)
        if m:
            names.append(m.group(1))
    return names


_COMPOUND = re.compile(r"\s*([-+*/])=(?!=)")
_LONE_OPERAND = re.compile(r"\s*[A-Za-z_]\w*\s*(?:\[[^][;]*\])?\s*;")   # `x;` or `p[i];`: an lvalue


@lru_cache(maxsize=1)
def _operator_notes() -> dict:
    return read_table()[1]


def operator_headers(text: str) -> tuple[str, ...]:
    """The operator-declaring headers `text` includes, sorted (the key of the recorded notes)."""
    return tuple(sorted(set(re.findall(r"^\s*#\s*include\s*<([\w./]+)>", text, re.M)) & set(OPERATOR_HEADERS)))


def vector_uses(code: str, name: str, uses: list[int], vec: str, old: str, headers: tuple[str, ...]):
    """nvcc's errors at the later `uses` of `name`, a `old` scalar now declared `vec`: (emitted at, offset, error,
    notes) each, or None when a use is not one the rules cover (see the module docstring)."""
    out = []
    for at in uses:
        m = _COMPOUND.match(code, at + len(name))
        if m and _LONE_OPERAND.match(code, m.end()):
            # `v += x`, `v += p[i]`: EDG prints the lvalue's declared type ("const float" for an element of a
            # `const float*`), not read here; `v += p[i] * s` is a prvalue, printed as the scalar type
            return None
        if m:
            op = m.group(1) + "="
            notes = _operator_notes().get((headers, op, vec, old))
            if notes is None:
                return None
            out.append((m.start(1), m.start(1), f'error: no operator "{op}" matches these operands\n'
                        f"            operand types are: {vec} {op} {old}", notes))
        elif _into_scalar(code, name, at, old):
            out.append((at, at, f'error: no suitable conversion function from "{vec}" to "{old}" exists', ()))
        else:
            return None
    return out


def in_template(code: str, pos: int) -> bool:
    """Whether `pos` is in a template: a function template, a member template of a class, a class template's
    member (nvcc then adds the instantiation context)."""
    heads = _template_blocks(code)
    return bool(heads) and any(i in heads for i in scanner.enclosing(code, pos))


@lru_cache(maxsize=64)
def _template_blocks(code: str) -> frozenset[int]:
    """The blocks whose head (`_head` of its `{`) holds `template <`, once per code (asked for every candidate site of
    several fault kinds): found from the code's few `template <`s, not by reading every block's head. A head runs
    from the last `;`, `{` or `}` to its `{`, so a `template <` is in a head exactly when the first of those after it
    is a `{`, that block's."""
    opens = scanner.blocks(code)[0]
    out = set()
    for m in scanner.TEMPLATE_HEAD.finditer(code):
        first = min((at for at in (code.find(c, m.end()) for c in ";{}") if at >= 0), default=-1)
        if first >= 0 and code[first] == "{":
            out.add(bisect.bisect_left(opens, first))
    return frozenset(out)


def _head(code: str, pos: int) -> str:
    """The text from the last `;`, `{` or `}` before `pos` to `pos`: a definition's head when `pos` is its `{`."""
    return code[_statement_start(code, pos):pos]


def _statement_start(code: str, pos: int) -> int:
    """Where the statement (or head) holding `pos` starts: after the last `;`, `{` or `}` before it."""
    return max(code.rfind(";", 0, pos), code.rfind("{", 0, pos), code.rfind("}", 0, pos)) + 1


def _into_scalar(code: str, name: str, at: int, old: str) -> bool:
    """Whether the use at `at` converts `name` to an `old` scalar: `return name;` in a function returning `old`, or
    a whole argument of a plain function (one definition, no template) whose parameter there is an `old`."""
    before = code[:at].rstrip()
    after = code[at + len(name):].lstrip()
    if before.endswith("return") and after.startswith(";"):
        opens, closes, parents = scanner.blocks(code)
        outer = next(i for i in range(len(opens)) if opens[i] < at < closes[i] and parents[i] == -1)
        return bool(re.search(rf"\b{old}\s+[A-Za-z_]\w*\s*\([^()]*\)\s*$", _head(code, opens[outer])))
    if not (before.endswith(("(", ",")) and after.startswith((")", ","))):
        return False
    depth, i, index = 0, at - 1, 0
    while i >= 0:
        ch = code[i]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            index += 1
        i -= 1
    if i < 0 or code[i] != "(":
        return False
    callee = re.search(r"([A-Za-z_]\w*)\s*$", code[:i])
    if callee is None:
        return False
    defs = [d for d in re.finditer(rf"\b{callee.group(1)}\s*\(([^()]*)\)\s*(?:const\s*)?\{{", code)]
    if len(defs) != 1 or scanner.TEMPLATE_HEAD.search(_head(code, defs[0].start())):
        return False
    params = defs[0].group(1).split(",")
    return index < len(params) and bool(re.fullmatch(rf"\s*(?:const\s+)?{old}\s+[A-Za-z_]\w*\s*", params[index]))
