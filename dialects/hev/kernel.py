"""Kernels: how a `func.func` says it is a spec or a program, and what its inputs hold.

A **spec** is the plaintext meaning of a kernel:

    func.func @dot_product(%a: !hev.vec<8>, %b: !hev.vec<8> {hev.public})
        -> (!hev.vec<8> {hev.slots = array<i64: 0>})
        attributes {hev.spec, hev.plain_modulus = 65537 : i64} { ...hev.spec.* ops... }

- `hev.public` on an argument: the server holds it in the clear (a plaintext); default: the
  client's secret, encrypted.
- `hev.domain = #hev<domain bits>` on an argument: every slot is 0 or 1 (default: any
  value mod t; `attributes.py`).
- `hev.image = array<i64: H, W>` on an argument: an H x W image, row-major in the slots
  (tells the synthesizer that offsets decompose into rows and columns).
- `hev.padded` on an argument: a zero-padded layout; only a region holds data, every other
  slot is 0: `array<i64: start, count>` (slots start .. start+count-1) on a vector,
  `array<i64: row, col, height, width>` (that block of pixels) on an image. A precondition
  on the inputs (tessel-run refuses inputs that break it); the synthesizer may use it
  (a 16-element sum over 64 slots is a 4-rotation log tree, not 6).
- `hev.slots = array<i64: ...>` on the result: the output slots that matter (default: all).
- `hev.plain_modulus` on the function: t, a prime (default 65537). A program carries its
  spec's (`interface_attributes`), so it is run and priced at the same t.

A **program** implements a spec: `attributes {hev.implements = @dot_product}`, the same
signature, secret arguments entering through `hev.encrypt`, public ones through
`hev.encode`, and the result leaving through `hev.decrypt` (`check_structure`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttr,
    IntegerAttr,
    ModuleOp,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation

from tessel.ir.diagnostics import TesselError, op_location

from . import ops as H
from .attributes import Domain, DomainAttr
from .types import VecType

SPEC = "hev.spec"
IMPLEMENTS = "hev.implements"
PLAIN_MODULUS = "hev.plain_modulus"
PUBLIC = "hev.public"
DOMAIN = "hev.domain"
IMAGE = "hev.image"
SLOTS = "hev.slots"
PADDED = "hev.padded"

DEFAULT_PLAIN_MODULUS = 65537  # prime, = 1 mod 2N for every N <= 32768 (batching)
MAX_PLAIN_MODULUS = 1 << 31  # slot arithmetic stays exact in int64


@dataclass(frozen=True)
class Argument:
    name: str
    public: bool = False
    domain: Domain = Domain.ANY
    image: tuple[int, int] | None = None
    padded: tuple[int, ...] | None = None  # (start, count) or (row, col, height, width)

    def data_slots(self, slots: int) -> np.ndarray:
        """True at the slots that may hold data; False where the layout is zero-padded."""
        mask = np.ones(slots, dtype=bool)
        if self.padded is None:
            return mask
        mask[:] = False
        if len(self.padded) == 2:
            start, count = self.padded
            mask[start : start + count] = True
        else:
            assert self.image is not None
            row, col, height, width = self.padded
            mask.reshape(self.image)[row : row + height, col : col + width] = True
        return mask


@dataclass(frozen=True)
class Interface:
    """What a kernel's signature and attributes say."""

    name: str
    slots: int
    plain_modulus: int
    arguments: tuple[Argument, ...]
    output_slots: tuple[int, ...] | None  # None: all

    def all_output_slots(self) -> list[int]:
        """The output slots that matter (`hev.slots`, or every slot)."""
        return list(self.output_slots) if self.output_slots is not None else list(range(self.slots))

    def random_inputs(self, rng: np.random.Generator, high: int | None = None) -> list[np.ndarray]:
        """Inputs (argument order) that meet what the arguments declare: 0 or 1 in the bits
        domain, 0 in zero-padded slots, otherwise uniform below `high` (default t)."""
        out = []
        for a in self.arguments:
            top = 2 if a.domain == Domain.BITS else (high or self.plain_modulus)
            x = rng.integers(0, top, self.slots)
            out.append(np.where(a.data_slots(self.slots), x, 0).astype(np.int64))
        return out

    def check_inputs(self, inputs: Sequence[np.ndarray]) -> None:
        """A TesselError naming the input and slot that breaks a declared layout."""
        for a, x in zip(self.arguments, inputs, strict=True):
            if a.domain == Domain.BITS and not np.isin(x, (0, 1)).all():
                raise TesselError(
                    f"input '{a.name}' is declared hev.domain = #hev<domain bits> but holds values other than 0 and 1"
                )
            bad = np.flatnonzero(~a.data_slots(self.slots) & (np.asarray(x) % self.plain_modulus != 0))
            if bad.size:
                raise TesselError(
                    f"input '{a.name}' is declared {PADDED} = {list(a.padded or ())} but slot {bad[0]} holds "
                    f"{int(x[bad[0]])}, not 0"
                )


def is_spec(fn: func.FuncOp) -> bool:
    return SPEC in fn.attributes


def implemented_spec(fn: func.FuncOp) -> str | None:
    attr = fn.attributes.get(IMPLEMENTS)
    if attr is None:
        return None
    if not isinstance(attr, SymbolRefAttr) or attr.nested_references.data:
        raise TesselError(f"{IMPLEMENTS} must name a spec function (@name), got {attr}", op_location(fn))
    return attr.root_reference.data


def functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp)]


def specs(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in functions(module) if is_spec(f)]


def programs(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in functions(module) if IMPLEMENTS in f.attributes]


def lookup(module: ModuleOp, name: str) -> func.FuncOp | None:
    return next((f for f in functions(module) if f.sym_name.data == name), None)


def spec_of(module: ModuleOp, program: func.FuncOp) -> func.FuncOp:
    name = implemented_spec(program)
    assert name is not None
    spec = lookup(module, name)
    if spec is None or not is_spec(spec):
        raise TesselError(
            f"@{program.sym_name.data} implements @{name}, which is not a spec function in this module",
            op_location(program),
        )
    return spec


def _error(fn: Operation, message: str) -> TesselError:
    return TesselError(message, op_location(fn))


def _arg_attrs(fn: func.FuncOp, i: int) -> dict[str, Attribute]:
    if fn.arg_attrs is None:
        return {}
    d = fn.arg_attrs.data[i]
    assert isinstance(d, DictionaryAttr)
    return dict(d.data)


def _ints(attr: Attribute) -> tuple[int, ...] | None:
    if isinstance(attr, DenseArrayBase) and attr.elt_type == i64:
        return tuple(int(v) for v in attr.get_values())
    return None


def interface(fn: func.FuncOp) -> Interface:
    """Read and check a kernel's signature and attributes (spec or program)."""
    name = fn.sym_name.data
    ftype = fn.function_type
    ins, outs = ftype.inputs.data, ftype.outputs.data
    where = f"@{name}"
    if len(outs) != 1 or not isinstance(outs[0], VecType):
        raise _error(fn, f"{where} must return one !hev.vec<n>, got ({', '.join(map(str, outs))})")
    n = outs[0].n
    if not ins:
        raise _error(fn, f"{where} takes no inputs; a kernel computes on at least one vector")
    args = []
    for i, t in enumerate(ins):
        if not isinstance(t, VecType) or t.n != n:
            raise _error(
                fn, f"{where}: argument #{i} has type {t}; every argument and the result must be !hev.vec<{n}>"
            )
        attrs = _arg_attrs(fn, i)
        public = PUBLIC in attrs
        if public and not isinstance(attrs[PUBLIC], UnitAttr):
            raise _error(fn, f"{where}: argument #{i}: {PUBLIC} is a unit attribute (write {{{PUBLIC}}})")
        domain = Domain.ANY
        if DOMAIN in attrs:
            d = attrs[DOMAIN]
            if not isinstance(d, DomainAttr):
                choices = " or ".join(str(DomainAttr(k)) for k in Domain)
                raise _error(fn, f"{where}: argument #{i}: {DOMAIN} must be {choices}, got {d}")
            domain = d.data
        image = None
        if IMAGE in attrs:
            hw = _ints(attrs[IMAGE])
            if hw is None or len(hw) != 2 or hw[0] < 1 or hw[1] < 1:
                raise _error(
                    fn, f"{where}: argument #{i}: {IMAGE} must be array<i64: height, width>, got {attrs[IMAGE]}"
                )
            if hw[0] * hw[1] != n:
                raise _error(
                    fn,
                    f"{where}: argument #{i}: a {hw[0]}x{hw[1]} image has {hw[0] * hw[1]} pixels, the vector has {n} slots",
                )
            image = (hw[0], hw[1])
        padded = _padded(fn, f"{where}: argument #{i}", attrs.get(PADDED), n, image)
        known = (PUBLIC, DOMAIN, IMAGE, PADDED)
        unknown = sorted(k for k in attrs if k.startswith("hev.") and k not in known)
        if unknown:
            raise _error(fn, f"{where}: argument #{i}: unknown attribute {unknown[0]} (known: {', '.join(known)})")
        arg_name = fn.body.blocks[0].args[i].name_hint if fn.body.blocks else None
        args.append(Argument(arg_name or f"arg{i}", public, domain, image, padded))
    output_slots = None
    if fn.res_attrs is not None:
        res = fn.res_attrs.data[0]
        assert isinstance(res, DictionaryAttr)
        if SLOTS in res.data:
            slots = _ints(res.data[SLOTS])
            if slots is None or not slots:
                raise _error(fn, f"{where}: {SLOTS} must be a non-empty array<i64: ...>, got {res.data[SLOTS]}")
            bad = [s for s in slots if not 0 <= s < n]
            if bad:
                raise _error(fn, f"{where}: {SLOTS} names slot {bad[0]}, outside the {n} slots of the result")
            if len(set(slots)) != len(slots):
                raise _error(fn, f"{where}: {SLOTS} lists a slot twice")
            output_slots = tuple(slots)
    modulus = DEFAULT_PLAIN_MODULUS
    if PLAIN_MODULUS in fn.attributes:
        attr = fn.attributes[PLAIN_MODULUS]
        if not isinstance(attr, IntegerAttr) or attr.type != i64:
            raise _error(fn, f"{where}: {PLAIN_MODULUS} must be an i64 integer, got {attr}")
        modulus = int(attr.value.data)
        if not 2 < modulus < MAX_PLAIN_MODULUS or not _is_prime(modulus):
            raise _error(fn, f"{where}: {PLAIN_MODULUS} must be an odd prime below 2^31, got {modulus}")
    return Interface(name, n, modulus, tuple(args), output_slots)


def _padded(
    fn: func.FuncOp, where: str, attr: Attribute | None, n: int, image: tuple[int, int] | None
) -> tuple[int, ...] | None:
    """The zero-padded region an argument declares (None: every slot may hold data)."""
    if attr is None:
        return None
    values = _ints(attr)
    if image is None:
        if values is None or len(values) != 2:
            raise _error(fn, f"{where}: {PADDED} on a vector must be array<i64: start, count>, got {attr}")
        start, count = values
        if not (0 <= start and 1 <= count and start + count <= n):
            raise _error(fn, f"{where}: {PADDED} slots {start} .. {start + count - 1} are not within the {n} slots")
        return values
    if values is None or len(values) != 4:
        raise _error(fn, f"{where}: {PADDED} on an image must be array<i64: row, col, height, width>, got {attr}")
    row, col, height, width = values
    if not (
        0 <= row and 0 <= col and height >= 1 and width >= 1 and row + height <= image[0] and col + width <= image[1]
    ):
        raise _error(
            fn,
            f"{where}: {PADDED} block of {height}x{width} pixels at ({row}, {col}) is not within the {image[0]}x{image[1]} image",
        )
    return values


def interface_attributes(spec: func.FuncOp) -> dict[str, Attribute]:
    """The function attributes of a spec that are part of its interface (the plaintext
    modulus): a program implementing the spec carries them too."""
    return {k: v for k, v in spec.attributes.items() if k == PLAIN_MODULUS}


def _is_prime(x: int) -> bool:
    if x < 2:
        return False
    i = 2
    while i * i <= x:
        if x % i == 0:
            return False
        i += 1
    return True


def argument_names(fn: func.FuncOp) -> list[str]:
    """Names of the arguments as the user wrote them (SSA name hints), else arg<i>."""
    return [a.name_hint or f"arg{i}" for i, a in enumerate(fn.args)]


def implements_attr(spec_name: str) -> FlatSymbolRefAttr:
    return FlatSymbolRefAttr(spec_name)


def slots_attr(slots: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(slots))


def check_structure(program: func.FuncOp, spec: func.FuncOp) -> None:
    """The program has the spec's interface; secrets enter encrypted, public data encoded,
    and the result leaves through hev.decrypt. A TesselError names what is wrong."""
    name = f"@{program.sym_name.data}"
    ps, ss = interface(program), interface(spec)
    if program.function_type != spec.function_type:
        raise TesselError(
            f"{name} has type {program.function_type}, its spec @{ss.name} has {spec.function_type}",
            op_location(program),
        )
    for i, (pa, sa) in enumerate(zip(ps.arguments, ss.arguments, strict=True)):
        if (pa.public, pa.domain, pa.image, pa.padded) != (sa.public, sa.domain, sa.image, sa.padded):
            raise TesselError(
                f"{name}: argument #{i} is declared differently from the spec @{ss.name} "
                "(hev.public, hev.domain, hev.image and hev.padded must match)",
                op_location(program),
            )
    if ps.output_slots != ss.output_slots or ps.plain_modulus != ss.plain_modulus:
        raise TesselError(
            f"{name}: hev.slots and hev.plain_modulus must match the spec @{ss.name}", op_location(program)
        )
    block = program.body.blocks[0]
    order = {op: k for k, op in enumerate(block.ops)}
    for i, (arg, a) in enumerate(zip(block.args, ps.arguments, strict=True)):
        want = H.EncodeOp if a.public else H.EncryptOp
        for use in sorted(arg.uses, key=lambda u: order.get(u.operation, -1)):
            if not isinstance(use.operation, want):
                what = (
                    "public (hev.public): encode it with hev.encode"
                    if a.public
                    else "secret: encrypt it with hev.encrypt"
                )
                raise TesselError(
                    f"{name}: argument #{i} is {what}, not '{use.operation.name}'", op_location(use.operation)
                )
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            if not isinstance(op.operands[0].owner, H.DecryptOp):
                raise TesselError(f"{name} must return the result of hev.decrypt", op_location(op))
        elif type(op) not in H.PROGRAM_OPS:
            raise TesselError(
                f"'{op.name}' cannot appear in program {name}: a program is written with hev program ops",
                op_location(op),
            )
