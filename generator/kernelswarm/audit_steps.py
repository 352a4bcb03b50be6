"""kernelswarm's compiled candidates for `audit-compile DIR`: each `result` message and the candidate it judges
(its `ref`). A result `unsupported_arch` is ptxas refusing the target: a compile error to the audit."""
from __future__ import annotations

from generator.kernels.audit_steps import CompiledStep


def compiled_steps(row: dict):
    msgs = row["messages"]
    for i, m in enumerate(msgs):
        if m["kind"] != "result":
            continue
        body = m["content"].partition("\n")[2]
        status = "compile_error" if m["status"] == "unsupported_arch" else m["status"]
        candidate = msgs[int(m["ref"])]
        yield CompiledStep(str(i), m["variant"], candidate["content"], status, body, candidate["params"])
