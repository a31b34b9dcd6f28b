"""Image pipelines on the CPU: Tessel against Halide (tuned hand schedule) and OpenCV.

    python -m tessel.bench.img [--sizes 1080p,4k] [--types u8,f32] [--pipelines box3x3,...] [--rounds 7]

For every example pipeline (frontends/img_examples.py) x frame size x element type, the
three run in this process (Tessel through the default pipeline: hoisting on, so in
gamma_down the downsample runs before the table and the table reads a quarter of the
pixels, which the table line reports), interleaved (one sample of each in turn, every sample a batch
of about 50 ms), 2 threads each; the table gives megapixels per second of the input frame
(for ISP-lite, the raw mosaic) from the median sample, and peer time / Tessel time. Every
output is checked against the numpy reference first (Tessel: bit-exact for u8, 1e-4 for
f32; the peers' largest difference is printed for information, their rounding differs).
The last line is `RESULT img geomean_vs_halide=<x> geomean_vs_opencv=<x>`.

Goals checked: >= 1.0x Halide on box/separable/Sobel at 4K; >= 2x OpenCV on the
multi-stage pipelines (separable, Sobel, unsharp, ISP-lite).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
from collections.abc import Callable

import numpy as np

SIZES = {"1080p": (1080, 1920), "4k": (2160, 3840)}
MULTI_STAGE = ("gauss_sep", "sobel", "unsharp", "isp_lite")
HALIDE_GOAL = ("box3x3", "gauss_sep", "sobel")


def _inputs(fn, seed: int = 0) -> list[np.ndarray]:
    """u8 frames over their range, f32 in [0, 1), by the argument's element type."""
    rng = np.random.default_rng(seed)
    out = []
    for a in fn.body.block.args:
        shape = a.type.shape
        u8 = a.type.element_name == "ui8"
        out.append(rng.integers(0, 256, shape).astype(np.uint8) if u8 else rng.random(shape, dtype=np.float32))
    return out


def _err(outs: list[np.ndarray], ref: list[np.ndarray]) -> float:
    return max(
        float(np.abs(np.asarray(o, np.float64).reshape(r.shape) - r.astype(np.float64)).max())
        for o, r in zip(outs, ref)
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1080p,4k")
    p.add_argument("--types", default="u8,f32")
    p.add_argument("--pipelines", default="box3x3,gauss_sep,sobel,unsharp,isp_lite,gamma_down,lut_blur")
    p.add_argument("--rounds", type=int, default=7, help="samples per candidate (default: 7)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-peers", action="store_true", help="Tessel only (no Halide/OpenCV)")
    args = p.parse_args(argv)
    os.environ.setdefault("HL_NUM_THREADS", str(args.threads))

    from tessel.bench.common import cpu_idle, environment, interleaved, log
    from tessel.bench.img_peers import halide, opencv
    from tessel.dialects.context import make_context
    from tessel.dialects.img.reference import run as reference
    from tessel.frontends.img_examples import pipeline_text
    from tessel.ir.source import parse_module, verify
    from tessel.pipelines.img import compile_pipeline, entry_function

    versions = []
    if not args.no_peers:
        import cv2
        import halide as hl

        versions = [f"halide {getattr(hl, '__version__', '21.0.0')}", f"opencv {cv2.__version__}"]
    log(f"# img bench: {environment(args.threads)}; {', '.join(versions)}")
    log(f"{'pipeline':<10} {'type':<4} {'size':<5} {'tessel MP/s':>11} {'halide MP/s':>11} {'opencv MP/s':>11} "
        f"{'vs halide':>9} {'vs opencv':>9}  err(tessel/halide/opencv)  idle")  # fmt: skip
    ratios_h, ratios_o = [], []
    goals: list[tuple[str, float, float]] = []
    failures = 0
    for size in args.sizes.split(","):
        h, w = SIZES[size]
        for name in args.pipelines.split(","):
            for t in args.types.split(","):
                ctx = make_context()
                module = parse_module(ctx, pipeline_text(name, t, h, w), f"{name}_{t}")
                verify(module)
                fn = entry_function(module)
                ins = _inputs(fn)
                ref = [np.asarray(r) for r in reference(fn, ins)]
                hoisted: list[str] = []
                exe = compile_pipeline(ctx, module, threads=args.threads, hoisted=hoisted)
                for line in hoisted:
                    log(f"# {name} {t} {size}: {line}")
                outs = exe.run(ins)
                err_t = _err(outs, ref)
                exact = err_t == 0 if t == "u8" else err_t <= 1e-4
                failures += not exact
                cands: dict[str, Callable[[], object]] = {"tessel": exe.native().run}
                exe.native().patch(exe._inputs(ins), exe._outs)
                errs = [f"{err_t:.2g}"]
                if not args.no_peers:
                    hal, ocv = halide(name, t, ins, args.threads), opencv(name, t, ins, args.threads)
                    errs += [f"{_err(hal(), ref):.2g}", f"{_err(ocv(), ref):.2g}"]
                    cands |= {"halide": hal, "opencv": ocv}
                idle = cpu_idle(0.2)
                samples = interleaved(cands, args.rounds)
                med = {k: statistics.median(v) for k, v in samples.items()}
                mp = {k: h * w / v / 1e6 for k, v in med.items()}
                line = f"{name:<10} {t:<4} {size:<5} {mp['tessel']:>11.0f}"
                if not args.no_peers:
                    rh, ro = med["halide"] / med["tessel"], med["opencv"] / med["tessel"]
                    ratios_h.append(rh)
                    ratios_o.append(ro)
                    line += f" {mp['halide']:>11.0f} {mp['opencv']:>11.0f} {rh:>8.2f}x {ro:>8.2f}x"
                    if size == "4k" and name in HALIDE_GOAL:
                        goals.append((f"halide {name} {t} 4k", rh, 1.0))
                    if name in MULTI_STAGE:
                        goals.append((f"opencv {name} {t} {size}", ro, 2.0))
                log(line + f"  {'/'.join(errs):<24} {idle:.0%}{'' if exact else '  MISMATCH'}")
                exe.close()
    for what, r, need in goals:
        log(f"goal {what}: {r:.2f}x (>= {need}x) {'met' if r >= need else 'NOT met'}")
    gh = math.exp(statistics.mean(math.log(r) for r in ratios_h)) if ratios_h else float("nan")
    go = math.exp(statistics.mean(math.log(r) for r in ratios_o)) if ratios_o else float("nan")
    log(f"RESULT img geomean_vs_halide={gh:.2f} geomean_vs_opencv={go:.2f} mismatches={failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
