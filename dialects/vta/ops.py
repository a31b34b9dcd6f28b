"""`vta`: int8 layers placed on the VTA accelerator, and the instruction streams they become.

Two levels, in the order of lowering:

* `vta.conv2d` is a whole int8 layer (conv2d, or a matmul as a 1x1 conv, plus bias,
  requantizing shift, ReLU and clip) on tensors, what `tg-to-vta` makes of the matching `tg`
  chain. `vta-codegen` compiles each into a program and names it in the op's `program`:

      %y = vta.conv2d %x, %w, %b (stride = 1, pads = <top = 1, left = 1, bottom = 1, right = 1>,
                                  shift = 7, relu, clip = [-128, 127]) program @main_layer0
                                  : (tensor<1x16x14x14xi8>, ...) -> tensor<1x16x14x14xi8>

* `vta.program @name` holds what the accelerator runs: the DRAM tensors (`vta.tensor`), the
  micro-op table (`vta.uop`) and the instruction stream, one op per instruction with the
  fields of its `isa` record as named properties (`sram_base`, `iter_out`, ...):

      vta.program @C9_vt2 config "pynq" {
        vta.tensor("input", offset = 0, shape = [16, 14, 14, 16], int8)
        vta.uop(dst = 0, src = 0, wgt = 0)
        vta.load(uop, sram = 0, dram = 2700, y = 1, x = 80, stride = 80)
        vta.load(inp, sram = 0, dram = 0, y = 14, x = 14, stride = 14, pad = <top = 1, left = 1, bottom = 1, right = 1>)
        vta.gemm(uop = [2, 20], iter = [14, 14], dst = [14, 1], src = [16, 1], wgt = [0, 0]) deps [pop_prev, push_prev]
        vta.alu(max, imm = 0, uop = [0, 2], iter = [14, 14], dst = [14, 1], src = [0, 0])
        vta.finish
      }

Every op has a declarative format. The verifiers check only what the declarations cannot:
that every field fits its bit width in the program's configuration (the encoding,
`isa.encode`), the stream's FINISH, a tensor's alignment, and a layer's shapes.
`tessel-translate --target vta` encodes the programs bit-exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any, ClassVar, cast

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    EqAttrConstraint,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.traits import HasParent, IsolatedFromAbove, NoTerminator, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from . import isa
from .attrs import NO_DEPS, AluOpcodeAttr, Buffer, BufferAttr, DepsAttr, Dtype, DtypeAttr, PaddingAttr
from .config import ConfigError, VtaConfig, preset
from .layer import Conv2dLayer
from .program import ALIGN, Program, Tensor

# On a tg op tg-to-vta matched but VTA cannot run: why (the op stays on the CPU).
HOST_ATTR = "vta.host"


def _int(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


# --------------------------------------------------------------------------- the program


@irdl_op_definition
class ProgramOp(IRDLOperation):
    """What one layer runs on VTA: its DRAM tensors, micro-op table and instructions.

    `config` names the hardware preset (`config.PRESETS`) whose field widths and buffer
    depths the instructions are encoded for."""

    name = "vta.program"
    sym_name = prop_def(SymbolNameConstraint())
    config_name = prop_def(StringAttr, prop_name="config")
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), SymbolOpInterface(), IsolatedFromAbove())
    assembly_format = "$sym_name `config` $config attr-dict-with-keyword $body"

    @staticmethod
    def make(name: str, prog: Program) -> ProgramOp:
        ops: list[Operation] = [TensorOp.make(t) for t in prog.tensors.values()]
        ops += [UopOp.make(u) for u in prog.uops]
        ops += [insn_op(i) for i in prog.insns]
        return ProgramOp.create(
            properties={"sym_name": StringAttr(name), "config": StringAttr(prog.cfg.name)}, regions=[Region(Block(ops))]
        )

    def config(self) -> VtaConfig:
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
                prog.dram_bytes = max(prog.dram_bytes, t.offset + -(-t.nbytes // ALIGN) * ALIGN)
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


def _program_config(op: Operation) -> VtaConfig | None:
    """The configuration of the enclosing program (None while the op is detached)."""
    parent = op.parent_op()
    return parent.config() if isinstance(parent, ProgramOp) else None


@irdl_op_definition
class TensorOp(IRDLOperation):
    """A tensor in the program's DRAM: byte offset, packed shape, element type."""

    name = "vta.tensor"
    tensor = prop_def(StringAttr)
    offset = prop_def(IntegerAttr[I64])
    shape = prop_def(DenseArrayBase.constr(i64))
    dtype = prop_def(DtypeAttr)
    traits = traits_def(HasParent(ProgramOp))
    assembly_format = "`(` $tensor `,` `offset` `=` $offset `,` `shape` `=` $shape `,` $dtype `)` attr-dict"

    @staticmethod
    def make(t: Tensor) -> TensorOp:
        return TensorOp.create(
            properties={
                "tensor": StringAttr(t.name),
                "offset": _int(t.offset),
                "shape": DenseArrayBase.from_list(i64, list(t.shape)),
                "dtype": DtypeAttr(Dtype(t.dtype)),
            }
        )

    def verify_(self) -> None:
        if self.offset.value.data % ALIGN:
            raise VerifyException(f"offset {self.offset.value.data} is not {ALIGN}-byte aligned")

    def value(self) -> Tensor:
        return Tensor(self.tensor.data, self.offset.value.data, self.shape.get_values(), self.dtype.data.value)


@irdl_op_definition
class UopOp(IRDLOperation):
    """One micro-op of the program's table (its position is its index)."""

    name = "vta.uop"
    dst = prop_def(IntegerAttr[I64])
    src = prop_def(IntegerAttr[I64])
    wgt = prop_def(IntegerAttr[I64])
    traits = traits_def(HasParent(ProgramOp))
    assembly_format = "`(` `dst` `=` $dst `,` `src` `=` $src `,` `wgt` `=` $wgt `)` attr-dict"

    @staticmethod
    def make(u: isa.Uop) -> UopOp:
        return UopOp.create(properties={"dst": _int(u.dst), "src": _int(u.src), "wgt": _int(u.wgt)})

    def uop(self) -> isa.Uop:
        return isa.Uop(self.dst.value.data, self.src.value.data, self.wgt.value.data)

    def verify_(self) -> None:
        cfg = _program_config(self)
        if cfg is None:
            return
        try:
            isa.encode_uop(self.uop(), cfg)
        except isa.EncodeError as e:
            raise VerifyException(str(e)) from None


# --------------------------------------------------------------------------- instructions


class InsnOp(IRDLOperation):
    """One instruction. Its properties are the fields of its `isa` record, by the same names
    (the dependency flags gathered in `deps`); `insn()` and `insn_op()` convert."""

    deps = prop_def(DepsAttr, NO_DEPS)
    traits = traits_def(HasParent(ProgramOp))
    KIND: ClassVar[type[isa.Insn]]

    def _field_values(self) -> dict[str, Any]:
        """The record's fields that are properties of the same name (integers as ints)."""
        out: dict[str, Any] = {}
        for f in fields(self.KIND):
            attr = self.properties.get(f.name)
            if isinstance(attr, IntegerAttr):
                out[f.name] = attr.value.data
        return out

    def insn(self) -> isa.Insn:
        return self.KIND(**self.deps.flags(), **self._field_values())

    def verify_(self) -> None:
        cfg = _program_config(self)
        if cfg is None:
            return
        try:
            isa.encode(self.insn(), cfg)
        except isa.EncodeError as e:
            raise VerifyException(str(e)) from None


_LOOPS = (
    "`uop` `=` `[` $uop_bgn `,` $uop_end `]` `,` `iter` `=` `[` $iter_out `,` $iter_in `]` `,` "
    "`dst` `=` `[` $dst_factor_out `,` $dst_factor_in `]` `,` `src` `=` `[` $src_factor_out `,` $src_factor_in `]`"
)
_TILE = (
    "`sram` `=` $sram_base `,` `dram` `=` $dram_base `,` `y` `=` $y_size `,` `x` `=` $x_size `,` `stride` `=` $x_stride"
)
_DEPS = "(`deps` $deps^)? attr-dict"


class _LoopInsnOp(InsnOp):
    """GEMM and ALU: a micro-op range run inside two affine loops."""

    reset = opt_prop_def(UnitAttr)
    uop_bgn = prop_def(IntegerAttr[I64])
    uop_end = prop_def(IntegerAttr[I64])
    iter_out = prop_def(IntegerAttr[I64])
    iter_in = prop_def(IntegerAttr[I64])
    dst_factor_out = prop_def(IntegerAttr[I64])
    dst_factor_in = prop_def(IntegerAttr[I64])
    src_factor_out = prop_def(IntegerAttr[I64])
    src_factor_in = prop_def(IntegerAttr[I64])

    def _field_values(self) -> dict[str, Any]:
        return {**super()._field_values(), "reset": self.reset is not None}


@irdl_op_definition
class LoadOp(InsnOp):
    """LOAD a 2-D strided tile from DRAM into an SRAM, zero-padding it on the fly."""

    name = "vta.load"
    KIND: ClassVar[type[isa.Insn]] = isa.MemInsn
    buffer = prop_def(BufferAttr)
    sram_base = prop_def(IntegerAttr[I64])
    dram_base = prop_def(IntegerAttr[I64])
    y_size = prop_def(IntegerAttr[I64])
    x_size = prop_def(IntegerAttr[I64])
    x_stride = prop_def(IntegerAttr[I64])
    pad = opt_prop_def(PaddingAttr)
    assembly_format = f"`(` $buffer `,` {_TILE} (`,` `pad` `=` $pad^)? `)` {_DEPS}"

    def _field_values(self) -> dict[str, Any]:
        top, left, bottom, right = self.pad.values() if self.pad is not None else (0, 0, 0, 0)
        return {
            **super()._field_values(),
            "memory_type": self.buffer.mem(),
            "y_pad_0": top,
            "y_pad_1": bottom,
            "x_pad_0": left,
            "x_pad_1": right,
        }


@irdl_op_definition
class StoreOp(InsnOp):
    """STORE a 2-D strided tile of the accumulators (narrowed to int8) to DRAM; no padding."""

    name = "vta.store"
    KIND: ClassVar[type[isa.Insn]] = isa.MemInsn
    buffer = prop_def(EqAttrConstraint(BufferAttr(Buffer.OUT)) | EqAttrConstraint(BufferAttr(Buffer.ACC)))
    sram_base = prop_def(IntegerAttr[I64])
    dram_base = prop_def(IntegerAttr[I64])
    y_size = prop_def(IntegerAttr[I64])
    x_size = prop_def(IntegerAttr[I64])
    x_stride = prop_def(IntegerAttr[I64])
    assembly_format = f"`(` $buffer `,` {_TILE} `)` {_DEPS}"

    def _field_values(self) -> dict[str, Any]:
        return {**super()._field_values(), "store": True, "memory_type": self.buffer.mem()}


@irdl_op_definition
class GemmOp(_LoopInsnOp):
    """acc[dst] += inp[src] . wgt[wgt]^T for every micro-op of the range, inside two affine loops."""

    name = "vta.gemm"
    KIND: ClassVar[type[isa.Insn]] = isa.GemmInsn
    wgt_factor_out = prop_def(IntegerAttr[I64])
    wgt_factor_in = prop_def(IntegerAttr[I64])
    assembly_format = (
        f"`(` (`reset` $reset^ `,`)? {_LOOPS} `,` `wgt` `=` `[` $wgt_factor_out `,` $wgt_factor_in `]` `)` {_DEPS}"
    )


@irdl_op_definition
class AluOp(_LoopInsnOp):
    """acc[dst] = op(acc[dst], imm or acc[src]) lane-wise; `imm` is given exactly when it is used."""

    name = "vta.alu"
    KIND: ClassVar[type[isa.Insn]] = isa.AluInsn
    opcode = prop_def(AluOpcodeAttr)
    imm = opt_prop_def(IntegerAttr[I64])
    assembly_format = f"`(` $opcode `,` (`imm` `=` $imm^ `,`)? (`reset` $reset^ `,`)? {_LOOPS} `)` {_DEPS}"

    def _field_values(self) -> dict[str, Any]:
        imm = self.imm.value.data if self.imm is not None else 0
        return {
            **super()._field_values(),
            "alu_opcode": self.opcode.alu_op(),
            "use_imm": self.imm is not None,
            "imm": imm,
        }


@irdl_op_definition
class FinishOp(InsnOp):
    """The end of the stream."""

    name = "vta.finish"
    KIND: ClassVar[type[isa.Insn]] = isa.FinishInsn
    assembly_format = _DEPS


def insn_op(insn: isa.Insn) -> InsnOp:
    """The op of an instruction record (the inverse of `InsnOp.insn`)."""
    props: dict[str, Attribute] = {"deps": DepsAttr.of(insn)}
    names: tuple[str, ...]
    if isinstance(insn, isa.MemInsn):
        cls: type[InsnOp] = StoreOp if insn.store else LoadOp
        props["buffer"] = BufferAttr.of(insn.memory_type)
        names = ("sram_base", "dram_base", "y_size", "x_size", "x_stride")
        pads = (insn.y_pad_0, insn.x_pad_0, insn.y_pad_1, insn.x_pad_1)
        if any(pads):
            props["pad"] = PaddingAttr.of(*pads)
    elif isinstance(insn, isa.GemmInsn | isa.AluInsn):
        cls = GemmOp if isinstance(insn, isa.GemmInsn) else AluOp
        names = tuple(f.name for f in fields(isa.LoopInsn) if f.name not in (*isa.DEPS, "reset"))
        if insn.reset:
            props["reset"] = UnitAttr()
        if isinstance(insn, isa.GemmInsn):
            names += ("wgt_factor_out", "wgt_factor_in")
        else:
            props["opcode"] = AluOpcodeAttr.of(insn.alu_opcode)
            if insn.use_imm:
                props["imm"] = _int(insn.imm)
    else:
        cls, names = FinishOp, ()
    props.update({n: _int(getattr(insn, n)) for n in names})
    return cls.create(properties=props)


# --------------------------------------------------------------------------- the layer


@irdl_op_definition
class Conv2dOp(IRDLOperation):
    """An int8 layer on VTA: conv2d + bias + shift + (ReLU) + clip, int8 in and out.

    `clip` is [min, max], applied after the shift (and after ReLU when `relu` is set);
    `program` names the `vta.program` vta-codegen compiled for it."""

    name = "vta.conv2d"
    input = operand_def(TensorType.constr(element_type=i8))
    weight = operand_def(TensorType.constr(element_type=i8))
    bias = opt_operand_def(TensorType.constr(element_type=i32))
    result = result_def(TensorType.constr(element_type=i8))
    stride = prop_def(IntegerAttr[I64])
    pads = prop_def(PaddingAttr)
    shift = prop_def(IntegerAttr[I64])
    relu = opt_prop_def(UnitAttr)
    clip_min = prop_def(IntegerAttr[I64])
    clip_max = prop_def(IntegerAttr[I64])
    program = opt_prop_def(SymbolRefAttr)
    traits = traits_def(Pure())
    assembly_format = (
        "$input `,` $weight (`,` $bias^)? ` ` `(` `stride` `=` $stride `,` `pads` `=` $pads `,` `shift` `=` $shift `,` "
        "(`relu` $relu^ `,`)? `clip` `=` `[` $clip_min `,` $clip_max `]` `)` (`program` $program^)? attr-dict "
        "`:` functional-type(operands, results)"
    )

    @staticmethod
    def make(
        operands: Sequence[SSAValue],
        result_type: TensorType,
        stride: int,
        pads: tuple[int, int, int, int],
        shift: int,
        relu: bool,
        clip: tuple[int, int],
    ) -> Conv2dOp:
        props: dict[str, Attribute] = {
            "stride": _int(stride),
            "pads": PaddingAttr.of(*pads),
            "shift": _int(shift),
            "clip_min": _int(clip[0]),
            "clip_max": _int(clip[1]),
        }
        if relu:
            props["relu"] = UnitAttr()
        return Conv2dOp.create(operands=operands, result_types=[result_type], properties=props)

    def _types(self) -> tuple[TensorType, TensorType, TensorType]:
        # the operand constraints make these tensors
        return cast(TensorType, self.input.type), cast(TensorType, self.weight.type), cast(TensorType, self.result.type)

    def verify_(self) -> None:
        x, w, y = self._types()
        if len(x.get_shape()) != 4 or len(w.get_shape()) != 4:
            raise VerifyException("input and weight must be 4-D (NCHW, OIHW)")
        if self.stride.value.data < 1:
            raise VerifyException(f"stride must be positive, got {self.stride.value.data}")
        layer = self.layer()
        if x.get_shape()[0] != 1 or w.get_shape()[1] != layer.in_channels:
            raise VerifyException(f"expects batch 1 and weights over {layer.in_channels} input channels")
        want = (1, layer.out_channels, layer.out_height, layer.out_width)
        if y.get_shape() != want:
            raise VerifyException(f"result shape should be {want}, got {y.get_shape()}")
        if self.bias is not None and cast(TensorType, self.bias.type).get_shape() != (layer.out_channels,):
            raise VerifyException(f"bias must have shape ({layer.out_channels},)")

    def layer(self, name: str = "layer") -> Conv2dLayer:
        x, w, _ = self._types()
        _, c, h, wd = x.get_shape()
        oc, _, kh, kw = w.get_shape()
        return Conv2dLayer(
            name,
            c,
            h,
            wd,
            oc,
            (kh, kw),
            self.stride.value.data,
            self.pads.values(),
            self.bias is not None,
            self.shift.value.data,
            self.relu is not None,
            (self.clip_min.value.data, self.clip_max.value.data),
        )
