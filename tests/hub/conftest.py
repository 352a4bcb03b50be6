"""The upload tests' local Hub (tests/hub/fakehub.py), with huggingface_hub pointed at it."""
from __future__ import annotations

import pytest
from fakehub import serving
from huggingface_hub import constants


@pytest.fixture
def hub_server(monkeypatch):
    """A running FakeHub; huggingface_hub's endpoint points at it (and offline mode is off) for the test."""
    with serving() as hub:
        monkeypatch.setattr(constants, "ENDPOINT", hub.url)
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        yield hub
