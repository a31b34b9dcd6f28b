"""Einsum as tg ops (frontends/onnx/ops_einsum.py) against numpy.einsum, on equations the
ONNX node tests do not cover: implicit outputs, ellipses that broadcast, diagonals of
three dims, a label repeated across operands and summed, three operands, integers."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from tessel.frontends.onnx import import_model
from tessel.ir.diagnostics import TesselError
from tessel.targets.reference.interpreter import run

CASES = [
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,jk->ki", [(2, 3), (3, 4)]),
    ("ba,ca", [(2, 3), (4, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...,i...->...", [(3, 2, 4), (3, 1, 4)]),
    ("iii->i", [(3, 3, 3)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij,ij,jk->ik", [(2, 3), (2, 3), (3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("abc->", [(2, 3, 4)]),
    ("ab,ab->", [(2, 3), (2, 3)]),
]


def _run(equation: str, arrays: list[np.ndarray]) -> np.ndarray:
    names = [f"x{i}" for i in range(len(arrays))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    kind = helper.np_dtype_to_tensor_dtype(arrays[0].dtype)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, kind, a.shape) for n, a in zip(names, arrays)],
        [helper.make_tensor_value_info("y", kind, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    result = import_model(model)
    (y,) = run(result.module, arrays, result.weights)
    return y


@pytest.mark.parametrize(("equation", "shapes"), CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_numpy(equation: str, shapes: list[tuple[int, ...]]) -> None:
    rng = np.random.default_rng(len(equation))
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    np.testing.assert_allclose(_run(equation, arrays), np.einsum(equation, *arrays), rtol=1e-5, atol=1e-5)


def test_einsum_integers_are_exact() -> None:
    rng = np.random.default_rng(0)
    arrays = [rng.integers(-100, 100, s).astype(np.int32) for s in [(3, 4), (4, 5)]]
    np.testing.assert_array_equal(_run("ij,jk->ik", arrays), np.einsum("ij,jk->ik", *arrays))


@pytest.mark.parametrize(
    ("equation", "shapes", "message"),
    [
        ("ij,jk", [(2, 3), (4, 5)], "label 'j' has sizes 3 and 4"),
        ("ijk->i", [(2, 3)], "does not match an operand of rank 2"),
        ("ij->ik", [(2, 3)], "output label(s) k appear in no operand"),
        ("ij->ii", [(2, 3)], "repeats a label"),
    ],
)
def test_einsum_refuses_in_one_line(equation: str, shapes: list[tuple[int, ...]], message: str) -> None:
    arrays = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(TesselError, match="Einsum") as err:
        _run(equation, arrays)
    assert message in str(err.value)
