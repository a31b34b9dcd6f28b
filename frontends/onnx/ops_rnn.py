"""The recurrent layers RNN, GRU and LSTM, unrolled over their static sequence into tg ops.

Per direction, the input projection of every step is one matmul (X @ W^T + biases over all
time steps at once, as cuDNN does); each step then adds its recurrent matmul H @ R^T and
applies the gates with element-wise ops, which fusion gathers into a few kernels per step.
ONNX's equations (gate orders: LSTM i, o, f, c with peepholes i, o, f; GRU z, r, h):

    RNN   H = f(x W^T + H R^T + Wb + Rb)
    GRU   z = f(x Wz^T + H Rz^T + Wbz + Rbz), r likewise,
          h = g(x Wh^T + (r * H) Rh^T + Rbh + Wbh)        (linear_before_reset = 0)
          h = g(x Wh^T + r * (H Rh^T + Rbh) + Wbh)          (linear_before_reset = 1)
          H = (1 - z) * h + z * H
    LSTM  i = f(x Wi^T + H Ri^T + Pi * C + Wbi + Rbi), f likewise with Pf (or 1 - i when
          input_forget), c = g(x Wc^T + H Rc^T + Wbc + Rbc), C = f * C + i * c,
          o = f(x Wo^T + H Ro^T + Po * C + Wbo + Rbo), H = o * h(C)

`clip` bounds the gates' inputs (every activation's but an LSTM's h, as onnxruntime does). sequence_lens must be known at compile time (the
unrolled graph depends on it): a row past its length keeps its state and outputs zeros,
a reverse direction starts at each row's last valid step, and a row of length 0 ends with
zero states (as onnxruntime; ONNX's reference ignores sequence_lens).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import int_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_activation import Builder
from tessel.frontends.onnx.ops_math import scalar_attr
from tessel.ir import dtypes

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
DEFAULT_ACTIVATIONS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
# ONNX's defaults of the parameters each activation takes (alpha, then beta)
PARAMETERS: dict[str, tuple[float, ...]] = {
    "Affine": (1.0, 0.0),
    "LeakyRelu": (0.01,),
    "ThresholdedRelu": (1.0,),
    "ScaledTanh": (1.0, 1.0),
    "HardSigmoid": (0.2, 0.5),
    "Elu": (1.0,),
}
Activation = Callable[[SSAValue], SSAValue]


class Cell(Builder):
    """Arithmetic of one recurrent node: the activation functions and slicing helpers."""

    def __init__(self, ctx: NodeContext):
        super().__init__(ctx)
        self.clip = ctx.attr("clip")

    def activation(self, name: str, params: Sequence[float], clipped: bool = True) -> Activation:
        ops: dict[str, Callable[[SSAValue], SSAValue]] = {
            "Sigmoid": lambda x: self.op(tg.SigmoidOp, x),
            "Tanh": lambda x: self.op(tg.TanhOp, x),
            "Relu": lambda x: self.op(tg.ReluOp, x),
            "Affine": lambda x: self.add(self.scale(params[0], x), self.const(params[1])),
            "LeakyRelu": lambda x: self.add(self.positive(x), self.scale(params[0], self.negative(x))),
            "ThresholdedRelu": lambda x: self.op(
                tg.WhereOp, self.op(tg.GreaterOp, x, self.const(params[0])), x, self.const(0)
            ),
            "ScaledTanh": lambda x: self.scale(params[0], self.op(tg.TanhOp, self.scale(params[1], x))),
            "HardSigmoid": lambda x: self.clip01(self.add(self.scale(params[0], x), self.const(params[1]))),
            "Elu": lambda x: self.add(self.positive(x), self.scale(params[0], self.op(tg.Expm1Op, self.negative(x)))),
            "Softsign": lambda x: self.op(tg.DivOp, x, self.add(self.const(1), self.op(tg.AbsOp, x))),
            "Softplus": self.softplus,
        }
        fn = ops[name]
        if self.clip is None or not clipped:
            return fn
        bound = float(self.clip)
        et = self.type.element_type
        props = {"min": scalar_attr(-bound, et), "max": scalar_attr(bound, et)}
        return lambda x: fn(self.ctx.value(tg.ClipOp, [x], props))

    def slice(self, x: SSAValue, axis: int, start: int, size: int) -> SSAValue:
        t = x.type
        assert isinstance(t, TensorType)
        shape = list(t.get_shape())
        if start == 0 and size == shape[axis]:
            return x
        shape[axis] = size
        starts = [start if d == axis else 0 for d in range(len(shape))]
        props: dict[str, Attribute] = {"starts": ints_attr(starts), "steps": ints_attr([1] * len(shape))}
        return self.ctx.value(tg.SliceOp, [x], props, result_types=[TensorType(t.element_type, shape)])

    def matmul_t(self, x: SSAValue, w: SSAValue) -> SSAValue:
        """x @ w^T."""
        return self.op(tg.MatmulOp, x, self.ctx.value(tg.TransposeOp, [w], {"perm": ints_attr([1, 0])}))

    def concat(self, values: Sequence[SSAValue], axis: int) -> SSAValue:
        return values[0] if len(values) == 1 else self.ctx.value(tg.ConcatOp, list(values), {"axis": int_attr(axis)})

    def where(self, mask: np.ndarray, a: SSAValue, b: SSAValue) -> SSAValue:
        """a where the (constant) mask holds, b elsewhere; no select when it is uniform."""
        if mask.all():
            return a
        if not mask.any():
            return b
        return self.op(tg.WhereOp, self.ctx.constant(mask), a, b)


@dataclass
class Weights:
    """One direction's parameters, 2-D: W (G*H, I), R (G*H, H), biases (G*H,) each."""

    w: SSAValue
    r: SSAValue
    wb: SSAValue | None
    rb: SSAValue | None
    peephole: SSAValue | None
    h0: SSAValue | None
    c0: SSAValue | None


def _direction(cell: Cell, ctx: NodeContext, d: int, gates: int, hidden: int, layout: int) -> Weights:
    def part(i: int, lo: int = 0, size: int | None = None) -> SSAValue | None:
        x = ctx.optional_input(i)
        if x is None:
            return None
        shape = tg.tensor_of(x).get_shape()
        if i in (5, 6) and layout:  # initial_h/c as (batch, directions, hidden)
            x = cell.slice(x, 1, d, 1)
            return cell.ctx.reshape(x, [shape[0], shape[2]])
        x = cell.slice(x, 0, d, 1)
        x = cell.ctx.reshape(x, list(shape[1:]))
        return x if size is None else cell.slice(x, len(shape) - 2, lo, size)

    n = gates * hidden
    return Weights(
        w=part(1),  # type: ignore[arg-type]
        r=part(2),  # type: ignore[arg-type]
        wb=part(3, 0, n),
        rb=part(3, n, n),
        peephole=part(7) if ctx.node.op_type == "LSTM" else None,
        h0=part(5),
        c0=part(6) if ctx.node.op_type == "LSTM" else None,
    )


def _bias(cell: Cell, x: SSAValue, bias: SSAValue | None) -> SSAValue:
    return x if bias is None else cell.add(x, bias)


@converter("RNN", "GRU", "LSTM", static=(4,))
def convert_recurrent(ctx: NodeContext) -> list[SSAValue | None]:
    kind = ctx.node.op_type
    gates = GATES[kind]
    x_type = ctx.type(0)
    if not dtypes.is_float(x_type.element_type):
        ctx.fail(f"X must be a float tensor, got {x_type.element_type}")
    layout = ctx.attr("layout", 0)
    if layout not in (0, 1):
        ctx.fail(f"layout={layout} must be 0 or 1")
    direction = ctx.attr("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        ctx.fail(f"direction={direction!r} must be forward, reverse or bidirectional")
    directions = 2 if direction == "bidirectional" else 1
    x = ctx.input(0)
    if len(ctx.shape(0)) != 3:
        ctx.fail(f"X must be 3-D, got shape {list(ctx.shape(0))}")
    if layout:
        x = ctx.value(tg.TransposeOp, [x], {"perm": ints_attr([1, 0, 2])})
    steps, batch, features = tg.tensor_of(x).get_shape()
    hidden = ctx.attr("hidden_size", ctx.shape(2)[-1])
    expected = {1: (directions, gates * hidden, features), 2: (directions, gates * hidden, hidden)}
    for i, shape in expected.items():
        if ctx.shape(i) != shape:
            ctx.fail(f"input #{i} must have shape {list(shape)}, got {list(ctx.shape(i))}")
    if ctx.has_input(3) and ctx.shape(3) != (directions, 2 * gates * hidden):
        ctx.fail(f"B must have shape {[directions, 2 * gates * hidden]}, got {list(ctx.shape(3))}")
    lengths = ctx.const_ints(4, "sequence_lens")
    lengths = [steps] * batch if lengths is None else lengths
    if len(lengths) != batch or any(not 0 <= n <= steps for n in lengths):
        ctx.fail(f"sequence_lens {lengths} must hold {batch} lengths in [0, {steps}]")

    cell = Cell(ctx)
    names = list(ctx.attr("activations") or DEFAULT_ACTIVATIONS[kind] * directions)
    per_direction = len(DEFAULT_ACTIVATIONS[kind])
    if len(names) != per_direction * directions:
        ctx.fail(f"activations {names} must name {per_direction} function(s) per direction")
    alphas = list(ctx.attr("activation_alpha") or [])
    betas = list(ctx.attr("activation_beta") or [])
    functions: list[Activation] = []
    for index, name in enumerate(names):
        if name not in PARAMETERS and name not in ("Sigmoid", "Tanh", "Relu", "Softsign", "Softplus"):
            ctx.fail(f"activation {name!r} is not supported")
        defaults = PARAMETERS.get(name, ())
        params = [alphas.pop(0) if alphas else defaults[0]] if defaults else []
        if len(defaults) == 2:
            params.append(betas.pop(0) if betas else defaults[1])
        # an LSTM's h (the output's tanh of C) is not clipped, as in onnxruntime
        clipped = not (kind == "LSTM" and index % per_direction == 2)
        functions.append(cell.activation(name, params, clipped))
    if kind == "LSTM" and ctx.has_input(7) and ctx.shape(7) != (directions, 3 * hidden):
        ctx.fail(f"P must have shape {[directions, 3 * hidden]}, got {list(ctx.shape(7))}")

    flat = ctx.reshape(x, [steps * batch, features])
    ys, hs, cs = [], [], []
    for d in range(directions):
        reverse = direction == "reverse" or d == 1
        weights = _direction(cell, ctx, d, gates, hidden, layout)
        acts = functions[d * per_direction : (d + 1) * per_direction]
        projected = ctx.reshape(cell.matmul_t(flat, weights.w), [steps * batch, gates * hidden])
        y, h, c = _unroll(cell, kind, projected, weights, acts, steps, batch, hidden, lengths, reverse)
        ys.append(y)
        hs.append(h)
        cs.append(c)

    def stacked(values: list[SSAValue], shape: list[int], axis: int) -> SSAValue:
        return cell.concat([ctx.reshape(v, shape) for v in values], axis)

    y = stacked(ys, [steps, 1, batch, hidden], 1)  # (steps, directions, batch, hidden)
    y_h = stacked(hs, [1, batch, hidden], 0)
    y_c = stacked(cs, [1, batch, hidden], 0) if kind == "LSTM" else None
    if layout:
        y = ctx.value(tg.TransposeOp, [y], {"perm": ints_attr([2, 0, 1, 3])})
        y_h = ctx.value(tg.TransposeOp, [y_h], {"perm": ints_attr([1, 0, 2])})
        if y_c is not None:
            y_c = ctx.value(tg.TransposeOp, [y_c], {"perm": ints_attr([1, 0, 2])})
    return [y, y_h, y_c]


def _unroll(
    cell: Cell,
    kind: str,
    projected: SSAValue,
    weights: Weights,
    acts: list[Activation],
    steps: int,
    batch: int,
    hidden: int,
    lengths: Sequence[int],
    reverse: bool,
) -> tuple[SSAValue, SSAValue, SSAValue]:
    """One direction: Y (steps * batch, hidden) in time order, the last H and C."""
    ctx = cell.ctx
    zeros = ctx.constant(np.zeros((batch, hidden), dtype=dtypes.to_numpy(cell.type.element_type)))
    h = weights.h0 if weights.h0 is not None else zeros
    c = weights.c0 if weights.c0 is not None else zeros
    full = all(n == steps for n in lengths)
    outputs: list[SSAValue | None] = [None] * steps
    gate_size = hidden
    for s in range(steps):
        # the time each row reads at step s, and whether that row is still inside its sequence
        times = [(n - 1 - s if s < n else s) if reverse else s for n in lengths]
        if full:
            times = [steps - 1 - s if reverse else s] * batch
        alive = np.array([[s < n] for n in lengths])
        x_t = _rows(cell, projected, times, batch)
        if weights.wb is not None:
            x_t = cell.add(x_t, weights.wb)
        new_h, new_c = _step(cell, kind, x_t, h, c, weights, acts, gate_size)
        h_out = cell.where(alive, new_h, h)
        if kind == "LSTM":
            c = cell.where(alive, new_c, c)
        h = h_out
        step_y = cell.where(alive, new_h, zeros)
        if full:
            outputs[times[0]] = step_y
        else:
            outputs[s] = step_y
    empty = np.array([[n > 0] for n in lengths])  # a row without steps ends with zero state (onnxruntime)
    h = cell.where(empty, h, zeros)
    if kind == "LSTM":
        c = cell.where(empty, c, zeros)
    if not full and reverse:
        # row b's step s belongs to time n_b - 1 - s: gather the steps back into time order
        stacked = cell.concat([ctx.reshape(o, [1, batch, hidden]) for o in outputs if o is not None], 0)
        flat = ctx.reshape(stacked, [steps * batch, hidden])
        index = [((n - 1 - t) if t < n else t) * batch + b for t in range(steps) for b, n in enumerate(lengths)]
        y = ctx.value(tg.GatherOp, [flat, ctx.constant(np.asarray(index, np.int64))], {"axis": int_attr(0)})
    else:
        y = cell.concat([ctx.reshape(o, [1, batch, hidden]) for o in outputs if o is not None], 0)
    return y, h, c


def _rows(cell: Cell, projected: SSAValue, times: Sequence[int], batch: int) -> SSAValue:
    """Row b of the result is row times[b] * batch + b of the projected inputs."""
    if len(set(times)) == 1:
        return cell.slice(projected, 0, times[0] * batch, batch)
    index = np.asarray([t * batch + b for b, t in enumerate(times)], np.int64)
    return cell.ctx.value(tg.GatherOp, [projected, cell.ctx.constant(index)], {"axis": int_attr(0)})


def _step(
    cell: Cell,
    kind: str,
    x_t: SSAValue,
    h: SSAValue,
    c: SSAValue,
    weights: Weights,
    acts: list[Activation],
    hidden: int,
) -> tuple[SSAValue, SSAValue]:
    """One step: the new H and (LSTM) C from the projected input x_t (batch, G * hidden)."""
    r, rb = weights.r, weights.rb

    def gate(value: SSAValue, i: int) -> SSAValue:
        return cell.slice(value, 1, i * hidden, hidden)

    if kind == "RNN":
        (f,) = acts
        return f(_bias(cell, cell.add(x_t, cell.matmul_t(h, r)), rb)), c
    if kind == "GRU":
        f, g = acts
        zr_r = cell.slice(r, 0, 0, 2 * hidden)
        recurrent = _bias(cell, cell.matmul_t(h, zr_r), None if rb is None else cell.slice(rb, 0, 0, 2 * hidden))
        zr = cell.add(cell.slice(x_t, 1, 0, 2 * hidden), recurrent)
        z, reset = f(gate(zr, 0)), f(gate(zr, 1))
        r_h = cell.slice(r, 0, 2 * hidden, hidden)
        rb_h = None if rb is None else cell.slice(rb, 0, 2 * hidden, hidden)
        if cell.ctx.attr("linear_before_reset", 0):
            inner = cell.mul(reset, _bias(cell, cell.matmul_t(h, r_h), rb_h))
        else:
            inner = _bias(cell, cell.matmul_t(cell.mul(reset, h), r_h), rb_h)
        candidate = g(cell.add(gate(x_t, 2), inner))
        keep = cell.mul(z, h)
        return cell.add(cell.mul(cell.sub(cell.const(1), z), candidate), keep), c
    f, g, hf = acts
    gates_v = _bias(cell, cell.add(x_t, cell.matmul_t(h, r)), rb)
    p = weights.peephole

    def peep(value: SSAValue, i: int, state: SSAValue) -> SSAValue:
        return value if p is None else cell.add(value, cell.mul(cell.slice(p, 0, i * hidden, hidden), state))

    i_g = f(peep(gate(gates_v, 0), 0, c))
    if cell.ctx.attr("input_forget", 0):
        f_g = cell.sub(cell.const(1), i_g)
    else:
        f_g = f(peep(gate(gates_v, 2), 2, c))
    c_new = cell.add(cell.mul(f_g, c), cell.mul(i_g, g(gate(gates_v, 3))))
    o_g = f(peep(gate(gates_v, 1), 1, c_new))
    return cell.mul(o_g, hf(c_new)), c_new
