"""Network discipline of `kernelstrain upload` against a real local Hub (tests/hub/conftest.py's `hub_server`, an
HTTP server on 127.0.0.1 that the real HfApi talks to): timeouts, one bounded retry layer with Retry-After,
offline mode, every failure one line with its documented exit code, the token never shown."""
from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
import time
from email.utils import formatdate
from pathlib import Path

import pytest
from fakehub import Answer
from huggingface_hub import constants

from generator.hub import client as hub, network, publish

# huggingface_hub's own LFS upload (`lfs._upload_single_part`: `data=fileobj`) draws httpx2's deprecation notice
pytestmark = pytest.mark.filterwarnings("ignore:Use 'content=<...>':DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "hf_kernelstrainNETtoken0123456789abcd"
HTML = Answer(200, {"Content-Type": "text/html"}, b"<!DOCTYPE html><html><body>Sign in to the Wi-Fi</body></html>")


def upload(folder: Path, *extra: str, token: str | None = TOKEN, sleeps: list | None = None) -> int:
    """The command in this process, on the real HfApi (pointed at the fake Hub); waits recorded, not slept."""
    return publish.main([str(folder), "--repo-id", "org/name", *extra], token=token,
                        sleep=(sleeps if sleeps is not None else []).append)


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kernelstrain upload: "), err
    return lines[0]


def test_push_end_to_end_then_nothing_to_send(tiny, hub_server, tmp_path, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    stage = tmp_path / "stage"
    assert upload(tiny, "--stage-dir", str(stage)) == 0
    staged = {p.relative_to(stage).as_posix(): p.read_bytes() for p in stage.rglob("*") if p.is_file()}
    assert hub_server.files == {**staged, "sessions.jsonl": (tiny / "sessions.jsonl").read_bytes()}
    assert hub_server.announced and all(hashlib.sha256(hub_server.files[path]).hexdigest() == oid
                                        for path, oid in hub_server.announced.items())
    assert {r.authorization for r in hub_server.requests if "/api/datasets/" in r.path} == {f"Bearer {TOKEN}"}
    commits = len(hub_server.commits)
    assert upload(tiny) == 0
    assert len(hub_server.commits) == commits
    out = capsys.readouterr()
    assert "the remote already has every file" in out.out
    assert TOKEN not in out.out + out.err + caplog.text


def test_merged_file_is_the_staged_shards_sent_with_their_sha256(tiny, hub_server, tmp_path):
    """sessions.jsonl is never staged, yet the Hub gets it: the bytes it receives are the staged shards
    concatenated (= the folder's file), sent through LFS under the sha256 of those very bytes."""
    stage = tmp_path / "stage"
    assert upload(tiny, "--stage-dir", str(stage)) == 0
    assert not (stage / "sessions.jsonl").exists()
    shards = b"".join(p.read_bytes() for p in sorted(stage.glob("batches/*.jsonl")))
    assert hub_server.files["sessions.jsonl"] == shards == (tiny / "sessions.jsonl").read_bytes()
    assert hub_server.announced["sessions.jsonl"] == hashlib.sha256(shards).hexdigest()


def test_with_xet_on_the_data_goes_to_xet_not_http(tiny, hub_server, monkeypatch, caplog):
    """Why the merged file is sent by path: huggingface_hub sends a commit holding a file object over plain HTTP
    LFS, every file of it (its warning: "Uploading files as a binary IO buffer is not supported by Xet Storage");
    with paths only it asks the Hub for a Xet write token. The fake Hub has no Xet, so the push fails (exit 5),
    but only after asking for Xet, never falling back to HTTP."""
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", False)
    caplog.set_level(logging.WARNING)
    assert upload(tiny) == hub.EXIT_NETWORK
    assert hub_server.count("GET", "/xet-write-token/") >= 1
    assert hub_server.count("PUT", "/fake-lfs/") == 0 and "binary IO buffer" not in caplog.text


def test_stalled_answer_ends_in_exit_5_within_the_budget(tiny, hub_server, tmp_path):
    """The real CLI in a subprocess, endpoint and budget from the environment; the fake Hub never answers the tree
    listing (which huggingface_hub requests with `timeout=None`: only our per-request timeouts end it)."""
    hub_server.fail("GET", "/tree/", Answer(stall=True))
    env = {**os.environ, "HF_ENDPOINT": hub_server.url, "HF_TOKEN": TOKEN, "HF_HOME": str(tmp_path / "hf"),
           "HF_HUB_OFFLINE": "0", "KERNELSTRAIN_HUB_READ_TIMEOUT": "1", "KERNELSTRAIN_HUB_RETRY_BUDGET": "1"}
    done = subprocess.run([sys.executable, "-m", "generator", "upload", str(tiny), "--repo-id", "org/name"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == hub.EXIT_NETWORK
    line = one_line_error(done.stderr)
    assert "no answer in time (ReadTimeout)" in line and "1 s retry budget" in line
    assert hub_server.count("GET", "/tree/") == 1                   # a retry would have passed the budget
    assert TOKEN not in done.stdout + done.stderr


def test_retry_after_is_honoured_once_per_attempt(tiny, hub_server, capsys):
    hub_server.fail("GET", "/tree/", Answer(429, {"Retry-After": "7"}, b'{"error": "slow down"}'))
    sleeps: list[float] = []
    assert upload(tiny, sleeps=sleeps) == hub.EXIT_NETWORK
    assert sleeps == [7.0] * (network.ATTEMPTS - 1)                  # ours only: no waits nested inside
    assert hub_server.count("GET", "/tree/") == network.ATTEMPTS
    assert "rate-limited (429); after 4 attempts" in one_line_error(capsys.readouterr().err)


@pytest.mark.parametrize("form", ["delay-seconds", "http-date"])
def test_retry_after_past_the_budget_ends_at_once(tiny, hub_server, capsys, form):
    """Either form of Retry-After: an hour's wait is past a 60 s budget, so no wait and no second request."""
    retry_after = "3600" if form == "delay-seconds" else formatdate(time.time() + 3600, usegmt=True)
    hub_server.fail("GET", "/tree/", Answer(429, {"Retry-After": retry_after}))
    sleeps: list[float] = []
    assert upload(tiny, "--retry-budget", "60", sleeps=sleeps) == hub.EXIT_NETWORK
    assert sleeps == [] and hub_server.count("GET", "/tree/") == 1
    assert "would pass the 60 s retry budget" in one_line_error(capsys.readouterr().err)


@pytest.mark.parametrize("method,path,answer,code,says", [
    ("GET", "/api/whoami-v2", Answer(401, {}, b'{"error": "Invalid credentials in Authorization header"}'),
     hub.EXIT_TOKEN, "rejected the token (401)"),
    ("POST", "/preupload/", Answer(403, {}, b'{"error": "You have read access but not the required permissions"}'),
     hub.EXIT_PERMISSION, "no write permission"),
    ("POST", "/preupload/", Answer(404, {"X-Error-Code": "RepoNotFound"}, b'{"error": "Repository not found"}'),
     hub.EXIT_PERMISSION, "not found"),
    ("GET", "/tree/", Answer(503, {}, b"<html>Service Unavailable</html>"), hub.EXIT_NETWORK, "unavailable (503)"),
    ("GET", "/api/whoami-v2", HTML, hub.EXIT_NETWORK, "not JSON"),
    ("GET", "/tree/", HTML, hub.EXIT_NETWORK, "not JSON"),
    ("POST", "/api/validate-yaml", Answer(400, {}, b'{"errors": [{"message": "bad configs"}]}'),
     hub.EXIT_INVALID, "refused the request (400)"),
])
def test_failures_map_to_their_exit_code_in_one_line(tiny, hub_server, capsys, method, path, answer, code, says):
    hub_server.fail(method, path, answer)
    assert upload(tiny) == code
    err = capsys.readouterr().err
    assert says in one_line_error(err) and "Traceback" not in err


def test_a_server_echoing_the_token_does_not_show_it(tiny, hub_server, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    hub_server.fail("POST", "/preupload/", Answer(403, {}, f'{{"error": "token {TOKEN} may not write"}}'.encode()))
    assert upload(tiny) == hub.EXIT_PERMISSION
    out = capsys.readouterr()
    assert "token *** may not write" in one_line_error(out.err)
    assert TOKEN not in out.out + out.err + caplog.text


def test_a_dry_run_does_not_show_an_echoed_token_either(tiny, hub_server, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    hub_server.fail("GET", "/tree/", Answer(403, {}, f'{{"error": "token {TOKEN} may not read"}}'.encode()))
    assert upload(tiny, "--dry-run") == 0                  # the plan is still shown, remote states unknown
    out = capsys.readouterr()
    assert "token *** may not read" in out.err and "states unknown" in out.err
    assert TOKEN not in out.out + out.err + caplog.text


@pytest.mark.parametrize("token", ["hf_caf\u00e9Token0123456789", "hf_two words", "hf_tab\there"])
def test_unsendable_token_is_refused_before_any_request(tiny, hub_server, capsys, token):
    assert upload(tiny, token=token) == hub.EXIT_TOKEN
    assert upload(tiny, "--dry-run", token=token) == hub.EXIT_TOKEN
    err = capsys.readouterr().err
    assert hub_server.requests == [] and "non-ASCII, space or control" in err and token not in err


@pytest.mark.parametrize("repo_id", ["org/my dataset", "org/na\u00efve", "org/name/extra", "org/-name", "org/a..b",
                                     "org/", "o" * 50 + "/" + "n" * 50])
def test_bad_repo_id_is_a_usage_error_before_any_request(tiny, hub_server, capsys, repo_id):
    assert publish.main([str(tiny), "--repo-id", repo_id], token=TOKEN) == hub.EXIT_USAGE
    assert hub_server.requests == [] and "--repo-id" in one_line_error(capsys.readouterr().err)


def test_offline_push_exits_5_at_once_and_dry_run_shows_unknown(tiny, hub_server, monkeypatch, capsys):
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    sleeps: list[float] = []
    assert upload(tiny, sleeps=sleeps) == hub.EXIT_NETWORK
    assert "offline mode" in one_line_error(capsys.readouterr().err)
    assert upload(tiny, "--dry-run", sleeps=sleeps) == 0
    out = capsys.readouterr()
    assert sleeps == [] and hub_server.requests == []
    assert "states unknown" in out.err and out.out.splitlines()[-1].startswith("plan: ")
    assert all(line.startswith(("staged ", "unknown ", "plan: ")) for line in out.out.splitlines())


def test_dry_run_without_network_shows_unknown(tiny, monkeypatch, capsys):
    """Nothing listens on the endpoint (connection refused): one look, no retry, every state unknown."""
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    sleeps: list[float] = []
    assert upload(tiny, "--dry-run", sleeps=sleeps) == 0
    out = capsys.readouterr()
    assert sleeps == [] and "network failure: ConnectError" in out.err and "unknown" in out.out.splitlines()[-1]


@pytest.mark.parametrize("option,env", [(("--read-timeout", "0"), {}),
                                        ((), {"KERNELSTRAIN_HUB_CONNECT_TIMEOUT": "soon"})])
def test_bad_timeout_settings_are_usage_errors(tiny, hub_server, monkeypatch, capsys, option, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert upload(tiny, *option) == hub.EXIT_USAGE
    assert "must be a positive number of seconds" in one_line_error(capsys.readouterr().err)
    assert hub_server.requests == []
