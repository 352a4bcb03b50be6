"""A folder's dataset card (README.md YAML) against its files: what `load_dataset(folder, config)` will read.

`configs` decide which files each config loads and `dataset_info` which columns it casts them to
(hf_datasets_5x_findings.md sections 1 and 4). A data_files pattern that matches nothing fails to load; a main
config that also matches the merged view loads every row twice; a feature list that lacks a column the rows
have fails Arrow's cast (`column names don't match`), and one with a column the rows lack fills it with nulls.
A README without YAML front matter is not a problem: the loader then infers everything.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from generator.check import schemas

CARD = "README.md"


def card_problems(folder: Path, schema_of, shard_dir: str, merged_names) -> list[str]:
    """Problems of `folder`'s card; `schema_of(path)` names the row schema of a data file (or None); shards live
    in `shard_dir`, and a file named in `merged_names` is the concatenation of those shards."""
    meta = _front_matter(folder / CARD)
    if not isinstance(meta, dict):
        return [] if meta is None else [f"{CARD}: YAML front matter is not a mapping"]
    problems = []
    columns = _declared_columns(meta.get("dataset_info"))
    for config in meta.get("configs") or []:
        name = config.get("config_name", "default")
        files = []
        for pattern in _patterns(config.get("data_files")):
            matched = sorted(p for p in folder.glob(pattern) if p.is_file())
            if not matched:
                problems.append(f"{CARD}: config {name!r}: data_files {pattern!r} matches no file")
            files += matched
        shards = any(p.parent == folder / shard_dir for p in files)
        if len(set(files)) < len(files) or (shards and any(p.name in merged_names for p in files)):
            problems.append(f"{CARD}: config {name!r} reads some rows twice (shards and merged view, or one file "
                            "matched by two patterns)")
        row_schemas = {schema_of(p) for p in files} - {None}
        if name in columns and len(row_schemas) == 1:
            problems += _column_problems(name, columns[name], row_schemas.pop())
    return problems


def _front_matter(readme: Path):
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    if end < 0:
        return f"{CARD}: YAML front matter has no closing ---"
    try:
        return yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        return f"{CARD}: YAML front matter does not parse: {exc}"


def _patterns(data_files) -> list[str]:
    """Every path pattern of a config's data_files (a string, a list, or a list of {split, path})."""
    if isinstance(data_files, str):
        return [data_files]
    out = []
    for entry in data_files or []:
        path = entry.get("path") if isinstance(entry, dict) else entry
        out += [path] if isinstance(path, str) else list(path or [])
    return out


def _declared_columns(dataset_info) -> dict[str, list[str]]:
    """config name -> the column names its dataset_info declares (a mapping is the 'default' config)."""
    infos = [dataset_info] if isinstance(dataset_info, dict) else dataset_info or []
    return {info.get("config_name", "default"): [f["name"] for f in info.get("features", [])] for info in infos
            if isinstance(info, dict)}


def _column_problems(config: str, declared: list[str], schema: str) -> list[str]:
    rows = list(schemas.load(schema)["properties"])
    missing = [c for c in rows if c not in declared]
    extra = [c for c in declared if c not in rows]
    out = []
    if missing:
        out.append(f"{CARD}: config {config!r}: dataset_info lacks {', '.join(missing)} that the rows have "
                   "(the cast fails: column names don't match)")
    if extra:
        out.append(f"{CARD}: config {config!r}: dataset_info declares {', '.join(extra)} that the rows lack "
                   "(loaded as all-null columns)")
    return out
