"""arith's casts on vectors, as MLIR defines them.

MLIR's `arith.sitofp`, `arith.extsi`, ... take a scalar or a vector (the result of the
same shape); xDSL 0.74 defines them for scalars only. The loop builder then had to cast a
vector lane by lane: 16 extracts, 16 scalar casts and 16 inserts where LLVM has one
instruction (vcvtdq2ps, vpmovsxbd), which made the int8 kernels' requantize epilogues
the largest part of their compile time and slowed the code. These subclasses keep the
upstream names, syntax and Python classes (isinstance checks see the upstream op) and
accept vectors too; Tessel's context registers them in place of xDSL's
(dialects/context.py), and the loop builder creates them for vector casts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType, VectorType, container_of
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def
from xdsl.utils.exceptions import VerifyException


class _Format:
    """Put back Operation's print and parse, so that irdl_op_definition generates them
    again from the inherited assembly format for the subclass (the upstream class's
    generated ones would otherwise count as custom methods next to a format)."""

    print = Operation.print
    parse: Any = classmethod(Operation.parse.__func__)  # type: ignore[attr-defined]


def _shape_and_element(t: Attribute) -> tuple[tuple[int, ...], Attribute]:
    if isinstance(t, VectorType):
        return tuple(t.get_shape()), t.get_element_type()
    return (), t


def _same_shape(op: IRDLOperation) -> tuple[Attribute, Attribute]:  # also the casts' verifier
    """The input's and the result's element types, after checking their shapes agree."""
    (si, ei), (so, eo) = (_shape_and_element(v.type) for v in (op.operands[0], op.results[0]))
    if si != so:
        raise VerifyException(
            f"{op.name}: the input {op.operands[0].type} and result {op.results[0].type} differ in shape"
        )
    return ei, eo


def _width_check(relation: Callable[[int, int], bool], message: str) -> Callable[[IRDLOperation], None]:
    """extsi/extui/trunci's verifier: equal shapes, integer elements, the widths related."""

    def verify_(op: IRDLOperation) -> None:
        ei, eo = _same_shape(op)
        if not isinstance(ei, IntegerType) or not isinstance(eo, IntegerType):
            raise VerifyException(f"{op.name} takes integers or vectors of integers")
        if not relation(eo.width.data, ei.width.data):
            raise VerifyException(message)

    return verify_


WIDER = _width_check(
    lambda target, source: target > source, "Destination bit-width must be larger than the input bit-width"
)
NARROWER = _width_check(
    lambda target, source: target < source, "Destination bit-width must be smaller than the input bit-width"
)


def _vector_form(
    upstream: type[IRDLOperation], source: Any, target: Any, verify: Callable[[IRDLOperation], object] = _same_shape
) -> type[IRDLOperation]:
    """`upstream` with its operand and result of element types `source` and `target` or
    vectors of them, under the upstream name and syntax."""
    body = {
        "__module__": __name__,
        "__qualname__": upstream.__name__,
        "name": upstream.name,
        "input": operand_def(container_of(source)),
        "result": result_def(container_of(target)),
        "verify_": lambda self: verify(self),
    }
    return irdl_op_definition(type(upstream.__name__, (_Format, upstream), body))


SIToFPOp = _vector_form(arith.SIToFPOp, IntegerType, AnyFloat)
UIToFPOp = _vector_form(arith.UIToFPOp, IntegerType, AnyFloat)
FPToSIOp = _vector_form(arith.FPToSIOp, AnyFloat, IntegerType)
FPToUIOp = _vector_form(arith.FPToUIOp, AnyFloat, IntegerType)
ExtSIOp = _vector_form(arith.ExtSIOp, IntegerType, IntegerType, WIDER)
ExtUIOp = _vector_form(arith.ExtUIOp, IntegerType, IntegerType, WIDER)
TruncIOp = _vector_form(arith.TruncIOp, IntegerType, IntegerType, NARROWER)

# upstream class -> its vector-accepting form
VECTOR_FORMS: dict[type[Operation], type[Operation]] = {
    arith.SIToFPOp: SIToFPOp,
    arith.UIToFPOp: UIToFPOp,
    arith.FPToSIOp: FPToSIOp,
    arith.FPToUIOp: FPToUIOp,
    arith.ExtSIOp: ExtSIOp,
    arith.ExtUIOp: ExtUIOp,
    arith.TruncIOp: TruncIOp,
}

Arith = Dialect(
    "arith",
    [VECTOR_FORMS.get(op, op) for op in arith.Arith.operations],
    list(arith.Arith.attributes),
)
