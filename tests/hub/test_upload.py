"""generator.hub.publish (`kernelstrain upload`, `python upload.py`): validate, stage, push. The Hub is faked only at
the `HfApi` boundary (a recording object)."""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import datasets
import pytest
from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

from generator.__main__ import main as generator_main
from generator.hub import client as hub, network, publish
from generator.registry import DATASETS

ROOT = Path(__file__).resolve().parents[2]

TOKEN = "hf_kernelstrainTESTtoken0123456789"
LFS_THRESHOLD = 4096   # the fake stores bigger files as LFS (sha256), smaller ones as git blobs (blob id)


def http_error(status: int, cls=HfHubHTTPError):
    response = hub.TRANSPORT.Response(status, request=hub.TRANSPORT.Request("POST", "https://huggingface.co/api/x"))
    return cls(f"{status} Client Error", response=response)


@dataclass
class Lfs:
    sha256: str


@dataclass
class RemoteFile:
    path: str
    size: int
    blob_id: str
    lfs: Lfs | None


@dataclass
class CommitInfo:
    commit_url: str
    pr_url: str | None = None
    pr_revision: str | None = None


class FakeHub:
    """The remote: files by path, commits, every call; `fail` maps a method to an exception to raise, optionally
    only from its n-th call on (`fail_from`)."""

    def __init__(self):
        self.repo_exists = False
        self.files: dict[str, RemoteFile] = {}
        self.contents: dict[str, bytes] = {}
        self.commits: list[dict] = []
        self.calls: list[str] = []
        self.fail: dict[str, BaseException] = {}
        self.fail_from: dict[str, int] = {}

    def api(self, *, token):
        assert token == TOKEN or token is None
        return FakeApi(self)

    def check(self, method: str):
        self.calls.append(method)
        if method in self.fail and self.calls.count(method) >= self.fail_from.get(method, 1):
            raise self.fail[method]

    def sent(self) -> list[str]:
        return [path for c in self.commits for path in c["added"]]


class FakeApi:
    def __init__(self, remote: FakeHub):
        self.remote = remote

    def whoami(self):
        self.remote.check("whoami")
        return {"name": "tester"}

    def create_repo(self, repo_id, *, repo_type, private, exist_ok):
        self.remote.check("create_repo")
        assert repo_type == "dataset" and exist_ok
        self.remote.repo_exists = True

    def create_branch(self, repo_id, *, branch, repo_type, exist_ok):
        self.remote.check("create_branch")

    def list_repo_tree(self, repo_id, *, recursive, repo_type, revision):
        self.remote.check("list_repo_tree")
        if not self.remote.repo_exists:
            raise http_error(404, RepositoryNotFoundError)
        yield from list(self.remote.files.values())

    def create_commit(self, repo_id, operations, *, commit_message, repo_type, revision, create_pr):
        self.remote.check("create_commit")
        added, deleted = [], []
        for op in operations:
            if hasattr(op, "path_or_fileobj"):
                data = Path(op.path_or_fileobj).read_bytes()
                lfs = Lfs(hashlib.sha256(data).hexdigest()) if len(data) > LFS_THRESHOLD else None
                oid = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
                self.remote.files[op.path_in_repo] = RemoteFile(op.path_in_repo, len(data), oid, lfs)
                self.remote.contents[op.path_in_repo] = data
                added.append(op.path_in_repo)
            else:
                del self.remote.files[op.path_in_repo]
                deleted.append(op.path_in_repo)
        n = len(self.remote.commits)
        self.remote.commits.append({"message": commit_message, "added": added, "deleted": deleted,
                                    "revision": revision, "create_pr": create_pr})
        url = f"https://huggingface.co/datasets/{repo_id}/commit/{n:040x}"
        if create_pr:
            return CommitInfo(url, f"https://huggingface.co/datasets/{repo_id}/discussions/1", "refs/pr/1")
        return CommitInfo(url)


def run(folder: Path, remote: FakeHub, *extra: str, token: str | None = TOKEN, sleeps: list | None = None) -> int:
    return publish.main([str(folder), "--repo-id", "org/name", *extra], api_factory=remote.api, token=token,
                       sleep=(sleeps if sleeps is not None else []).append)


def staged_files(stage: Path) -> set[str]:
    return {p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file()}


# --- staging -----------------------------------------------------------------------------------------------------

def test_staged_folder_loads_every_config(folder, builders, tmp_path):
    """The stage is the folder's own files, hard-linked, and every config of its card loads from it (regular and
    streaming) the very rows the folder gives."""
    stage = tmp_path / folder.name   # named like the repo: datasets would refuse a `<name>.py` in it
    assert run(folder, FakeHub(), "--dry-run", "--stage-dir", str(stage)) == 0
    assert not list(stage.rglob("*.py"))
    assert (stage / "schema" / "task.schema.json").is_file() and (stage / "stats.json").is_file()
    data = [rel for rel in staged_files(stage) if not rel.startswith("schema/") and rel != "README.md"]
    assert any(rel.startswith("data/") for rel in data) and any(rel.startswith("views/") for rel in data)
    assert all((stage / rel).stat().st_ino == (folder / rel).stat().st_ino for rel in data)   # links, not copies
    builder = builders[folder.name]
    for config in builder.DATASET.configs:
        splits = ("train", "validation") if config.name == builder.DEFAULT_CONFIG_NAME else (config.split,)
        for split in splits:
            source = list(datasets.load_dataset(str(folder), config.name, split=split, cache_dir=str(tmp_path / "f")))
            for streaming in (False, True):
                ds = datasets.load_dataset(str(stage), config.name, split=split, streaming=streaming,
                                           cache_dir=str(tmp_path / "hf"))
                assert ds.features == config.features and list(ds) == source


def test_stray_files_and_symlinks_are_refused(folder, tmp_path, capsys):
    """Only the layout's files are staged: a token file, a script, a backup, a symlink to a file outside or to
    a folder make the upload refuse the folder (exit 1), naming them, before anything is staged or sent."""
    outside = tmp_path / "secret.txt"
    outside.write_text("hf_secret")
    for name, make in [("batches/.env", lambda p: p.write_text(f"HF_TOKEN={TOKEN}")),
                       ("batches/kernelinfer.py", lambda p: p.write_text("print()")),
                       ("stats.json.bak", lambda p: p.write_text("{}")),
                       ("qa_reports/batch_999.json", lambda p: p.symlink_to(outside)),
                       ("plots/outside", lambda p: p.symlink_to(tmp_path))]:
        bad = tmp_path / "bad" / folder.name
        shutil.rmtree(bad.parent, ignore_errors=True)
        shutil.copytree(folder, bad)
        make(bad / name)
        remote, stage = FakeHub(), tmp_path / "stage"
        assert run(bad, remote, "--stage-dir", str(stage)) == hub.EXIT_INVALID, name
        err = capsys.readouterr().err
        assert name in err and "does not define" in err and len(err.strip().splitlines()) == 1
        assert not stage.exists() and remote.calls == [] and TOKEN not in err


@pytest.mark.parametrize("stats", [b"{not json", b"[1, 2]", None])
def test_unreadable_stats_is_invalid_data_not_a_traceback(folder, tmp_path, capsys, stats):
    """The staged card is made from stats.json and the first row: when they cannot be read, the validator's
    findings and exit 1, no traceback, and no stage (partial or not) left behind."""
    bad = tmp_path / "bad" / folder.name
    shutil.copytree(folder, bad)
    if stats is None:
        (bad / "stats.json").unlink()
    else:
        (bad / "stats.json").write_bytes(stats)
    stage = tmp_path / "stage"
    assert run(bad, FakeHub(), "--dry-run", "--stage-dir", str(stage)) == hub.EXIT_INVALID
    err = capsys.readouterr().err
    assert "Traceback" not in err and "nothing sent" in err
    assert not stage.exists() and not list(tmp_path.glob(".stage*"))


def test_merged_file_is_sent_from_the_folder_not_staged(folder, tmp_path, capsys):
    """The merged file is never staged, so the stage holds every byte once (each file its own inode, none the
    merged file's); the plan lists it with the size and sha256 of the staged shards concatenated (= the folder's
    file), says Xet will not send its chunks again, and the staged card lists it. --no-merged leaves it out of the
    plan and the card; both stages validate (the staged folder was validated before the plan)."""
    merged = DATASETS[folder.name].merged_file
    stage = tmp_path / "with"
    assert run(folder, FakeHub(), "--dry-run", "--stage-dir", str(stage)) == 0
    out = capsys.readouterr().out
    assert not (stage / merged).exists()
    inodes = {p.stat().st_ino: p.stat().st_size for p in stage.rglob("*") if p.is_file()}
    assert len(inodes) == len(staged_files(stage)) and (folder / merged).stat().st_ino not in inodes
    shards = b"".join(p.read_bytes() for p in sorted(stage.glob("batches/*.jsonl")))
    assert shards == (folder / merged).read_bytes()
    line = f"{len(shards):>14,} {hashlib.sha256(shards).hexdigest():64} {merged}"
    assert [x for x in out.splitlines() if x.endswith(f" {merged}")] == [f"{'new':9} {line}"]
    assert f"of which {len(shards) / 1e6:,.1f} MB ({merged}, sent from {folder / merged}, not staged) repeat" in out
    card = (stage / "README.md").read_text()
    assert f"| `{merged}` | - | 1 |" in card and f"`{merged}` (the batches concatenated)" in card
    stage = tmp_path / "without"
    assert run(folder, FakeHub(), "--dry-run", "--no-merged", "--stage-dir", str(stage)) == 0
    out = capsys.readouterr().out
    assert not (stage / merged).exists() and f" {merged}" not in out and "repeat the shards" not in out
    assert merged not in (stage / "README.md").read_text()                # nor in its prose


def test_stale_merged_file_is_refused(folder, tmp_path, capsys):
    """A merged file that is no longer the shards concatenated (one byte changed, same size) is refused before
    anything is sent, in one line naming it; nothing staged. --no-merged publishes the rest."""
    merged = DATASETS[folder.name].merged_file
    bad = tmp_path / "bad" / folder.name
    shutil.copytree(folder, bad)
    data = bytearray((bad / merged).read_bytes())
    data[len(data) // 2] ^= 1
    (bad / merged).write_bytes(bytes(data))
    remote, stage = FakeHub(), tmp_path / "stage"
    assert run(bad, remote, "--stage-dir", str(stage)) == hub.EXIT_INVALID
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{bad / merged}: not the" in err and "stale merged file" in err
    assert not stage.exists() and remote.calls == []
    assert run(bad, remote, "--no-merged") == 0 and merged not in remote.files


def test_folder_without_shards_is_invalid(folder, tmp_path, capsys):
    bad = tmp_path / folder.name
    shutil.copytree(folder, bad)
    shutil.rmtree(bad / "batches")
    assert run(bad, FakeHub(), "--dry-run") == hub.EXIT_INVALID
    assert "no shards" in capsys.readouterr().err


def test_invalid_folder_is_refused_before_staging(folder, tmp_path, capsys):
    bad = tmp_path / folder.name
    shutil.copytree(folder, bad)
    shard = bad / "batches" / "batch_000.jsonl"
    lines = shard.read_bytes().splitlines(keepends=True)
    shard.write_bytes(b"".join(lines[:1] + [b"\n"] + lines[1:]))
    remote, stage = FakeHub(), tmp_path / "stage"
    assert run(bad, remote, "--stage-dir", str(stage)) == hub.EXIT_INVALID
    assert not stage.exists() and remote.calls == []
    assert "batch_000.jsonl:2" in capsys.readouterr().err


# --- pushing -----------------------------------------------------------------------------------------------------

def test_push_then_rerun_sends_nothing(folder, tmp_path, capsys):
    remote = FakeHub()
    stage = tmp_path / "stage"
    assert run(folder, remote, "--stage-dir", str(stage)) == 0
    merged = DATASETS[folder.name].merged_file
    assert sorted(remote.sent()) == sorted(staged_files(stage) | {merged})
    assert remote.contents[merged] == (folder / merged).read_bytes()     # sent from the folder
    assert remote.commits[-1]["added"] == ["README.md"]         # the card, with its configs, goes last
    out = capsys.readouterr().out
    assert all(f"commit/{n:040x}" in out for n in range(len(remote.commits)))
    commits = len(remote.commits)
    assert run(folder, remote) == 0
    assert len(remote.commits) == commits
    assert "the remote already has every file" in capsys.readouterr().out


def test_interrupted_upload_resumes_with_the_rest(folder, tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "MAX_FILES_PER_COMMIT", 2)
    remote = FakeHub()
    remote.fail["create_commit"] = hub.TRANSPORT.ConnectError("connection reset")
    remote.fail_from["create_commit"] = 3
    sleeps: list[float] = []
    assert run(folder, remote, sleeps=sleeps) == hub.EXIT_NETWORK
    assert len(sleeps) == network.ATTEMPTS - 1 and len(remote.commits) == 2
    first = remote.sent()
    del remote.fail["create_commit"]
    stage = tmp_path / "stage"
    assert run(folder, remote, "--stage-dir", str(stage)) == 0
    rest = remote.sent()[len(first):]
    assert not set(first) & set(rest)                            # nothing sent twice
    assert sorted(first + rest) == sorted(staged_files(stage) | {DATASETS[folder.name].merged_file})


def test_create_pr_puts_later_commits_on_the_pr(folder, monkeypatch, capsys):
    monkeypatch.setattr(hub, "MAX_FILES_PER_COMMIT", 3)
    remote = FakeHub()
    assert run(folder, remote, "--create-pr", "--commit-message", "data v1") == 0
    first, *rest = remote.commits
    assert first["create_pr"] and first["revision"] is None and rest
    assert all(c["revision"] == "refs/pr/1" and not c["create_pr"] for c in rest)
    assert first["message"] == f"data v1 (1/{len(remote.commits)})"
    assert "discussions/1" in capsys.readouterr().out


def test_dry_run_plan_and_stale_files(folder, capsys):
    remote = FakeHub()
    assert run(folder, remote) == 0
    remote.files["batches/batch_099.jsonl"] = RemoteFile("batches/batch_099.jsonl", 5, "0" * 40, None)
    remote.files["notes.txt"] = RemoteFile("notes.txt", 5, "1" * 40, None)
    readme = remote.files["README.md"]
    remote.files["README.md"] = RemoteFile("README.md", readme.size, "2" * 40, None)
    before = len(remote.calls)
    capsys.readouterr()
    assert run(folder, remote, "--dry-run") == 0
    out = capsys.readouterr().out
    assert remote.calls[before:] == ["list_repo_tree"]          # reads the remote, changes nothing
    assert "delete" in out and "batches/batch_099.jsonl" in out and "notes.txt" not in out
    assert any(line.startswith("changed") and line.endswith("README.md") for line in out.splitlines())
    assert sum(line.startswith("unchanged") for line in out.splitlines()) > 3
    assert run(folder, remote) == 0
    assert remote.commits[-1]["deleted"] == ["batches/batch_099.jsonl"] and "notes.txt" in remote.files


@pytest.mark.parametrize("method,error,code", [
    ("whoami", http_error(401), hub.EXIT_TOKEN),
    ("create_repo", http_error(403), hub.EXIT_PERMISSION),
    ("create_commit", http_error(403), hub.EXIT_PERMISSION),
    ("whoami", hub.TRANSPORT.ConnectError("no route to host"), hub.EXIT_NETWORK),
])
def test_hub_errors_map_to_exit_codes(folder, method, error, code, capsys):
    remote = FakeHub()
    remote.fail[method] = error
    assert run(folder, remote) == code
    assert "kernelstrain upload:" in capsys.readouterr().err


def test_missing_token_and_usage_errors(folder, tmp_path):
    remote = FakeHub()
    assert run(folder, remote, token="") == hub.EXIT_TOKEN and remote.calls == []
    assert publish.main([str(folder), "--repo-id", "no-slash"], api_factory=remote.api, token=TOKEN) == hub.EXIT_USAGE
    assert publish.main([str(tmp_path / "none"), "--repo-id", "o/n"], api_factory=remote.api, token=TOKEN) == 2
    assert publish.main(["--bogus"], api_factory=remote.api, token=TOKEN) == hub.EXIT_USAGE


def test_token_never_printed_logged_or_staged(folder, tmp_path, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    remote = FakeHub()
    stage = tmp_path / "stage"
    assert run(folder, remote, "--stage-dir", str(stage)) == 0
    remote.fail["create_commit"] = http_error(401)
    remote.files.clear()
    assert run(folder, remote) == hub.EXIT_TOKEN
    captured = capsys.readouterr()
    assert TOKEN not in captured.out + captured.err + caplog.text
    assert all(TOKEN.encode() not in p.read_bytes() for p in stage.rglob("*") if p.is_file())


@pytest.mark.e2e
def test_repo_script_and_subcommand_run_the_same_command(tiny, capsys):
    """`python upload.py` (a checkout) and `python -m generator upload` (= the `kernelstrain upload` console
    script) print the same dry-run plan; offline, every state is unknown. One small folder: the two entry points
    are what is compared (each dataset's plan is tested in-process above); a usage error is the subcommand's,
    in this process."""
    folder = tiny
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_TOKEN": TOKEN}
    args = [str(folder), "--repo-id", "org/name", "--dry-run"]
    script = subprocess.run([sys.executable, "upload.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    command = subprocess.run([sys.executable, "-m", "generator", "upload", *args], cwd=ROOT, env=env,
                             capture_output=True, text=True)
    assert script.returncode == command.returncode == 0, script.stderr + command.stderr
    plan = [line for line in script.stdout.splitlines() if not line.startswith("staged ")]
    assert plan == [line for line in command.stdout.splitlines() if not line.startswith("staged ")]
    assert plan[-1].startswith("plan: ") and "unknown" in plan[-1] and "schema/session.schema.json" in script.stdout
    capsys.readouterr()
    assert generator_main(["upload", str(folder), "--repo-id", "no-slash"]) == hub.EXIT_USAGE
    assert capsys.readouterr().err.startswith("kernelstrain upload: --repo-id")


def test_a_file_changed_after_the_plan_is_not_sent(tmp_path):
    """The plan's sha256 is what the commit announces: a file rewritten between the plan and the push (here the
    merged file, which is sent from the folder) stops the push before its commit, in one line, exit 1."""
    path = tmp_path / "sessions.jsonl"
    path.write_bytes(b'{"session_id": "s0"}\n')
    size, sha = hub.sha256_of([path])
    path.write_bytes(b'{"session_id": "s1"}\n')                      # same size, other bytes
    entry = hub.PlanEntry("sessions.jsonl", size, sha, "new", path)
    with pytest.raises(hub.HubError) as exc:
        hub.push(None, [entry], repo_id="o/r", revision=None, create_pr=False, message="m", retry=None,
                 log=print)
    assert exc.value.exit_code == hub.EXIT_INVALID and "changed since it was validated" in str(exc.value)
