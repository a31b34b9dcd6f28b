"""`sched`: a kernel stage's schedule as IR, TVM's schedule primitives as ops.

A `sched.stage` names the stage function it schedules (`k5_conv2d_nchwc_relu__s1`, the
name kernel-to-loops gives the stage) and holds a sequence of primitives on loop handles,
in the style of MLIR's transform dialect: `sched.axes` yields one handle per axis of the
stage (spatial, then reduction), `split` and `tile` yield new handles, the others annotate
or reorder. `kernel-to-loops` replays the sequence to build the stage's loop nest
(`passes/kernel/loops/apply_sched.py`); the tuner writes and samples schedules in this form.

    sched.stage "k5_conv2d_nchwc_relu__s1" {
      %n, %mo, %oh, %ow, %mi, %co, %kh, %kw, %ci = sched.axes ["n", "mo", "oh", "ow", "mi", "co", "kh", "kw", "ci"]
      %ow.o, %ow.i = sched.split %ow by 14
      %mi.o, %mi.i = sched.split %mi by 16
      sched.reorder %mo, %n, %oh, %ow.o, %mi.o, %co, %kh, %kw, %ci, %ow.i, %mi.i
      sched.parallel %mo
      sched.cache_write at %mi.o
      sched.unroll %ow.i
      sched.vectorize %mi.i
    }

The ops check only what they can see alone (factors positive, handles used once per
split); everything that depends on the stage (axis names, a reduction vectorized, the
accumulator tile's shape) is checked when the schedule is applied, with an error naming
the primitive.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, ArrayAttr, DenseArrayBase, IntegerAttr, StringAttr, i64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tessel.ir.diagnostics import TesselError, op_location


@irdl_attr_definition
class LoopType(ParametrizedAttribute, TypeAttribute):
    """A handle to one loop of the nest being built."""

    name = "sched.loop"


LOOP = LoopType()


class GpuIndex(StrEnum):
    """The GPU index a bound loop's iterations become (CUDA's special registers)."""

    BLOCK_X = "blockIdx.x"
    BLOCK_Y = "blockIdx.y"
    BLOCK_Z = "blockIdx.z"
    THREAD_X = "threadIdx.x"
    THREAD_Y = "threadIdx.y"
    THREAD_Z = "threadIdx.z"


@irdl_attr_definition
class GpuIndexAttr(EnumAttribute[GpuIndex], SpacedOpaqueSyntaxAttribute):
    name = "sched.gpu_index"


def _positive(op: Operation, factors: Sequence[int]) -> None:
    if any(k <= 0 for k in factors):
        raise VerifyException(f"factors must be positive, got {list(factors)}")


class PrimitiveOp(IRDLOperation):
    """A schedule primitive: loop handles in, loop handles out, integer knobs.

    `make(loops, factors)` builds any primitive from lists, and `knobs` reads its integer
    arguments back as a tuple, so code that writes or replays schedules treats all
    primitives alike."""

    @classmethod
    def make(cls, loops: Sequence[SSAValue], factors: Sequence[int] = ()) -> PrimitiveOp:
        return cls.create(
            operands=list(loops),
            result_types=[LOOP] * cls.result_count(len(loops)),
            properties=cls._knob_properties(factors),
        )

    @classmethod
    def result_count(cls, operands: int) -> int:
        return 0

    @classmethod
    def _knob_properties(cls, factors: Sequence[int]) -> dict[str, Attribute]:
        if factors:
            raise ValueError(f"{cls.name} takes no factor")
        return {}

    @property
    def knobs(self) -> tuple[int, ...]:
        return ()


class SplitLikeOp(PrimitiveOp):
    loop = operand_def(LoopType)
    outer = result_def(LoopType)
    inner = result_def(LoopType)
    factor = prop_def(IntegerAttr[I64])
    assembly_format = "$loop `by` $factor attr-dict"

    @classmethod
    def result_count(cls, operands: int) -> int:
        return 2

    @classmethod
    def _knob_properties(cls, factors: Sequence[int]) -> dict[str, Attribute]:
        (factor,) = factors
        return {"factor": IntegerAttr(factor, i64)}

    @property
    def knobs(self) -> tuple[int, ...]:
        return (self.factor.value.data,)

    def verify_(self) -> None:
        _positive(self, self.knobs)


@irdl_op_definition
class SplitOp(SplitLikeOp):
    """%outer, %inner = sched.split %l by F: the inner loop runs F iterations."""

    name = "sched.split"


@irdl_op_definition
class SplitClampOp(SplitLikeOp):
    """Like split, but the last outer step moves back to end at the loop's end instead of
    leaving a tail (the tiles overlap; no guards in the inner loop)."""

    name = "sched.split_clamp"


@irdl_op_definition
class TileOp(PrimitiveOp):
    """%o1, %o2, %i1, %i2 = sched.tile %a, %b by Fa, Fb: split each, outers before inners.

    Custom syntax: its results are twice its operands, which a declarative format cannot
    say without spelling out every result type."""

    name = "sched.tile"
    loops = var_operand_def(LoopType)
    tiles = var_result_def(LoopType)
    factors = prop_def(DenseArrayBase.constr(i64))

    @classmethod
    def result_count(cls, operands: int) -> int:
        return 2 * operands

    @classmethod
    def _knob_properties(cls, factors: Sequence[int]) -> dict[str, Attribute]:
        return {"factors": DenseArrayBase.from_list(i64, list(factors))}

    @property
    def knobs(self) -> tuple[int, ...]:
        return tuple(int(k) for k in self.factors.get_values())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.loops, printer.print_ssa_value)
        printer.print_string(" by " + ", ".join(str(k) for k in self.knobs))

    @classmethod
    def parse(cls, parser: Parser) -> TileOp:
        loops = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_keyword("by")
        factors = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, lambda: parser.parse_integer(allow_boolean=False)
        )
        op = cls.make([parser.resolve_operand(o, LOOP) for o in loops], factors)
        assert isinstance(op, TileOp)
        return op

    def verify_(self) -> None:
        if len(self.knobs) != len(self.loops):
            raise VerifyException("takes one factor per loop")
        if len(self.tiles) != 2 * len(self.loops):
            raise VerifyException(f"yields {2 * len(self.loops)} handles, got {len(self.tiles)}")
        _positive(self, self.knobs)


@irdl_op_definition
class FuseOp(PrimitiveOp):
    """%f = sched.fuse %a, %b: adjacent loops as one (the runtime splits the fused range)."""

    name = "sched.fuse"
    loops = var_operand_def(LoopType)
    fused = result_def(LoopType)
    assembly_format = "$loops attr-dict"

    @classmethod
    def result_count(cls, operands: int) -> int:
        return 1

    def verify_(self) -> None:
        if len(self.loops) < 2:
            raise VerifyException("takes two or more loops")


@irdl_op_definition
class ReorderOp(PrimitiveOp):
    """The listed loops take the positions they occupy, in the listed order (TVM's reorder)."""

    name = "sched.reorder"
    loops = var_operand_def(LoopType)
    assembly_format = "$loops attr-dict"

    def verify_(self) -> None:
        if len(self.loops) < 2:
            raise VerifyException("takes two or more loops")
        if len(set(self.loops)) != len(self.loops):
            raise VerifyException("lists a loop twice")


class AnnotationOp(PrimitiveOp):
    """A primitive on one loop that changes how it runs, not which loops there are."""

    loop = operand_def(LoopType)
    assembly_format = "$loop attr-dict"


@irdl_op_definition
class VectorizeOp(AnnotationOp):
    """sched.vectorize %l: the innermost loop's iterations become SIMD lanes."""

    name = "sched.vectorize"


@irdl_op_definition
class ParallelOp(AnnotationOp):
    """sched.parallel %l: the outermost loop's range is shared out to threads."""

    name = "sched.parallel"


@irdl_op_definition
class UnrollOp(AnnotationOp):
    """sched.unroll %l: the loop is copied out, so its tiles have constant indices."""

    name = "sched.unroll"


@irdl_op_definition
class CacheWriteOp(AnnotationOp):
    """sched.cache_write at %l: accumulate in a local tile (registers) made of the
    spatial loops after %l, over the reduction loops between (TVM's cache_write +
    compute_at)."""

    name = "sched.cache_write"
    assembly_format = "`at` $loop attr-dict"


@irdl_op_definition
class ComputeAtOp(AnnotationOp):
    """sched.compute_at %l: compute the stage inside its consumer's loop %l."""

    name = "sched.compute_at"


@irdl_op_definition
class ComputeInlineOp(PrimitiveOp):
    """sched.compute_inline: compute the stage where its consumer reads it."""

    name = "sched.compute_inline"
    assembly_format = "attr-dict"


@irdl_op_definition
class CacheReadOp(AnnotationOp):
    """sched.cache_read %l: stage the loop's input tile through a local buffer."""

    name = "sched.cache_read"


@irdl_op_definition
class BindOp(AnnotationOp):
    """sched.bind %l to threadIdx.x: the loop's iterations become the GPU index's values
    (blockIdx.x|y|z, threadIdx.x|y|z); the grid is sized to the loop's extent."""

    name = "sched.bind"
    gpu_index = prop_def(GpuIndexAttr)
    assembly_format = "$loop `to` $gpu_index attr-dict"
    INDICES: ClassVar[tuple[str, ...]] = tuple(i.value for i in GpuIndex)

    @classmethod
    def make_bind(cls, loop: SSAValue, index: str) -> BindOp:
        return cls.create(operands=[loop], properties={"gpu_index": GpuIndexAttr(GpuIndex(index))})

    @property
    def index(self) -> str:
        return self.gpu_index.data.value


@irdl_op_definition
class TensorizeOp(AnnotationOp):
    """sched.tensorize %l: replace the loops from %l in by a hardware intrinsic."""

    name = "sched.tensorize"


@irdl_op_definition
class VirtualThreadOp(AnnotationOp):
    """sched.virtual_thread %l: interleave the loop's iterations for latency hiding (VTA)."""

    name = "sched.virtual_thread"


@irdl_op_definition
class AxesOp(IRDLOperation):
    """%a, %b, ... = sched.axes ["a", "b", ...]: one handle per axis of the stage.

    Custom syntax: the number of results follows from the names, which a declarative
    format cannot say without spelling out every result type."""

    name = "sched.axes"
    handles = var_result_def(LoopType)
    names = prop_def(ArrayAttr[StringAttr])

    @classmethod
    def make(cls, names: Sequence[str]) -> AxesOp:
        return cls.create(
            result_types=[LOOP] * len(names), properties={"names": ArrayAttr([StringAttr(n) for n in names])}
        )

    @property
    def axis_names(self) -> list[str]:
        return [a.data for a in self.names.data]

    def print(self, printer: Printer) -> None:
        printer.print_string(" [" + ", ".join(f'"{n}"' for n in self.axis_names) + "]")

    @classmethod
    def parse(cls, parser: Parser) -> AxesOp:
        names = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_str_literal)
        return cls.make(names)

    def verify_(self) -> None:
        if len(self.handles) != len(self.names.data):
            raise VerifyException(f"names {len(self.names.data)} axes but yields {len(self.handles)} handles")
        if len(set(self.axis_names)) != len(self.axis_names):
            raise VerifyException("names an axis twice")


@irdl_op_definition
class StageOp(IRDLOperation):
    """The schedule of one stage function, by name."""

    name = "sched.stage"
    stage = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())
    assembly_format = "$stage $body attr-dict"

    @classmethod
    def make(cls, stage: str, ops: Sequence[Operation]) -> StageOp:
        block = Block()
        block.add_ops(ops)
        return cls.create(properties={"stage": StringAttr(stage)}, regions=[Region(block)])

    def verify_(self) -> None:
        ops = list(self.body.block.ops) if self.body.blocks else []
        if not ops or not isinstance(ops[0], AxesOp):
            raise VerifyException(f'"{self.stage.data}" must begin with sched.axes')
        if any(isinstance(o, AxesOp) for o in ops[1:]):
            raise VerifyException(f'"{self.stage.data}" has more than one sched.axes')
        consumed: set[SSAValue] = set()
        for o in ops:
            if isinstance(o, SplitOp | SplitClampOp | TileOp | FuseOp):
                for v in o.operands:
                    if v in consumed:
                        raise VerifyException(
                            f"{o.name} uses a loop handle that an earlier split, tile or fuse replaced"
                        )
                    consumed.add(v)
            elif any(v in consumed for v in o.operands):
                raise VerifyException(f"{o.name} uses a loop handle that an earlier split, tile or fuse replaced")


PRIMITIVES: tuple[type[IRDLOperation], ...] = (
    SplitOp,
    SplitClampOp,
    TileOp,
    FuseOp,
    ReorderOp,
    VectorizeOp,
    ParallelOp,
    UnrollOp,
    CacheWriteOp,
    ComputeAtOp,
    ComputeInlineOp,
    CacheReadOp,
    BindOp,
    TensorizeOp,
    VirtualThreadOp,
)

SCHED = Dialect("sched", [StageOp, AxesOp, *PRIMITIVES], [LoopType, GpuIndexAttr])


def stages(ops: Iterable[Operation]) -> dict[str, StageOp]:
    """The sched.stage ops among `ops`, by stage name; a second schedule for one stage is
    an error (which one should win?), not silently dropped."""
    found: dict[str, StageOp] = {}
    for o in ops:
        if isinstance(o, StageOp):
            if o.stage.data in found:
                raise TesselError(
                    f'a second sched.stage "{o.stage.data}": give each stage one schedule', op_location(o)
                )
            found[o.stage.data] = o
    return found
