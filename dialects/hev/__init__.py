"""`hev`, the vectorized homomorphic-encryption dialect (BFV with batching).

Three types (`!hev.vec`, `!hev.pt`, `!hev.ct`, see `types.py`); the program ops a BFV
runtime executes (`ops.py`); the `hev.spec.*` ops that state what a kernel means on
cleartext vectors (`spec_ops.py`); the function attributes that make a spec or a program
and say what the inputs hold (`kernel.py`); exact reference semantics mod t
(`reference.py`); the typed attributes of kernels (`attributes.py`); what a program uses
(`metrics.py`); the parameter sets and the format of the measured cost table both the
passes and the SEAL target read (`params.py`, `costs.py`); and a Python builder for specs
(`builder.py`).
"""

from xdsl.ir import Dialect, Operation

from .attributes import Domain, DomainAttr
from .ops import (
    PROGRAM_OPS,
    AddOp,
    AddPlainOp,
    CipherBinaryOp,
    ConstantOp,
    DecryptOp,
    EncodeOp,
    EncryptOp,
    HevOp,
    ModSwitchOp,
    MultiplyOp,
    MultiplyPlainOp,
    NegateOp,
    PlainBinaryOp,
    RelinearizeOp,
    RotateOp,
    SubOp,
    SubPlainOp,
)
from .spec_ops import (
    SPEC_OPS,
    SpecAddOp,
    SpecConstOp,
    SpecMulOp,
    SpecNegOp,
    SpecShiftOp,
    SpecSubOp,
    SpecSumOp,
)
from .types import CipherType, PlainType, VecType

OPS: list[type[Operation]] = [*PROGRAM_OPS, *SPEC_OPS]

HEV = Dialect("hev", OPS, [VecType, PlainType, CipherType, DomainAttr])

__all__ = [
    "HEV",
    "OPS",
    "PROGRAM_OPS",
    "SPEC_OPS",
    "VecType",
    "PlainType",
    "CipherType",
    "Domain",
    "DomainAttr",
    "HevOp",
    "CipherBinaryOp",
    "PlainBinaryOp",
    "EncryptOp",
    "EncodeOp",
    "ConstantOp",
    "DecryptOp",
    "AddOp",
    "SubOp",
    "MultiplyOp",
    "AddPlainOp",
    "SubPlainOp",
    "MultiplyPlainOp",
    "NegateOp",
    "RotateOp",
    "RelinearizeOp",
    "ModSwitchOp",
    "SpecAddOp",
    "SpecSubOp",
    "SpecMulOp",
    "SpecNegOp",
    "SpecShiftOp",
    "SpecConstOp",
    "SpecSumOp",
]
