"""`python -m generator COMMAND ...` (or the `kernelstrain` console script): one entry point for every command.

Each dataset in `generator.registry` is a generation command of its own (`kernelinfer`, `kernelswarm`); the
tools (`catalog`, `validate`, `audit-compile`) are modules with `add_arguments(parser)` and `run(args) -> int`.
A command's module is imported only when that command runs: `validate` never loads `datasets` (~170 MB) and
`catalog` stays fast.
"""
from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from generator import interrupts
from generator.registry import DATASETS


def _catalog():
    from generator.catalog import table
    return table


def _validate():
    from generator.check import validate
    return validate


def _audit():
    from generator.kernels import audit
    return audit


def _publish():
    from generator.hub import publish
    return publish


def _record_resources():
    from generator.kernels import record_resources
    return record_resources


def _record_diagnostics():
    from generator.kernels import record_diagnostics
    return record_diagnostics


def _scale():
    from generator.scale import cli
    return cli


def _generate():
    from generator.write import generate
    return generate


def _prog() -> str:
    """`kernelstrain` when run as the console script, else `python -m generator`."""
    name = Path(sys.argv[0]).name
    return name if name == "kernelstrain" else "python -m generator"


TOOLS = {
    "catalog": (_catalog, "print the GPU and op catalog with roofline times"),
    "validate": (_validate, "validate JSONL files or generated dataset folders"),
    "audit-compile": (_audit, "compile a sample of kernels with real nvcc/Triton"),
    "upload": (_publish, "publish a generated folder to a Hugging Face Hub dataset repo"),
    "record-resources": (_record_resources, "record ptxas register/smem figures into catalog/resources.tsv"),
    "record-diagnostics": (_record_diagnostics, "record nvcc's operator-mismatch notes into kernels/diagnostics.tsv"),
    "scale": (_scale, "generate a dataset as shard tasks on an engine (local, ray, slurm) into any fsspec URL"),
}


def main(argv: list[str] | None = None) -> int:
    """The command's exit code; Ctrl-C anywhere (even while modules load, even inside a C extension that turns it
    into another exception) is exit 130 with one line, no traceback."""
    interrupts.install()
    try:
        code = _main(argv)
    except BaseException as exc:
        if not interrupts.is_interruption(exc):
            raise
        print("interrupted", file=sys.stderr)
        code = 130
    if code == 130:
        # CPython 3.11 flags a KeyboardInterrupt that passed through exec() of a string (dataclasses does that while
        # a module loads) as unhandled, and at exit kills itself with SIGINT instead of returning the code; each
        # exec() of a string resets that flag first.
        exec("None")
    return code


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog=_prog(), description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    argv = sys.argv[1:] if argv is None else argv
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, dataset in DATASETS.items():
        command = sub.add_parser(name, help=f"generate the {name} dataset folder")
        if name == chosen:
            generate = _generate()
            generate.add_arguments(dataset, command)
            command.set_defaults(_run=functools.partial(generate.run, dataset))
    for name, (load, help_text) in TOOLS.items():
        command = sub.add_parser(name, help=help_text)
        if name == chosen:
            module = load()
            module.add_arguments(command)
            command.set_defaults(_run=module.run)
    args = parser.parse_args(argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
