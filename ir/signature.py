"""A model's interface: the entry function's inputs and outputs with their user-facing names.

Names come from `{tg.name = "..."}` on the function's arguments and results (the ONNX
value names); unnamed ones are called `arg<i>` / `result<i>`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, StringAttr, TensorType

from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError

NAME_ATTR = "tg.name"


@dataclass(frozen=True)
class Port:
    name: str
    type: TensorType

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.get_shape()

    @property
    def dtype(self) -> np.dtype:
        return dtypes.to_numpy(self.type.element_type)


def _name(attrs: DictionaryAttr | None, default: str) -> str:
    if attrs is not None and isinstance(name := attrs.data.get(NAME_ATTR), StringAttr):
        return name.data
    return default


def _ports(types, attrs, prefix: str) -> list[Port]:
    ports = []
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise TesselError(f"{prefix} #{i} has type {t}; tg functions take and return tensors")
        ports.append(Port(_name(attrs.data[i] if attrs is not None else None, f"{prefix}{i}"), t))
    return ports


def inputs(fn: func.FuncOp) -> list[Port]:
    return _ports(fn.function_type.inputs.data, fn.arg_attrs, "arg")


def outputs(fn: func.FuncOp) -> list[Port]:
    return _ports(fn.function_type.outputs.data, fn.res_attrs, "result")


def random_inputs(ports: list[Port], seed: int) -> dict[str, np.ndarray]:
    """Reproducible test inputs: standard normal floats, small integers, random booleans."""
    rng = np.random.default_rng(seed)
    out = {}
    for p in ports:
        if dtypes.is_float(p.type.element_type):
            out[p.name] = rng.standard_normal(p.shape).astype(p.dtype)
        elif p.dtype == np.bool_:
            out[p.name] = rng.integers(0, 2, p.shape).astype(np.bool_)
        else:
            lo = 0 if p.dtype.kind == "u" else -8
            out[p.name] = rng.integers(lo, 8, p.shape).astype(p.dtype)
    return out
