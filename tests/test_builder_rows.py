"""The builders refuse rows their schema rejects, naming file and line, instead of letting the features' cast
coerce them (`step: 1.5` -> 1), null them (a missing `best`), drop them (an extra key) or fail without a place."""
from __future__ import annotations

import datasets
import orjson
import pytest

import kernelinfer
from rows import session_row


def _mutant(change):
    row = session_row()
    change(row)
    return row


@pytest.mark.parametrize("change,where", [
    (lambda r: r.update(attempts="many"), "attempts"),
    (lambda r: r.update(messages={}), "messages"),
    (lambda r: r["trace"][0].update(time_ms="fast"), "trace/0/time_ms"),
    (lambda r: r.pop("best"), "missing required best"),
    (lambda r: r.update(extra=1), "'extra' was unexpected"),
    (lambda r: r["best"].update(step=1.5), "best/step"),
])
def test_a_row_the_schema_rejects_is_refused_with_file_and_line(tmp_path, change, where):
    shard = tmp_path / "batches" / "batch_000.jsonl"
    shard.parent.mkdir()
    shard.write_bytes(orjson.dumps(session_row()) + b"\n" + orjson.dumps(_mutant(change)) + b"\n")
    builder = kernelinfer.KernelInfer(config_name="sessions", data_dir=str(tmp_path), cache_dir=str(tmp_path / "c"))
    with pytest.raises(datasets.exceptions.DatasetGenerationError) as excinfo:
        builder.download_and_prepare()
    message = str(excinfo.value.__cause__)
    assert message.startswith(f"{shard}:2: ") and where in message, message


def test_valid_rows_still_load(tmp_path):
    shard = tmp_path / "batches" / "batch_000.jsonl"
    shard.parent.mkdir()
    shard.write_bytes(orjson.dumps(session_row()) + b"\n")
    builder = kernelinfer.KernelInfer(config_name="sessions", data_dir=str(tmp_path), cache_dir=str(tmp_path / "c"))
    builder.download_and_prepare()
    assert builder.as_dataset(split="train")[0]["best"] == session_row()["best"]
