"""The bf16 path (`--precision bf16`): kernel.bf16dot2's code against its numpy semantics,
tg-bf16-dense's packing, and whole models compiled at bf16 against the reference of
tg.dense_packed_bf16 (bfloat16 operands, float32 sums) and against float32."""

from __future__ import annotations

import ctypes

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.parser import Parser

from tessel.dialects.context import make_context
from tessel.dialects.kernel.reference import bf16dot2
from tessel.dialects.tg.reference import bf16_round, bf16_unpack, dense_packed_bf16
from tessel.frontends.onnx import import_model
from tessel.ir.diagnostics import TesselError
from tessel.passes.tg._bf16_pairs import pack_pairs
from tessel.passes.tg.bf16_dense import MIN_MACS
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.cpu import cpu_target
from tessel.targets.cpu.jit import CompiledModule
from tessel.targets.cpu.llvm_emit import FunctionEmitter

FUNCTION = """
func.func @dot_f(%acc: memref<{n}xf32>, %a: memref<{n}xi32>, %b: memref<{n}xi32>, %out: memref<{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %x = {load} %acc[%c0] : memref<{n}xf32>{ft}
  %y = {load} %a[%c0] : memref<{n}xi32>{it}
  %z = {load} %b[%c0] : memref<{n}xi32>{it}
  %d = kernel.bf16dot2 %x, %y, %z : {f}, {i}
  {store} %d, %out[%c0] : memref<{n}xf32>{ft}
  func.return
}}
"""


def _words(rng: np.random.Generator, count: int, normal: bool) -> np.ndarray:
    """i32 words of two bfloat16: random normal numbers, or any bits below 2**63 in
    magnitude (subnormals, zeros, the largest and smallest normals): where a product
    overflows float32 the instruction's intermediate range is its own (a Zen 5 gave -inf
    for -inf + inf)."""
    if normal:
        pairs = bf16_round(rng.standard_normal((count, 2)).astype(np.float32) * 4)
        bits = pairs.view(np.uint32) >> np.uint32(16)
        return ((bits[:, 1] << np.uint32(16)) | bits[:, 0]).view(np.int32)
    halves = rng.integers(0, 1 << 16, (count, 2), dtype=np.uint32)
    halves = np.where((halves & 0x7F80) > 0x5E80, halves & 0x807F, halves)  # exponents up to 2**62
    halves[:4] = [[0x0001, 0x8001], [0x0000, 0x8000], [0x3F80, 0x0080], [0x5E7F, 0xDE7F]]
    return ((halves[:, 1] << np.uint32(16)) | halves[:, 0]).view(np.int32)


@pytest.mark.parametrize("lanes", [1, 16])
@pytest.mark.parametrize("native", [False, True], ids=["generic", "vdpbf16ps"])
def test_bf16dot2_code_matches_its_semantics(lanes: int, native: bool) -> None:
    """The emitted kernel.bf16dot2, JIT-compiled, against the numpy semantics: exactly on
    normal numbers (both forms); the instruction also on subnormals, which it flushes."""
    target = cpu_target.current()
    if native and not target.bf16:
        pytest.skip("this CPU has no AVX512-BF16")
    if native and lanes != 16:
        pytest.skip("vdpbf16ps is used for 16 lanes")
    vector = lanes > 1
    text = FUNCTION.format(
        n=lanes,
        load="vector.load" if vector else "memref.load",
        store="vector.store" if vector else "memref.store",
        ft=f", vector<{lanes}xf32>" if vector else "",
        it=f", vector<{lanes}xi32>" if vector else "",
        f=f"vector<{lanes}xf32>" if vector else "f32",
        i=f"vector<{lanes}xi32>" if vector else "i32",
    )
    fn = Parser(make_context(), text).parse_module().body.block.first_op
    declares: set[str] = set()
    body = FunctionEmitter(fn, declares, bf16_features=target.bf16_features if native else None).emit()
    assert ("dpbf16ps" in "\n".join(declares)) == native
    ir = "\n".join([*sorted(declares), body, 'attributes #0 = { "min-legal-vector-width"="512" }']) + "\n"
    module = CompiledModule(ir, use_cache=False)
    call = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4)(module.address("dot_f"))
    rng = np.random.default_rng(lanes)
    for normal in (True, False) if native else (True,):
        count = 64
        a, b = _words(rng, count, normal), _words(rng, count, normal)
        acc = (rng.standard_normal(count) * 8).astype(np.float32)
        for start in range(0, count, lanes):
            chunk = [np.ascontiguousarray(v[start : start + lanes]) for v in (acc, a, b)]
            out = np.zeros(lanes, np.float32)
            call(*(v.ctypes.data for v in (*chunk, out)))
            np.testing.assert_array_equal(out, bf16dot2(*chunk), err_msg=f"normal={normal}")


def test_pairs_pack_and_unpack() -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 7, 16)).astype(np.float32)  # an odd K: a zero row is added
    pairs = pack_pairs(w, axis=1)
    assert pairs.shape == (3, 4, 16) and pairs.dtype == np.int32
    b = bf16_unpack(pairs)  # [8, 48]
    want = bf16_round(w).transpose(1, 0, 2).reshape(7, 48)
    np.testing.assert_array_equal(b[:7], want)
    np.testing.assert_array_equal(b[7], 0)


def test_bf16_rounding_is_to_nearest_even() -> None:
    """Ties go to the even bfloat16; past the largest bfloat16 (0x7F7F) is infinity;
    subnormals round like any other value (they are kept, not flushed); NaN stays NaN."""
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-9, -(1 + 2**-8), 3.3895e38, 3.4e38, 1e-40, np.nan], np.float32)
    got = bf16_round(x)
    bits = [int(v) for v in got[:7].view(np.uint32) >> 16]
    assert bits == [0x3F80, 0x3F82, 0x3F80, 0xBF80, 0x7F7F, 0x7F80, 0x0001]
    assert np.isnan(got[7]) and (got[:7].view(np.uint32) & 0xFFFF).max() == 0


def _run_bf16(model: onnx.ModelProto, x: np.ndarray, threads: int = 2) -> tuple[np.ndarray, str]:
    """The model compiled at precision bf16, run on x: (its first output, its LLVM IR)."""
    result = import_model(model, source="model.onnx")
    executable, _ = compile_for_cpu(result.module, result.weights, threads=threads, precision="bf16")
    try:
        return executable.run([x])[0], executable.llvm_ir
    finally:
        executable.close()


def _matmul(rows: int, w: np.ndarray) -> onnx.ModelProto:
    """y = x [rows, K] times the constant w [K, N]."""
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, w.shape[0]])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, w.shape[1]])],
        [numpy_helper.from_array(w, "w")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _mlp(m: int, k: int, n: int) -> tuple[onnx.ModelProto, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(k)
    w = rng.standard_normal((k, n)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("Add", ["h", "b"], ["h2"]),
            helper.make_node("Relu", ["h2"], ["y"]),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")],
    )
    x = rng.standard_normal((m, k)).astype(np.float32)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), x, w, bias, rng.standard_normal(1)


@pytest.mark.parametrize(("m", "k", "n"), [(64, 256, 64), (512, 63, 50), (5, 768, 320)])
def test_models_at_bf16_compute_the_bf16_reference(m: int, k: int, n: int) -> None:
    """An MLP layer (odd K, columns past a block, few rows; each at least tg-bf16-dense's
    MIN_MACS, below which products stay float32) at bf16: equal to bfloat16
    operands summed in float32 up to the order of the sums, and within bfloat16's
    precision of float32."""
    model, x, w, bias, _ = _mlp(m, k, n)
    got, ir = _run_bf16(model, x)
    assert ("dpbf16ps" in ir) == cpu_target.current().bf16
    want = np.maximum(bf16_round(x).astype(np.float64) @ bf16_round(w).astype(np.float64) + bias, 0)
    scale = np.abs(want).max()
    assert np.abs(got - want).max() <= 1e-5 * scale
    exact = np.maximum(x.astype(np.float64) @ w + bias, 0)
    assert 1e-6 * scale < np.abs(got - exact).max() < 2e-2 * scale  # bfloat16, not float32


def test_the_tg_op_reference_is_the_unpacked_product() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 10)).astype(np.float32)
    w = rng.standard_normal((2, 10, 16)).astype(np.float32)
    got = dense_packed_bf16(a, pack_pairs(w, axis=1), 20)
    b = bf16_round(w).transpose(1, 0, 2).reshape(10, 32)[:, :20]
    np.testing.assert_allclose(got, bf16_round(a) @ b, rtol=1e-6, atol=1e-6)


def test_precision_is_checked() -> None:
    model, *_ = _mlp(2, 8, 16)
    result = import_model(model, source="mlp.onnx")
    with pytest.raises(TesselError, match="precision 'fp16'"):
        lower(result.module, result.weights, precision="fp16")
    with pytest.raises(TesselError, match="precision 'bf16'"):
        lower(result.module, result.weights, precision="bf16", target="gpu")


ROWS = MIN_MACS // (16 * 16)  # x [ROWS, 16] times a 16 x 16 matrix: MIN_MACS multiply-adds


def test_the_activations_round_to_nearest_even_in_the_compiled_code() -> None:
    """x times the identity at bf16 is x rounded to bfloat16: the pairs stage's integer
    rounding (ties to even, up to the largest bfloat16) as the reference's. (No NaN or
    infinity: times the identity's zeros they make every column NaN.)"""
    x = np.array(
        [
            [
                1 + 2**-8,
                1 + 3 * 2**-8,
                1 + 2**-9,
                -(1 + 2**-8),
                3.3895e38,
                -3.3895e38,
                3 + 2**-6,
                -2.5,
                1e-3,
                7.0,
                0.0,
                -0.0,
            ]
            + [1.0] * 4
        ],
        np.float32,
    )
    x = np.tile(x, (ROWS, 1))  # (rows enough for tg-bf16-dense's MIN_MACS)
    got, _ = _run_bf16(_matmul(ROWS, np.eye(16, dtype=np.float32)), x, threads=1)
    want = bf16_round(x)
    np.testing.assert_array_equal(got, want)


def test_a_nan_with_only_low_payload_bits_stays_nan() -> None:
    """0x7F800001 is a NaN whose payload lies in the bits bfloat16 drops: rounded as a
    number it would become infinity; the pairs stage keeps it a NaN."""
    nan = np.array([0x7F800001], np.uint32).view(np.float32)[0]
    x = np.ones((8 * ROWS, 2), np.float32)  # (rows enough for tg-bf16-dense's MIN_MACS)
    x[0, 0] = nan
    got, _ = _run_bf16(_matmul(8 * ROWS, np.ones((2, 16), np.float32)), x, threads=1)
    assert np.isnan(got[0]).all() and not np.isnan(got[1:]).any() and np.isnan(bf16_round(x)[0, 0])


def test_the_api_compiles_at_bf16_and_keys_the_cache_by_precision(tmp_path, monkeypatch) -> None:
    """tessel.compile(precision="bf16") runs the bf16 path; the model cache keeps the two
    precisions apart; a saved bf16 model names AVX512-BF16 among the features it needs
    where the target has it; an unknown precision is one clear error."""
    import tessel
    from tessel.targets.cpu import model_cache
    from tessel.targets.cpu.export import target_description

    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    model, x, w, bias, _ = _mlp(64, 256, 64)
    compiled = tessel.compile(model, threads=1, precision="bf16")
    got = compiled(x)["y"]
    want = np.maximum(bf16_round(x).astype(np.float64) @ bf16_round(w).astype(np.float64) + bias, 0)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    fp32 = tessel.compile(model, threads=1)  # not the bf16 entry of the cache
    np.testing.assert_allclose(fp32(x)["y"], np.maximum(x @ w + bias, 0), rtol=1e-4, atol=1e-4)
    target = cpu_target.host()
    keys = {model_cache.model_key("m", {}, target, None, p) for p in ("fp32", "bf16")}
    assert len(keys) == 2
    assert ("avx512bf16" in target_description(target, bf16=True)["features"]) == target.bf16
    assert "avx512bf16" not in target_description(target)["features"]
    with pytest.raises(TesselError, match="unknown precision 'int4'"):
        tessel.compile(model, precision="int4")


CONVS = {
    # 3x3, padded, two output blocks, a bias and a relu
    "3x3 32->32 @9": (32, 32, 9, 3, 1, 1),
    # stride 2, 1x1: a ResNet shortcut
    "1x1/2 16->48 @10": (16, 48, 10, 1, 2, 0),
    # the stem's 3 image channels: an odd input block stays float32 (checked below)
    "7x7/2 3->16 @12": (3, 16, 12, 7, 2, 3),
}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_convolutions_at_bf16_compute_the_bf16_reference(name: str) -> None:
    """Conv + bias + relu at bf16: equal to the convolution of bfloat16-rounded input and
    weights summed in float32 (up to the order of the sums); the stem's 3-channel block
    stays float32 and equals float32."""
    from tessel.dialects.tg.reference import conv2d

    ic, oc, hw, k, s, p = CONVS[name]
    rng = np.random.default_rng(ic + oc)
    w = (rng.standard_normal((oc, ic, k, k)) / np.sqrt(ic * k * k)).astype(np.float32)
    bias = rng.standard_normal(oc).astype(np.float32)
    o = (hw + 2 * p - k) // s + 1
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], strides=[s, s], pads=[p] * 4),
            helper.make_node("Relu", ["c"], ["y"]),
        ],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ic, hw, hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, oc, o, o])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    x = rng.standard_normal((1, ic, hw, hw)).astype(np.float32)
    got, ir = _run_bf16(model, x)
    converted = "nchwc_bf16" in ir
    bf16 = ic % 2 == 0
    assert converted == bf16
    xs, ws = (bf16_round(x), bf16_round(w)) if bf16 else (x, w)
    want = np.maximum(conv2d(xs.astype(np.float64), ws.astype(np.float64), bias, [s, s], [p] * 4, [1, 1], 1), 0)
    scale = np.abs(want).max()
    assert np.abs(got - want).max() <= 1e-5 * scale


def test_tessel_run_checks_a_bf16_build_at_a_bfloat16_tolerance(tmp_path, capsys) -> None:
    """`tessel-run --precision bf16 --check` compares with the float32 references at rtol
    2e-2 unless told otherwise, and says so; with the float32 default it reports the
    mismatch bfloat16 makes."""
    from tessel.tools.run import main

    model, *_ = _mlp(64, 256, 64)
    path = tmp_path / "mlp.onnx"
    onnx.save(model, str(path))
    assert main([str(path), "--target", "cpu", "--precision", "bf16", "--check"]) == 0
    out = capsys.readouterr().out
    assert "checked against float32 with rtol 0.02" in out and "MISMATCH" not in out
    assert main([str(path), "--target", "cpu", "--precision", "bf16", "--check", "--rtol", "1e-6"]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_small_products_stay_float32() -> None:
    """Below MIN_MACS (a recurrent cell's per-step product) tg-bf16-dense leaves the
    product float32: the result is float32's."""
    model, x, w, bias, _ = _mlp(1, 128, 256)
    assert 128 * 256 < MIN_MACS
    got, ir = _run_bf16(model, x, threads=1)
    assert "dense_packed_bf16" not in ir
    np.testing.assert_allclose(got, np.maximum(x @ w + bias, 0), rtol=1e-5, atol=1e-5)
