"""`python -m generator COMMAND ...` (or the `kernelstrain` console script): one entry point for every command.

Each dataset in `generator.registry` is a generation command of its own (`kernelinfer`, `kernelswarm`); the
tools (`catalog`, `validate`, `audit-compile`) are modules with `add_arguments(parser)` and `run(args) -> int`.
"""
from __future__ import annotations

import argparse
import functools
import sys

from generator.catalog import table
from generator.check import validate
from generator.kernels import audit
from generator.registry import DATASETS
from generator.scale import cli as scale
from generator.write import generate

TOOLS = {
    "catalog": (table, "print the GPU and op catalog with roofline times"),
    "validate": (validate, "validate JSONL files or generated dataset folders"),
    "audit-compile": (audit, "compile a sample of kernels with real nvcc/Triton"),
    "scale": (scale, "generate a dataset as shard tasks on an engine (local, ray, slurm) into any fsspec URL"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, dataset in DATASETS.items():
        command = sub.add_parser(name, help=f"generate the {name} dataset folder")
        generate.add_arguments(dataset, command)
        command.set_defaults(_run=functools.partial(generate.run, dataset))
    for name, (module, help_text) in TOOLS.items():
        command = sub.add_parser(name, help=help_text)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
