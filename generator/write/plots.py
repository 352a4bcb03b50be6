"""The card's plots: PNG files drawn from `stats.json` alone (its `figures`), written to `plots/` of the folder.

Same stats, same bytes: the figures are drawn with matplotlib's Agg renderer on a `Figure` of fixed size and DPI
(no pyplot, no global backend), under matplotlib's default style with the bundled DejaVu Sans font, whatever the
user's matplotlibrc says, and saved without the PNG `Software` text (the only metadata matplotlib writes). Each PNG
carries the digest of what its bytes depend on (`inputs_digest`), so a rerun keeps the previous folder's PNGs when
that digest is unchanged (as it keeps verified shards): the bytes are the same either way, without the ~1 CPU-s of
importing matplotlib and drawing.
Regenerate a folder's plots with `python -m generator.write.plots FOLDER` (exit 0, 2 on an unreadable stats.json).
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import io
import struct
import sys
import zlib
from pathlib import Path
from typing import Callable

import numpy as np
import orjson

from generator.layout import PLOT_DIR, STATS_FILE

SIZE_IN = (8.0, 4.5)
DPI = 100
RC = {"font.family": "DejaVu Sans", "font.size": 9, "axes.titlesize": 10, "figure.dpi": DPI, "savefig.dpi": DPI}
INPUTS_KEY = "kernelstrain-inputs"     # the PNG tEXt keyword holding `inputs_digest`
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
STATUS_COLORS = {"ok": "#4c9f38", "compile_error": "#e07b39", "launch_error": "#c44e52", "wrong_result": "#8172b2",
                 "unsupported_arch": "#8c8c8c"}


def _speedup(fig, stats: dict) -> None:
    cells = stats["figures"]["speedup_by_family_gpu"]
    families = list(cells)
    gpus = sorted({g for row in cells.values() for g in row})
    grid = np.full((len(families), len(gpus)), np.nan)
    for i, fam in enumerate(families):
        for j, gpu in enumerate(gpus):
            if gpu in cells[fam]:
                grid[i, j] = cells[fam][gpu]["geomean"]
    ax = fig.add_subplot()
    image = ax.imshow(np.log2(grid), aspect="auto", cmap="viridis")
    for i, fam in enumerate(families):
        for j, gpu in enumerate(gpus):
            if gpu in cells[fam]:
                ax.text(j, i, f"{grid[i, j]:.3g}x\n({cells[fam][gpu]['rows']})", ha="center", va="center",
                        fontsize=7, color="white" if np.log2(grid[i, j]) < np.nanmean(np.log2(grid)) else "black")
    ax.set_xticks(range(len(gpus)), gpus)
    ax.set_yticks(range(len(families)), families)
    ax.set_title("Best speedup over the naive baseline by op family and GPU\n(geometric mean, rows in parentheses)")
    fig.colorbar(image, ax=ax, label="log2 speedup")


def _lengths(fig, stats: dict) -> None:
    length, hours = stats["figures"]["length"], stats["figures"]["hours"]
    for k, (hist, label) in enumerate(((length, f"{length['unit']} per {length['per']}"),
                                       (hours, f"simulated hours per {hours['per']}"))):
        ax = fig.add_subplot(1, 2, k + 1)
        edges = hist["edges"]
        ax.stairs(hist["counts"], edges, fill=True, color="#4c72b0")
        ax.set_xlabel(label)
        ax.set_ylabel(f"{length['per']}s")
    fig.suptitle(f"{length['unit'].capitalize()} and hours per {length['per']}")


def _status_mix(fig, stats: dict) -> None:
    mix = stats["figures"]["status_by_gpu"]
    gpus = list(mix)
    statuses = list(next(iter(mix.values())))
    totals = np.array([max(1, sum(mix[g].values())) for g in gpus], dtype=float)
    ax = fig.add_subplot()
    left = np.zeros(len(gpus))
    for status in statuses:
        share = np.array([mix[g][status] for g in gpus]) / totals
        ax.barh(gpus, share, left=left, label=status, color=STATUS_COLORS.get(status))
        left += share
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of " + ("steps" if stats["dataset"] == "kernelinfer" else "env results"))
    ax.invert_yaxis()
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8, ncols=len(statuses), frameon=False)
    fig.suptitle("Status mix per GPU")


def _efficiency(fig, stats: dict) -> None:
    eff = stats["figures"]["efficiency"]
    families = list(eff["counts_by_family"])
    grid = np.array([np.asarray(eff["counts_by_family"][f], dtype=float) / max(1, sum(eff["counts_by_family"][f]))
                     for f in families])
    ax = fig.add_subplot()
    edges = eff["edges"]
    image = ax.imshow(grid, aspect="auto", cmap="magma_r", extent=(edges[0], edges[-1], len(families) - 0.5, -0.5))
    ax.scatter([eff["median_by_family"][f] for f in families], range(len(families)), marker="|", s=200,
               color="#1f77b4", label="median")
    ax.set_yticks(range(len(families)), families)
    ax.set_xlabel("best kernel's speed as a fraction of the roofline (roofline time / best time)")
    ax.legend(loc="lower left", fontsize=8)
    ax.set_title("Best efficiency vs roofline by op family (share of rows per bin)")
    fig.colorbar(image, ax=ax, label="share of the family's rows")


def _rewards(fig, stats: dict) -> None:
    rewards = stats["figures"]["rewards"]
    for k, (name, label) in enumerate((("result", "env result rewards"), ("verdict", "verdict rewards"))):
        ax = fig.add_subplot(1, 2, k + 1)
        ax.stairs(rewards[name]["counts"], rewards[name]["edges"], fill=True, color="#55a868")
        ax.set_xlabel(label)
        ax.set_ylabel("messages")
    fig.suptitle("kernelswarm reward distribution")


PLOTS: dict[str, tuple[str, Callable]] = {
    "best_speedup": ("Best speedup by op family and GPU", _speedup),
    "lengths": ("Steps and hours per row", _lengths),
    "status_mix": ("Status mix per GPU", _status_mix),
    "efficiency": ("Best efficiency vs roofline", _efficiency),
    "rewards": ("Reward distribution", _rewards),
}


def plot_names(stats: dict) -> list[str]:
    """The plots a folder with these stats has (the reward plot only where rows carry rewards)."""
    return [name for name in PLOTS if name != "rewards" or "rewards" in stats.get("figures", {})]


def plot_path(name: str) -> str:
    return f"{PLOT_DIR}/{name}.png"


def inputs_digest(stats: dict) -> str:
    """sha256 of everything a plot's bytes depend on: the stats it reads, this module's drawing code, and the
    versions of matplotlib (pixels), Pillow and zlib (the PNG encoding)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for part in (importlib.metadata.version("matplotlib"), importlib.metadata.version("pillow"),
                 zlib.ZLIB_RUNTIME_VERSION):
        digest.update(part.encode() + b"\0")
    # in the stats' own key order, which is drawn too (the GPUs' order on an axis)
    digest.update(orjson.dumps({"dataset": stats.get("dataset"), "figures": stats["figures"]}))
    return digest.hexdigest()


def recorded_digest(png: bytes) -> str | None:
    """The `inputs_digest` a PNG carries; None unless it is one whole PNG (every chunk's CRC checked, IEND last)."""
    if not png.startswith(PNG_SIGNATURE):
        return None
    pos, found = len(PNG_SIGNATURE), None
    while pos + 12 <= len(png):
        length, kind = struct.unpack_from(">I4s", png, pos)
        end = pos + 12 + length
        if end > len(png) or zlib.crc32(png[pos + 4:end - 4]) != int.from_bytes(png[end - 4:end], "big"):
            return None
        key, _, value = png[pos + 8:end - 4].partition(b"\0")
        if kind == b"tEXt" and key == INPUTS_KEY.encode():
            found = value.decode("latin-1")
        if kind == b"IEND":
            return found if end == len(png) else None
        pos = end
    return None


def _kept(folder: Path, name: str, digest: str) -> bytes | None:
    try:
        data = (folder / plot_path(name)).read_bytes()
    except OSError:
        return None
    return data if recorded_digest(data) == digest else None


def render_plots(stats: dict, reuse_from: Path | None = None) -> dict[str, bytes]:
    """{relative path: PNG bytes} of every plot of `plot_names(stats)`; none without `figures`. A PNG of the folder
    `reuse_from` (the finished folder a rerun replaces) is kept when it carries these stats' `inputs_digest`."""
    if "figures" not in stats:
        return {}
    digest = inputs_digest(stats)
    kept = {name: _kept(reuse_from, name, digest) if reuse_from is not None else None for name in plot_names(stats)}
    drawn = _draw(stats, [name for name, data in kept.items() if data is None], digest)
    return {plot_path(name): data if data is not None else drawn[name] for name, data in kept.items()}


def _draw(stats: dict, names: list[str], digest: str) -> dict[str, bytes]:
    if not names:
        return {}
    import matplotlib
    import matplotlib.style
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    out = {}
    with matplotlib.style.context("default"), matplotlib.rc_context(RC):
        for name in names:
            fig = Figure(figsize=SIZE_IN, dpi=DPI)    # fixed margins: a layout engine doubled the time
            PLOTS[name][1](fig, stats)
            buffer = io.BytesIO()
            FigureCanvasAgg(fig)                      # Agg, explicitly: no backend lookup, whatever matplotlibrc says
            fig.savefig(buffer, format="png", metadata={"Software": None, INPUTS_KEY: digest})
            out[name] = buffer.getvalue()
    return out


def main(argv: list[str] | None = None) -> int:
    """`python -m generator.write.plots FOLDER`: rewrite FOLDER/plots/*.png from FOLDER/stats.json."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m generator.write.plots FOLDER", file=sys.stderr)
        return 2
    folder = Path(args[0])
    try:
        stats = orjson.loads((folder / STATS_FILE).read_bytes())
        if not isinstance(stats, dict) or "figures" not in stats:
            print(f"{folder / STATS_FILE}: no `figures` (an older generator made it): nothing to plot", file=sys.stderr)
            return 2
        for rel, data in render_plots(stats).items():
            (folder / rel).parent.mkdir(exist_ok=True)
            (folder / rel).write_bytes(data)
            print(folder / rel)
    except orjson.JSONDecodeError as exc:
        print(f"{folder / STATS_FILE}: not JSON: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{exc.filename or folder}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
