"""Quiet-machine checks: measurement waits for the CPUs to be mostly idle, so a candidate
(or a benchmark) is not timed against someone else's work on a shared machine."""

from __future__ import annotations

import time


def cpu_idle(seconds: float = 0.5) -> float:
    """Share of CPU time idle over `seconds` (from /proc/stat), 0..1."""

    def sample() -> tuple[int, int]:
        with open("/proc/stat") as f:
            values = [int(v) for v in f.readline().split()[1:]]
        return values[3] + values[4], sum(values)

    idle0, total0 = sample()
    time.sleep(seconds)
    idle1, total1 = sample()
    return (idle1 - idle0) / max(total1 - total0, 1)


def wait_for_quiet(limit: float = 20.0, threshold: float = 0.85, sample: float = 0.5) -> float:
    """Wait (at most `limit` s) for the CPUs to be mostly idle, looking over `sample` s at a
    time; returns the idle share seen."""
    deadline = time.monotonic() + limit
    idle = cpu_idle(sample)
    while idle < threshold and time.monotonic() < deadline:
        idle = cpu_idle(sample)
    return idle
