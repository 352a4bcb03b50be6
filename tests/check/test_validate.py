"""`python -m generator validate`: every malformed class at its exact line, folders as a whole, exit codes,
the seed's Hub-viewer failure reproduced and repaired with --split."""
from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
from pathlib import Path

import orjson
import pytest
import yaml

from generator import SCHEMA_VERSION, __version__
from generator.kernelinfer import stats
from generator.kernelinfer.dataset import KERNELINFER
from generator.__main__ import main
from generator.task_features import HOLDOUT_FEATURES
from generator.check.split import raw_bytes, split_file
from generator.check.validate import InputError, validate_paths
from generator.layout import shard_name
from rows import session_row, task_row

CORPUS = Path(__file__).parent / "corpus"
EXPECTED = json.loads((CORPUS / "expected.json").read_text())


def findings_of(*paths, **kwargs) -> list[tuple[str, int | None, str]]:
    report = validate_paths(list(paths), **kwargs)
    for f in report.findings:
        assert f.message.startswith(f"{f.kind}: ")       # every message names its class
    return [(Path(f.path).name, f.line, f.kind) for f in report.findings]


def write_jsonl(path: Path, rows, *, raw: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows) + raw)
    return path


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_class_found_at_its_line(name):
    got = sorted((line, kind) for _, line, kind in findings_of(CORPUS / name, schema="task"))
    assert got == sorted((line, kind) for line, kind in EXPECTED[name])


def test_corpus_covers_every_line_class():
    from generator.check.jsonl_lint import KINDS

    seen = {kind for items in EXPECTED.values() for _, kind in items}
    assert set(KINDS) <= seen
    assert {"schema", "number_type", "semantic", "duplicate_id", "empty_file"} <= seen


def test_schema_from_file_name_and_sniffing(tmp_path):
    named = write_jsonl(tmp_path / "tasks_holdout.jsonl", [task_row(gpu="v100")])
    sniffed = write_jsonl(tmp_path / "whatever.jsonl", [task_row(task_id="x", gpu="v100")])
    assert sorted(findings_of(named, sniffed)) == [("tasks_holdout.jsonl", 1, "schema"), ("whatever.jsonl", 1, "schema")]


def test_a_pattern_ends_where_json_schema_says(tmp_path):
    """`$` ends the string (ECMA-262), and not also before a final newline (Python's `re`): a value the compiled
    check rejects gets its message instead of passing unreported."""
    path = write_jsonl(tmp_path / "tasks_holdout.jsonl", [task_row(op="rmsnorm\n")])
    report = validate_paths([path])
    assert [(f.line, f.kind) for f in report.findings] == [(1, "schema")]
    assert "does not match" in report.findings[0].message


def test_cross_file_types_for_schemaless_rows(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [{"n": 1, "x": None, "y": {"k": 1}}, {"n": 2, "x": None, "y": {"k": 2}}])
    b = write_jsonl(tmp_path / "b.jsonl", [{"n": 2.5, "x": 0.5, "y": [1]}])
    found = findings_of(a, b)
    assert sorted(f for f in found if f[2] == "schema") == [("a.jsonl", None, "schema"), ("b.jsonl", None, "schema")]
    assert sorted((f for f in found if f[2] != "schema"), key=str) == [
        ("a.jsonl", None, "type_change"), ("b.jsonl", 1, "type_change"), ("b.jsonl", 1, "type_change")]


def _folder(tmp_path: Path, shards: list[list[dict]], holdout: list[dict] = (), name=shard_name) -> Path:
    """A kernelinfer folder of `shards` (each a list of rows), shard i at `name(i, shards=len(shards))`."""
    folder = tmp_path / "kernelinfer"
    paths = [folder / name(i, shards=len(shards)) for i in range(len(shards))]
    for path, rows in zip(paths, shards):
        write_jsonl(path, rows)
    (folder / "sessions.jsonl").write_bytes(b"".join(path.read_bytes() for path in paths))
    holdout = holdout or [task_row(shape={"T": 32, "H": 8192})]
    write_jsonl(folder / "tasks_holdout.jsonl", holdout)
    summary = KERNELINFER.stats_document([stats.shard_stats(rows) for rows in shards], holdout_tasks=len(holdout),
                                         data_bytes=(folder / "sessions.jsonl").stat().st_size,
                                         options={"version": __version__, "schema_version": SCHEMA_VERSION, "seed": 0})
    (folder / "stats.json").write_bytes(orjson.dumps(summary, option=orjson.OPT_INDENT_2))
    return folder


def _session(i: int, **changes) -> dict:
    return {**session_row(), "session_id": f"s{i}", **changes}


def test_folder_is_checked_as_a_whole(tmp_path):
    folder = _folder(tmp_path, [[_session(0)], [_session(1)]])
    assert findings_of(folder, semantic=False) == []


def test_folder_cross_file_rules(tmp_path):
    # s0 repeated in another shard; the holdout task is a training task; one shard never has a time_ms
    no_times = _session(2)
    no_times["trace"][0].update(status="wrong_result", time_ms=None, kept=False)
    folder = _folder(tmp_path, [[_session(0)], [_session(0)], [no_times]], holdout=[task_row()])
    got = findings_of(folder, semantic=False)
    assert ("batch_001.jsonl", 1, "duplicate_id") in got
    assert ("tasks_holdout.jsonl", 1, "holdout_overlap") in got
    assert ("batch_002.jsonl", None, "type_change") in got


def test_merged_view_must_equal_the_shards(tmp_path):
    folder = _folder(tmp_path, [[_session(0), _session(1)]])
    view = folder / "sessions.jsonl"
    lines = view.read_bytes().splitlines(keepends=True)
    view.write_bytes(lines[0] + lines[1].replace(b'"s1"', b'"s9"'))
    assert findings_of(folder, semantic=False) == [("sessions.jsonl", 2, "merged_view")]
    view.write_bytes(b"".join(lines) + lines[0])
    assert findings_of(folder, semantic=False) == [("sessions.jsonl", 3, "merged_view")]


def test_shard_names_past_999_sort_in_index_order_and_others_are_one_finding(tmp_path):
    """A 100x run has 1,900 shards: batch_0000 ... batch_1899 validate clean (the merged view is their concatenation
    in text order); the names of earlier versions (batch_000 ... batch_999, then batch_1000, which sorts between
    batch_100 and batch_101: rows out of order for datasets) are one layout line."""
    shards = [[_session(i)] for i in range(1001)]
    assert findings_of(_folder(tmp_path / "now", shards), semantic=False) == []
    old = _folder(tmp_path / "old", shards, name=lambda i, shards: f"batches/batch_{i:03d}.jsonl")
    found = validate_paths([old], semantic=False).findings
    layout = [f.message for f in found if f.kind == "layout"]
    assert len(layout) == 1 and layout[0].startswith("layout: 1,000 of the 1,001 shard names do not pad their index "
                                                     "to 4 digits") and "(first: batch_000.jsonl)" in layout[0]
    assert [f.message for f in found if f.kind == "merged_view"] == [
        "merged_view: differs from the concatenation of batches/*.jsonl (at batch_1000.jsonl)"]



def test_a_deleted_shard_past_999_is_no_width_finding(tmp_path):
    """A 1,001-shard folder missing one shard still has 4-digit names: the width comes from the highest index, so
    the finding is the missing shard, not 1,000 names said to need 3 digits (the count of files present)."""
    folder = _folder(tmp_path, [[_session(i)] for i in range(1001)])
    (folder / shard_name(500, shards=1001)).unlink()
    messages = [f.message for f in validate_paths([folder], semantic=False).findings]
    assert messages and not any("do not pad their index" in m for m in messages)

def test_folder_layout(tmp_path):
    folder = _folder(tmp_path, [[_session(0)]])
    (folder / "kernelinfer.py").write_text("# a loading script\n")
    (folder / "episodes.jsonl").write_bytes(b"")
    kinds = [kind for _, _, kind in findings_of(folder, semantic=False)]
    assert kinds.count("layout") == 2


def test_stats_document(tmp_path):
    folder = _folder(tmp_path, [[_session(0)], [_session(1)]])
    doc = orjson.loads((folder / "stats.json").read_bytes())
    bad = tmp_path / "stats.json"
    bad.write_bytes(orjson.dumps({**doc, "Bad Key": 1, "total_steps": 2.5}))
    assert findings_of(bad) == [("stats.json", None, "schema")] * 2
    (folder / "stats.json").write_bytes(orjson.dumps({**doc, "sessions": 3, "holdout_tasks": 0}))
    assert findings_of(folder, semantic=False) == [("stats.json", None, "stats_mismatch")] * 2
    bad.write_bytes(b'{\n  "sessions": 3,\n  "mean": NaN\n}\n')
    assert findings_of(bad) == [("stats.json", None, "not_json")]
    bad.write_bytes(b'{\n  "sessions": 3\n  "x": 1\n}\n')
    assert findings_of(bad) == [("stats.json", 3, "not_json")]


def test_max_errors_stops_early():
    report = validate_paths([CORPUS / "not_object.jsonl"], schema="task", max_errors=2)
    assert len(report.findings) == 2 and report.stopped and "stopped" in report.summary()


def test_cli_exit_codes_and_formats(tmp_path, capsys):
    assert main(["validate", str(CORPUS / "valid.jsonl"), "--schema", "task"]) == 0
    assert "valid" in capsys.readouterr().out
    assert main(["validate", str(CORPUS / "blank_line.jsonl")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{CORPUS / 'blank_line.jsonl'}:2: blank_line: blank line (load_dataset: Expected object or value)"
    assert "blank_line 1" in out[-1]
    assert main(["validate", "--format", "json", str(CORPUS / "crlf.jsonl")]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"] == {"crlf": 2} and doc["findings"][1]["line"] == 2
    assert main(["validate", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err
    assert main(["validate"]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["validate", "--schema", "nope", str(CORPUS / "valid.jsonl")])
    assert exc.value.code == 2
    with pytest.raises(InputError):
        validate_paths([CORPUS / "valid.jsonl"], schema="nope")


def test_split_keeps_every_line_and_every_byte(tmp_path):
    src = tmp_path / "mixed.jsonl"
    src.write_bytes(b"".join((CORPUS / n).read_bytes() for n in ("valid.jsonl", "combination.jsonl"))
                    + b"\n" + (CORPUS / "invalid_utf8.jsonl").read_bytes() + (CORPUS / "no_final_newline.jsonl").read_bytes())
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    good, rejects = tmp_path / "good.jsonl", tmp_path / "rejects.jsonl"
    result = split_file(src, good, rejects, schema="task")
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before
    src_lines = src.read_bytes().splitlines(keepends=True)
    good_lines = good.read_bytes().splitlines(keepends=True)
    records = [json.loads(line) for line in rejects.read_bytes().splitlines()]
    assert result.good == len(good_lines) and result.rejected == len(records)
    assert len(good_lines) + len(records) == len(src_lines)
    for record in records:                                   # untouched: the exact original bytes
        assert raw_bytes(record) == src_lines[record["line"] - 1] and record["reasons"]
    assert any(r["encoding"] == "base64" for r in records)
    assert all(line.endswith(b"\n") for line in good_lines)
    assert validate_paths([good], schema="task").ok
    assert sorted(os.listdir(tmp_path)) == ["good.jsonl", "mixed.jsonl", "rejects.jsonl"]   # no temporaries left


def test_split_cli(tmp_path, capsys):
    good, rejects = tmp_path / "g.jsonl", tmp_path / "r.jsonl"
    args = ["validate", "--split", str(CORPUS / "blank_line.jsonl"), "--good", str(good), "--rejects", str(rejects)]
    assert main(args) == 1
    assert "2 good line(s)" in capsys.readouterr().out
    assert json.loads(rejects.read_text())["line"] == 2
    assert main(["validate", "--split", str(CORPUS / "valid.jsonl"), "--good", str(good)]) == 2
    assert main(["validate", "--split", str(good), "--good", str(good), "--rejects", str(rejects)]) == 2


def test_seed_failure_reproduced_located_and_repaired(tmp_path):
    """The kernelswarm seed's viewer error: a Json column in the card plus a blank line in a shard."""
    import datasets

    folder = tmp_path / "seedlike"
    card = {"configs": [{"config_name": "default", "data_files": [{"split": "train", "path": "batches/*.jsonl"}]}],
            "dataset_info": {"features": HOLDOUT_FEATURES._to_yaml_list()}}
    folder.mkdir()
    (folder / "README.md").write_text(f"---\n{yaml.safe_dump(card, sort_keys=False)}---\n# seed-like\n")
    rows = [task_row(task_id=f"t{i}") for i in range(3)]
    shard = folder / "batches" / "batch_000.jsonl"
    write_jsonl(shard, rows[:1])
    shard.write_bytes(shard.read_bytes() + b"\n" + b"".join(orjson.dumps(r) + b"\n" for r in rows[1:]))
    cache = tmp_path / "cache"
    with pytest.raises((ValueError, datasets.exceptions.DatasetGenerationError)) as exc:
        datasets.load_dataset(str(folder), split="train", cache_dir=str(cache))
    assert "Expected object or value" in repr(exc.value) + repr(exc.value.__cause__)
    assert findings_of(folder) == [("batch_000.jsonl", 2, "blank_line")]

    good = tmp_path / "good.jsonl"
    assert split_file(shard, good, tmp_path / "rejects.jsonl").rejected == 1
    os.replace(good, shard)
    assert findings_of(folder) == []
    loaded = datasets.load_dataset(str(folder), split="train", cache_dir=str(cache))
    assert loaded["task_id"] == ["t0", "t1", "t2"] and loaded[0]["shape"] == {"T": 1, "H": 4096}


def test_raw_bytes_round_trip_for_invalid_utf8():
    from generator.check.split import reject_record

    line = b'{"a":"\xff"}\r\n'
    record = json.loads(reject_record(7, line, ["invalid_utf8: ..."]))
    assert record["encoding"] == "base64" and base64.b64decode(record["raw"]) == line == raw_bytes(record)


def test_chunks_are_line_aligned_and_cover_the_file(tmp_path):
    from generator.check.rowscan import chunks_of

    path = write_jsonl(tmp_path / "t.jsonl", [task_row(task_id="x" * (i % 50)) for i in range(300)])
    data = path.read_bytes()
    chunks = chunks_of(path, "task", 4096)
    assert len(chunks) > 10 and chunks[0].start == 0 and chunks[-1].end == len(data)
    assert all(a.end == b.start and data[b.start - 1:b.start] == b"\n" for a, b in zip(chunks, chunks[1:]))


def test_lines_across_reads_and_longer_than_the_buffer(tmp_path):
    from generator.check.rowscan import _lines

    data = b"".join(b"x" * n + b"\n" for n in (0, 3, 40, 1, 17, 100, 5)) + b"no final newline"
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    for size in (8, 16, 64, 4096):
        with open(path, "rb", buffering=0) as stream:
            got = [bytes(buffer[start:end]) for buffer, start, end in _lines(stream, len(data), size)]
        assert got == data.splitlines(keepends=True), size
    with open(path, "rb", buffering=0) as stream:            # a chunk: only the bytes asked for
        stream.seek(5)
        assert [bytes(b[s:e]) for b, s, e in _lines(stream, 43, 8)] == [b"x" * 40 + b"\n", b"x\n"]


def test_process_pool_gives_the_same_findings(tmp_path, monkeypatch):
    from generator.check import validate

    rows = [task_row(task_id=f"t{i}") for i in range(400)]
    rows[5]["gpu"], rows[390]["baseline_ms"] = "v100", 1
    big = write_jsonl(tmp_path / "big.jsonl", rows, raw=b"\n" + orjson.dumps(rows[7]))     # blank line, dup id
    small = write_jsonl(tmp_path / "small.jsonl", [task_row(task_id="t3"), {"x": 1}])
    sequential = validate_paths([big, small])
    monkeypatch.setattr(validate, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(validate, "MIN_CHUNK_BYTES", 2048)
    parallel = validate_paths([big, small], jobs=2)
    assert parallel.findings == sequential.findings and parallel.lines == sequential.lines == 404
    assert {(f.line, f.kind) for f in sequential.findings if f.path == str(big)} == {
        (6, "schema"), (391, "number_type"), (401, "blank_line"), (402, "duplicate_id"), (402, "no_final_newline")}


def test_card_yaml_against_the_folder(tmp_path):
    from generator.registry import DATASETS
    from generator.write.card import card_metadata

    folder = _folder(tmp_path, [[_session(0)], [_session(1)]])
    meta = card_metadata(DATASETS["kernelinfer"], data_format="jsonl")   # a JSONL-only folder

    def card(meta) -> list[tuple]:
        (folder / "README.md").write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n# card\n")
        return [(kind, f.message) for f in validate_paths([folder], semantic=False).findings for kind in [f.kind]]

    assert card(meta) == []
    doubled = copy.deepcopy(meta)
    doubled["configs"][0]["data_files"][0]["path"] = ["batches/*.jsonl", "sessions.jsonl"]
    assert [k for k, _ in card(doubled)] == ["card"] and "twice" in card(doubled)[0][1]
    fewer = copy.deepcopy(meta)
    fewer["dataset_info"][0]["features"] = [f for f in fewer["dataset_info"][0]["features"] if f["name"] != "desc"]
    assert len(card(fewer)) == 1 and "lacks desc" in card(fewer)[0][1]
    nowhere = copy.deepcopy(meta)
    nowhere["configs"][1]["data_files"][0]["path"] = "holdout/*.jsonl"
    assert "matches no file" in card(nowhere)[0][1]


def test_deep_nesting_is_a_finding_not_a_crash(tmp_path):
    deep = tmp_path / "deep.jsonl"
    deep.write_bytes(b'{"a":' + b"[" * 300 + b"]" * 300 + b'}\n{"a":' + b"[" * 5000 + b"\n")
    assert findings_of(deep) == [("deep.jsonl", None, "schema"), ("deep.jsonl", 2, "not_json")]



@pytest.mark.parametrize("dataset, count_flag", [("kernelinfer", "--sessions"), ("kernelswarm", "--episodes")])
def test_generated_folder_has_zero_findings(tmp_path, dataset, count_flag):
    """The writers' own output, through the real CLI: every file, the card, stats and cross-file rules."""
    out = tmp_path / dataset
    assert main([dataset, "--out", str(out), count_flag, "12", "--holdout", "4"]) == 0
    report = validate_paths([out])
    assert report.ok, "\n".join(map(str, report.findings[:20]))
    assert report.files >= 4 and report.lines == 12 + 4
