"""Einsum as transposes, reshapes, slices, reductions and batched matmuls.

The equation is parsed into one label per dimension (an ellipsis becomes labels of its
own, right-aligned across the operands and broadcast like numpy's). Then, per operand,
a label repeated within it is its diagonal (the repeated dims moved last, flattened, and
sliced with the stride that walks the diagonal), and a label no one else needs is summed
out. Operands are then combined left to right: each pair is one tg.matmul over
(batch labels..., free labels of the left, contracted labels) x (batch labels...,
contracted labels, free labels of the right), flattened per group. What remains is summed
and transposed into the output's order.

bfloat16 operands are computed in float32 and rounded once, as ONNX's reference does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import BFloat16Type, TensorType, f32
from xdsl.ir import Attribute, SSAValue

from tessel.dialects import tg
from tessel.dialects.tg.base import bool_attr, ints_attr
from tessel.frontends.onnx.context import NodeContext, converter
from tessel.frontends.onnx.ops_math import cast

ELLIPSIS = "..."


@dataclass
class Term:
    """A value and the label of each of its dims."""

    value: SSAValue
    labels: list[str]

    @property
    def shape(self) -> tuple[int, ...]:
        return tg.tensor_of(self.value).get_shape()


def parse(ctx: NodeContext, equation: str, ranks: Sequence[int]) -> tuple[list[list[str]], list[str]]:
    """Labels of each operand and of the output; ellipsis dims get labels '0', '1', ..."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        ctx.fail(f"equation '{equation}' names {len(terms)} operands, the node has {len(ranks)}")
    ellipsis_rank = 0
    spelled: list[tuple[str, str, bool]] = []
    for term, rank in zip(terms, ranks):
        head, dots, tail = term.partition(ELLIPSIS)
        letters = head + tail
        if not all(c.isalpha() for c in letters) or ELLIPSIS in tail:
            ctx.fail(f"equation term '{term}' is not letters with at most one ellipsis")
        extra = rank - len(letters)
        if extra < 0 or (extra and not dots):
            ctx.fail(f"equation term '{term}' does not match an operand of rank {rank}")
        ellipsis_rank = max(ellipsis_rank, extra)
        spelled.append((head, tail, bool(dots)))
    dims = [str(d) for d in range(ellipsis_rank)]
    labels = []
    for (first, last, has_dots), rank in zip(spelled, ranks):
        extra = rank - len(first) - len(last)
        labels.append([*first, *(dims[ellipsis_rank - extra :] if has_dots else []), *last])
    if arrow:
        first, out_dots, last = rhs.partition(ELLIPSIS)
        if not all(c.isalpha() for c in first + last) or ELLIPSIS in last:
            ctx.fail(f"equation output '{rhs}' is not letters with at most one ellipsis")
        out = [*first, *(dims if out_dots else []), *last]
        if len(set(out)) != len(out):
            ctx.fail(f"equation output '{rhs}' repeats a label")
        known = {label for term in labels for label in term}
        if missing := [label for label in out if label not in known]:
            ctx.fail(f"output label(s) {', '.join(missing)} appear in no operand")
    else:
        counts: dict[str, int] = {}
        for term_labels in labels:
            for label in term_labels:
                if label.isalpha():
                    counts[label] = counts.get(label, 0) + 1
        out = dims + sorted(label for label, n in counts.items() if n == 1)
    return labels, out


def sizes(ctx: NodeContext, terms: Sequence[Term]) -> dict[str, int]:
    """Each label's size; ellipsis dims of size 1 broadcast, named labels must agree
    (checked here, so that the ops built later verify)."""
    size: dict[str, int] = {}
    for term in terms:
        for label, n in zip(term.labels, term.shape):
            known = size.get(label)
            if known is None or known == 1 and not label.isalpha():
                size[label] = n
            elif n != known and (label.isalpha() or n != 1):
                ctx.fail(f"label '{label}' has sizes {known} and {n}")
    return size


def transpose(ctx: NodeContext, term: Term, order: Sequence[str]) -> Term:
    perm = [term.labels.index(label) for label in order]
    if perm == list(range(len(perm))):
        return term
    return Term(ctx.value(tg.TransposeOp, [term.value], {"perm": ints_attr(perm)}), list(order))


def diagonals(ctx: NodeContext, term: Term) -> Term:
    """Repeated labels of one operand: the diagonal, each label once."""
    while repeated := [label for label in dict.fromkeys(term.labels) if term.labels.count(label) > 1]:
        label = repeated[0]
        count = term.labels.count(label)
        rest = [x for x in term.labels if x != label]
        order_dims = [i for i, x in enumerate(term.labels) if x != label] + [
            i for i, x in enumerate(term.labels) if x == label
        ]
        perm = ints_attr(order_dims)
        value = term.value
        if order_dims != list(range(len(order_dims))):
            value = ctx.value(tg.TransposeOp, [value], {"perm": perm})
        n = term.shape[term.labels.index(label)]
        lead = [term.shape[i] for i in order_dims[: len(rest)]]
        flat = ctx.reshape(value, [*lead, n**count])
        stride = sum(n**k for k in range(count))  # the step from (i, i, ...) to (i+1, i+1, ...)
        if n > 1:
            result = TensorType(tg.tensor_of(flat).element_type, [*lead, n])
            props: dict[str, Attribute] = {
                "starts": ints_attr([0] * (len(lead) + 1)),
                "steps": ints_attr([1] * len(lead) + [stride]),
            }
            flat = ctx.value(tg.SliceOp, [flat], props, result_types=[result])
        term = Term(ctx.reshape(flat, [*lead, n]), [*rest, label])
    return term


def sum_out(ctx: NodeContext, term: Term, needed: set[str]) -> Term:
    """Sum over the labels nothing later needs."""
    axes = [i for i, label in enumerate(term.labels) if label not in needed]
    if not axes:
        return term
    props: dict[str, Attribute] = {"axes": ints_attr(axes), "keepdims": bool_attr(False)}
    value = ctx.value(tg.ReduceSumOp, [term.value], props)
    return Term(value, [label for label in term.labels if label in needed])


def contract(ctx: NodeContext, a: Term, b: Term, needed: set[str]) -> Term:
    """One batched matmul of two terms over their shared labels that nothing else needs."""
    batch = [label for label in a.labels if label in b.labels and label in needed]
    summed = [label for label in a.labels if label in b.labels and label not in needed]
    free_a = [label for label in a.labels if label not in b.labels]
    free_b = [label for label in b.labels if label not in a.labels]
    a = transpose(ctx, a, batch + free_a + summed)
    b = transpose(ctx, b, batch + summed + free_b)

    def dims(term: Term, labels: Sequence[str]) -> list[int]:
        return [term.shape[term.labels.index(label)] for label in labels]

    if dims(a, summed) != dims(b, summed):
        ctx.fail(f"labels {', '.join(summed)} are summed over different sizes {dims(a, summed)} and {dims(b, summed)}")
    k = math.prod(dims(a, summed))
    left = ctx.reshape(a.value, [*dims(a, batch), math.prod(dims(a, free_a)), k])
    right = ctx.reshape(b.value, [*dims(b, batch), k, math.prod(dims(b, free_b))])
    product = ctx.value(tg.MatmulOp, [left, right])
    out_batch = list(tg.tensor_of(product).get_shape()[: len(batch)])
    shape = [*out_batch, *dims(a, free_a), *dims(b, free_b)]
    return Term(ctx.reshape(product, shape), batch + free_a + free_b)


@converter("Einsum")
def convert_einsum(ctx: NodeContext) -> list[SSAValue]:
    equation = ctx.attr("equation")
    if not isinstance(equation, str) or not equation.strip():
        ctx.fail("the equation attribute is required")
    operands = [ctx.input(i) for i in range(ctx.num_inputs)]
    et = ctx.type(0).element_type
    if any(ctx.type(i).element_type != et for i in range(ctx.num_inputs)):
        ctx.fail("operands of different element types are not supported")
    wide = isinstance(et, BFloat16Type)
    if wide:
        operands = [cast(ctx, x, f32) for x in operands]
    labels, out = parse(ctx, equation.strip(), [len(ctx.shape(i)) for i in range(ctx.num_inputs)])
    terms = [diagonals(ctx, Term(x, term)) for x, term in zip(operands, labels)]
    sizes(ctx, terms)

    def needed_after(i: int) -> set[str]:
        return set(out) | {label for term in terms[i + 1 :] for label in term.labels}

    current = sum_out(ctx, terms[0], needed_after(0))
    for i in range(1, len(terms)):
        nxt = sum_out(ctx, terms[i], needed_after(i) | set(current.labels))
        current = contract(ctx, current, nxt, needed_after(i))
    current = sum_out(ctx, current, set(out))
    result = transpose(ctx, current, out).value
    return [cast(ctx, result, et) if wide else result]
