"""Element types: the builtin types Tessel accepts on tensors and their numpy twins.

Signedness follows torch-mlir/TOSA rather than MLIR's signless convention: `i8` is a
signed integer and `ui8` an unsigned one, because the reference semantics (numpy) must
know how to interpret the bits and the `tg` ops carry no per-op signedness flag.
`i1` is a boolean.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute

_SIGNED = (8, 16, 32, 64)

_FLOATS: dict[type[Attribute], np.dtype] = {
    Float16Type: np.dtype(np.float16),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
}


@cache
def bfloat16() -> np.dtype:
    """numpy's bfloat16 (ml_dtypes'), imported on first use: ml_dtypes takes most of a
    second to import, which every tool start paid (about a third of tessel-opt's)."""
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def is_float(element_type: Attribute) -> bool:
    return type(element_type) in _FLOATS or isinstance(element_type, BFloat16Type)


def is_integer(element_type: Attribute) -> bool:
    """True for signed and unsigned integers, false for booleans (i1)."""
    return isinstance(element_type, IntegerType) and element_type.width.data != 1


def is_bool(element_type: Attribute) -> bool:
    return isinstance(element_type, IntegerType) and element_type.width.data == 1


def is_supported(element_type: Attribute) -> bool:
    try:
        to_numpy(element_type)
    except TypeError:
        return False
    return True


def to_numpy(element_type: Attribute) -> np.dtype:
    """The numpy dtype that holds values of `element_type`; TypeError when none does."""
    if (dt := _FLOATS.get(type(element_type))) is not None:
        return dt
    if isinstance(element_type, BFloat16Type):
        return bfloat16()
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        signedness = element_type.signedness.data
        if width == 1 and signedness == Signedness.SIGNLESS:
            return np.dtype(np.bool_)
        if width in _SIGNED:
            if signedness == Signedness.UNSIGNED:
                return np.dtype(f"uint{width}")
            if signedness == Signedness.SIGNLESS:
                return np.dtype(f"int{width}")
    raise TypeError(f"element type {element_type} is not supported by tg")


def from_numpy(dtype: np.dtype | type) -> Attribute:
    """The builtin element type for a numpy dtype; TypeError when tg has none."""
    return _from_numpy(np.dtype(dtype))


@cache
def _from_numpy(dtype: np.dtype) -> Attribute:
    """(Cached: attributes are immutable, and building one verifies it; an importer asks
    for an element type per constant: 13k times for a Swin transformer, a fifth of its
    import.)"""
    if dtype.name == "bfloat16":  # (made by ml_dtypes, so it is imported already)
        return BFloat16Type()
    for cls, dt in _FLOATS.items():
        if dt == dtype:
            return cls()
    if dtype == np.bool_:
        return IntegerType(1)
    if dtype.kind == "i" and dtype.itemsize * 8 in _SIGNED:
        return IntegerType(dtype.itemsize * 8)
    if dtype.kind == "u" and dtype.itemsize * 8 in _SIGNED:
        return IntegerType(dtype.itemsize * 8, Signedness.UNSIGNED)
    raise TypeError(f"numpy dtype {dtype} has no tg element type")


def tensor_type(shape: tuple[int, ...] | list[int], dtype: np.dtype | type) -> TensorType:
    return TensorType(from_numpy(dtype), list(shape))


def numpy_dtype_of(t: Attribute) -> np.dtype:
    """The numpy dtype of a tensor type's elements."""
    assert isinstance(t, TensorType)
    return to_numpy(t.element_type)
