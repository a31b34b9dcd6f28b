"""The one exception type users see: a single line that says what is wrong and what to do.

It lives in the bottom layer so that the deployable runtime (this package, loaded with numpy
and ctypes only) raises the same error as the compiler; `tessel.ir.diagnostics` re-exports it.
"""

from __future__ import annotations


class TesselError(Exception):
    """An error in the user's input, reported as a single line."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        prefix = f"{self.location}: " if self.location else ""
        return f"{prefix}error: {self.message}"
