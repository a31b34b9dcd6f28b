"""The tuning log: one JSON object per measured candidate, appended and flushed per batch.

    {"key": "...", "stage": "k5_conv2d_nchwc_relu__s1", "target": "cpu", "host": "...",
     "knobs": {...}, "schedule": "sched.stage ... {...}", "seconds": 0.00105, "best": 0.00101,
     "error": null, "flops": 231211008, "time": "2026-11-30T05:10:00Z"}

An interrupted run loses at most the batch in flight: rerunning with the same file skips
every (task, knobs) already measured. `best` is what `tessel-run --records` applies: per
task key, the fastest candidate that measured without error, among those timed the way
the key's newest such record was ("timing": in-model, cold or warm, tessel.tune.measure; a
record without one was timed cold): times taken in the model and alone are not comparable.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path

from tessel.ir.diagnostics import TesselError


def knob_id(knobs: dict) -> str:
    return json.dumps(knobs, sort_keys=True, default=list)


class Records:
    def __init__(self, path: str | os.PathLike | None):
        self.path = Path(path) if path else None
        self.entries: list[dict] = []
        if self.path is not None and self.path.exists():
            self.entries = list(_read(self.path))

    def measured(self, key: str) -> set[str]:
        return {knob_id(e["knobs"]) for e in self.entries if e["key"] == key}

    def for_key(self, key: str) -> list[dict]:
        return [e for e in self.entries if e["key"] == key]

    def best(self, key: str) -> dict | None:
        ok = [e for e in self.entries if e["key"] == key and e.get("error") is None and e.get("seconds")]
        if not ok:
            return None
        timing = ok[-1].get("timing") or "cold"
        ok = [e for e in ok if (e.get("timing") or "cold") == timing]
        return min(ok, key=lambda e: e["best"] or e["seconds"])

    def append(self, entries: Iterable[dict]) -> None:
        entries = list(entries)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for e in entries:
            e.setdefault("time", stamp)
        self.entries.extend(entries)
        if self.path is None:
            return
        with open(self.path, "a") as f:
            for e in entries:
                f.write(json.dumps(e, default=list) + "\n")
            f.flush()
            os.fsync(f.fileno())


def _read(path: Path) -> Iterable[dict]:
    try:
        lines = path.read_text().splitlines()
    except OSError as err:
        raise TesselError(f"cannot read records {path}: {err.strerror or err}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):
                continue  # a write cut off by an interruption: that candidate is simply remeasured
            raise TesselError(f"{path}:{n}: not a JSON record") from None
        if not isinstance(entry, dict) or "key" not in entry or "knobs" not in entry:
            raise TesselError(f"{path}:{n}: a record needs 'key' and 'knobs'")
        yield entry
