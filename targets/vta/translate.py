"""The VTA artefacts of a module's `vta.program`s: a readable listing, the instruction words as
the hardware fetches them, and the micro-op table.

    listing   one numbered instruction per line with its 128-bit word (low bits right), the
              micro-op table and the DRAM tensors, for every program (or the one asked for)
    bin       the 128-bit little-endian instruction words of one program
    uops      the 32-bit micro-op words of one program

The module is translated as it is given: compiling `tg` into programs is the pipeline's job
(pipelines/vta.py, which `tessel-translate --target vta` runs).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects.vta import ProgramOp
from tessel.dialects.vta.config import VtaConfig
from tessel.dialects.vta.isa import AluInsn, EncodeError, GemmInsn, Insn, MemInsn, decode, encode, encode_uop
from tessel.dialects.vta.program import Program
from tessel.ir.diagnostics import TesselError

FORMS = ("listing", "bin", "uops")


def translate(module: ModuleOp, form: str, program: str | None, where: str) -> str | bytes:
    """The artefact `form` of the module's programs (`program` picks one by name)."""
    if form not in FORMS:
        raise TesselError(f"vta: unknown form '{form}' (choose {', '.join(FORMS)})")
    programs = [o for o in module.ops if isinstance(o, ProgramOp)]
    if not programs:
        raise TesselError(f"{where}: no vta.program")
    if program is not None:
        programs = [p for p in programs if p.sym_name.data == program]
        if not programs:
            raise TesselError(f"{where}: no vta.program @{program}")
    if form == "listing":
        return "".join(listing(p.sym_name.data, p.program()) for p in programs)
    if len(programs) > 1:
        names = ", ".join(p.sym_name.data for p in programs)
        raise TesselError(f"{where}: several programs ({names}); choose one with --opt program=NAME")
    prog = programs[0].program()
    if form == "bin":
        return to_bytes(prog.insns, prog.cfg)
    return np.array([encode_uop(u, prog.cfg) for u in prog.uops], dtype="<u4").tobytes()


# --------------------------------------------------------------------------- the binary


def to_bytes(insns: list[Insn], cfg: VtaConfig) -> bytes:
    """The stream as the fetch unit reads it: 16 bytes per instruction, little-endian."""
    return b"".join(encode(i, cfg).to_bytes(16, "little") for i in insns)


def from_bytes(data: bytes, cfg: VtaConfig) -> list[Insn]:
    if len(data) % 16:
        raise EncodeError(f"an instruction stream is a multiple of 16 bytes, got {len(data)}")
    return [decode(int.from_bytes(data[i : i + 16], "little"), cfg) for i in range(0, len(data), 16)]


# --------------------------------------------------------------------------- the listing

Item = tuple[str, "int | list[int] | list[str] | None"]


def insn_items(insn: Insn) -> list[Item]:
    """The instruction as `key[=value]` items, in the order the listing prints them.

    An ALU immediate is printed only when the instruction uses it (`use_imm`); the hardware
    ignores the field otherwise, so the text form drops it."""
    items: list[Item] = []
    if isinstance(insn, MemInsn):
        items += [
            (insn.memory_type.name.lower(), None),
            ("sram", insn.sram_base),
            ("dram", insn.dram_base),
            ("y", insn.y_size),
            ("x", insn.x_size),
            ("stride", insn.x_stride),
        ]
        pads = [insn.y_pad_0, insn.y_pad_1, insn.x_pad_0, insn.x_pad_1]
        if any(pads):
            items.append(("pad", pads))
    elif isinstance(insn, GemmInsn | AluInsn):
        if isinstance(insn, AluInsn):
            items.append((insn.alu_opcode.name.lower(), None))
            if insn.use_imm:
                items.append(("imm", insn.imm))
        if insn.reset:
            items.append(("reset", None))
        items += [
            ("uop", [insn.uop_bgn, insn.uop_end]),
            ("iter", [insn.iter_out, insn.iter_in]),
            ("dst", [insn.dst_factor_out, insn.dst_factor_in]),
            ("src", [insn.src_factor_out, insn.src_factor_in]),
        ]
        if isinstance(insn, GemmInsn):
            items.append(("wgt", [insn.wgt_factor_out, insn.wgt_factor_in]))
    if insn.deps():
        items.append(("deps", insn.deps()))
    return items


def items_text(items: list[Item]) -> str:
    def value(v: object) -> str:
        return "[" + ", ".join(map(str, v)) + "]" if isinstance(v, list) else str(v)

    return ", ".join(k if v is None else f"{k}={value(v)}" for k, v in items)


def listing_line(insn: Insn) -> str:
    """One readable line: `load(inp, sram=0, dram=0, y=8, x=8, stride=8, pad=[1, 1, 1, 1])`."""
    items = insn_items(insn)
    return insn.opcode.name.lower() + (f"({items_text(items)})" if items else "")


def listing(name: str, prog: Program) -> str:
    lines = [
        f"// {name}: {prog.cfg.describe()}",
        f"// {len(prog.insns)} instructions, {len(prog.uops)} micro-ops: "
        + ", ".join(f"{k} {v}" for k, v in prog.counts().items()),
    ]
    for t in prog.tensors.values():
        lines.append(f"tensor {t.name:<8} offset {t.offset:>9}  {t.dtype}{list(t.shape)}")
    for k, u in enumerate(prog.uops):
        lines.append(f"uop {k:>5}  dst={u.dst} src={u.src} wgt={u.wgt}  0x{encode_uop(u, prog.cfg):08x}")
    for k, insn in enumerate(prog.insns):
        lines.append(f"{k:>5}  {encode(insn, prog.cfg):032x}  {listing_line(insn)}")
    return "\n".join(lines) + "\n"
