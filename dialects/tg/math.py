"""Element-wise math `tg` ops: the unary functions of ONNX and the numeric binaries
min, max, pow and mod.

All are injective and element-wise (they fuse into any kernel). Unary ops keep their
operand's type; the binaries broadcast like numpy and need equal element types:
    %y = tg.sin %x : tensor<3x4xf32>
    %m = tg.max %x, %b : (tensor<3x4xi8>, tensor<4xi8>) -> tensor<3x4xi8>
    %r = tg.mod %x, %y {fmod = true} : (tensor<5xf16>, tensor<5xf16>) -> tensor<5xf16>

Each op's meaning is its `evaluate` (numpy; floats through float64, integers exact and
wrapping like the machine).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.irdl import irdl_op_definition, opt_prop_def

from .base import Props, flag
from .elementwise import NUMBERS, BinaryOp, UnaryOp
from .reference import int_pow, is_floating, mod, wide

# --------------------------------------------------------------------------- unary


def _special():
    """scipy.special, imported on first use (a third of a second every tool start paid)."""
    from scipy import special

    return special


class MathUnaryOp(UnaryOp):
    """A unary op whose meaning is a numpy function of the (widened) operand."""

    FUNCTION: ClassVar[Callable[..., Any]]

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [type(self).FUNCTION(wide(args[0]))]


def _sign(x: np.ndarray) -> np.ndarray:
    return np.sign(x) if x.dtype.kind != "u" else (x != 0).astype(x.dtype)


def _abs(x: np.ndarray) -> np.ndarray:
    return x if x.dtype.kind == "u" else np.abs(x)  # abs(MIN) wraps to MIN, as the machine


@irdl_op_definition
class AbsOp(MathUnaryOp):
    name = "tg.abs"
    ACCEPTS: ClassVar[str] = NUMBERS
    FUNCTION = staticmethod(_abs)


@irdl_op_definition
class SignOp(MathUnaryOp):
    """-1, 0 or 1 (NaN stays NaN); 0 or 1 on unsigned integers."""

    name = "tg.sign"
    ACCEPTS: ClassVar[str] = NUMBERS
    FUNCTION = staticmethod(_sign)


@irdl_op_definition
class ReciprocalOp(MathUnaryOp):
    name = "tg.reciprocal"
    FUNCTION = staticmethod(np.reciprocal)


@irdl_op_definition
class FloorOp(MathUnaryOp):
    name = "tg.floor"
    FUNCTION = staticmethod(np.floor)


@irdl_op_definition
class CeilOp(MathUnaryOp):
    name = "tg.ceil"
    FUNCTION = staticmethod(np.ceil)


@irdl_op_definition
class RoundOp(MathUnaryOp):
    """Round half to even (ONNX Round, numpy's round)."""

    name = "tg.round"
    FUNCTION = staticmethod(np.round)


@irdl_op_definition
class LogOp(MathUnaryOp):
    name = "tg.log"
    FUNCTION = staticmethod(np.log)


@irdl_op_definition
class Expm1Op(MathUnaryOp):
    """exp(x) - 1, exact near 0 (where exp(x) - 1 cancels): the ELU family's primitive."""

    name = "tg.expm1"
    FUNCTION = staticmethod(np.expm1)


@irdl_op_definition
class Log1pOp(MathUnaryOp):
    """log(1 + x), exact near 0: softplus' primitive."""

    name = "tg.log1p"
    FUNCTION = staticmethod(np.log1p)


@irdl_op_definition
class ErfOp(MathUnaryOp):
    name = "tg.erf"
    FUNCTION = staticmethod(lambda x: _special().erf(x))


@irdl_op_definition
class SinOp(MathUnaryOp):
    name = "tg.sin"
    FUNCTION = staticmethod(np.sin)


@irdl_op_definition
class CosOp(MathUnaryOp):
    name = "tg.cos"
    FUNCTION = staticmethod(np.cos)


@irdl_op_definition
class TanOp(MathUnaryOp):
    name = "tg.tan"
    FUNCTION = staticmethod(np.tan)


@irdl_op_definition
class AsinOp(MathUnaryOp):
    name = "tg.asin"
    FUNCTION = staticmethod(np.arcsin)


@irdl_op_definition
class AcosOp(MathUnaryOp):
    name = "tg.acos"
    FUNCTION = staticmethod(np.arccos)


@irdl_op_definition
class AtanOp(MathUnaryOp):
    name = "tg.atan"
    FUNCTION = staticmethod(np.arctan)


@irdl_op_definition
class SinhOp(MathUnaryOp):
    name = "tg.sinh"
    FUNCTION = staticmethod(np.sinh)


@irdl_op_definition
class CoshOp(MathUnaryOp):
    name = "tg.cosh"
    FUNCTION = staticmethod(np.cosh)


@irdl_op_definition
class AsinhOp(MathUnaryOp):
    name = "tg.asinh"
    FUNCTION = staticmethod(np.arcsinh)


@irdl_op_definition
class AcoshOp(MathUnaryOp):
    name = "tg.acosh"
    FUNCTION = staticmethod(np.arccosh)


@irdl_op_definition
class AtanhOp(MathUnaryOp):
    name = "tg.atanh"
    FUNCTION = staticmethod(np.arctanh)


# --------------------------------------------------------------------------- binary


@irdl_op_definition
class MinOp(BinaryOp):
    """The smaller operand; NaN if either is NaN (numpy's minimum)."""

    name = "tg.min"

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [np.minimum(wide(args[0]), wide(args[1]))]


@irdl_op_definition
class MaxOp(BinaryOp):
    """The larger operand; NaN if either is NaN (numpy's maximum)."""

    name = "tg.max"

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [np.maximum(wide(args[0]), wide(args[1]))]


@irdl_op_definition
class PowOp(BinaryOp):
    """x^y. On integers exact and wrapping (square and multiply); a negative exponent
    truncates 1/x^|y| toward zero (1 for x = 1, ±1 for x = -1, 0 otherwise)."""

    name = "tg.pow"

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        a, b = args
        if is_floating(a):
            return [np.power(wide(a), wide(b))]
        return [int_pow(a, b)]


@irdl_op_definition
class ModOp(BinaryOp):
    """The remainder of x / y. `fmod = true`: C's fmod, the sign of x (ONNX Mod fmod=1);
    otherwise the sign of y (Python's %, numpy's mod; ONNX Mod fmod=0). On integers,
    x mod 0 is 0 (never a trap)."""

    name = "tg.mod"
    fmod = opt_prop_def(IntegerAttr)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        flag(props, "fmod")
        return super().infer_result_types(operand_types, props)

    def evaluate(self, args: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        return [mod(args[0], args[1], flag(self.properties, "fmod"))]


UNARY_OPS = [
    AbsOp,
    SignOp,
    ReciprocalOp,
    FloorOp,
    CeilOp,
    RoundOp,
    LogOp,
    Expm1Op,
    Log1pOp,
    ErfOp,
    SinOp,
    CosOp,
    TanOp,
    AsinOp,
    AcosOp,
    AtanOp,
    SinhOp,
    CoshOp,
    AsinhOp,
    AcoshOp,
    AtanhOp,
]
BINARY_OPS = [MinOp, MaxOp, PowOp, ModOp]
OPS = [*UNARY_OPS, *BINARY_OPS]
