"""`python -m generator COMMAND ...`: one entry point, one module per command.

Each command module exposes `add_arguments(parser)` and `run(args) -> int` (the exit code). Modules are
imported only when their command runs, so `catalog` stays fast and a broken optional part cannot break
the others.
"""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = {
    "catalog": ("generator.catalog", "print the GPU and op catalog with roofline times"),
    "kernelinfer": ("generator.cli_kernelinfer", "generate the kernelinfer dataset folder"),
    "kernelswarm": ("generator.cli_kernelswarm", "generate the kernelswarm dataset folder"),
    "validate": ("generator.validate", "validate JSONL files or generated dataset folders"),
    "audit-compile": ("generator.audit", "compile a sample of kernels with real nvcc/Triton"),
    "record-resources": ("generator.kernels.resources", "record ptxas register/smem figures into resources.tsv"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m generator", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text)
        if name == chosen:
            module = importlib.import_module(module_name)
            module.add_arguments(command_parser)
            command_parser.set_defaults(_run=module.run)
    args = parser.parse_args(argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
