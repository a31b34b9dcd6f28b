"""Which output slots a correctness check must look at.

Every `hev` op commutes with rotating all inputs at once (element-wise arithmetic, splat
constants, rotations, full-vector sums), so a spec and a program that agree at one output
slot for all inputs agree at every slot: out(x)[p] = out(rot_p x)[0]. Checking one slot
is then a proof for all of them, and an output mask (`hev.slots`) only picks which slot.

A zero-padded layout (`hev.padded`) breaks the symmetry: the inputs are no longer arbitrary,
some slots are 0. Two output slots p and q still behave alike when the inputs' zero slots
look the same from both: for every input and every offset o the program or the spec reads,
slot p+o is padding exactly when slot q+o is. Then the polynomials at p and q (padding
substituted by 0) are translates of each other, and one is zero exactly when the other is.
`classes` groups the slots that matter by that pattern; one slot per class is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

Var = tuple[int, int]  # (input, slot)


class SupportDomain:
    """Slot values as the set of input slots they read (a superset of the variables of the
    polynomial: cancellations are not seen, which only makes the classes finer)."""

    def __init__(self, zero: Callable[[int, int], bool] | None = None):
        self.zero = zero

    def var(self, input: int, slot: int) -> frozenset[Var]:
        if self.zero is not None and self.zero(input, slot):
            return frozenset()
        return frozenset({(input, slot)})

    def const(self, value: int) -> frozenset[Var]:
        return frozenset()

    def add(self, a: frozenset[Var], b: frozenset[Var]) -> frozenset[Var]:
        return a | b

    sub = mul = add

    def neg(self, a: frozenset[Var]) -> frozenset[Var]:
        return a


def reach(evaluator: Callable[[int], Any], slot: int, slots: int) -> dict[int, set[int]]:
    """input -> the offsets (relative to `slot`) an output slot reads, from an evaluator over
    `SupportDomain` (without padding: the syntactic reach)."""
    out: dict[int, set[int]] = {}
    for i, s in evaluator(slot):
        out.setdefault(i, set()).add((s - slot) % slots)
    return out


def classes(
    wanted: Sequence[int], zero: Mapping[int, np.ndarray], offsets: Mapping[int, Iterable[int]], slots: int
) -> list[list[int]]:
    """The wanted output slots grouped so that one slot per group decides the group: one
    group when no input is zero-padded, else by the padding seen at the given offsets."""
    if not wanted:
        return []
    columns = []
    for i, mask in sorted(zero.items()):
        for o in sorted(set(offsets.get(i, ()))):
            columns.append(np.roll(mask, -o)[list(wanted)])
    if not columns:
        return [list(wanted)]
    patterns = np.stack(columns, axis=1)
    groups: dict[bytes, list[int]] = {}
    for slot, row in zip(wanted, patterns, strict=True):
        groups.setdefault(row.tobytes(), []).append(slot)
    return list(groups.values())
