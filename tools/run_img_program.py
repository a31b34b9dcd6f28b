"""tessel-run for camera pipelines (streams, gates, whole-frame ops) on the cpu target.

The function runs as a frame program (pipelines/img.py plans it, targets/cpu/img_program.py runs it):
its arguments come from --image (or are random), each img.source's frames from --source
NAME=PNG (once per frame, in order) or --frames N random frames; every frame runs the
steps its gates let through, and what reaches each img.sink is printed, checked against the
numpy reference with --check, and written with -o (a .npz of every sink's frames, or PNGs).

  tessel-run examples/img/camera/face_auth.mlir --target cpu --frames 8 --check --report
  tessel-run examples/img/camera/rig360.mlir --target cpu --frames 2 --check --time 3
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tessel.dialects.img.types import element_name, numpy_dtype
from tessel.ir.diagnostics import TesselError


def _shape(v) -> str:  # noqa: ANN001
    t = v.type
    return f"{'x'.join(map(str, t.shape))} {element_name(t.element)}"


def _frames(args: argparse.Namespace, exe) -> dict[str, list[np.ndarray]]:  # noqa: ANN001
    from tessel.tools.run_img import _read_image, _typed

    given: dict[str, list[str]] = {}
    for item in args.source:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise TesselError(f"--source takes NAME=PNG, got '{item}'")
        given.setdefault(name, []).append(path)
    names = [op.source_name for op in exe.program.sources]
    for name in given:
        if name not in names:
            raise TesselError(
                f"--source {name}: the pipeline has no img.source of that name (it has: {', '.join(names) or 'none'})"
            )
    rng = np.random.default_rng(args.seed + 1)
    out: dict[str, list[np.ndarray]] = {}
    for op, name in zip(exe.program.sources, names):
        (h, w, c), dt = op.result.type.shape, np.dtype(numpy_dtype(op.result.type.element))
        if name in given:
            out[name] = [_typed(_read_image(p, c, (h, w), args.resize), dt) for p in given[name]]
        elif dt.kind == "f":
            out[name] = [rng.random((h, w, c), dtype=np.float32) for _ in range(args.frames)]
        else:
            out[name] = [rng.integers(0, 256, (h, w, c)).astype(dt) for _ in range(args.frames)]
    return out


def _write(path: str, program, run) -> str:  # noqa: ANN001
    from tessel.tools.run_img import write_image

    if path.endswith(".npz"):
        arrays = {}
        for kind, values, got in (("result", program.results, run.results), ("sink", program.sinks, run.sinks)):
            for j, (v, frames) in enumerate(zip(values, got)):
                for i, a in enumerate(frames if isinstance(frames, list) else [frames]):
                    arrays[f"{kind}{j}_{v.name_hint or 'value'}_{i}"] = a
        tmp = path + ".tmp.npz"
        np.savez(tmp, **arrays)
        os.replace(tmp, path)
        return f"wrote {path} ({len(arrays)} arrays)"
    frames = [a for got in run.sinks + run.results for a in (got if isinstance(got, list) else [got])]
    if not frames:
        raise TesselError(f"nothing reached a sink, so there is no image to write to {path}")
    if len(frames) == 1:
        write_image(path, [frames[0]])
        return f"wrote {path}"
    stem, ext = os.path.splitext(path)
    names = [f"{stem}_{i:03d}{ext}" for i in range(len(frames))]
    for name, a in zip(names, frames):
        write_image(name, [a])
    return f"wrote {len(frames)} images: {names[0]} .. {names[-1]}"


def run(args: argparse.Namespace, ctx: Context, module: ModuleOp, fn: func.FuncOp) -> int:
    from tessel.dialects.img.reference import run as reference
    from tessel.pipelines.img import compile_program
    from tessel.tools.run_img import _inputs, check

    if args.frames < 0:
        raise TesselError(f"--frames must be non-negative, got {args.frames}")
    reference_fn = fn.clone()
    hoisted: list[str] = []
    exe = compile_program(
        ctx, module, args.entry, threads=args.threads, fuse=not args.no_fuse, hoist=not args.no_hoist, hoisted=hoisted
    )
    program = exe.program
    specs = [(exe.arg_shape(a), exe.arg_dtype(a)) for a in exe.args]
    ins = _inputs(args, specs)
    frames = _frames(args, exe)
    if args.report:
        for line in hoisted:
            print(line)
        for s in program.steps:
            guard = ", ".join(sorted(g.results[0].name_hint or "?" for g in s.guard))
            if s.kind == "gate" and s.op is not None:
                io = f"%{s.op.operands[1].name_hint or '?'} != 0 passes %{s.op.operands[0].name_hint or '?'}"
            else:
                io = f"{', '.join('%' + (v.name_hint or '?') for v in s.inputs)} -> {', '.join('%' + (v.name_hint or '?') for v in s.outputs)}"
            print(
                f"step {s.kind:8} {s.name:12} {io}{'  if ' + guard if guard else ''}{'' if s.per_frame else '  (once)'}"
            )
    result = exe.run(ins, frames)
    for name, fs in frames.items():
        print(f"frames: {len(fs)} from '{name}'")
    for name, (passed, seen) in result.gates.items():
        print(f"gate {name}: passed {passed} of {seen} frames")
    for j, (v, got) in enumerate(zip(program.sinks, result.sinks)):
        count = f"{len(got)} frames" if isinstance(got, list) else "1 frame"
        print(f"sink #{j} %{v.name_hint or '?'}: {count} of {_shape(v)}")
    status = 0
    if args.check:
        sinks: list = []
        want = reference(reference_fn, ins, frames, sinks)
        ok, worst = True, 0.0
        for got, ref in zip(result.results + result.sinks, want + sinks):
            got_l, ref_l = (got, ref) if isinstance(got, list) else ([got], [ref])
            if len(got_l) != len(ref_l):
                ok = False
                print(f"check: {len(got_l)} frames reached a sink, the reference has {len(ref_l)}")
                continue
            if got_l:
                o, d = check(got_l, ref_l)
                ok, worst = ok and o, max(worst, d)
        kind = "bit-exact" if ok and worst == 0 else ("within 1e-4" if ok else "MISMATCH")
        print(f"check: every sink and result against the numpy reference, largest difference {worst:.3g} ({kind})")
        status = 0 if ok else 1
    if args.time:
        per_frame = list(result.seconds_per_frame)
        for _ in range(args.time):
            per_frame += exe.run(ins, frames).seconds_per_frame
        if per_frame:
            print(f"time: median {statistics.median(per_frame) * 1e3:.3f} ms per frame over {len(per_frame)} frames "
                  f"({args.time + 1} runs), {args.threads} threads")  # fmt: skip
    if args.dump_ir:
        from tessel.ir.source import print_module

        with open(args.dump_ir, "w") as f:
            f.write("\n".join(print_module(s.module) for s in program.steps if s.module is not None))
        with open(args.dump_ir + ".ll", "w") as f:
            f.write(exe.llvm_ir)
    if args.output:
        print(_write(args.output, program, result))
    exe.close()
    return status
