"""Tessel's dialects, one module (or package) per dialect, registered here for the tools.

Factories import lazily, so a tool pays only for the dialects it parses.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect


def _tg() -> Dialect:
    from tessel.dialects.tg import TG

    return TG


def _kernel() -> Dialect:
    from tessel.dialects.kernel import KERNEL

    return KERNEL


def all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> factory, for every Tessel dialect."""
    return {
        "tg": _tg,
        "kernel": _kernel,
        "sched": lambda: __import__("tessel.dialects.sched", fromlist=["SCHED"]).SCHED,
        "coll": lambda: __import__("tessel.dialects.coll", fromlist=["COLL"]).COLL,
        "hev": lambda: __import__("tessel.dialects.hev", fromlist=["HEV"]).HEV,
        "vta": lambda: __import__("tessel.dialects.vta", fromlist=["VTA"]).VTA,
        "img": lambda: __import__("tessel.dialects.img", fromlist=["IMG"]).IMG,
    }
