"""Faults carried across a template family give exactly what injecting into each render gives."""
from __future__ import annotations

import collections
import random
from dataclasses import replace

import numpy as np
import pytest

from generator.kernels import fault_families, faults, render
from generator.kernels.faults import TEXT_KINDS, NoFaultSite, inject
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for


def _outcome(fn, seed: int):
    """(edited source, expected, the rng's next draw) of one injection, or the NoFaultSite message; the line count
    inject_like gives with them is the edited text's."""
    rng = np.random.default_rng(seed)
    try:
        source, expected, *lines = fn(rng)
        assert lines in ([], [source.text.count("\n") + 1])
        return source, expected, rng.random()
    except NoFaultSite as exc:
        return str(exc), None, rng.random()


def _pairs(seed: int, limit: int | None = None):
    """Two renders of one family per (op, impl, dtype, variant): two tasks (other GPU or shape), each with its
    own random tuned parameters."""
    rand = random.Random(seed)
    by_family = collections.defaultdict(list)
    for task in all_tasks():
        by_family[(task.op, task.impl, task.dtype)].append(task)
    families = sorted(by_family)
    for key in families if limit is None else rand.sample(families, limit):
        first, second = rand.sample(by_family[key], 2) if len(by_family[key]) > 1 else by_family[key] * 2
        for variant in variants_for(*key):
            renders = []
            for task in (first, second):
                params = {name: rand.choice(values) for name, values in variant.params.items()}
                renders.append(render(task, variant, params))
            yield (f"test-{seed}", *key, variant.tag), renders


@pytest.mark.parametrize("seed", [0, 1])
def test_carried_faults_equal_direct_injection_across_the_catalog(seed):
    """Every family of the catalog; a random carried kind per render pair (both kinds for a sample)."""
    rand = random.Random(seed)
    cases = differing = 0
    for family, (first, second) in _pairs(seed):
        kinds = sorted(fault_families.CARRIED_KINDS & set(TEXT_KINDS[first.lang]))
        for kind in rand.sample(kinds, 1):
            made = _outcome(lambda rng: fault_families.inject_like(first, kind, rng, family), seed)   # the first
            assert made == _outcome(lambda rng: inject(first, kind, rng), seed), (family, kind)
            carried = _outcome(lambda rng: fault_families.inject_like(second, kind, rng, family), seed)
            direct = _outcome(lambda rng: inject(second, kind, rng), seed)
            assert carried == direct, (family, kind)
            cases += 1
            differing += first.text != second.text
    assert cases > 500 and differing > 0.9 * cases


def test_every_kind_of_a_sample_of_families_with_several_draws():
    for family, (first, second) in _pairs(7, limit=12):
        for kind in sorted(fault_families.CARRIED_KINDS & set(TEXT_KINDS[first.lang])):
            _outcome(lambda rng: fault_families.inject_like(first, kind, rng, family), 0)
            for seed in range(3):
                assert (_outcome(lambda rng: fault_families.inject_like(second, kind, rng, family), seed)
                        == _outcome(lambda rng: inject(second, kind, rng), seed)), (family, kind, seed)


def test_a_render_whose_lines_all_differ_gets_the_direct_fault():
    """Nothing can be carried to a render whose every line differs from the family's first (the edit and the
    shown line always fall on a differing line): it gets the fault `inject` makes, from the same rng state."""
    task = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == "cuda" and t.dtype == "fp16")
    variant = variants_for("rmsnorm", "cuda", "fp16")[0]
    first = render(task, variant, {})
    family = ("test-differing-lines", task.op, task.impl, task.dtype, variant.tag)
    other = replace(first, text="\n".join(line + " " for line in first.text.split("\n")))
    for kind in ("missing_semicolon", "undefined_identifier"):
        _outcome(lambda rng: fault_families.inject_like(first, kind, rng, family), 0)
        for seed in range(3):
            carried = _outcome(lambda rng: fault_families.inject_like(other, kind, rng, family), seed)
            assert carried == _outcome(lambda rng: inject(other, kind, rng), seed)
            assert carried[1] is None or carried[0].text != first.text


def _split_differences(first, other) -> dict[int, str] | None:
    lines, others = first.text.split("\n"), other.text.split("\n")
    if len(lines) != len(others):
        return None
    return {i: b for i, (a, b) in enumerate(zip(lines, others)) if a != b}


def test_a_render_read_against_the_lines_known_to_vary_has_the_differences_of_a_line_split():
    """A family compares later renders with its first on the lines some render differed on (the rest in
    place): each render's differing lines are still exactly those a line-by-line comparison finds."""
    rand = random.Random(5)
    tasks = collections.defaultdict(list)
    for task in all_tasks():
        tasks[(task.op, task.impl, task.dtype)].append(task)
    for key in rand.sample(sorted(tasks), 25):
        variant = rand.choice(variants_for(*key))
        renders = [render(rand.choice(tasks[key]), variant,
                          {name: rand.choice(values) for name, values in variant.params.items()}) for _ in range(6)]
        first = renders[0]
        lines = first.text.split("\n")
        renders += [replace(first, text=first.text.replace("\n", " \n", 1)),          # a line no render varied on
                    replace(renders[1], text=renders[1].text + "\n"),                  # one line more
                    replace(first, text="\n".join(lines[:-1] + [lines[-1] + "x"]))]    # the last line
        fam = fault_families._Family(first)
        for other in renders + renders[::-1]:
            got = fam._render(other.text)
            assert (None if got is None else dict(got.lines)) == _split_differences(first, other), key


def test_the_same_text_under_another_file_name_gets_the_direct_fault():
    """The render kept from the last fault is keyed by its text object: a source with that very text but another
    file name is no render of the family (nvcc names the file)."""
    task = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == "cuda" and t.dtype == "fp16")
    first = render(task, variants_for("rmsnorm", "cuda", "fp16")[0], {})
    family = ("test-file-name", task.op, task.impl, task.dtype)
    renamed = replace(first, filename="renamed.cu")
    for kind in ("missing_semicolon", "undefined_identifier"):
        _outcome(lambda rng: fault_families.inject_like(first, kind, rng, family), 0)
        carried = _outcome(lambda rng: fault_families.inject_like(renamed, kind, rng, family), 0)
        assert carried == _outcome(lambda rng: inject(renamed, kind, rng), 0)
        assert carried[1].message.startswith("renamed.cu(")


def test_a_family_across_dtypes_with_a_narrower_one_behind_gives_the_direct_fault():
    """The workbench's keys: renders of one variant in any dtype (same line count) first, then of one dtype. A
    render of another dtype differs from the wide family's first on its type lines; a fault that reads one of
    them is made in the narrow family (or directly): every case is what `inject` gives."""
    rand = random.Random(11)
    tasks = collections.defaultdict(list)
    for task in all_tasks():
        tasks[(task.op, task.impl)].append(task)
    cases = 0
    for op, impl in rand.sample(sorted(tasks), 30):
        by_dtype = collections.defaultdict(list)
        for task in tasks[op, impl]:
            by_dtype[task.dtype].append(task)
        if len(by_dtype) < 2:
            continue
        dtypes = rand.sample(sorted(by_dtype), 2)
        for variant in set(variants_for(op, impl, dtypes[0])) & set(variants_for(op, impl, dtypes[1])):
            renders = [render(rand.choice(by_dtype[dtype]), variant,
                              {name: rand.choice(values) for name, values in variant.params.items()})
                       for dtype in dtypes]
            wide = ("test-dtypes", op, impl, variant.tag)
            for kind in sorted(fault_families.CARRIED_KINDS & set(TEXT_KINDS[renders[0].lang])):
                for source, dtype in zip(renders, dtypes):
                    for seed in range(2):
                        carried = _outcome(lambda rng: fault_families.inject_like(source, kind, rng, wide,
                                                                                  (*wide, dtype)), seed)
                        assert carried == _outcome(lambda rng: inject(source, kind, rng), seed), (wide, kind)
                        cases += 1
    assert cases > 200


def test_a_fault_the_wide_family_cannot_carry_is_made_in_the_narrow_one():
    """A render whose every line differs from the wide family's first: the narrow family (its own first render)
    makes the fault, and a later render of that family gets it carried."""
    task = next(t for t in all_tasks() if t.op == "rmsnorm" and t.impl == "cuda" and t.dtype == "fp16")
    variant = variants_for("rmsnorm", "cuda", "fp16")[0]
    first = render(task, variant, {})
    other = replace(first, text="\n".join(line + " " for line in first.text.split("\n")))
    wide, narrow = ("test-wide", "rmsnorm"), ("test-narrow", "rmsnorm")
    _outcome(lambda rng: fault_families.inject_like(first, "missing_semicolon", rng, wide, narrow), 0)
    _outcome(lambda rng: fault_families.inject_like(other, "missing_semicolon", rng, wide, narrow), 0)
    assert fault_families._FAMILIES[narrow].source is other
    for seed in range(3):
        assert (_outcome(lambda rng: fault_families.inject_like(other, "missing_semicolon", rng, wide, narrow), seed)
                == _outcome(lambda rng: inject(other, "missing_semicolon", rng), seed))


def test_a_missing_semicolon_draw_takes_every_regular_site_and_only_those():
    """The draw checks nvcc's recovery only for the candidates it reaches, in random order: over many seeds it
    takes every regular site and no other (a uniform draw over them), and the family's carried fault is the one
    `inject` makes on the render itself."""
    task = next(t for t in all_tasks() if (t.op, t.impl, t.dtype, t.gpu) == ("gemm_fp16", "cuda", "fp16", "h100"))
    variant = next(v for v in variants_for("gemm_fp16", "cuda", "fp16") if v.tag == "cp_async_pipeline")
    source = render(task, variant, {})
    sites = faults.MAKERS["missing_semicolon"].sites(source)
    regular = {semi for semi, _tok in sites.valid()}
    assert 1 < len(regular) < len(sites.candidates)          # some candidates are irregular: the draw skips them
    drawn = collections.Counter()
    for seed in range(60 * len(regular)):
        choice = faults.MAKERS["missing_semicolon"].draw(source, sites, np.random.default_rng(seed))
        drawn[sites.candidates[choice[0]][0]] += 1
    assert set(drawn) == regular and min(drawn.values()) > 0.4 * 60
    family = ("test-semicolon-draw", task.op, variant.tag)
    for seed in range(5):
        assert (_outcome(lambda rng: fault_families.inject_like(source, "missing_semicolon", rng, family), seed)
                == _outcome(lambda rng: inject(source, "missing_semicolon", rng), seed))
