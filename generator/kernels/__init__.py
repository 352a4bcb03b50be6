"""Kernel source rendering (CUDA and Triton): (task, variant, params) -> the full text of one candidate.

Rendering is pure and cheap (templates are parsed once and bound to a task once per variant, so a render only
fills in the tuned parameters), so the session simulator can call it for every step; `faults.inject` then edits
the rendered text, and `audit` compiles it with the real tools.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from generator.kernels import style as styling, templating, unused_helpers
from generator.kernels.style import Style
from generator.kernels.templating import TEMPLATE_ROOT, TemplateError
from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS, act_dtype

__all__ = ["Source", "Style", "TemplateError", "render", "full_params"]

_SUFFIX = {"cuda": ".cu", "triton": ".py"}


@dataclass(unsafe_hash=True, slots=True)
class Source:
    """One rendered candidate: the text and what a compiler needs to know to build it (read-only by convention:
    a frozen dataclass pays a setattr call per field, on every render; hashed by value like a frozen one)."""

    text: str
    filename: str        # e.g. "flash_decode_split_kv.cu": the name nvcc/Triton diagnostics print
    lang: str            # "cuda" | "triton"
    compile_arch: str    # the -gencode target, always the GPU's arch ("sm_90a", "sm_120a", "sm_86"); Triton: its cc


def source_constants(variant, params: Mapping[str, object]) -> dict[str, object]:
    """Every tuned constant the rendered source sets: `full_params` and the ones its template writes as fixed
    numbers (`Variant.fixed`, e.g. a naive Triton file's NUM_WARPS = 4): what a fault's report reads them from."""
    return {**variant.fixed, **full_params(variant, params)}


def full_params(variant, params: Mapping[str, object]) -> dict[str, object]:
    """The variant's defaults overlaid with `params`, in the variant's declared order."""
    tunables = variant.params
    if list(params) == list(tunables):      # the usual call: every tunable, in the declared order
        return dict(params)
    unknown = set(params) - set(tunables)
    if unknown:
        raise TemplateError(f"{variant.kernel_class}/{variant.tag}: unknown parameter(s) {sorted(unknown)}; "
                            f"tunables are {list(tunables)}")
    return {name: params.get(name, values[0]) for name, values in tunables.items()}


def render(task, variant, params: Mapping[str, object], *, root: Path = TEMPLATE_ROOT,
           style: Style | None = None) -> Source:
    """The full source of `variant` for `task` at `params` (missing params take the variant's defaults), written
    in the engineer's `style` (None: the templates as written)."""
    lang = task.impl
    if lang not in _SUFFIX:
        raise TemplateError(f"unknown impl {lang!r}; known: cuda, triton")
    tuned = full_params(variant, params)
    bound, param_slots, filename, arch = _bound(task, variant, root, style)
    values = _slot_values(tuple(tuned.items()), tuple(map(type, tuned.values())), lang, style and style.constants,
                          param_slots)
    return Source(bound.fill(values), filename, lang, arch)


@lru_cache(maxsize=8192)
def _slot_values(tuned: tuple, types: tuple, lang: str, form: str | None, param_slots: bool) -> dict[str, str]:
    """What a render fills the bound template's slots with: the tuned constants' lines in the declaration form
    (None: the templates'), and each parameter's literal where the template reads one (shared: read-only). Cached
    per configuration: a variant's grid is the same in every session, so most configurations a session renders
    were written before in the same form (600 sessions: 6,583 distinct of 45,800). `types` (the values' classes)
    is only part of the key: True == 1 as a key, not as a Python literal."""
    params = dict(tuned)
    values = {"TUNED_CONSTANTS": templating.tuned_constants(params, lang) if form is None
              else styling.constants_text(params, lang, form)}
    if param_slots:
        values.update(templating.literals(params, lang))
    return values


@lru_cache(maxsize=512)   # a session renders one task's few variants thousands of times
def _bound(task, variant, root: Path, style: Style | None = None) -> tuple[templating.Bound, bool, str, str]:
    """The variant's template (and op snippet) bound to everything about the task, leaving the tuned
    parameters open; whether a slot other than TUNED_CONSTANTS is left (most templates have none); the source's
    file name and compile arch. With a style, the template texts are restyled before they are bound."""

    gpu, op, lang = GPUS[task.gpu], OPS[task.op], task.impl
    arch = gpu.arch
    values = {
        "OP": task.op, "VARIANT": variant.tag, "KERNEL_CLASS": variant.kernel_class,
        "KERNEL_NAME": f"{task.op}_{variant.tag}", "GPU": gpu.name, "GPU_DISPLAY": gpu.display,
        "ARCH": arch, "CC": str(gpu.cc), "DTYPE": task.dtype, "SIGNATURE": op.signature(lang, task.dtype),
    }
    values.update((f"SHAPE_{k}", str(v)) for k, v in task.shape)
    if lang == "cuda":
        values["PRELUDE"] = templating.prelude(task.dtype)
        values["SCALAR_T"] = templating.C_TYPES[task.dtype]
    else:
        values["TL_DTYPE"] = templating.TL_DTYPES[task.dtype]
        values["TL_SIG"] = templating.TL_SIGS[task.dtype]
        values["TL_ACT"] = templating.TL_SIGS[act_dtype(task.dtype)]   # an `act` argument (ops.Op.args)
    names = tuple(variant.params)
    slots = frozenset(names) | {"TUNED_CONSTANTS"}

    main_path = templating.template_path(lang, variant.kernel_class, variant.tag, root, task.op)
    if style is not None:   # the engineer writes the technique one of the ways real code does
        main_path = style.pick(templating.alternatives(main_path))
    templating.check_tuned_lines(main_path, names)
    main = templating.load(main_path)
    snippet = None
    if "OP_SNIPPET" in main.lines_of:
        snippet = templating.snippet_path(lang, variant.kernel_class, task.op, root, task.dtype)
        if snippet is None:
            raise TemplateError(f"{main.where('OP_SNIPPET')}: {{{{OP_SNIPPET}}}} used but neither "
                                f"ops/{task.op}{templating.EXTENSIONS[lang][1]} nor ops/_default exists")
        templating.check_tuned_lines(snippet, names)
    texts, (main, *rest) = _unit(lang, main_path, snippet)
    snippet_template = rest[0] if rest else None
    if style is not None:
        main, snippet_template = _styled(texts, main, snippet_template, lang, values, style)
    if snippet_template is not None:
        values["OP_SNIPPET"] = snippet_template.bind(values, slots).rstrip_newlines()
    bound = main.bind(values, slots)
    param_slots = any(name != "TUNED_CONSTANTS" for name in bound.pieces[1::2])
    return bound, param_slots, f"{task.op}_{variant.tag}{_SUFFIX[lang]}", arch


@lru_cache(maxsize=None)
def _unit(lang: str, main_path: Path,
          snippet_path: Path | None) -> tuple[tuple[str, ...], tuple[templating.Template, ...]]:
    """The template texts of one translation unit (the variant's template, then its op snippet if any) as renders
    use them, CUDA's without the helpers nothing in the unit names (`unused_helpers`), and their parses (whose
    placeholder lines stay the files', for errors)."""
    paths = (main_path,) if snippet_path is None else (main_path, snippet_path)
    texts = tuple(templating.text_of(path) for path in paths)
    if lang == "cuda":
        texts = unused_helpers.pruned(texts)
    return texts, tuple(templating.Template(path, templating.parse(text, path).pieces, templating.load(path).lines_of)
                        for path, text in zip(paths, texts))


def _styled(texts: tuple[str, ...], main, snippet, lang: str, values: dict, style: Style):
    """The main template and op snippet (`texts`, their parses `main` and `snippet`) restyled, their renameable
    names left as slots that `values` now binds (`values`' prelude and signature restyled too, in place). The op's
    signature names, its kernel and launcher names are the task's interface: the style never renames them."""
    protected = frozenset(templating.IDENTIFIER.findall(values["SIGNATURE"])) | {values["KERNEL_NAME"], values["OP"]}
    if lang == "cuda":
        values["PRELUDE"] = styling.prelude_text(values["PRELUDE"], style)
        if not style.restrict:
            values["SIGNATURE"] = values["SIGNATURE"].replace(" __restrict__", "")
    parts = (main,) if snippet is None else (main, snippet)
    laid_out, names = styling.styled_parts(texts, lang, protected, style)
    values.update(names)    # lower-case names as slots beside the upper-case placeholders: bound with them
    styled = [templating.parse_split(split, t.path) for split, t in zip(laid_out, parts)]
    return styled[0], (styled[1] if snippet is not None else None)
