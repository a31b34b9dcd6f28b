"""kernel-simplify-indices: the index maps of every kernel.compute simplified over its domain.

    kernel.compute "g" %out(i0 = 1, i1 = 6, i2 = 197, i3 = 64) ... {
      %v = kernel.load %x[...] : affine_map<(d0, d1, d2, d3) -> ((((d3 + d2 * 64 + d1 * 12608) floordiv 64) mod 197), ...)>
    ==>
      %v = kernel.load %x[...] : affine_map<(d0, d1, d2, d3) -> (d2, ...)>

tg-to-kernel composes the index maps of data movement (reshape, transpose, flatten, the
blocked layouts) as written, and a chain of them leaves floordiv / mod towers that the
ranges of the compute's own axes decide (loops/affine_simplify.py has the rule). Simplified,
an access the loop builder saw as a per-lane gather is a contiguous vector load: the
attention's head split and ShuffleNet's channel shuffle are data movement at memory speed
instead of a division chain per element. The maps of `affine.load`, `kernel.load` and
`affine.apply` are simplified where their operands are the compute's axes (an operand that
is not one is left unknown); every value of every map is unchanged on the domain.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, builtin
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import kernel
from tessel.passes.kernel.loops.affine_analysis import Range
from tessel.passes.kernel.loops.affine_simplify import simplify_map


def _simplify(op: Operation, operands: tuple[SSAValue, ...], axes: dict[SSAValue, Range]) -> None:
    attr = op.properties.get("map")
    if not isinstance(attr, AffineMapAttr):
        return
    m = attr.data
    ranges = [axes.get(v) for v in operands[: m.num_dims]]
    simplified = simplify_map(m, ranges)
    if simplified != m:
        op.properties["map"] = AffineMapAttr(simplified)


@dataclass(frozen=True)
class KernelSimplifyIndices(ModulePass):
    name = "kernel-simplify-indices"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for compute in op.walk():
            if not isinstance(compute, kernel.ComputeOp):
                continue
            args = compute.body.block.args
            axes: dict[SSAValue, Range] = {a: (0, n - 1) for a, n in zip(args, compute.domain, strict=True)}
            for inner in compute.body.walk():
                if isinstance(inner, affine.LoadOp | kernel.LoadOp):
                    _simplify(inner, tuple(inner.indices), axes)
                elif isinstance(inner, affine.ApplyOp):
                    _simplify(inner, tuple(inner.mapOperands), axes)
