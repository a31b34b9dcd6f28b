"""The machine a figure was measured on: every benchmark and profile names its CPU."""

from __future__ import annotations

import platform


def cpu_model() -> str:
    """The CPU's model name as lscpu shows it (from /proc/cpuinfo), else the platform's."""
    try:
        with open("/proc/cpuinfo") as f:
            found = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), None)
    except OSError:
        found = None
    return found or platform.processor() or platform.machine()
