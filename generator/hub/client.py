"""The thin boundary to the Hub: what the remote already has, what to send, and sending it resumably.

Everything that talks to the Hub goes through an `HfApi`-like object passed in (tests pass a recording fake),
using only `create_repo`, `create_branch`, `list_repo_tree`, `create_commit` and `whoami`, each call through the
one retry layer (`generator.hub.network.Retry`); `classify` maps every failure to the CLI's exit code. A plan
compares each staged file with the remote's copy (LFS sha256, or git blob id for small files), so a rerun sends
only what the remote lacks (resume after an interruption) and nothing when nothing changed. Data goes first, in commits
of bounded size; the card (whose YAML `configs` point at the data) goes last, so a half-finished upload never
advertises files that are not there yet.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Callable, Iterable, Protocol

import huggingface_hub
from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled, RepositoryNotFoundError, RevisionNotFoundError


class Retry(Protocol):
    """What every Hub call goes through: `generator.hub.network.Retry` (timeouts, the one retry layer). A protocol,
    so this module need not import the one that imports it."""

    def call(self, fn: Callable, *args, **kwargs): ...


REPO_TYPE = "dataset"
CARD = "README.md"
MAX_FILES_PER_COMMIT = 50
MAX_BYTES_PER_COMMIT = 1 << 30
RETRY_STATUS = (408, 429, 500, 502, 503, 504)   # worth another attempt: timeouts, rate limits, server errors
EXIT_INVALID, EXIT_USAGE, EXIT_TOKEN, EXIT_PERMISSION, EXIT_NETWORK = 1, 2, 3, 4, 5

# The HTTP library huggingface_hub talks through, whose transport errors (connection, timeout) mean "network":
# httpx for huggingface_hub 1.x, its fork httpx2 from 2.0 on. Named by the installed version, so the failures
# caught are the ones raised, whichever the dependency bounds let pip pick.
TRANSPORT = importlib.import_module("httpx" if huggingface_hub.__version__.startswith("1.") else "httpx2")


class HubError(Exception):
    """A Hub failure with the CLI exit code it maps to (3 token, 4 permission, 5 network, 1 refused), whether
    another attempt may help, and how long the server asked to wait first (`Retry-After`)."""

    def __init__(self, message: str, exit_code: int, *, retryable: bool = False, retry_after: float | None = None):
        super().__init__(message)
        self.exit_code, self.retryable, self.retry_after = exit_code, retryable, retry_after

    def giving_up(self, why: str) -> "HubError":
        return HubError(f"{self}; {why}", self.exit_code)


@dataclass(frozen=True)
class LocalFile:
    path: str        # path in the repo, POSIX
    size: int
    sha256: str
    file: Path       # the file sent: staged, or the folder's merged file (generator.hub.merged)

    def git_oid(self) -> str:
        """Git blob id, what the Hub reports for files not stored in LFS. Made on demand: only a remote non-LFS
        file of the same size needs it, so a dry run or push reads the data once (sha256), not twice."""
        git = hashlib.sha1(f"blob {self.size}\0".encode())
        with open(self.file, "rb") as f:
            while chunk := f.read(8 << 20):
                git.update(chunk)
        return git.hexdigest()


@dataclass(frozen=True)
class PlanEntry:
    path: str
    size: int
    sha256: str
    state: str       # new | changed | unchanged | delete | unknown (remote not readable)
    file: Path | None = None   # what is sent (None for a deletion)


def sha256_of(paths: Iterable[Path]) -> tuple[int, str]:
    """(size, sha256) of the files read one after another, streamed (files can be hundreds of MB)."""
    sha, size = hashlib.sha256(), 0
    for path in paths:
        with open(path, "rb") as f:
            while chunk := f.read(8 << 20):
                sha.update(chunk)
                size += len(chunk)
    return size, sha.hexdigest()


def local_files(stage: Path) -> list[LocalFile]:
    """Every file of the stage, in path order (the order of the plan and of the commits)."""
    rels = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if p.is_file())
    return [LocalFile(rel, *sha256_of([stage / rel]), stage / rel) for rel in rels]


def retry_after(headers) -> float | None:
    """Seconds the server asks to wait (`Retry-After`: delay-seconds or an HTTP-date), None when absent/unreadable."""
    value = (headers.get("retry-after") or "").strip()
    if value.isdigit():
        return float(value)
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError):
        return None


def server_detail(exc: HfHubHTTPError) -> str:
    """The first line of the server's own message, cut short (the CLI prints one line)."""
    lines = (exc.server_message or "").strip().splitlines()
    return f": {lines[0][:200]}" if lines else ""


def classify(exc: BaseException) -> HubError | None:
    """Map a Hub/network exception to a HubError, or None when it is not a Hub failure."""
    if isinstance(exc, HubError):
        return exc
    if isinstance(exc, OfflineModeIsEnabled):   # a ConnectionError, but no retry can help
        return HubError("offline mode is on (HF_HUB_OFFLINE): the Hub cannot be reached", EXIT_NETWORK)
    if isinstance(exc, HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else None
        if status == 401 and not isinstance(exc, RepositoryNotFoundError):
            return HubError("the Hub rejected the token (401): log in again or set HF_TOKEN", EXIT_TOKEN)
        if status in (401, 404) or isinstance(exc, RepositoryNotFoundError):
            return HubError(f"repository not found, or not visible with this token ({status})", EXIT_PERMISSION)
        if status == 403:
            return HubError(f"no write permission on the repository (403){server_detail(exc)}", EXIT_PERMISSION)
        if status in RETRY_STATUS:
            what = "rate-limited" if status == 429 else "unavailable"
            return HubError(f"the Hub is {what} ({status})", EXIT_NETWORK, retryable=True,
                            retry_after=retry_after(exc.response.headers))
        return HubError(f"the Hub refused the request ({status}){server_detail(exc)}", EXIT_INVALID)
    if isinstance(exc.__cause__, HfHubHTTPError):   # e.g. a 400 from validate-yaml re-raised as ValueError
        return classify(exc.__cause__)
    if isinstance(exc, json.JSONDecodeError):   # what huggingface_hub raises when a 200 answer is an HTML page
        return HubError("the Hub's answer is not JSON (an HTML page from a proxy or a captive portal?)", EXIT_NETWORK)
    if isinstance(exc, TRANSPORT.TimeoutException):
        return HubError(f"network failure: no answer in time ({type(exc).__name__})", EXIT_NETWORK, retryable=True)
    if isinstance(exc, (TRANSPORT.TransportError, ConnectionError, TimeoutError)):
        return HubError(f"network failure: {type(exc).__name__}", EXIT_NETWORK, retryable=True)
    return None


def remote_files(api, repo_id: str, revision: str | None, *, retry: Retry) -> dict:
    """path -> RepoFile of the remote revision; empty when the repo or the revision does not exist yet."""

    def tree() -> dict:
        try:
            entries = api.list_repo_tree(repo_id, recursive=True, repo_type=REPO_TYPE, revision=revision)
            return {f.path: f for f in entries if hasattr(f, "blob_id")}
        except (RepositoryNotFoundError, RevisionNotFoundError):
            return {}

    return retry.call(tree)


def same(local: LocalFile, remote) -> bool:
    """Whether the remote copy has the staged bytes: same size, then LFS files by sha256, regular git files by
    blob id."""
    if remote.size != local.size:
        return False
    lfs = getattr(remote, "lfs", None)
    if lfs is not None:
        return lfs.sha256 == local.sha256
    return remote.blob_id == local.git_oid()


def make_plan(local: Iterable[LocalFile], remote: dict | None, managed: Callable[[str], bool]) -> list[PlanEntry]:
    """new/changed/unchanged per staged file (unknown when `remote` is None: it could not be read), plus
    `delete` for remote files under the paths the stage manages that the stage no longer has."""
    entries, staged = [], set()
    for f in local:
        staged.add(f.path)
        if remote is None:
            state = "unknown"
        elif f.path not in remote:
            state = "new"
        else:
            state = "unchanged" if same(f, remote[f.path]) else "changed"
        entries.append(PlanEntry(f.path, f.size, f.sha256, state, f.file))
    for path in sorted(remote or {}):
        if path not in staged and managed(path):
            entries.append(PlanEntry(path, remote[path].size, "", "delete"))
    return entries


def commit_batches(plan: list[PlanEntry]) -> list[list[PlanEntry]]:
    """Data additions in bounded commits, then one last commit with the card and the deletions."""
    sending = [e for e in plan if e.state in ("new", "changed") and e.path != CARD]
    batches: list[list[PlanEntry]] = []
    size = 0
    for entry in sending:
        if not batches or len(batches[-1]) >= MAX_FILES_PER_COMMIT or size + entry.size > MAX_BYTES_PER_COMMIT:
            batches.append([])
            size = 0
        batches[-1].append(entry)
        size += entry.size
    last = [e for e in plan if (e.path == CARD and e.state != "unchanged") or e.state == "delete"]
    return batches + ([last] if last else [])


def _addition(entry: PlanEntry) -> CommitOperationAdd:
    """The commit operation of a file to send; huggingface_hub hashes it here, and announces that sha256."""
    op = CommitOperationAdd(path_in_repo=entry.path, path_or_fileobj=str(entry.file))
    if op.upload_info.sha256.hex() != entry.sha256:
        raise HubError(f"{entry.file}: changed since it was validated and planned (sha256 {entry.sha256[:12]}..., "
                       f"now {op.upload_info.sha256.hex()[:12]}...); nothing of it sent", EXIT_INVALID)
    return op


def push(api, plan: list[PlanEntry], *, repo_id: str, revision: str | None, create_pr: bool,
         message: str, retry: Retry, log: Callable[[str], None]) -> list[str]:
    """Send what the plan says in as many commits as needed; return the commit (or PR) URLs. A file whose bytes
    are no longer those the plan hashed (changed on disk since) is a HubError, before its commit."""
    batches = commit_batches(plan)
    urls = []
    for i, batch in enumerate(batches, 1):
        operations = [CommitOperationDelete(path_in_repo=e.path) if e.state == "delete" else _addition(e)
                      for e in batch]
        title = message if len(batches) == 1 else f"{message} ({i}/{len(batches)})"
        info = retry.call(api.create_commit, repo_id, operations, commit_message=title, repo_type=REPO_TYPE,
                          revision=revision, create_pr=create_pr)
        url = info.pr_url if create_pr and info.pr_url else info.commit_url
        urls.append(url)
        log(f"committed {len(batch)} file(s): {url}")
        if create_pr:  # later commits go onto the PR the first one opened
            revision, create_pr = info.pr_revision, False
    return urls
