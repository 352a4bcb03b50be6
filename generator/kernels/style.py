"""A session's engineer style: how one person writes the code the templates hold, applied to the template text.

Real kernel authors differ in naming (snake or camel case, short or descriptive names), how they declare tuned
constants (`#define`, `constexpr`, `static constexpr`; annotated Python globals), `const` placement, whether they
write `#pragma unroll` and `__restrict__`, brace placement, indentation, include order, `typedef` or `using`, and
how much they comment. A `Style` is drawn once per session (per agent in kernelswarm) from the row's own
generator and rewrites the template text before it is bound, so every render of the session (every step, every
tuned configuration) carries the same style and a tuning step still changes only its constants' lines.

Every rewrite is semantics-preserving: a name is renamed only where the whole translation unit can be renamed
consistently (never a member, keyword argument, signature name or a name already in use), comments and blank
layout carry no meaning, `T const` is `const T`, and dropping `#pragma unroll` / `__restrict__` leaves a program
that computes the same result (the compiler may then allocate registers differently: `Style.codegen_key()`).
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

__all__ = ["Style", "draw_style", "style_texts", "styled_parts", "constants_text", "prelude_text", "template_name"]

# Synonyms real code uses for the templates' most common local names (snake_case; camel-case styles convert).
# Only names the templates declare themselves: a rename applies to every use in the translation unit.
_CUDA_NAMES = {
    "row": ("row", "row_idx", "row_id", "cur_row"), "col": ("col", "col_idx", "column", "c_idx"),
    "rows": ("rows", "n_rows", "num_rows"), "cols": ("cols", "n_cols", "num_cols", "width"),
    "lane": ("lane", "lane_id", "lane_idx", "ln"), "warp": ("warp", "warp_id", "warp_idx", "wid"),
    "tid": ("tid", "thread_id", "t_idx", "tx"), "acc": ("acc", "accum", "acc_val", "partial"),
    "smem": ("smem", "shmem", "s_buf", "shared_buf"), "offset": ("offset", "off", "ofs", "shift"),
    "pack": ("pack", "packed", "chunk", "vec"), "plan": ("plan", "launch_plan", "cfg", "lp"),
    "plan_launch": ("plan_launch", "make_plan", "launch_config", "choose_launch"),
    "load_n": ("load_n", "load_vec", "vload", "load_pack"), "store_n": ("store_n", "store_vec", "vstore", "store_pack"),
    "pack2": ("pack2", "pack_pair", "to_half2", "pair_pack"), "dst": ("dst", "dest", "dst_ptr"),
    "src": ("src", "source", "src_ptr"), "scale": ("scale", "scl", "scale_f", "mult"),
    "sum": ("sum", "total_sum", "s_acc", "run_sum"), "tile": ("tile", "tile_idx", "cur_tile"),
    "stage": ("stage", "stg", "pipe_stage", "buf_idx"), "slot": ("slot", "slot_idx", "page_slot"),
    "base": ("base", "base_off", "origin"), "begin": ("begin", "start", "lo_idx"), "end": ("end", "stop", "hi_idx"),
    "row_max": ("row_max", "m_run", "running_max", "max_so_far"),
    "row_sum": ("row_sum", "l_run", "running_sum", "denom"),
    "softmax_scale": ("softmax_scale", "sm_scale", "qk_scale", "attn_scale"),
    "k_tiles": ("k_tiles", "num_k_tiles", "n_k_tiles", "k_iters"), "heads": ("heads", "n_heads", "num_heads"),
    "valid": ("valid", "in_range", "is_valid", "inside"), "total": ("total", "n_total", "count_total"),
    "warp_stats": ("warp_stats", "warp_partials", "s_warp", "partials"), "glane": ("glane", "global_lane", "g_lane"),
    "part": ("part", "piece", "partial_v"), "first": ("first", "head_idx", "first_idx"),
    "kt": ("kt", "k_tile", "kk_tile"), "qi": ("qi", "q_idx", "query"), "kp": ("kp", "k_ptr", "key_ptr"),
    "vp": ("vp", "v_ptr", "val_ptr"), "mx": ("mx", "max_v", "vmax"), "bar": ("bar", "mbar", "barrier"),
    "thr": ("thr", "thresh", "cutoff"), "key": ("key", "k_val", "sort_key"), "stride": ("stride", "pitch", "ld"),
    "count": ("count", "cnt", "num"), "target": ("target", "tgt", "dest_idx"), "tiles": ("tiles", "n_tiles", "num_tiles"),
    "block": ("block", "blk", "block_idx"), "group": ("group", "grp", "group_idx"), "next": ("next", "nxt", "next_idx"),
    "load_tile": ("load_tile", "fetch_tile", "stage_tile", "copy_tile"), "smem_u32": ("smem_u32", "cvta_smem", "smem_addr"),
    "warp_combine": ("warp_combine", "warp_reduce", "reduce_warp", "shfl_combine"),
    "norm_rows": ("norm_rows", "normalize_rows", "row_norm", "apply_norm"),
}
_TRITON_NAMES = {
    "offs_n": ("offs_n", "rn", "n_offsets", "cols_n"), "offs_m": ("offs_m", "rm", "m_offsets", "rows_m"),
    "offs_k": ("offs_k", "rk", "k_offsets", "ks"), "offs_d": ("offs_d", "rd", "d_offsets", "dims"),
    "row": ("row", "row_idx", "pid_row", "r"), "row_mask": ("row_mask", "rmask", "in_row", "valid_row"),
    "acc": ("acc", "accumulator", "acc_tile", "partial"), "l_i": ("l_i", "l_run", "denom_i", "norm_i"),
    "m_i": ("m_i", "m_run", "max_i", "row_max"), "m_new": ("m_new", "m_next", "new_max", "m_ij"),
    "pid_m": ("pid_m", "pm", "tile_m", "block_m_id"), "pid_n": ("pid_n", "pn", "tile_n", "block_n_id"),
    "k_lo": ("k_lo", "lo_k", "k_start"), "k_hi": ("k_hi", "hi_k", "k_stop"), "score": ("score", "qk", "logit"),
    "sm_scale": ("sm_scale", "qk_scale", "softmax_scale", "scale_qk"), "alpha": ("alpha", "corr", "rescale"),
    "a_ptrs": ("a_ptrs", "a_tile_ptrs", "a_blk"), "b_ptrs": ("b_ptrs", "b_tile_ptrs", "b_blk"),
    "c_ptrs": ("c_ptrs", "c_tile_ptrs", "out_ptrs"), "token": ("token", "tok", "t_idx"), "lse": ("lse", "log_sum", "lse_v"),
    "best": ("best", "top", "best_v"), "best_idx": ("best_idx", "top_idx", "arg_best"), "tile": ("tile", "blk", "tile_v"),
    "val": ("val", "value", "v_out"), "seq": ("seq", "seq_id", "sid"), "slot": ("slot", "slot_idx", "page"),
    "tiles": ("tiles", "n_tiles", "num_tiles"), "tiles_n": ("tiles_n", "n_tiles_n", "grid_n"),
    "k_mask": ("k_mask", "kmask", "k_valid"), "n_mask": ("n_mask", "nmask", "n_valid"), "d_mask": ("d_mask", "dmask", "d_valid"),
    "row_offs": ("row_offs", "row_start", "row_base"), "visible": ("visible", "in_window", "keep"),
    "start": ("start", "begin", "lo_t"), "hidden": ("hidden", "h_dim", "hid"), "head": ("head", "head_idx", "h_id"),
    "batch": ("batch", "b_idx", "bid"), "expert": ("expert", "e_idx", "eid"), "base": ("base", "base_off", "origin"),
}
_NAMES = {"cuda": _CUDA_NAMES, "triton": _TRITON_NAMES}

# What a rename never touches: comments and string literals (matched first, so a name inside one is skipped).
_SKIP = {"cuda": re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S),
         "triton": re.compile(r'#[^\n]*|"""(?:\\.|[^\\])*?"""|\'\'\'(?:\\.|[^\\])*?\'\'\'|"(?:\\.|[^"\\\n])*"|'
                              r'\'(?:\\.|[^\'\\\n])*\'', re.S)}
_WORD = re.compile(r"[A-Za-z_]\w*")
_MEMBER = re.compile(r"(?:\.|->|::)\s*([A-Za-z_]\w*)")
_KWARG = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*=(?!=)")
_EAST_CONST = re.compile(r"(\n[ \t]*)const (int|float|size_t|bool|float2|float4|uint32_t|uint64_t|int64_t|"
                         r"scalar_t|acc_t|auto|half|half2)\b")

CUDA_CONSTANTS = ("define", "constexpr", "static_constexpr")
TRITON_CONSTANTS = ("plain", "annotated")
COMMENTS = ("full", "terse", "none")
INCLUDES = ("given", "sorted", "runtime_last")


class Layout(NamedTuple):
    """The layout habits of a `Style` (its fields of the same names)."""

    comments: str
    indent: int
    brace_same_line: bool
    east_const: bool
    unroll: bool
    restrict: bool


@dataclass(frozen=True)
class Style:
    """One engineer's habits (hashable: renders and fault families are cached per style)."""

    seed: int                 # picks each name's synonym
    camel: bool               # camelCase instead of snake_case for renamed names
    comments: str             # COMMENTS: all of them, the first sentence of each block, none
    indent: int               # 4 or 2 spaces per level
    brace_same_line: bool     # CUDA: `) {` instead of a `{` line
    east_const: bool          # CUDA: `int const x` for `const int x`
    constants: str            # CUDA_CONSTANTS or TRITON_CONSTANTS: how the tuned constants are declared
    includes: str             # INCLUDES: include order
    using_alias: bool         # CUDA: `using scalar_t = half;` for the typedefs
    unroll: bool              # CUDA: keep `#pragma unroll` (codegen-relevant)
    restrict: bool            # CUDA: keep `__restrict__` (codegen-relevant)

    def __post_init__(self):   # hashed on every render-cache lookup: once, not per lookup
        object.__setattr__(self, "_hash", hash(tuple(self.__dict__.values())))
        # the crc32 of `name`'s "{seed}:" prefix, which crc32 continues over each word: once, not per name
        object.__setattr__(self, "_seed_crc", zlib.crc32(f"{self.seed}:".encode()))

    def __hash__(self) -> int:
        return self._hash

    def layout(self) -> Layout:
        """The habits `_rewritten` reads: few engineers differ in them (unlike naming), so the layout rewrites are
        cached per template and layout."""
        return Layout(self.comments, self.indent, self.brace_same_line, self.east_const, self.unroll, self.restrict)

    def codegen_key(self) -> tuple[bool, bool]:
        """The dimensions that can change generated code (registers, ptxas tables): (unroll, restrict)."""
        return (self.unroll, self.restrict)

    def pick(self, options: tuple):
        """This engineer's choice among a template's structural alternatives (the same one all session)."""
        if len(options) == 1:
            return options[0]
        first = options[0]     # a template path: keyed by its class and name, not where the checkout lives
        return options[zlib.crc32(f"{self.seed}:{first.parent.name}/{first.name}".encode()) % len(options)]

    def name(self, word: str, lang: str) -> str:
        """This engineer's name for the template name `word`: the synonym at crc32("{seed}:{word}") (deterministic,
        not the salted str hash), in camel case for a camel-case engineer."""
        options = (_CAMEL_NAMES if self.camel else _NAMES)[lang][word]
        return options[zlib.crc32(_WORD_BYTES[word], self._seed_crc) % len(options)]


def _camel(name: str) -> str:
    """`row_idx` as a camel-case engineer writes it: `rowIdx`."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


# each template name's synonyms in camel case, and the name's bytes (what `Style.name` hashes): built once
_CAMEL_NAMES = {lang: {word: tuple(map(_camel, options)) for word, options in names.items()}
                for lang, names in _NAMES.items()}
_WORD_BYTES = {word: word.encode() for names in _NAMES.values() for word in names}

# lang -> every name some engineer writes for a template name (each synonym, snake and camel) -> that template name
_TEMPLATE_NAMES = {lang: {form: word for word, options in names.items() for option in options
                          for form in (option, _camel(option))}
                   for lang, names in _NAMES.items()}


def template_name(name: str, lang: str) -> str:
    """The template name that a style renames to `name` in `lang` (`name` itself where none does): how a reader who
    sees a render but not its session's style (the report checks) maps a name back. One answer per name: no two
    template names share a synonym (tests/kernels/test_style.py). A name a template writes itself is read as the
    template name it is a synonym of (fused_add_rmsnorm's own `r` as `row`): a caller relies on it only for names
    whose synonyms no template writes (tests/sim/test_stride_names.py)."""
    return _TEMPLATE_NAMES[lang].get(name, name)


def draw_style(rng, lang: str) -> Style:
    """A style from one 62-bit draw of `rng` (one draw, so the row's other draws keep their order)."""
    bits = int(rng.integers(1 << 62))

    def take(n: int) -> int:
        nonlocal bits
        bits, r = divmod(bits, n)
        return r

    constants = CUDA_CONSTANTS if lang == "cuda" else TRITON_CONSTANTS
    return Style(seed=take(1 << 20), camel=take(4) == 0, comments=COMMENTS[take(3)], indent=(4, 2)[take(3) == 0],
                 brace_same_line=take(2) == 0, east_const=take(4) == 0, constants=constants[take(len(constants))],
                 includes=INCLUDES[take(3)], using_alias=take(2) == 0, unroll=take(4) != 0, restrict=take(3) != 0)


def constants_text(params, lang: str, form: str) -> str:
    """The tuned constants' lines in a style's declaration form (`Style.constants`; values as `templating.literal`
    writes them)."""
    def value(v):
        return ("1" if v else "0") if v.__class__ is bool and lang == "cuda" else v
    if form == "define":
        return "\n".join([f"#define {k} {value(v)}" for k, v in params.items()])
    if form == "constexpr":
        return "\n".join([f"constexpr int {k} = {value(v)};" for k, v in params.items()])
    if form == "static_constexpr":
        return "\n".join([f"static constexpr int {k} = {value(v)};" for k, v in params.items()])
    if form == "annotated":
        return "\n".join([f"{k}: int = {v}" for k, v in params.items()])
    return "\n".join([f"{k} = {v}" for k, v in params.items()])


def prelude_text(prelude: str, style: Style) -> str:
    """The CUDA prelude (includes, element typedefs) in the style's include order and alias form."""
    return _prelude_text(prelude, style.includes, style.using_alias)


@lru_cache(maxsize=256)   # a prelude per dtype, six forms of it: every engineer's variants share them
def _prelude_text(prelude: str, order: str, using_alias: bool) -> str:
    lines = prelude.split("\n")
    includes = [ln for ln in lines if ln.startswith("#include")]
    rest = lines[len(includes):]
    if order == "sorted":
        includes = sorted(includes)
    elif order == "runtime_last":
        includes = [ln for ln in includes if "cuda_runtime" not in ln] + [ln for ln in includes if "cuda_runtime" in ln]
    if using_alias:
        rest = [re.sub(r"^typedef (.+) (\w+);$", r"using \2 = \1;", ln) for ln in rest]
    return "\n".join(includes + rest)


def style_texts(texts: tuple[str, ...], lang: str, protected: frozenset[str], style: Style) -> tuple[str, ...]:
    """The template texts of one translation unit (main template, op snippet) in `style`, written out (rendering
    binds `styled_parts` instead: the same text without writing it out first)."""
    laid_out, names = styled_parts(texts, lang, protected, style)
    return tuple("".join([p if i % 2 == 0 else names[p] for i, p in enumerate(parts)]) for parts in laid_out)


def styled_parts(texts: tuple[str, ...], lang: str, protected: frozenset[str],
                 style: Style) -> tuple[tuple[tuple[str, ...], ...], dict[str, str]]:
    """The template texts of one translation unit in `style`'s layout, each split at the names a style may rename
    (literal, name, literal, ..., literal; shared by every engineer with that layout), and this engineer's name
    for each of those names (the template's own where it keeps it). Names are renamed over all the texts at once,
    so a name the snippet uses as a member or keyword keeps its name in the template too."""
    plan = _plan(texts, lang, protected.intersection(_NAMES[lang]))    # one plan for every dtype's signature
    return _laid_out(plan, lang, style.layout()), _renames(plan.names, lang, style, plan.taken, protected)


@dataclass(frozen=True)
class _Plan:
    texts: tuple[str, ...]     # per text: a newline (`_rewritten` reads one), then the text, each renameable name
                               # bracketed by _NAME_MARK (literal, mark, name, mark, ..., literal)
    names: tuple[str, ...]     # renameable vocabulary names present, sorted
    taken: frozenset[str]      # every identifier in the texts (a new name must not be one)


@lru_cache(maxsize=1024)
def _plan(texts: tuple[str, ...], lang: str, protected: frozenset[str]) -> _Plan:
    """Where a style may rename in the texts, found once per template (not per style): code tokens only (never in
    a comment or string, e.g. `bar.sync` in inline PTX), and only names never used after `.`, `->` or `::` nor
    (Python) as a keyword argument anywhere in the unit (looked for everywhere, comments too: blocking more is
    safe)."""
    scans = [_scan(text, lang) for text in texts]
    taken = set(protected).union(*(scan.words for scan in scans))
    blocked = set(protected).union(*(scan.blocked for scan in scans))
    renameable = frozenset(w for w in _NAMES[lang] if w in taken and w not in blocked)
    plans = []
    for text, scan in zip(texts, scans):
        parts: list[str] = []
        last = 0
        for at, name in scan.tokens:
            if name in renameable:
                parts += (text[last:at], name)
                last = at + len(name)
        parts.append(text[last:])
        plans.append("\n" + _NAME_MARK.join(parts))
    return _Plan(tuple(plans), tuple(sorted(renameable)), frozenset(taken))


class _Scan(NamedTuple):
    """What `_plan` reads of one template text, whatever the unit it is part of."""

    words: frozenset[str]                 # every identifier
    blocked: frozenset[str]               # names used after `.`, `->`, `::` (Triton: or as a keyword argument)
    tokens: tuple[tuple[int, str], ...]   # (offset, name) of each vocabulary name in code, in order


# A comment or string literal (matched whole, so no name inside one is found) or a vocabulary name.
_VOCABULARY_TOKEN = {lang: re.compile(rf"{_SKIP[lang].pattern}|\b(?P<name>{'|'.join(sorted(names))})\b", re.S)
                     for lang, names in _NAMES.items()}


@lru_cache(maxsize=1024)   # per text: a class template is part of a unit with each op's snippet (~200 texts a run)
def _scan(text: str, lang: str) -> _Scan:
    """`_plan`'s reading of one text (a text holding the name mark is refused: the layout split would misread it)."""
    if _NAME_MARK in text:
        raise ValueError(f"a template holds the character {_NAME_MARK!r}, which styling reserves")
    blocked = set(_MEMBER.findall(text))
    if lang == "triton":
        blocked.update(_KWARG.findall(text))
    tokens = tuple((m.start(), m["name"]) for m in _VOCABULARY_TOKEN[lang].finditer(text) if m["name"])
    return _Scan(frozenset(_WORD.findall(text)), frozenset(blocked), tokens)


def _renames(names: tuple[str, ...], lang: str, style: Style, taken: frozenset[str],
             protected: frozenset[str] = frozenset()) -> dict[str, str]:
    """This engineer's name for each of `names` (in order: a name two of them would get goes to the first): its
    own where the style's is a name of `taken` or `protected` or already given (the sets are read as they are:
    joining them copied the unit's ~500 names on every bind)."""
    out: dict[str, str] = {}
    given: set[str] = set()
    for word in names:
        new = style.name(word, lang)
        if new != word and new not in taken and new not in protected and new not in given:
            given.add(new)
            out[word] = new
        else:
            out[word] = word
    return out


# Multi-line patterns start at a newline (a literal prefix the regex engine searches for fast); `_rewritten` takes
# its text with one in front.
_COMMENT_BLOCK = {"cuda": re.compile(r"(?:\n[ \t]*//[^\n]*)+"), "triton": re.compile(r"(?:\n[ \t]*#[^\n]*)+")}
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")    # not inside a token: tl.load, cp.async, 0.5
_UNROLL = re.compile(r"\n[ \t]*#pragma unroll[ \t]*(?=\n)")
_OWN_LINE_BRACE = re.compile(r"\n[ \t]*\{[ \t]*(?=\n)")
_INDENT = re.compile(r"\n((?:    )+)")


def _first_sentence(m: re.Match) -> str:
    """A comment block cut after its first sentence (its lines up to where that sentence ends, that line cut there):
    a terse engineer writes the gist in a sentence, not the first line of a wrapped paragraph (0.6.3 kept the first
    line: "... acc = sum of", row audit). A block with no sentence end (a one-line phrase) stays whole."""
    end = _SENTENCE_END.search(m.group())
    return m.group() if end is None else m.group()[:end.end()]


def _join_brace(m: re.Match) -> str:
    """`{` alone on its line joins the line before when that line can open a block (not a statement, comment,
    preprocessor line or an empty one)."""
    text = m.string
    before = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
    tail = before.rstrip()
    if not tail or tail.endswith((";", "{", "}", ",")) or "//" in before or before.lstrip().startswith("#"):
        return m.group()
    return " {"


_NAME_MARK = "\x00"     # brackets each renameable name while the layout is rewritten (no template holds one)


def _laid_out(plan: _Plan, lang: str, layout: Layout) -> tuple[tuple[str, ...], ...]:
    """The plan's texts in a layout (`Style.layout()`), still split at the renameable names: the rewrites run once
    per template text instead of once per engineer. They commute with renaming: none reads or edits a name
    (comment lines hold none, the rest reads keywords, punctuation and indentation), and a marked name reads as a
    word does to them (no space, no `;{},#/`), so the marks come out where the names were. Not cached per layout
    (most of a default run's 7,500 template/layout pairs come once, but they lay out to ~2,400 texts): each
    rewrite is cached per text and the split per laid-out text, so a build is a few cache lookups."""
    return tuple(_split_at_marks(_rewritten(text, lang, layout)) for text in plan.texts)


@lru_cache(maxsize=4096)    # per distinct laid-out text (a default run has ~2,400)
def _split_at_marks(text: str) -> tuple[str, ...]:
    """A laid-out text (with `_rewritten`'s leading newline) split at its marks: literal, name, ..., literal."""
    return tuple(text[1:].split(_NAME_MARK))


def _rewritten(text: str, lang: str, layout: Layout) -> str:
    """`text` (after a leading newline) in a layout: comments, `#pragma unroll`, `__restrict__`, `const`
    placement, braces, indent (in that order, one `_rewrite` each; a habit the templates are written in leaves
    the text as it is)."""
    for habit in _HABITS[lang]:
        setting = getattr(layout, habit)
        if setting != _AS_WRITTEN[habit]:
            text = _rewrite(text, lang, habit, setting)
    return text


_HABITS = {"cuda": ("comments", "unroll", "restrict", "east_const", "brace_same_line", "indent"),
           "triton": ("comments", "indent")}
_AS_WRITTEN = {"comments": "full", "unroll": True, "restrict": True, "east_const": False, "brace_same_line": False,
               "indent": 4}


@lru_cache(maxsize=4096)   # a default run's rewrites: ~3,700 distinct (text, habit, setting)
def _rewrite(text: str, lang: str, habit: str, setting) -> str:
    """One layout rewrite of `text` (with its leading newline), cached per text: the layouts of one template share
    the rewrites of their first habits, and a rewrite that finds nothing to change hands the same text on, so the
    96 layouts of a template cost a few rewrites each instead of six."""
    if habit == "comments":
        return _COMMENT_BLOCK[lang].sub("" if setting == "none" else _first_sentence, text)
    if habit == "unroll":
        return _UNROLL.sub("", text)
    if habit == "restrict":
        return text.replace(" __restrict__", "")
    if habit == "east_const":
        return _EAST_CONST.sub(r"\1\2 const", text)
    if habit == "brace_same_line":
        return _OWN_LINE_BRACE.sub(_join_brace, text)
    return _INDENT.sub(lambda m: "\n" + "  " * (len(m.group(1)) // 4), text)
