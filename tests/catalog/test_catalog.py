"""`python -m generator catalog`: plain, --json (one document, < 5 s) and --markdown (the README's tables)."""
import subprocess
import sys
from pathlib import Path

import orjson

from generator.__main__ import main
from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS

ROOT = Path(__file__).resolve().parents[2]


def test_json_document_lists_every_gpu_op_and_task():
    proc = subprocess.run([sys.executable, "-m", "generator", "catalog", "--json"], cwd=ROOT, capture_output=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    doc = orjson.loads(proc.stdout)
    assert set(doc) == {"gpus", "ops", "tasks"}
    assert [g["name"] for g in doc["gpus"]] == list(GPUS)
    assert all(g["sources"]["dram_gbps"].startswith("https://") for g in doc["gpus"])
    assert len(doc["ops"]) == len(OPS) >= 41
    expected = sum(len(o.shapes) * len(o.dtypes) for o in OPS.values()) * len(GPUS)
    assert len(doc["tasks"]) == expected
    assert all(t["roofline_ms"] > 0.0025 for t in doc["tasks"])
    fd = next(o for o in doc["ops"] if o["name"] == "flash_decode")
    assert fd["signature"]["cuda"].startswith("__global__ void flash_decode_kernel(")
    assert fd["variants"]["cuda"][0] == "naive"


def test_markdown_has_a_row_per_gpu_and_op(capsys):
    assert main(["catalog", "--markdown"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(rows) == 2 + len(GPUS) + len(OPS)
    assert "| flash_decode | attention | attn_decode | cuda, triton | fp16, bf16 |" in out


def test_plain_output_lists_everything(capsys):
    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    assert all(g.display in out for g in GPUS.values())
    assert all(f"  {name} " in out for name in OPS)
