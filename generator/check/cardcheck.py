"""A folder's dataset card (README.md YAML) against its files: what `load_dataset(folder, config)` will read.

`configs` decide which files each config loads and `dataset_info` which columns it casts them to
(hf_datasets_5x_findings.md sections 1 and 4). A data_files pattern that matches nothing fails to load; a main
config that also matches the merged view loads every row twice; a feature list that lacks a column the rows
have fails Arrow's cast (`column names don't match`), and one with a column the rows lack fills it with nulls.
A README without YAML front matter is not a problem: the loader then infers everything.
"""
from __future__ import annotations

from pathlib import Path

import orjson
import yaml

from generator.check import schemas
from generator.registry import row_features

CARD = "README.md"


def card_problems(folder: Path, schema_of, shard_dir: str, merged_names) -> list[str]:
    """Problems of `folder`'s card; `schema_of(path)` names the row schema of a data file (or None); shards live
    in `shard_dir`, and a file named in `merged_names` is the concatenation of those shards. Any shape of YAML
    gives findings, never an exception."""
    meta = _front_matter(folder / CARD)
    if isinstance(meta, str):
        return [meta]
    if meta is None:
        return []
    if not isinstance(meta, dict):
        return [f"{CARD}: YAML front matter is a {type(meta).__name__}, not a mapping"]
    configs = meta.get("configs") or []
    if not isinstance(configs, list) or not all(isinstance(c, dict) for c in configs):
        return [f"{CARD}: configs must be a list of mappings"]
    problems = []
    columns, info_problems = _declared_features(meta.get("dataset_info"))
    problems += info_problems
    for config in configs:
        name = config.get("config_name", "default")
        files = []
        patterns, bad = _patterns(config.get("data_files"))
        problems += [f"{CARD}: config {name!r}: {msg}" for msg in bad]
        for pattern in patterns:
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
    """The YAML mapping, None without front matter, or a one-line problem (str)."""
    if not readme.is_file():
        return None
    try:
        text = readme.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"{CARD}: not UTF-8 (byte {exc.start + 1})"
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    if end < 0:
        return f"{CARD}: YAML front matter has no closing ---"
    try:
        return yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark else ""
        return f"{CARD}: YAML front matter does not parse{where}: {getattr(exc, 'problem', None) or exc}"


def _patterns(data_files) -> tuple[list[str], list[str]]:
    """(every relative path pattern of a config's data_files (a string, a list, or a list of {split, path}),
    problems with the rest)."""
    entries = [data_files] if isinstance(data_files, str) else data_files or []
    if not isinstance(entries, list):
        return [], [f"data_files must be a string or a list, not {type(entries).__name__}"]
    out, bad = [], []
    for entry in entries:
        paths = entry.get("path") if isinstance(entry, dict) else entry
        for path in [paths] if not isinstance(paths, list) else paths:
            if not isinstance(path, str) or not path:
                bad.append(f"data_files path {str(path)[:60]!r} is not a non-empty string")
            elif path.startswith("/") or ".." in Path(path).parts:
                bad.append(f"data_files path {path[:60]!r} points outside the folder")
            else:
                out.append(path)
    return out, bad


def _declared_features(dataset_info) -> tuple[dict[str, list[dict]], list[str]]:
    """(config name -> its dataset_info features (a mapping is the 'default' config), problems)."""
    infos = [dataset_info] if isinstance(dataset_info, dict) else dataset_info or []
    if not isinstance(infos, list):
        return {}, [f"{CARD}: dataset_info must be a mapping or a list"]
    out, problems = {}, []
    for info in infos:
        if not isinstance(info, dict):
            continue
        name = info.get("config_name", "default")
        features = info.get("features", [])
        if not isinstance(features, list) or not all(isinstance(f, dict) and isinstance(f.get("name"), str)
                                                      for f in features):
            problems.append(f"{CARD}: config {name!r}: dataset_info features must be a list of mappings with a name")
            continue
        out[name] = features
    return out, problems


def _column_problems(config: str, declared: list[dict], schema: str) -> list[str]:
    """The declared features against the builders' (generator.builder.row_features): names, then types."""

    names = [f["name"] for f in declared]
    rows = list(schemas.load(schema)["properties"])
    missing = [c for c in rows if c not in names]
    extra = [c for c in names if c not in rows]
    out = []
    if missing:
        out.append(f"{CARD}: config {config!r}: dataset_info lacks {', '.join(missing)} that the rows have "
                   "(the cast fails: column names don't match)")
    if extra:
        out.append(f"{CARD}: config {config!r}: dataset_info declares {', '.join(extra)} that the rows lack "
                   "(loaded as all-null columns)")
    want = {f["name"]: f for f in row_features(schema)._to_yaml_list()}
    for feature in declared:
        expected = want.get(feature["name"])
        if expected is not None and feature != expected:
            out.append(f"{CARD}: config {config!r}: feature {feature['name']!r} is declared {_type_text(feature)} "
                       f"but the builders declare {_type_text(expected)} (load_dataset casts the rows to the card's)")
    return out


def _type_text(feature: dict) -> str:
    text = orjson.dumps({k: v for k, v in feature.items() if k != "name"}, default=str).decode()
    return text if len(text) <= 80 else text[:80] + "..."
