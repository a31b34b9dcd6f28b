"""`kernel`: the algorithm of one fused group, TVM's tensor expression as IR.

A kernel is a `func.func` over memrefs whose body is a sequence of `kernel.compute`
stages. A stage defines every element of its output buffer over an iteration domain of
named axes, spatial ones (one per output dim) then reduction ones; the body computes one
term from loads at affine indices of the axes, the terms are combined (add, mul, max, min)
from `init`, and the optional `then` region maps the reduced value (with the spatial
indices) to the stored element, which is where fused element-wise consumers go.

    kernel.compute "conv" %y(n = 1, m = 64, h = 56, w = 56) reduce(c = 64, kh = 3, kw = 3)
        combine "add" init 0.000000e+00 : f32 : memref<1x64x56x56xf32> {
    ^bb0(%n: index, %m: index, %h: index, %w: index, %c: index, %kh: index, %kw: index):
      %a = kernel.load %x[%n, %c, %h + %kh - 1, %w + %kw - 1] pad 0.000000e+00 : f32 : memref<1x64x56x56xf32>
      %b = affine.load %wt[%m, %c, %kh, %kw] : memref<64x64x3x3xf32>
      %p = arith.mulf %a, %b : f32
      kernel.yield %p : f32
    } then {
    ^bb0(%n: index, %m: index, %h: index, %w: index, %acc: f32):
      %r = arith.maximumf %acc, %zero : f32
      kernel.yield %r : f32
    }

The algorithm says nothing about loop order, tiling or vectors: that is the schedule's job,
except for one hint a lowering may give: `lanes(axis)` after the init names the spatial axis
the default schedule vectorizes when it is not the innermost (the packed int8 convolution's
output channels). `kernel.dot4` is the one arithmetic op of the dialect: a four-byte dot
product into an i32 (vpdpbusd's lane), which upstream arith cannot express as one op.
Out-of-bounds reads (padding) are explicit: `kernel.load ... pad V` reads V outside the
buffer (or where its optional `when` condition is false).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.affine import _print_affine_map_of_ssa_ids
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    VectorType,
    container_of,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue, TypedAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

# re-exported (the `as` says so); see the attributes below
from tessel.ir.signature import ELEMENT_ATTR as ELEMENT_ATTR
from tessel.ir.signature import OUTPUT_ATTR as OUTPUT_ATTR

COMBINERS = ("add", "mul", "max", "min", "umax", "umin")  # umax/umin: integers read unsigned

# Attributes the lowering leaves on functions and their arguments, read by the runtime.
KERNEL_ATTR = "kernel.kernel"  # a kernel function (one fused group)
STAGE_ATTR = "kernel.stage"  # a stage function (the loops of one kernel.compute)
SCHEDULE_ATTR = "kernel.schedule"  # the stage's schedule, one line, for readers
GPU_DIMS_ATTR = "kernel.gpu_dims"  # gpu stages: grid x, y, z and block x, y, z
# ELEMENT_ATTR, OUTPUT_ATTR (imported above): a graph argument that is an output buffer, and
# the tensor element type of a graph argument (memrefs are signless): part of the model's
# interface, so defined with it


@irdl_op_definition
class ComputeOp(IRDLOperation):
    name = "kernel.compute"
    out = operand_def(MemRefType)
    stage = prop_def(StringAttr)
    axes = prop_def(ArrayAttr[StringAttr])
    extents = prop_def(DenseArrayBase)
    num_reduce = prop_def(IntegerAttr)  # how many trailing axes reduce
    combine = opt_prop_def(StringAttr)
    init = opt_prop_def(Attribute)
    # The spatial axis the default schedule vectorizes (absent: the innermost). A lowering
    # that lays an operand out for vectors along another axis names it, as TVM's strategies
    # pick a schedule per op: the packed int8 convolution's 16 output channels per i32
    # vector, whose output rows are the pixels.
    lanes = opt_prop_def(StringAttr)
    body = region_def("single_block")
    then = region_def()  # empty, or one block
    traits = traits_def(RecursiveMemoryEffect())

    # ------------------------------------------------------------------ accessors

    @property
    def axis_names(self) -> list[str]:
        return [a.data for a in self.axes.data]

    @property
    def domain(self) -> list[int]:
        return [int(v) for v in self.extents.get_values()]

    @property
    def reduce_count(self) -> int:
        return int(self.num_reduce.value.data)

    @property
    def spatial_count(self) -> int:
        return len(self.axes.data) - self.reduce_count

    @property
    def combiner(self) -> str | None:
        return self.combine.data if self.combine is not None else None

    @property
    def lanes_axis(self) -> int | None:
        """The index of the `lanes` axis, if one is named."""
        return self.axis_names.index(self.lanes.data) if self.lanes is not None else None

    @staticmethod
    def build(  # type: ignore[override]  # positional, unlike IRDLOperation.build's keywords
        stage: str,
        out: SSAValue,
        axes: Sequence[tuple[str, int]],
        reduce: Sequence[tuple[str, int]] = (),
        combine: str | None = None,
        init: Attribute | None = None,
        with_then: bool = False,
        lanes: str | None = None,
    ) -> ComputeOp:
        """An op with empty regions whose entry blocks carry the axis arguments."""
        names = [n for n, _ in axes] + [n for n, _ in reduce]
        props: dict[str, Attribute] = {
            "stage": StringAttr(stage),
            "axes": ArrayAttr([StringAttr(n) for n in names]),
            "extents": DenseArrayBase.from_list(i64, [e for _, e in axes] + [e for _, e in reduce]),
            "num_reduce": IntegerAttr(len(reduce), i64),
        }
        if combine is not None:
            props["combine"] = StringAttr(combine)
        if init is not None:
            props["init"] = init
        if lanes is not None:
            props["lanes"] = StringAttr(lanes)
        body = Block(arg_types=[IndexType()] * len(names))
        for arg, n in zip(body.args, names):
            arg.name_hint = n
        regions = [Region(body)]
        if with_then:
            assert isinstance(init, TypedAttribute)
            then = Block(arg_types=[IndexType()] * len(axes) + [init.get_type()])
            for arg, n in zip(then.args, [n for n, _ in axes] + ["acc"]):
                arg.name_hint = n
            regions.append(Region(then))
        else:
            regions.append(Region())
        return ComputeOp.create(operands=[out], properties=props, regions=regions)

    # ------------------------------------------------------------------ verification

    def verify_(self) -> None:
        names = self.axis_names
        extents = self.domain
        if len(self.then.blocks) > 1:
            raise VerifyException("the then region has at most one block")
        if len(names) != len(extents) or len(set(names)) != len(names):
            raise VerifyException(f"axes {names} need unique names and one extent each, got {extents}")
        if any(e < 0 for e in extents):
            raise VerifyException(f"extents must be non-negative, got {extents}")
        if self.lanes is not None and self.lanes.data not in names[: self.spatial_count]:
            raise VerifyException(f"lanes names {self.lanes.data}, not a spatial axis of {names[: self.spatial_count]}")
        out_type = self.out.type
        assert isinstance(out_type, MemRefType)
        spatial = extents[: self.spatial_count]
        if list(out_type.get_shape()) != spatial:
            raise VerifyException(f"spatial extents {spatial} must equal the output shape {list(out_type.get_shape())}")
        body = self.body.block
        if [a.type for a in body.args] != [IndexType()] * len(names):
            raise VerifyException("the body takes one index argument per axis")
        term = _yielded_type(body, "body")
        element = out_type.get_element_type()
        if self.reduce_count == 0:
            if self.combine is not None or self.init is not None or self.then.blocks:
                raise VerifyException("a stage without reduction axes takes no combine, init or then region")
            if term != element:
                raise VerifyException(f"the body yields {term}, the output holds {element}")
            return
        if self.combiner not in COMBINERS:
            raise VerifyException(f"combine must be one of {', '.join(COMBINERS)}, got {self.combiner}")
        if not isinstance(self.init, TypedAttribute) or self.init.get_type() != term:
            raise VerifyException(f"init must be a {term} value, got {self.init}")
        if not self.then.blocks:
            if term != element:
                raise VerifyException(f"the body yields {term} but the output holds {element}; add a then region")
            return
        then = self.then.block
        expected = [IndexType()] * self.spatial_count + [term]
        if [a.type for a in then.args] != expected:
            raise VerifyException("the then region takes the spatial indices and the reduced value")
        if _yielded_type(then, "then region") != element:
            raise VerifyException(f"the then region must yield {element}")

    # ------------------------------------------------------------------ syntax

    def print(self, printer: Printer) -> None:
        names, extents = self.axis_names, self.domain
        k = self.spatial_count
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        printer.print_string(" ")
        printer.print_ssa_value(self.out)
        printer.print_string("(" + ", ".join(f"{n} = {e}" for n, e in zip(names[:k], extents[:k])) + ")")
        if self.reduce_count:
            printer.print_string(" reduce(" + ", ".join(f"{n} = {e}" for n, e in zip(names[k:], extents[k:])) + ")")
            printer.print_string(f' combine "{self.combiner}" init ')
            assert self.init is not None, "a reduction has an init"
            printer.print_attribute(self.init)
        if self.lanes is not None:
            printer.print_string(f" lanes({self.lanes.data})")
        printer.print_string(" : ")
        printer.print_attribute(self.out.type)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)
        if self.then.blocks:
            printer.print_string(" then ")
            printer.print_region(self.then, print_entry_block_args=True)

    @classmethod
    def parse(cls, parser: Parser) -> ComputeOp:
        stage = parser.parse_str_literal()
        out = parser.parse_unresolved_operand()
        spatial = _parse_axes(parser)
        reduce: list[tuple[str, int]] = []
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("reduce") is not None:
            reduce = _parse_axes(parser)
            parser.parse_keyword("combine")
            props["combine"] = StringAttr(parser.parse_str_literal())
            parser.parse_keyword("init")
            props["init"] = parser.parse_attribute()
        if parser.parse_optional_keyword("lanes") is not None:
            parser.parse_punctuation("(")
            props["lanes"] = StringAttr(parser.parse_identifier())
            parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        out_type = parser.parse_type()
        body = parser.parse_region()
        then = Region()
        if parser.parse_optional_keyword("then") is not None:
            then = parser.parse_region()
        names = [n for n, _ in spatial + reduce]
        props |= {
            "stage": StringAttr(stage),
            "axes": ArrayAttr([StringAttr(n) for n in names]),
            "extents": DenseArrayBase.from_list(i64, [e for _, e in spatial + reduce]),
            "num_reduce": IntegerAttr(len(reduce), i64),
        }
        operand = parser.resolve_operand(out, out_type)
        return cls.create(operands=[operand], properties=props, regions=[body, then])


def _parse_axes(parser: Parser) -> list[tuple[str, int]]:
    def axis() -> tuple[str, int]:
        name = parser.parse_identifier()
        parser.parse_punctuation("=")
        return name, parser.parse_integer(allow_negative=False, allow_boolean=False)

    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, axis)


def _yielded_type(block: Block, what: str) -> Attribute:
    last = block.last_op
    if not isinstance(last, YieldOp) or len(last.values) != 1:
        raise VerifyException(f"the {what} must end in kernel.yield of one value")
    return last.values[0].type


@irdl_op_definition
class LoadOp(IRDLOperation):
    """A read that may fall outside the buffer: `pad` where any index is out of bounds or
    where the optional `when` condition is false."""

    name = "kernel.load"
    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    cond = opt_operand_def(IntegerType(1))
    result = result_def(Attribute)
    map = prop_def(AffineMapAttr)
    pad = prop_def(Attribute)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        if len(self.map.data.results) != t.get_num_dims():
            raise VerifyException(
                f"the access has {len(self.map.data.results)} indices for a rank-{t.get_num_dims()} buffer"
            )
        if self.map.data.num_dims + self.map.data.num_symbols != len(self.indices):
            raise VerifyException("the access map does not match its index operands")
        if self.result.type != t.get_element_type():
            raise VerifyException(f"result type {self.result.type} must be the element type {t.get_element_type()}")
        if not isinstance(self.pad, TypedAttribute) or self.pad.get_type() != t.get_element_type():
            raise VerifyException(f"pad must be a {t.get_element_type()} value, got {self.pad}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.memref)
        _print_affine_map_of_ssa_ids(printer, self.map.data, self.indices)
        printer.print_string(" pad ")
        printer.print_attribute(self.pad)
        if self.cond is not None:
            printer.print_string(" when ")
            printer.print_ssa_value(self.cond)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        memref = parser.parse_unresolved_operand()
        affine_map, indices = parser.parse_affine_map_of_ssa_ids()
        parser.parse_keyword("pad")
        pad = parser.parse_attribute()
        cond = None
        if parser.parse_optional_keyword("when") is not None:
            cond = parser.resolve_operand(parser.parse_unresolved_operand(), IntegerType(1))
        parser.parse_punctuation(":")
        memref_type = parser.parse_type()
        if not isinstance(memref_type, MemRefType):
            parser.raise_error("expected a memref type")
        operands: list[SSAValue | Sequence[SSAValue]] = [
            parser.resolve_operand(memref, memref_type),
            list(indices),
            [cond] if cond else [],
        ]
        return cls.build(
            operands=operands,
            result_types=[memref_type.get_element_type()],
            properties={"map": AffineMapAttr(affine_map), "pad": pad},
        )


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "kernel.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(ComputeOp))
    assembly_format = "$values attr-dict `:` type($values)"


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """Run a stage function (from `kernel-to-loops`) over [0, extent) of its parallel loop;
    the runtime splits that range across threads."""

    name = "kernel.launch"
    callee = prop_def(SymbolRefAttr)
    args = var_operand_def(MemRefType)
    extent = prop_def(IntegerAttr)
    assembly_format = "$callee `(` $args `)` `over` $extent attr-dict `:` type($args)"
    irdl_options = (ParsePropInAttrDict(),)


@irdl_op_definition
class Dot4Op(IRDLOperation):
    """acc + the dot product of the four bytes of `lhs` read unsigned with the four bytes of
    `rhs` read signed (byte j is bits 8j..8j+7), wrapping in i32; on vectors of i32, lane
    by lane. It is one lane of x86's vpdpbusd (AVX-512 VNNI, AVX-VNNI) and of NVIDIA's
    dp4a.u32.s32: an int8 convolution that packs four input channels into each i32 does
    four multiply-adds per lane in one instruction (the LLVM emitter uses it where the CPU
    has it, and the same arithmetic in generic vector code elsewhere).

        %r = kernel.dot4 %acc, %a, %b : vector<16xi32>
    """

    name = "kernel.dot4"
    T: ClassVar = VarConstraint("T", container_of(IntegerType))
    acc = operand_def(T)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    assembly_format = "$acc `,` $lhs `,` $rhs attr-dict `:` type($result)"

    def verify_(self) -> None:
        t = self.result.type
        element = t.get_element_type() if isinstance(t, VectorType) else t
        if element != i32:
            raise VerifyException(f"works on i32 (four packed bytes) or vectors of i32, got {t}")


@irdl_op_definition
class Bf16Dot2Op(IRDLOperation):
    """acc + the dot product of the two bfloat16 halves of `lhs` with those of `rhs` (half j
    is bits 16j..16j+15), in f32: acc + lhs.hi * rhs.hi, rounded, + lhs.lo * rhs.lo,
    rounded (each product of two bfloat16 is exact in f32), subnormal inputs and results
    flushed to zero; on vectors, lane by lane. (Where a product overflows f32 the
    instruction keeps a wider range than this: a Zen 5 sums -inf + inf to -inf.) It is one lane of x86's vdpbf16ps (AVX512-BF16:
    Cooper Lake, Sapphire Rapids, Zen 4 and 5): a product whose matrix is packed as pairs of
    bfloat16 does two multiply-adds per lane in one instruction, at half the weight bytes
    (`--precision bf16`; the LLVM emitter uses generic vector code on other CPUs).

        %r = kernel.bf16dot2 %acc, %a, %b : vector<16xf32>, vector<16xi32>
    """

    name = "kernel.bf16dot2"
    F: ClassVar = VarConstraint("F", container_of(Float32Type))
    W: ClassVar = VarConstraint("W", container_of(IntegerType))
    acc = operand_def(F)
    lhs = operand_def(W)
    rhs = operand_def(W)
    result = result_def(F)
    assembly_format = "$acc `,` $lhs `,` $rhs attr-dict `:` type($result) `,` type($lhs)"

    def verify_(self) -> None:
        f, w = self.result.type, self.lhs.type
        lanes = f.get_shape() if isinstance(f, VectorType) else ()
        words = w.get_shape() if isinstance(w, VectorType) else ()
        element = w.get_element_type() if isinstance(w, VectorType) else w
        if element != i32 or lanes != words:
            raise VerifyException(f"takes i32 words (two packed bfloat16) lane for lane with {f}, got {w}")


KERNEL = Dialect("kernel", [ComputeOp, LoadOp, YieldOp, LaunchOp, Dot4Op, Bf16Dot2Op], [])
