"""The fault scanners' shortcuts find what the plain patterns they replace find, over renders of the catalog."""
from __future__ import annotations

import random
import re

import pytest

from generator.kernels import faults, render, scanner
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for

_PLAIN_DECL = re.compile(r"(?<![\w.>])(?:const\s+|constexpr\s+|unsigned\s+)*([A-Za-z_]\w*)\s*\**\s*"
                         r"(?:__restrict__\s+)?([A-Za-z_]\w*)\s*(?:=(?!=)|\[|;)")
_PLAIN = {  # each shortcut pattern (faults' or scanner's): the plain pattern it stands for (the guards and possessive
    # quantifiers dropped)
    "LAUNCH": r"(?<![\w.])([A-Za-z_]\w*)\s*<((?:[^<>;()]|<[^<>;]*>)*)>\s*<<<",
    "CALL": r"(?<![\w.>:])(?<!template )([A-Za-z_]\w*)\s*<((?:[^<>;()]|<[^<>;]*>)*)>\s*\(",
    "CALLED": r"\b([A-Za-z_]\w*)\s*(?:<(?:[^<>;()]|<[^<>;]*>)*>\s*)?(?:\(|<<<)",
    "SCALAR_INIT": r"(?<![\w.])(float|int|acc_t|double)(\s+)([A-Za-z_]\w*)\s*=\s*([^;,()]+?)\s*;",
    "DECLARED": r"((?:const\s+)?[A-Za-z_]\w*(?:\s*\*+)?)\s*(?:__restrict__\s+)?\b([A-Za-z_]\w*)\s*(?=[,)=;])",
}


def _renders(n: int, lang: str, seed: int = 3) -> list:
    rand = random.Random(seed)
    tasks = [t for t in all_tasks() if t.impl == lang]
    out = []
    for task in rand.sample(tasks, n):
        variant = rand.choice(variants_for(task.op, task.impl, task.dtype))
        out.append(render(task, variant, {name: rand.choice(values) for name, values in variant.params.items()}))
    return out


@pytest.fixture(scope="module")
def cuda_codes():
    return [scanner.code_view(source.text, "cuda") for source in _renders(60, "cuda")]


def _found(pattern: re.Pattern, code: str) -> list:
    return [(m.span(), m.groups()) for m in pattern.finditer(code)]


@pytest.mark.parametrize("name", sorted(_PLAIN))
def test_a_guarded_pattern_finds_what_its_plain_pattern_finds(cuda_codes, name):
    for code in cuda_codes:
        module = scanner if hasattr(scanner, name) else faults
        assert _found(getattr(module, name), code) == _found(re.compile(_PLAIN[name]), code)


def test_declarations_are_those_of_the_plain_pattern_one_word_splits_included(cuda_codes):
    # the plain pattern reads `count = 0` as type `coun`, name `t`: its own alternative in DECL
    cuda_codes = cuda_codes + ["int x; counter = 0; const float* __restrict__ p = q; a1 = 2; unsigned n[4];"]
    for code in cuda_codes:
        assert ([(m.span(), faults.declaration_of(m)) for m in faults.DECL.finditer(code)]
                == [(m.span(), (m.group(1), m.group(2), m.start(2))) for m in _PLAIN_DECL.finditer(code)])
        for line in code.split("\n"):     # missing_semicolon matches a line's start
            plain, fast = _PLAIN_DECL.match(line.strip()), faults.DECL.match(line.strip())
            assert (plain and plain.groups()) == (fast and faults.declaration_of(fast)[:2])


def test_value_uses_are_what_the_plain_pattern_finds_in_a_block(cuda_codes):
    rand = random.Random(0)
    for code in cuda_codes:
        for name in rand.sample(sorted(set(scanner.IDENTIFIER.findall(code))), 20):
            start = rand.randrange(len(code))
            end = scanner.block_end(code, start)
            plain = re.compile(rf"(?<![\w.>:]){re.escape(name)}\b(?!\s*\()")
            assert scanner.value_uses(code, name, start, end) == [m.start() for m in plain.finditer(code, start, end)]


def test_identifiers_are_the_names_the_pattern_finds():
    texts = [source.text for source in _renders(20, "cuda") + _renders(20, "triton")]
    for text in texts + ["1abc _x9 a.b", "naïve x_é 2é", ""]:
        assert scanner.identifiers(text) == set(scanner.IDENTIFIER.findall(text))


def test_a_function_head_is_found_as_by_the_plain_patterns(cuda_codes):
    name_before = re.compile(r"([A-Za-z_]\w*)\s*$")
    for code in cuda_codes:
        for close in [i for i, ch in enumerate(code) if ch == ")"][:200]:
            depth, k = 0, close
            while k >= 0:                     # the leftward scan _opening_paren replaces
                depth += {")": 1, "(": -1}.get(code[k], 0)
                if depth == 0:
                    break
                k -= 1
            assert scanner.opening_paren(code, close) == k
            m = name_before.search(code, max(0, k - 256), k)
            assert scanner.name_before(code, max(0, k - 256), k) == (m and m.span(1))


def test_matches_without_a_semicolon_are_found_in_the_statements_that_hold_their_needle(cuda_codes):
    for code in cuda_codes:
        for pattern, needles in ((faults.LAUNCH, ("<<<",)), (faults.CALL, tuple(faults.function_templates(code)))):
            whole = [m.span() for m in pattern.finditer(code) if any(n in m.group(0) for n in needles)]
            assert whole == [m.span() for start, end in faults.statements_with(code, needles)
                             for m in pattern.finditer(code, start, end) if any(n in m.group(0) for n in needles)]


def test_literal_first_scans_keep_the_word_boundary(cuda_codes):
    for code in cuda_codes + ["xstride_a stride_b+stride_c"]:
        assert faults.stride_names(code, 0, len(code)) == set(re.findall(r"\b(stride_\w+)\b", code))


def test_scale_factors_before_a_times_are_those_of_the_plain_pattern(cuda_codes):
    plain = re.compile(r"(?<![\w.])([A-Za-z_]\w*[Ss]cale\w*|[Ss]cale\w*)\s*\*\s*(?!=)")
    triton_codes = [scanner.code_view(source.text, "triton") for source in _renders(30, "triton")]
    for code in cuda_codes + triton_codes + ["x.scale * y; 2scale * y; _scale*=2; kScale  *v; a_scale_b_scale*c"]:
        found = []
        for start, name_end in faults.scale_names(code):
            times = faults.TIMES_AFTER.match(code, name_end)
            if times and not (start > 0 and code[start - 1] == "."):
                found.append((start, times.end()))
        assert found == [m.span() for m in plain.finditer(code)]


def test_triton_name_uses_are_those_of_the_plain_pattern():
    def plain_sites(source):
        code = scanner.code_view(source.text, "triton")
        sites = []
        for _name, start, end in faults.triton_kernels(source):
            for a in re.finditer(r"^[ \t]+([a-z_]\w*)\s*=[^=]", code[start:end], re.M):
                var = a.group(1)
                if len(var) >= 3:
                    use = re.compile(rf"(?<![\w.]){var}\b(?!\s*=[^=])")
                    # a name of a tuple target (`a, var, b = ...`) is assigned, not read
                    target = re.compile(rf"^[ \t]*(?:\w+[ \t]*,[ \t]*)*({var})(?:[ \t]*,[ \t]*\w+)*"
                                        r"[ \t]*,?[ \t]*=(?!=)", re.M)
                    targets = {t.start(1) for t in target.finditer(code, start, end)}
                    sites += [(start, u.start(), var) for u in use.finditer(code, start + a.end(), end)
                              if u.start() not in targets]
        return sites

    for source in _renders(60, "triton"):
        found, _taken = faults.triton_error_sites(source)
        assert [s[1:] for s in found if s[0] == "name"] == plain_sites(source)
