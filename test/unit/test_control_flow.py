"""If, Loop and Scan, resolved at import: results against ONNX's reference evaluator on
cases the node tests do not cover (a run-time If condition on several outputs, a known one
that only imports the taken branch, a while loop whose condition the body computes from
the iteration number, reversed scan directions and non-zero scan axes), and the one-line
refusals where unrolling is impossible."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tessel.frontends.onnx import import_model
from tessel.ir.diagnostics import TesselError
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run

F = TensorProto.FLOAT


def _info(name: str, elem: int, shape: list[int] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, inits=(), opset: int = 17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], compiled: bool = False) -> None:
    want = ReferenceEvaluator(model).run(None, feeds)
    result = import_model(model)
    inputs = [feeds[i.name] for i in model.graph.input]
    got = run(result.module.clone(), inputs, result.weights)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    if compiled:
        executable, _ = compile_for_cpu(result.module, result.weights, threads=1)
        try:
            for g, w in zip(executable.run(inputs), want, strict=True):
                np.testing.assert_allclose(g, w, rtol=1e-6)
        finally:
            executable.close()


def _branches(x_shape: list[int], then_shape: list[int] | None = None):
    then = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["t0"]), helper.make_node("Neg", ["x"], ["t1"])],
        "then",
        [],
        [_info("t0", F, then_shape or x_shape), _info("t1", F, x_shape)],
    )
    other = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["e0"]), helper.make_node("Abs", ["x"], ["e1"])],
        "else",
        [],
        [_info("e0", F, x_shape), _info("e1", F, x_shape)],
    )
    return then, other


@pytest.mark.parametrize("cond", [True, False])
def test_if_on_a_runtime_condition_selects_per_output(cond: bool) -> None:
    then, other = _branches([3])
    node = helper.make_node("If", ["c"], ["y0", "y1"], then_branch=then, else_branch=other)
    model = _model(
        [node], [_info("c", TensorProto.BOOL, []), _info("x", F, [3])], [_info("y0", F, [3]), _info("y1", F, [3])]
    )
    _check(model, {"c": np.asarray(cond), "x": np.asarray([1.5, -2.0, 3.0], np.float32)}, compiled=True)


def test_if_on_a_known_condition_imports_only_the_taken_branch() -> None:
    then, other = _branches([3])
    nodes = [
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.asarray(False))),
        helper.make_node("If", ["c"], ["y0", "y1"], then_branch=then, else_branch=other),
    ]
    model = _model(nodes, [_info("x", F, [3])], [_info("y0", F, [3]), _info("y1", F, [3])])
    _check(model, {"x": np.asarray([1.5, -2.0, 3.0], np.float32)})
    names = {op.name for op in import_model(model).module.walk()}
    assert "tg.where" not in names and "tg.mul" not in names and "tg.abs" in names


def test_if_whose_branches_differ_in_type_needs_a_known_condition() -> None:
    then, other = _branches([3])
    then = helper.make_graph(
        [helper.make_node("Concat", ["x", "x"], ["t0"], axis=0), helper.make_node("Neg", ["x"], ["t1"])],
        "then",
        [],
        [_info("t0", F, [6]), _info("t1", F, [3])],
    )
    node = helper.make_node("If", ["c"], ["y0", "y1"], then_branch=then, else_branch=other)
    model = _model(
        [node], [_info("c", TensorProto.BOOL, []), _info("x", F, [3])], [_info("y0", F, None), _info("y1", F, [3])]
    )
    with pytest.raises(TesselError, match=r"\(If, opset 17\).*output #0 is tensor<6xf32> in then_branch"):
        import_model(model)


def _counting_body(limit: int | None) -> onnx.GraphProto:
    """acc += i; scan out acc * 2; the condition is i + 1 < limit (or passed through)."""
    nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Add", ["acc", "fi"], ["acc_out"]),
        helper.make_node("Add", ["acc_out", "acc_out"], ["scan"]),
    ]
    if limit is None:
        nodes.append(helper.make_node("Identity", ["cond"], ["cond_out"]))
    else:
        nodes += [
            helper.make_node("Add", ["i", "one"], ["next"]),
            helper.make_node("Less", ["next", "limit"], ["cond_out"]),
        ]
    inits = [
        numpy_helper.from_array(np.asarray(1, np.int64), "one"),
        numpy_helper.from_array(np.asarray(limit or 0, np.int64), "limit"),
    ]
    return helper.make_graph(
        nodes,
        "body",
        [_info("i", TensorProto.INT64, []), _info("cond", TensorProto.BOOL, []), _info("acc", F, [2])],
        [_info("cond_out", TensorProto.BOOL, []), _info("acc_out", F, [2]), _info("scan", F, [2])],
        inits if limit is not None else [],
    )


def test_loop_while_the_body_condition_holds() -> None:
    """No trip count: the body's condition (i + 1 < 4) folds at each unrolled iteration."""
    node = helper.make_node("Loop", ["", "go", "a"], ["acc", "scans"], body=_counting_body(4))
    inits = [numpy_helper.from_array(np.asarray(True), "go")]
    model = _model([node], [_info("a", F, [2])], [_info("acc", F, [2]), _info("scans", F, [4, 2])], inits)
    _check(model, {"a": np.asarray([0.5, -1.0], np.float32)}, compiled=True)


def test_loop_refuses_a_runtime_trip_count_and_a_data_dependent_condition() -> None:
    node = helper.make_node("Loop", ["m", "", "a"], ["acc", "scans"], body=_counting_body(None))
    model = _model(
        [node], [_info("m", TensorProto.INT64, []), _info("a", F, [2])], [_info("acc", F, [2]), _info("scans", F, None)]
    )
    with pytest.raises(TesselError, match=r"\(Loop, opset 17\).*trip count M is computed at run time"):
        import_model(model)
    body = _counting_body(None)
    body.node[-1].CopyFrom(helper.make_node("ReduceMax", ["acc_out"], ["big"], keepdims=0))
    body.node.append(helper.make_node("Less", ["big", "ten"], ["cond_out"]))
    body.initializer.append(numpy_helper.from_array(np.asarray(10.0, np.float32), "ten"))
    node = helper.make_node("Loop", ["", "go", "a"], ["acc", "scans"], body=body)
    inits = [numpy_helper.from_array(np.asarray(True), "go")]
    model = _model([node], [_info("a", F, [2])], [_info("acc", F, [2]), _info("scans", F, None)], inits)
    with pytest.raises(TesselError, match=r"condition output is computed from run-time values"):
        import_model(model)


def test_scan_with_reversed_directions_and_axes() -> None:
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "x"], ["s_out"]), helper.make_node("Mul", ["s_out", "x"], ["y"])],
        "body",
        [_info("s", F, [3]), _info("x", F, [3])],
        [_info("s_out", F, [3]), _info("y", F, [3])],
    )
    node = helper.make_node(
        "Scan",
        ["s0", "xs"],
        ["s", "ys"],
        body=body,
        num_scan_inputs=1,
        scan_input_axes=[1],
        scan_input_directions=[1],
        scan_output_axes=[1],
        scan_output_directions=[1],
    )
    model = _model([node], [_info("s0", F, [3]), _info("xs", F, [3, 4])], [_info("s", F, [3]), _info("ys", F, [3, 4])])
    rng = np.random.default_rng(0)
    s0, xs = rng.standard_normal(3).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    # ONNX's reference evaluator has no reversed directions: by hand, the iterations read
    # the columns last to first and the outputs are written from the last column back
    state, ys = s0.copy(), np.zeros_like(xs)
    for t in range(4):
        state = state + xs[:, 3 - t]
        ys[:, 3 - t] = state * xs[:, 3 - t]
    result = import_model(model)
    got = run(result.module, [s0, xs], result.weights)
    np.testing.assert_allclose(got[0], state, rtol=1e-6)
    np.testing.assert_allclose(got[1], ys, rtol=1e-6)
