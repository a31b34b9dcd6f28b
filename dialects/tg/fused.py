"""`tg.fused`: a group of tg ops that `tg-fuse` decided to compute as one kernel.

The region is isolated from above: its block arguments are the group's inputs and
`tg.yield` returns the group's outputs (one, except for ops with several results such as
max_pool2d with indices). `kind` names the group after its ops
(`conv2d_add_relu`) for readable dumps and kernel names.

    %r = tg.fused "add_relu" (%x, %y) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> {
    ^bb0(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>):
      %s = tg.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %t = tg.relu %s : tensor<2x3xf32>
      tg.yield %t : tensor<2x3xf32>
    }
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from .base import OPAQUE

# Discardable attributes that tg-plan-memory writes and tg-to-kernel reads: the arena
# offset of a group's result (`tg.offsets` for several results, -1 where not placed), and
# on the function the arena's size and the unplanned total.
OFFSET_ATTR = "tg.offset"
OFFSETS_ATTR = "tg.offsets"
MEMORY_ATTR = "tg.memory"


@irdl_op_definition
class FusedOp(IRDLOperation):
    name = "tg.fused"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    kind = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(Pure(), IsolatedFromAbove(), OPAQUE)
    assembly_format = "$kind `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body"

    def verify_(self) -> None:
        block = self.body.block
        arg_types = [a.type for a in block.args]
        input_types = [v.type for v in self.inputs]
        if arg_types != input_types:
            raise VerifyException(f"block argument types {arg_types} differ from the input types {input_types}")
        for op in block.ops:
            if not op.name.startswith("tg.") or isinstance(op, FusedOp):
                raise VerifyException(f"may only hold tg ops, found {op.name}")
        last = block.last_op
        result_types = [r.type for r in self.results]
        if not isinstance(last, YieldOp) or [v.type for v in last.values] != result_types:
            got = (
                f"tg.yield of {', '.join(str(v.type) for v in last.values) or 'nothing'}"
                if isinstance(last, YieldOp)
                else last.name
                if last
                else "nothing"
            )
            raise VerifyException(
                f"must end in tg.yield of {', '.join(map(str, result_types))} (its results), got {got}"
            )


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "tg.yield"
    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), HasParent(FusedOp))
    assembly_format = "$values attr-dict `:` type($values)"
