"""Tessel's passes, one subpackage per dialect family, registered here for the tools.

Each entry maps a pass name (the kebab-case name of its file) to a factory returning the
pass class, so that `tessel-opt` imports a pass only when a pipeline names it.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Tessel's own passes (the upstream xDSL ones are registered by the opt driver)."""
    return {}
