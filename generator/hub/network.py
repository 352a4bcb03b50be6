"""Network discipline for every Hub request: explicit timeouts and one retry layer with a bounded total time.

Why this module exists: huggingface_hub 2.4 sends through one shared httpx2 client built with `timeout=None`, and
some callers pass `timeout=None` per request (`utils/_pagination.py`, behind `list_repo_tree`), so a stalled
answer waits forever. It also retries by itself inside `http_backoff` (5 retries of 408/429/5xx and transport
errors, sleeping whatever `Retry-After` says, unbounded) for some requests (tree listing, LFS, preupload) and not
for others (whoami, create_repo, the commit POST); with our own retries around whole calls, a 429 with
`Retry-After: 60` waited ~20 minutes. So, for the upload command:

- `install(settings)` gives huggingface_hub a client whose request hook sets connect/read/write/pool timeouts
  on every request, whatever the caller passed, and sets huggingface_hub's own retries to 0
  (`http_backoff`'s `max_retries` default): the only retry layer left is `Retry.call`.
- `Retry.call` retries one whole Hub call on network failures, 408, 429 and 5xx: exponential backoff (1, 2, 4 s)
  or the server's `Retry-After`, at most `attempts` attempts, and never a wait that would end past the retry
  budget (a `Retry-After` longer than what is left ends the call at once). A failing call so ends within
  budget + one request's timeouts.

Settings come from the options (`--connect-timeout`, `--read-timeout`, `--retry-budget`), else the environment
(`KERNELSTRAIN_HUB_CONNECT_TIMEOUT`, `..._READ_TIMEOUT`, `..._RETRY_BUDGET`), else the defaults below.
hf_xet (Xet storage uploads of large files) runs its own Rust HTTP stack with its own retries; it is not covered.
"""
from __future__ import annotations

import argparse
import logging
import os
import time
from dataclasses import dataclass, replace
from typing import Callable

from generator.hub.client import TRANSPORT, classify

DEFAULTS = {"connect_timeout": 10.0, "read_timeout": 60.0, "retry_budget": 120.0}
ENV = {name: f"KERNELSTRAIN_HUB_{name.upper()}" for name in DEFAULTS}
ATTEMPTS = 4          # attempts of one call (so at most 3 waits), within the retry budget


def no_backoff_chatter(record: logging.LogRecord) -> bool:
    """Drops huggingface_hub's "HTTP Error 429 thrown while requesting ..." lines: with its retries off they
    announce retries that never happen; the CLI prints its own one line."""
    return record.funcName not in ("_should_retry", "_http_backoff_base")


class SettingError(ValueError):
    """A timeout or budget that is not a positive number (from an option or the environment)."""


@dataclass(frozen=True)
class Settings:
    connect_timeout: float
    read_timeout: float
    retry_budget: float

    def timeouts(self) -> dict:
        """httpx's per-request timeout extension: connect (and pool) vs read (and write, a stalled upload)."""
        return {"connect": self.connect_timeout, "pool": self.connect_timeout,
                "read": self.read_timeout, "write": self.read_timeout}


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The network options of the upload command."""
    p.add_argument("--connect-timeout", type=float, metavar="S",
                   help=f"seconds to connect to the Hub (${ENV['connect_timeout']}; default "
                        f"{DEFAULTS['connect_timeout']:g})")
    p.add_argument("--read-timeout", type=float, metavar="S",
                   help=f"seconds a request may wait for the Hub's next bytes (${ENV['read_timeout']}; default "
                        f"{DEFAULTS['read_timeout']:g})")
    p.add_argument("--retry-budget", type=float, metavar="S",
                   help=f"seconds one Hub call may spend retrying, Retry-After waits included "
                        f"(${ENV['retry_budget']}; default {DEFAULTS['retry_budget']:g})")


def settings(args: argparse.Namespace, environ=os.environ) -> Settings:
    """Each setting from its option, else its environment variable, else the default; SettingError if not > 0."""
    values = {}
    for name, default in DEFAULTS.items():
        given, where = getattr(args, name, None), f"--{name.replace('_', '-')}"
        if given is None and environ.get(ENV[name]):
            given, where = environ[ENV[name]], ENV[name]
        try:
            value = float(default if given is None else given)
        except ValueError:
            value = float("nan")
        if not value > 0 or value == float("inf"):
            raise SettingError(f"{where} must be a positive number of seconds, got {given!r}")
        values[name] = value
    return Settings(**values)


def install(settings: Settings) -> None:
    """Make huggingface_hub's shared client enforce `settings`' timeouts, and switch its own retries off."""
    from huggingface_hub import set_client_factory
    from huggingface_hub.utils import _http   # the default hook (offline mode, request id) and the backoff helpers

    timeouts = settings.timeouts()

    def enforce_timeouts(request) -> None:
        request.extensions["timeout"] = timeouts   # overrides a caller's timeout=None

    def client_factory():
        return TRANSPORT.Client(event_hooks={"request": [_http.hf_request_event_hook, enforce_timeouts]},
                                follow_redirects=True, timeout=TRANSPORT.Timeout(**timeouts))

    set_client_factory(client_factory)
    logging.getLogger(_http.__name__).addFilter(no_backoff_chatter)   # added once: addFilter skips a duplicate
    for backoff in (_http.http_backoff, _http.http_stream_backoff):   # the latter wrapped by @contextmanager
        getattr(backoff, "__wrapped__", backoff).__kwdefaults__["max_retries"] = 0


@dataclass
class Retry:
    """The one retry layer: `call(fn, ...)` runs one Hub call, retrying what `classify` marks retryable."""
    budget: float = DEFAULTS["retry_budget"]
    attempts: int = ATTEMPTS
    sleep: Callable[[float], None] = time.sleep

    def once(self) -> "Retry":
        """The same layer with a single attempt (a dry run's look at the remote: no waiting for a plan)."""
        return replace(self, attempts=1)

    def call(self, fn: Callable, *args, **kwargs):
        """fn(*args, **kwargs); a HubError (or fn's own exception when it is no Hub failure) once it gives up."""
        deadline = time.monotonic() + self.budget
        for attempt in range(1, self.attempts + 1):
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - every failure is classified or re-raised
                error = classify(exc)
                if error is None:
                    raise
                if not error.retryable:
                    raise error from None
                if attempt == self.attempts:
                    raise (error.giving_up(f"after {attempt} attempts") if attempt > 1 else error) from None
                wait = error.retry_after if error.retry_after is not None else 2.0 ** (attempt - 1)
                left = deadline - time.monotonic()
                if wait > left:
                    raise error.giving_up(f"a retry in {wait:g} s would pass the {self.budget:g} s retry budget "
                                          f"({max(left, 0):.0f} s left) after {attempt} attempt(s)") from None
                self.sleep(wait)
        raise AssertionError("unreachable")
