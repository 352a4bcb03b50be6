"""`make bench`: run every `bench/bench_*.py` module's `run(args)`; each prints its own numbers.

A dataset adds its bench by dropping a `bench_<name>.py` with `add_arguments(parser)` (optional) and
`run(args, workdir)` next to this file; `--only NAME` runs one.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only bench_ONLY.py")
    modules = [importlib.import_module(p.stem) for p in sorted(HERE.glob("bench_*.py"))]
    for module in modules:
        if hasattr(module, "add_arguments"):
            module.add_arguments(parser)
    args = parser.parse_args(argv)
    for module in modules:
        name = module.__name__.removeprefix("bench_")
        if args.only and name != args.only:
            continue
        print(f"== {name}")
        with tempfile.TemporaryDirectory(prefix=f"bench_{name}_") as workdir:
            module.run(args, Path(workdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
