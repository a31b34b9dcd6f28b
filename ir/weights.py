"""The arrays behind `tg.weight @name`: an `.npz` file named by the module's `tg.weights`
attribute, relative to the IR file, or an in-memory dict straight from a frontend."""

from __future__ import annotations

import os
import zipfile
from abc import ABC
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Self

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from tessel.ir.diagnostics import TesselError

WEIGHTS_ATTR = "tg.weights"


class WeightStore(Mapping[str, np.ndarray]):
    """Name -> array, loading lazily from an npz; a missing name is a TesselError."""

    def __init__(self, arrays: Mapping[str, np.ndarray] | None = None, path: str | None = None):
        self._arrays = dict(arrays or {})
        self._path = path
        self._npz: np.lib.npyio.NpzFile | None = None
        self.created: list[str] = []  # names added by passes, to be written out with the IR
        self._suffix: dict[str, int] = {}  # the next suffix to try per base name

    @classmethod
    def for_module(cls, module: ModuleOp, ir_path: str | None) -> WeightStore:
        """The store a module's `tg.weights` attribute names (empty when it names none)."""
        attr = module.attributes.get(WEIGHTS_ATTR)
        if attr is None:
            return cls()
        if not isinstance(attr, StringAttr):
            raise TesselError(f"module attribute {WEIGHTS_ATTR} must be a string path, got {attr}")
        base = os.path.dirname(os.path.abspath(ir_path)) if ir_path else os.getcwd()
        return cls(path=os.path.join(base, attr.data))

    def _file(self) -> np.lib.npyio.NpzFile:
        if self._npz is None:
            assert self._path is not None
            try:
                npz = np.load(self._path, allow_pickle=False)
            except OSError as err:
                raise TesselError(f"cannot read weights {self._path}: {err.strerror or err}") from None
            except (ValueError, EOFError, zipfile.BadZipFile):
                raise TesselError(f"weights {self._path} is not an .npz archive") from None
            if not isinstance(npz, np.lib.npyio.NpzFile):
                raise TesselError(f"weights {self._path} is not an .npz archive")
            self._npz = npz
        return self._npz

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self._arrays:
            return self._arrays[name]
        if self._path is None:
            raise TesselError(f"weight @{name} is not available: the module names no {WEIGHTS_ATTR} file")
        npz = self._file()
        if name not in npz.files:
            raise TesselError(f"weight @{name} is missing from {self._path}")
        self._arrays[name] = npz[name]
        return self._arrays[name]

    def add(self, name: str, array: np.ndarray) -> str:
        """Store a new array (e.g. folded by a pass) under a fresh name derived from `name`."""
        base, n = name, self._suffix.get(name, 0)
        if n:
            name = f"{base}.{n}"
        while name in self:  # (from the second array of a name on, the count resumes: linear, not quadratic)
            n += 1
            name = f"{base}.{n}"
        self._suffix[base] = n + 1
        self._arrays[name] = array
        self.created.append(name)
        return name

    def __contains__(self, name: object) -> bool:
        if name in self._arrays:
            return True
        return self._path is not None and isinstance(name, str) and name in self._file().files

    def __iter__(self):
        names = set(self._arrays)
        if self._path is not None:
            names |= set(self._file().files)
        return iter(sorted(names))

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(frozen=True)
class WeightsPass(ModulePass, ABC):
    """A pass that reads or adds to the arrays behind `tg.weight` ops.

    The store is an explicit object that whoever runs the pass hands over
    (`p.with_weights(store)`: the pipelines, tessel-opt with the module's `tg.weights`
    file); it is not a pass option and not part of the pass's spec. Without a store
    (None) such a pass leaves weight data alone."""

    store: WeightStore | None = field(default=None, init=False, compare=False, repr=False)

    def with_weights(self, store: WeightStore | None) -> Self:
        copy = replace(self)
        object.__setattr__(copy, "store", store)  # a frozen dataclass: set once, here
        return copy


def with_weights(passes: Iterable[ModulePass], store: WeightStore | None) -> tuple[ModulePass, ...]:
    """`passes` with `store` handed to every pass that uses weights."""
    return tuple(p.with_weights(store) if isinstance(p, WeightsPass) else p for p in passes)


def save_weights(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Write arrays as an npz that `np.load` reads. Written member by member because
    `np.savez(**arrays)` rejects names such as `file` that clash with its own arguments."""
    temp = f"{path}.tmp.{os.getpid()}"  # renamed into place once complete: never a torn archive
    try:
        with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name, array in arrays.items():
                with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asarray(array), allow_pickle=False)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
