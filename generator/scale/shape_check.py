"""`python -m generator.scale.shape_check [--every N] [--out FILE]`: every model-configuration shape through
the real session simulator, kernelinfer's QA checks and the validator, before it may enter training.

One session per (op, impl, shape) of `models.model_shapes`, on the GPU and dtype that come first in the catalog
for it (the render, launch limits and timing model read the shape; the GPU changes only gating), from row
generators of their own. Exit 0 when every session passes, 1 otherwise (the problems listed).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import orjson

from generator.catalog.tasks import model_tasks
from generator.check import qa
from generator.check.validate import validate_paths
from generator.kernelinfer.dataset import KERNELINFER
from generator.layout import SHARD_SIZE
from generator.kernelinfer.session import simulate_session
from generator.sim.seeding import rng_for

CHECK_STREAM = 99     # not a dataset's stream: these rows are never published


def representatives(every: int = 1) -> list:
    """One task per (op, impl, shape) of the model shapes (the first in catalog order), every `every`-th."""
    seen, out = set(), []
    for t in model_tasks():
        if (t.op, t.impl, t.shape) not in seen:
            seen.add((t.op, t.impl, t.shape))
            out.append(t)
    return out[::every]


def check(tasks, out: Path) -> list[str]:
    rows = [simulate_session(t, rng_for(0, CHECK_STREAM, i)) for i, t in enumerate(tasks)]
    problems = []
    for start in range(0, len(rows), SHARD_SIZE):
        report = qa.run_checks(KERNELINFER.checks, rows[start:start + SHARD_SIZE], f"models_{start // SHARD_SIZE:03d}",
                               id_field=KERNELINFER.id_field)
        problems += qa.failures(report)
    out.write_bytes(b"".join(orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in rows))
    report = validate_paths([out], schema=KERNELINFER.schema)
    return problems + [f"{f.path}:{f.line}: {f.message}" for f in report.findings]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator.scale.shape_check", description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=int, default=1, help="check every N-th (op, impl, shape) (default all)")
    parser.add_argument("--out", type=Path, help="keep the sessions in this JSONL file")
    args = parser.parse_args(argv)
    tasks = representatives(args.every)
    with tempfile.TemporaryDirectory() as tmp:
        problems = check(tasks, args.out or Path(tmp) / "model_sessions.jsonl")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(tasks)} model-shape sessions (op, impl, shape), {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
