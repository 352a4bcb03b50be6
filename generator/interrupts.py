"""Ctrl-C that always reads as Ctrl-C: a SIGINT handler that remembers it fired.

Python raises KeyboardInterrupt from its SIGINT handler, but C extensions that call back into Python can turn that
exception into one of their own (matplotlib's Agg renderer reports it as `ValueError: Invalid bounding box`), so
a Ctrl-C while the plots render would end in a traceback and exit 1. With `install()` active, the command's top
level asks `received()` and reports any exception raised after a Ctrl-C as the interruption it is (exit 130).
"""
from __future__ import annotations

import signal
import threading

_received = False


def _on_sigint(signum, frame):
    global _received
    _received = True
    raise KeyboardInterrupt


def install() -> None:
    """Use the remembering handler; only the main thread can set one, and elsewhere the default stays."""
    global _received
    _received = False
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


def received() -> bool:
    """Whether a Ctrl-C arrived since `install()`."""
    return _received


def is_interruption(exc: BaseException) -> bool:
    """A KeyboardInterrupt, or any exception raised after a Ctrl-C (one a C extension made of it)."""
    return isinstance(exc, KeyboardInterrupt) or (_received and isinstance(exc, Exception))
