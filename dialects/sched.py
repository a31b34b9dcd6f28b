"""`sched`: a kernel stage's schedule as IR, TVM's schedule primitives as ops.

A `sched.stage` names the stage function it schedules (`k5_conv2d_nchwc_relu__s1`, the
name kernel-to-loops gives the stage) and holds a sequence of primitives on loop handles,
in the style of MLIR's transform dialect: `sched.axes` yields one handle per axis of the
stage (spatial, then reduction), `split` and `tile` yield new handles, the others annotate
or reorder. `kernel-to-loops` replays the sequence to build the stage's loop nest
(`passes/schedule/apply_sched.py`); the tuner writes and samples schedules in this form.

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

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, StringAttr, i64
from xdsl.ir import Attribute, Block, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from tessel.ir.diagnostics import TesselError, op_location


@irdl_attr_definition
class LoopType(ParametrizedAttribute, TypeAttribute):
    """A handle to one loop of the nest being built."""

    name = "sched.loop"


LOOP = LoopType()


class PrimitiveOp(IRDLOperation):
    """`[%r, ... =] sched.<name> %l, ... [by N, ...]`: loops in, loops out, integer knobs."""

    loops = var_operand_def(LoopType)
    results_ = var_result_def(LoopType)
    factors = opt_prop_def(DenseArrayBase)

    RESULTS: ClassVar[int | None] = 0  # handles produced (None: two per operand, as tile's)
    KEYWORD: ClassVar[str] = "by"

    @classmethod
    def make(cls, loops: Sequence[SSAValue], factors: Sequence[int] = ()) -> PrimitiveOp:
        props = {"factors": DenseArrayBase.from_list(i64, list(factors))} if factors else {}
        return cls.create(operands=list(loops), result_types=[LOOP] * cls.result_count(len(loops)), properties=props)

    @classmethod
    def result_count(cls, operands: int) -> int:
        return 2 * operands if cls.RESULTS is None else cls.RESULTS

    @property
    def knobs(self) -> tuple[int, ...]:
        return tuple(self.factors.get_values()) if self.factors is not None else ()  # type: ignore[union-attr]

    def print(self, printer: Printer) -> None:
        if self.loops:
            printer.print_string(" ")
            printer.print_list(self.loops, printer.print_ssa_value)
        if self.knobs:
            printer.print_string(f" {self.KEYWORD} " + ", ".join(str(k) for k in self.knobs))

    @classmethod
    def parse(cls, parser: Parser) -> PrimitiveOp:
        loops = []
        operand = parser.parse_optional_unresolved_operand()
        if operand is not None:
            loops.append(operand)
            while parser.parse_optional_punctuation(",") is not None:
                loops.append(parser.parse_unresolved_operand())
        factors: list[int] = []
        if parser.parse_optional_keyword(cls.KEYWORD) is not None:
            factors = [parser.parse_integer(allow_boolean=False)]
            while parser.parse_optional_punctuation(",") is not None:
                factors.append(parser.parse_integer(allow_boolean=False))
        return cls.make([parser.resolve_operand(o, LOOP) for o in loops], factors)

    def verify_(self) -> None:
        if self.result_count(len(self.loops)) != len(self.results):
            raise VerifyException(f"yields {self.result_count(len(self.loops))} handles, got {len(self.results)}")
        if any(k <= 0 for k in self.knobs):
            raise VerifyException(f"factors must be positive, got {list(self.knobs)}")


@irdl_op_definition
class SplitOp(PrimitiveOp):
    """%outer, %inner = sched.split %l by F: the inner loop runs F iterations."""

    name = "sched.split"
    RESULTS: ClassVar[int | None] = 2

    def verify_(self) -> None:
        super().verify_()
        if len(self.loops) != 1 or len(self.knobs) != 1:
            raise VerifyException("takes one loop and one factor")


@irdl_op_definition
class SplitClampOp(PrimitiveOp):
    """Like split, but the last outer step moves back to end at the loop's end instead of
    leaving a tail (the tiles overlap; no guards in the inner loop)."""

    name = "sched.split_clamp"
    RESULTS: ClassVar[int | None] = 2

    def verify_(self) -> None:
        super().verify_()
        if len(self.loops) != 1 or len(self.knobs) != 1:
            raise VerifyException("takes one loop and one factor")


@irdl_op_definition
class TileOp(PrimitiveOp):
    """%o1, %o2, %i1, %i2 = sched.tile %a, %b by Fa, Fb: split each, outers before inners."""

    name = "sched.tile"
    RESULTS: ClassVar[int | None] = None

    def verify_(self) -> None:
        super().verify_()
        if len(self.loops) < 1 or len(self.knobs) != len(self.loops):
            raise VerifyException("takes one factor per loop")


@irdl_op_definition
class FuseOp(PrimitiveOp):
    """%f = sched.fuse %a, %b: adjacent loops as one (the runtime splits the fused range)."""

    name = "sched.fuse"
    RESULTS: ClassVar[int | None] = 1

    def verify_(self) -> None:
        super().verify_()
        if len(self.loops) < 2 or self.knobs:
            raise VerifyException("takes two or more loops and no factor")


class AnnotationOp(PrimitiveOp):
    def verify_(self) -> None:
        super().verify_()
        if len(self.loops) != 1 or self.knobs:
            raise VerifyException("takes one loop")


@irdl_op_definition
class ReorderOp(PrimitiveOp):
    """The listed loops take the positions they occupy, in the listed order (TVM's reorder)."""

    name = "sched.reorder"

    def verify_(self) -> None:
        super().verify_()
        if len(self.loops) < 2 or self.knobs:
            raise VerifyException("takes two or more loops")
        if len(set(self.loops)) != len(self.loops):
            raise VerifyException("lists a loop twice")


@irdl_op_definition
class VectorizeOp(AnnotationOp):
    name = "sched.vectorize"


@irdl_op_definition
class ParallelOp(AnnotationOp):
    name = "sched.parallel"


@irdl_op_definition
class UnrollOp(AnnotationOp):
    name = "sched.unroll"


@irdl_op_definition
class CacheWriteOp(AnnotationOp):
    """sched.cache_write at %l: accumulate in a local tile (registers) made of the
    spatial loops after %l, over the reduction loops between (TVM's cache_write +
    compute_at)."""

    name = "sched.cache_write"

    def print(self, printer: Printer) -> None:
        printer.print_string(" at ")
        printer.print_ssa_value(self.loops[0])

    @classmethod
    def parse(cls, parser: Parser) -> PrimitiveOp:
        parser.parse_keyword("at")
        return cls.make([parser.resolve_operand(parser.parse_unresolved_operand(), LOOP)])


@irdl_op_definition
class ComputeAtOp(AnnotationOp):
    """sched.compute_at %l: compute the stage inside its consumer's loop %l."""

    name = "sched.compute_at"


@irdl_op_definition
class ComputeInlineOp(PrimitiveOp):
    """sched.compute_inline: compute the stage where its consumer reads it."""

    name = "sched.compute_inline"


@irdl_op_definition
class CacheReadOp(AnnotationOp):
    """sched.cache_read %l: stage the loop's input tile through a local buffer."""

    name = "sched.cache_read"


@irdl_op_definition
class BindOp(AnnotationOp):
    """sched.bind %l to threadIdx.x: the loop's iterations become the GPU index's values
    (blockIdx.x|y|z, threadIdx.x|y|z); the grid is sized to the loop's extent."""

    name = "sched.bind"
    INDICES: ClassVar[tuple[str, ...]] = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z")

    @classmethod
    def make_bind(cls, loop: SSAValue, index: str) -> BindOp:
        return cls.make([loop], [cls.INDICES.index(index) + 1])  # type: ignore[return-value]

    @property
    def index(self) -> str:
        return self.INDICES[self.knobs[0] - 1]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.loops[0])
        printer.print_string(f" to {self.index}")

    @classmethod
    def parse(cls, parser: Parser) -> PrimitiveOp:
        loop = parser.resolve_operand(parser.parse_unresolved_operand(), LOOP)
        parser.parse_keyword("to")
        pos = parser.pos
        name = parser.parse_identifier()
        if name not in cls.INDICES:
            parser.raise_error(f"expected one of {', '.join(cls.INDICES)}, got '{name}'", pos, parser.pos)
        return cls.make_bind(loop, name)

    def verify_(self) -> None:
        PrimitiveOp.verify_(self)
        if len(self.loops) != 1 or len(self.knobs) != 1 or not 1 <= self.knobs[0] <= 6:
            raise VerifyException("takes one loop and a GPU index")


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
    """%a, %b, ... = sched.axes ["a", "b", ...]: one handle per axis of the stage."""

    name = "sched.axes"
    handles = var_result_def(LoopType)
    names = prop_def(ArrayAttr[StringAttr])

    @classmethod
    def make(cls, names: Sequence[str]) -> AxesOp:
        return cls.create(result_types=[LOOP] * len(names), properties={"names": ArrayAttr([StringAttr(n) for n in names])})

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

    @classmethod
    def make(cls, stage: str, ops: Sequence[IRDLOperation]) -> StageOp:
        block = Block()
        block.add_ops(ops)
        return cls.create(properties={"stage": StringAttr(stage)}, regions=[Region(block)])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    @classmethod
    def parse(cls, parser: Parser) -> StageOp:
        stage = parser.parse_str_literal()
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        return cls.create(properties={"stage": StringAttr(stage)}, regions=[body])

    def verify_(self) -> None:
        ops = list(self.body.block.ops)
        if not ops or not isinstance(ops[0], AxesOp):
            raise VerifyException(f'"{self.stage.data}" must begin with sched.axes')
        if any(isinstance(o, AxesOp) for o in ops[1:]):
            raise VerifyException(f'"{self.stage.data}" has more than one sched.axes')
        consumed: set[SSAValue] = set()
        for o in ops:
            if isinstance(o, SplitOp | SplitClampOp | TileOp | FuseOp):
                for v in o.operands:
                    if v in consumed:
                        raise VerifyException(f"{o.name} uses a loop handle that an earlier split, tile or fuse replaced")
                    consumed.add(v)
            elif any(v in consumed for v in o.operands):
                raise VerifyException(f"{o.name} uses a loop handle that an earlier split, tile or fuse replaced")


PRIMITIVES: tuple[type[IRDLOperation], ...] = (
    SplitOp, SplitClampOp, TileOp, FuseOp, ReorderOp, VectorizeOp, ParallelOp, UnrollOp, CacheWriteOp,
    ComputeAtOp, ComputeInlineOp, CacheReadOp, BindOp, TensorizeOp, VirtualThreadOp,
)  # fmt: skip

SCHED = Dialect("sched", [StageOp, AxesOp, *PRIMITIVES], [LoopType])


def stages(ops: Sequence[Attribute] | Block) -> dict[str, StageOp]:
    """The sched.stage ops among `ops`, by stage name; a second schedule for one stage is
    an error (which one should win?), not silently dropped."""
    found: dict[str, StageOp] = {}
    for o in ops:
        if isinstance(o, StageOp):
            if o.stage.data in found:
                raise TesselError(f'a second sched.stage "{o.stage.data}": give each stage one schedule', op_location(o))
            found[o.stage.data] = o
    return found
