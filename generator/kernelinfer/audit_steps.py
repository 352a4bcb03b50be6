"""kernelinfer's compiled candidates for `audit-compile DIR`: each assistant turn and the feedback turn after it,
with the step's trace status."""
from __future__ import annotations

from generator.kernels.audit_steps import CompiledStep


def compiled_steps(row: dict):
    msgs = row["messages"]
    turns = [i for i, m in enumerate(msgs) if m["role"] == "assistant"]
    for step, i in zip(row["trace"], turns):
        feedback = msgs[i + 1]["content"] if i + 1 < len(msgs) else ""
        body = feedback.partition("\n")[2]
        yield CompiledStep(str(step["step"]), step["tag"], msgs[i]["content"], step["status"], body, step["params"])
