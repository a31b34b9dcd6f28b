"""The tensor pipeline verifies the module after every pass only when asked (`verify_each`,
TESSEL_VERIFY_EACH, `tessel-run --verify-each`), as mlir-opt's -verify-each: verification
in Python was half of a large model's compile time. The test suite asks (test/conftest.py)."""

from __future__ import annotations

import os

import pytest

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.pipelines import tensor

MODULE = """
func.func @main(%x: tensor<2x3xf32> {tg.name = "x"}) -> (tensor<2x3xf32> {tg.name = "y"}) {
  %r = tg.relu %x : tensor<2x3xf32>
  %y = tg.add %r, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
"""


def _verified_after(monkeypatch: pytest.MonkeyPatch, **options) -> list[str]:
    """The passes after which the pipeline verified the module."""
    seen: list[str] = []
    module = parse_module(make_context(), MODULE)
    real = tensor.verify
    monkeypatch.setattr(tensor, "verify", lambda m: (seen.append("verify"), real(m)))
    original = tensor.PassPipeline.apply

    def apply(self, ctx, op):
        original(self, ctx, op)
        seen.append(self.passes[-1].name)

    monkeypatch.setattr(tensor.PassPipeline, "apply", apply)
    tensor.lower(module, {}, **options)
    return [name for name, nxt in zip(seen, seen[1:]) if nxt == "verify"]


def test_by_default_the_passes_are_not_verified(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TESSEL_VERIFY_EACH", raising=False)
    assert _verified_after(monkeypatch) == []
    monkeypatch.setenv("TESSEL_VERIFY_EACH", "0")
    assert _verified_after(monkeypatch) == []


def test_the_test_suite_verifies_after_every_pass() -> None:
    assert os.environ.get("TESSEL_VERIFY_EACH") == "1"


def test_verify_each_verifies_after_every_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    every = [p.name for p in (*tensor.graph_passes(), *tensor.kernel_passes())]
    assert _verified_after(monkeypatch, verify_each=True) == every
    monkeypatch.setenv("TESSEL_VERIFY_EACH", "1")
    assert _verified_after(monkeypatch) == every
