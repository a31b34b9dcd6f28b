"""A synthesized Program as `hev` IR: a function with the spec's signature that encrypts the
secret inputs, encodes the public ones and the constants, runs the components (each
distinct rotation once, relinearizations where the sketch placed them) and decrypts.

    func.func @box_blur_synth(%x: !hev.vec<4096> {...}) -> !hev.vec<4096>
        attributes {hev.implements = @box_blur, hev.synthesis = {...}} {
      %x_ct = hev.encrypt %x : !hev.vec<4096> -> !hev.ct<4096>
      %r0 = hev.rotate %x_ct by -64 : !hev.ct<4096>
      %v0 = hev.add %x_ct, %r0 : !hev.ct<4096>
      ...
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Block, Region, SSAValue

from tessel.dialects import hev
from tessel.dialects.hev.kernel import IMPLEMENTS, implements_attr, interface_attributes
from tessel.passes.he.synth import program as P
from tessel.passes.he.synth.program import Program

_CT_CT = {P.ADD: hev.AddOp, P.SUB: hev.SubOp, P.MUL: hev.MultiplyOp}
_PLAIN = {P.ADD_PLAIN: hev.AddPlainOp, P.SUB_PLAIN: hev.SubPlainOp, P.MUL_PLAIN: hev.MultiplyPlainOp}


def emit_program(spec_fn: func.FuncOp, program: Program, name: str, attributes: dict[str, Attribute]) -> func.FuncOp:
    """A new function implementing `spec_fn` with the program's body."""
    ftype = spec_fn.function_type
    block = Block(arg_types=list(ftype.inputs.data))
    ops = []
    spec_args = spec_fn.body.blocks[0].args
    for arg, spec_arg in zip(block.args, spec_args, strict=True):
        arg.name_hint = spec_arg.name_hint

    def add(op):
        ops.append(op)
        return op.results[0]

    def arg_name(i: int) -> str:
        return block.args[i].name_hint or f"arg{i}"

    sources: list[SSAValue] = [
        add(hev.EncryptOp.make([block.args[i]], f"{arg_name(i)}_ct")) for i in program.secret_inputs
    ]
    plains: dict[int, SSAValue] = {}  # only the plaintexts a component reads
    used = {c.plain for c in program.components if c.plain is not None}
    for k, src in enumerate(program.plain_sources):
        if k not in used:
            continue
        if src.kind == "input":
            plains[k] = add(hev.EncodeOp.make([block.args[src.value]], f"{arg_name(src.value)}_pt"))
        else:
            plains[k] = add(hev.ConstantOp.splat(src.value, program.slots, f"k{src.value}"))
    rotated: dict[tuple[int, int], SSAValue] = {}

    def operand(o: P.Operand) -> SSAValue:
        if not o.rotation:
            return sources[o.source]
        key = (o.source, o.rotation)
        if key not in rotated:
            name = f"r{len(rotated)}"
            rotated[key] = add(hev.RotateOp.make([sources[o.source]], name, offset=_i64(o.rotation)))
        return rotated[key]

    for j, c in enumerate(program.components):
        a = operand(c.a)
        if c.op in _CT_CT:
            assert c.b is not None
            value = add(_CT_CT[c.op].make([a, operand(c.b)], f"v{j}"))
        elif c.op in _PLAIN:
            assert c.plain is not None
            value = add(_PLAIN[c.op].make([a, plains[c.plain]], f"v{j}"))
        elif c.op == P.ROTATE:
            value = a
        else:
            value = add(hev.NegateOp.make([a], f"v{j}"))
        if program.relinearize[j]:
            value = add(hev.RelinearizeOp.make([value], f"v{j}_relin"))
        sources.append(value)
    out = add(hev.DecryptOp.make([sources[-1]], "out"))
    ops.append(func.ReturnOp(out))
    block.add_ops(ops)
    fn = func.FuncOp(name, ftype, Region(block), arg_attrs=spec_fn.arg_attrs, res_attrs=spec_fn.res_attrs)
    fn.attributes[IMPLEMENTS] = implements_attr(spec_fn.sym_name.data)
    fn.attributes.update(interface_attributes(spec_fn))  # the plaintext modulus, with its spec
    fn.attributes.update(attributes)
    return fn


def _i64(value: int) -> Attribute:
    return IntegerAttr(value, 64)
