"""The red-team cases of issue #19, each with its documented outcome: exit 1 and a finding for bad data, exit 2 and
one line for what cannot be read, never a traceback, a hang or unbounded memory."""
from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from generator.__main__ import main
from generator.check import validate as validate_module
from generator.check.validate import validate_paths

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder(generated, tmp_path) -> Path:
    """A copy of the session's kernelinfer folder (conftest), to break."""
    copy = tmp_path / "kernelinfer"
    shutil.copytree(generated("kernelinfer"), copy)
    return copy


def kinds(*paths, **kw) -> list[tuple[str, int | None, str]]:
    return [(Path(f.path).name, f.line, f.kind) for f in validate_paths(list(paths), **kw).findings]


def cli(*args, timeout=120) -> subprocess.CompletedProcess:
    """`validate ARGS` as a process: for what may hang one (a FIFO) or must be seen from outside it."""
    return subprocess.run([sys.executable, "-m", "generator", "validate", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT)))


def in_process(capsys, *args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `validate ARGS` through the command's entry point in this process (a
    traceback would be an exception here: the test fails)."""
    capsys.readouterr()
    try:
        code = main(["validate", *map(str, args)])
    except SystemExit as exc:        # argparse's usage errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def first_row(folder: Path) -> dict:
    return orjson.loads((folder / "batches/batch_000.jsonl").read_bytes().split(b"\n", 1)[0])


def one_row_file(tmp_path: Path, text: bytes) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(text + b"\n")
    return path


@pytest.mark.parametrize("token", [b"18446744073709551616", b"-9223372036854775809", b"9223372036854775808"])
def test_integers_outside_int64(folder, tmp_path, token):
    line = orjson.dumps(first_row(folder))
    line = line.replace(b'"NUM_THREADS":', b'"NUM_THREADS":' + token + b",\"_\":", 1) if b"NUM_THREADS" in line \
        else line.replace(b'"params":{', b'"params":{"BLOCK_SIZE":' + token + b",", 1)
    assert ("rows.jsonl", 1, "number_range") in kinds(one_row_file(tmp_path, line), schema="session")


def test_a_wide_integer_in_a_float_column(folder, tmp_path):
    row = first_row(folder)
    line = orjson.dumps(row).replace(b'"baseline_ms":' + orjson.dumps(row["baseline_ms"]),
                                     b'"baseline_ms":99999999999999999999')
    assert ("rows.jsonl", 1, "number_range") in kinds(one_row_file(tmp_path, line), schema="session")


@pytest.mark.parametrize("field,value", [("baseline_ms", 1e-11), ("baseline_ms", 0.1 + 0.2), ("shape", 1.797e308)])
def test_floats_the_round_trip_changes(folder, tmp_path, field, value):
    row = first_row(folder)
    if field == "shape":
        row["shape"][next(iter(row["shape"]))] = value
    else:
        row[field] = value
    found = kinds(one_row_file(tmp_path, orjson.dumps(row)), schema="session", semantic=False)
    assert ("rows.jsonl", 1, "number_range") in found


def test_rows_before_the_first_id_are_checked(folder):
    shard = folder / "batches/batch_000.jsonl"
    shard.write_bytes(b"{}\n" + shard.read_bytes())
    assert ("batch_000.jsonl", 1, "schema") in kinds(shard)
    assert ("batch_000.jsonl", 1, "schema") in kinds(folder, semantic=False)


def test_the_schema_is_never_guessed_per_chunk(folder, tmp_path, monkeypatch):
    """`{"foo":1}` as the first line of the second chunk of a `--jobs 2` scan."""
    lines = (folder / "sessions.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "batch_x.jsonl"
    path.write_bytes(b"".join(lines[:10]) + b'{"foo":1}\n' + b"".join(lines[10:20]))
    cut = sum(map(len, lines[:10]))
    monkeypatch.setattr(validate_module, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(validate_module, "MIN_CHUNK_BYTES", cut)
    monkeypatch.setattr(validate_module, "CHUNK_BYTES", cut)
    for jobs in (1, 2):
        assert ("batch_x.jsonl", 11, "schema") in kinds(path, jobs=jobs, semantic=False), jobs


def test_a_folder_without_the_merged_view(folder):
    (folder / "sessions.jsonl").unlink()
    stats = orjson.loads((folder / "stats.json").read_bytes())
    (folder / "stats.json").write_bytes(orjson.dumps({**stats, "sessions": stats["sessions"] - 1}))
    found = kinds(folder, semantic=False)
    assert ("stats.json", None, "stats_mismatch") in found
    shard = folder / "batches/batch_000.jsonl"
    shard.write_bytes(b"{}\n" + shard.read_bytes())
    assert ("batch_000.jsonl", 1, "schema") in kinds(folder, semantic=False)


def test_a_folder_without_shards(folder):
    shutil.rmtree(folder / "batches")
    assert ("kernelinfer", None, "layout") in kinds(folder, semantic=False)


@pytest.mark.parametrize("name,dtype", [("baseline_ms", "int64"), ("desc", "bool")])
def test_card_feature_types_are_the_builders(folder, name, dtype):
    card = folder / "README.md"
    text = card.read_text()
    old = f"  - name: {name}\n    dtype: "
    at = text.index(old) + len(old)
    card.write_text(text[:at] + dtype + text[text.index("\n", at):])
    found = [f.message for f in validate_paths([folder], semantic=False).findings]
    assert any(f"feature {name!r} is declared" in m for m in found), found


@pytest.mark.parametrize("front", [b"\xff\xfe", b"configs: [1]", b"configs: abc", b"configs:\n- config_name: a\n  "
                                   b"data_files: /etc/*.conf", b"configs:\n- data_files: ''", b"configs:\n- "
                                   b"data_files: [{path: 5}]", b"dataset_info:\n  features:\n  - dtype: string",
                                   b"configs: [", b"a: b\n"])
def test_malformed_card_yaml_is_a_finding(folder, front):
    text = (folder / "README.md").read_bytes()
    body = text[text.index(b"\n---", 4) + 4:]
    (folder / "README.md").write_bytes(b"---\n" + front + (b"\n---" + body if front != b"a: b\n" else b"\n"))
    found = [f for f in validate_paths([folder], semantic=False).findings if f.kind == "card"]
    assert len(found) == 1 and "\n" not in found[0].message, found


def test_yaml_errors_and_an_unclosed_front_matter_are_told_apart(folder):
    text = (folder / "README.md").read_text()
    (folder / "README.md").write_text("---\nconfigs: [\n---\n")
    (bad,) = [f.message for f in validate_paths([folder], semantic=False).findings if f.kind == "card"]
    (folder / "README.md").write_text("---\nlicense: mit\n" + text.split("---", 2)[2].replace("---", ""))
    (unclosed,) = [f.message for f in validate_paths([folder], semantic=False).findings if f.kind == "card"]
    assert "does not parse at line" in bad and "no closing ---" in unclosed


@pytest.mark.parametrize("shape", [[1, 2], {"B": {"x": 1}}, {"B": [1]}])
def test_a_shape_holding_a_list_or_object(folder, tmp_path, shape):
    path = one_row_file(tmp_path, orjson.dumps({**first_row(folder), "shape": shape}))
    assert ("rows.jsonl", 1, "schema") in kinds(path, path, schema="session")


def test_a_deep_row_is_a_finding_not_a_crash(tmp_path):
    path = one_row_file(tmp_path, b'{"session_id":"s","a":' + b"[" * 1000 + b"1e-11" + b"]" * 1000 + b"}")
    found = kinds(path)
    assert ("rows.jsonl", 1, "number_range") in found and ("rows.jsonl", 1, "schema") in found


def test_a_deep_stats_document(folder):
    (folder / "stats.json").write_bytes(b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert ("stats.json", None, "not_json") in kinds(folder, semantic=False)


def test_special_files_and_symlink_loops_are_refused(folder, tmp_path):
    fifo = folder / "batches/batch_001.jsonl"
    os.mkfifo(fifo)
    for target in (folder, fifo):
        proc = cli(target, timeout=60)
        assert proc.returncode == 2 and "FIFO, not a regular file" in proc.stderr and proc.stderr.count("\n") == 1
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    proc = cli(loop)
    assert proc.returncode == 2 and "symlink loop" in proc.stderr
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s.jsonl"))
    proc = cli(tmp_path / "s.jsonl")
    assert proc.returncode == 2 and "socket, not a regular file" in proc.stderr
    sock.close()


def test_findings_are_one_bounded_line(folder, tmp_path, capsys):
    big = tmp_path / "odd\nname.jsonl"
    row = first_row(folder)
    big.write_bytes(orjson.dumps({**row, "desc": 7, "signature": "x" * (20 << 20)}) + b"\n" + b'{"a": "\x01\n')
    code, out, _err = in_process(capsys, "--schema", "session", "--no-semantic", big)
    assert code == 1
    lines = out.splitlines()
    assert all(f"{tmp_path}/odd\\nname.jsonl:" in line for line in lines[:-1]) and len(lines) >= 3
    assert max(map(len, lines)) < 1000
    assert not any("at at column" in line for line in lines)


def _peak_rss_kb(args: list[str], patch: str = "") -> int:
    """Peak RSS (KB) of `validate ARGS` (which must find problems: exit 1) in a fresh process tree, its pool
    workers included."""
    code = (f"import sys\nimport generator.check.validate as v\n{patch}\nfrom generator.__main__ import main\n"
            "sys.exit(main(['validate', *sys.argv[1:]]))")
    script = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)"
              ".returncode; print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", script, sys.executable, "-c", code, *args], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=1200, check=True)
    code, peak = out.stdout.split()
    assert code == "1", out.stderr
    return int(peak)


POOL = "v.PARALLEL_MIN_BYTES = 1\nv.MIN_CHUNK_BYTES = 4 << 10\nv.CHUNK_BYTES = 4 << 10"


@pytest.mark.e2e
@pytest.mark.parametrize("fmt, jobs, patch", [("text", 1, ""), ("json", 2, POOL)])
def test_findings_are_streamed_not_held(tmp_path, fmt, jobs, patch):
    """16 times more blank lines, scanned in this process (text findings) and over a pool of chunks (JSON
    findings), cost no more memory (held, the 245,760 extra findings would take ~60 MB: 1.3 GB for 5M lines
    before); and never 200 MB. Both writers and both scanners: the one formatter sits behind either scanner."""
    peaks = []
    for lines in (16 << 10, 256 << 10):
        path = tmp_path / f"blank{lines}.jsonl"
        path.write_bytes(b"\n" * lines)
        peaks.append(_peak_rss_kb(["--format", fmt, "--jobs", str(jobs), str(path)], patch))
    assert peaks[1] - peaks[0] < 16 << 10 and peaks[1] < 200 << 10, (fmt, jobs, peaks)


@pytest.mark.slow
def test_forty_megabytes_of_blank_lines_stay_under_200_mb(tmp_path):
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * (40 << 20))
    for jobs in (1, 2):
        assert _peak_rss_kb(["--jobs", str(jobs), str(path)]) < 200 << 10


def test_usage_errors_are_exit_2_without_traceback(tmp_path, capsys):
    for args in (["--schema", "nope", "x"], ["--max-errors", "0", "x"], [str(tmp_path / "missing.jsonl")]):
        code, _out, err = in_process(capsys, *args)
        assert code == 2 and "Traceback" not in err and err.strip(), (args, err)
    proc = cli(tmp_path / "missing.jsonl")          # and as a process: one line, exit 2
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "missing.jsonl" in proc.stderr


def test_peak_rss_measure_counts_the_children():
    """The memory assertions above can fail: a run that holds 300 MB is seen as such."""
    script = "import sys; x = bytearray(300 << 20); x[::4096] = b'1' * len(x[::4096])"
    out = subprocess.run([sys.executable, "-c", "import resource, subprocess, sys; subprocess.run(sys.argv[1:]); "
                          "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)", sys.executable, "-c",
                          script], capture_output=True, text=True, check=True)
    assert int(out.stdout) > 250 << 10
    assert resource.RUSAGE_CHILDREN is not None
