"""Shared machinery of the `tg` dialect: fusion categories, shape inference, attribute helpers.

Every `tg` op infers its result types from its operand types and properties
(`infer_result_types`). The same function serves the verifier (the declared result types
must equal the inferred ones) and the builders (`build`), so a frontend never computes a
shape by hand and the two can never disagree.
"""

from __future__ import annotations

import math
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Self

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from tessel.ir import dtypes

# --------------------------------------------------------------------------- fusion


class FusionCategory(Enum):
    """TVM's operator pattern kinds (OSDI'18 section 3), the input of `tg-fuse`.

    INJECTIVE: each output element depends on one input element per operand (element-wise,
      broadcast, reshape, transpose, slice, concat, pad); any chain of them fuses.
    REDUCTION: output elements reduce over input axes; fuses with the injective ops feeding it.
    COMPLEX_OUT_FUSABLE: conv, matmul, pooling; absorbs element-wise consumers of its output.
    OPAQUE: cannot be fused (softmax, layer norm, and data-holding ops such as weights).
    """

    INJECTIVE = "injective"
    REDUCTION = "reduction"
    COMPLEX_OUT_FUSABLE = "complex-out-fusable"
    OPAQUE = "opaque"


# A concat lowers to a select over its pieces at every element: a kernel holds at most
# this many concat pieces (tg-fuse), and a wider concat becomes a tree of concats this wide
# (tg-split-concat), so that its work grows as n log n rather than n * n.
CONCAT_FAN_IN = 8


@dataclass(frozen=True)
class Fusion(OpTrait):
    """The fusion category of an op, declared next to its definition (not in the pass)."""

    category: FusionCategory


@dataclass(frozen=True)
class Elementwise(OpTrait):
    """An injective op that maps each output element from the same-index (or broadcast)
    elements of its operands: the ops a complex-out-fusable op may absorb (TVM's
    kElemWise/kBroadcast, as opposed to data movement such as transpose)."""


INJECTIVE = Fusion(FusionCategory.INJECTIVE)
REDUCTION = Fusion(FusionCategory.REDUCTION)
COMPLEX_OUT_FUSABLE = Fusion(FusionCategory.COMPLEX_OUT_FUSABLE)
OPAQUE = Fusion(FusionCategory.OPAQUE)


def fusion_category(op: Operation) -> FusionCategory:
    """The declared category; ops outside `tg` are opaque to fusion."""
    trait = op.get_trait(Fusion)
    return trait.category if trait is not None else FusionCategory.OPAQUE


# --------------------------------------------------------------------------- ops


Props = Mapping[str, Attribute]


class TgOp(IRDLOperation, ABC):
    """Base of every `tg` op: result types are a function of operands and properties.

    Most ops implement `infer_result_types`. Ops whose result type is an input of the op
    rather than a consequence (cast, reshape, slice, weight) override `check_result_types`
    instead and are made with explicit `result_types`.
    """

    irdl_options = (ParsePropInAttrDict(),)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[TensorType], props: Props) -> list[TensorType]:
        """Result types for these operand types and properties; VerifyException if invalid."""
        raise VerifyException(f"{cls.name} needs its result type spelled out")

    @classmethod
    def check_result_types(
        cls, operand_types: Sequence[TensorType], result_types: Sequence[TensorType], props: Props
    ) -> None:
        expected = cls.infer_result_types(operand_types, props)
        if len(expected) != len(result_types):
            raise VerifyException(f"expected {len(expected)} results, got {len(result_types)}")
        for i, (want, got) in enumerate(zip(expected, result_types, strict=True)):
            if want != got:
                which = "result" if len(result_types) == 1 else f"result #{i}"
                raise VerifyException(f"{which} type should be {want}, got {got}")

    @classmethod
    def make(
        cls,
        operands: Sequence[SSAValue],
        props: Props | None = None,
        result_types: Sequence[TensorType] | None = None,
        name: str | None = None,
    ) -> Self:
        """Create a verified op, inferring result types unless given: `AddOp.make([x, y])`."""
        props = dict(props or {})
        types = [_tensor(v.type, i) for i, v in enumerate(operands)]
        if result_types is None:
            result_types = cls.infer_result_types(types, props)
        else:
            cls.check_result_types(types, result_types, props)
        op = cls.create(operands=list(operands), result_types=list(result_types), properties=props)
        if name is not None and result_types:
            op.results[0].name_hint = name
        return op

    def verify_(self) -> None:
        types = [_tensor(v.type, i) for i, v in enumerate(self.operands)]
        for i, t in enumerate(types):
            check_static(t, f"operand #{i}")
        results = [_tensor(r.type, i, "result") for i, r in enumerate(self.results)]
        for i, t in enumerate(results):
            check_static(t, f"result #{i}")
        self.check_result_types(types, results, self.properties)


def tensor_of(v: SSAValue) -> TensorType:
    """The type of a tg value: a tensor, by the verifier of the op that made it."""
    assert isinstance(v.type, TensorType), v.type
    return v.type


def _tensor(t: Attribute, index: int, what: str = "operand") -> TensorType:
    if not isinstance(t, TensorType):
        raise VerifyException(f"{what} #{index} must be a tensor, got {t}")
    return t


def check_static(t: TensorType, what: str) -> None:
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {t}")
    if not dtypes.is_supported(t.element_type):
        raise VerifyException(f"{what} has unsupported element type {t.element_type}")


# --------------------------------------------------------------------------- properties


def ints(props: Props, key: str, default: Sequence[int] | None = None) -> tuple[int, ...]:
    attr = props.get(key)
    if attr is None:
        if default is None:
            raise VerifyException(f"missing property '{key}'")
        return tuple(default)
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i64:
        raise VerifyException(f"property '{key}' must be an array<i64: ...>, got {attr}")
    return tuple(int(v) for v in attr.get_values())


def integer(props: Props, key: str, default: int | None = None) -> int:
    attr = props.get(key)
    if attr is None:
        if default is None:
            raise VerifyException(f"missing property '{key}'")
        return default
    if not isinstance(attr, IntegerAttr) or attr.type == i1:
        raise VerifyException(f"property '{key}' must be an integer, got {attr}")
    return int(attr.value.data)


def flag(props: Props, key: str, default: bool = False) -> bool:
    attr = props.get(key)
    if attr is None:
        return default
    if not isinstance(attr, IntegerAttr) or attr.type != i1:
        raise VerifyException(f"property '{key}' must be true or false, got {attr}")
    return bool(attr.value.data)


def floating(props: Props, key: str, default: float | None = None) -> float:
    attr = props.get(key)
    if attr is None:
        if default is None:
            raise VerifyException(f"missing property '{key}'")
        return default
    if not isinstance(attr, FloatAttr):
        raise VerifyException(f"property '{key}' must be a float, got {attr}")
    return float(attr.value.data)


def string(props: Props, key: str, allowed: Sequence[str], default: str | None = None) -> str:
    attr = props.get(key)
    if attr is None:
        if default is None:
            raise VerifyException(f"missing property '{key}'")
        return default
    if not isinstance(attr, StringAttr) or attr.data not in allowed:
        raise VerifyException(f"property '{key}' must be one of {', '.join(map(repr, allowed))}, got {attr}")
    return attr.data


def ints_attr(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def int_attr(value: int) -> IntegerAttr:
    return IntegerAttr(int(value), i64)


def bool_attr(value: bool) -> IntegerAttr:
    return BoolAttr.from_bool(bool(value))


def float_attr(value: float) -> FloatAttr:
    return FloatAttr(float(value), f32)


# --------------------------------------------------------------------------- shapes


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Numpy (ONNX multidirectional) broadcasting of two shapes."""
    out: list[int] = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x != y and x != 1 and y != 1:
            raise VerifyException(f"shapes {tuple(a)} and {tuple(b)} do not broadcast")
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise VerifyException(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def same_element_type(types: Sequence[TensorType], what: str = "operands") -> Attribute:
    et = types[0].element_type
    for t in types[1:]:
        if t.element_type != et:
            raise VerifyException(f"{what} must have the same element type, got {et} and {t.element_type}")
    return et


def require(cond: bool, message: str | Callable[[], str]) -> None:
    """Raise VerifyException(message) unless cond. A message that prints types may be given
    as a function: printing a type costs more than the check, and verification runs on
    every op after every pass (a GRU's 11k ops printed 9k types per import)."""
    if not cond:
        raise VerifyException(message if isinstance(message, str) else message())


def require_float(t: TensorType, what: str) -> None:
    require(dtypes.is_float(t.element_type), lambda: f"{what} must have a float element type, got {t.element_type}")


def require_rank(t: TensorType, rank: int | Sequence[int], what: str) -> None:
    ranks = (rank,) if isinstance(rank, int) else tuple(rank)
    require(t.get_num_dims() in ranks, lambda: f"{what} must have rank {' or '.join(map(str, ranks))}, got {t}")


def broadcasts_to(shape: Sequence[int], target: Sequence[int]) -> bool:
    """Unidirectional (ONNX) broadcasting: `shape` stretches to `target` without changing it."""
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def num_elements(shape: Sequence[int]) -> int:
    return math.prod(shape)
