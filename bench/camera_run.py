"""The two camera case studies executed, not only costed: compiled for this CPU, run on
synthetic frames, checked frame by frame against the numpy reference, and timed.

    python -m tessel.bench.camera_run [--frames 100] [--rig-frames 3]

face authentication: a stream in which a share of the frames has motion (a bright block
over the background) and, of those, a share has a face-like vertical edge (the rest move
without one), at the workload's rates (examples/img/camera/platforms.json); the gates'
measured pass counts are printed beside those rates, and the time per frame with the gates
dropping work early. The rig: 4K raw frames and a rectification LUT within the declared
displacement; the time per camera-frame, and the rate this machine reaches in the cost
model's own op count (passes/img/analysis/costs.py) beside the `cpu` platform's assumed rate.

Ends with `RESULT camera_run bit_exact=<bool> face_us_per_frame=<x> rig_ms_per_frame=<x>
rig_gops=<x>`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from tessel.dialects.context import make_context
from tessel.dialects.img.reference import run as reference
from tessel.ir.source import parse_module, verify
from tessel.passes.img.analysis.costs import load_model, ops_per_frame
from tessel.pipelines.img import compile_program, entry_function


def _compile(text: str, threads: int):  # noqa: ANN202
    ctx = make_context()
    module = parse_module(ctx, text, "pipeline.mlir")
    verify(module)
    fn = entry_function(module)
    return fn.clone(), compile_program(ctx, module, threads=threads)


def _same(got: list, want: list) -> bool:
    return len(got) == len(want) and all(
        len(g) == len(w) and all(np.array_equal(a, b) for a, b in zip(g, w)) for g, w in zip(got, want)
    )


def face_stream(n: int, p_motion: float, p_face: float, seed: int = 0) -> tuple[np.ndarray, list[np.ndarray]]:
    """Background 40 with sensor noise; every 1/p_motion-th frame moves, alternately with a
    bright block (an edge: a face) and a uniform brightening (no edge)."""
    rng = np.random.default_rng(seed)
    background = np.full((36, 44, 1), 40, np.uint8)
    frames = []
    period = max(1, round(1 / p_motion))
    faces_every = max(1, round(1 / p_face))
    for i in range(n):
        f = np.clip(40 + rng.integers(-2, 3, (144, 176, 1)), 0, 255).astype(np.uint8)
        if i % period == period - 1:
            if (i // period) % faces_every == 0:
                f[40:110, 60:100] = 200
            else:
                f[:] = 50
        frames.append(f)
    return background, frames


def run_face(build, model_path: str, n: int, threads: int) -> tuple[bool, float, dict]:  # noqa: ANN001
    with open(model_path) as f:
        rates = json.load(f)["workloads"]["face_auth"]
    fn, exe = _compile(build("face_auth"), threads)
    background, frames = face_stream(n, rates["p_motion"], rates["p_face"])
    rng = np.random.default_rng(1)
    w1 = rng.integers(-128, 128, (576, 64, 1)).astype(np.int8)
    w2 = rng.integers(-128, 128, (64, 2, 1)).astype(np.int8)
    got = exe.run([background, w1, w2], {"wispcam": frames})
    sinks: list = []
    reference(fn, [background, w1, w2], {"wispcam": frames}, sinks)
    exact = _same(got.sinks, sinks)
    times = list(got.seconds_per_frame)
    for _ in range(4):
        times += exe.run([background, w1, w2], {"wispcam": frames}).seconds_per_frame
    exe.close()
    print(f"face_auth: {n} QCIF frames, {threads} threads; frames through each gate (model's pass rate): "
          + ", ".join(f"{g} {p}/{s} ({p / max(s, 1):.2f}; model {r})" for (g, (p, s)), r in zip(got.gates.items(), (rates["p_motion"], rates["p_face"]))))  # fmt: skip
    print(f"  {len(got.sinks[0])} frames scored; bit-exact against the reference: {exact}; "
          f"time per frame median {statistics.median(times) * 1e6:.1f} us, mean {statistics.mean(times) * 1e6:.1f} us")  # fmt: skip
    return exact, statistics.median(times), got.gates


def run_rig(pipelines, model_path: str, n: int, threads: int) -> tuple[bool, float, float]:  # noqa: ANN001
    text = pipelines.rig360()
    fn, exe = _compile(text, threads)
    rng = np.random.default_rng(2)
    side = 2048
    ys, xs = np.mgrid[0:side, 0:side]
    lut = np.stack([ys + 56 + rng.integers(-64, 65, ys.shape), xs + 896 + rng.integers(-64, 65, xs.shape)], -1).astype(
        np.int16
    )
    frames = [rng.integers(0, 256, (2160, 3840, 1)).astype(np.uint8) for _ in range(n)]
    got = exe.run([lut], {"rig": frames})
    sinks: list = []
    reference(fn, [lut], {"rig": frames[:1]}, sinks)  # the reference takes ~2 s a 4K frame: check the first
    exact = all(np.array_equal(a, b) for a, b in zip(got.sinks[0][:1], sinks[0]))
    times = list(got.seconds_per_frame)
    for _ in range(3):
        times += exe.run([lut], {"rig": frames}).seconds_per_frame
    exe.close()
    executed = [
        op
        for op in fn.walk()
        if op.name.startswith("img.") and op.name not in ("img.encode", "img.source", "img.sink", "img.yield")
    ]
    gop = sum(ops_per_frame(op) for op in executed) / 1e9
    med = statistics.median(times)
    cpu = load_model(model_path).platform("cpu")
    print(f"rig360: {n} 4K raw frames, {threads} threads: demosaic + white balance -> LUT warp -> luma, flow, stitch, "
          f"downsample (the encoder is the model's black box, not run); first frame bit-exact: {exact}")  # fmt: skip
    print(f"  time per camera-frame median {med * 1e3:.2f} ms ({1 / med:.0f} frames/s; the rig makes "
          f"{16 * 30} camera-frames/s); {gop:.3f} Gop per frame in the model's count = {gop / med:.1f} Gop/s on this machine "
          f"(the model's 'cpu' platform assumes {cpu.capacity / 1e9:g} Gop/s)")  # fmt: skip
    return exact, med, gop / med


def main() -> int:
    from tessel.bench.camera import pipelines_module

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="examples/img/camera/platforms.json")
    p.add_argument("--frames", type=int, default=100, help="face-authentication frames (default: 100)")
    p.add_argument("--rig-frames", type=int, default=3, help="4K rig frames (default: 3)")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    pipelines = pipelines_module()
    t0 = time.perf_counter()
    face_ok, face_t, _ = run_face(pipelines.build, args.model, args.frames, args.threads)
    rig_ok, rig_t, gops = run_rig(pipelines, args.model, args.rig_frames, args.threads)
    print(f"({time.perf_counter() - t0:.1f} s)")
    print(f"RESULT camera_run bit_exact={str(face_ok and rig_ok).lower()} face_us_per_frame={face_t * 1e6:.1f} "
          f"rig_ms_per_frame={rig_t * 1e3:.2f} rig_gops={gops:.1f}")  # fmt: skip
    return 0 if face_ok and rig_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
