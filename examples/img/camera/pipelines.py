"""The IISWC'17 camera case studies as `img` pipelines, with switches for the ablations.

    python examples/img/camera/pipelines.py face_auth -o face_auth.mlir
    python examples/img/camera/pipelines.py rig360 -o rig360.mlir [--no encode]

face_auth (the battery-free WISPCam): QCIF grey frames -> motion detection against a
background frame (4x downsample, absolute difference, sum, threshold) -> motion gate ->
integral image -> a two-rectangle Haar feature over a 9x9 window, its maximum thresholded ->
face gate -> the 24x24 face ROI -> a 576-64-2 network (dense, ReLU with requantization,
dense). Ablations remove the motion gate, the face gate, or the ROI (the network then has to
look at the whole frame).

rig360 (the 3D-360 VR rig): 16 cameras of 4K Bayer frames at 30 fps -> ISP (demosaic
into three planes, white balance and gamma per plane) -> rectification (LUT remap to a
2048x2048 view) -> luma -> flow-lite (a 5x5 gradient stencil) -> stitch (colour and flow
combined into the omni-directional stereo view, downsampled 2x) -> encode. Ablations remove
the ODS downsample or the encoder.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PLATFORMS = Path(__file__).with_name("platforms.json")


def _t(h: int, w: int, c: int, e: str, stream: bool = True) -> str:
    return f"!img.{'stream' if stream else 'frame'}<{h}x{w}x{c}x{e}>"


def _args(n: int, t: str) -> str:
    return ", ".join(f"%p{i}: {t}" for i in range(n))


class Builder:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def op(self, text: str) -> None:
        self.lines.append("    " + text)

    def body(self, head: str, args: str, body: list[str]) -> None:
        self.lines.append("    " + head + " {")
        self.lines.append(f"    ^bb0({args}):")
        self.lines += ["      " + b for b in body]
        self.lines.append("    }")


def face_auth(motion_gate: bool = True, face_gate: bool = True, roi: bool = True, fps: float = 1.0,
              p_motion: float = 0.1, p_face: float = 0.5) -> str:  # fmt: skip
    h, w = 144, 176
    b = Builder()
    frame = _t(h, w, 1, "ui8")
    nn_in = 24 * 24 if roi else h * w
    b.op(f'%frames = img.source {{fps = {fps} : f64, camera = "wispcam"}} : {frame}')
    b.op(f"%small = img.downsample %frames factor [4, 4] mode average : {frame} -> {_t(36, 44, 1, 'ui8')}")
    b.body(f"%diff = img.map %small, %background : ({_t(36, 44, 1, 'ui8')}, {_t(36, 44, 1, 'ui8', False)}) -> {_t(36, 44, 1, 'ui8')}",
           "%a: i8, %bg: i8", ["%hi = arith.maxui %a, %bg : i8", "%lo = arith.minui %a, %bg : i8",
                               "%d = arith.subi %hi, %lo : i8", "img.yield %d : i8"])  # fmt: skip
    b.op(f"%energy = img.reduce %diff kind sum : {_t(36, 44, 1, 'ui8')} -> {_t(1, 1, 1, 'i32')}")
    b.body(f"%moving = img.map %energy : ({_t(1, 1, 1, 'i32')}) -> {_t(1, 1, 1, 'ui8')}", "%e: i32",
           ["%thr = arith.constant 8000 : i32", "%m = arith.cmpi sgt, %e, %thr : i32", "%one = arith.extui %m : i1 to i8", "img.yield %one : i8"])  # fmt: skip
    cur = "%frames"
    if motion_gate:
        b.op(
            f"%motion = img.gate %frames, %moving {{pass_rate = {p_motion} : f64}} : {frame}, {_t(1, 1, 1, 'ui8')} -> {frame}"
        )
        cur = "%motion"
    b.op(f"%ii = img.scan {cur} : {frame} -> {_t(h, w, 1, 'i32')}")
    # two-rectangle feature over a 9x9 window of the integral image: left box minus right box
    b.body(f"%haar = img.stencil %ii window [9, 9] border clamp : ({_t(h, w, 1, 'i32')}) -> {_t(h, w, 1, 'i32')}",
           _args(81, "i32"),
           ["%l1 = arith.subi %p76, %p4 : i32", "%l2 = arith.subi %l1, %p72 : i32", "%l = arith.addi %l2, %p0 : i32",
            "%r1 = arith.subi %p80, %p8 : i32", "%r2 = arith.subi %r1, %p76 : i32", "%r = arith.addi %r2, %p4 : i32",
            "%f = arith.subi %l, %r : i32", "img.yield %f : i32"])  # fmt: skip
    b.op(f"%strength = img.reduce %haar kind max : {_t(h, w, 1, 'i32')} -> {_t(1, 1, 1, 'i32')}")
    b.body(f"%face = img.map %strength : ({_t(1, 1, 1, 'i32')}) -> {_t(1, 1, 1, 'ui8')}", "%s: i32",
           ["%thr = arith.constant 2000 : i32", "%m = arith.cmpi sgt, %s, %thr : i32", "%one = arith.extui %m : i1 to i8", "img.yield %one : i8"])  # fmt: skip
    if face_gate:
        b.op(
            f"%faces = img.gate {cur}, %face {{pass_rate = {p_face} : f64}} : {frame}, {_t(1, 1, 1, 'ui8')} -> {frame}"
        )
        cur = "%faces"
    if roi:
        b.op(f"%roi = img.crop {cur} roi [60, 76, 24, 24] : {frame} -> {_t(24, 24, 1, 'ui8')}")
        cur, cur_t = "%roi", _t(24, 24, 1, "ui8")
    else:
        cur_t = frame
    b.op(f"%hidden = img.dense {cur}, %w1 : {cur_t}, {_t(nn_in, 64, 1, 'i8', False)} -> {_t(1, 1, 64, 'i32')}")
    b.body(f"%act = img.map %hidden : ({_t(1, 1, 64, 'i32')}) -> {_t(1, 1, 64, 'i8')}", "%v: i32",
           ["%zero = arith.constant 0 : i32", "%r = arith.maxsi %v, %zero : i32", "%seven = arith.constant 7 : i32",
            "%s = arith.shrsi %r, %seven : i32", "%cap = arith.constant 127 : i32", "%c = arith.minsi %s, %cap : i32",
            "%n = arith.trunci %c : i32 to i8", "img.yield %n : i8"])  # fmt: skip
    b.op(f"%scores = img.dense %act, %w2 : {_t(1, 1, 64, 'i8')}, {_t(64, 2, 1, 'i8', False)} -> {_t(1, 1, 2, 'i32')}")
    b.op(f"img.sink %scores : {_t(1, 1, 2, 'i32')}")
    args = (f"%background: {_t(36, 44, 1, 'ui8', False)}, %w1: {_t(nn_in, 64, 1, 'i8', False)}, "
            f"%w2: {_t(64, 2, 1, 'i8', False)}")  # fmt: skip
    return (
        "builtin.module {\n  func.func @face_auth("
        + args
        + ") {\n"
        + "\n".join(b.lines)
        + "\n    func.return\n  }\n}\n"
    )


def rig360(downsample: bool = True, encode: bool = True, fps: float = 30.0, cameras: int = 16,
           encode_ratio: float = 0.005, encode_ops_per_pixel: float = 200.0,
           size: tuple[int, int, int] = (2160, 3840, 2048)) -> str:  # fmt: skip
    """`size`: camera height and width, and the side of the rectified view (small sizes
    for tests; the study's are the rig's)."""
    H, W, V = size
    b = Builder()
    raw = _t(H, W, 1, "ui8")
    b.op(f'%raw = img.source {{fps = {fps} : f64, camera = "rig", count = {cameras} : i64}} : {raw}')
    # demosaic: each plane interpolated from its Bayer neighbours (3x3)
    for name, taps in (
        ("r", ["%p0", "%p2", "%p6", "%p8"]),
        ("g", ["%p1", "%p3", "%p5", "%p7"]),
        ("bl", ["%p0", "%p2", "%p6", "%p8"]),
    ):
        body = [f"%w{i} = arith.extui {t} : i8 to i16" for i, t in enumerate(taps)]
        body += ["%s1 = arith.addi %w0, %w1 : i16", "%s2 = arith.addi %s1, %w2 : i16", "%s3 = arith.addi %s2, %w3 : i16",
                 "%two = arith.constant 2 : i16", "%q = arith.shrui %s3, %two : i16", "%o = arith.trunci %q : i16 to i8", "img.yield %o : i8"]  # fmt: skip
        b.body(f"%{name} = img.stencil %raw window [3, 3] border mirror : ({raw}) -> {raw}", _args(9, "i8"), body)
    # white balance and gamma per plane (gain, then a square-root-like curve by shifts)
    for name, gain in (("r", 18), ("g", 16), ("bl", 20)):
        b.body(f"%{name}b = img.map %{name} : ({raw}) -> {raw}", "%v: i8",
               ["%w = arith.extui %v : i8 to i16", f"%gain = arith.constant {gain} : i16", "%m = arith.muli %w, %gain : i16",
                "%four = arith.constant 4 : i16", "%s = arith.shrui %m, %four : i16", "%cap = arith.constant 255 : i16",
                "%c = arith.minui %s, %cap : i16", "%o = arith.trunci %c : i16 to i8", "img.yield %o : i8"])  # fmt: skip
    rgb = _t(H, W, 3, "ui8")
    b.op(f"%rgb = img.merge %rb, %gb, %blb : ({raw}, {raw}, {raw}) -> {rgb}")
    view = _t(V, V, 3, "ui8")
    b.op(f"%rect = img.remap %rgb, %lut max_displacement 64 : {rgb}, {_t(V, V, 2, 'i16', False)} -> {view}")
    plane = _t(V, V, 1, "ui8")
    for c, n in ((0, "vr"), (1, "vg"), (2, "vb")):
        b.op(f"%{n} = img.extract %rect channel {c} : {view} -> {plane}")
    b.body(f"%luma = img.map %vr, %vg, %vb : ({plane}, {plane}, {plane}) -> {plane}", "%a: i8, %c: i8, %d: i8",
           ["%x = arith.extui %a : i8 to i16", "%y = arith.extui %c : i8 to i16", "%z = arith.extui %d : i8 to i16",
            "%y2 = arith.addi %y, %y : i16", "%s = arith.addi %x, %y2 : i16", "%t = arith.addi %s, %z : i16",
            "%two = arith.constant 2 : i16", "%q = arith.shrui %t, %two : i16", "%o = arith.trunci %q : i16 to i8", "img.yield %o : i8"])  # fmt: skip
    flow = _t(V, V, 1, "i16")
    grad = [f"%x{i} = arith.extui %p{i} : i8 to i16" for i in (10, 14, 2, 22)]
    grad += [
        "%gx = arith.subi %x14, %x10 : i16",
        "%gy = arith.subi %x22, %x2 : i16",
        "%f = arith.addi %gx, %gy : i16",
        "img.yield %f : i16",
    ]
    b.body(f"%flow = img.stencil %luma window [5, 5] border clamp : ({plane}) -> {flow}", _args(25, "i8"), grad)
    # stitch: colour shifted by the flow sign (a stand-in for view interpolation), per plane
    stitched = []
    for n in ("vr", "vg", "vb"):
        b.body(
            f"%s{n} = img.map %{n}, %flow : ({plane}, {flow}) -> {plane}",
            "%v: i8, %f: i16",
            ["%t = arith.trunci %f : i16 to i8", "%o = arith.addi %v, %t : i8", "img.yield %o : i8"],
        )
        stitched.append(f"%s{n}")
    b.op(f"%ods = img.merge {', '.join(stitched)} : ({plane}, {plane}, {plane}) -> {view}")
    cur, cur_t = "%ods", view
    if downsample:
        small = _t(V // 2, V // 2, 3, "ui8")
        b.op(f"%ods2 = img.downsample %ods factor [2, 2] mode average : {view} -> {small}")
        cur, cur_t = "%ods2", small
    if encode:
        b.op(
            f"%video = img.encode {cur} {{ratio = {encode_ratio} : f64, ops_per_pixel = {encode_ops_per_pixel} : f64}} : {cur_t} -> {cur_t}"
        )
        cur = "%video"
    b.op(f"img.sink {cur} : {cur_t}")
    return ("builtin.module {\n  func.func @rig360(%lut: " + _t(V, V, 2, "i16", False) + ") {\n" + "\n".join(b.lines)
            + "\n    func.return\n  }\n}\n")  # fmt: skip


def workload(name: str) -> dict:
    return json.loads(PLATFORMS.read_text())["workloads"][name]


def build(name: str, without: tuple[str, ...] = ()) -> str:
    w = workload(name)
    if name == "face_auth":
        return face_auth(
            "motion_gate" not in without,
            "face_gate" not in without,
            "roi" not in without,
            w["fps"],
            w["p_motion"],
            w["p_face"],
        )
    return rig360(
        "downsample" not in without,
        "encode" not in without,
        w["fps"],
        w["cameras"],
        w["encode_ratio"],
        w["encode_ops_per_pixel"],
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pipeline", choices=["face_auth", "rig360"])
    p.add_argument("-o", "--output", required=True)
    p.add_argument(
        "--no",
        action="append",
        default=[],
        help="remove a data-reduction stage (motion_gate, face_gate, roi, downsample, encode)",
    )
    args = p.parse_args()
    Path(args.output).write_text(build(args.pipeline, tuple(args.no)))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
