"""`scanner.enclosing` (a walk up the block tree) finds the blocks a test of every block finds, and so do the
diagnostics' questions built on it (innermost block, inside a template)."""
from __future__ import annotations

import random

from generator.kernels import diagnostics, render, scanner
from generator.catalog.tasks import all_tasks
from generator.catalog.variants import variants_for

_ODD = ["{ a; } } { b; { c; }", "}}{", "template <int N> void f() { { x; } } int g() { y; { z; } }", "{{{{", ""]


def _codes() -> list[str]:
    rand = random.Random(5)
    tasks = [t for t in all_tasks() if t.impl == "cuda"]
    codes = []
    for task in rand.sample(tasks, 40):
        variant = rand.choice(variants_for(task.op, task.impl, task.dtype))
        codes.append(scanner.code_view(render(task, variant, variant.default_params()).text, "cuda"))
    return codes + _ODD


def _every_block(code: str, pos: int) -> list[int]:
    opens, closes, _parents = scanner.blocks(code)
    return [i for i in range(len(opens)) if opens[i] < pos < closes[i]]


def test_enclosing_blocks_are_those_a_test_of_every_block_finds():
    inside = templated = 0
    for code in _codes():
        opens, closes, _parents = scanner.blocks(code)
        # every brace and its neighbours, and a spread of other offsets
        positions = {p + d for p in opens + closes for d in (-1, 0, 1)} | set(range(0, len(code) + 1, 7))
        for pos in sorted(p for p in positions if 0 <= p <= len(code)):
            every = _every_block(code, pos)
            assert list(scanner.enclosing(code, pos)) == every[::-1], (code[:80], pos)
            assert diagnostics._innermost_open(code, pos) == max((opens[i] for i in every), default=None)
            in_template = any(scanner.TEMPLATE_HEAD.search(diagnostics._head(code, opens[i])) for i in every)
            assert diagnostics.in_template(code, pos) == in_template
            inside += bool(every)
            templated += in_template
    assert inside > 1000 and templated > 100       # both answers were exercised both ways

