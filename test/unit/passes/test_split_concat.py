"""tg-split-concat against the reference semantics: wide concats of computed pieces (the
shape of an unrolled RNN's output) on every axis, through the pass alone (bit for bit) and
through the whole CPU pipeline, where tg-fuse must keep the tree's levels apart."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.passes.tg.split_concat import TgSplitConcat
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run


def _module(pieces: int, shape: list[int], axis: int) -> str:
    """x -> concat(relu(x) * k for k in 1..pieces) along `axis`."""
    t = f"tensor<{'x'.join(map(str, shape))}xf32>"
    out_shape = [n * pieces if d == axis else n for d, n in enumerate(shape)]
    out = f"tensor<{'x'.join(map(str, out_shape))}xf32>"
    lines = [f'func.func @main(%x: {t} {{tg.name = "x"}}) -> ({out} {{tg.name = "y"}}) {{', f"  %r = tg.relu %x : {t}"]
    for k in range(pieces):
        lines.append(f"  %k{k} = tg.constant dense<{k + 1}.0> : tensor<f32>")
        lines.append(f"  %p{k} = tg.mul %r, %k{k} : ({t}, tensor<f32>) -> {t}")
    names = ", ".join(f"%p{k}" for k in range(pieces))
    lines.append(f"  %y = tg.concat {names} {{axis = {axis} : i64}} : ({', '.join([t] * pieces)}) -> {out}")
    lines.append(f"  func.return %y : {out}")
    lines.append("}")
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("pieces", "shape", "axis"), [(9, [2, 3], 0), (17, [1, 2, 5], 1), (40, [3, 1, 4], 2), (64, [2, 1], 1)]
)
def test_split_concat_keeps_the_semantics(pieces: int, shape: list[int], axis: int) -> None:
    x = np.random.default_rng(pieces).standard_normal(shape).astype(np.float32)
    module = parse_module(make_context(), _module(pieces, shape, axis))
    (want,) = run(module.clone(), [x], {})
    split = module.clone()
    TgSplitConcat().apply(make_context(), split)
    widths = [len(op.operands) for op in split.walk() if op.name == "tg.concat"]
    assert max(widths) <= 8 and len(widths) > 1, widths
    (got,) = run(split, [x], {})
    np.testing.assert_array_equal(got, want)
    executable, report = compile_for_cpu(module, {}, threads=2)
    try:
        (compiled,) = executable.run([x])
    finally:
        executable.close()
    np.testing.assert_array_equal(compiled, want)
