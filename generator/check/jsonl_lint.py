"""Line-level checks of JSONL: every way a line breaks a JSON-lines reader before any schema applies.

The Hub viewer's `ValueError: Expected object or value` comes from `ujson_loads` on a blank, whitespace-only
or truncated line once a `Json` column is active (hf_datasets_5x_findings.md section 4); duplicate keys and
NaN are worse, because readers disagree on them silently. The hot path for a good line is one `orjson.loads`
and one `orjson.dumps`: our writers emit compact orjson, so identical bytes prove there is no duplicate key,
no stray CR and no non-standard token. Only lines that differ go through the slow diagnosis.
"""
from __future__ import annotations

import json
from typing import NamedTuple

import orjson

from generator.check.arrowsafe import INT64_MAX, INT64_MIN

BOM = b"\xef\xbb\xbf"

# Problem classes of this module: name -> what it means (used in docs and the summary).
KINDS = {
    "blank_line": "an empty line (ujson: Expected object or value)",
    "whitespace_line": "a line of only whitespace",
    "truncated": "the line ends inside a JSON value",
    "not_json": "the line is not JSON",
    "multiple_values": "more than one JSON value on one line",
    "not_object": "a JSON value that is not an object",
    "nan_infinity": "NaN or Infinity, which JSON does not have",
    "invalid_utf8": "bytes that are not UTF-8",
    "bom": "a UTF-8 byte order mark",
    "crlf": "a CRLF line ending",
    "cr": "a bare carriage return (CR line endings or a CR between tokens)",
    "duplicate_key": "an object with the same key twice (readers keep different ones)",
    "no_final_newline": "the last line has no newline",
    "number_range": "an integer outside int64 or a float that load_dataset reads back changed",
}


class LineProblem(NamedTuple):
    kind: str
    message: str


NONE: tuple[LineProblem, ...] = ()
BLANK = LineProblem("blank_line", "blank line (load_dataset: Expected object or value)")


def parse(line: bytes | memoryview, source: bytes | None = None, at: int = 0
          ) -> tuple[dict | None, tuple[LineProblem, ...] | list[LineProblem]]:
    """(row, problems) for one raw line with its b"\\n"; row is None when the line holds no usable object.

    `line` may be a view of `source` from byte `at` on: the bytes are then compared in place, never copied."""
    if line[0] == 10:          # b"\n": a blank line, without paying for orjson's exception
        return None, [BLANK]
    try:
        row = orjson.loads(line)
    except orjson.JSONDecodeError:
        return _diagnose(bytes(line))
    if type(row) is not dict:
        return None, [_not_object(row)]
    try:
        canonical = orjson.dumps(row)
    except TypeError:          # nested deeper than orjson writes (it reads deeper): check the slow way
        return row, _non_canonical(bytes(line))
    extra = len(line) - len(canonical)      # the row's own bytes, then b"\n" or the end of the file
    whole = line if source is None else source
    if (extra == 0 or (extra == 1 and line[-1] == 10)) and whole.startswith(canonical, at):
        return row, NONE
    return row, _non_canonical(bytes(line))


# For a file's last line when it lacks b"\n": cat, wc -l and appenders rely on the newline.
NO_FINAL_NEWLINE = LineProblem("no_final_newline", "last line has no final newline")


def _not_object(value) -> LineProblem:
    return LineProblem("not_object", f"a JSON {json_type(value)}, not an object: every line must be one row object")


def json_type(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def _non_canonical(line: bytes) -> list[LineProblem]:
    """A line orjson accepts but does not reproduce: CR bytes or duplicate keys, or just other spacing."""
    problems = _cr_problems(line)
    problems += _duplicate_keys(line.decode("utf-8"))
    return problems


def _cr_problems(line: bytes) -> list[LineProblem]:
    problems = []
    body = line.removesuffix(b"\n")
    if line.endswith(b"\r\n"):
        problems.append(LineProblem("crlf", "CRLF line ending (write LF only)"))
        body = body[:-1]
    column = body.find(b"\r") + 1
    if column:
        problems.append(LineProblem("cr", f"bare CR at column {column} (CR line endings?)"))
    return problems


def _duplicate_keys(text: str) -> list[LineProblem]:
    """Duplicate keys, and integers beyond 64 bits (orjson reads them as floats, so only the text tells)."""
    dups: list[str] = []
    wide: list[str] = []

    def integer(token: str):
        if len(token) > 20 or not INT64_MIN <= int(token) <= INT64_MAX:
            wide.append(token if len(token) <= 40 else f"{token[:20]}...({len(token)} digits)")
        return 0

    def pairs(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            seen = set()
            dups.extend(k for k in keys if k in seen or seen.add(k))
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs, parse_constant=float, parse_int=integer)
    except RecursionError:     # too deep for the slow look; no schema of ours accepts such a row anyway
        return []
    return ([LineProblem("duplicate_key", f"duplicate key {k!r} (orjson keeps the last value, others the first)")
             for k in dict.fromkeys(dups)]
            + [LineProblem("number_range", f"integer {token} is outside int64 (load_dataset: Value is too big)")
               for token in wide])


def _diagnose(line: bytes) -> tuple[dict | None, list[LineProblem]]:
    """Why orjson refused the line, as precisely as a second, slower look can tell."""
    body = line.removesuffix(b"\n")
    if not body.strip():
        if not body:
            return None, [BLANK]
        return None, [LineProblem("whitespace_line", "whitespace-only line (load_dataset: Expected object or value)")]
    problems: list[LineProblem] = []
    if body.startswith(BOM):
        problems.append(LineProblem("bom", "UTF-8 byte order mark at the start of the line"))
        body = body[len(BOM):]
    problems += _cr_problems(line)
    body = body.removesuffix(b"\r") if line.endswith(b"\r\n") else body
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, problems + [LineProblem("invalid_utf8", f"invalid UTF-8 at byte {e.start + 1}: {e.reason}")]
    try:
        row = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        return None, problems + _classify(text, str(e))
    if type(row) is not dict:
        return None, problems + [_not_object(row)]
    return row, problems + _duplicate_keys(text)


def _classify(text: str, orjson_error: str) -> list[LineProblem]:
    constants: list[str] = []
    decoder = json.JSONDecoder(parse_constant=lambda name: constants.append(name) or 0.0)
    start = len(text) - len(text.lstrip())

    def nan() -> list[LineProblem]:
        if not constants:
            return []
        return [LineProblem("nan_infinity", f"{constants[0]} is not JSON (ujson turns it into null)")]

    try:
        value, end = decoder.raw_decode(text, start)
    except RecursionError:
        return [LineProblem("not_json", f"nested too deeply to parse (orjson: {orjson_error})")]
    except json.JSONDecodeError as e:
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            problems = [LineProblem("truncated", f"line ends inside a JSON value (at column {len(text.rstrip()) + 1})")]
        else:
            problems = [LineProblem("not_json", f"{e.msg.removesuffix(' at')} at column {e.colno}")]
        return nan() + problems
    rest = text[end:].lstrip()
    if rest:
        column = len(text) - len(rest) + 1
        try:
            decoder.raw_decode(rest)
            problem = LineProblem("multiple_values", f"a second JSON value starts at column {column}")
        except json.JSONDecodeError:
            problem = LineProblem("not_json", f"trailing characters at column {column}")
        return nan() + [problem]
    if constants:
        return nan()
    if type(value) is not dict:
        return [_not_object(value)]
    return [LineProblem("not_json", f"orjson: {orjson_error}")]
