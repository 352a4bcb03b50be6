"""The dataset card (README.md): YAML front matter generated from the `Dataset` descriptor, prose from stats.json.

The Hub (and `load_dataset(folder)`) reads only the YAML: `configs` says which files make which config and
split, `dataset_info` fixes the features so the JSON loader never guesses them from one file. Both come from
the descriptor, the same one the builders read, so there is no second copy of any feature list.
"""
from __future__ import annotations

from pathlib import Path

import datasets
import orjson
from huggingface_hub import DatasetCard, DatasetCardData

from generator.dataset import Dataset
from generator.catalog import benchmark
from generator.catalog import validation
from generator.layout import (HOLDOUT_CONFIG, HOLDOUT_FILE, HOLDOUT_PARQUET, QA_DIR, SHARD_PATTERN, SHARD_SIZE,
                              STATS_FILE, parquet_pattern, shard_name, view_pattern)
from generator.write import card_facts, diversity
from generator.write.views import SPLITS
from generator.tokens import RULE as TOKEN_RULE

TASK_CATEGORIES = ["text-generation"]
COMMON_TAGS = ["cuda", "triton", "kernel-optimization", "gpu", "inference", "llm-inference", "synthetic-data"]
SIZE_BOUNDS = [
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
]


def data_files(dataset: Dataset, data_format: str = "parquet") -> dict[str, dict[str, str]]:
    """config -> {split: path pattern} of a generated folder (and of the Hub repo staged from it).

    `parquet` (the default layout): every config reads zstd Parquet: the `train` and `validation` splits of the
    main config and of each training view, and the held-out tasks. `jsonl` (a `--no-views` folder: the seed
    layout only): the main config reads the JSONL shards, the holdout config `tasks_holdout.jsonl`. Never both in one card:
    `load_dataset(folder)` picks one file reader for every config of a card (from the first config's files)."""
    if data_format == "jsonl":
        return {c.name: {c.split: c.pattern} for c in dataset.configs_with(views=False)}
    if data_format != "parquet":
        raise ValueError(f"unknown data format {data_format!r}; expected jsonl or parquet")
    main = dataset.main_config.name
    return {main: {s: parquet_pattern(main, s) for s in SPLITS},
            **{v.name: {s: view_pattern(v.name, s) for s in SPLITS} for v in dataset.views},
            HOLDOUT_CONFIG: {"test": HOLDOUT_PARQUET}}


def config_of_pattern(dataset: Dataset, stats: dict) -> dict[str, str]:
    """File pattern -> the config that reads it, in the layout `stats` describes (the card's Files table)."""
    return {path: name for name, splits in data_files(dataset, data_format_of(stats)).items()
            for path in splits.values()}


def data_format_of(stats: dict) -> str:
    """The layout of the folder stats.json describes: Parquet configs unless generated with `--no-views` (the
    recorded options say)."""
    return "jsonl" if (stats.get("generator") or {}).get("views", True) is False else "parquet"


def size_category(num_rows: int) -> str:
    return next((label for bound, label in SIZE_BOUNDS if num_rows < bound), "n>1B")


def card_metadata(dataset: Dataset, *, num_rows: int | None = None, data_format: str = "parquet") -> dict:
    """YAML front matter: license, task_categories, tags, size_categories, configs, dataset_info."""
    return _card_data(dataset, num_rows, data_files(dataset, data_format)).to_dict()


def _card_data(dataset: Dataset, num_rows: int | None, files: dict[str, dict[str, str]]) -> DatasetCardData:
    """Card data for the configs named in `files` (config -> {split: pattern}); the first is the default."""
    default = next(iter(files))
    card_data = DatasetCardData(
        license="mit",
        pretty_name=dataset.title,
        task_categories=TASK_CATEGORIES,
        tags=COMMON_TAGS + list(dataset.tags),
        size_categories=[size_category(num_rows)] if num_rows is not None else None,
        configs=[
            {
                "config_name": name,
                **({"default": True} if name == default else {}),
                "data_files": [{"split": split, "path": path} for split, path in splits.items()],
            }
            for name, splits in files.items()
        ],
    )
    infos = datasets.info.DatasetInfosDict(
        {name: datasets.DatasetInfo(features=dataset.config(name).features) for name in files}
    )
    infos.to_dataset_card_data(card_data)
    return card_data


def num_rows_from(dataset: Dataset, stats: dict) -> int | None:
    """The row count stats.json states (its key names the dataset's unit: sessions or episodes)."""
    unit = dataset.count_flag
    for key in (f"num_{unit}", unit, "num_rows", "rows"):
        if isinstance(stats.get(key), int):
            return stats[key]
    return None


def placeholder_repo(dataset: Dataset) -> str:
    """The repo id a generated folder's card shows in its load snippets until the uploader stages it for a real one."""
    return f"ORG/{dataset.name}"


def render_card(dataset: Dataset, stats: dict, *, repo_id: str | None = None, example: dict | None = None) -> str:
    """The full README.md: front matter from `card_metadata` (the layout stats.json's options say), then the prose
    sections.

    `repo_id` goes into every load snippet (the writer leaves the placeholder, the uploader's staging passes
    `--repo-id`); `example` is a row, already cut short (`card_facts.truncated`)."""
    data_format = data_format_of(stats)
    views = data_format == "parquet"
    card_data = _card_data(dataset, num_rows_from(dataset, stats), data_files(dataset, data_format))
    sections = [
        f"# {dataset.title}\n\n{dataset.description}\n\n{SIMULATED_WARNING}\n\n{_version_line(stats)}",
        card_facts.scope(dataset, stats),
        card_facts.hardware(dataset, stats),
        card_facts.results(dataset, stats),
        *([notes] if dataset.outcome_notes and (notes := dataset.outcome_notes(stats)) else []),
        *([diversity.card_section(stats)] if "diversity" in stats else []),
        _format(dataset, data_format, merged=has_merged(dataset, stats), shard_size=shard_size(stats)),
        card_facts.layout(stats),
        *([_views(dataset, stats)] if views and dataset.views else []),
        card_facts.token_lengths(stats),
        *([card_facts.example(dataset, example, shard_name(0, shards=stats["shards"]))] if example is not None else []),
        _statistics({k: v for k, v in stats.items() if k not in NOT_TABULATED}),
        card_facts.INTENDED_USES,
        PROVENANCE,
        _loading(dataset, data_format, repo_id or placeholder_repo(dataset)),
        f"## Citation\n\n```bibtex\n{dataset.citation}\n```",
    ]
    return str(DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n" + "\n\n".join(sections) + "\n"))


def render_staged_card(folder: Path, dataset: Dataset, *, repo_id: str, merged_bytes: int | None = None) -> str:
    """The card of a folder staged for `repo_id`: its stats.json, its files' sizes, its first row, the repo id in
    every load snippet. `merged_bytes`: the size of the merged file the push sends beside the staged files (it is
    never staged: generator.hub.merged), None when it is not sent."""
    stats = orjson.loads((folder / STATS_FILE).read_bytes())
    patterns = config_of_pattern(dataset, stats)
    for other in (SHARD_PATTERN, dataset.merged_file, HOLDOUT_FILE, f"{QA_DIR}/*.json"):   # raw files no config reads
        patterns.setdefault(other, None)
    disk = card_facts.folder_disk(folder, patterns)
    if merged_bytes is not None:
        disk[dataset.merged_file] = {"config": None, "files": 1, "bytes": merged_bytes}
        disk = {p: disk[p] for p in patterns if p in disk}   # in the table's order
    shards = sorted(folder.glob(SHARD_PATTERN))
    example = None
    if shards:
        with open(shards[0], "rb") as f:
            example = card_facts.truncated(orjson.loads(f.readline()))
    return render_card(dataset, {**stats, "disk": disk}, repo_id=repo_id, example=example)


def _version_line(stats: dict) -> str:
    """Which generator, schema and options made these rows (stats.json's `generator`), and where changes are told."""
    made = stats.get("generator") or {}
    if "version" not in made:
        return "Generator version: not recorded."
    options = ", ".join(f"{k} {v}" for k, v in made.items() if k not in ("version", "schema_version"))
    return (f"**Version**: kernelstrain {made['version']}, row schema {made.get('schema_version', '?')}; {options}. "
            f"Rows of a new version may differ byte for byte from an older one: see CHANGELOG.md in the kernelstrain "
            f"repository for what changed.")


SIMULATED_WARNING = (
    "> All compile, correctness and benchmark outcomes are **simulated** by an analytic model; no kernel was "
    "compiled or run to produce this data."
)

PROVENANCE = """## Provenance

Fully synthetic, generated by [kernelstrain](https://github.com/kernelstrain/kernelstrain) from a seed: every row
is a pure function of (seed, row index), so the same command reproduces the same bytes."""

NOT_TABULATED = ("figures", "disk", "tokens", "diversity")   # stats.json parts the card shows as plots and tables of their own


def feature_type(feature) -> str:
    """A short human spelling of a `datasets` feature type, for the field table."""
    if isinstance(feature, datasets.Value):
        return feature.dtype
    if isinstance(feature, datasets.Json):
        return "json (dict)"
    if isinstance(feature, datasets.List):
        return f"list of {feature_type(feature.feature)}"
    if isinstance(feature, dict):
        return "{" + ", ".join(f"{k}: {feature_type(v)}" for k, v in feature.items()) + "}"
    return type(feature).__name__


def has_merged(dataset: Dataset, stats: dict) -> bool:
    """Whether the files the card describes include the merged file: what the Files table (`disk`) lists, and
    so yes without one (the generator always writes it; an upload with --no-merged leaves it out of `disk`)."""
    return dataset.merged_file in (stats.get("disk") or {dataset.merged_file: 0})


def shard_size(stats: dict) -> int:
    """Rows per shard file, as the run's options say (folders made before 0.6.2 did not say: the default)."""
    return (stats.get("generator") or {}).get("shard_size", SHARD_SIZE)


def _format(dataset: Dataset, data_format: str, *, merged: bool, shard_size: int) -> str:
    """The rows' fields and the files that hold them (`merged`: the merged file among them)."""
    rows = [f"| `{name}` | {feature_type(f)} |" for name, f in dataset.features.items()]
    holdout = ", ".join(f"`{name}`" for name in dataset.config(HOLDOUT_CONFIG).features)
    main = dataset.configs[0].name
    if data_format == "parquet":
        raw = f", `{dataset.merged_file}` (the batches concatenated)" if merged else ""
        layout = (f"Every config reads zstd Parquet: `data/{main}/train-NNN.parquet` and `validation-NNN.parquet` "
                  f"(one of each per batch), `{HOLDOUT_PARQUET}`, and the training views under `views/`; `shape` "
                  "and `params` are JSON columns that load as dicts. The same rows are also here as JSONL, one row "
                  f"per line: `batches/batch_NNN.jsonl` ({shard_size} rows each, train and validation rows "
                  f"together){raw} and `tasks_holdout.jsonl`; "
                  "no config reads them.\n\n" + _validation_note(main))
    else:
        raw = f", `{dataset.merged_file}` (the same rows concatenated, for convenience; not a config)" if merged else ""
        layout = (f"JSONL, one row per line: `batches/batch_NNN.jsonl` ({shard_size} rows each; the `{main}` "
                  f"config){raw}, `tasks_holdout.jsonl`.")
    return (
        f"## Format\n\n{dataset.format_notes}\n\n| field | type |\n|---|---|\n"
        + "\n".join(rows)
        + f"\n\nThe `{HOLDOUT_CONFIG}` config (`{HOLDOUT_FILE}`) holds held-out task specs with no solution: "
        f"{holdout}. They are the fixed benchmark {benchmark.VERSION} (whole (op, gpu, shape) groups chosen by a "
        "stable hash, the same for every seed and size; `stats.json` names the version under `generator`), and no "
        "group of it appears in training rows of any seed or size, nor does any group of the other kernelstrain "
        f"dataset's benchmark {benchmark.VERSION} (kernelinfer's {benchmark.KERNELINFER.size} groups over every op, "
        f"kernelswarm's {benchmark.KERNELSWARM.size} over its {len(benchmark.KERNELSWARM.ops)} ops): a model "
        "trained on both datasets has seen no group of either benchmark.\n\n"
        f"Files: {layout} Also `stats.json` (aggregate statistics) and `qa_reports/batch_NNN.json` (mechanical "
        "checks per batch)."
    )


def _validation_note(main: str) -> str:
    return (f"The `{main}` config has two splits: `train`, and `{validation.SPLIT}`, whole (op, gpu) families of "
            f"training tasks (every shape, dtype, impl and engineer of one kernel on one GPU) chosen by a fixed "
            f"rule, validation {validation.VERSION} (the lowest {validation.FRACTION:.0%} of all op x GPU families by "
            "a stable hash, the same for every seed and size; `stats.json` counts both under `splits`). It shares "
            "no task with `train` nor with the held-out benchmark.")


def _views(dataset: Dataset, stats: dict) -> str:
    """The training view configs: what a row is, its prompt form and reward, its columns, its rows per split."""
    window = (stats.get("generator") or {}).get("window_tokens")
    budget = f"{window:,}" if isinstance(window, int) else "the `--window-tokens`"
    name, main, unit = dataset.name, dataset.main_config.name, dataset.row_unit
    calls = "\n".join(f'ds = load_dataset("path/to/{name}", "{v.name}", split="{s}")'
                      for v in dataset.views for s in SPLITS)
    parts = [f"## Training views\n\nConfigs derived from the `{main}` rows, one zstd Parquet file per batch and "
             f"split (`views/<config>/<config>-<split>-NNN.parquet`), each row within {budget} tokens (a "
             f"conservative count: {TOKEN_RULE}). `tokens` in "
             "`stats.json` gives characters and tokens per row of every config, and the share of rows fitting "
             f"32K and 128K. Each view has the `{main}` config's two splits: `train` is made from the `train` "
             f"{unit}s only and `{validation.SPLIT}` from the validation families' {unit}s (rule "
             f"{validation.VERSION}), so a model trained on a view's `train` split never sees a validation task "
             f"(a view row's id names its {unit}).\n\n{_view_split_table(dataset, stats)}"
             f"```python\nfrom datasets import load_dataset\n\n{calls}\n```"]
    for v in dataset.views:
        columns = ", ".join(f"`{name}` ({feature_type(f)})" for name, f in v.features.items())
        parts.append(f"### `{v.name}`\n\nOne row: {v.description}. {v.prompt_form}\n\nColumns: {columns}.")
    return "\n\n".join(parts)


def _view_split_table(dataset: Dataset, stats: dict) -> str:
    """Rows per split of the main config and of each view (stats.json `splits`), or nothing when not recorded."""
    splits = stats.get("splits") if isinstance(stats.get("splits"), dict) else {}
    views = splits.get("views") if isinstance(splits.get("views"), dict) else {}
    counts = {dataset.main_config.name: splits, **views}
    rows = [f"| `{config}` | " + " | ".join(f"{n[s]:,}" for s in SPLITS) + " |"
            for config, n in counts.items() if isinstance(n, dict) and all(isinstance(n.get(s), int) for s in SPLITS)]
    if len(rows) < 2:
        return ""
    return ("Rows per split (`stats.json` `splits`):\n\n| config | " + " | ".join(SPLITS) + " |\n|---|"
            + "---|" * len(SPLITS) + "\n" + "\n".join(rows) + "\n\n")


def _flatten(stats: dict, prefix: str = "") -> list[tuple[str, object]]:
    """One table row per statistic; a dict of plain values (a summary, per-op counts) is one row."""
    out = []
    for key, value in stats.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and any(isinstance(v, dict) for v in value.values()):
            out += _flatten(value, f"{name}.")
        elif isinstance(value, dict):
            out.append((name, " · ".join(f"{k} {_cell(v)}" for k, v in value.items())))
        else:
            out.append((name, value))
    return out


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _statistics(stats: dict) -> str:
    if not stats:
        return "## Statistics\n\nNo statistics were recorded."
    rows = [f"| {name} | {_cell(value)} |" for name, value in _flatten(stats)]
    return "## Statistics\n\nFrom `stats.json`, computed from the rows.\n\n| statistic | value |\n|---|---|\n" + "\n".join(rows)


def _loading(dataset: Dataset, data_format: str, repo_id: str) -> str:
    main, cls, name = dataset.configs[0].name, dataset.builder_name, dataset.name
    count = f"num_{dataset.count_flag}"
    files = "Parquet files under `data/`" if data_format == "parquet" else "`batches/*.jsonl`"
    calls = [
        (f'ds = load_dataset("{repo_id}", "{main}", split="train")', "from the Hub"),
        (f'ds = load_dataset("path/to/{name}", "{main}", split="train")', "a generated or downloaded folder"),
        (f'it = load_dataset("{repo_id}", "{main}", split="train", streaming=True)', "streaming, shard by shard"),
        (f'holdout = load_dataset("{repo_id}", "{HOLDOUT_CONFIG}", split="test")', "held-out tasks, no solutions"),
        ('ds[0]["shape"]', "a dict with the op's own keys"),
    ]
    width = max(len(code) for code, _ in calls) + 2
    snippet = "\n".join(f"{code.ljust(width)}# {comment}" for code, comment in calls)
    return f"""## Loading

The configs come from this card's YAML (`{main}` reads {files}, `{HOLDOUT_CONFIG}` the held-out tasks), so no
loading script is needed (datasets >= 4.7, the first with the `Json` feature):

```python
from datasets import load_dataset

{snippet}
```

The builder in the kernelstrain package (`pip install kernelstrain`; never part of the data folder) reads a
folder or regenerates rows for a seed:

```python
from generator.{name}.builder import {cls}

b = {cls}(config_name="{main}", data_dir="path/to/{name}")
b.download_and_prepare(); ds = b.as_dataset(split="train")
# generated on the fly: the rows `python -m generator {name} --seed 0 --{dataset.count_flag} 100 --holdout 10` writes
b = {cls}(config_name="{main}", seed=0, {count}=100, num_holdout=10)
```

Chat-format SFT samples:

```python
{dataset.sft_snippet}
```"""
