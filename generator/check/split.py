"""`validate --split SRC --good OUT --rejects REJ`: keep what loads, set aside what does not, lose nothing.

OUT gets every valid line byte for byte (a last line without its newline gets one, so OUT is proper JSONL).
REJ gets one JSON object per rejected line: `{"line": N, "reasons": ["kind: message", ...], "raw": ...,
"encoding": "utf-8" | "base64"}`, where `raw` is the complete original line including its terminator, as text
when the bytes are UTF-8 and as base64 otherwise, so `raw` decodes back to the exact bytes. Both files are
written under temporary names and renamed at the end; SRC is only read. count(OUT) + count(REJ) == count(SRC).
"""
from __future__ import annotations

import base64
import os
from dataclasses import dataclass
from pathlib import Path

import orjson

from generator.check.crossfile import CrossFile
from generator.check.errors import InputError
from generator.check.roles import FIXED, MERGED, path_kind
from generator.check.rowscan import Chunk, Scan, scan_lines, schema_of_file


@dataclass(frozen=True)
class SplitResult:
    good: int
    rejected: int


def reject_record(line_number: int, raw: bytes, reasons: list[str]) -> bytes:
    """One REJ line; `raw` survives exactly (see the module docstring for the encoding rule)."""
    try:
        text, encoding = raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        text, encoding = base64.b64encode(raw).decode("ascii"), "base64"
    return orjson.dumps({"line": line_number, "reasons": reasons, "raw": text, "encoding": encoding},
                        option=orjson.OPT_APPEND_NEWLINE)


def raw_bytes(record: dict) -> bytes:
    """The original line of a REJ record."""
    raw = record["raw"]
    return base64.b64decode(raw) if record["encoding"] == "base64" else raw.encode("utf-8")


def split_file(src: Path, good: Path, rejects: Path, *, schema: str | None = None, semantic: bool = True) -> SplitResult:
    src, good, rejects = Path(src), Path(good), Path(rejects)
    if path_kind(src) != "file":
        raise InputError(f"{src}: a folder; --split takes one JSONL file")
    schema = schema or FIXED.get(src.name) or MERGED.get(src.name) or schema_of_file(src)
    if schema is None:
        raise InputError(f"{src}: cannot tell which schema the rows answer to (no id field in the first row); "
                         "pass --schema")
    resolved = {p.resolve() for p in (src, good, rejects)}
    if len(resolved) != 3:
        raise InputError("SRC, --good and --rejects must be three different files")
    cross = CrossFile()   # duplicate ids within SRC
    scan = Scan(Chunk(src, 0, src.stat().st_size, schema))
    counts = [0, 0]
    temps = [p.with_name(f".{p.name}.tmp-{os.getpid()}") for p in (good, rejects)]
    try:
        with open(temps[0], "wb") as ok_out, open(temps[1], "wb") as bad_out:
            for number, line, problems, record in scan_lines(scan, semantic):
                if record is not None:
                    cross.row(str(src), number, record, problems)
                reasons = [f"{p.kind}: {p.message}" for p in problems if p.kind != "no_final_newline"]
                if reasons:
                    bad_out.write(reject_record(number, bytes(line), reasons))
                    counts[1] += 1
                else:
                    ok_out.write(line)
                    if line[-1] != 10:   # b"\n"
                        ok_out.write(b"\n")
                    counts[0] += 1
        for temp, final in zip(temps, (good, rejects)):
            os.replace(temp, final)
    except OSError as exc:
        raise InputError(f"{exc.filename or src}: {exc.strerror or exc}") from exc
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)
    return SplitResult(*counts)
