"""Printing is exact: custom syntax -> IR -> custom syntax, and generic -> custom, give the
same text for every op in the lit tests; constants keep every bit (NaN payloads, -0.0)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType

from tessel.dialects import tg
from tessel.dialects.context import make_context
from tessel.ir import dtypes
from tessel.ir.source import parse_module, print_module, verify

LIT = Path(__file__).resolve().parents[1] / "lit" / "dialects" / "tg"
POSITIVE = sorted(p for p in LIT.glob("*.mlir") if "invalid" not in p.name)


def _chunks(path: Path) -> list[str]:
    return [c for c in path.read_text().split("// -----") if "func.func" in c]


@pytest.mark.parametrize("path", POSITIVE, ids=[p.name for p in POSITIVE])
def test_print_parse_print_is_identical(path):
    ctx = make_context()
    for chunk in _chunks(path):
        module = parse_module(ctx, chunk, path.name)
        verify(module)
        custom = print_module(module)
        generic = print_module(module, generic=True)
        assert print_module(parse_module(ctx, custom)) == custom
        assert print_module(parse_module(ctx, generic)) == custom


def test_every_op_is_in_a_roundtrip_test():
    text = "".join(p.read_text() for p in POSITIVE)
    missing = [op.name for op in tg.OPS if f"{op.name} " not in text]
    assert not missing, f"ops without a round-trip lit test: {missing}"


def _constant_module(array: np.ndarray):
    t = TensorType(dtypes.from_numpy(array.dtype), list(array.shape))
    value = DenseIntOrFPElementsAttr(t, BytesAttr(array.tobytes()))
    op = tg.ConstantOp.create(result_types=[t], properties={"value": value})
    return op, f"func.func @f() -> {t} {{\n  %c = {str(op).split(' = ', 1)[1]}\n  func.return %c : {t}\n}}\n"


@settings(max_examples=60, deadline=None)
@given(
    bits=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=8),
    generic=st.booleans(),
)
def test_f32_constants_keep_their_bits(bits, generic):
    array = np.array(bits, dtype=np.uint32).view(np.float32)
    _, text = _constant_module(array)
    ctx = make_context()
    module = parse_module(ctx, text)
    if generic:
        module = parse_module(ctx, print_module(module, generic=True))
    (const,) = [op for op in module.walk() if isinstance(op, tg.ConstantOp)]
    back = tg.constant_value(const)
    nan = np.isnan(array)
    # NaNs keep NaN-ness; every other value keeps its exact bit pattern (including -0.0)
    assert np.array_equal(np.isnan(back), nan)
    assert np.array_equal(back[~nan].view(np.uint32), array[~nan].view(np.uint32))


@pytest.mark.parametrize("dtype", ["float16", "float64", "int8", "uint8", "int64", "bool", "bfloat16"])
def test_constants_of_every_type_roundtrip(dtype):
    rng = np.random.default_rng(0)
    array = (rng.standard_normal((2, 3)) * 50).astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    _, text = _constant_module(array)
    ctx = make_context()
    module = parse_module(ctx, print_module(parse_module(ctx, text), generic=True))
    (const,) = [op for op in module.walk() if isinstance(op, tg.ConstantOp)]
    assert np.array_equal(tg.constant_value(const), array)
