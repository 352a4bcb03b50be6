"""`audit-compile DIR` reads any dataset's folder through its descriptor (`Dataset.compiled_steps`)."""
from __future__ import annotations

import orjson
import pytest

from generator.kernels import audit
from generator.registry import DATASETS

CUDA_ERROR = 'k.cu(3): error: expected a ";"\n    int b = 2\n    ^\n\n1 error detected in the compilation of "k.cu".'
PTXAS_ERROR = ("ptxas /tmp/tmpxft_0000abcd_00000000-6_k.ptx, line 9; error   : Feature '.expect_tx' requires .target "
               "sm_90 or higher\nptxas fatal   : Ptx assembly aborted due to errors")


def _episode() -> dict:
    """A kernelswarm episode: two candidates and the results that judge them (`ref`), a review in between."""
    messages = [
        {"role": "lead", "agent": "lead", "kind": "plan", "content": "plan"},
        {"role": "worker", "agent": "a01", "kind": "candidate", "content": "int a = 1;\nint b = 2\nint c;",
         "variant": "naive", "params": {}},
        {"role": "reviewer", "agent": "a02", "kind": "review", "content": "PASS", "ref": 1},
        {"role": "worker", "agent": "a01", "kind": "candidate", "content": "// tma", "variant": "tma_pipeline",
         "params": {}},
        {"role": "env", "agent": "env", "kind": "result", "content": f"[t+0:01:00] RESULT compile_error\n{CUDA_ERROR}",
         "status": "compile_error", "variant": "naive", "ref": 1},
        {"role": "env", "agent": "env", "kind": "result", "variant": "tma_pipeline", "ref": 3,
         "content": f"[t+0:02:00] RESULT unsupported_arch\n{PTXAS_ERROR}", "status": "unsupported_arch"},
    ]
    return {"episode_id": "e1", "op": "rmsnorm", "impl": "cuda", "gpu": "a100", "arch": "sm_80", "messages": messages}


def test_every_dataset_says_how_its_rows_hold_compiled_candidates():
    assert all(d.compiled_steps is not None for d in DATASETS.values())


def test_kernelswarm_results_are_audited_with_the_candidates_they_judge(tmp_path):
    (tmp_path / "episodes.jsonl").write_bytes(orjson.dumps(_episode()) + b"\n")
    cands = sorted(audit.folder_candidates(tmp_path, 10, seed=0), key=lambda c: c.meta["step"])
    assert [c.meta["step"] for c in cands] == ["4", "5"] and [c.meta["row"] for c in cands] == ["e1", "e1"]
    nvcc, ptxas = cands
    assert nvcc.source.text == "int a = 1;\nint b = 2\nint c;" and nvcc.source.filename == "k.cu"
    assert (nvcc.expected.kind, nvcc.expected.line, nvcc.block) == ("missing_semicolon", 3, CUDA_ERROR)
    # ptxas refusing the target is a compile error to the audit, whatever the dataset calls the status
    assert (ptxas.expected.status, ptxas.expected.kind, ptxas.expected.tool) == (
        "compile_error", "arch_unsupported", "ptxas")
    assert ptxas.source.text == "// tma" and ptxas.source.compile_arch == "sm_80" and ptxas.block == PTXAS_ERROR
    only = audit.folder_candidates(tmp_path, 10, seed=0, kinds=frozenset({"arch_unsupported"}))
    assert [c.meta["step"] for c in only] == ["5"]


def test_a_row_of_no_dataset_is_a_one_line_error(tmp_path):
    (tmp_path / "episodes.jsonl").write_text('{"episode_id": "e1", "messages": [{"kind": "result"}]}\n')
    with pytest.raises(SystemExit, match=r"episodes\.jsonl:1: not a kernelswarm episode row"):
        audit.folder_candidates(tmp_path, 10, seed=0)
