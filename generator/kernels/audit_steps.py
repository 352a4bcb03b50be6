"""One compiled candidate of a generated row, as `audit-compile DIR` reads it from any dataset.

Each dataset's descriptor (`Dataset.compiled_steps`) turns one of its main rows into these, so the audit reads
every dataset's folder without knowing its row layout.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompiledStep:
    """A candidate source and what the row says the harness did with it."""

    label: str       # where it is in the row (a step number, a message index)
    variant: str     # the variant tag (names the source file)
    text: str        # the candidate source as written
    status: str      # ok | wrong_result | compile_error | launch_error
    feedback: str    # the environment's reply after its `RESULT <status>` line
    params: dict     # the candidate's tunables as the row states them (a CUDA refusal's figures follow from them)
