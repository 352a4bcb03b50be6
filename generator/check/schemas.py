"""The row schemas of `schema/`, compiled once: a fast yes/no check, and precise messages only for failures.

Why two validators: a compiled check (jsonschema-rs, ~14x faster than fastjsonschema on our rows, which is in
turn far faster than pure Python) runs on every row; `jsonschema` then explains only the rows that fail, with
every error and its JSON path (`messages/12/role`).

The documents are the top-level `schema/` folder of the repo, reached as the `generator.schema` package (the
symlink generator/schema -> ../schema in a checkout, real files in the wheel), so they are read with
`importlib.resources` and never looked for next to the package.

JSON Schema cannot tell `1` from `1.0`, but Arrow can: an int-only shard in a float column breaks casting, and
a `1.0` in an int column does too. So a field the schema declares `number` must hold a float and an `integer`
field an int; `number_problems` walks exactly those fields (derived from the schema, not listed twice).
"""
from __future__ import annotations

import functools
import importlib.resources
import re
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

import jsonschema
import jsonschema_rs
import orjson
import referencing

from generator.registry import id_fields, schema_names

NAMES = schema_names()   # every document of schema/, from the dataset descriptors
ID_FIELDS = id_fields()   # row schema -> its id field, from the dataset descriptors


SCHEMA_DIR = importlib.resources.files("generator.schema")   # a Traversable: read it, do not assume a file system


def schema_path(name: str):
    return SCHEMA_DIR / f"{name}.schema.json"


@functools.cache
def load(name: str) -> dict:
    """The schema document `name` (one of NAMES)."""
    if name not in NAMES:
        raise KeyError(f"unknown schema {name!r}; expected one of {', '.join(NAMES)}")
    return orjson.loads(schema_path(name).read_bytes())


@functools.cache
def _by_id() -> dict[str, dict]:
    return {load(name)["$id"]: load(name) for name in NAMES}


@functools.cache
def registry() -> referencing.Registry:
    resources = [(uri, referencing.Resource.from_contents(doc)) for uri, doc in _by_id().items()]
    return referencing.Registry().with_resources(resources)


def json_path(parts) -> str:
    """`messages/12/role`; the row itself is `/`."""
    return "/".join(str(p) for p in parts) or "/"


@dataclass(frozen=True)
class NumberField:
    """A numeric field: `path` to it (`*` = every array item), the Python type it must hold, null allowed or not."""

    path: tuple[str, ...]
    type: type
    nullable: bool


class RowSchema:
    """One compiled schema: `is_valid` for the hot path, `errors` for the rows that fail it."""

    def __init__(self, name: str):
        self.name = name
        self.document = load(name)
        self.is_valid = _compile_fast(self.document)
        self._precise = _PreciseValidator(self.document, registry=registry())
        self.number_fields = tuple(_number_fields(self.document, self.document, ()))
        self.nullable_paths = frozenset(f.path for f in self.number_fields if f.nullable)
        self._tree = _tree(self.number_fields)
        self._numbers_ok = _compile_numbers(self._tree)

    def errors(self, row) -> list[tuple[str, str]]:
        """Every violation as (JSON path, message), in document order.

        Empty when the only complaint of the fast check was a float with an integral value in an integer field
        (fastjsonschema is stricter there than the spec); `number_problems` reports that one.
        """
        found = sorted(self._precise.iter_errors(row), key=lambda e: [str(p) for p in e.absolute_path])
        out, missing = [], {}
        for e in found:
            where = json_path(e.absolute_path)
            if e.validator == "required" and not e.context:   # one message per object, not per missing field
                names = missing.setdefault(where, {})
                names.update(dict.fromkeys(k for k in e.validator_value if k not in e.instance))
            else:
                out.append((where, _message(e)))
        out += [(where, f"missing required {', '.join(names)} (rule required)") for where, names in missing.items()]
        return out

    def number_problems(self, row, seen: set[tuple[str, ...]]) -> list[tuple[str, str]]:
        """Ints in float fields and floats in int fields, as (path, message).

        Adds to `seen` the path of each nullable field that holds a number (a file where one never does makes
        Arrow infer a null column, see validate's cross-file rules).
        """
        if self._numbers_ok(row, seen):
            return []
        out: list[tuple[str, str]] = []
        _walk_numbers(row, self._tree, (), out, seen)
        return out


@functools.cache
def _ecma(pattern: str) -> re.Pattern:
    """`pattern` as JSON Schema reads it (ECMA-262): `$` only at the very end, where Python's also matches before a
    final newline (so `"a01\\n"` would pass `^(lead|a[0-9]{2})$` here but fail the compiled check)."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        in_class = (in_class and char != "]") or (not in_class and char == "[")
        out.append(r"\Z" if char == "$" and not in_class else char)
        i += 1
    return re.compile("".join(out))


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _ecma(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


_PreciseValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _pattern})


@functools.cache
def compiled(name: str) -> RowSchema:
    return RowSchema(name)


def _compile_fast(document: dict):
    """A `row -> bool` check compiled from the schema, resolving cross-file `$ref`s from schema/ only."""
    resources = [(uri, doc) for uri, doc in _by_id().items()]
    return jsonschema_rs.validator_for(document, registry=jsonschema_rs.Registry(resources)).is_valid


def _message(error: jsonschema.ValidationError) -> str:
    if error.context:  # a failed if/then/allOf: say what inside it failed
        return "; ".join(f"{json_path(e.relative_path) if e.relative_path else ''} {_message(e)}".strip()
                         for e in error.context)
    if error.validator == "const":
        return f"{error.instance!r} is not the allowed {error.validator_value!r} (rule const)"
    return f"{error.message} (rule {error.validator})"


def _resolve(root: dict, node: dict) -> tuple[dict, dict]:
    """Follow `$ref` (local or into another schema/ file); returns (document, subschema)."""
    while "$ref" in node:
        target, _, pointer = node["$ref"].partition("#")
        if target:
            root = load(Path(target).name.removesuffix(".schema.json"))
        node = root
        for part in filter(None, pointer.split("/")):
            node = node[part]
    return root, node


def _number_fields(root: dict, node: dict, path: tuple[str, ...]):
    root, node = _resolve(root, node)
    types = node.get("type")
    types = {types} if isinstance(types, str) else set(types or ())
    if path and types & {"number", "integer"} and not types - {"number", "integer", "null"}:
        kind = int if "integer" in types else float
        if not (kind is int and "number" in types):  # a number-or-integer field takes both
            yield NumberField(path, kind, "null" in types)
    for key, child in node.get("properties", {}).items():
        yield from _number_fields(root, child, path + (key,))
    if isinstance(node.get("items"), dict):
        yield from _number_fields(root, node["items"], path + ("*",))


def _tree(fields) -> dict:
    """Nest the paths so one walk of a row visits each container once: {key: subtree | NumberField}."""
    tree: dict = {}
    for field in fields:
        node = tree
        for part in field.path[:-1]:
            node = node.setdefault(part, {})
        node[field.path[-1]] = field
    return tree


def _compile_numbers(tree: dict):
    """`(obj, seen) -> bool`: the hot-path form of `_walk_numbers`. No paths are built, and the fields of array
    items are read with one `map` per field, so a 200-step trace costs a few C-level passes and no bytecode per
    item."""
    leaves = [(key, sub.type, sub.nullable and sub.path) for key, sub in tree.items() if isinstance(sub, NumberField)]
    arrays, structs = [], []
    for key, sub in tree.items():
        if isinstance(sub, NumberField):
            continue
        if "*" in sub:
            items = sub["*"]
            item_leaves = [(k, f.type, f.nullable and f.path) for k, f in items.items() if isinstance(f, NumberField)]
            nested = {k: f for k, f in items.items() if not isinstance(f, NumberField)}
            arrays.append((key, item_leaves, _compile_numbers(nested) if nested else None))
        else:
            structs.append((key, _compile_numbers(sub)))

    def ok(obj, seen: set) -> bool:
        good = True
        for key, kind, nullable in leaves:
            value = obj.get(key)
            if value is not None:
                if type(value) is not kind and type(value) in _NUMBER_TYPES:
                    good = False
                elif nullable:
                    seen.add(nullable)
        for key, item_leaves, nested in arrays:
            items = obj.get(key)
            if type(items) is not list:
                continue
            if set(map(type, items)) - _DICT:
                items = [item for item in items if type(item) is dict]
            for field, kind, nullable in item_leaves:
                types = set(map(type, map(dict.get, items, repeat(field))))
                if kind in types:
                    if nullable:
                        seen.add(nullable)
                    types.discard(kind)
                if types & _NUMBER_TYPES:
                    good = False
            if nested is not None and not all([nested(item, seen) for item in items]):
                good = False
        for key, check in structs:
            value = obj.get(key)
            if type(value) is dict and not check(value, seen):
                good = False
        return good

    return ok


_NUMBER_TYPES = frozenset({int, float})
_DICT = frozenset({dict})


def _walk_numbers(value, tree: dict, shown: tuple, out: list, seen: set) -> None:
    if not isinstance(value, dict):
        return
    for key, sub in tree.items():
        child = value.get(key)
        if child is None:
            continue
        if isinstance(sub, NumberField):
            kind = type(child)
            if kind is not sub.type and kind in (int, float):
                want = "float" if sub.type is float else "int"
                out.append((json_path(shown + (key,)), f"{child!r} is {kind.__name__}, the field is {want} everywhere"))
            elif sub.nullable:
                seen.add(sub.path)
        elif "*" in sub:
            if isinstance(child, list):
                items = sub["*"]
                for i, item in enumerate(child):
                    _walk_numbers(item, items, shown + (key, i), out, seen)
        else:
            _walk_numbers(child, sub, shown + (key,), out, seen)
