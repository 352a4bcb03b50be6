"""A rerun reuses shards only under the same generator code: a folder written by other code of the same version
(a changed checkout between releases) is refused, by the CLI and by `scale`, and left as it was."""
from __future__ import annotations

from pathlib import Path

import pytest

from generator import code_digest as digest_module
from generator.__main__ import main
from generator.scale import shards
from generator.write import generate


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_digest_reads_the_shipped_files_once(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "sub" / "table.tsv").write_text("k\tv\n")
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "notes.md").write_text("not shipped\n")
    (tmp_path / "linked").symlink_to(tmp_path / "sub")          # a checkout's schema/ link
    monkeypatch.setattr(digest_module, "PACKAGE", tmp_path)
    digest = digest_module.code_digest.__wrapped__
    first = digest()
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\1")
    (tmp_path / "notes.md").write_text("an editor's file the wheel does not ship\n")
    (tmp_path / "sub" / "loop").symlink_to(tmp_path)                # walked once
    assert digest() == first
    (tmp_path / "sub" / "table.tsv").write_text("k\tw\n")       # read twice: as sub/ and through the link
    second = digest()
    assert second != first
    (tmp_path / "linked").unlink()
    assert digest() not in (first, second)
    monkeypatch.setattr(digest_module, "PACKAGE", tmp_path / "empty")
    with pytest.raises(RuntimeError, match="no generator files"):
        digest()


def test_a_folder_of_other_code_is_refused_and_kept(make_folder, tmp_path, monkeypatch, capsys):
    out = make_folder("kernelinfer", tmp_path / "ki", seed=3, rows=3, holdout=2,
                      extra=("--no-views", "--num-proc", "1"))
    before = files(out)
    argv = ["kernelinfer", "--out", str(out), "--seed", "3", "--sessions", "3", "--holdout", "2", "--no-views",
            "--num-proc", "1"]
    assert main(argv) == 0 and "(1 reused)" in capsys.readouterr().out       # the same code reuses its shard
    monkeypatch.setattr(generate, "code_digest", lambda: "other code")
    assert main(argv) == 2
    assert "not generated with these options by this generator" in capsys.readouterr().err
    assert files(out) == before


def test_scale_refuses_a_run_of_other_code(tmp_path, monkeypatch, capsys):
    out = tmp_path / "scaled"
    argv = ["scale", "kernelinfer", "--out", str(out), "--rows", "3", "--holdout", "2", "--no-views", "--workers",
            "1", "--no-finish", "--shards", "0:1"]
    assert main(argv) == 0
    monkeypatch.setattr(shards, "code_digest", lambda: "other code")
    assert main(argv) == 2
    assert "holds a run with other options or of other code" in capsys.readouterr().err
