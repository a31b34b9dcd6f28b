"""`vta`: int8 layers placed on the VTA accelerator, and the instruction streams they become.

Two levels, in the order of lowering:

* `vta.conv2d` is a whole int8 layer (conv2d, or a matmul as a 1x1 conv, plus bias,
  requantizing shift, ReLU and clip) on tensors, what `tg-to-vta` makes of the matching `tg`
  chain. `vta-codegen` compiles each into a program and names it in the op's `program`.
* `vta.program @name` holds what the accelerator runs: the DRAM tensors (`vta.tensor`), the
  micro-op table (`vta.uop`) and the instruction stream. Instructions print as the listing
  does, one `key=value` item per field:

      vta.program @C9_vt2 {config = "pynq"} {
        vta.tensor(input, offset=0, shape=[16, 14, 14, 16], int8)
        vta.uop(dst=0, src=0, wgt=0)
        vta.load(uop, sram=0, dram=2700, y=1, x=80, stride=80)
        vta.load(inp, sram=0, dram=0, y=14, x=14, stride=14, pad=[1, 1, 1, 1])
        vta.gemm(uop=[2, 20], iter=[14, 14], dst=[14, 1], src=[16, 1], wgt=[0, 0], deps=[pop_prev, push_prev])
        vta.alu(max, imm=0, uop=[0, 2], iter=[14, 14], dst=[14, 1], src=[0, 0])
        vta.finish
      }

`tessel-translate --target vta` encodes the programs bit-exactly (targets/vta/isa.py).
"""

from __future__ import annotations

from dataclasses import fields
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, SymbolNameConstraint, SymbolRefAttr, TensorType, i64
from xdsl.ir import Block, Dialect, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from tessel.targets.vta import isa
from tessel.targets.vta.config import ConfigError, preset
from tessel.targets.vta.layer import Conv2dLayer
from tessel.targets.vta.program import Program, Tensor

# On a tg op tg-to-vta matched but VTA cannot run: why (the op stays on the CPU).
HOST_ATTR = "vta.host"


def _parse_items(parser: Parser) -> list[isa.Item]:
    def value() -> int | list[int | str]:
        if parser.parse_optional_punctuation("[") is not None:
            out: list[int | str] = []
            if parser.parse_optional_punctuation("]") is None:
                while True:
                    ident = parser.parse_optional_identifier()
                    out.append(ident if ident is not None else parser.parse_integer(allow_boolean=False))
                    if parser.parse_optional_punctuation(",") is None:
                        break
                parser.parse_punctuation("]")
            return out
        return parser.parse_integer(allow_boolean=False)

    def item() -> isa.Item:
        key = parser.parse_identifier()
        if parser.parse_optional_punctuation("=") is not None:
            return key, value()
        return key, None

    if parser.parse_optional_punctuation("(") is None:
        return []
    if parser.parse_optional_punctuation(")") is not None:
        return []
    items = [item()]
    while parser.parse_optional_punctuation(",") is not None:
        items.append(item())
    parser.parse_punctuation(")")
    return items


def _in_program(op: Operation) -> ProgramOp:
    parent = op.parent_op()
    if not isinstance(parent, ProgramOp):
        raise VerifyException("must be inside a vta.program")
    return parent


class InsnOp(IRDLOperation):
    """One instruction; `fields` holds the dataclass fields of its `isa` kind in order."""

    values = prop_def(DenseArrayBase)
    OPCODE: ClassVar[isa.Opcode]
    KIND: ClassVar[type[isa.Insn]]

    @classmethod
    def from_insn(cls, insn: isa.Insn) -> InsnOp:
        op = OP_FOR[insn.opcode]
        vals = [int(getattr(insn, f.name)) for f in fields(insn)]
        return op.create(properties={"values": DenseArrayBase.from_list(i64, vals)})

    def insn(self) -> isa.Insn:
        vals = list(self.values.get_values())  # type: ignore[attr-defined]
        names = [f.name for f in fields(self.KIND)]
        if len(vals) != len(names):
            raise VerifyException(f"holds {len(vals)} fields, a {self.OPCODE.name} has {len(names)}")
        args: dict[str, object] = dict(zip(names, vals))
        for k, v in args.items():
            if k in (*isa.DEPS, "reset", "use_imm", "store"):
                args[k] = bool(v)
        if "memory_type" in args:
            args["memory_type"] = isa.Mem(args["memory_type"])
        if "alu_opcode" in args:
            args["alu_opcode"] = isa.AluOp(args["alu_opcode"])
        return self.KIND(**args)  # type: ignore[arg-type]

    def print(self, printer: Printer) -> None:
        items = isa.insn_items(self.insn())
        if items:
            printer.print_string(f"({isa.items_text(items)})")

    @classmethod
    def parse(cls, parser: Parser) -> InsnOp:
        pos = parser.pos
        items = _parse_items(parser)
        try:
            insn = isa.insn_from_items(cls.OPCODE, items)
        except ValueError as e:
            parser.raise_error(f"{cls.name}: {e}", pos, parser.pos)
        return cls.from_insn(insn)

    def verify_(self) -> None:
        try:
            insn = self.insn()
        except (ValueError, TypeError) as e:
            raise VerifyException(str(e)) from None
        program = _in_program(self)
        cfg = program.config()
        try:
            isa.encode(insn, cfg)
        except isa.EncodeError as e:
            raise VerifyException(str(e)) from None


@irdl_op_definition
class LoadOp(InsnOp):
    name = "vta.load"
    OPCODE: ClassVar[isa.Opcode] = isa.Opcode.LOAD
    KIND: ClassVar[type[isa.Insn]] = isa.MemInsn

    def verify_(self) -> None:
        super().verify_()
        if self.insn().store:
            raise VerifyException("is marked as a store")


@irdl_op_definition
class StoreOp(InsnOp):
    name = "vta.store"
    OPCODE: ClassVar[isa.Opcode] = isa.Opcode.STORE
    KIND: ClassVar[type[isa.Insn]] = isa.MemInsn

    def verify_(self) -> None:
        super().verify_()
        insn = self.insn()
        if not insn.store:  # type: ignore[attr-defined]
            raise VerifyException("is not marked as a store")
        if insn.memory_type not in (isa.Mem.OUT, isa.Mem.ACC) or insn.rows != insn.y_size or insn.cols != insn.x_size:  # type: ignore[attr-defined]
            raise VerifyException("stores only OUT, without padding")


@irdl_op_definition
class GemmOp(InsnOp):
    name = "vta.gemm"
    OPCODE: ClassVar[isa.Opcode] = isa.Opcode.GEMM
    KIND: ClassVar[type[isa.Insn]] = isa.GemmInsn


@irdl_op_definition
class AluOp(InsnOp):
    name = "vta.alu"
    OPCODE: ClassVar[isa.Opcode] = isa.Opcode.ALU
    KIND: ClassVar[type[isa.Insn]] = isa.AluInsn


@irdl_op_definition
class FinishOp(InsnOp):
    name = "vta.finish"
    OPCODE: ClassVar[isa.Opcode] = isa.Opcode.FINISH
    KIND: ClassVar[type[isa.Insn]] = isa.FinishInsn


OP_FOR: dict[isa.Opcode, type[InsnOp]] = {
    isa.Opcode.LOAD: LoadOp, isa.Opcode.STORE: StoreOp, isa.Opcode.GEMM: GemmOp, isa.Opcode.ALU: AluOp, isa.Opcode.FINISH: FinishOp,
}  # fmt: skip


@irdl_op_definition
class UopOp(IRDLOperation):
    """One micro-op of the program's table (its position is its index)."""

    name = "vta.uop"
    values = prop_def(DenseArrayBase)

    def verify_(self) -> None:
        cfg = _in_program(self).config()
        try:
            isa.encode_uop(self.uop(), cfg)
        except (isa.EncodeError, ValueError) as e:
            raise VerifyException(str(e)) from None

    def uop(self) -> isa.Uop:
        dst, src, wgt = self.values.get_values()  # type: ignore[attr-defined]
        return isa.Uop(dst, src, wgt)

    def print(self, printer: Printer) -> None:
        u = self.uop()
        printer.print_string(f"(dst={u.dst}, src={u.src}, wgt={u.wgt})")

    @classmethod
    def parse(cls, parser: Parser) -> UopOp:
        pos = parser.pos
        items = dict(_parse_items(parser))
        if set(items) != {"dst", "src", "wgt"} or not all(isinstance(v, int) for v in items.values()):
            parser.raise_error("vta.uop takes dst=, src=, wgt= integers", pos, parser.pos)
        return cls.create(properties={"values": DenseArrayBase.from_list(i64, [items["dst"], items["src"], items["wgt"]])})  # type: ignore[list-item]


@irdl_op_definition
class TensorOp(IRDLOperation):
    """A tensor in the program's DRAM: byte offset, packed shape, element type."""

    name = "vta.tensor"
    tensor = prop_def(StringAttr)
    offset = prop_def(IntegerAttr)
    shape = prop_def(DenseArrayBase)
    dtype = prop_def(StringAttr)

    def verify_(self) -> None:
        _in_program(self)
        if self.dtype.data not in ("int8", "int32", "uint32") or self.offset.value.data % 256:
            raise VerifyException("a tensor is int8, int32 or uint32 at a 256-byte aligned offset")

    def value(self) -> Tensor:
        return Tensor(self.tensor.data, self.offset.value.data, tuple(self.shape.get_values()), self.dtype.data)  # type: ignore[arg-type]

    def print(self, printer: Printer) -> None:
        t = self.value()
        printer.print_string(f"({t.name}, offset={t.offset}, shape=[{', '.join(map(str, t.shape))}], {t.dtype})")

    @classmethod
    def parse(cls, parser: Parser) -> TensorOp:
        pos = parser.pos
        items = _parse_items(parser)
        flags = [k for k, v in items if v is None]
        kv = {k: v for k, v in items if v is not None}
        if len(flags) != 2 or set(kv) != {"offset", "shape"} or flags[1] not in ("int8", "int32", "uint32"):
            parser.raise_error("vta.tensor takes (name, offset=N, shape=[...], int8|int32|uint32)", pos, parser.pos)
        return make_tensor(Tensor(flags[0], kv["offset"], tuple(kv["shape"]), flags[1]))  # type: ignore[arg-type]


def make_tensor(t: Tensor) -> TensorOp:
    return TensorOp.create(properties={
        "tensor": StringAttr(t.name), "offset": IntegerAttr(t.offset, i64),
        "shape": DenseArrayBase.from_list(i64, list(t.shape)), "dtype": StringAttr(t.dtype)})  # fmt: skip


@irdl_op_definition
class ProgramOp(IRDLOperation):
    """What one layer runs on VTA: its DRAM tensors, micro-op table and instructions."""

    name = "vta.program"
    sym_name = prop_def(SymbolNameConstraint())
    config_name = prop_def(StringAttr, prop_name="config")
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), SymbolOpInterface(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name attr-dict-with-keyword $body"

    def config(self):  # noqa: ANN201
        try:
            return preset(self.config_name.data)
        except ConfigError as e:
            raise VerifyException(str(e)) from None

    def program(self) -> Program:
        prog = Program(self.config())
        for op in self.body.block.ops:
            if isinstance(op, TensorOp):
                t = op.value()
                prog.tensors[t.name] = t
                prog.dram_bytes = max(prog.dram_bytes, t.offset + -(-t.nbytes // 256) * 256)
            elif isinstance(op, UopOp):
                prog.uops.append(op.uop())
            elif isinstance(op, InsnOp):
                prog.insns.append(op.insn())
        return prog

    def verify_(self) -> None:
        self.config()
        ops = list(self.body.block.ops)
        if not ops or not isinstance(ops[-1], FinishOp):
            raise VerifyException(f"@{self.sym_name.data} must end with vta.finish")
        if any(isinstance(o, FinishOp) for o in ops[:-1]):
            raise VerifyException(f"@{self.sym_name.data} has a vta.finish before its end")


def program_op(name: str, prog: Program) -> ProgramOp:
    ops: list[Operation] = [make_tensor(t) for t in prog.tensors.values()]
    ops += [UopOp.create(properties={"values": DenseArrayBase.from_list(i64, [u.dst, u.src, u.wgt])}) for u in prog.uops]
    ops += [InsnOp.from_insn(i) for i in prog.insns]
    return ProgramOp.create(
        properties={"sym_name": StringAttr(name), "config": StringAttr(prog.cfg.name)}, regions=[Region(Block(ops))]
    )


@irdl_op_definition
class Conv2dOp(IRDLOperation):
    """An int8 layer on VTA: conv2d + bias + shift + (ReLU) + clip, int8 in and out.

    `pads` are (top, left, bottom, right); `clip` is (lo, hi), applied after the shift (and
    after ReLU when `relu` is set); `vthreads` is the latency-hiding factor `vta-codegen` uses.
    """

    name = "vta.conv2d"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)
    stride = prop_def(IntegerAttr)
    pads = prop_def(DenseArrayBase)
    shift = prop_def(IntegerAttr)
    relu = opt_prop_def(IntegerAttr)
    clip = prop_def(DenseArrayBase)
    program = opt_prop_def(SymbolRefAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        x, w = self.input.type, self.weight.type
        if any(not isinstance(t, TensorType) for t in (x, w, self.result.type)):
            raise VerifyException("operands and result must be tensors")
        if len(x.get_shape()) != 4 or len(w.get_shape()) != 4:  # type: ignore[union-attr]
            raise VerifyException("input and weight must be 4-D (NCHW, OIHW)")
        for what, t, et in (("input", x, "i8"), ("weight", w, "i8"), ("result", self.result.type, "i8")):
            if str(t.element_type) != et:  # type: ignore[union-attr]
                raise VerifyException(f"{what} must have element type {et}, got {t.element_type}")  # type: ignore[union-attr]
        if self.bias is not None and str(self.bias.type.element_type) != "i32":  # type: ignore[union-attr]
            raise VerifyException(f"bias must be i32, got {self.bias.type.element_type}")  # type: ignore[union-attr]
        if len(self.pads.get_values()) != 4 or len(self.clip.get_values()) != 2:
            raise VerifyException("pads takes 4 values (top, left, bottom, right), clip 2 (lo, hi)")
        layer = self.layer()
        want = (1, layer.out_channels, layer.out_height, layer.out_width)
        if x.get_shape()[0] != 1 or w.get_shape()[1] != layer.in_channels:  # type: ignore[union-attr]
            raise VerifyException(f"expects batch 1 and weights over {layer.in_channels} input channels")
        if self.result.type.get_shape() != want:  # type: ignore[union-attr]
            raise VerifyException(f"result shape should be {want}, got {self.result.type.get_shape()}")  # type: ignore[union-attr]
        if self.bias is not None and self.bias.type.get_shape() != (layer.out_channels,):  # type: ignore[union-attr]
            raise VerifyException(f"bias must have shape ({layer.out_channels},)")

    def layer(self, name: str = "layer") -> Conv2dLayer:
        _, c, h, w = self.input.type.get_shape()  # type: ignore[union-attr]
        oc, _, kh, kw = self.weight.type.get_shape()  # type: ignore[union-attr]
        lo, hi = self.clip.get_values()
        return Conv2dLayer(name, c, h, w, oc, (kh, kw), self.stride.value.data, tuple(self.pads.get_values()),  # type: ignore[arg-type]
                           self.bias is not None, self.shift.value.data, self.relu is not None and bool(self.relu.value.data), (lo, hi))  # fmt: skip


VTA = Dialect("vta", [ProgramOp, TensorOp, UopOp, LoadOp, StoreOp, GemmOp, AluOp, FinishOp, Conv2dOp], [])
