"""LLVM IR text for an image pipeline: fused, line-buffered, vectorized row loops.

Why not the tensor path (kernel.compute -> sched -> loops): image stencils need clamp and
mirror borders (kernel.load only pads with a constant), producer-consumer chains need a
row-granular compute_at with a ring of rows per producer (the line buffer), and u8/u16
bodies need integer vectors at full width. The shape of the code is fixed and regular, so
it is emitted directly, the way Halide lowers a (inline / compute_at row) schedule:

    define void @pipeline(ptr %args, i64 %a, i64 %b)   ; driver rows [a, b), one strip
      for y in [a, b):
        for each materialized stage s (producers first):
          while next[s] <= newest row of s needed for y:  call @row_s(ctx, dst, next[s]++)

`@row_s` computes one row of a stage: the body's arith ops on <V x iN>/<V x float> vectors
over the interior elements (every load in bounds at a constant offset from a row pointer,
the last vector overlapping the previous one instead of a scalar tail), and scalar code
with border-mapped columns for the few edge pixels. Inline producers (`img.compute =
"inline"`) are re-evaluated at each position their consumer reads, with their row and
column offsets composed through the border maps of every level (exactly the reference's
nested semantics). Rows of a buffered stage live in a ring of `ring_rows` rows
(dialects/img/plan.py); the row index is folded by the reader's border (clamp, mirror, or a
row of zeros).

Values MLIR leaves undefined get the reference's meaning (dialects/img/scalar.py): integer
division by zero is 0, over-wide shifts are 0 (or the sign), float-to-integer conversions
saturate (`llvm.fpto*i.sat`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, IntegerType
from xdsl.ir import Operation, SSAValue

from tessel.dialects import img
from tessel.dialects.img.attrs import Border
from tessel.dialects.img.plan import RowPlan, Stage, StageKind, fold
from tessel.dialects.img.types import element_bits
from tessel.ir.diagnostics import TesselError, op_location
from tessel.targets.cpu.img_ops import Func, Value, bits_of, const, elem_type, emit_op, vec_type
from tessel.targets.cpu.llvm_emit import ATTRIBUTES

ENTRY = "pipeline"
Chain = tuple[tuple[int, Border, int], ...]  # (offset, border, extent) from the consumer inwards


def fold_index(f: Func, i: str, extent: int, border: Border) -> tuple[str, str | None]:
    """Map an i64 index into [0, extent) by the border; for `zero`, also an i1 that is true
    where the index was outside (the value read there is 0)."""
    if border == Border.ZERO:
        lo = f.emit(f"icmp slt i64 {i}, 0")
        hi = f.emit(f"icmp sge i64 {i}, {extent}")
        out = f.emit(f"or i1 {lo}, {hi}")
        return f.emit(f"select i1 {out}, i64 0, i64 {i}"), out
    if border == Border.MIRROR and extent > 1:
        # reflection without repeating the edge is periodic with period 2 * (extent - 1):
        # fold into one period, then reflect its second half (a window wider than the
        # frame reflects more than once, as numpy's `reflect` padding does)
        period = 2 * extent - 2
        r = f.emit(f"srem i64 {i}, {period}")
        neg = f.emit(f"icmp slt i64 {r}, 0")
        j = f.emit(f"select i1 {neg}, i64 {f.emit(f'add i64 {r}, {period}')}, i64 {r}")
        back = f.emit(f"icmp sge i64 {j}, {extent}")
        return f.emit(f"select i1 {back}, i64 {f.emit(f'sub i64 {period}, {j}')}, i64 {j}"), None
    lo = f.emit(f.intrinsic("llvm.smax.i64", "i64", [("i64", i), ("i64", "0")]))
    return f.emit(f.intrinsic("llvm.smin.i64", "i64", [("i64", lo), ("i64", str(extent - 1))])), None


class PipelineEmitter:
    """A RowPlan -> one LLVM module with @pipeline(args, a, b)."""

    def __init__(self, plan: RowPlan, lanes_factor: int = 2, name: str = ENTRY):
        self.plan = plan
        self.name = name  # the entry; row functions are @<name>.row<stage>
        # llvm.memcpy is declared by the thread-pool runtime linked in (native_plan.RUNTIME)
        self.decls: set[str] = {"declare ptr @malloc(i64)", "declare ptr @calloc(i64, i64)", "declare void @free(ptr)"}
        self.funcs: list[str] = []
        self.lanes_factor = lanes_factor
        self.n_slots = len(plan.stages) + 1  # ctx: one storage base per stage, then the zero row
        self.tables: dict[int, str] = {}  # id(img.lut) -> its table's global

    # ------------------------------------------------------------------ module

    def module(self) -> str:
        rows = [self._row_function(s) for s in self.plan.materialized() if s.op not in self.plan.inline]
        main = self._main()
        return (
            "\n".join(sorted(self.decls))
            + "\n\n"
            + "\n\n".join(rows + [main])
            + f"\n\nattributes #0 = {{ {ATTRIBUTES} }}\n"
        )

    def _element(self, s: Stage) -> str:
        return elem_type(s.bits, s.is_float)

    # ------------------------------------------------------------------ the strip loop

    def _main(self) -> str:
        plan = self.plan
        f = Func(self.decls)
        n_in = len(plan.fn.body.block.args)
        f.do(f"%ctx = alloca [{self.n_slots} x ptr], align 8")
        todo = [s for s in plan.materialized() if s.op not in plan.inline]
        counters = {s.index: f"%next{s.index}" for s in todo}
        for s in todo:
            f.do(f"{counters[s.index]} = alloca i64, align 8")
        outs: dict[int, str] = {}
        for s in plan.stages:
            slot = f.emit(f"getelementptr ptr, ptr %ctx, i64 {s.index}")
            if s.kind == StageKind.INPUT:
                base = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %args, i64 {s.index}')}, align 8")
            elif s.op in plan.inline:
                base = "null"
            elif s.buffered:
                base = f.emit(f"call ptr @malloc(i64 {s.ring_rows * s.row_bytes + 64})")
            else:
                base = "null"
            for j in s.results:
                outs.setdefault(
                    s.index, f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %args, i64 {n_in + j}')}, align 8")
                )
            if s.kind != StageKind.INPUT and not s.buffered:
                base = outs[s.index]
            f.do(f"store ptr {base}, ptr {slot}, align 8")
        widest = max(s.row_bytes for s in plan.stages)
        zero = f.emit(f"call ptr @calloc(i64 {widest + 64}, i64 1)")
        f.do(f"store ptr {zero}, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {len(plan.stages)}')}, align 8")
        # first rows of the strip, consumers first
        lo: dict[int, str] = {}
        for s in reversed(todo):
            want = "%a" if s.results else str(1 << 62)
            for fp in s.reads:
                v = f.emit(f"add i64 {f.emit(f'mul i64 {lo[fp.consumer]}, {fp.scale}')}, {fp.lo}")
                want = f.emit(f.intrinsic("llvm.smin.i64", "i64", [("i64", f"{want}"), ("i64", f"{v}")]))
            lo[s.index] = f.emit(f.intrinsic("llvm.smax.i64", "i64", [("i64", f"{want}"), ("i64", "0")]))
            f.do(f"store i64 {lo[s.index]}, ptr {counters[s.index]}, align 8")

        def per_row(y: str) -> None:
            hi: dict[int, str] = {}
            for s in reversed(todo):
                want = y if s.results else "-1"
                for fp in s.reads:
                    v = f.emit(f"add i64 {f.emit(f'mul i64 {hi[fp.consumer]}, {fp.scale}')}, {fp.hi}")
                    want = f.emit(f.intrinsic("llvm.smax.i64", "i64", [("i64", f"{want}"), ("i64", f"{v}")]))
                hi[s.index] = f.emit(
                    f.intrinsic("llvm.smin.i64", "i64", [("i64", f"{want}"), ("i64", f"{s.shape[0] - 1}")])
                )
            for s in todo:
                start = f.emit(f"load i64, ptr {counters[s.index]}, align 8")
                end = f.emit(f"add i64 {hi[s.index]}, 1")

                def row(r: str, s: Stage = s) -> None:
                    self._compute_row(f, s, r, outs)

                f.loop(start, end, 1, row, prefix="r")
                top = f.emit(f.intrinsic("llvm.smax.i64", "i64", [("i64", f"{start}"), ("i64", f"{end}")]))
                f.do(f"store i64 {top}, ptr {counters[s.index]}, align 8")

        f.loop("%a", "%b", 1, per_row, prefix="y")
        for s in todo:
            if s.buffered:
                slot = f.emit(f"getelementptr ptr, ptr %ctx, i64 {s.index}")
                f.do(f"call void @free(ptr {f.emit(f'load ptr, ptr {slot}, align 8')})")
        f.do(f"call void @free(ptr {zero})")
        f.do("ret void")
        return (
            f"define void @{self.name}(ptr noalias %args, i64 %a, i64 %b) #0 {{\nentry:\n" + "\n".join(f.lines) + "\n}"
        )

    def _compute_row(self, f: Func, s: Stage, r: str, outs: dict[int, str]) -> None:
        if s.buffered:
            slot = f.emit(f"urem i64 {r}, {s.ring_rows}")
            base = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {s.index}')}, align 8")
            dst = f.emit(f"getelementptr i8, ptr {base}, i64 {f.emit(f'mul i64 {slot}, {s.row_bytes}')}")
        else:
            dst = f.emit(f"getelementptr i8, ptr {outs[s.index]}, i64 {f.emit(f'mul i64 {r}, {s.row_bytes}')}")
        f.do(f"call void @{self.name}.row{s.index}(ptr %ctx, ptr {dst}, i64 {r})")
        if s.buffered and s.results:  # a result that is also read: copy the strip's own rows out
            inside = f.emit(f"and i1 {f.emit(f'icmp sge i64 {r}, %a')}, {f.emit(f'icmp slt i64 {r}, %b')}")
            yes, no = f.tmp("cp")[1:], f.tmp("cpx")[1:]
            f.do(f"br i1 {inside}, label %{yes}, label %{no}")
            f.label(yes)
            out = f.emit(f"getelementptr i8, ptr {outs[s.index]}, i64 {f.emit(f'mul i64 {r}, {s.row_bytes}')}")
            f.do(f"call void @llvm.memcpy.p0.p0.i64(ptr {out}, ptr {dst}, i64 {s.row_bytes}, i1 false)")
            f.do(f"br label %{no}")
            f.label(no)

    # ------------------------------------------------------------------ one row of a stage

    def _row_function(self, s: Stage) -> str:
        f = Func(self.decls)
        if s.kind == StageKind.EXPR:
            ExprRow(self, f, s).emit()
        elif s.kind == StageKind.DOWNSAMPLE:
            _downsample_row(self, f, s)
        elif s.kind == StageKind.CROP:
            _crop_row(self, f, s)
        else:
            _channels_row(self, f, s)
        f.do("ret void")
        return (f"define internal void @{self.name}.row{s.index}(ptr noalias %ctx, ptr noalias %dst, i64 %r) #0 {{\nentry:\n"
                + "\n".join(f.lines) + "\n}")  # fmt: skip

    def row_pointer(self, f: Func, src: Stage, row: str, zero: str | None) -> str:
        """Address of row `row` (already inside the frame) of a materialized stage or input."""
        base = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {src.index}')}, align 8")
        if src.buffered:
            row = f.emit(f"urem i64 {row}, {src.ring_rows}")
        p = f.emit(f"getelementptr i8, ptr {base}, i64 {f.emit(f'mul i64 {row}, {src.row_bytes}')}")
        if zero is None:
            return p
        zrow = f.emit(f"load ptr, ptr {f.emit(f'getelementptr ptr, ptr %ctx, i64 {len(self.plan.stages)}')}, align 8")
        return f.emit(f"select i1 {zero}, ptr {zrow}, ptr {p}")

    def lanes_for(self, bits: int) -> int:
        return max(1, self.lanes_factor * 512 // bits)

    def table(self, op: img.LutOp) -> tuple[str, str]:
        """The LUT's table as a module constant of 32-bit entries (a gather reads 32 bits
        per lane on x86): its global name and entry type."""
        name = self.tables.get(id(op))
        wide = "float" if isinstance(op.table.get_element_type(), Float32Type) else "i32"
        if name is None:
            name = f"@{self.name}.table{len(self.tables)}"
            self.tables[id(op)] = name
            entries = ", ".join(f"{wide} {const(v, wide, 1)}" for v in op.values())
            self.decls.add(f"{name} = internal unnamed_addr constant [{op.entries} x {wide}] [{entries}], align 64")
        return name, wide

    def lookup(self, f: Func, op: img.LutOp, index: Value, lanes: int) -> Value:
        """table[index] on `lanes` (u8/u16) indices: zero-extended, clamped to the last
        entry, gathered as 32-bit entries and narrowed to the result's type."""
        name, wide = self.table(op)
        x = op.input.type
        assert isinstance(x, img.ImageType)
        ibits = 8 if x.element_name == "ui8" else 16
        i = f.emit(f"zext {vec_type(f'i{ibits}', lanes)} {index.text} to {vec_type('i32', lanes)}")
        if op.entries < 1 << ibits:
            last = const(op.entries - 1, "i32", lanes)
            i = f.emit(f.intrinsic(f"llvm.umin.{'v' + str(lanes) if lanes > 1 else ''}i32", vec_type("i32", lanes),
                                   [(vec_type("i32", lanes), i), (vec_type("i32", lanes), last)]))  # fmt: skip
        p = f.emit(f"getelementptr {wide}, ptr {name}, {vec_type('i32', lanes)} {i}")
        if lanes == 1:
            v = f.emit(f"load {wide}, ptr {p}, align 4")
        else:
            mangle = f"v{lanes}{'f32' if wide == 'float' else 'i32'}"
            v = f.emit(f.intrinsic(f"llvm.masked.gather.{mangle}.v{lanes}p0", vec_type(wide, lanes),
                                   [(f"<{lanes} x ptr>", p), ("i32", "4"), (vec_type("i1", lanes), const(1, "i1", lanes)),
                                    (vec_type(wide, lanes), "poison")]))  # fmt: skip
        out = op.result.type
        assert isinstance(out, img.ImageType)
        bits = element_bits(out.element)
        if bits < 32:
            v = f.emit(f"trunc {vec_type('i32', lanes)} {v} to {vec_type(f'i{bits}', lanes)}")
        return Value(v)


def _body_bits(op: Operation, plan: RowPlan, seen: set | None = None) -> int:
    """The widest scalar in op's body and the bodies of the inline producers it reads."""
    seen = set() if seen is None else seen
    bits = 8
    if isinstance(op, img.LutOp):
        bits = 32  # the gather reads 32-bit table entries
    for region in op.regions:
        for inner in region.block.ops:
            for r in list(inner.results) + list(inner.operands):
                if isinstance(r.type, IntegerType | Float32Type) and r.type != IntegerType(1):
                    bits = max(bits, bits_of(r.type))
    for v in op.operands:
        p = plan.by_value[v]
        if p.op is not None and p.op in plan.inline and p.op not in seen:
            seen.add(p.op)
            bits = max(bits, _body_bits(p.op, plan, seen))
    return bits


class ExprRow:
    """A row of a map/stencil/lut stage (with its inline producers)."""

    def __init__(self, em: PipelineEmitter, f: Func, s: Stage):
        assert s.op is not None
        self.em, self.f, self.s, self.op = em, f, s, s.op
        self.plan = em.plan
        self.h, self.w, self.c = s.shape

    def leaves(self, op: Operation, rows: Chain, cols: Chain, out: set) -> None:
        """Every (source stage, row chain, column chain) the body reads."""
        for v, dy, dx, border in _taps(op):
            src = self.plan.by_value[v]
            r2 = rows + ((dy, border, src.shape[0]),)
            c2 = cols + ((dx, border, src.shape[1]),)
            if src.op is not None and src.op in self.plan.inline:
                self.leaves(src.op, r2, c2, out)
            else:
                out.add((src.index, r2, c2))

    def emit(self) -> None:
        f = self.f
        leaves: set = set()
        self.leaves(self.op, (), (), leaves)
        # row pointers, one per (source, row chain)
        self.rowptr: dict[tuple, str] = {}
        for src, rows, _ in sorted(leaves, key=str):
            if (src, rows) in self.rowptr:
                continue
            i, zero = "%r", None
            for dy, border, extent in rows:
                i = f.emit(f"add i64 {i}, {dy}")
                i, z = fold_index(f, i, extent, border)
                zero = z or zero
            self.rowptr[(src, rows)] = self.em.row_pointer(f, self.plan.stages[src], i, zero)
        left = max((sum(max(-dx, 0) for dx, _, _ in cols) for _, _, cols in leaves), default=0)
        right = max((sum(max(dx, 0) for dx, _, _ in cols) for _, _, cols in leaves), default=0)
        n = self.w * self.c
        lo, hi = min(left, self.w) * self.c, max(self.w - right, 0) * self.c
        lanes = self.em.lanes_for(_body_bits(self.op, self.plan))
        if hi - lo >= lanes:
            f.loop(str(lo), str(hi - lanes + 1), lanes, lambda e: self.vector_at(e, lanes), prefix="v")
            self.vector_at(str(hi - lanes), lanes)  # the last vector overlaps the previous one
            edges = [(0, lo), (hi, n)]
        else:
            edges = [(0, n)]
        for a, b in edges:
            if b > a:
                f.loop(str(a), str(b), 1, self.scalar_at, prefix="e")

    def vector_at(self, e: str, lanes: int) -> None:
        memo: dict = {}

        def load(src: int, rows: Chain, cols: Chain) -> Value:
            stage = self.plan.stages[src]
            t = self.em._element(stage)
            dx = sum(d for d, _, _ in cols)
            idx = self.f.emit(f"add i64 {e}, {dx * stage.shape[2]}") if dx else e
            p = self.f.emit(f"getelementptr {t}, ptr {self.rowptr[(src, rows)]}, i64 {idx}")
            return Value(self.f.emit(f"load {vec_type(t, lanes)}, ptr {p}, align 1"))

        v = self.value(self.op, (), (), lanes, load, memo)
        t = self.em._element(self.s)
        p = self.f.emit(f"getelementptr {t}, ptr %dst, i64 {e}")
        self.f.do(f"store {vec_type(t, lanes)} {v.text}, ptr {p}, align 1")

    def scalar_at(self, e: str) -> None:
        f = self.f
        c = self.c
        x, ch = (f.emit(f"udiv i64 {e}, {c}"), f.emit(f"urem i64 {e}, {c}")) if c > 1 else (e, "0")
        memo: dict = {}

        def load(src: int, rows: Chain, cols: Chain) -> Value:
            stage = self.plan.stages[src]
            t = self.em._element(stage)
            i, zero = x, None
            for dx, border, extent in cols:
                i = f.emit(f"add i64 {i}, {dx}")
                i, z = fold_index(f, i, extent, border)
                zero = z or zero
            idx = f.emit(f"add i64 {f.emit(f'mul i64 {i}, {stage.shape[2]}')}, {ch}") if stage.shape[2] > 1 else i
            v = f.emit(
                f"load {t}, ptr {f.emit(f'getelementptr {t}, ptr {self.rowptr[(src, rows)]}, i64 {idx}')}, align 1"
            )
            if zero is not None:
                v = f.emit(f"select i1 {zero}, {t} {const(0, t, 1)}, {t} {v}")
            return Value(v)

        v = self.value(self.op, (), (), 1, load, memo)
        t = self.em._element(self.s)
        f.do(f"store {t} {v.text}, ptr {f.emit(f'getelementptr {t}, ptr %dst, i64 {e}')}, align 1")

    def value(self, op: Operation, rows: Chain, cols: Chain, lanes: int, load, memo: dict) -> Value:
        """The op's result at the position reached through (rows, cols)."""
        key = (id(op), rows, cols)
        if key in memo:
            return memo[key]
        args: list[Value] = []
        for v, dy, dx, border in _taps(op):
            src = self.plan.by_value[v]
            r2 = rows + ((dy, border, src.shape[0]),)
            c2 = cols + ((dx, border, src.shape[1]),)
            k2 = (src.index, r2, c2)
            if src.op is not None and src.op in self.plan.inline:
                args.append(self.value(src.op, r2, c2, lanes, load, memo))
            else:
                if k2 not in memo:
                    memo[k2] = load(src.index, r2, c2)
                args.append(memo[k2])
        if isinstance(op, img.LutOp):
            memo[key] = self.em.lookup(self.f, op, args[0], lanes)
            return memo[key]
        block = op.regions[0].block
        env: dict[SSAValue, Value] = dict(zip(block.args, args))
        for inner in block.ops:
            if isinstance(inner, img.YieldOp):
                memo[key] = env[inner.values[0]]
                return memo[key]
            env[inner.results[0]] = emit_op(self.f, inner, [env[a] for a in inner.operands], lanes)
        raise TesselError("image body has no img.yield", op_location(op))


def _taps(op: Operation) -> list[tuple[SSAValue, int, int, Border]]:
    """(input, dy, dx, border) for each body argument (a table's index), in order."""
    if isinstance(op, img.MapOp):
        return [(v, 0, 0, Border.CLAMP) for v in op.inputs]
    if isinstance(op, img.LutOp):
        return [(op.input, 0, 0, Border.CLAMP)]
    assert isinstance(op, img.StencilOp)
    kh, kw = op.size
    top, left = (kh - 1) // 2, (kw - 1) // 2
    return [(op.input, i // kw - top, i % kw - left, op.border_mode) for i in range(kh * kw)]


def _downsample_row(em: PipelineEmitter, f: Func, s: Stage) -> None:
    """One output row: vectors over the whole blocks (one wide load per source row, its
    columns picked by shuffles), scalar code with folded columns for a partial last block
    (`rounding ceil`); source rows past the frame are folded by the border."""
    op = s.op
    assert isinstance(op, img.DownsampleOp)
    src = em.plan.by_value[op.input]
    fy, fx = op.factors
    nearest = not op.average
    border = op.border_mode
    t = em._element(s)
    is_float = s.is_float
    signed = s.signed
    c = s.shape[2]
    n_out = s.shape[1] * c
    n_full = min(s.shape[1], src.shape[1] // fx) * c  # output elements whose block is whole
    n = fy * fx
    acc = "float" if is_float else ("i16" if s.bits == 8 and n <= 256 else "i32" if s.bits <= 16 else "i64")
    past = s.shape[0] * fy > src.shape[0]  # rounding ceil: the last block reads rows past the frame
    rows = []
    for i in range(1 if nearest else fy):
        at, zero = f.emit(f"add i64 {f.emit(f'mul i64 %r, {fy}')}, {i}"), None
        if past:
            at, zero = fold_index(f, at, src.shape[0], border)
        rows.append(em.row_pointer(f, src, at, zero))
    base_lanes = em.lanes_for(int(acc[1:]) if not is_float else 32)
    lanes = max(c, base_lanes // c * c)

    class Sum:
        """The block's value, accumulated part by part (widened sums, then the rounded mean)."""

        def __init__(self, width: int) -> None:
            self.width, self.total = width, ""

        def add(self, part: str) -> None:
            va = vec_type(acc, self.width)
            if nearest:
                self.total = part
                return
            if not is_float:
                part = f.emit(f"{'sext' if signed else 'zext'} {vec_type(t, self.width)} {part} to {va}")
            self.total = (
                part if not self.total else f.emit(f"{'fadd' if is_float else 'add'} {va} {self.total}, {part}")
            )

        def value(self) -> str:
            width, total = self.width, self.total
            if nearest:
                return total
            va = vec_type(acc, width)
            if is_float:
                return f.emit(f"fdiv {va} {total}, {const(float(n), 'float', width)}")
            biased = f.emit(f"add {va} {total}, {const(n // 2, acc, width)}")
            if signed:  # floor division, as the reference's (sum + n//2) // n
                q = f.emit(f"sdiv {va} {biased}, {const(n, acc, width)}")
                r = f.emit(f"srem {va} {biased}, {const(n, acc, width)}")
                fix = f.emit(f"and {vec_type('i1', width)} {f.emit(f'icmp ne {va} {r}, {const(0, acc, width)}')}, "
                             f"{f.emit(f'icmp slt {va} {biased}, {const(0, acc, width)}')}")  # fmt: skip
                bits1 = vec_type("i1", width)
                total = f.emit(f"sub {va} {q}, {f.emit(f'zext {bits1} {fix} to {va}')}")
            else:
                total = f.emit(f"udiv {va} {biased}, {const(n, acc, width)}")
            return f.emit(f"trunc {va} {total} to {vec_type(t, width)}")

    def block_at(e: str, width: int) -> None:
        total = Sum(width)
        for p in rows:
            at = f.emit(f"mul i64 {e}, {fx}")
            wide = f.emit(
                f"load {vec_type(t, width * fx)}, ptr {f.emit(f'getelementptr {t}, ptr {p}, i64 {at}')}, align 1"
            )
            for j in range(1 if nearest else fx):
                if width == 1 and fx == 1:
                    part = wide
                else:
                    mask = ", ".join(f"i32 {(k // c * fx + j) * c + k % c}" for k in range(width))
                    part = f.emit(
                        f"shufflevector {vec_type(t, width * fx)} {wide}, {vec_type(t, width * fx)} poison, <{width} x i32> <{mask}>"
                    )
                    if width == 1:
                        part = f.emit(f"extractelement <1 x {t}> {part}, i64 0")
                total.add(part)
        f.do(
            f"store {vec_type(t, width)} {total.value()}, ptr {f.emit(f'getelementptr {t}, ptr %dst, i64 {e}')}, align 1"
        )

    full = n_full // lanes * lanes
    if full:
        f.loop("0", str(full), lanes, lambda e: block_at(e, lanes), prefix="v")
    if full < n_full:
        f.loop(str(full), str(n_full), c, lambda e: block_at(e, c), prefix="e")
    for e in range(n_full, n_out):  # the partial block of `rounding ceil`: columns folded here
        x, ch = divmod(e, c)
        scalar = Sum(1)
        for p in rows:
            for j in range(1 if nearest else fx):
                col = fold(x * fx + j, src.shape[1], border)
                if col is None:
                    scalar.add(const(0, t, 1))
                    continue
                at = f.emit(f"getelementptr {t}, ptr {p}, i64 {col * c + ch}")
                scalar.add(f.emit(f"load {t}, ptr {at}, align 1"))
        f.do(f"store {t} {scalar.value()}, ptr {f.emit(f'getelementptr {t}, ptr %dst, i64 {e}')}, align 1")


def _crop_row(em: PipelineEmitter, f: Func, s: Stage) -> None:
    op = s.op
    assert isinstance(op, img.CropOp)
    src = em.plan.by_value[op.input]
    y, x, _, _ = op.box
    p = em.row_pointer(f, src, f.emit(f"add i64 %r, {y}"), None)
    start = f.emit(f"getelementptr i8, ptr {p}, i64 {x * src.shape[2] * src.bits // 8}")
    f.do(f"call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr {start}, i64 {s.row_bytes}, i1 false)")


def _channels_row(em: PipelineEmitter, f: Func, s: Stage) -> None:
    """img.extract (one channel out of C) or img.merge (K planes interleaved): strided
    copies, written as plain loops that LLVM's loop vectorizer turns into shuffles of
    interleaved access groups."""
    op = s.op
    t = em._element(s)
    w = s.shape[1]
    if isinstance(op, img.ExtractOp):
        src = em.plan.by_value[op.input]
        p = em.row_pointer(f, src, "%r", None)
        c, n = op.channel.value.data, src.shape[2]

        def pick(x: str) -> None:
            at = f.emit(f"add i64 {f.emit(f'mul i64 {x}, {n}')}, {c}")
            v = f.emit(f"load {t}, ptr {f.emit(f'getelementptr {t}, ptr {p}, i64 {at}')}, align 1")
            f.do(f"store {t} {v}, ptr {f.emit(f'getelementptr {t}, ptr %dst, i64 {x}')}, align 1")

        f.loop("0", str(w), 1, pick, prefix="x")
        return
    assert isinstance(op, img.MergeOp)
    planes = [em.row_pointer(f, em.plan.by_value[v], "%r", None) for v in op.inputs]
    k = len(planes)

    def put(x: str) -> None:
        base = f.emit(f"mul i64 {x}, {k}")
        for i, p in enumerate(planes):
            v = f.emit(f"load {t}, ptr {f.emit(f'getelementptr {t}, ptr {p}, i64 {x}')}, align 1")
            at = f.emit(f"add i64 {base}, {i}")
            f.do(f"store {t} {v}, ptr {f.emit(f'getelementptr {t}, ptr %dst, i64 {at}')}, align 1")

    f.loop("0", str(w), 1, put, prefix="x")


def emit_pipeline(plan: RowPlan, lanes_factor: int = 2, name: str = ENTRY) -> str:
    """The LLVM module of a planned pipeline; entry `@<name>(ptr args, i64 a, i64 b)`
    with args = input base pointers, then output base pointers."""
    return PipelineEmitter(plan, lanes_factor, name).module()


def emit_pipeline_functions(plan: RowPlan, lanes_factor: int, name: str, decls: set[str]) -> list[str]:
    """The pipeline's functions alone (row functions, then the entry), their declarations
    added to `decls`: for a module holding several pipelines (targets/cpu/img_program.py)."""
    em = PipelineEmitter(plan, lanes_factor, name)
    decls |= em.decls
    em.decls = decls
    rows = [em._row_function(s) for s in plan.materialized() if s.op not in plan.inline]
    return rows + [em._main()]
