"""img-fuse and img-line-buffers keep the meaning: the reference runs the IR before and after
on random images and must agree exactly; and what they decide, on the examples."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

from tessel.dialects.context import make_context
from tessel.dialects.img.plan import COMPUTE_ATTR
from tessel.dialects.img.reference import run as reference
from tessel.frontends.img_examples import NAMES, pipeline_text
from tessel.ir.source import parse_module, verify
from tessel.passes.img.line_buffers import report
from tessel.passes.img.plan.rows import build_plan
from tessel.pipelines.img import entry_function, optimize
from tessel.pipelines.img import random_inputs as _random

CHAINS = """func.func @f(%x: !img.frame<20x30x1xui8>) -> !img.frame<20x30x1xui8> {
  %a = img.map %x : (!img.frame<20x30x1xui8>) -> !img.frame<20x30x1xui8> {
  ^bb0(%p: i8):
    %c = arith.constant 3 : i8
    %r = arith.muli %p, %c : i8
    img.yield %r : i8
  }
  %b = img.map %a : (!img.frame<20x30x1xui8>) -> !img.frame<20x30x1xui8> {
  ^bb0(%p: i8):
    %c = arith.constant 7 : i8
    %r = arith.addi %p, %c : i8
    img.yield %r : i8
  }
  %s = img.stencil %b window [3, 3] border BORDER : (!img.frame<20x30x1xui8>) -> !img.frame<20x30x1xui8> {
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %r = arith.maxui %p0, %p8 : i8
    %q = arith.subi %r, %p4 : i8
    img.yield %q : i8
  }
  %m = img.map %s : (!img.frame<20x30x1xui8>) -> !img.frame<20x30x1xui8> {
  ^bb0(%p: i8):
    %c = arith.constant 1 : i8
    %r = arith.shrui %p, %c : i8
    img.yield %r : i8
  }
  func.return %m : !img.frame<20x30x1xui8>
}"""


def _same_after(text: str) -> func.FuncOp:
    ctx = make_context()
    module = parse_module(ctx, text, "t")
    verify(module)
    before = entry_function(module).clone()
    optimize(ctx, module)
    verify(module)
    after = entry_function(module)
    for seed in range(3):
        ins = _random(before, seed)
        for x, y in zip(reference(before, ins), reference(after, ins)):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    return after


@pytest.mark.parametrize("border", ["clamp", "mirror", "zero"])
def test_chains_fuse_exactly(border: str) -> None:
    after = _same_after(CHAINS.replace("BORDER", border))
    kinds = [op.name for op in after.body.block.ops][:-1]
    # the two maps merge, the last map joins the stencil; the merged map (2 ops x 8 extra
    # window pixels) is too dear to apply per window pixel, and never under a zero border
    assert kinds == ["img.map", "img.stencil"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("t", ["u8", "f32"])
def test_examples_keep_their_meaning(name: str, t: str) -> None:
    _same_after(pipeline_text(name, t, 16, 24))


def test_schedule_choices_on_the_examples() -> None:
    def schedule(name: str) -> dict[str, str]:
        ctx = make_context()
        module = parse_module(ctx, pipeline_text(name, "u8", 16, 24), name)
        optimize(ctx, module)
        fn = entry_function(module)
        return {
            op.results[0].name_hint: op.attributes[COMPUTE_ATTR].data
            for op in fn.walk()
            if COMPUTE_ATTR in op.attributes
        }

    assert schedule("gauss_sep") == {"y_h": "line_buffer"}  # read at 3 rows: buffered
    assert schedule("sobel") == {"gx": "inline", "gy": "inline"}  # read once each, point-wise
    assert schedule("unsharp") == {"blur_h": "line_buffer", "blur": "inline"}
    isp = schedule("isp_lite")
    assert {isp[f"{c}_lin"] for c in "rgb"} == {"line_buffer"} and {isp[f"{c}_dn"] for c in "rgb"} == {"line_buffer"}


def test_line_buffer_sizes_against_the_analytic_minimum() -> None:
    """Separable u8 at 1080p: ring of 3 u16 rows; minimum 2 rows + 1 pixel (Darkroom)."""
    ctx = make_context()
    module = parse_module(ctx, pipeline_text("gauss_sep", "u8", 1080, 1920), "g")
    optimize(ctx, module)
    r = report(build_plan(entry_function(module)))
    assert [(b.rows, b.cpu_bytes, b.min_bytes) for b in r.buffers] == [(3, 3 * 1920 * 2, (2 * 1920 + 1) * 2)]
    assert r.dram_avoided == 1080 * 1920 * 2 * 2  # the u16 frame: written once, read once
    attrs = [
        op.attributes["img.line_buffer"] for op in entry_function(module).walk() if "img.line_buffer" in op.attributes
    ]
    assert len(attrs) == 1 and attrs[0].data["rows"].value.data == 3
