"""Dead code (bodies of function templates nothing instantiates) lies inside templates, so the fault scanners may
skip looking for it where no candidate site is in a template: `faults._live` then drops what the plain filter drops,
and a use in dead code is one `in_template` rejects. Renders hold none since 0.6.5 (kernels/unused_helpers.py leaves
out what nothing calls), so each styled render of the catalog gets one appended (styles rename helpers): the
scanners must still skip it in any source that holds some (the fixture templates, a hand-edited file)."""
from __future__ import annotations

import random
from dataclasses import replace

import numpy as np

from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for
from generator.kernels import diagnostics, faults, render, scanner
from generator.kernels.style import draw_style


def _renders(n: int) -> list:
    rand, rng = random.Random(11), np.random.default_rng(11)
    tasks = [t for t in all_tasks() if t.impl == "cuda"]
    out = []
    for task in rand.sample(tasks, n):
        variant = rand.choice(variants_for(task.op, task.impl, task.dtype))
        style = draw_style(rng, "cuda") if rand.random() < 0.7 else None
        source = render(task, variant, variant.default_params(), style=style)
        assert not scanner.dead_ranges(source.text), source.filename
        out.append(replace(source, text=source.text + _DEAD))
    return out


_DEAD = """
template <int N>
__device__ float unused_tail(const float* v)
{
    float s = 0.0f;
    for (int i = 0; i < N; ++i) s += v[i];
    return s;
}
"""


def test_dead_code_is_in_a_template_and_live_filters_as_the_plain_filter_does():
    with_dead = 0
    for source in _renders(60):
        code = scanner.code_view(source.text, "cuda")
        dead = scanner.dead_ranges(source.text)
        with_dead += bool(dead)
        for a, b in dead:
            assert all(diagnostics.in_template(code, p) for p in range(a, b, 5)), (source.filename, a, b)
        offsets = list(range(0, len(code), 11))
        plain = [p for p in offsets if not any(a <= p < b for a, b in dead)]
        assert faults._live(offsets, source, lambda p: p) == plain
        outside = [p for p in offsets if not diagnostics.in_template(code, p)]     # the shortcut's own case
        assert faults._live(outside, source, lambda p: p) == outside
    assert with_dead == 60          # each source holds its dead template


def test_in_template_is_the_test_of_every_enclosing_head():
    for source in _renders(20):
        code = scanner.code_view(source.text, "cuda")
        opens = scanner.blocks(code)[0]
        for pos in range(0, len(code), 13):
            assert diagnostics.in_template(code, pos) == any(
                scanner.TEMPLATE_HEAD.search(diagnostics._head(code, opens[i])) for i in scanner.enclosing(code, pos))


_CALL_EDGES = [
    "template <int N> __device__ int f(int x) { return x; }\n__global__ void k() { g<f<1>>(0); }",
    "template <int N> __device__ int f(int x) { return x; }\n__global__ void k() { int y = f<2>(1); }",
    "template <int N> __device__ int f(int x) { return x; }\ntemplate <int M> __device__ int h() { return f<M>(0); }\n"
    "__global__ void k() { myf(1); f_(2); h<3>(); }",
    "template <typename T> __global__ void kern(T* p) { }\nvoid launch_k(float* p) { kern<float> <<<1, 1>>>(p); }",
    "template <int N> __device__ void a() { b<N>(); }\ntemplate <int N> __device__ void b() { a<N>(); }\n"
    "__global__ void k() { }",
]


def test_dead_code_ranges_follow_the_calls_a_scan_of_each_body_finds():
    """dead_code_ranges, looking for each unreached template's calls by its name, finds what the plain reachability
    does: the non-template functions, then every function template a CALLED match in reachable code names."""
    def plain(code):
        defs = scanner.function_defs(code)
        live = [d for d in defs if not d[1]]
        reached = {d[0] for d in live}
        while live:
            _name, _tmpl, start, end = live.pop()
            for m in scanner.CALLED.finditer(code, start, end):
                if m.group(1) not in reached:
                    reached.add(m.group(1))
                    live += [d for d in defs if d[0] == m.group(1) and d[1]]
        return tuple((start, end) for name, tmpl, start, end in defs if tmpl and name not in reached)

    codes = [scanner.code_view(source.text, "cuda") for source in _renders(60)] + _CALL_EDGES
    dead = 0
    for code in codes:
        assert scanner.dead_code_ranges(code) == plain(code), code[:120]
        dead += len(plain(code))
    assert dead >= 62
