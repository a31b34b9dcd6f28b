"""Random well-typed tg graphs for the fuzz tests: the graph builder of the graph-pass
tests (test/unit/passes/test_graph_passes.py), extended with the shapes the issue asks for
(diamonds, concatenations, pools with ceil mode and padding, convolutions with larger
strides, pads and dilations) and a second output now and then."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, int_attr, ints_attr

_PATH = Path(__file__).resolve().parents[1] / "unit" / "passes" / "test_graph_passes.py"


def _load():
    if "tessel_graph_pass_tests" in sys.modules:
        return sys.modules["tessel_graph_pass_tests"]
    spec = importlib.util.spec_from_file_location("tessel_graph_pass_tests", _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tessel_graph_pass_tests"] = module
    spec.loader.exec_module(module)
    return module


base = _load()
Graph, Builder, shape_of = base.Graph, base.Builder, base.shape_of
apply, assert_close, assert_bitwise_equal = base.apply, base.assert_close, base.assert_bitwise_equal


class FuzzBuilder(Builder):
    def diamond(self) -> None:
        """v feeds two branches that meet again: a value with two consumers in one group."""
        v = self.pick()
        left = self.add(self.one_of([tg.ReluOp, tg.NegOp, tg.TanhOp]).make([v]))
        right = self.add(self.one_of([tg.SigmoidOp, tg.ReluOp, tg.NegOp]).make([v]))
        self.push(self.one_of([tg.AddOp, tg.MulOp, tg.SubOp]).make([left, right]))

    def concat(self) -> None:
        v = self.pick(lambda s: len(s) >= 1)
        if v is None:
            return self.unary()
        shape = shape_of(v)
        axis = self.draw(st.integers(0, len(shape) - 1))
        others = [v]
        # mostly two or three pieces; sometimes more than tg-split-concat's fan-in of 8
        for _ in range(self.draw(st.one_of(st.integers(1, 2), st.integers(8, 20)))):
            extent = self.draw(st.integers(1, 3))
            other_shape = list(shape)
            other_shape[axis] = extent
            same = self.pick(lambda s, want=other_shape: list(s) == want)
            others.append(
                same if same is not None and self.flag() else self.param(self.rng.standard_normal(other_shape))
            )
        self.push(tg.ConcatOp.make(others, {"axis": int_attr(axis)}))

    def pool_ceil(self) -> None:
        """max/avg pooling with ceil mode, padding and strides up to the kernel."""
        x = self.image()
        _, _, h, w = shape_of(x)
        kernel = [self.draw(st.integers(1, min(3, size))) for size in (h, w)]
        strides = [self.draw(st.integers(1, k + 1)) for k in kernel]
        pads = [self.draw(st.integers(0, k // 2)) for k in kernel] * 2
        props = {
            "kernel": ints_attr(kernel),
            "strides": ints_attr(strides),
            "pads": ints_attr(pads),
            "dilations": ints_attr([1, 1]),
            "ceil_mode": bool_attr(self.flag()),
        }
        if self.flag():
            props["count_include_pad"] = bool_attr(self.flag())
            self.push(tg.AvgPool2dOp.make([x], props))
        else:
            self.push(tg.MaxPool2dOp.make([x], props))

    def wide_conv(self) -> None:
        """Strides, pads and dilations up to 3, grouped or depthwise when the channels allow."""
        x = self.image()
        kernel = [self.draw(st.integers(1, 3)) for _ in range(2)]
        op = self.conv_op(
            x,
            kernel=kernel,
            strides=[self.draw(st.integers(1, 3)) for _ in range(2)],
            pads=[self.draw(st.integers(0, 2)) for _ in range(4)],
            dilations=[self.draw(st.integers(1, 3)) for _ in range(2)],
        )
        self.epilogue(op, channels_at=1)

    STEPS = Builder.STEPS + ("diamond", "diamond", "concat", "pool_ceil", "wide_conv")


@st.composite
def graphs(draw, exp: bool = False, steps: int = 10) -> Graph:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    b = FuzzBuilder(draw, rng, exp=exp)
    b.pool.append(b.input(b.new_shape(draw(st.integers(1, 4)))))
    for _ in range(draw(st.integers(1, steps))):
        b.step()
    return b.finish()
