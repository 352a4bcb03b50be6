"""The digest of this generator's own files (code, templates, recorded tables, schemas): what a rerun may reuse
shards under. The version string changes only at a release, so between releases a rerun of a changed checkout
into a folder of the same options would reuse shards the old code wrote; the writer's marker and `scale`'s
options file carry this digest too, so such a folder is refused instead (stats.json does not: its bytes stay
those of the rows and options)."""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# what the wheel ships (pyproject's packages and package-data): a checkout and an install of the same code agree
SHIPPED = (".py", ".cu", ".cuh", ".tsv", ".json")


@lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 over the package's shipped files (relative path and bytes, in path order): ~3 MB, read once per
    process. Links are followed once (in a checkout `schema/` is a link to the top-level folder)."""
    digest, seen, read = hashlib.sha256(), set(), 0
    files = []
    for root, dirs, names in os.walk(PACKAGE, followlinks=True):
        real = os.path.realpath(root)
        if real in seen or "__pycache__" in Path(root).parts:
            dirs[:] = []
            continue
        seen.add(real)
        files += [Path(root, name) for name in names if name.endswith(SHIPPED)]
    for path in sorted(files):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
        read += 1
    if not read:
        raise RuntimeError(f"{PACKAGE}: no generator files to digest (a zipped install?)")
    return digest.hexdigest()
