"""What the upload command checks before it sends any request: the repo id, the token and offline mode.

Why: a repo id with a space or a non-ASCII token used to reach huggingface_hub/httpx and end in a traceback (exit 1),
and offline mode in 7 s of retries; checked here they end at once in one line with the documented exit code.
Repo ids follow the Hub's own rule (huggingface_hub `validate_repo_id`, ASCII only): `ORG/NAME`, each part
letters, digits, `-`, `_`, `.`, starting and ending with a letter or digit, no `--` or `..`, at most 96 characters.
"""
from __future__ import annotations

import re

from huggingface_hub import constants

from generator.hub.client import EXIT_NETWORK, EXIT_TOKEN, HubError

REPO_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
REPO_ID = re.compile(rf"{REPO_PART}/{REPO_PART}")
MAX_REPO_ID = 96


def repo_id_problem(repo_id: str) -> str | None:
    """Why `repo_id` is not a Hub dataset repo id (ORG/NAME), or None when it is one."""
    if not REPO_ID.fullmatch(repo_id):
        return ("must be ORG/NAME: ASCII letters, digits, '-', '_', '.', each part starting and ending with a "
                "letter or digit")
    if "--" in repo_id or ".." in repo_id:
        return "must not contain '--' or '..'"
    if len(repo_id) > MAX_REPO_ID:
        return f"must be at most {MAX_REPO_ID} characters"
    return None


def check_token(token: str | None) -> None:
    """A token that cannot go into an HTTP header (non-ASCII, space, control character) is refused here, never
    echoed: raises HubError (exit 3)."""
    if token and not (token.isascii() and token.isprintable() and " " not in token):
        raise HubError("the Hub token (HF_TOKEN or the saved login) holds non-ASCII, space or control characters; "
                       "copy it again from https://huggingface.co/settings/tokens", EXIT_TOKEN)


def check_online() -> None:
    """A push in offline mode (HF_HUB_OFFLINE=1) ends at once: raises HubError (exit 5)."""
    if constants.HF_HUB_OFFLINE:
        raise HubError("offline mode is on (HF_HUB_OFFLINE): nothing can be pushed; unset it, or use --dry-run",
                       EXIT_NETWORK)
