"""Numbers that `load_dataset` would refuse or silently change, found in a parsed row.

Why: `datasets`' JSON reader re-encodes every row with pandas' ujson (`ujson_dumps`, 10 decimal places) before
pyarrow parses it, and decodes `Json` columns with `ujson_loads`; so `1e-11` comes back as 0.0,
`0.30000000000000004` as 0.3 and `1.797e308` (in a `Json` column) as 1.7970000000000002e308, and an integer
outside int64 fails the whole load (`Value is too big!`). The validator holds every number of a row to what
that path preserves, using the very functions `datasets` calls (pandas' ujson), so it can never pass a row
the loader changes. Integers beyond 64 bits, which orjson reads as floats, are caught in `jsonl_lint`'s slow
look at the line (the float alone cannot tell it was written as an integer).
"""
from __future__ import annotations

import functools

import orjson
from generator.registry import row_features

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@functools.cache
def _ujson():
    from datasets.utils.json import ujson_dumps, ujson_loads     # the very functions the JSON loader calls

    return ujson_dumps, ujson_loads


@functools.cache
def json_paths(schema: str) -> frozenset[tuple]:
    """The `Json()` columns of the builder's features for a row schema, as paths with 0 for every list index
    (`("trace", 0, "params")`): the loader stores their values as JSON text and decodes it with ujson."""
    from datasets.utils.json import get_json_field_paths_from_feature


    return frozenset(tuple(p) for p in get_json_field_paths_from_feature(row_features(schema)))


def readback(value: float, in_json: bool) -> float | None:
    """What `load_dataset` returns for the float `value` as orjson wrote it: ujson reads the line, writes it
    again (10 decimal places), then pyarrow parses a plain column (float()) and ujson a `Json` one."""
    dumps, loads = _ujson()
    try:
        text = dumps(loads(orjson.dumps(value)))
        return loads(text) if in_json else float(text)
    except (OverflowError, ValueError):
        return None


def number_problems(row: dict, json_columns: frozenset[tuple] = frozenset()) -> list[tuple[str, str]]:
    """(JSON path, message) for every int outside int64 and every float the loader would change."""
    try:
        if _all_safe(row, (), json_columns, False):
            return []
    except RecursionError:     # nested deeper than Python recurses (orjson reads 1024 levels): walk without
        pass
    out: list[tuple[str, str]] = []
    stack: list[tuple[tuple, tuple, bool, object]] = [((), (), False, row)]
    while stack:
        path, shape, in_json, value = stack.pop()
        kind = type(value)
        if kind is dict or kind is list:
            for key, item in (value.items() if kind is dict else enumerate(value)):
                sub = shape + ((key,) if kind is dict else (0,))
                stack.append((path + (key,), sub, in_json or sub in json_columns, item))
        elif kind is int:
            if not INT64_MIN <= value <= INT64_MAX:
                out.append((_where(path), f"integer {_short(value)} is outside int64 (load_dataset: Value is too big)"))
        elif kind is float and readback(value, in_json) != value:
            out.append((_where(path), f"{value!r} does not survive load_dataset's JSON round trip (reads back as "
                                      f"{readback(value, in_json)!r}); round it"))
    out.sort()
    return out


def _all_safe(value, shape: tuple, json_columns: frozenset[tuple], in_json: bool) -> bool:
    """The fast yes of `number_problems` (no paths kept): most rows have no problem."""
    kind = type(value)
    if kind is dict:
        return all(_all_safe(v, s, json_columns, in_json or s in json_columns)
                   for k, v in value.items() if type(v) is not str for s in [shape + (k,)])
    if kind is list:
        sub = shape + (0,)
        inner = in_json or sub in json_columns
        return all(_all_safe(v, sub, json_columns, inner) for v in value if type(v) is not str)
    if kind is int:
        return INT64_MIN <= value <= INT64_MAX
    if kind is float:
        return readback(value, in_json) == value
    return True


def _short(value: int) -> str:
    text = str(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} digits)"


def _where(path: tuple) -> str:
    return "/".join(str(p) for p in path) or "/"
