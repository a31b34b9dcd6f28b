"""`tessel-translate FILE --target vta`: the VTA instruction stream of a module.

The input is a tg module with int8 layers (compiled through tg-to-vta and vta-codegen first)
or a module already holding `vta.program`s. Options:
  --opt form=listing   a readable listing: one numbered instruction per line, the micro-op
                       table and the DRAM tensors (default)
  --opt form=bin       the 128-bit little-endian instruction words of one program, as the
                       hardware fetches them (pick it with program=NAME when there are several)
  --opt form=uops      the 32-bit micro-op words of one program
  --opt vthreads=N     virtual threads when compiling tg (1, 2 or 4; default 2)
  --opt config=NAME    the VTA preset (pynq, pynq200, ultra96; default pynq)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tessel.ir.diagnostics import TesselError
from tessel.ir.source import make_context, read_module

FORMS = ("listing", "bin", "uops")


def translate(path: str, options: Mapping[str, str]) -> str | bytes:
    from xdsl.passes import PassPipeline

    from tessel.dialects import vta
    from tessel.passes.vta.tg_to_vta import TgToVta
    from tessel.passes.vta.vta_codegen import VtaCodegen

    from . import isa

    unknown = sorted(set(options) - {"form", "program", "vthreads", "config"})
    if unknown:
        raise TesselError(f"vta takes --opt form=, program=, vthreads=, config=; got '{unknown[0]}'")
    form = options.get("form", "listing")
    if form not in FORMS:
        raise TesselError(f"vta: unknown form '{form}' (choose {', '.join(FORMS)})")
    vthreads = options.get("vthreads", "2")
    if vthreads not in ("1", "2", "4"):
        raise TesselError(f"vta: vthreads must be 1, 2 or 4, got '{vthreads}'")
    module = read_module(make_context(), path)
    if any(op.dialect_name() == "tg" for op in module.walk()):
        PassPipeline((TgToVta(), VtaCodegen(vthreads=int(vthreads), config=options.get("config", "pynq")))).apply(make_context(), module)
    programs = [o for o in module.ops if isinstance(o, vta.ProgramOp)]
    if not programs:
        raise TesselError(f"{path}: no vta.program and no int8 layer that tg-to-vta places on VTA")
    if "program" in options:
        programs = [p for p in programs if p.sym_name.data == options["program"]]
        if not programs:
            raise TesselError(f"{path}: no vta.program @{options['program']}")
    if form == "listing":
        return "".join(_listing(p.sym_name.data, p.program()) for p in programs)
    if len(programs) > 1:
        names = ", ".join(p.sym_name.data for p in programs)
        raise TesselError(f"{path}: several programs ({names}); choose one with --opt program=NAME")
    prog = programs[0].program()
    if form == "bin":
        return isa.to_bytes(prog.insns, prog.cfg)
    return np.array([isa.encode_uop(u, prog.cfg) for u in prog.uops], dtype="<u4").tobytes()


def _listing(name: str, prog) -> str:  # noqa: ANN001
    from . import isa

    lines = [f"// {name}: {prog.cfg.describe()}", f"// {len(prog.insns)} instructions, {len(prog.uops)} micro-ops: "
             + ", ".join(f"{k} {v}" for k, v in prog.counts().items())]  # fmt: skip
    for t in prog.tensors.values():
        lines.append(f"tensor {t.name:<8} offset {t.offset:>9}  {t.dtype}{list(t.shape)}")
    for k, u in enumerate(prog.uops):
        lines.append(f"uop {k:>5}  dst={u.dst} src={u.src} wgt={u.wgt}  0x{isa.encode_uop(u, prog.cfg):08x}")
    for k, insn in enumerate(prog.insns):
        lines.append(f"{k:>5}  {isa.encode(insn, prog.cfg):032x}  {isa.listing_line(insn)}")
    return "\n".join(lines) + "\n"
