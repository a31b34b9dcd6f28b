"""What a `hev` program uses, read off its IR: rotation amounts, multiplications, operation
counts, multiplicative depth and modulus-switching levels.

Both sides need these facts: the passes price and plan programs with them (parameter
selection records the rotation keys, the cost model counts operations), the SEAL target
makes exactly the keys a program needs. They are properties of the IR, so they live with
the dialect.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from . import ops as H
from .types import CipherType

# Server operations with a measured latency and noise figure in the cost table, by the
# table's name for them (`costs.py`).
OP_NAMES: dict[type[Operation], str] = {
    H.AddOp: "add",
    H.SubOp: "sub",
    H.MultiplyOp: "multiply",
    H.RelinearizeOp: "relinearize",
    H.NegateOp: "negate",
    H.AddPlainOp: "add_plain",
    H.SubPlainOp: "sub_plain",
    H.MultiplyPlainOp: "multiply_plain",
    H.ModSwitchOp: "mod_switch",
    H.RotateOp: "rotate",
}


def normalize_rotation(amount: int, slots: int) -> int:
    """The representative of `amount` mod `slots` in (-slots/2, slots/2]: the same rotation
    of an n-slot vector, as the shortest row step (the one a Galois key is made for)."""
    r = amount % slots
    return r - slots if r > slots // 2 else r


def rotations(fn: func.FuncOp) -> list[int]:
    """The rotation amounts a program uses, in order of first use."""
    out: list[int] = []
    for op in fn.body.walk():
        if isinstance(op, H.RotateOp) and op.amount not in out:
            out.append(op.amount)
    return out


def rotation_steps(fn: func.FuncOp, slots: int) -> list[int]:
    """The distinct row steps of a program's rotations, sorted: its Galois keys."""
    return sorted({normalize_rotation(r, slots) for r in rotations(fn)} - {0})


def multiplies(fn: func.FuncOp) -> bool:
    """True when the program relinearizes (and so needs a relinearization key)."""
    return any(isinstance(op, H.RelinearizeOp) for op in fn.body.walk())


def op_counts(fn: func.FuncOp) -> dict[str, int]:
    """How many of each server operation the program runs (by cost-table name)."""
    counts = {name: 0 for name in OP_NAMES.values()}
    for op in fn.body.walk():
        if type(op) in OP_NAMES:
            counts[OP_NAMES[type(op)]] += 1
    return counts


def depth(fn: func.FuncOp) -> int:
    """Multiplicative depth: ct-ct multiplications on the longest path."""
    d: dict[SSAValue, int] = {}
    best = 0
    for op in fn.body.walk():
        if not op.results or op is fn:
            continue
        base = max((d.get(o, 0) for o in op.operands), default=0)
        value = base + (1 if isinstance(op, H.MultiplyOp) else 0)
        for r in op.results:
            d[r] = value
        best = max(best, value)
    return best


def level(value: SSAValue) -> int:
    """The modulus-chain level of a ciphertext (0 for anything else)."""
    t = value.type
    return t.level.data if isinstance(t, CipherType) else 0


def size(value: SSAValue) -> int:
    """The size of a ciphertext (2, or 3 before relinearization; 2 for anything else)."""
    t = value.type
    return t.size.data if isinstance(t, CipherType) else 2


def max_level(fn: func.FuncOp) -> int:
    """The lowest level (most modulus switches) any ciphertext of the program reaches."""
    return max((level(r) for op in fn.body.walk() for r in op.results), default=0)
