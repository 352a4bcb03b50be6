"""The dataset card (README.md): YAML front matter generated from the `Dataset` descriptor, prose from stats.json.

The Hub (and `load_dataset(folder)`) reads only the YAML: `configs` says which files make which config and
split, `dataset_info` fixes the features so the JSON loader never guesses them from one file. Both come from
the descriptor, the same one the builders read, so there is no second copy of any feature list.
"""
from __future__ import annotations

import datasets
from huggingface_hub import DatasetCard, DatasetCardData

from generator.catalog.hardware import GPUS
from generator.catalog.ops import OPS
from generator.dataset import Dataset
from generator.catalog import benchmark
from generator.catalog import validation
from generator.layout import HOLDOUT_CONFIG, HOLDOUT_FILE, HOLDOUT_PARQUET, SHARD_SIZE, parquet_pattern

TASK_CATEGORIES = ["text-generation"]
COMMON_TAGS = ["cuda", "triton", "kernel-optimization", "gpu", "inference", "llm-inference", "synthetic-data"]
SIZE_BOUNDS = [
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
]


def data_files(dataset: Dataset, data_format: str = "parquet") -> dict[str, dict[str, str]]:
    """config -> {split: path pattern} of a generated folder (and of the Hub repo staged from it).

    `parquet` (the default layout): every config reads zstd Parquet: the main config's `train` and `validation`
    splits, the training views and the held-out tasks. `jsonl` (a `--no-views` folder: the seed layout only): the
    main config reads the JSONL shards, the holdout config `tasks_holdout.jsonl`. Never both in one card:
    `load_dataset(folder)` picks one file reader for every config of a card (from the first config's files)."""
    if data_format == "jsonl":
        return {c.name: {c.split: c.pattern} for c in dataset.configs_with(views=False)}
    if data_format != "parquet":
        raise ValueError(f"unknown data format {data_format!r}; expected jsonl or parquet")
    main = dataset.main_config.name
    return {main: {s: parquet_pattern(main, s) for s in (validation.TRAIN, validation.SPLIT)},
            **{v.name: {v.split: v.pattern} for v in dataset.views},
            HOLDOUT_CONFIG: {"test": HOLDOUT_PARQUET}}


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


def render_card(dataset: Dataset, stats: dict) -> str:
    """The full README.md: front matter from `card_metadata` (the layout stats.json's options say), then the prose
    sections."""
    data_format = data_format_of(stats)
    views = data_format == "parquet"
    card_data = _card_data(dataset, num_rows_from(dataset, stats), data_files(dataset, data_format))
    sections = [
        f"# {dataset.title}\n\n{dataset.description}\n\n{SIMULATED_WARNING}\n\n{_version_line(stats)}",
        _scope(),
        _hardware(),
        _format(dataset, data_format),
        *([_views(dataset, stats)] if views and dataset.views else []),
        _statistics(stats),
        PROVENANCE,
        _loading(dataset, data_format),
        f"## Citation\n\n```bibtex\n{dataset.citation}\n```",
    ]
    return str(DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n" + "\n\n".join(sections) + "\n"))


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
is a pure function of (seed, row index), so the same command reproduces the same bytes.

What is modelled:
- **Physics**: each task's roofline time (minimum DRAM traffic over peak bandwidth, FLOPs over the dtype's
  tensor-core peak, plus launch overhead); no `ok` time is ever below it. Best kernels land at efficiencies
  published kernels reach, baselines at what naive kernels get.
- **Architecture gating**: wgmma only on sm_90a, TMA on sm_90+/sm_120a, fp8 tensor cores on sm_89+, fp4 only on
  sm_120a; per-block shared-memory caps (227 KB sm_90, 163 KB sm_80, 99 KB sm_86/sm_120a; 48 KB static).
- **Feedback**: text shaped like what nvcc/ptxas, Triton and a correctness/benchmark harness print, including
  injected real bugs (compile errors, launch failures, wrong results) in otherwise valid kernel sources.
- **Behaviour**: structural variants first, then tuning; fixes after errors; reverts; diminishing returns.

What is not modelled: measured timings (no GPU ran), run-to-run noise beyond a simple model, numerical results
of kernels, driver/toolkit version differences, thermal and clock behaviour, and multi-GPU effects."""


def _scope() -> str:
    families: dict[str, list[str]] = {}
    for op in OPS.values():
        families.setdefault(op.family, []).append(f"`{op.name}`")
    lines = [f"- **{family}**: {', '.join(names)}" for family, names in families.items()]
    impls = sorted({impl for op in OPS.values() for impl in op.impls})
    return (
        "## Scope\n\nInference kernels only (no training kernels). "
        f"{len(OPS)} ops, implementations in {' and '.join(impls)}:\n\n" + "\n".join(lines)
    )


def _hardware() -> str:
    rows = [
        f"| `{g.name}` | {g.display} | `{g.arch}` | {g.dram_gbps:g} GB/s | {', '.join(sorted(g.features)) or '-'} |"
        for g in GPUS.values()
    ]
    head = "| gpu | device | arch | DRAM bandwidth | features |\n|---|---|---|---|---|"
    return "## Hardware targets\n\n" + head + "\n" + "\n".join(rows)


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


def _format(dataset: Dataset, data_format: str) -> str:
    rows = [f"| `{name}` | {feature_type(f)} |" for name, f in dataset.features.items()]
    holdout = ", ".join(f"`{name}`" for name in dataset.config(HOLDOUT_CONFIG).features)
    main = dataset.configs[0].name
    if data_format == "parquet":
        layout = (f"Every config reads zstd Parquet: `data/{main}/train-NNN.parquet` and `validation-NNN.parquet` "
                  f"(one of each per batch), `{HOLDOUT_PARQUET}`, and the training views under `views/`; `shape` "
                  "and `params` are JSON columns that load as dicts. The same rows are also here as JSONL, one row "
                  f"per line: `batches/batch_NNN.jsonl` ({SHARD_SIZE} rows each, train and validation rows "
                  f"together), `{dataset.merged_file}` (the batches concatenated) and `tasks_holdout.jsonl`; "
                  "no config reads them.\n\n" + _validation_note(main))
    else:
        layout = (f"JSONL, one row per line: `batches/batch_NNN.jsonl` ({SHARD_SIZE} rows each; the `{main}` "
                  f"config), `{dataset.merged_file}` (the same rows concatenated, for convenience; not a config), "
                  "`tasks_holdout.jsonl`.")
    return (
        f"## Format\n\n{dataset.format_notes}\n\n| field | type |\n|---|---|\n"
        + "\n".join(rows)
        + f"\n\nThe `{HOLDOUT_CONFIG}` config (`{HOLDOUT_FILE}`) holds held-out task specs with no solution: "
        f"{holdout}. They are the fixed benchmark {benchmark.VERSION} (whole (op, gpu, shape) groups chosen by a "
        "stable hash, the same for every seed and size; `stats.json` names the version under `generator`), and no "
        "group of it appears in training rows of any seed or size.\n\n"
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
    """The training view configs: what a row is, its prompt form and reward, its columns and token sizes."""
    window = (stats.get("generator") or {}).get("window_tokens")
    budget = f"{window:,}" if isinstance(window, int) else "the `--window-tokens`"
    name = dataset.name
    calls = "\n".join(f'ds = load_dataset("path/to/{name}", "{v.name}", split="train")' for v in dataset.views)
    parts = [f"## Training views\n\nConfigs derived from the `{dataset.main_config.name}` rows, one zstd Parquet "
             f"file per batch (`views/<config>/<config>_NNN.parquet`), each row within {budget} tokens (a "
             "conservative count: `ceil(utf8 bytes / 2)` per text plus 8 per chat turn). `tokens` in "
             "`stats.json` gives characters and tokens per row of every config, and the share of rows fitting "
             "32K and 128K. They are made from every training row, `validation` families included (a view row's "
             "id names its session or episode):\n\n"
             f"```python\nfrom datasets import load_dataset\n\n{calls}\n```"]
    for v in dataset.views:
        columns = ", ".join(f"`{name}` ({feature_type(f)})" for name, f in v.features.items())
        parts.append(f"### `{v.name}`\n\nOne row: {v.description}. {v.prompt_form}\n\nColumns: {columns}.")
    return "\n\n".join(parts)


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


def _loading(dataset: Dataset, data_format: str) -> str:
    main, cls, name = dataset.configs[0].name, dataset.builder_name, dataset.name
    count = f"num_{dataset.count_flag}"
    files = "Parquet files under `data/`" if data_format == "parquet" else "`batches/*.jsonl`"
    calls = [
        (f'ds = load_dataset("ORG/{name}", "{main}", split="train")', "from the Hub"),
        (f'ds = load_dataset("path/to/{name}", "{main}", split="train")', "a generated or downloaded folder"),
        (f'it = load_dataset("ORG/{name}", "{main}", split="train", streaming=True)', "streaming, shard by shard"),
        (f'holdout = load_dataset("ORG/{name}", "{HOLDOUT_CONFIG}", split="test")', "held-out tasks, no solutions"),
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
