"""Plan the frame program of a camera pipeline (the data: dialects/img/program.py): what
runs, in what order, under which gates.

Row stages that wait on the same gates (and are all per-frame, or all computed once) form
maximal connected groups; each group is cut out as a function of its own (one per result
height: the row driver walks one height, so a group whose results differ in height
becomes several, each recomputing the shared producers). Every `WholeFrame` op is a
kernel step, every gate a gate step; `ValueAlias` results are aliases of a stored value.

    %small = img.downsample %frames ...         pipeline seg0 (per frame)
    %diff  = img.map %small, %background ...        "
    %energy = img.reduce %diff kind sum         kernel k1
    %moving = img.map %energy ...               pipeline seg2
    %motion = img.gate %frames, %moving         gate (skips what follows when 0)
    %ii = img.scan %motion                      kernel k3, guarded by the gate
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from tessel.dialects import img
from tessel.dialects.img.program import FrameProgram, Step, StepKind
from tessel.dialects.img.types import ImageType, StreamType
from tessel.ir.diagnostics import TesselError, op_location


def plan_program(fn: func.FuncOp) -> FrameProgram:
    block = fn.body.block
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp):
        raise TesselError(f"@{fn.sym_name.data} has no func.return", op_location(fn))
    root: dict[SSAValue, SSAValue] = {a: a for a in block.args}
    guard: dict[SSAValue, frozenset[Operation]] = {a: frozenset() for a in block.args}
    sources: list[img.SourceOp] = []
    sinks: list[SSAValue] = []
    ops: list[Operation] = []
    for op in block.ops:
        if op is ret:
            break
        if not isinstance(op, img.ImgOp):
            raise TesselError(
                f"{op.name} is not an img op: the CPU image target runs functions of img ops", op_location(op)
            )
        g = frozenset().union(*(guard[v] for v in op.operands))
        if isinstance(op, img.SinkOp):
            sinks.append(op.input)
            continue
        (r,) = op.results
        if isinstance(op, img.SourceOp):
            sources.append(op)
            root[r], guard[r] = r, frozenset()
            continue
        if op.has_trait(img.ValueAlias):
            root[r] = root[op.operands[0]]
            guard[r] = g | {op} if isinstance(op, img.GateOp) else g
            if isinstance(op, img.GateOp):
                ops.append(op)
            continue
        if not (op.has_trait(img.RowStage) or op.has_trait(img.WholeFrame)):
            raise TesselError(f"{op.name} has no CPU lowering", op_location(op))
        root[r], guard[r] = r, g
        ops.append(op)
    position = {op: i for i, op in enumerate(block.ops)}
    steps = _kernels_and_gates(ops, guard, position) + _pipelines(
        fn, ops, root, guard, position, set(ret.operands) | set(sinks)
    )
    program = FrameProgram(fn, _topological(steps, root), root, guard, sources, sinks, list(ret.operands))
    seen: set[SSAValue] = set()
    for v in [*block.args, *(s.result for s in sources)] + [o for s in program.steps for o in s.outputs]:
        if v not in seen:
            seen.add(v)
            program.stored.append(v)
    return program


def _per_frame(values: list[SSAValue]) -> bool:
    return any(isinstance(v.type, StreamType) for v in values)


def _kernels_and_gates(ops: list[Operation], guard: dict, position: dict) -> list[Step]:
    steps = []
    for op in ops:
        if isinstance(op, img.GateOp):
            name = f"%{op.result.name_hint}" if op.result.name_hint else f"gate{position[op]}"
            steps.append(
                Step(StepKind.GATE, name, [op.predicate], [], guard[op.predicate], True, op, order=position[op])
            )
        elif op.has_trait(img.WholeFrame):
            g = frozenset().union(*(guard[v] for v in op.operands))
            steps.append(Step(StepKind.KERNEL, f"k{position[op]}", list(op.operands), [op.results[0]], g,
                              _per_frame(list(op.results)), op, order=position[op]))  # fmt: skip
    return steps


def _pipelines(fn: func.FuncOp, ops: list[Operation], root: dict, guard: dict, position: dict,
               exported: set[SSAValue]) -> list[Step]:  # fmt: skip
    """Connected row-op groups under one guard, split by result height, cut out as functions."""
    rows = [op for op in ops if op.has_trait(img.RowStage)]
    parent: dict[Operation, Operation] = {op: op for op in rows}

    def find(op: Operation) -> Operation:
        while parent[op] is not op:
            parent[op] = parent[parent[op]]
            op = parent[op]
        return op

    for op in rows:
        for v in op.operands:
            producer = root[v].owner
            if not isinstance(producer, Operation):
                continue
            same_rate = isinstance(v.type, StreamType) == isinstance(op.results[0].type, StreamType)
            if producer in parent and guard[v] == guard[op.results[0]] and root[v] is v and same_rate:
                parent[find(producer)] = find(op)
    groups: dict[Operation, list[Operation]] = {}
    for op in rows:
        groups.setdefault(find(op), []).append(op)
    steps = []
    for members in groups.values():
        inside = set(members)
        outs = [op.results[0] for op in members if _used_outside(op.results[0], inside, exported)]
        by_height: dict[int, list[SSAValue]] = {}
        for v in outs:
            by_height.setdefault(_height(v), []).append(v)
        for values in by_height.values():
            needed = _closure(values, inside)
            chosen = [op for op in members if op in needed]
            name = f"seg{position[chosen[0]]}_{_height(values[0])}"
            module, inputs = _cut(fn, chosen, values, name)
            steps.append(Step(StepKind.PIPELINE, name, inputs, values, guard[values[0]], _per_frame(values), module=module,
                              order=position[chosen[0]]))  # fmt: skip
    return steps


def _used_outside(v: SSAValue, inside: set[Operation], exported: set[SSAValue]) -> bool:
    return v in exported or any(u.operation not in inside for u in v.uses)


def _closure(values: list[SSAValue], inside: set[Operation]) -> set[Operation]:
    needed: set[Operation] = set()
    todo = [v.owner for v in values]
    while todo:
        op = todo.pop()
        if not isinstance(op, Operation) or op in needed or op not in inside:
            continue
        needed.add(op)
        todo += [v.owner for v in op.operands]
    return needed


def _height(v: SSAValue) -> int:
    t = v.type
    assert isinstance(t, ImageType)
    return t.height.data


def _cut(fn: func.FuncOp, ops: list[Operation], outputs: list[SSAValue], name: str) -> tuple[ModuleOp, list[SSAValue]]:
    """ops (in block order) as a function of the values they read from outside, returning outputs."""
    produced = {op.results[0] for op in ops}
    inputs: list[SSAValue] = []
    for op in ops:
        for v in op.operands:
            if v not in produced and v not in inputs:
                inputs.append(v)
    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for v, a in zip(inputs, body.args):
        a.name_hint = v.name_hint
    for op in ops:
        body.add_op(op.clone(mapping))
    body.add_op(func.ReturnOp(*[mapping[v] for v in outputs]))
    cut = func.FuncOp(name, FunctionType.from_lists([v.type for v in inputs], [v.type for v in outputs]), Region(body))
    return ModuleOp([cut]), inputs


def _topological(steps: list[Step], root: dict[SSAValue, SSAValue]) -> list[Step]:
    """Producers before consumers, a gate before what it guards; otherwise program order.
    Invariant steps (frames only) come first: they run once."""
    made: dict[SSAValue, Step] = {v: s for s in steps for v in s.outputs}
    gate_step = {s.op: s for s in steps if s.kind == StepKind.GATE}
    deps = {
        id(s): {id(made[root[v]]) for v in s.inputs if root[v] in made} | {id(gate_step[g]) for g in s.guard}
        for s in steps
    }
    done: set[int] = set()
    out: list[Step] = []
    pending = sorted(steps, key=lambda s: (s.per_frame, s.order))
    while pending:
        for s in pending:
            if deps[id(s)] <= done:
                out.append(s)
                done.add(id(s))
                pending.remove(s)
                break
        else:
            raise TesselError("the image pipeline's steps have a cycle")
    return out
