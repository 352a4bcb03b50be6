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


@lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 over every file of the package (relative path and bytes, in path order), bytecode caches left out:
    ~3 MB, read once per process. Links are followed: in a checkout `schema/` is a link to the top-level folder."""
    digest = hashlib.sha256()
    files = (Path(root, name) for root, dirs, names in os.walk(PACKAGE, followlinks=True) for name in names
             if "__pycache__" not in Path(root).parts)
    for path in sorted(files):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()
