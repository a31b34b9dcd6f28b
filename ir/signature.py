"""A model's interface: the entry function's inputs and outputs with their user-facing names.

Names come from `{tg.name = "..."}` on the function's arguments and results (the ONNX
value names); unnamed ones are called `arg<i>` / `result<i>`. After tg-to-kernel the entry
function takes memrefs in destination-passing style: the arguments marked `tg.output` are
its outputs, and `tg.element` keeps each argument's tensor element type (memrefs are
signless); the interface is the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, MemRefType, StringAttr, TensorType
from xdsl.ir import Attribute

from tessel.ir import dtypes
from tessel.ir.diagnostics import TesselError

NAME_ATTR = "tg.name"
OUTPUT_ATTR = "tg.output"  # a kernel-level entry argument that is an output buffer
ELEMENT_ATTR = "tg.element"  # the tensor element type of a kernel-level entry argument


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


def _buffer_ports(fn: func.FuncOp, want_outputs: bool) -> list[Port]:
    """The ports of a kernel-level entry function (memref arguments, outputs marked)."""
    ports: list[Port] = []
    attrs = fn.arg_attrs.data if fn.arg_attrs is not None else [DictionaryAttr({})] * len(fn.args)
    for i, (t, a) in enumerate(zip(fn.function_type.inputs.data, attrs, strict=True)):
        if (OUTPUT_ATTR in a.data) != want_outputs:
            continue
        element: Attribute | None = a.data.get(ELEMENT_ATTR)
        if not isinstance(t, MemRefType) or element is None:
            raise TesselError(
                f"arg #{i} has type {t}; a kernel-level entry function takes memrefs marked {ELEMENT_ATTR}"
            )
        ports.append(
            Port(_name(a, f"{'result' if want_outputs else 'arg'}{len(ports)}"), TensorType(element, t.get_shape()))
        )
    return ports


def _kernel_level(fn: func.FuncOp) -> bool:
    return fn.arg_attrs is not None and any(ELEMENT_ATTR in a.data for a in fn.arg_attrs.data)


def inputs(fn: func.FuncOp) -> list[Port]:
    if _kernel_level(fn):
        return _buffer_ports(fn, want_outputs=False)
    return _ports(fn.function_type.inputs.data, fn.arg_attrs, "arg")


def outputs(fn: func.FuncOp) -> list[Port]:
    if _kernel_level(fn):
        return _buffer_ports(fn, want_outputs=True)
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
