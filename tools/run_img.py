"""tessel-run for image pipelines (modules of img ops) on the cpu target.

The pipeline is hoisted (data reduction first), fused, line-buffered and compiled to native
code (pipelines/img.py),
run on the image(s) given, and the result written as a PNG. Inputs: one --image per
function argument (converted to its channels and element type: u8 as is, f32 scaled to
[0, 1]), or, with --bayer, one RGB image sampled into the four RGGB planes a raw-input
pipeline (examples/img/isp_lite_*.mlir) takes; random images without --image.

Examples:
  tessel-run examples/img/unsharp_u8.mlir --target cpu --image in.png -o out.png --check
  tessel-run examples/img/isp_lite_u8.mlir --target cpu --image in.png --bayer -o rgb.png
  tessel-run examples/img/sobel_f32.mlir --target cpu --check --time 20 --report
  tessel-run examples/img/camera/face_auth.mlir --target cpu --frames 8 --check   (tools/run_img_program.py)
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics

import numpy as np

from tessel.dialects.img.ops import OPS
from tessel.ir.diagnostics import TesselError

IMG_OP = re.compile(r"\b(" + "|".join(re.escape(op.name) for op in OPS) + r")\b")
PARTITION_HOOK = "tessel.tools.run_img_partition"  # run(args, module) -> int
PROGRAM_HOOK = "tessel.tools.run_img_program"  # run(args, ctx, module, fn) -> int: streams, gates, whole-frame ops


def is_img_file(path: str) -> bool:
    """Whether a .mlir file holds img ops (decides the runner for --target cpu)."""
    if not path.endswith(".mlir"):
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return IMG_OP.search(f.read()) is not None
    except OSError:
        return False


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", help="a .mlir module of img ops")
    p.add_argument(
        "--image", action="append", default=[], metavar="PNG", help="an input image (once per function argument)"
    )
    p.add_argument("--bayer", action="store_true", help="sample one RGB --image into the RGGB planes of a raw pipeline")
    p.add_argument("--resize", action="store_true", help="resize input images to the pipeline's frame size")
    p.add_argument("-o", "--output", metavar="PNG", help="write the result image (3 one-channel results: an RGB image)")
    p.add_argument("--entry", help="function to run (default: the only one, or main)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random images used without --image")
    p.add_argument(
        "--check", action="store_true", help="compare with the numpy reference (bit-exact for integers, 1e-4 for f32)"
    )
    p.add_argument("--time", type=int, default=0, metavar="N", help="time N runs, report the median and megapixels/s")
    p.add_argument("--threads", type=int, default=2, help="threads (default: 2)")
    p.add_argument("--no-fuse", action="store_true", help="skip img-fuse (every producer line-buffered)")
    p.add_argument(
        "--no-hoist",
        action="store_true",
        help="skip img-hoist-reductions (by default crops, nearest downsamples and gates move above the work they save)",
    )
    p.add_argument(
        "--report",
        action="store_true",
        help="print what hoisting moved and the line-buffer report (on-chip bytes vs the analytic minimum)",
    )
    p.add_argument("--dump-ir", metavar="PATH", help="write the optimized img IR to PATH and the LLVM IR to PATH.ll")
    p.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="NAME=PNG",
        help="a frame for the img.source of that camera name (once per frame, in order)",
    )
    p.add_argument(
        "--frames", type=int, default=4, metavar="N", help="random frames per img.source given no --source (default: 4)"
    )
    p.add_argument(
        "--partition",
        action="store_true",
        help="print every node/cloud cut of a camera pipeline and choose one (img-partition)",
    )
    p.add_argument("--platform", help="--partition: the node platform (default: accel)")
    p.add_argument("--link", help="--partition: the link (default: backscatter)")
    p.add_argument(
        "--platform-model",
        metavar="JSON",
        help="--partition: the constants (default: the shipped passes/img/analysis/platforms.json)",
    )


def _read_image(path: str, channels: int, shape: tuple[int, int], resize: bool) -> np.ndarray:
    try:
        from PIL import Image
    except ImportError as err:
        raise TesselError("reading images needs Pillow: pip install 'tessel[demo]'") from err
    try:
        im = Image.open(path).convert("L" if channels == 1 else "RGB")
    except (OSError, ValueError) as err:
        raise TesselError(f"cannot read image {path}: {err}") from err
    h, w = shape
    if im.size != (w, h):
        if not resize:
            raise TesselError(
                f"{path} is {im.size[1]}x{im.size[0]}, the pipeline takes {h}x{w} (pass --resize to scale it)"
            )
        im = im.resize((w, h), Image.Resampling.BILINEAR)
    a = np.asarray(im)
    return a.reshape(h, w, channels)


def _typed(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype == np.float32:
        return a.astype(np.float32) / np.float32(255.0)
    return a.astype(dtype)


def _inputs(args: argparse.Namespace, specs: list[tuple[tuple[int, int, int], np.dtype]]) -> list[np.ndarray]:
    if not args.image:
        rng = np.random.default_rng(args.seed)
        return [
            rng.integers(0, 256, s).astype(dt) if dt.kind in "ui" else rng.random(s, dtype=np.float32)
            for s, dt in specs
        ]
    if args.bayer:
        if (
            len(args.image) != 1
            or len(specs) != 4
            or any(s[2] != 1 for s, _ in specs)
            or len({s for s, _ in specs}) != 1
        ):
            raise TesselError("--bayer takes one --image and a pipeline of four one-channel planes (R, Gr, Gb, B)")
        (ph, pw, _), dt = specs[0]
        rgb = _read_image(args.image[0], 3, (2 * ph, 2 * pw), args.resize)
        planes = [rgb[0::2, 0::2, 0], rgb[0::2, 1::2, 1], rgb[1::2, 0::2, 1], rgb[1::2, 1::2, 2]]
        return [_typed(np.ascontiguousarray(p)[:, :, None], dt) for p in planes]
    if len(args.image) != len(specs):
        raise TesselError(f"the pipeline takes {len(specs)} images, got {len(args.image)} --image")
    return [_typed(_read_image(path, s[2], s[:2], args.resize), dt) for path, (s, dt) in zip(args.image, specs)]


def _to_u8(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.uint8:
        return a
    if a.dtype.kind == "f":
        return np.clip(a * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return np.clip(a, 0, 255).astype(np.uint8)


def write_image(path: str, outs: list[np.ndarray]) -> None:
    from PIL import Image

    if len(outs) == 3 and all(o.shape[2] == 1 and o.shape == outs[0].shape for o in outs):
        pixels = np.concatenate([_to_u8(o) for o in outs], axis=2)
    elif len(outs) == 1 and outs[0].shape[2] in (1, 3):
        pixels = _to_u8(outs[0])
    else:
        raise TesselError(
            f"cannot write {len(outs)} results of {[o.shape for o in outs]} as one PNG (need one 1- or 3-channel image, or three planes)"
        )
    img = Image.fromarray(pixels[:, :, 0] if pixels.shape[2] == 1 else pixels)
    stem, ext = os.path.splitext(path)
    tmp = f"{stem}.tmp{os.getpid()}{ext}"  # written whole, then renamed: never a partial image
    try:
        img.save(tmp)
        os.replace(tmp, path)
    except (OSError, ValueError) as err:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise TesselError(f"cannot write {path}: {err}") from err


def check(outs: list[np.ndarray], ref: list[np.ndarray]) -> tuple[bool, float]:
    """(within tolerance, largest difference): integers bit-exact, f32 within 1e-4."""
    worst, ok = 0.0, True
    for o, r in zip(outs, ref):
        r = np.asarray(r).reshape(o.shape)
        d = float(np.abs(o.astype(np.float64) - r.astype(np.float64)).max()) if o.size else 0.0
        worst = max(worst, d)
        ok &= d == 0 if o.dtype.kind in "ui" else d <= 1e-4
    return ok, worst


def run_command(args: argparse.Namespace) -> int:
    from tessel.dialects.context import make_context
    from tessel.dialects.img.reference import run as reference
    from tessel.ir.source import print_module, read_module, verify
    from tessel.pipelines.img import compile_pipeline, entry_function, line_buffer_report, needs_program

    ctx = make_context()
    module = read_module(ctx, args.model)
    verify(module)
    if args.partition:
        return importlib.import_module(PARTITION_HOOK).run(args, module)
    fn = entry_function(module, args.entry)
    if needs_program(fn):
        return importlib.import_module(PROGRAM_HOOK).run(args, ctx, module, fn)
    reference_fn = fn.clone()  # before fusion: the reference runs the program as written
    hoisted: list[str] = []
    exe = compile_pipeline(
        ctx, module, args.entry, threads=args.threads, fuse=not args.no_fuse, hoist=not args.no_hoist, hoisted=hoisted
    )
    ins = _inputs(args, exe.in_specs)
    outs = exe.run(ins)
    status = 0
    if args.report:
        print("\n".join(hoisted or ["hoisted: nothing (no crop, nearest downsample or gate above work it saves)"]))
        print(line_buffer_report(entry_function(module, args.entry)))
    if args.dump_ir:
        with open(args.dump_ir, "w") as f:
            f.write(print_module(module))
        with open(args.dump_ir + ".ll", "w") as f:
            f.write(exe.llvm_ir)
    if args.check:
        ok, worst = check(outs, [np.asarray(r) for r in reference(reference_fn, ins)])
        kind = "bit-exact" if ok and worst == 0 else ("within 1e-4" if ok else "MISMATCH")
        print(f"check: largest difference to the numpy reference {worst:.3g} ({kind})")
        status = 0 if ok else 1
    if args.time:
        times = exe.time(ins, args.time)
        med = statistics.median(times)
        pixels = max(s[0] * s[1] for s, _ in exe.in_specs) * (len(exe.in_specs) if args.bayer else 1)
        print(
            f"time: median {med * 1e3:.3f} ms over {args.time} runs, {pixels / med / 1e6:.0f} megapixels/s, {args.threads} threads"
        )
    if args.output:
        write_image(args.output, outs)
        print(f"wrote {args.output}")
    exe.close()
    return status
