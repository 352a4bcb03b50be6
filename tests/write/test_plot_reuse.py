"""A rerun keeps the finished folder's PNGs when their inputs' digest is unchanged, and draws the others: the plots'
bytes are the same either way."""
from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from generator.write import plots


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def count_draws(monkeypatch) -> list[str]:
    """The names of the plots drawn (not kept) from now on."""
    names: list[str] = []
    draw = plots._draw

    def counted(stats, which, digest):
        names.extend(which)
        return draw(stats, which, digest)
    monkeypatch.setattr(plots, "_draw", counted)
    return names


def test_a_rerun_with_the_same_options_keeps_every_plot_and_the_folder_bytes(generated, make_folder, tmp_path, monkeypatch):
    out = tmp_path / "kernelinfer"
    shutil.copytree(generated("kernelinfer"), out)
    drawn = count_draws(monkeypatch)
    before = tree(out)
    make_folder("kernelinfer", out)                             # the options `generated` made it with
    assert drawn == [] and tree(out) == before


def test_a_damaged_or_other_inputs_plot_is_drawn_again_to_the_same_bytes(generated, tmp_path, monkeypatch):
    folder = generated("kernelswarm")
    drawn = count_draws(monkeypatch)
    stats = orjson.loads((folder / "stats.json").read_bytes())
    fresh = {rel: (folder / rel).read_bytes() for rel in map(plots.plot_path, plots.plot_names(stats))}
    assert {plots.recorded_digest(data) for data in fresh.values()} == {plots.inputs_digest(stats)}
    copy = tmp_path / "kernelswarm"
    shutil.copytree(folder, copy)
    damaged = copy / plots.plot_path("lengths")
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 1                                    # one bit inside the image data: a CRC fails
    damaged.write_bytes(bytes(data))
    (copy / plots.plot_path("rewards")).write_bytes(fresh[plots.plot_path("rewards")][:-12])    # no IEND
    assert plots.render_plots(stats, reuse_from=copy) == fresh
    assert sorted(drawn) == ["lengths", "rewards"]

    drawn.clear()
    stats["figures"]["status_by_gpu"] = dict(reversed(stats["figures"]["status_by_gpu"].items()))
    other = plots.render_plots(stats, reuse_from=folder)
    assert drawn == plots.plot_names(stats)
    assert other[plots.plot_path("status_mix")] != fresh[plots.plot_path("status_mix")]
