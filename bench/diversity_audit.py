"""Code diversity of a generated folder against issue #16's acceptance figures.

    PYTHONPATH=. python bench/diversity_audit.py out/kernelinfer [out/kernelswarm ...]

Reads `sessions.jsonl` (kernelinfer) or `episodes.jsonl` (kernelswarm), a batch of rows at a time, and prints each
figure with its bound and PASS/FAIL; exit 1 when one fails, 2 when a folder has neither file. The figures are the
generator's own (`stats.json` `diversity`: the same digests per batch, merged the same way), so a folder made
before they were recorded can be audited too.
"""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

import orjson

from generator import registry
from generator.layout import SHARD_SIZE

# dataset -> figure -> (bound, "min" or "max")
BOUNDS = {"kernelinfer": {"masked_ok_per_pair": (0.90, "min"), "median_private_masked_ok": (0.95, "min"),
                          "cross_session_turn_share": (0.05, "max"), "median_same_task_overlap": (0.10, "max"),
                          "median_tune_changed_lines": (3, "max")},
          "kernelswarm": {"masked_ok_per_triple": (0.90, "min")}}


def figures(path: Path, digests, combine) -> dict:
    """`combine` over the `digests` of each batch of `SHARD_SIZE` rows of the JSONL file at `path`."""
    with path.open("rb") as fh:
        rows = (orjson.loads(line) for line in fh)
        return combine([digests(batch) for batch in iter(lambda: list(itertools.islice(rows, SHARD_SIZE)), [])])


def audit(folder: Path) -> bool | None:
    """Print the folder's figures; True when every bound holds, None when it holds no dataset file."""
    ds = next((d for d in registry.DATASETS.values() if (folder / d.merged_file).is_file()), None)
    if ds is None:
        names = " nor ".join(d.merged_file for d in registry.DATASETS.values())
        print(f"{folder}: neither {names}", file=sys.stderr)
        return None
    found, bounds = figures(folder / ds.merged_file, ds.diversity_digests, ds.diversity_figures), BOUNDS[ds.name]
    ok = True
    print(folder)
    for name, value in found.items():
        line = f"  {name:28s} {value:,.4f}" if isinstance(value, float) else f"  {name:28s} {value:,}"
        if name in bounds:
            bound, side = bounds[name]
            holds = value >= bound if side == "min" else value <= bound
            ok &= holds
            line += f"   ({'>=' if side == 'min' else '<='} {bound}: {'PASS' if holds else 'FAIL'})"
        print(line)
    return ok


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = [audit(Path(a)) for a in argv]
    if any(r is None for r in results):
        return 2
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
