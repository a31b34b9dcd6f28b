"""A results cache for long searches (HE and collective synthesis), so that a rerun after
a kill does not redo finished work.

One file per result, named by a hash of everything the result depends on (the problem's
IR text and the options), holding the result as IR text. Each entry is written to a
temporary file, fsynced and renamed into place, so an entry is either whole or absent,
whatever kills the process. An entry that does not parse (a disk error, a hand edit) is
ignored and recomputed, never trusted.

The cache is off unless a folder is given: the pass option `cache=DIR`, or the
environment variable TESSEL_CACHE_DIR.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ENV = "TESSEL_CACHE_DIR"


def cache_folder(option: str) -> Path | None:
    folder = option or os.environ.get(ENV, "")
    return Path(folder) if folder else None


class ResultsCache:
    def __init__(self, folder: Path, kind: str):
        self.folder = folder / kind
        self.folder.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def key(*parts: str) -> str:
        digest = hashlib.sha256()
        for part in parts:
            digest.update(part.encode())
            digest.update(b"\0")
        return digest.hexdigest()[:32]

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.mlir"

    def get(self, key: str) -> str | None:
        try:
            return self.path(key).read_text()
        except (OSError, UnicodeDecodeError):
            return None

    def put(self, key: str, text: str) -> None:
        final = self.path(key)
        temp = final.with_name(f"{final.name}.tmp.{os.getpid()}")
        with open(temp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, final)

    def discard(self, key: str, only_temps: bool = False) -> None:
        """Remove an entry (or only the temporaries that killed writers left behind)."""
        for p in self.folder.glob(f"{key}.mlir.tmp.*"):
            p.unlink(missing_ok=True)
        if not only_temps:
            self.path(key).unlink(missing_ok=True)
