"""A synthesized algorithm: per GPU, threadblocks on channels running send/recv/reduce steps.

This is MSCCL's program model (research/taccl.md section 3), one op per step kind:

    coll.algorithm @ag allgather ranks 2 chunkup 1 on @ring2 {proto = "Simple"} {
      coll.gpu 0 in 1 out 2 scratch 0 {
        coll.threadblock send 1 recv -1 channel 0 {
          coll.send i[0] x 1
        }
        coll.threadblock send -1 recv 1 channel 0 {
          coll.recv o[1] x 1
        }
        coll.threadblock send -1 recv -1 channel 0 {
          coll.copy i[0] -> o[0] x 1
        }
      }
      ...
    }

Threadblocks are numbered by position in their GPU, steps by position in their threadblock;
`deps [(tb, step)]` names steps of the same GPU that must finish first. The k-th send of a
threadblock on (peer p, channel c) pairs with the k-th recv of p's threadblock that receives
from this GPU on channel c. Reference semantics: targets/nccl/interpreter.py.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, SymbolNameConstraint, SymbolRefAttr
from xdsl.ir import Block, Region
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.traits import IsolatedFromAbove, NoTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from .attrs import region_ops, KindAttr, PairsAttr, SlotAttr
from .model import Algorithm, Collective, GpuProgram, Step, Threadblock
from .problem import check_collective

# --------------------------------------------------------------------------- steps


class StepOp(IRDLOperation):
    """Base of the step ops: which slots it reads/writes, checked against its GPU's buffers."""

    count = prop_def(IntegerAttr[I64])
    deps = opt_prop_def(PairsAttr)
    irdl_options = (ParsePropInAttrDict(),)
    OP_KIND: ClassVar[str] = ""
    NEEDS_SEND: ClassVar[bool] = False
    NEEDS_RECV: ClassVar[bool] = False

    def slots(self) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        src = getattr(self, "src", None)
        dst = getattr(self, "dst", None)
        return (src.value if src is not None else None, dst.value if dst is not None else None)

    def step(self) -> Step:
        src, dst = self.slots()
        deps = self.deps.value if self.deps is not None else []
        return Step(self.OP_KIND, src, dst, self.chunk_count(), list(deps))

    def chunk_count(self) -> int:
        return self.count.value.data if self.count is not None else 1

    def verify_(self) -> None:
        count = self.chunk_count()
        if count < 1:
            raise VerifyException(f"count must be >= 1, got {count}")
        tb = self.parent_op()
        gpu = tb.parent_op() if tb is not None else None
        if not isinstance(tb, ThreadblockOp) or not isinstance(gpu, GpuOp):
            raise VerifyException("must be inside a coll.threadblock of a coll.gpu")
        if self.NEEDS_SEND and tb.send.value.data < 0:
            raise VerifyException("sends from a threadblock with no send peer (send -1)")
        if self.NEEDS_RECV and tb.recv.value.data < 0:
            raise VerifyException("receives in a threadblock with no recv peer (recv -1)")
        sizes = gpu.buffer_sizes()
        for slot in self.slots():
            if slot is None:
                continue
            buf, off = slot
            if off + count > sizes[buf]:
                raise VerifyException(
                    f"{buf}[{off}] x {count} is outside the {'input' if buf == 'i' else 'output' if buf == 'o' else 'scratch'} buffer of GPU {gpu.rank.value.data} ({sizes[buf]} chunks)"
                )
        tbs = list(region_ops(gpu.body))
        my_tb = tbs.index(tb)
        for t, s in self.deps.value if self.deps is not None else []:
            if not 0 <= t < len(tbs):
                raise VerifyException(f"depends on threadblock {t}, but GPU {gpu.rank.value.data} has {len(tbs)}")
            target = tbs[t]
            assert isinstance(target, ThreadblockOp)
            n_steps = len(region_ops(target.body))
            if not 0 <= s < n_steps:
                raise VerifyException(f"depends on step {s} of threadblock {t}, which has {n_steps} steps")
            if t == my_tb:
                raise VerifyException(f"depends on step {s} of its own threadblock; program order already covers that")


@irdl_op_definition
class SendOp(StepOp):
    name = "coll.send"
    src = prop_def(SlotAttr)
    OP_KIND: ClassVar[str] = "send"
    NEEDS_SEND: ClassVar[bool] = True
    assembly_format = "$src `x` $count (`deps` $deps^)? attr-dict"


@irdl_op_definition
class RecvOp(StepOp):
    name = "coll.recv"
    dst = prop_def(SlotAttr)
    OP_KIND: ClassVar[str] = "recv"
    NEEDS_RECV: ClassVar[bool] = True
    assembly_format = "$dst `x` $count (`deps` $deps^)? attr-dict"


@irdl_op_definition
class RecvReduceCopyOp(StepOp):
    """Receive x from the recv peer and write src + x to dst."""

    name = "coll.recv_reduce_copy"
    src = prop_def(SlotAttr)
    dst = prop_def(SlotAttr)
    OP_KIND: ClassVar[str] = "recv_reduce_copy"
    NEEDS_RECV: ClassVar[bool] = True
    assembly_format = "$src `->` $dst `x` $count (`deps` $deps^)? attr-dict"


@irdl_op_definition
class CopyOp(StepOp):
    name = "coll.copy"
    src = prop_def(SlotAttr)
    dst = prop_def(SlotAttr)
    OP_KIND: ClassVar[str] = "copy"
    assembly_format = "$src `->` $dst `x` $count (`deps` $deps^)? attr-dict"


@irdl_op_definition
class ReduceOp(StepOp):
    """dst = dst + src, locally."""

    name = "coll.reduce"
    src = prop_def(SlotAttr)
    dst = prop_def(SlotAttr)
    OP_KIND: ClassVar[str] = "reduce"
    assembly_format = "$src `->` $dst `x` $count (`deps` $deps^)? attr-dict"


@irdl_op_definition
class NopOp(StepOp):
    """Waits for its dependencies; MSCCL allows one per step, so extra ones become nops."""

    name = "coll.nop"
    count = opt_prop_def(IntegerAttr[I64])
    OP_KIND: ClassVar[str] = "nop"
    assembly_format = "(`deps` $deps^)? attr-dict"


STEP_OPS: dict[str, type[StepOp]] = {
    cls.OP_KIND: cls for cls in (SendOp, RecvOp, RecvReduceCopyOp, CopyOp, ReduceOp, NopOp)
}

# --------------------------------------------------------------------------- containers


@irdl_op_definition
class ThreadblockOp(IRDLOperation):
    """A threadblock with at most one send peer and one recv peer (-1: none) on a channel."""

    name = "coll.threadblock"
    send = prop_def(IntegerAttr[I64])
    recv = prop_def(IntegerAttr[I64])
    channel = prop_def(IntegerAttr[I64])
    body = region_def()
    traits = traits_def(NoTerminator())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`send` $send `recv` $recv `channel` $channel attr-dict-with-keyword $body"

    def verify_(self) -> None:
        gpu = self.parent_op()
        if not isinstance(gpu, GpuOp):
            raise VerifyException("must be inside a coll.gpu")
        rank, ranks = gpu.rank.value.data, gpu.ranks()
        for what in ("send", "recv"):
            peer = getattr(self, what).value.data
            if peer == rank:
                raise VerifyException(f"{what} peer is the GPU itself ({rank})")
            if peer < -1 or (ranks is not None and peer >= ranks):
                raise VerifyException(f"{what} peer {peer} is out of range (-1 or 0..{(ranks or 1) - 1})")
        if self.channel.value.data < 0:
            raise VerifyException(f"channel must be >= 0, got {self.channel.value.data}")
        for op in region_ops(self.body):
            if not isinstance(op, StepOp):
                raise VerifyException(f"may hold only step ops, found {op.name}")


@irdl_op_definition
class GpuOp(IRDLOperation):
    """One rank's program and the sizes (in chunks) of its input, output and scratch buffers."""

    name = "coll.gpu"
    rank = prop_def(IntegerAttr[I64])
    input_chunks = prop_def(IntegerAttr[I64])
    output_chunks = prop_def(IntegerAttr[I64])
    scratch_chunks = prop_def(IntegerAttr[I64])
    body = region_def()
    traits = traits_def(NoTerminator())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$rank `in` $input_chunks `out` $output_chunks `scratch` $scratch_chunks attr-dict-with-keyword $body"

    def buffer_sizes(self) -> dict[str, int]:
        return {"i": self.input_chunks.value.data, "o": self.output_chunks.value.data, "s": self.scratch_chunks.value.data}

    def ranks(self) -> int | None:
        alg = self.parent_op()
        return alg.ranks.value.data if isinstance(alg, AlgorithmOp) else None

    def verify_(self) -> None:
        if not isinstance(self.parent_op(), AlgorithmOp):
            raise VerifyException("must be inside a coll.algorithm")
        if self.scratch_chunks.value.data < 0:
            raise VerifyException(f"scratch must be >= 0 chunks, got {self.scratch_chunks.value.data}")
        peers: dict[tuple[str, int, int], int] = {}
        for i, tb in enumerate(region_ops(self.body)):
            if not isinstance(tb, ThreadblockOp):
                raise VerifyException(f"may hold only coll.threadblock, found {tb.name}")
            for what in ("send", "recv"):
                peer = getattr(tb, what).value.data
                if peer < 0:
                    continue
                key = (what, peer, tb.channel.value.data)
                if key in peers:
                    raise VerifyException(
                        f"threadblocks {peers[key]} and {i} both {what} {'to' if what == 'send' else 'from'} GPU {peer} on channel {key[2]}; one connection per peer and channel"
                    )
                peers[key] = i


@irdl_op_definition
class AlgorithmOp(IRDLOperation):
    name = "coll.algorithm"
    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(KindAttr)
    ranks = prop_def(IntegerAttr[I64])
    chunkup = prop_def(IntegerAttr[I64])
    topology = prop_def(SymbolRefAttr)
    root = opt_prop_def(IntegerAttr[I64])
    proto = opt_prop_def(StringAttr)
    min_bytes = opt_prop_def(IntegerAttr[I64])
    max_bytes = opt_prop_def(IntegerAttr[I64])
    body = region_def()
    traits = traits_def(NoTerminator(), SymbolOpInterface(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name $kind `ranks` $ranks `chunkup` $chunkup `on` $topology attr-dict-with-keyword $body"

    def collective(self) -> Collective:
        return Collective(self.kind.value, self.ranks.value.data, self.chunkup.value.data, self.root.value.data if self.root else 0)

    def verify_(self) -> None:
        coll = self.collective()
        check_collective(coll.kind, coll.ranks, coll.chunkup, coll.root)
        if self.proto is not None and self.proto.data not in ("Simple", "LL", "LL128"):
            raise VerifyException(f"proto must be Simple, LL or LL128, got {self.proto.data}")
        gpus = list(region_ops(self.body))
        ranks = []
        for op in gpus:
            if not isinstance(op, GpuOp):
                raise VerifyException(f"may hold only coll.gpu, found {op.name}")
            ranks.append(op.rank.value.data)
            sizes = op.buffer_sizes()
            if sizes["i"] != coll.input_chunks or sizes["o"] != coll.output_chunks:
                raise VerifyException(
                    f"GPU {ranks[-1]} has in {sizes['i']} out {sizes['o']}; a {coll.kind} with chunkup {coll.chunkup} on {coll.ranks} ranks needs in {coll.input_chunks} out {coll.output_chunks}"
                )
        if sorted(ranks) != list(range(coll.ranks)):
            raise VerifyException(f"needs one coll.gpu per rank 0..{coll.ranks - 1}, got ranks {ranks}")
        for op in self.walk():
            if op is not self and hasattr(op, "verify_"):
                try:
                    op.verify_()
                except VerifyException:
                    return  # reported at that op, with its location, when the walk reaches it
        _check_connections(self.algorithm())

    def algorithm(self) -> Algorithm:
        gpus = []
        for op in region_ops(self.body):
            assert isinstance(op, GpuOp)
            tbs = []
            for tb in region_ops(op.body):
                assert isinstance(tb, ThreadblockOp)
                steps = [s.step() for s in region_ops(tb.body) if isinstance(s, StepOp)]
                tbs.append(Threadblock(tb.send.value.data, tb.recv.value.data, tb.channel.value.data, steps))
            sizes = op.buffer_sizes()
            gpus.append(GpuProgram(op.rank.value.data, sizes["i"], sizes["o"], sizes["s"], tbs))
        gpus.sort(key=lambda g: g.rank)
        return Algorithm(
            self.sym_name.data, self.collective(), self.topology.root_reference.data, gpus,
            self.proto.data if self.proto is not None else "Simple",
            self.min_bytes.value.data if self.min_bytes is not None else 0,
            self.max_bytes.value.data if self.max_bytes is not None else None,
        )


def _check_connections(alg: Algorithm) -> None:
    """Every send has its recv: message counts and sizes agree per (sender, receiver, channel)."""
    sends: dict[tuple[int, int, int], list[int]] = {}
    recvs: dict[tuple[int, int, int], list[int]] = {}
    for g in alg.gpus:
        for tb in g.tbs:
            for s in tb.steps:
                if s.op == "send":
                    sends.setdefault((g.rank, tb.send, tb.channel), []).append(s.count)
                elif s.op in ("recv", "recv_reduce_copy"):
                    recvs.setdefault((tb.recv, g.rank, tb.channel), []).append(s.count)
    for key in sorted(set(sends) | set(recvs)):
        a, b = sends.get(key, []), recvs.get(key, [])
        if len(a) != len(b):
            raise VerifyException(f"GPU {key[0]} sends {len(a)} messages to GPU {key[1]} on channel {key[2]}, which receives {len(b)}")
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                raise VerifyException(f"message {k} from GPU {key[0]} to GPU {key[1]} on channel {key[2]} sends {x} chunks, the recv expects {y}")


def algorithm_op(alg: Algorithm) -> AlgorithmOp:
    """The IR of an algorithm model."""
    gpu_ops = []
    for g in alg.gpus:
        tb_ops = []
        for tb in g.tbs:
            steps = []
            for s in tb.steps:
                props: dict = {} if s.op == "nop" else {"count": IntegerAttr(s.count, 64)}
                if s.src is not None:
                    props["src"] = SlotAttr.get(*s.src)
                if s.dst is not None:
                    props["dst"] = SlotAttr.get(*s.dst)
                if s.deps:
                    props["deps"] = PairsAttr.get(s.deps)
                steps.append(STEP_OPS[s.op].create(properties=props))
            tb_ops.append(ThreadblockOp.create(
                properties={"send": IntegerAttr(tb.send, 64), "recv": IntegerAttr(tb.recv, 64), "channel": IntegerAttr(tb.channel, 64)},
                regions=[Region(Block(steps))],
            ))
        gpu_ops.append(GpuOp.create(
            properties={"rank": IntegerAttr(g.rank, 64), "input_chunks": IntegerAttr(g.input_chunks, 64),
                        "output_chunks": IntegerAttr(g.output_chunks, 64), "scratch_chunks": IntegerAttr(g.scratch_chunks, 64)},
            regions=[Region(Block(tb_ops))],
        ))
    props: dict = {
        "sym_name": StringAttr(alg.name), "kind": KindAttr.get(alg.collective.kind), "ranks": IntegerAttr(alg.collective.ranks, 64),
        "chunkup": IntegerAttr(alg.collective.chunkup, 64), "topology": SymbolRefAttr(alg.topology), "proto": StringAttr(alg.proto),
    }
    if alg.collective.root:
        props["root"] = IntegerAttr(alg.collective.root, 64)
    if alg.min_bytes:
        props["min_bytes"] = IntegerAttr(alg.min_bytes, 64)
    if alg.max_bytes is not None:
        props["max_bytes"] = IntegerAttr(alg.max_bytes, 64)
    return AlgorithmOp.create(properties=props, regions=[Region(Block(gpu_ops))])
