"""Differential test: the validator against `datasets`' own JSON reader with the builders' features.

Seeded mutations of real rows (values of every JSON type and range at every field, deleted and extra keys,
int/float flips, and raw-text edits: wide integers, NaN, duplicate keys, truncation, stray bytes) go through
`validate_paths` and through `datasets.packaged_modules.json.Json._generate_tables` (the code `load_dataset`
runs, in-process) plus the features' decoding. A case the validator passes must load, and load back exactly the
row it holds (types included: 1 is not 1.0 is not True). The validator may reject more, never less.
"""
from __future__ import annotations

import copy
import functools
import json
import random
from pathlib import Path

import orjson
import pytest

from generator.registry import row_features
from generator.check.validate import validate_paths

SCHEMAS = ("session", "episode", "task")
N_FAST, N_SLOW = 200, 3000

VALUES = [None, True, False, 0, 1, -1, 7, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64 - 1,
          0.0, -0.0, 1.5, 0.25, 3.0, 1e-11, 1.5e-7, 0.1 + 0.2, 0.012514, 1.797e308, 5e-324, 1e20, 123456.789012345,
          "", "x", "5", "1.5", "null", "true", "{}", "[]", '{"B": 1}', "é\n\u2028\t\"\\", "\x00", "a" * 5000,
          [], {}, [1], [1.5], ["x"], [None], {"a": 1}, {"B": 8}, {"B": 1.5}, {"B": [1]}, {"B": {"C": 1}}, [[1]],
          [{"role": "user", "content": "x"}], {"step": 1, "time_ms": 0.5, "speedup": 2.0}]
RAW_NUMBERS = [b"18446744073709551616", b"-9223372036854775809", b"99999999999999999999", b"1e400", b"NaN",
               b"-Infinity", b"1.0", b"-0", b"1E2", b"0.10000000000000001", b"9223372036854775808", b"1e-400"]


@functools.cache
def base_rows(schema: str) -> tuple[bytes, ...]:
    """A few real rows of the format, as the writers serialize them: the two shortest of a small run (every
    mutant is validated with precise error paths, whose cost grows with the row)."""
    if schema == "session":
        from generator.kernelinfer.dataset import rows_for_shard
        rows = list(rows_for_shard(0, 30, 3, 0))
    elif schema == "episode":
        from generator.kernelswarm.dataset import episode
        rows = [episode(0, 100, 3, i) for i in range(40)]
    else:
        from generator.kernelinfer.dataset import holdout_rows
        rows = holdout_rows(0, 30, 3)
    return tuple(sorted((orjson.dumps(r) for r in rows), key=len)[:2])


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


@functools.cache
def _paths_by_shape(line: bytes) -> dict[tuple, list[tuple]]:
    """Every path of the row, grouped by its shape (list indices as 0): a draw picks a field kind first, so a
    session's thousand message strings do not drown its twenty numeric fields."""
    groups: dict[tuple, list[tuple]] = {}
    for path in _paths(orjson.loads(line)):
        groups.setdefault(tuple(0 if isinstance(p, int) else p for p in path), []).append(path)
    return groups


def mutate(line: bytes, rng: random.Random) -> bytes:
    """One mutant line (with its newline)."""
    op = rng.random()
    if op < 0.25:
        return _raw_mutation(line, rng) + b"\n"
    row = orjson.loads(line)
    groups = _paths_by_shape(line)
    path = rng.choice(groups[rng.choice(list(groups))])
    for _ in range(rng.choice([1, 1, 1, 2])):
        row = _tree_mutation(row, path, rng)
        path = rng.choice(list(_paths(row)))
    return _text(row) + b"\n"


def _text(value) -> bytes:
    """Compact JSON as orjson writes it, or (ints beyond 64 bits, which orjson refuses) as the json module does."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _tree_mutation(row, path: tuple, rng: random.Random):
    if not path:
        return {} if rng.random() < 0.5 else {**row, "extra": rng.choice(VALUES)}
    parent = row
    for p in path[:-1]:
        parent = parent[p]
    key, old = path[-1], parent[path[-1]]
    kind = rng.random()
    if kind < 0.15 and isinstance(parent, dict):
        del parent[key]
    elif kind < 0.25 and isinstance(parent, dict):
        parent[rng.choice(["extra", key + "_", "x" * 3])] = rng.choice(VALUES)
    elif kind < 0.4 and type(old) in (int, float):
        parent[key] = float(old) if type(old) is int else (int(old) if rng.random() < 0.5 else old * 1.0000001)
    elif kind < 0.45 and isinstance(old, list) and old:
        old.append(old[0]) if rng.random() < 0.5 else old.pop()
    else:
        parent[key] = copy.deepcopy(rng.choice(VALUES)) if rng.random() < 0.9 else rng.choice([2**64, -(2**64), 10**30])
    return row


def _raw_mutation(line: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(7)
    if kind == 0:                       # one number token replaced by a raw token
        import re
        spots = [m.span(1) for m in re.finditer(rb'[:,\[](-?\d[\d.eE+-]*)', line)]
        a, b = rng.choice(spots)
        return line[:a] + rng.choice(RAW_NUMBERS) + line[b:]
    if kind == 1:                       # a duplicate key
        key = rng.choice(list(orjson.loads(line)))
        return b"{" + orjson.dumps(key) + b":" + _text(rng.choice(VALUES)) + b"," + line[1:]
    if kind == 2:                       # truncated
        return line[:rng.randrange(1, len(line))]
    if kind == 3:                       # stray bytes
        at = rng.randrange(len(line))
        return line[:at] + rng.choice([b" ", b"\r", b"\t", b"\xef\xbb\xbf", b"\xff", b"\x00", b"}"]) + line[at:]
    if kind == 4:
        return rng.choice([b"", b" ", b"{}", b"[]", b"null", b"1", line + b" " + line, b"\xef\xbb\xbf" + line])
    if kind == 5:                       # other spacing (valid JSON, not orjson's)
        return orjson.dumps(orjson.loads(line), option=orjson.OPT_INDENT_2).replace(b"\n", b" ")
    return line.replace(b'"', b"'", 1)


# ------------------------------------------------------------------------------------------------ the loader
@functools.cache
def _builder(schema: str, folder: Path):
    import datasets
    from datasets.packaged_modules.json.json import Json

    datasets.disable_progress_bars()
    probe = folder / f"{schema}.probe.jsonl"
    probe.write_bytes(base_rows(schema)[0] + b"\n")
    return Json(features=row_features(schema), data_files={"train": [str(probe)]}, cache_dir=str(folder / "cache"))


def load(schema: str, path: Path, folder: Path) -> list:
    """The rows `load_dataset(..., features=...)` gives for the file: its JSON reader, cast and decoding."""
    builder = _builder(schema, folder)
    features = row_features(schema)
    rows = []
    for _key, table in builder._generate_tables(base_files=[str(path)], files_iterables=[[str(path)]],
                                                original_files=[str(path)]):
        rows += [features.decode_example(r) for r in table.to_pylist()]
    return rows


def same(loaded, row, top: bool = True) -> bool:
    """Equal with JSON types kept apart (1, 1.0 and True differ), key order ignored. Below the top level a key the
    row lacks may load as null: a struct's declared fields are all present after the cast (kernelswarm messages
    carry only their kind's fields); a missing column, or any other difference, is a change."""
    if type(loaded) is not type(row):
        return False
    if isinstance(row, dict):
        absent = loaded.keys() - row.keys()
        return (row.keys() <= loaded.keys() and (not top or not absent)
                and all(loaded[k] is None for k in absent) and all(same(loaded[k], row[k], False) for k in row))
    if isinstance(row, list):
        return len(loaded) == len(row) and all(same(x, y, False) for x, y in zip(loaded, row))
    return loaded == row


def disagreements(schema: str, n: int, seed: int, folder: Path) -> tuple[list[str], int]:
    """(cases the validator passed that the loader refused or changed, how many the validator passed)."""
    rng = random.Random(seed)
    bases = base_rows(schema)
    path = folder / f"{schema}.jsonl"
    bad, passed = [], 0
    for case in range(n):
        line = mutate(rng.choice(bases), rng)
        path.write_bytes(line)
        if not validate_paths([path], schema=schema).ok:
            continue
        passed += 1
        try:
            rows = load(schema, path, folder)
        except Exception as exc:          # what load_dataset raises is not ours to narrow
            bad.append(f"case {case}: loader failed: {type(exc).__name__}: {str(exc)[:200]}: {line[:300]!r}")
            continue
        if len(rows) != 1 or not same(rows[0], orjson.loads(line)):
            bad.append(f"case {case}: loaded back changed: {line[:300]!r}")
    return bad, passed


@pytest.mark.parametrize("schema", SCHEMAS)
def test_the_validator_never_passes_what_the_loader_refuses_or_changes(schema, tmp_path):
    bad, passed = disagreements(schema, N_FAST, seed=19, folder=tmp_path)
    assert bad == []
    assert 0 < passed < N_FAST          # the corpus holds both kinds: the comparison means something


@pytest.mark.slow
@pytest.mark.parametrize("schema", SCHEMAS)
def test_differential_large_corpus(schema, tmp_path):
    bad, passed = disagreements(schema, N_SLOW, seed=2019, folder=tmp_path)
    assert bad == [] and passed > 0


def test_unmutated_rows_load_back_unchanged(tmp_path):
    """The harness itself: real rows pass both sides."""
    for schema in SCHEMAS:
        path = tmp_path / f"{schema}.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in base_rows(schema)))
        assert validate_paths([path], schema=schema).ok
        assert all(same(got, orjson.loads(want)) for got, want in zip(load(schema, path, tmp_path),
                                                                      base_rows(schema), strict=True))
