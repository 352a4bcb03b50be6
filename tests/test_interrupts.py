"""Ctrl-C is exit 130 with one line even when a C extension turns the KeyboardInterrupt into another exception
(matplotlib's Agg renderer reports it as `ValueError: Invalid bounding box`; CI met it while the plots rendered)."""
import argparse
import signal

import pytest

from generator import __main__ as cli
from generator.registry import DATASETS
from generator.write import generate


def _ctrl_c_seen_as_value_error(*_args):
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        raise ValueError("Invalid bounding box") from None
    return 0


@pytest.fixture
def sigint_restored():
    before = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, before)


def test_the_entry_point_reports_a_ctrl_c_a_c_extension_disguised(monkeypatch, capsys, sigint_restored):
    monkeypatch.setattr(cli, "_main", _ctrl_c_seen_as_value_error)
    assert cli.main([]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_generation_reports_it_with_the_folder_left_unchanged(monkeypatch, capsys, tmp_path, sigint_restored):
    monkeypatch.setattr(generate, "_run", _ctrl_c_seen_as_value_error)
    cli.interrupts.install()
    args = argparse.Namespace(out=tmp_path / "kernelinfer")
    assert generate.run(DATASETS["kernelinfer"], args) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted" in err and "is unchanged" in err


def test_an_error_without_a_ctrl_c_is_not_hidden(monkeypatch, sigint_restored):
    def broken(_argv):
        raise ValueError("a real bug")
    monkeypatch.setattr(cli, "_main", broken)
    with pytest.raises(ValueError, match="a real bug"):
        cli.main([])
