"""Code diversity of a generated folder against issue #16's acceptance figures.

    PYTHONPATH=. python bench/diversity_audit.py out/kernelinfer [out/kernelswarm ...]

Reads `sessions.jsonl` (kernelinfer) or `episodes.jsonl` (kernelswarm) and prints each figure with its bound and
PASS/FAIL; exit 1 when one fails, 2 when a folder has neither file.
"""
from __future__ import annotations

import sys
from pathlib import Path

import orjson

from generator.write.diversity import kernelinfer_diversity, kernelswarm_diversity

# figure -> (bound, "min" or "max")
KERNELINFER_BOUNDS = {"masked_ok_per_pair": (0.90, "min"), "median_private_masked_ok": (0.95, "min"),
                      "cross_session_turn_share": (0.05, "max"), "median_same_task_overlap": (0.10, "max"),
                      "median_tune_changed_lines": (3, "max")}
KERNELSWARM_BOUNDS = {"masked_ok_per_triple": (0.90, "min")}


def _rows(path: Path):
    with path.open("rb") as fh:
        for line in fh:
            yield orjson.loads(line)


def audit(folder: Path) -> bool | None:
    """Print the folder's figures; True when every bound holds, None when it holds no dataset file."""
    if (folder / "sessions.jsonl").is_file():
        figures, bounds = kernelinfer_diversity(_rows(folder / "sessions.jsonl")), KERNELINFER_BOUNDS
    elif (folder / "episodes.jsonl").is_file():
        figures, bounds = kernelswarm_diversity(_rows(folder / "episodes.jsonl")), KERNELSWARM_BOUNDS
    else:
        print(f"{folder}: neither sessions.jsonl nor episodes.jsonl", file=sys.stderr)
        return None
    ok = True
    print(folder)
    for name, value in figures.items():
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
