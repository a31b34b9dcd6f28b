"""What the spec implies about its programs: the sketch's operations, rotation amounts and
plaintext operands (Porcupine's instruction and rotation restriction). The lower bounds on
its programs are `bounds.py`.
"""

from __future__ import annotations

from tessel.dialects.hev.metrics import normalize_rotation
from tessel.passes.he.synth import program as P
from tessel.passes.he.synth.program import PlainSource
from tessel.passes.he.synth.sketch import SketchShape
from tessel.passes.he.synth.spec import ADD, CONST, INPUT, MUL, NEG, SHIFT, SUB, SUM, Spec


def sketch_shape(spec: Spec, width: int = 4) -> SketchShape:
    """Operations, rotations and plaintext operands allowed by the spec."""
    ops: list[str] = []

    def allow(*names: str) -> None:
        for n in names:
            if n not in ops:
                ops.append(n)

    plain: list[PlainSource] = []

    def plain_source(node: int) -> None:
        n = spec.nodes[node]
        src = PlainSource("input", n.value) if n.kind == INPUT else PlainSource("const", n.value % spec.plain_modulus)
        if src not in plain:
            plain.append(src)

    for i in spec.live_nodes():
        n = spec.nodes[i]
        if n.kind in (INPUT, CONST, SHIFT):
            continue
        if n.kind == SUM:
            allow(P.ADD)
            continue
        if n.kind == NEG:
            allow(P.SUB, P.NEGATE)
            continue
        public = [spec.is_public(a) for a in n.args]
        if not any(public):
            allow({ADD: P.ADD, SUB: P.SUB, MUL: P.MUL}[n.kind])
            continue
        for a, pub in zip(n.args, public, strict=True):
            if pub:
                plain_source(a)
        if n.kind == MUL:
            allow(P.MUL_PLAIN)
        elif n.kind == ADD:
            allow(P.ADD_PLAIN)
        else:  # x - p is sub_plain; p - x is negate + add_plain
            allow(P.SUB_PLAIN if public[1] else P.NEGATE, P.ADD_PLAIN if public[0] else P.SUB_PLAIN)
    order = [o for o in P.ALL_OPS if o in ops]
    return SketchShape(tuple(order), rotation_candidates(spec), tuple(plain), width)


def rotation_candidates(spec: Spec) -> tuple[int, ...]:
    """0 first, then the amounts a program may rotate by:

    - image inputs: each offset the spec reads splits into rows and columns (dy*W + dx);
      every combination a*W + b of a row step and a column step that occurs (Sobel's
      separable form rotates by W and by 1 although the spec reads W+1, W-1, ...);
    - other inputs: the offsets read and their differences;
    - reductions (hev.spec.sum): the powers of two below n (a log-tree).
    """
    n = spec.slots
    offsets = [o for o in spec.shift_offsets()]
    images = {image for i in spec.secret_inputs if (image := spec.inputs[i].image) is not None}
    amounts: set[int] = set()
    if images and offsets:
        (height, width), *_ = sorted(images)
        rows, cols = {0}, {0}
        for o in offsets:
            dx = (o + width // 2) % width - width // 2
            rows.add((o - dx) // width)
            cols.add(dx)
        amounts |= {a * width + b for a in rows for b in cols}
    else:
        points = set(offsets) | {0}
        amounts |= {a - b for a in points for b in points}
    if any(spec.nodes[i].kind == SUM for i in spec.live_nodes()):
        k = 1
        while k < n:
            amounts.add(k)
            k *= 2
    normalized = sorted({normalize_rotation(a, n) for a in amounts} - {0}, key=lambda r: (abs(r), -r))
    return (0, *normalized)
