"""Each generated card is true for its folder: every figure and op list of its fact sections is recomputed here from
the rows (not from stats.json), and the plots exist, are linked from the card and redraw byte for byte from
stats.json alone."""
from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import orjson
import pyarrow.parquet as pq

from generator import tokens
from generator.catalog.ops import OPS
from generator.hub import publish
from generator.registry import DATASETS
from generator.write import plots
from generator.write.aggregate import sig
from generator.write.card_facts import megabytes, truncated


def rows_of(folder: Path) -> list[dict]:
    return [orjson.loads(line) for f in sorted(folder.glob("batches/*.jsonl")) for line in f.read_bytes().splitlines()]


def section(card: str, title: str) -> str:
    body = card.split(f"\n## {title}\n", 1)[1]
    return body.split("\n## ", 1)[0]


def table(text: str) -> dict[str, list[str]]:
    """First cell (backticks dropped) -> the other cells, for every body row of the markdown tables in `text`."""
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= {"-"} and cells[0] not in ("gpu", "family", "files", "config"):
            out[cells[0].strip("`")] = cells[1:]
    return out


def facts(dataset: str, row: dict) -> tuple[float, float, list[str]]:
    """(best speedup, best time, statuses) read straight from a row."""
    if dataset == "kernelinfer":
        return row["best"]["speedup"], row["best"]["time_ms"], [e["status"] for e in row["trace"]]
    return row["speedup"], row["best_ms"], [m["status"] for m in row["messages"] if m["kind"] == "result"]


def test_scope_and_hardware_name_exactly_the_ops_and_gpus_of_the_rows(folder):
    ds = DATASETS[folder.name]
    rows, card = rows_of(folder), (folder / "README.md").read_text()
    ops, gpus = Counter(r["op"] for r in rows), Counter(r["gpu"] for r in rows)
    scope = section(card, "Scope")
    assert f"{len(rows):,} {ds.row_unit}s over {len(ops)} ops," in scope
    listed = {op: int(n) for op, n in re.findall(r"`(\w+)` \((\d+)\)", scope)}
    assert listed == dict(ops)
    for fam, total, names in re.findall(r"- \*\*(\w+)\*\* \((\d+) \w+\): (.*)", scope):
        members = re.findall(r"`(\w+)`", names)
        assert {OPS[o].family for o in members} == {fam} and int(total) == sum(ops[o] for o in members)
    for impl, n in Counter(r["impl"] for r in rows).items():
        assert f"{impl} ({n})" in scope
    hardware = table(section(card, "Hardware targets"))
    assert {g: int(cells[-1]) for g, cells in hardware.items()} == dict(gpus)
    assert f"{len(gpus)} GPUs" in section(card, "Hardware targets")


def test_result_tables_match_the_rows(folder):
    name = folder.name
    rows, card = rows_of(folder), (folder / "README.md").read_text()
    results = section(card, "Results")
    speedup_text, status_text = results.split("Status of the")
    speedups = table(speedup_text)
    header = re.search(r"\| family \| (.*) \|", speedup_text).group(1)
    gpus = [g.strip(" `") for g in header.split("|")]
    cells: dict[tuple[str, str], list[float]] = {}
    efficiency: dict[str, list[float]] = {}
    statuses: dict[str, Counter] = {}
    for row in rows:
        speedup, best_ms, row_statuses = facts(name, row)
        cells.setdefault((OPS[row["op"]].family, row["gpu"]), []).append(speedup)
        efficiency.setdefault(OPS[row["op"]].family, []).append(row["roofline_ms"] / best_ms)
        statuses.setdefault(row["gpu"], Counter()).update(row_statuses)
    assert set(speedups) == {fam for fam, _ in cells}
    for fam, values in speedups.items():
        for gpu, cell in zip(gpus, values):
            got = cells.get((fam, gpu))
            want = f"{sig(float(np.exp(np.mean(np.log(got))))):g}x ({len(got)})" if got else "-"
            assert cell == want, (fam, gpu)
    status_table = table(status_text)
    order = re.search(r"\| gpu \| (.*) \|", status_text).group(1).split(" | ")
    assert {g: dict(zip(order, map(int, (c.replace(",", "") for c in v)))) for g, v in status_table.items()} == {
        g: {s: c[s] for s in order} for g, c in statuses.items()}
    assert sum(sum(c.values()) for c in statuses.values()) == sum(len(facts(name, r)[2]) for r in rows)
    medians = dict(re.findall(r"(\w+) (\d[\d.]*\d|\d)", results.split("per op family:")[1]))
    assert medians == {f: f"{sig(float(np.median(v))):g}" for f, v in efficiency.items()}


def test_files_lengths_and_example_match_the_folder(folder):
    ds = DATASETS[folder.name]
    rows, card = rows_of(folder), (folder / "README.md").read_text()
    files = table(section(card, "Files"))
    assert set(files) >= {"batches/*.jsonl", "tasks_holdout.jsonl", ds.merged_file}
    for pattern, (config, count, size) in files.items():
        paths = sorted(folder.glob(pattern))
        assert int(count) == len(paths) and size == megabytes(sum(p.stat().st_size for p in paths)), pattern
    assert {c.strip("`") for c, _, _ in files.values()} - {"-"} == {c.name for c in ds.configs}
    lengths = table(section(card, "Lengths"))
    chars, counts = tokens.sizes(rows)
    main = lengths[ds.main_config.name]
    assert main[:2] == [f"{len(rows):,}", f"{np.mean(chars):,.1f}"] and main[6] == f"{max(counts):,}"
    assert main[3] == f"{np.mean(counts):,.1f}"
    for view in ds.views:
        view_rows = sum(pq.read_metadata(p).num_rows for p in folder.glob(view.pattern))
        assert lengths[view.name][0] == f"{view_rows:,}"
    example = section(card, "Example row").split("```json\n", 1)[1].split("\n```", 1)[0]
    assert orjson.loads(example) == truncated(rows[0])


def test_figures_are_the_rows_and_plots_redraw_from_stats_alone(folder, tmp_path):
    name = folder.name
    rows, card = rows_of(folder), (folder / "README.md").read_text()
    stats = orjson.loads((folder / "stats.json").read_bytes())
    figures = stats["figures"]
    for key, values in (("length", [r["num_steps" if name == "kernelinfer" else "num_messages"] for r in rows]),
                        ("hours", [r["elapsed_s"] / 3600 for r in rows])):
        assert np.histogram(values, bins=figures[key]["edges"])[0].tolist() == figures[key]["counts"]
    for fam, counts in figures["efficiency"]["counts_by_family"].items():
        assert sum(counts) == sum(OPS[r["op"]].family == fam for r in rows)   # no row fell outside 0..1
    if name == "kernelswarm":
        rewards = [m["reward"] for r in rows for m in r["messages"] if m["kind"] == "result"]
        hist = figures["rewards"]["result"]
        assert np.histogram(rewards, bins=hist["edges"])[0].tolist() == hist["counts"] and sum(hist["counts"]) == len(rewards)
    linked = re.findall(r"!\[[^]]*\]\((plots/[\w.]+\.png)\)", card)
    on_disk = sorted(p.relative_to(folder).as_posix() for p in (folder / "plots").iterdir())
    assert sorted(linked) == on_disk and len(linked) == (5 if name == "kernelswarm" else 4)
    copy = tmp_path / name
    copy.mkdir()
    shutil.copyfile(folder / "stats.json", copy / "stats.json")
    assert plots.main([str(copy)]) == 0
    for rel in on_disk:
        data = (copy / rel).read_bytes()
        assert data.startswith(b"\x89PNG") and data == (folder / rel).read_bytes(), rel
        assert b"Software" not in data and b"tIME" not in data


def test_staged_card_names_the_target_repo_and_its_files(folder, tmp_path):
    ds = DATASETS[folder.name]
    generated = (folder / "README.md").read_text()
    assert f'load_dataset("ORG/{ds.name}", ' in generated
    out = tmp_path / "stage"
    assert publish.stage(folder, ds, out, repo_id="someone/my-kernels") is not None    # the stage validates
    card = (out / "README.md").read_text()
    repos = re.findall(r'load_dataset\("([^"]+)"', card)
    assert "someone/my-kernels" in repos and not [r for r in repos if r != "someone/my-kernels"
                                                  and not r.startswith("path/to/")]
    assert "ORG/" not in card
    for rel in re.findall(r"\]\((plots/[\w.]+\.png)\)", card):
        assert (out / rel).read_bytes() == (folder / rel).read_bytes()
    staged = table(section(card, "Files"))
    for pattern, (config, count, size) in staged.items():
        paths = sorted((folder if pattern == ds.merged_file else out).glob(pattern))   # it is sent from the folder
        assert int(count) == len(paths) and size == megabytes(sum(p.stat().st_size for p in paths)), pattern
    configs = {c.strip("`"): p for p, (c, _, _) in staged.items() if c != "-"}
    assert set(configs) == {c.name for c in ds.configs}
    assert all(pattern.endswith(".parquet") for pattern in configs.values())     # Parquet-first: every config


def test_plots_command_refuses_bad_stats_in_one_line(tmp_path, capsys):
    assert plots.main([str(tmp_path)]) == 2                      # no stats.json
    (tmp_path / "stats.json").write_text("{not json")
    assert plots.main([str(tmp_path)]) == 2
    (tmp_path / "stats.json").write_text('{"dataset": "kernelinfer"}')
    assert plots.main([str(tmp_path)]) == 2 and not (tmp_path / "plots").exists()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and all(str(tmp_path) in line and "Traceback" not in line for line in lines)
