"""Template files -> source text: loading, caching, `{{NAME}}` substitution and the standard placeholders.

Templates are parsed once into alternating literal/placeholder pieces and bound once per (task, variant) to
every value but the tuned parameters, so rendering a candidate is a lookup per tuned slot and one `str.join`
(render runs for every step of every session). The conventions the template authors follow are in
`templates/README.md`; violations raise `TemplateError` naming file and line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

TEMPLATE_ROOT = Path(__file__).parent / "templates"
EXTENSIONS = {"cuda": (".cu", ".cuh"), "triton": (".py", ".py")}

_PLACEHOLDER = re.compile(r"\{\{([A-Z][A-Z0-9_]*)\}\}")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


class TemplateError(ValueError):
    """A template file is missing or breaks a convention; the message names the file and line."""


@dataclass(frozen=True)
class Template:
    """A parsed template: `pieces[0::2]` are literal text, `pieces[1::2]` placeholder names."""

    path: Path
    pieces: tuple[str, ...]
    lines_of: Mapping[str, tuple[int, ...]]   # placeholder -> 1-based lines where it occurs

    def bind(self, values: Mapping[str, str | Bound], slots: frozenset[str] = frozenset()) -> Bound:
        """Substitute every placeholder but those in `slots` (a `Bound` value is spliced in, its slots kept
        open); what is left to fill per render is only the slots. Each literal piece is joined once from its
        parts (every session binds its task's templates: growing one string would copy it per placeholder)."""
        pieces = self.pieces
        out: list[str] = []
        run = [pieces[0]]                  # the parts of the literal piece being built
        for i in range(1, len(pieces), 2):
            name, after = pieces[i], pieces[i + 1]
            if name in slots:
                out += ("".join(run), name)
                run = [after]
                continue
            try:
                value = values[name]
            except KeyError:
                raise TemplateError(f"{self.where(name)}: unknown placeholder {{{{{name}}}}} "
                                    f"(known: {', '.join(sorted({*values, *slots}))})") from None
            if isinstance(value, Bound):
                run.append(value.pieces[0])
                if len(value.pieces) > 1:
                    out.append("".join(run))
                    out += value.pieces[1:-1]
                    run = [value.pieces[-1]]
                run.append(after)
            else:
                run += (value, after)
        out.append("".join(run))
        return Bound(tuple(out))

    def where(self, name: str) -> str:
        return f"{self.path}:{self.lines_of[name][0]}"


@dataclass(frozen=True)
class Bound:
    """A template with all but its slots substituted: `pieces[0::2]` literal text, `pieces[1::2]` slot names.
    Filling it is a dict lookup per slot and one `str.join`."""

    pieces: tuple[str, ...]

    def rstrip_newlines(self) -> Bound:
        """`fill(...).rstrip("\n")` for slot values that never end in a newline (parameter literals)."""
        return Bound(self.pieces[:-1] + (self.pieces[-1].rstrip("\n"),))

    def fill(self, values: Mapping[str, str]) -> str:
        out = list(self.pieces)
        for i in range(1, len(out), 2):
            out[i] = values[out[i]]
        return "".join(out)


@lru_cache(maxsize=None)
def load(path: Path) -> Template:
    """Read and parse a template once per process."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TemplateError(f"{path}: cannot read template: {exc.strerror}") from None
    return parse(text, path)


def parse(text: str, path: Path) -> Template:
    """A template's text (as read) parsed; `path` names it in errors."""
    return _template(path, _PLACEHOLDER.split(text))


@lru_cache(maxsize=4096)   # per laid-out template (a default run has ~2,400): the engineers whose layouts give it share
def parse_split(parts: tuple[str, ...], path: Path) -> Template:
    """A template already split at names (`parts`: literal, name, literal, ..., literal, as `kernels.style` splits
    a laid-out template at the names it may rename), parsed with each of those names as a slot too: one `bind`
    then renames them and fills the placeholders, the text `parse` of the renamed text and its `bind` give."""
    pieces = _PLACEHOLDER.split(parts[0])
    for name, literal in zip(parts[1::2], parts[2::2]):
        pieces.append(name)
        pieces += _PLACEHOLDER.split(literal)
    return _template(path, pieces)


def _template(path: Path, pieces: list[str]) -> Template:
    lines_of: dict[str, list[int]] = {}
    line = 1
    for i in range(1, len(pieces), 2):      # each placeholder's line: the newlines of the literal text before it
        line += pieces[i - 1].count("\n")
        lines_of.setdefault(pieces[i], []).append(line)
    return Template(path, tuple(pieces), {k: tuple(v) for k, v in lines_of.items()})


@lru_cache(maxsize=None)   # template files do not come and go while a process renders (~200K renders a run)
def template_path(lang: str, kernel_class: str, tag: str, root: Path = TEMPLATE_ROOT, op: str | None = None) -> Path:
    """The variant's module for `op`: the op's own (`<kernel_class>/<op>/<tag>`, for an op whose code shares none of
    the class template's helpers, e.g. moe_topk_gating's one-tile router row among the samplers), else the class's."""
    ext = EXTENSIONS[lang][0]
    own = root / lang / kernel_class / op / f"{tag}{ext}" if op else None
    if own is not None and own.is_file():
        return own
    path = root / lang / kernel_class / f"{tag}{ext}"
    if not path.is_file():
        raise TemplateError(f"{path}: no template for {lang} {kernel_class}/{tag}")
    return path


@lru_cache(maxsize=None)
def alternatives(path: Path) -> tuple[Path, ...]:
    """The template and its structural alternatives (`<tag>~<how>.<ext>` beside it: the same technique written
    another way, e.g. a reduction finished by warp shuffles instead of a shared-memory tree), the template first."""
    return (path,) + tuple(sorted(path.parent.glob(f"{path.stem}~*{path.suffix}")))


@lru_cache(maxsize=None)
def snippet_path(lang: str, kernel_class: str, op: str, root: Path = TEMPLATE_ROOT,
                 dtype: str | None = None) -> Path | None:
    """The op's snippet for `dtype` (`ops/<op>.<dtype>`: an op whose data format changes the code, e.g. fp8
    experts), else the op's snippet, else `ops/_default`, else None (a template without {{OP_SNIPPET}} needs none)."""
    ops_dir = root / lang / kernel_class / "ops"
    for name in (f"{op}.{dtype}", op, "_default") if dtype else (op, "_default"):
        path = ops_dir / f"{name}{EXTENSIONS[lang][1]}"
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=None)
def check_tuned_lines(path: Path, param_names: tuple[str, ...]) -> None:
    """A tuned-parameter placeholder must sit on a line that defines that parameter and holds nothing else
    to substitute, so a tuning step changes only those lines."""
    template = load(path)
    text_lines = _raw_lines(path)
    for name in param_names:
        for line_no in template.lines_of.get(name, ()):
            raw = text_lines[line_no - 1]
            others = [m.group(1) for m in _PLACEHOLDER.finditer(raw)]
            defines = re.search(rf"\b{name}\b[^{{]*\{{\{{{name}\}}\}}", raw)
            if others != [name] or not defines:
                raise TemplateError(f"{path}:{line_no}: tuned parameter {{{{{name}}}}} must be alone on a line "
                                    f"that defines {name} (e.g. '#define {name} {{{{{name}}}}}'), got: {raw.strip()}")


@lru_cache(maxsize=None)
def _raw_lines(path: Path) -> tuple[str, ...]:
    return tuple(text_of(path).splitlines())


@lru_cache(maxsize=None)
def text_of(path: Path) -> str:
    """A template file's text, read once per process."""
    return path.read_text(encoding="utf-8")


# ---- standard placeholder values -----------------------------------------------------------------------

C_TYPES = {"fp16": "half", "bf16": "__nv_bfloat16", "fp32": "float", "fp8": "__nv_fp8_e4m3",
           "int8": "int8_t", "int4": "uint8_t", "fp4": "uint8_t"}
TL_DTYPES = {"fp16": "tl.float16", "bf16": "tl.bfloat16", "fp32": "tl.float32", "fp8": "tl.float8e4nv",
             "int8": "tl.int8", "int4": "tl.uint8", "fp4": "tl.uint8"}
TL_SIGS = {"fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp8": "fp8e4nv", "int8": "i8", "int4": "u8", "fp4": "u8"}
_BASE_INCLUDES = ("cuda_runtime.h", "cuda_fp16.h", "cuda_bf16.h", "stdint.h")
_DTYPE_INCLUDES = {"fp8": ("cuda_fp8.h",), "fp4": ("cuda_fp8.h", "cuda_fp4.h")}


@lru_cache(maxsize=None)
def prelude(dtype: str) -> str:
    """Includes and element typedefs for a CUDA TU of this dtype."""
    if dtype not in C_TYPES:
        raise TemplateError(f"unknown dtype {dtype!r}; known: {', '.join(C_TYPES)}")
    includes = _BASE_INCLUDES + _DTYPE_INCLUDES.get(dtype, ())
    lines = [f"#include <{h}>" for h in includes]
    lines += ["", f"typedef {C_TYPES[dtype]} scalar_t;", "typedef float acc_t;"]
    return "\n".join(lines)


def literal(value, lang: str) -> str:
    """A parameter value as a C or Python literal."""
    if isinstance(value, bool):
        return ("1" if value else "0") if lang == "cuda" else repr(value)
    return str(value)


def literals(params: Mapping[str, object], lang: str) -> dict[str, str]:
    """Each parameter's value as a literal, in the given order (`str` but for booleans: one call per value
    less, on every render)."""
    return {k: literal(v, lang) if v.__class__ is bool else str(v) for k, v in params.items()}


def tuned_constants(params: Mapping[str, object], lang: str) -> str:
    """One definition line per tuned parameter, in the given order (values written as `literal` writes them, in
    one pass: it runs on every render)."""
    if lang == "cuda":
        return "\n".join([f"#define {k} {literal(v, lang) if v.__class__ is bool else v}" for k, v in params.items()])
    return "\n".join([f"{k} = {v}" for k, v in params.items()])     # Python: str(True) is its literal
