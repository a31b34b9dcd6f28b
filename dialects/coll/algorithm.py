"""A synthesized algorithm: per GPU, threadblocks on channels running send/recv/reduce steps.

This is MSCCL's program model (research/taccl.md section 3), one op per step kind:

    coll.algorithm @ag allgather ranks 2 chunkup 1 on @ring2 proto Simple {
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
from this GPU on channel c. Reference semantics: reference.py; the proof that an algorithm
implements its collective: verify.py.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, SymbolNameConstraint, SymbolRefAttr
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.traits import HasParent, IsolatedFromAbove, NoTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from .attrs import KindAttr, PairsAttr, ProtoAttr, SlotAttr, region_ops
from .model import Algorithm, Collective, GpuProgram, Proto, Step, Threadblock
from .problem import check_collective

# --------------------------------------------------------------------------- steps


class StepOp(IRDLOperation):
    """Base of the step ops: which slots it reads/writes, checked against its GPU's buffers."""

    deps = opt_prop_def(PairsAttr)
    traits = lazy_traits_def(lambda: (HasParent(ThreadblockOp),))
    irdl_options = (ParsePropInAttrDict(),)
    OP_KIND: ClassVar[str] = ""
    NEEDS_SEND: ClassVar[bool] = False
    NEEDS_RECV: ClassVar[bool] = False

    def slots(self) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        """(source, destination) slots; a step kind without one has None there."""
        return (None, None)

    def chunk_count(self) -> int:
        """Contiguous chunks the step moves (a nop moves none; it counts as one, as in MSCCL)."""
        return 1

    def step(self) -> Step:
        src, dst = self.slots()
        deps = self.deps.value if self.deps is not None else []
        return Step(self.OP_KIND, src, dst, self.chunk_count(), list(deps))

    def verify_(self) -> None:
        count = self.chunk_count()
        if count < 1:
            raise VerifyException(f"count must be >= 1, got {count}")
        tb = self.parent_op()
        gpu = tb.parent_op() if tb is not None else None
        if not isinstance(tb, ThreadblockOp) or not isinstance(gpu, GpuOp):
            return  # detached, or reported by the HasParent traits
        if self.NEEDS_SEND and tb.send.value.data < 0:
            raise VerifyException("sends from a threadblock with no send peer (send -1)")
        if self.NEEDS_RECV and tb.recv.value.data < 0:
            raise VerifyException("receives in a threadblock with no recv peer (recv -1)")
        sizes = gpu.buffer_sizes()
        names = {"i": "input", "o": "output", "s": "scratch"}
        for slot in self.slots():
            if slot is None:
                continue
            buf, off = slot
            if off + count > sizes[buf]:
                raise VerifyException(
                    f"{buf}[{off}] x {count} is outside the {names[buf]} buffer of GPU {gpu.rank.value.data} ({sizes[buf]} chunks)"
                )
        tbs = list(region_ops(gpu.body))
        my_tb = tbs.index(tb)
        for t, s in self.deps.value if self.deps is not None else []:
            if not 0 <= t < len(tbs):
                raise VerifyException(f"depends on threadblock {t}, but GPU {gpu.rank.value.data} has {len(tbs)}")
            target = tbs[t]
            n_steps = len(region_ops(target.regions[0])) if target.regions else 0
            if not 0 <= s < n_steps:
                raise VerifyException(f"depends on step {s} of threadblock {t}, which has {n_steps} steps")
            if t == my_tb:
                raise VerifyException(f"depends on step {s} of its own threadblock; program order already covers that")


class _MoveOp(StepOp):
    """A step that moves `count` contiguous chunks."""

    count = prop_def(IntegerAttr[I64])

    def chunk_count(self) -> int:
        return self.count.value.data


@irdl_op_definition
class SendOp(_MoveOp):
    """Send src to the threadblock's send peer."""

    name = "coll.send"
    src = prop_def(SlotAttr)
    OP_KIND: ClassVar[str] = "send"
    NEEDS_SEND: ClassVar[bool] = True
    assembly_format = "$src `x` $count (`deps` $deps^)? attr-dict"

    def slots(self) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        return (self.src.value, None)


@irdl_op_definition
class RecvOp(_MoveOp):
    """Receive from the threadblock's recv peer into dst."""

    name = "coll.recv"
    dst = prop_def(SlotAttr)
    OP_KIND: ClassVar[str] = "recv"
    NEEDS_RECV: ClassVar[bool] = True
    assembly_format = "$dst `x` $count (`deps` $deps^)? attr-dict"

    def slots(self) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        return (None, self.dst.value)


class _LocalOp(_MoveOp):
    """A step that reads src and writes dst."""

    src = prop_def(SlotAttr)
    dst = prop_def(SlotAttr)
    assembly_format = "$src `->` $dst `x` $count (`deps` $deps^)? attr-dict"

    def slots(self) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
        return (self.src.value, self.dst.value)


@irdl_op_definition
class RecvReduceCopyOp(_LocalOp):
    """Receive x from the recv peer and write src + x to dst."""

    name = "coll.recv_reduce_copy"
    OP_KIND: ClassVar[str] = "recv_reduce_copy"
    NEEDS_RECV: ClassVar[bool] = True


@irdl_op_definition
class CopyOp(_LocalOp):
    """dst = src, locally."""

    name = "coll.copy"
    OP_KIND: ClassVar[str] = "copy"


@irdl_op_definition
class ReduceOp(_LocalOp):
    """dst = dst + src, locally."""

    name = "coll.reduce"
    OP_KIND: ClassVar[str] = "reduce"


@irdl_op_definition
class NopOp(StepOp):
    """Waits for its dependencies; MSCCL allows one per step, so extra ones become nops."""

    name = "coll.nop"
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
    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(GpuOp)))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`send` $send `recv` $recv `channel` $channel attr-dict-with-keyword $body"

    def verify_(self) -> None:
        gpu = self.parent_op()
        if not isinstance(gpu, GpuOp):
            return  # detached, or reported by the HasParent trait
        rank, ranks = gpu.rank.value.data, gpu.ranks()
        for what, peer in (("send", self.send.value.data), ("recv", self.recv.value.data)):
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
    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(AlgorithmOp)))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$rank `in` $input_chunks `out` $output_chunks `scratch` $scratch_chunks attr-dict-with-keyword $body"
    )

    def buffer_sizes(self) -> dict[str, int]:
        return {
            "i": self.input_chunks.value.data,
            "o": self.output_chunks.value.data,
            "s": self.scratch_chunks.value.data,
        }

    def ranks(self) -> int | None:
        alg = self.parent_op()
        return alg.ranks.value.data if isinstance(alg, AlgorithmOp) else None

    def verify_(self) -> None:
        if self.scratch_chunks.value.data < 0:
            raise VerifyException(f"scratch must be >= 0 chunks, got {self.scratch_chunks.value.data}")
        peers: dict[tuple[str, int, int], int] = {}
        for i, tb in enumerate(region_ops(self.body)):
            if not isinstance(tb, ThreadblockOp):
                raise VerifyException(f"may hold only coll.threadblock, found {tb.name}")
            for what, peer in (("send", tb.send.value.data), ("recv", tb.recv.value.data)):
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
    """An algorithm for a collective on a topology: one coll.gpu per rank."""

    name = "coll.algorithm"
    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(KindAttr)
    ranks = prop_def(IntegerAttr[I64])
    chunkup = prop_def(IntegerAttr[I64])
    topology = prop_def(SymbolRefAttr)
    root = opt_prop_def(IntegerAttr[I64])
    proto = opt_prop_def(ProtoAttr)
    min_bytes = opt_prop_def(IntegerAttr[I64])
    max_bytes = opt_prop_def(IntegerAttr[I64])
    body = region_def()
    traits = traits_def(NoTerminator(), SymbolOpInterface(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name $kind `ranks` $ranks `chunkup` $chunkup `on` $topology (`proto` $proto^)? attr-dict-with-keyword $body"

    def collective(self) -> Collective:
        return Collective(
            self.kind.data, self.ranks.value.data, self.chunkup.value.data, self.root.value.data if self.root else 0
        )

    def verify_(self) -> None:
        coll = self.collective()
        check_collective(coll.kind, coll.ranks, coll.chunkup, coll.root)
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
            if op is not self:
                try:
                    op.verify(verify_nested_ops=False)
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
            self.sym_name.data,
            self.collective(),
            self.topology.root_reference.data,
            gpus,
            self.proto.data if self.proto is not None else Proto.SIMPLE,
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
            raise VerifyException(
                f"GPU {key[0]} sends {len(a)} messages to GPU {key[1]} on channel {key[2]}, which receives {len(b)}"
            )
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                raise VerifyException(
                    f"message {k} from GPU {key[0]} to GPU {key[1]} on channel {key[2]} sends {x} chunks, the recv expects {y}"
                )


def algorithm_op(alg: Algorithm) -> AlgorithmOp:
    """The IR of an algorithm model."""
    gpu_ops = []
    for g in alg.gpus:
        tb_ops = []
        for tb in g.tbs:
            steps = []
            for s in tb.steps:
                step_props: dict[str, Attribute] = {} if s.op == "nop" else {"count": IntegerAttr(s.count, 64)}
                if s.src is not None:
                    step_props["src"] = SlotAttr.get(*s.src)
                if s.dst is not None:
                    step_props["dst"] = SlotAttr.get(*s.dst)
                if s.deps:
                    step_props["deps"] = PairsAttr.get(s.deps)
                steps.append(STEP_OPS[s.op].create(properties=step_props))
            tb_ops.append(
                ThreadblockOp.create(
                    properties={
                        "send": IntegerAttr(tb.send, 64),
                        "recv": IntegerAttr(tb.recv, 64),
                        "channel": IntegerAttr(tb.channel, 64),
                    },
                    regions=[Region(Block(steps))],
                )
            )
        gpu_ops.append(
            GpuOp.create(
                properties={
                    "rank": IntegerAttr(g.rank, 64),
                    "input_chunks": IntegerAttr(g.input_chunks, 64),
                    "output_chunks": IntegerAttr(g.output_chunks, 64),
                    "scratch_chunks": IntegerAttr(g.scratch_chunks, 64),
                },
                regions=[Region(Block(tb_ops))],
            )
        )
    props: dict[str, Attribute] = {
        "sym_name": StringAttr(alg.name),
        "kind": KindAttr(alg.collective.kind),
        "ranks": IntegerAttr(alg.collective.ranks, 64),
        "chunkup": IntegerAttr(alg.collective.chunkup, 64),
        "topology": SymbolRefAttr(alg.topology),
        "proto": ProtoAttr(alg.proto),
    }
    if alg.collective.root:
        props["root"] = IntegerAttr(alg.collective.root, 64)
    if alg.min_bytes:
        props["min_bytes"] = IntegerAttr(alg.min_bytes, 64)
    if alg.max_bytes is not None:
        props["max_bytes"] = IntegerAttr(alg.max_bytes, 64)
    return AlgorithmOp.create(properties=props, regions=[Region(Block(gpu_ops))])
