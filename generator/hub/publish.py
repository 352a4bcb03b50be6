"""Publish a generated dataset folder to a Hugging Face Hub dataset repo: `kernelstrain upload` (also
`python -m generator upload`, and `python upload.py` in a checkout).

Order: stage a Hub-ready copy (only the files the dataset layout defines, hard-linked: `generator.hub.stage`;
the card with YAML configs and dataset_info from the builders; schema/), validate the STAGED folder (refuse on any
problem), prove the folder's merged file is the staged shards concatenated (`generator.hub.merged`: it is sent from
the folder, never staged), then send only what the remote lacks.
Exit codes: 0 ok, 1 invalid data (or the Hub refused it), 2 usage, 3 missing/invalid token, 4 no permission,
5 network failure after retries.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from generator.hub import client as hub, network, preflight
from generator.hub.merged import merged_file
from generator.hub.stage import StageError, Staged, disk_bytes, select, stage as link_stage
from generator.dataset import Dataset
from generator.layout import HOLDOUT_FILE, PARQUET_DIR, PLOT_DIR, QA_DIR, SHARD_DIR, STATS_FILE, VIEW_DIR
from generator.registry import DATASETS
from generator.write.card import render_staged_card
from generator.check.schemas import SCHEMA_DIR
from generator.check.validate import InputError, validate_paths

DATA_DIRS = (SHARD_DIR, QA_DIR, VIEW_DIR, PARQUET_DIR, PLOT_DIR)   # the layout's folders (generator.hub.stage)
MAX_FINDINGS = 200   # enough to see what is wrong; the validator CLI lists them all


class UsageError(Exception):
    pass


EPILOG = ("Only the files the dataset layout defines are staged (any other file, or a symlink, is refused);\n"
          "the staged folder is validated before anything is sent (no way to skip it). Token: HF_TOKEN or the saved `hf auth login`; it is\n"
          "never printed or staged. A rerun sends only what the remote lacks (resume), nothing when unchanged.\n"
          "Every request has connect/read timeouts; a failing call is retried (backoff or Retry-After) within the\n"
          "retry budget, then ends with exit 5. HF_HUB_OFFLINE=1: a push exits 5 at once, --dry-run shows remote\n"
          "states as unknown.\n"
          "Exit codes: 0 ok, 1 invalid data or refused by the Hub, 2 usage, 3 missing/invalid token,\n"
          "4 no permission on the repo (or not found), 5 network failure after retries.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options, on `p` (the `upload` subcommand of `python -m generator`, or upload.py's own parser)."""
    p.description, p.epilog = __doc__.split("\n\n")[0], EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("folder", type=Path, help="a folder written by `python -m generator kernelinfer|kernelswarm`")
    p.add_argument("--repo-id", required=True, help="Hub dataset repo, ORG/NAME (created if missing)")
    p.add_argument("--private", action="store_true", help="create the repo private (no effect if it exists)")
    p.add_argument("--revision", help="branch (created if missing) or refs/pr/N to push to; default main")
    p.add_argument("--create-pr", action="store_true", help="open a pull request instead of committing to the branch")
    p.add_argument("--dry-run", action="store_true",
                   help="validate and stage, print each file (path, size, sha256, new/changed/unchanged) and stop")
    p.add_argument("--no-merged", dest="merged", action="store_false",
                   help="leave out the merged sessions.jsonl / episodes.jsonl (the shards concatenated: never "
                        "staged, sent from the folder once proven equal to the staged shards; Xet deduplicates "
                        "its chunks against the shards', so it costs little to send); one already on the Hub is "
                        "deleted, as it would no longer be these shards")
    p.add_argument("--commit-message", default=None, help="commit message (default: 'Upload <dataset>')")
    p.add_argument("--stage-dir", type=Path, help="keep the staged folder here (must not exist; on the folder's file "
                   "system, or files are copied instead of hard-linked) instead of a temporary one beside the folder")
    network.add_arguments(p)


def check_args(args: argparse.Namespace) -> None:
    """What argparse cannot check; raises UsageError."""
    if problem := preflight.repo_id_problem(args.repo_id):
        raise UsageError(f"--repo-id {problem}, got {args.repo_id!r}")
    if args.create_pr and args.revision:
        raise UsageError("--create-pr opens a new PR from main; to add to an existing PR use --revision refs/pr/N")
    if args.stage_dir and args.stage_dir.exists():
        raise UsageError(f"--stage-dir {args.stage_dir} exists; pass a new path")


def parse_args(argv: list[str] | None, prog: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=prog)
    add_arguments(p)
    return p.parse_args(argv)


def dataset_of(folder: Path) -> Dataset:
    """Which dataset a folder holds, from its merged file (sessions.jsonl or episodes.jsonl)."""
    found = [d for d in DATASETS.values() if (folder / d.merged_file).is_file()]
    if len(found) != 1:
        merged = ", ".join(d.merged_file for d in DATASETS.values())
        raise UsageError(f"{folder}: not a generated dataset folder (expected exactly one of {merged})")
    return found[0]


def validate(staged: Path) -> bool:
    """The project's validator on the staged folder (what would be sent); print its findings; True when valid."""

    try:
        report = validate_paths([str(staged)], max_errors=MAX_FINDINGS)
    except InputError as e:
        raise UsageError(str(e)) from None
    if report.ok:
        return True
    for finding in report.findings:
        print(finding, file=sys.stderr)
    print(f"{staged}: {report.summary()}; nothing sent", file=sys.stderr)
    return False


def stage(folder: Path, dataset: Dataset, out: Path, *, repo_id: str,
          merged: bool = True) -> tuple[Staged, list[hub.LocalFile], hub.LocalFile | None] | None:
    """Assemble the Hub-ready folder at `out` (must not exist): the layout's files hard-linked, the card (for
    `repo_id`) and schemas written; built under a temporary name and renamed only when the validator passes it
    (None when not: nothing left behind). StageError when the folder holds files the layout does not define, or
    (`merged`) when its merged file is not the staged shards concatenated. Returns the stage, its files hashed
    (each read once, for the plan and the merged file's check) and, with `merged`, the folder's merged file as sent
    beside it (never staged: `generator.hub.merged`).

    Never stages a `.py` file: datasets refuses a repo that holds `<repo_name>.py` (no loading scripts)."""
    rels = select(folder, dataset)
    work = out.with_name(f".{out.name}.partial")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    schemas = {f"schema/{p.name}": p.read_bytes()               # package data: not always a file system
               for p in sorted(SCHEMA_DIR.iterdir(), key=lambda p: p.name) if p.name.endswith(".schema.json")}
    try:
        staged = link_stage(folder, work, rels, schemas)
        shard_bytes = sum((work / rel).stat().st_size for rel in rels if rel.startswith(f"{SHARD_DIR}/"))
        card = staged_card(work, dataset, repo_id, shard_bytes if merged else None)
        if card is not None:
            (work / hub.CARD).write_bytes(card)
            staged = replace(staged, files=staged.files + 1, copied_bytes=staged.copied_bytes + len(card))
        if not validate(work):          # also says what made the card unwritable (stats.json, the first row)
            shutil.rmtree(work, ignore_errors=True)
            return None
        if card is None:
            print(f"{folder}: cannot write the card from stats.json and the first row; nothing sent", file=sys.stderr)
            shutil.rmtree(work, ignore_errors=True)
            return None
        files = hub.local_files(work)
        shards = [f for f in files if f.path.startswith(f"{SHARD_DIR}/")]
        sent_beside = merged_file(folder, shards, dataset) if merged else None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)   # never leave a partial stage behind
        raise
    work.rename(out)
    return staged, [replace(f, file=out / f.path) for f in files], sent_beside


def staged_card(work: Path, dataset: Dataset, repo_id: str, merged_bytes: int | None) -> bytes | None:
    """The staged folder's card for `repo_id` (sizes of the files as staged, and of the merged file sent beside
    them), or None when its stats.json or first row cannot be read: files from outside, which the validator then
    reports line by line."""
    try:
        return render_staged_card(work, dataset, repo_id=repo_id, merged_bytes=merged_bytes).encode()
    except (OSError, ValueError, TypeError, AttributeError, KeyError):
        return None


def managed(dataset: Dataset) -> Callable[[str], bool]:
    """Remote paths the stage owns: stale ones (e.g. a shard of an earlier, larger run) are deleted."""
    names = {dataset.merged_file, HOLDOUT_FILE, STATS_FILE, hub.CARD}
    prefixes = tuple(f"{d}/" for d in (*DATA_DIRS, "schema"))
    return lambda path: path in names or path.startswith(prefixes)


def print_plan(plan: list[hub.PlanEntry], merged: hub.LocalFile | None) -> None:
    """One line per file, then the summary: counts, the bytes to send, and how many of them are the `merged` file,
    sent from the folder (not staged), whose chunks Xet has from the shards (deduplicated, not sent again)."""
    for e in plan:
        print(f"{e.state:9} {e.size:>14,} {e.sha256 or '-':64} {e.path}")
    counts = {s: sum(e.state == s for e in plan) for s in ("new", "changed", "unchanged", "delete", "unknown")}
    outgoing = [e for e in plan if e.state in ("new", "changed", "unknown")]
    sending = sum(e.size for e in outgoing)
    dedup = sum(e.size for e in outgoing if merged and e.path == merged.path)
    print("plan: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n) + f"; up to {sending / 1e6:,.1f} MB to send"
          + (f", of which {dedup / 1e6:,.1f} MB ({merged.path}, sent from {merged.file}, not staged) repeat the "
             f"shards' chunks: Xet dedup does not re-send them (~{(sending - dedup) / 1e6:,.1f} MB on the wire, "
             "plus the chunks that span a join of two shards)" if dedup else ""))


def print_staged(staged: Staged, where: Path, dataset: Dataset, merged: hub.LocalFile | None) -> None:
    """What the stage holds on disk (each inode once: the folder's files linked, the few written), and the merged
    file sent beside it."""
    print(f"staged {dataset.name} in {where}: {staged.files} files, {staged.linked} hard links, "
          f"{staged.copied_bytes / 1e6:,.1f} MB written; {disk_bytes(where) / 1e6:,.1f} MB on disk (a link counts once)"
          + (f"; {merged.path} ({merged.size / 1e6:,.1f} MB) not staged: {merged.file} is the staged shards "
             "concatenated (same sha256), sent from there" if merged else ""))


def redact(text: str, token: str | None) -> str:
    """`text` with the token replaced by `***` (a server may echo it back in an error)."""
    return text.replace(token, "***") if token else text


def token_from_env() -> str | None:
    from huggingface_hub import get_token

    return get_token()


def stage_parent(folder: Path) -> tempfile.TemporaryDirectory:
    """A temporary folder beside `folder` (its file system: the stage is then hard links), else in the system's
    temporary folder (a read-only parent: the stage is then copies)."""
    try:
        return tempfile.TemporaryDirectory(prefix=f".{folder.name}.stage-", dir=folder.resolve().parent)
    except OSError:
        return tempfile.TemporaryDirectory(prefix="kernelstrain-stage-")


def publish(args: argparse.Namespace, api_factory, token: str | None, retry: network.Retry, prog: str) -> int:
    """Stage, validate the stage, then plan (--dry-run) or send; the exit code."""
    folder = args.folder
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such folder")
    preflight.check_token(token)
    if not args.dry_run:
        preflight.check_online()
    dataset = dataset_of(folder)
    if not args.dry_run and not token:
        raise hub.HubError("no Hub token: set HF_TOKEN or run `hf auth login`", hub.EXIT_TOKEN)
    with stage_parent(folder) as tmp:
        stage_dir = args.stage_dir or Path(tmp) / dataset.name
        try:
            made = stage(folder, dataset, stage_dir, repo_id=args.repo_id, merged=args.merged)
        except StageError as error:
            print(f"{prog.removeprefix('python ')}: {error}", file=sys.stderr)
            return hub.EXIT_INVALID
        if made is None:
            return hub.EXIT_INVALID
        staged, files, merged = made
        print_staged(staged, stage_dir, dataset, merged)
        api = api_factory(token=token)
        local = sorted(files + ([merged] if merged else []), key=lambda f: f.path)
        if args.dry_run:
            try:
                remote = hub.remote_files(api, args.repo_id, args.revision, retry=retry.once())
            except hub.HubError as error:
                print(f"remote not readable ({redact(str(error), token)}); states unknown", file=sys.stderr)
                remote = None
            print_plan(hub.make_plan(local, remote, managed(dataset)), merged)
            return 0
        retry.call(api.whoami)
        retry.call(api.create_repo, args.repo_id, repo_type=hub.REPO_TYPE, private=args.private, exist_ok=True)
        if args.revision and not args.revision.startswith("refs/pr/"):
            retry.call(api.create_branch, args.repo_id, branch=args.revision, repo_type=hub.REPO_TYPE, exist_ok=True)
        plan = hub.make_plan(local, hub.remote_files(api, args.repo_id, args.revision, retry=retry), managed(dataset))
        print_plan(plan, merged)
        urls = hub.push(api, plan, repo_id=args.repo_id, revision=args.revision, create_pr=args.create_pr,
                        message=args.commit_message or f"Upload {dataset.name}", retry=retry, log=print)
        print(f"{len(urls)} commit(s)" + ("" if urls else ": the remote already has every file"))
    return 0


def main(argv: list[str] | None = None, *, api_factory=None, token: str | None = None,
         sleep: Callable[[float], None] = time.sleep, prog: str = "kernelstrain upload") -> int:
    """CLI entry; `api_factory(token=...)` builds the Hub client (an `HfApi` unless a test passes a fake)."""
    try:
        args = parse_args(argv, prog)
    except SystemExit as e:  # argparse printed the usage error (or the help, code 0)
        if e.code:
            return hub.EXIT_USAGE
        raise
    return run(args, api_factory=api_factory, token=token, sleep=sleep, prog=prog)


def run(args: argparse.Namespace, *, api_factory=None, token: str | None = None,
        sleep: Callable[[float], None] = time.sleep, prog: str = "kernelstrain upload") -> int:
    """The command on parsed options (`python -m generator upload` calls it as is); errors become one line (the
    token, should a server echo it, replaced) and their exit code. The token is `token`, else HF_TOKEN or the saved
    login. huggingface_hub gets this command's timeouts and no retries of its own (`network.install`)."""
    if api_factory is None:
        from huggingface_hub import HfApi as api_factory
    token = token if token is not None else token_from_env()
    try:
        check_args(args)
        settings = network.settings(args)
        network.install(settings)
        return publish(args, api_factory, token, network.Retry(settings.retry_budget, sleep=sleep), prog)
    except (UsageError, network.SettingError, hub.HubError) as e:
        print(f"{prog.removeprefix('python ')}: {redact(str(e), token)}", file=sys.stderr)
        return getattr(e, "exit_code", hub.EXIT_USAGE)
