"""arith's casts, comparisons and select on vectors, as MLIR defines them.

MLIR's `arith.sitofp`, `arith.extsi`, ... take a scalar or a vector (the result of the
same shape); xDSL 0.74 defines them for scalars only. The loop builder then had to cast a
vector lane by lane: 16 extracts, 16 scalar casts and 16 inserts where LLVM has one
instruction (vcvtdq2ps, vpmovsxbd), which made the int8 kernels' requantize epilogues
the largest part of their compile time and slowed the code. These subclasses keep the
upstream names, syntax and Python classes (isinstance checks see the upstream op) and
accept vectors too; Tessel's context registers them in place of xDSL's
(dialects/context.py), and the loop builder creates them for vector casts.

Comparisons and select likewise: upstream `arith.cmpi` / `arith.cmpf` yield one i1 and
`arith.select` takes one, so a mask computed per lane (a row's tail in a softmax rfactor,
`lane < 1500`) was 16 extracts, 16 compares, 16 selects and 16 inserts per vector, which
made whisper's softmax stages twice as slow as their memory traffic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerAttr,
    IntegerType,
    VectorType,
    container_of,
    i1,
)
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
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


def _compared_shapes(op: IRDLOperation) -> None:
    """cmpi/cmpf: the result is i1 for scalars, a vector of i1 of the operands' shape."""
    shape, _ = _shape_and_element(op.operands[0].type)
    if op.operands[1].type != op.operands[0].type:
        raise VerifyException(f"{op.name}: operands {op.operands[0].type} and {op.operands[1].type} differ")
    if _shape_and_element(op.results[0].type) != (shape, i1):
        raise VerifyException(f"{op.name}: the result must be i1 of the operands' shape, got {op.results[0].type}")


def _selected_shapes(op: IRDLOperation) -> None:
    """select: a vector condition has the shape of the values it chooses between."""
    shape, _ = _shape_and_element(op.operands[0].type)
    if shape and _shape_and_element(op.results[0].type)[0] != shape:
        raise VerifyException(
            f"{op.name}: condition {op.operands[0].type} and result {op.results[0].type} differ in shape"
        )


class _ComparisonSyntax:
    """Upstream's syntax (`arith.cmpi slt, %a, %b : vector<16xindex>`), whose parser
    always makes an i1 result: on vectors the result is made a vector of i1."""

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        op: Any = super().parse(parser)  # type: ignore[misc]
        t = op.operands[0].type
        if not isinstance(t, VectorType):
            return op
        shaped = cls.create(  # type: ignore[attr-defined]
            operands=list(op.operands),
            result_types=[VectorType(i1, t.get_shape())],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        op.drop_all_references()
        return shaped


def _comparison_form(upstream: type[IRDLOperation], operand: Any, **extra: Any) -> type[IRDLOperation]:
    """cmpi/cmpf yielding i1 or a vector of i1 (upstream's custom syntax is kept)."""
    body = {
        "__module__": __name__,
        "__qualname__": upstream.__name__,
        "name": upstream.name,
        "predicate": prop_def(IntegerAttr),
        "lhs": operand_def(operand),
        "rhs": operand_def(operand),
        "result": result_def(container_of(i1)),
        "traits": traits_def(Pure()),
        "verify_": _compared_shapes,
        **extra,
    }
    return irdl_op_definition(type(upstream.__name__, (_ComparisonSyntax, upstream), body))


CmpiOp = _comparison_form(arith.CmpiOp, arith.signlessIntegerLike)
CmpfOp = _comparison_form(
    arith.CmpfOp,
    arith.floatingPointLike,
    fastmath=prop_def(arith.FastMathFlagsAttr, default_value=arith.FastMathFlagsAttr("none")),
)


class _SelectSyntax:
    """MLIR's syntax: `arith.select %c, %a, %b : f32` for an i1 condition (upstream's form),
    `: vector<16xi1>, vector<16xf32>` for a vector one."""

    def print(self, printer: Printer) -> None:
        op: Any = self
        printer.print_string(" ")
        printer.print_list(op.operands, printer.print_operand)
        printer.print_op_attributes(op.attributes)
        printer.print_string(" : ")
        if op.cond.type != i1:
            printer.print_attribute(op.cond.type)
            printer.print_string(", ")
        printer.print_attribute(op.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> Any:
        operands = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        cond_t, value_t = (i1, types[0]) if len(types) == 1 else types
        values = parser.resolve_operands(operands, [cond_t, value_t, value_t], parser.pos)
        op = cls.create(operands=values, result_types=[value_t])  # type: ignore[attr-defined]
        op.attributes.update(attributes)
        return op


_T = VarConstraint("_T", AnyAttr())
SelectOp: type[IRDLOperation] = irdl_op_definition(
    type(
        "SelectOp",
        (_SelectSyntax, arith.SelectOp),
        {
            "__module__": __name__,
            "__qualname__": "SelectOp",
            "name": arith.SelectOp.name,
            "cond": operand_def(container_of(i1)),
            "lhs": operand_def(_T),
            "rhs": operand_def(_T),
            "result": result_def(_T),
            "traits": traits_def(Pure()),
            "assembly_format": None,
            "verify_": _selected_shapes,
        },
    )
)

# upstream class -> its vector-accepting form: the casts (per element, like any vector op)
CAST_FORMS: dict[type[Operation], type[Operation]] = {
    arith.SIToFPOp: SIToFPOp,
    arith.UIToFPOp: UIToFPOp,
    arith.FPToSIOp: FPToSIOp,
    arith.FPToUIOp: FPToUIOp,
    arith.ExtSIOp: ExtSIOp,
    arith.ExtUIOp: ExtUIOp,
    arith.TruncIOp: TruncIOp,
}
VECTOR_FORMS: dict[type[Operation], type[Operation]] = {
    **CAST_FORMS,
    arith.CmpiOp: CmpiOp,
    arith.CmpfOp: CmpfOp,
    arith.SelectOp: SelectOp,
}

Arith = Dialect(
    "arith",
    [VECTOR_FORMS.get(op, op) for op in arith.Arith.operations],
    list(arith.Arith.attributes),
)
