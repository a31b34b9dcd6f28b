"""`vta`, the VTA accelerator's dialect: int8 layers (`vta.conv2d`) and the instruction streams
they compile to (`vta.program`), with everything both the compiler and the runtime read.

    ops.py        the ops and their declarative syntax      attrs.py    their enums and padding
    isa.py        the instruction records, bit-exact        config.py   the hardware's knobs
    program.py    a program: stream, micro-ops, DRAM        layer.py    an int8 layer and its layouts
    reference.py  the meaning: the functional simulator of a program, the numpy reference of a layer
    hazards.py    the token rules every program must keep   cycles.py   the cycle model timing it
"""

from xdsl.ir import Dialect

from .attrs import AluOpcode, AluOpcodeAttr, Buffer, BufferAttr, Dep, DepsAttr, Dtype, DtypeAttr, PaddingAttr
from .ops import (
    HOST_ATTR,
    AluOp,
    Conv2dOp,
    FinishOp,
    GemmOp,
    InsnOp,
    LoadOp,
    ProgramOp,
    StoreOp,
    TensorOp,
    UopOp,
    insn_op,
)

VTA = Dialect(
    "vta",
    [ProgramOp, TensorOp, UopOp, LoadOp, StoreOp, GemmOp, AluOp, FinishOp, Conv2dOp],
    [BufferAttr, AluOpcodeAttr, DepsAttr, DtypeAttr, PaddingAttr],
)

__all__ = [
    "HOST_ATTR",
    "VTA",
    "AluOp",
    "AluOpcode",
    "AluOpcodeAttr",
    "Buffer",
    "BufferAttr",
    "Conv2dOp",
    "Dep",
    "DepsAttr",
    "Dtype",
    "DtypeAttr",
    "FinishOp",
    "GemmOp",
    "InsnOp",
    "LoadOp",
    "PaddingAttr",
    "ProgramOp",
    "StoreOp",
    "TensorOp",
    "UopOp",
    "insn_op",
]
