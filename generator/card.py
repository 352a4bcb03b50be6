"""The dataset card (README.md): YAML front matter generated from the builders, prose from stats.json.

The Hub (and `load_dataset(folder)`) reads only the YAML: `configs` says which files make which config and
split, `dataset_info` fixes the features so the JSON loader never guesses them from one file. Both come from
the builder classes in `kernelinfer.py` / `kernelswarm.py`, so there is no second copy of any feature list.
"""
from __future__ import annotations

import importlib

import datasets
from huggingface_hub import DatasetCard, DatasetCardData

from generator.features import HOLDOUT_CONFIG, KernelstrainBuilder

DATASETS = ("kernelinfer", "kernelswarm")
TASK_CATEGORIES = ["text-generation"]
COMMON_TAGS = ["cuda", "triton", "kernel-optimization", "gpu", "inference", "llm-inference", "synthetic-data"]
EXTRA_TAGS = {"kernelinfer": ["long-horizon", "sft"], "kernelswarm": ["multi-agent", "reinforcement-learning"]}
PRETTY_NAMES = {"kernelinfer": "kernelstrain — kernelinfer", "kernelswarm": "kernelstrain — kernelswarm"}
SIZE_BOUNDS = [
    (1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"),
]


def builder_module(dataset: str):
    """The builder module (`kernelinfer` or `kernelswarm`), the source of configs and features."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; expected one of {', '.join(DATASETS)}")
    return importlib.import_module(dataset)


def builder_class(dataset: str) -> type[KernelstrainBuilder]:
    module = builder_module(dataset)
    return next(
        obj for obj in vars(module).values()
        if isinstance(obj, type) and issubclass(obj, KernelstrainBuilder) and obj is not KernelstrainBuilder
    )


def data_files(dataset: str, data_format: str = "jsonl") -> dict[str, dict[str, str]]:
    """config -> {split: path pattern} in a dataset folder (jsonl) or a staged Parquet repo."""
    builder = builder_class(dataset)
    out = {}
    for config in builder.BUILDER_CONFIGS:
        split = builder.split_for(config.name)
        if data_format == "jsonl":
            out[config.name] = {split: builder.pattern_for(config.name)}
        elif data_format == "parquet":
            from generator.parquet import shard_pattern

            out[config.name] = {split: shard_pattern(config.name, split)}
        else:
            raise ValueError(f"unknown data format {data_format!r}; expected jsonl or parquet")
    return out


def size_category(num_rows: int) -> str:
    return next((label for bound, label in SIZE_BOUNDS if num_rows < bound), "n>1B")


def card_metadata(dataset: str, *, num_rows: int | None = None, data_format: str = "jsonl") -> dict:
    """YAML front matter: license, task_categories, tags, size_categories, configs, dataset_info."""
    return _card_data(dataset, num_rows, data_format).to_dict()


def _card_data(dataset: str, num_rows: int | None, data_format: str) -> DatasetCardData:
    builder = builder_class(dataset)
    card_data = DatasetCardData(
        license="mit",
        pretty_name=PRETTY_NAMES[dataset],
        task_categories=TASK_CATEGORIES,
        tags=COMMON_TAGS + EXTRA_TAGS[dataset],
        size_categories=[size_category(num_rows)] if num_rows is not None else None,
        configs=[
            {
                "config_name": name,
                **({"default": True} if name == builder.DEFAULT_CONFIG_NAME else {}),
                "data_files": [{"split": split, "path": path} for split, path in splits.items()],
            }
            for name, splits in data_files(dataset, data_format).items()
        ],
    )
    infos = datasets.info.DatasetInfosDict(
        {c.name: datasets.DatasetInfo(features=builder.features_for(c.name)) for c in builder.BUILDER_CONFIGS}
    )
    infos.to_dataset_card_data(card_data)
    return card_data


def num_rows_from(dataset: str, stats: dict) -> int | None:
    """The row count stats.json states (its key names the dataset's unit: sessions or episodes)."""
    unit = builder_module(dataset).MAIN_CONFIG
    for key in (f"num_{unit}", unit, "num_rows", "rows"):
        if isinstance(stats.get(key), int):
            return stats[key]
    return None


def render_card(dataset: str, stats: dict, *, data_format: str = "jsonl") -> str:
    """The full README.md: front matter from `card_metadata`, then the prose sections."""
    card_data = _card_data(dataset, num_rows_from(dataset, stats), data_format)
    module = builder_module(dataset)
    sections = [
        f"# {PRETTY_NAMES[dataset]}\n\n{module.DESCRIPTION}\n\n{SIMULATED_WARNING}",
        _scope(),
        _hardware(),
        _format(dataset, module),
        _statistics(stats),
        PROVENANCE,
        _loading(dataset, module, data_format),
        f"## Citation\n\n```bibtex\n{module.CITATION}\n```",
    ]
    return str(DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n" + "\n\n".join(sections) + "\n"))


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
    from generator.ops import OPS

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
    from generator.hardware import GPUS

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


FORMAT_NOTES = {
    "kernelinfer": (
        "One row is one optimization session. `messages` is the training text in chat form: a system turn, the "
        "user's task, then alternating assistant turns (the full kernel source, no prose) and user feedback "
        "whose first line is `[t+H:MM:SS] RESULT <status>` (`ok`, `compile_error`, `launch_error`, `wrong_result`). `trace` is "
        "compact per-step metadata (variant `tag`, step `kind`, tuned `params`, `status`, `time_ms` null unless "
        "ok, `kept`)."
    ),
    "kernelswarm": (
        "One row is one multi-agent episode. `messages` is the episode's log; each message has the common "
        "fields `role`, `agent`, `kind`, `content`, `t` (seconds since start) and `reward`, plus kind-specific "
        "fields (`to`, `subtask`, `variant`, `params`, `status`, `time_ms`) that are null where a kind does not use them. Rewards are "
        "attached to environment `result` messages and to the final `verdict`."
    ),
}


def _format(dataset: str, module) -> str:
    rows = [f"| `{name}` | {feature_type(f)} |" for name, f in module.FEATURES.items()]
    holdout = ", ".join(f"`{name}`" for name in module.HOLDOUT_FEATURES)
    return (
        f"## Format\n\nJSONL, one row per line. {FORMAT_NOTES[dataset]}\n\n| field | type |\n|---|---|\n"
        + "\n".join(rows)
        + f"\n\nThe `{HOLDOUT_CONFIG}` config (`tasks_holdout.jsonl`) holds held-out task specs with no solution: "
        f"{holdout}. No (op, impl, gpu, dtype, shape) of a held-out task appears in training rows.\n\n"
        f"Files: `batches/batch_NNN.jsonl` (100 rows each; the `{module.MAIN_CONFIG}` config), `{module.MERGED_FILE}` "
        "(the same rows concatenated, for convenience; not a config), `tasks_holdout.jsonl`, `stats.json` "
        "(aggregate statistics), `qa_reports/batch_NNN.json` (mechanical checks per batch)."
    )


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


SFT_SNIPPETS = {
    "kernelinfer": '''# messages are already chat turns ({"role", "content"}): one SFT sample per session
sft = ds.select_columns(["messages"])
# text = tokenizer.apply_chat_template(sft[0]["messages"], tokenize=False)''',
    "kernelswarm": '''# one SFT sample per agent: its own turns as assistant, what it saw as user turns
def agent_view(row, agent):
    return [
        {"role": "assistant" if m["agent"] == agent else "user",
         "content": m["content"] if m["agent"] == agent else f"[{m['agent']} {m['kind']}] {m['content']}"}
        for m in row["messages"]
    ]
sample = agent_view(ds[0], ds[0]["agents"][1]["id"])''',
}


def _loading(dataset: str, module, data_format: str) -> str:
    main, cls = module.MAIN_CONFIG, builder_class(dataset).__name__
    count = builder_class(dataset).COUNT_FIELD
    files = "Parquet shards under `data/`" if data_format == "parquet" else "`batches/*.jsonl`"
    calls = [
        (f'ds = load_dataset("ORG/{dataset}", "{main}", split="train")', "from the Hub"),
        (f'ds = load_dataset("path/to/{dataset}", "{main}", split="train")', "a generated or downloaded folder"),
        (f'it = load_dataset("ORG/{dataset}", "{main}", split="train", streaming=True)', "streaming, shard by shard"),
        (f'holdout = load_dataset("ORG/{dataset}", "{HOLDOUT_CONFIG}", split="test")', "held-out tasks, no solutions"),
        ('ds[0]["shape"]', "a dict with the op's own keys"),
    ]
    width = max(len(code) for code, _ in calls) + 2
    snippet = "\n".join(f"{code.ljust(width)}# {comment}" for code, comment in calls)
    return f"""## Loading

The configs come from this card's YAML (`{main}` reads {files}, `{HOLDOUT_CONFIG}` the held-out tasks), so no
loading script is needed (datasets >= 4):

```python
from datasets import load_dataset

{snippet}
```

The builder in the kernelstrain repository (`{dataset}.py`, importable, never part of the data folder) reads a
folder or regenerates rows for a seed:

```python
from {dataset} import {cls}

b = {cls}(config_name="{main}", data_dir="path/to/{dataset}")
b.download_and_prepare(); ds = b.as_dataset(split="train")
# generated on the fly: the rows `python -m generator {dataset} --seed 0 --{count[4:]} 100 --holdout 10` writes
b = {cls}(config_name="{main}", seed=0, {count}=100, num_holdout=10)
```

Chat-format SFT samples:

```python
{SFT_SNIPPETS[dataset]}
```"""
