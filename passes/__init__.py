"""Tessel's passes: `passes/<dialect>/<file>.py` is the pass `<dialect>-<file in kebab case>`.

The registry is the tree itself: every module directly in a dialect's folder holds exactly
one registered pass, named after its file (`passes/tg/fuse.py` is `tg-fuse`,
`passes/he/synthesize.py` is `he-synthesize`); the libraries passes use live in
subpackages of those folders and are never passes. Factories import lazily, so that
`tessel-opt` imports a pass only when a pipeline names it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path

from xdsl.passes import ModulePass

_ROOT = Path(__file__).parent


def pass_modules() -> dict[str, str]:
    """Pass name -> the module that holds it, for every pass file of the tree."""
    found: dict[str, str] = {}
    for family in sorted(pkgutil.iter_modules([str(_ROOT)]), key=lambda m: m.name):
        if not family.ispkg:
            continue
        for module in pkgutil.iter_modules([str(_ROOT / family.name)]):
            if module.ispkg or module.name.startswith("_"):
                continue
            found[f"{family.name}-{module.name.replace('_', '-')}"] = f"tessel.passes.{family.name}.{module.name}"
    return dict(sorted(found.items()))


def _factory(name: str, module: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        passes = [
            obj
            for obj in vars(importlib.import_module(module)).values()
            if isinstance(obj, type) and issubclass(obj, ModulePass) and getattr(obj, "name", None) == name
        ]
        if len(passes) != 1:
            raise LookupError(f"{module} must define exactly one ModulePass named '{name}', found {len(passes)}")
        return passes[0]

    return load


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Tessel's own passes (the upstream xDSL ones are registered by the opt driver)."""
    return {name: _factory(name, module) for name, module in pass_modules().items()}


def describe(name: str) -> str:
    """The first line of a pass's docstring (or its module's), for `tessel-opt --help`."""
    cls = all_passes()[name]()
    doc = cls.__doc__ or ""
    if not doc.strip() or doc.startswith(f"{cls.__name__}("):  # dataclasses invent a docstring
        doc = importlib.import_module(cls.__module__).__doc__ or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    for prefix in (f"{name}: ", f"`{name}`: "):
        paragraph = paragraph.removeprefix(prefix)
    sentence = paragraph.split(". ")[0].rstrip(".")
    return sentence[0].upper() + sentence[1:] if sentence else ""
