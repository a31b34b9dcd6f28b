"""Converters for ONNX control flow: If, Loop and Scan, resolved at import.

Tessel compiles static graphs, so control flow becomes straight-line tg ops here, which
every target then runs (the graph passes fuse what the unrolling lays side by side):

- If with a condition known at compile time is its taken branch; with a run-time
  condition both branches are computed and `tg.where` picks, which needs the branches to
  give the same types (ONNX's ops have no side effects, so computing the untaken branch
  changes nothing but time).
- Loop is unrolled: its trip count and initial condition are compile-time constants (they
  fix the shape of the scan outputs), and so must be each iteration's condition output
  (usually it passes the input through; a condition computed from data cannot be
  unrolled and is refused in one line naming the node).
- Scan is unrolled over its scan axis, whose length the input's static shape gives.

A subgraph is imported in a scope that sees the enclosing graph's values by name, with
the importer's own node conversion (constant folding included), so a body's shape
arithmetic on the iteration number folds at each iteration.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, ints_attr
from tessel.frontends.onnx.context import GraphState, NodeContext, constant_value, converter

# Unrolling beyond this many body nodes in total is refused (the IR would not fit).
MAX_UNROLLED_NODES = 100_000


def import_subgraph(ctx: NodeContext, attribute: str, inputs: Sequence[SSAValue]) -> list[SSAValue]:
    """Import the graph attribute `attribute` of the node with its formal inputs bound to
    `inputs`; its outputs, as tg values in the enclosing block."""
    graph = ctx.attrs.get(attribute)
    if graph is None or graph.type != onnx.AttributeProto.GRAPH:
        ctx.fail(f"attribute {attribute} (a graph) is required")
    body = graph.g
    if len(body.input) != len(inputs):
        ctx.fail(f"the {attribute} graph takes {len(body.input)} inputs, the node gives it {len(inputs)}")
    parent = ctx.state
    convert = parent.convert_node
    assert convert is not None, "the importer sets GraphState.convert_node"
    state = GraphState(parent.block, dict(parent.values), parent.known, parent.weights, convert)
    state.values.update((vi.name, v) for vi, v in zip(body.input, inputs))
    where = f"{ctx.where}, {attribute}"
    for tensor in body.initializer:
        state.values[tensor.name] = constant_value(state, numpy_helper.to_array(tensor), tensor.name, where)
    for index, node in enumerate(body.node):
        convert(state, node, index, ctx.opset, where)
    missing = [vi.name for vi in body.output if vi.name not in state.values]
    if missing:
        ctx.fail(f"the {attribute} graph's output '{missing[0]}' is not produced by any node")
    return [state.values[vi.name] for vi in body.output]


def _type(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


def _truth(ctx: NodeContext, value: np.ndarray, what: str) -> bool:
    if value.size != 1:
        ctx.fail(f"{what} must hold one value, got shape {list(value.shape)}")
    return bool(value.reshape(-1)[0])


# --------------------------------------------------------------------------- If


@converter("If")
def convert_if(ctx: NodeContext) -> list[SSAValue]:
    cond = ctx.input(0)
    if (known := ctx.state.known.get(cond)) is not None:
        return import_subgraph(ctx, "then_branch" if _truth(ctx, known, "cond") else "else_branch", [])
    then = import_subgraph(ctx, "then_branch", [])
    other = import_subgraph(ctx, "else_branch", [])
    if len(then) != len(other):
        ctx.fail(f"the branches give {len(then)} and {len(other)} outputs")
    if _type(cond).get_shape() not in ((), (1,)):
        ctx.fail(f"cond must hold one value, got {_type(cond)}")
    flag = ctx.reshape(cond, ())
    outputs = []
    for i, (a, b) in enumerate(zip(then, other)):
        if _type(a) != _type(b):
            ctx.fail(
                f"output #{i} is {_type(a)} in then_branch and {_type(b)} in else_branch, so its type "
                "depends on the run-time condition: make cond a compile-time constant (--bind)"
            )
        outputs.append(a if a is b else ctx.value(tg.WhereOp, [flag, a, b]))
    return outputs


# --------------------------------------------------------------------------- Loop and Scan


def stack(ctx: NodeContext, values: Sequence[SSAValue], axis: int) -> SSAValue:
    """The values (of one shape) stacked along a new axis `axis`."""
    t = _type(values[0])
    shape = list(t.get_shape())
    if not -len(shape) - 1 <= axis <= len(shape):
        ctx.fail(f"axis {axis} is out of range to stack tensors of rank {len(shape)}")
    axis %= len(shape) + 1
    pieces = [ctx.reshape(v, [*shape[:axis], 1, *shape[axis:]]) for v in values]
    if len(pieces) == 1:
        return pieces[0]
    return ctx.value(tg.ConcatOp, pieces, {"axis": int_attr(axis)})


def _empty_stack(ctx: NodeContext, body: onnx.GraphProto, index: int, axis: int) -> SSAValue:
    """A scan output of zero iterations, shaped from the body's declared output type."""
    vi = body.output[index]
    tt = vi.type.tensor_type
    dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim] if tt.HasField("shape") else None
    if dims is None or min(dims, default=0) < 0:
        ctx.fail(f"the loop runs no iteration and the body does not declare the shape of its output '{vi.name}'")
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
    axis %= len(dims) + 1
    return ctx.constant(np.zeros([*dims[:axis], 0, *dims[axis:]], dtype))


def _budget(ctx: NodeContext, iterations: int, body_nodes: int) -> None:
    if iterations * max(body_nodes, 1) > MAX_UNROLLED_NODES:
        ctx.fail(f"unrolling {iterations} iterations of a {body_nodes}-node body exceeds {MAX_UNROLLED_NODES} nodes")


@converter("Loop", static=(0, 1))
def convert_loop(ctx: NodeContext) -> list[SSAValue]:
    body = ctx.attrs["body"].g if "body" in ctx.attrs else None
    if body is None:
        ctx.fail("attribute body (a graph) is required")
    trips: int | None = None
    if ctx.has_input(0):
        if (m := ctx.state.known.get(ctx.input(0))) is None:
            ctx.fail(
                "the trip count M is computed at run time; Tessel unrolls Loop at compile time, so it "
                "must be a compile-time constant (an initializer, a Constant, or an input bound with --bind)"
            )
        trips = int(m.reshape(-1)[0])
    going = True
    if ctx.has_input(1):
        if (c := ctx.state.known.get(ctx.input(1))) is None:
            ctx.fail(
                "the initial condition is computed at run time; it must be a compile-time constant to unroll the loop"
            )
        going = _truth(ctx, c, "cond")
    if trips is None and not ctx.has_input(1):
        ctx.fail("a loop without trip count and condition never ends")
    carried = [ctx.input(i) for i in range(2, ctx.num_inputs)]
    scans: list[list[SSAValue]] = [[] for _ in range(len(body.output) - 1 - len(carried))]
    if trips is not None:
        _budget(ctx, trips, len(body.node))
    iteration = 0
    while going and (trips is None or iteration < trips):
        _budget(ctx, iteration + 1, len(body.node))
        step = ctx.constant(np.asarray(iteration, np.int64), hint=f"{ctx.node.name or 'loop'}.iteration")
        flag = ctx.constant(np.asarray(going), hint=f"{ctx.node.name or 'loop'}.cond")
        outs = import_subgraph(ctx, "body", [step, flag, *carried])
        if (c := ctx.state.known.get(outs[0])) is None:
            ctx.fail(
                "the body's condition output is computed from run-time values, so the number of "
                "iterations is not known at compile time and the loop cannot be unrolled"
            )
        going = _truth(ctx, c, "the body's condition output")
        carried = outs[1 : 1 + len(carried)]
        for k, v in enumerate(outs[1 + len(carried) :]):
            scans[k].append(v)
        iteration += 1
    finals: list[SSAValue] = list(carried)
    for k, values in enumerate(scans):
        finals.append(stack(ctx, values, 0) if values else _empty_stack(ctx, body, 1 + len(carried) + k, 0))
    return finals


def _axes(ctx: NodeContext, name: str, count: int, ranks: Sequence[int]) -> list[int]:
    values = list(ctx.attr(name, [0] * count))
    if len(values) != count:
        ctx.fail(f"{name} has {len(values)} entries, expected {count}")
    out = []
    for a, rank in zip(values, ranks):
        if not -rank <= a < rank:
            ctx.fail(f"{name} entry {a} is out of range for rank {rank}")
        out.append(a % rank)
    return out


def _take(ctx: NodeContext, x: SSAValue, axis: int, index: int) -> SSAValue:
    """x[..., index, ...] along `axis`, the axis removed."""
    t = _type(x)
    shape = list(t.get_shape())
    starts = [index if d == axis else 0 for d in range(len(shape))]
    sliced = [1 if d == axis else n for d, n in enumerate(shape)]
    props: dict[str, Attribute] = {"starts": ints_attr(starts), "steps": ints_attr([1] * len(shape))}
    piece = ctx.value(tg.SliceOp, [x], props, result_types=[TensorType(t.element_type, sliced)])
    return ctx.reshape(piece, shape[:axis] + shape[axis + 1 :])


@converter("Scan")
def convert_scan(ctx: NodeContext) -> list[SSAValue]:
    body = ctx.attrs["body"].g if "body" in ctx.attrs else None
    if body is None:
        ctx.fail("attribute body (a graph) is required")
    scan_count = ctx.attr("num_scan_inputs")
    if scan_count is None or not 0 < scan_count <= ctx.num_inputs:
        ctx.fail(f"num_scan_inputs={scan_count} must be in [1, {ctx.num_inputs}]")
    state_count = ctx.num_inputs - scan_count
    states = [ctx.input(i) for i in range(state_count)]
    xs = [ctx.input(i) for i in range(state_count, ctx.num_inputs)]
    in_axes = _axes(ctx, "scan_input_axes", scan_count, [len(_type(x).get_shape()) for x in xs])
    in_reverse = list(ctx.attr("scan_input_directions", [0] * scan_count))
    lengths = {_type(x).get_shape()[a] for x, a in zip(xs, in_axes)}
    if len(lengths) != 1:
        ctx.fail(f"the scan inputs differ in length along their scan axes: {sorted(lengths)}")
    (length,) = lengths
    _budget(ctx, length, len(body.node))
    outputs: list[list[SSAValue]] = [[] for _ in range(len(body.output) - state_count)]
    for t in range(length):
        slices = [_take(ctx, x, a, length - 1 - t if r else t) for x, a, r in zip(xs, in_axes, in_reverse)]
        outs = import_subgraph(ctx, "body", [*states, *slices])
        states = outs[:state_count]
        for k, v in enumerate(outs[state_count:]):
            outputs[k].append(v)
    out_count = len(outputs)
    element_ranks = [len(_type(values[0]).get_shape()) + 1 if values else 1 for values in outputs]
    out_axes = _axes(ctx, "scan_output_axes", out_count, element_ranks)
    out_reverse = list(ctx.attr("scan_output_directions", [0] * out_count))
    finals: list[SSAValue] = list(states)
    for k, values in enumerate(outputs):
        if not values:
            finals.append(_empty_stack(ctx, body, state_count + k, out_axes[k]))
            continue
        finals.append(stack(ctx, values[::-1] if out_reverse[k] else values, out_axes[k]))
    return finals
