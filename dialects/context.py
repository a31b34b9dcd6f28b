"""The MLIR context every Tessel tool parses with: builtin, the upstream dialects Tessel
lowers to, and every Tessel dialect, each registered lazily (imported when first parsed).

It lives with the dialects, not in `tessel.ir`, because it names them: `ir` sits below
every dialect and imports none (the layer contract in pyproject.toml).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect

from tessel.dialects import all_dialects

UPSTREAM = {
    "func": "xdsl.dialects.func:Func",
    "arith": "tessel.dialects.arith_vectors:Arith",  # xDSL's, with its casts on vectors too
    "affine": "xdsl.dialects.affine:Affine",
    "memref": "xdsl.dialects.memref:MemRef",
    "scf": "xdsl.dialects.scf:Scf",
    "math": "xdsl.dialects.math:Math",
    "vector": "xdsl.dialects.vector:Vector",
    "gpu": "xdsl.dialects.gpu:GPU",
    "llvm": "xdsl.dialects.llvm:LLVM",  # llvm.frem: C's fmod, which arith lacks in xDSL
}


def make_context() -> Context:
    """A context with builtin loaded, the upstream dialects Tessel lowers to and every
    Tessel dialect registered (lazily: a dialect is imported when first parsed)."""
    from xdsl.dialects.builtin import Builtin

    ctx = Context()
    ctx.load_dialect(Builtin)
    for name, factory in upstream_dialects().items():
        ctx.register_dialect(name, factory)
    for name, factory in all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def upstream_dialects() -> dict[str, Callable[[], Dialect]]:
    """Name -> lazy factory for the upstream dialects Tessel lowers to, in the form Tessel
    uses (arith with vector compares, selects and casts)."""
    return {name: functools.partial(_load, where) for name, where in UPSTREAM.items()}


def _load(where: str) -> Dialect:
    import importlib

    module, attr = where.split(":")
    return getattr(importlib.import_module(module), attr)
