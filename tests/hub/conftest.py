"""The upload tests' local Hub (tests/hub/fakehub.py), with huggingface_hub pointed at it, and their smallest
folder."""
from __future__ import annotations

from pathlib import Path

import pytest
from fakehub import serving
from huggingface_hub import constants
from huggingface_hub.utils import disable_progress_bars


@pytest.fixture
def hub_server(monkeypatch):
    """A running FakeHub; huggingface_hub's endpoint points at it, offline mode and Xet off (the fake speaks LFS)
    and its LFS progress bars off (stderr then holds only what the command prints) for the test."""
    with disable_progress_bars(), serving() as hub:
        monkeypatch.setattr(constants, "ENDPOINT", hub.url)
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
        yield hub


@pytest.fixture(scope="session")
def tiny(tmp_path_factory, make_folder) -> Path:
    """A two-session kernelinfer folder without views: every upload of it costs little."""
    return make_folder("kernelinfer", tmp_path_factory.mktemp("net") / "kernelinfer", rows=2, holdout=1,
                       extra=("--no-views",))
