"""tg-to-kernel: one kernel function per tg.fused, and the graph as calls over memrefs.

After tg-fuse (and optionally tg-plan-memory), every computation of `@main` is a
`tg.fused`. This pass turns each into a `func.func @k<i>_<kind>` over memrefs (inputs,
then outputs) holding its kernel.compute stages, and rewrites `@main` in
destination-passing style: it takes its inputs and its outputs as memrefs, reads weights
and constants from `memref.global`s (weights have no initial value: the runtime binds
them by name), places intermediates at their planned offsets in one arena (`memref.view`
of an i8 `memref.alloc`) or in their own allocations when unplanned, and calls the
kernels in order. Structurally identical groups share one kernel. A group that is only a
concat of contiguous slabs (tg.ConcatOp.in_slabs) is no kernel: each piece is copied into
its byte range of the result (`memref.copy`), where a kernel would select among the pieces
at every element.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from tessel.dialects import tg
from tessel.dialects.kernel import ELEMENT_ATTR, KERNEL_ATTR, OUTPUT_ATTR
from tessel.dialects.tg.fused import MEMORY_ATTR, OFFSET_ATTR, OFFSETS_ATTR
from tessel.ir.diagnostics import TesselError, op_location
from tessel.ir.keys import attr_key, ops_key
from tessel.ir.names import ssa_name
from tessel.passes.tg.lowering import rules  # noqa: F401  (registers every lowering rule)
from tessel.passes.tg.lowering.quant import READS_CONSTANT_INPUTS
from tessel.passes.tg.lowering.scalar import storage_type
from tessel.passes.tg.lowering.stages import KernelBuilder, lower_group
from tessel.passes.tg.plan_memory import nbytes, slab_pieces


def memref_of(t: TensorType) -> MemRefType:
    return MemRefType(storage_type(t.element_type), t.get_shape())


def kernel_function(name: str, fused: tg.FusedOp) -> func.FuncOp:
    """The kernel of one group: fn(inputs..., outputs...) with its stages."""
    in_types = [memref_of(tg.tensor_of(v)) for v in fused.inputs]
    out_types = [memref_of(tg.tensor_of(r)) for r in fused.results]
    block = Block(arg_types=[*in_types, *out_types])
    kb = KernelBuilder(block, {})
    try:
        lower_group(kb, fused, list(block.args[len(in_types) :]))
    except NotImplementedError as err:
        raise TesselError(f"cannot lower '{fused.kind.data}' to a kernel: {err}", op_location(fused)) from err
    kb.finish()
    block.add_op(func.ReturnOp())
    fn = func.FuncOp(name, ([*in_types, *out_types], []), Region(block))
    fn.attributes[KERNEL_ATTR] = UnitAttr()
    return fn


def group_key(fused: tg.FusedOp) -> tuple:
    """What the kernel of a group is made from, so that groups with equal keys share one
    kernel without lowering each: the input and result types, the values of inputs that
    are inline constants (a lowering may read them: a zero point known to be zero), and
    the ops of the region (ir/keys.py's ops_key: without the names the importer gave
    values). An RNN unrolled over its sequence has thousands of groups and a few kernels;
    lowering and printing every group to compare them took most of GRU's compile time."""
    block = fused.body.block
    position: dict[SSAValue, Hashable] = {arg: (-1, i) for i, arg in enumerate(block.args)}
    reads = any(isinstance(op, READS_CONSTANT_INPUTS) for op in block.ops)
    parts: list[object] = [
        tuple(v.type for v in fused.inputs),
        tuple(r.type for r in fused.results),
        tuple(attr_key(v.owner.value) if reads and isinstance(v.owner, tg.ConstantOp) else None for v in fused.inputs),
    ]
    return (*parts, *ops_key(block.ops, position))


@dataclass
class GraphLowering:
    module: builtin.ModuleOp
    main: func.FuncOp

    def run(self) -> None:
        kernels: dict[tuple, str] = {}  # group_key -> kernel name
        new_funcs: list[func.FuncOp] = []
        globals_: dict[str, Operation] = {}  # by symbol name (a model may have thousands)
        old = self.main.body.block
        inputs = list(old.args)
        assert old.last_op is not None  # the body ends in func.return
        returned = list(old.last_op.operands)
        out_types = [memref_of(tg.tensor_of(v)) for v in returned]
        block = Block(arg_types=[*(memref_of(tg.tensor_of(a)) for a in inputs), *out_types])
        value_of: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
        outputs = list(block.args[len(inputs) :])
        for arg, src in zip(block.args, inputs):
            arg.name_hint = src.name_hint
        dest_of: dict[SSAValue, SSAValue] = {}
        for v, out in zip(returned, outputs):
            if isinstance(v.owner, tg.FusedOp) and v not in dest_of:
                dest_of[v] = out

        arena = self._arena(block)
        constants = 0
        for op in old.ops:
            if isinstance(op, tg.WeightOp):
                value_of[op.result] = self._global(block, globals_, op.weight_name, op.result.type, None)
            elif isinstance(op, tg.ConstantOp):
                name = f"__constant_{constants}"
                constants += 1
                value_of[op.result] = self._global(block, globals_, name, op.result.type, op.value)
            elif isinstance(op, tg.FusedOp) and op.results[0] not in dest_of and (slabs := slab_pieces(op)):
                value_of[op.results[0]] = self._copy_slabs(block, arena, op, slabs, value_of)
            elif isinstance(op, tg.FusedOp):
                dests = [dest_of.get(r) or self._buffer(block, arena, op, i) for i, r in enumerate(op.results)]
                for r, d in zip(op.results, dests):
                    value_of[r] = d
                key = group_key(op)
                if key not in kernels:
                    fn = kernel_function(f"k{len(new_funcs)}_{op.kind.data}"[:64], op)
                    kernels[key] = fn.sym_name.data
                    new_funcs.append(fn)
                call = func.CallOp(kernels[key], [*(value_of[v] for v in op.inputs), *dests], [])
                call.location = op.location
                block.add_op(call)
            elif isinstance(op, func.ReturnOp):
                break
            else:
                raise TesselError(
                    f"tg-to-kernel expects fused groups (run tg-fuse first), found {op.name}", op_location(op)
                )
        for v, out in zip(returned, outputs):
            if dest_of.get(v) is not out:
                block.add_op(memref.CopyOp(value_of[v], out))
        block.add_op(func.ReturnOp())

        new_main = func.FuncOp(self.main.sym_name.data, ([a.type for a in block.args], []), Region(block))
        names = [*(self.main.arg_attrs or ArrayAttr([DictionaryAttr({})] * len(inputs))).data]
        names = [DictionaryAttr({**a.data, ELEMENT_ATTR: tg.tensor_of(v).element_type}) for a, v in zip(names, inputs)]
        res = [*(self.main.res_attrs or ArrayAttr([DictionaryAttr({})] * len(returned))).data]
        res = [
            DictionaryAttr({**r.data, OUTPUT_ATTR: UnitAttr(), ELEMENT_ATTR: tg.tensor_of(v).element_type})
            for r, v in zip(res, returned)
        ]
        new_main.arg_attrs = ArrayAttr([*names, *res])
        if MEMORY_ATTR in self.main.attributes:
            new_main.attributes[MEMORY_ATTR] = self.main.attributes[MEMORY_ATTR]
        self.module.body.block.insert_op_before(new_main, self.main)
        self.main.detach()
        self.main.erase()
        for g in globals_.values():
            self.module.body.block.insert_op_before(g, new_main)
        for fn in new_funcs:
            self.module.body.block.insert_op_before(fn, new_main)

    def _arena(self, block: Block) -> SSAValue | None:
        memory = self.main.attributes.get(MEMORY_ATTR)
        if not isinstance(memory, DictionaryAttr):
            return None
        size = memory.data["arena"].value.data  # type: ignore[attr-defined]
        alloc = memref.AllocOp.get(i8, shape=[max(size, 1)], alignment=64)
        alloc.results[0].name_hint = "arena"
        block.add_op(alloc)
        return alloc.results[0]

    def _buffer(self, block: Block, arena: SSAValue | None, op: tg.FusedOp, index: int) -> SSAValue:
        r = op.results[index]
        t = memref_of(tg.tensor_of(r))
        offset = _planned_offset(op, index)
        if arena is not None and offset is not None:
            shift = arith.ConstantOp(IntegerAttr(offset, IndexType()))
            block.add_op(shift)
            view = memref.ViewOp(arena, shift, [], t)
            block.add_op(view)
            value = view.results[0]
        else:
            alloc = memref.AllocOp.get(t.get_element_type(), shape=t.get_shape(), alignment=64)
            block.add_op(alloc)
            value = alloc.results[0]
        value.name_hint = r.name_hint
        return value

    def _copy_slabs(
        self,
        block: Block,
        arena: SSAValue | None,
        op: tg.FusedOp,
        slabs: list[tuple[SSAValue, int]],
        value_of: dict[SSAValue, SSAValue],
    ) -> SSAValue:
        """A concat of contiguous slabs as one memref.copy per piece into a view of its
        buffer at the piece's byte offset (in the arena, or in an i8 allocation of its own);
        none for a piece tg-plan-memory placed at its slab, which its kernel wrote there."""
        t = memref_of(tg.tensor_of(op.results[0]))
        base = _planned_offset(op, 0)
        in_arena = arena is not None and base is not None
        if arena is None or base is None:  # (spelled out: mypy narrows both)
            raw = memref.AllocOp.get(i8, shape=[max(nbytes(tg.tensor_of(op.results[0])), 1)], alignment=64)
            block.add_op(raw)
            arena, base = raw.results[0], 0

        def view(at: int, of: MemRefType) -> SSAValue:
            shift = arith.ConstantOp(IntegerAttr(at, IndexType()))
            block.add_op(shift)
            v = memref.ViewOp(arena, shift, [], of)
            block.add_op(v)
            return v.results[0]

        whole = view(base, t)
        whole.name_hint = op.results[0].name_hint
        for piece, at in slabs:
            if in_arena and _planned_at(piece) == base + at:
                continue  # (built in place)
            copy = memref.CopyOp(value_of[piece], view(base + at, memref_of(tg.tensor_of(piece))))
            copy.location = op.location
            block.add_op(copy)
        return whole

    def _global(
        self, block: Block, globals_: dict[str, Operation], name: str, t, value: DenseIntOrFPElementsAttr | None
    ) -> SSAValue:
        mt = memref_of(t)
        if value is not None and value.type.element_type != mt.get_element_type():
            element = mt.get_element_type()
            assert isinstance(element, IntegerType | AnyFloat)  # a constant's storage type
            value = DenseIntOrFPElementsAttr(TensorType(element, mt.get_shape()), value.data)
        if name not in globals_:
            globals_[name] = memref.GlobalOp.get(
                StringAttr(name), mt, value if value is not None else UnitAttr(), constant=UnitAttr()
            )
        get = memref.GetGlobalOp(name, mt)
        get.results[0].name_hint = ssa_name(name, "global")
        block.add_op(get)
        return get.results[0]


def _planned_at(value: SSAValue) -> int | None:
    """The arena offset tg-plan-memory gave a group's result (None: not placed)."""
    owner = value.owner
    return _planned_offset(owner, owner.results.index(value)) if isinstance(owner, tg.FusedOp) else None


def _planned_offset(op: tg.FusedOp, index: int) -> int | None:
    single = op.attributes.get(OFFSET_ATTR)
    if isinstance(single, IntegerAttr) and len(op.results) == 1:
        return single.value.data
    several = op.attributes.get(OFFSETS_ATTR)
    if isinstance(several, DenseArrayBase):
        value = several.get_values()[index]
        return int(value) if value >= 0 else None
    return None


@dataclass(frozen=True)
class TgToKernel(ModulePass):
    name = "tg-to-kernel"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        mains = [f for f in op.ops if isinstance(f, func.FuncOp) and KERNEL_ATTR not in f.attributes]
        for fn in mains:
            GraphLowering(op, fn).run()
