"""Whether a variable's initialization calls a function: nvcc 13's front end (EDG) then never warns that the
variable is unused (#177-D) or set but never used (#550-D), whatever happens to it later.

Probed with the real nvcc (tests/kernels/test_unused_warnings.py). No warning when the initializer calls a
function (`f(n)`, `min(a, b)`, `__ldg(p)`, `tf<4>(n)`, `c ? f(n) : 0`, a constexpr function of a run-time value),
a constructor (`half(1.f)`, `dim3 d(n)`, `half2 h = {a, b}`), a conversion or an operator of a class (`(float)h`,
`h * h` for a `half h`), or has a side effect (`n++`). A warning for casts of built-in values (`(float)n`,
`int(n)`, `acc_t(2.f)` with `acc_t` a float), loads, member reads, copies of a class value (`half h2 = h`,
`float4 v = p[0]`), aggregates (`float4 v = {}`, `S s{3}`) and a constexpr function of constants (folded at
compile time: `ce(4)`).
"""
from __future__ import annotations

import re
from functools import lru_cache

from generator.kernels import scanner

_NOT_CALLS = frozenset({"sizeof", "alignof", "__alignof__", "decltype", "static_cast", "reinterpret_cast",
                        "const_cast", "dynamic_cast"})
_BUILTIN = frozenset("void bool char short int long unsigned signed float double size_t ptrdiff_t int8_t uint8_t "
                     "int16_t uint16_t int32_t uint32_t int64_t uint64_t cuuint32_t cuuint64_t const volatile".split())
# CUDA's types with constructors, conversions and operators (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, cuda_fp4.h;
# dim3 of vector_types.h); float2/float4/int4/uint4... are plain aggregates
_CLASSES = re.compile(r"(?:__)?(?:half2?|nv_bfloat162?|nv_fp8x?[24]?_e\w+|nv_fp4x?[24]?_e\w+)|dim3")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<(?:[^<>;()]|<[^<>;]*>)*>\s*)?\(")
_SIDE_EFFECT = re.compile(r"\+\+|--|(?<![=!<>])=(?!=)")
_TYPE_BEFORE = re.compile(r"(?<![\w.>])([A-Za-z_][\w:]*(?:\s*<[^;{}()]*>)?)\s*(\**)\s*(?:const\s+)?"
                          r"(?:__restrict__\s+)?$")
_VALUE = re.compile(r"(?<![\w.>])(\*\s*)?([A-Za-z_]\w*)((?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*)(\s*\[[^;]*\])?")


def initializer(code: str, name_at: int, name: str) -> str | None:
    """The initializer of the variable declared at `name_at` (`= e`, `(e)`, `{e}`), without `=`; None when it has
    none."""
    j = scanner.skip_space(code, name_at + len(name), len(code))
    while j < len(code) and code[j] == "[":                  # array bounds
        j = scanner.skip_space(code, closing(code, j) + 1, len(code))
    if j >= len(code) or code[j] not in "=({":
        return None
    if code[j] in "({":
        return code[j:closing(code, j) + 1]
    end, depth = j + 1, 0
    while end < len(code) and not (depth == 0 and code[end] in ",;"):
        depth += (code[end] in "([{") - (code[end] in ")]}")
        end += 1
    return code[j + 1:end]


def calls_function(code: str, typ: str, init: str) -> bool:
    """Whether initializing a variable of declared type `typ` (its declaration's head: `const float`,
    `scalar_t*`) with `init` calls a function (see the module docstring)."""
    if _SIDE_EFFECT.search(init.replace("<=", "").replace(">=", "").replace("==", "")):
        return True
    for m in _CALL.finditer(init):
        called = m.group(1)
        if called in _NOT_CALLS or _builtin(code, called):
            continue                     # a cast: a call only of a class value's conversion (below)
        if not _folded(code, called, init[m.end():]):
            return True
    if "*" not in typ and _is_class(code, typ):       # a copy of a class value, or a constructor
        inner = init[1:-1] if init.startswith(("(", "{")) else init
        copied = _VALUE.fullmatch(inner.strip())
        return bool(inner.strip()) and not (copied and _class_value(code, copied))
    return any(_class_value(code, m) for m in _VALUE.finditer(init))


def closing(code: str, at: int) -> int:
    """Offset of the bracket closing the `(`, `[` or `{` at `at` (any kind counted: the code is balanced)."""
    depth = 0
    for j in range(at, len(code)):
        depth += (code[j] in "([{") - (code[j] in ")]}")
        if depth == 0:
            return j
    return len(code) - 1


@lru_cache(maxsize=4096)
def resolve(code: str, typ: str) -> str:
    """`typ` with its typedef / alias chain followed (a few levels), qualifiers and `*` kept out."""
    typ = " ".join(w for w in re.findall(r"[\w:]+", typ) if w not in ("const", "volatile", "__restrict__", "static",
                                                                      "constexpr", "__shared__"))
    for _ in range(6):
        name = re.escape(typ)
        m = re.search(rf"typedef\s+([\w\s:]+?)\s+{name}\s*;|using\s+{name}\s*=\s*([\w\s:]+?)\s*;", code)
        if not m:
            break
        typ = (m.group(1) or m.group(2)).strip()
    return typ


def _builtin(code: str, typ: str) -> bool:
    return all(w in _BUILTIN for w in resolve(code, typ).split())


@lru_cache(maxsize=4096)
def _is_class(code: str, typ: str) -> bool:
    """A type with constructors, conversions or operators: CUDA's (see _CLASSES) or a struct of the source that
    declares one."""
    typ = resolve(code, typ)
    if _CLASSES.fullmatch(typ):
        return True
    body = re.search(rf"\b(?:struct|class)\s+{re.escape(typ)}\b[^;{{]*\{{", code)
    if body is None:
        return False
    inside = code[body.end():closing(code, body.end() - 1)]
    return re.search(rf"\b(?:{re.escape(typ)}\s*\(|operator\b)", inside) is not None


def _folded(code: str, called: str, args: str) -> bool:
    """Whether `called(args...` is a constexpr function of constants (names declared constexpr, literals)."""
    if not re.search(rf"\bconstexpr\b[^;{{}}()]*\b{re.escape(called)}\s*\(", code):
        return False
    depth, end = 1, 0
    while end < len(args) and depth:
        depth += (args[end] == "(") - (args[end] == ")")
        end += 1
    return all(re.search(rf"\bconstexpr\b[^;{{}}()]*\b{name}\s*=", code)
               for name in set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", args[:end])))


def _class_value(code: str, m: re.Match) -> bool:
    """Whether the name `m` reads (`x`, `*p`, `p[i]`, `s.m`) is a value of a class type (converting it, or applying
    an operator, calls a function)."""
    deref, name, members, index = m.groups()
    typ = _declared_type(code, name)
    for member in re.findall(r"\w+", members or ""):
        if typ is None or "*" in typ and "->" not in members:
            return False
        typ = _member_type(code, resolve(code, typ), member)
    if typ is None:
        return False
    pointer = typ.count("*") - bool(deref) - bool(index)
    return pointer <= 0 and _is_class(code, typ.replace("*", " "))


@lru_cache(maxsize=4096)
def _declared_type(code: str, name: str) -> str | None:
    """The type of the variable or parameter `name` as declared (the first declaration in the source)."""
    for at in scanner.whole_word(code, name, 0, len(code)):
        follow = scanner.skip_space(code, at + len(name), len(code))
        if follow < len(code) and code[follow] in "=;,)[{" and code[follow:follow + 2] != "==":
            m = _TYPE_BEFORE.search(code, max(0, at - 120), at)
            if m and m.group(1) not in ("return", "case", "else", "goto", *_NOT_CALLS):
                return m.group(1) + m.group(2)
    return None


def _member_type(code: str, struct: str, member: str) -> str | None:
    """The declared type of `struct`'s member `member` (a struct of the source; CUDA's vector types hold
    built-in members; half2's halves are halves)."""
    if re.fullmatch(r"(?:__)?half2", struct):
        return "half"
    if re.fullmatch(r"(?:__)?nv_bfloat162", struct):
        return "__nv_bfloat16"
    body = re.search(rf"\b(?:struct|class)\s+{re.escape(struct)}\b[^;{{]*\{{", code)
    if body is None:
        return "int"
    return _declared_type(code[body.end():closing(code, body.end() - 1)], member)
