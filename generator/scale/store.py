"""An output folder at any fsspec URL (a local path, `s3://bucket/prefix`, `hf://datasets/ORG/NAME`, ...).

The distributed run writes through this one place, so a shard task on a cluster node and the final step on the
submitting machine see the same files whatever the storage; fsspec's protocol packages (s3fs, huggingface_hub)
supply the remote backends.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import fsspec
from fsspec.implementations.local import LocalFileSystem


@dataclass(frozen=True)
class Store:
    url: str

    @property
    def fs(self) -> fsspec.AbstractFileSystem:
        return fsspec.core.url_to_fs(self.url)[0]

    @property
    def root(self) -> str:
        return fsspec.core.url_to_fs(self.url)[1]

    def local_path(self) -> Path | None:
        """The folder on this machine, or None when the store is remote."""
        return Path(self.root) if isinstance(self.fs, LocalFileSystem) else None

    def path(self, rel: str) -> str:
        return f"{self.root.rstrip('/')}/{rel}"

    def exists(self, rel: str) -> bool:
        return self.fs.exists(self.path(rel))

    def listing(self, rel: str) -> list[str]:
        """Every file under folder `rel`, as paths relative to the store's root (none when it does not exist)."""
        base = self.root.rstrip("/")
        return sorted(path[len(base) + 1:] for path in self.fs.find(self.path(rel)) if path.startswith(base + "/"))

    def read(self, rel: str) -> bytes:
        return self.fs.cat_file(self.path(rel))

    def write(self, rel: str, data: bytes) -> None:
        with self.open(rel, "wb") as stream:
            stream.write(data)

    @contextmanager
    def open(self, rel: str, mode: str):
        path = self.path(rel)
        if "w" in mode:
            self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with self.fs.open(path, mode) as stream:
            yield stream
