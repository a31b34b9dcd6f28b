"""What to synthesize: a collective request and, optionally, a communication sketch.

    coll.collective @ag allgather ranks 16 chunkup 1 size 1048576 on @ndv2x2
    coll.sketch @sk1 conn [(0, 1)] symmetry [(8, 16)] chunkup 1
    coll.sketch @sk2 conn direct_map switch_policy "uc-max"

`size` is the larger per-rank buffer in bytes (allgather: the output; reduce_scatter: the
input). A sketch (TACCL, NSDI'23 section 4) restricts which local GPU may send over IB to
which local GPU of other nodes (`conn`), which GPUs' chunks a sender carries (`senders`,
pairs (sender, gpu)), rotations that map the algorithm onto itself (`symmetry`,
(offset, group) pairs), the switch policy and the chunking of each rank's buffer.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, SymbolNameConstraint, SymbolRefAttr, UnitAttr
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, opt_prop_def, prop_def, traits_def
from xdsl.traits import SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from .attrs import ConnAttr, KindAttr, PairsAttr, SwitchPolicyAttr
from .model import MAX_CHUNKUP, MAX_GPUS, Collective, CollKind, Sketch


@irdl_op_definition
class CollectiveOp(IRDLOperation):
    """A request: this collective, on `ranks` ranks of a topology, with `size`-byte buffers."""

    name = "coll.collective"
    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(KindAttr)
    ranks = prop_def(IntegerAttr[I64])
    chunkup = prop_def(IntegerAttr[I64])
    size = prop_def(IntegerAttr[I64])
    topology = prop_def(SymbolRefAttr)
    root = opt_prop_def(IntegerAttr[I64])
    traits = traits_def(SymbolOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name $kind `ranks` $ranks `chunkup` $chunkup `size` $size `on` $topology attr-dict"

    def collective(self) -> Collective:
        root = self.root.value.data if self.root is not None else 0
        return Collective(self.kind.data, self.ranks.value.data, self.chunkup.value.data, root)

    def verify_(self) -> None:
        check_collective(
            self.kind.data, self.ranks.value.data, self.chunkup.value.data, self.root.value.data if self.root else 0
        )
        if self.size.value.data < 1:
            raise VerifyException(f"size must be >= 1 byte, got {self.size.value.data}")


def check_collective(kind: CollKind, ranks: int, chunkup: int, root: int) -> None:
    """The checks a request and an algorithm share (both name a collective, ranks and chunkup)."""
    if ranks < 1:
        raise VerifyException(f"ranks must be >= 1, got {ranks}")
    if chunkup < 1:
        raise VerifyException(f"chunkup must be >= 1, got {chunkup}")
    if ranks > MAX_GPUS:
        raise VerifyException(f"ranks must be <= {MAX_GPUS}, got {ranks}")
    if chunkup > MAX_CHUNKUP:
        raise VerifyException(f"chunkup must be <= {MAX_CHUNKUP}, got {chunkup}")
    if not 0 <= root < ranks:
        raise VerifyException(f"root {root} is out of range 0..{ranks - 1}")
    if root and kind not in (CollKind.BROADCAST, CollKind.REDUCE):
        raise VerifyException(f"only broadcast and reduce take a root, not {kind}")


@irdl_op_definition
class SketchOp(IRDLOperation):
    """TACCL's communication sketch: hints that shrink the synthesis problem (model.Sketch)."""

    name = "coll.sketch"
    sym_name = prop_def(SymbolNameConstraint())
    conn = opt_prop_def(ConnAttr)
    senders = opt_prop_def(PairsAttr)
    symmetry = opt_prop_def(PairsAttr)
    chunkup = opt_prop_def(IntegerAttr[I64])
    switch_policy = opt_prop_def(SwitchPolicyAttr)
    nodes = opt_prop_def(IntegerAttr[I64])
    enforce_ordering = opt_prop_def(UnitAttr)
    traits = traits_def(SymbolOpInterface())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$sym_name (`nodes` $nodes^)? (`conn` $conn^)? (`senders` $senders^)? (`symmetry` $symmetry^)?"
        " (`chunkup` $chunkup^)? (`switch_policy` $switch_policy^)? (`enforce_ordering` $enforce_ordering^)? attr-dict"
    )

    def sketch(self) -> Sketch:
        senders: dict[int, tuple[int, ...]] | None = None
        if self.senders is not None:
            carried: dict[int, list[int]] = {}
            for sender, gpu in self.senders.value:
                carried.setdefault(sender, []).append(gpu)
            senders = {k: tuple(v) for k, v in carried.items()}
        return Sketch(
            name=self.sym_name.data,
            nnodes=self.nodes.value.data if self.nodes is not None else None,
            conn=self.conn.value if self.conn is not None else "fully-connected",
            senders=senders,
            symmetry=self.symmetry.value if self.symmetry is not None else [],
            switch_policy=self.switch_policy.data if self.switch_policy is not None else None,
            chunkup=self.chunkup.value.data if self.chunkup is not None else 1,
            enforce_ordering=self.enforce_ordering is not None,
        )

    def verify_(self) -> None:
        sk = self.sketch()
        if sk.chunkup < 1:
            raise VerifyException(f"chunkup must be >= 1, got {sk.chunkup}")
        if sk.nnodes is not None and sk.nnodes < 1:
            raise VerifyException(f"nodes must be >= 1, got {sk.nnodes}")
        if isinstance(sk.conn, list):
            if not sk.conn:
                raise VerifyException("conn lists no (sender, receiver) pair")
            for a, b in sk.conn:
                if a < 0 or b < 0:
                    raise VerifyException(f"conn pair ({a}, {b}) has a negative local GPU")
        for off, group in sk.symmetry:
            if group < 1 or not 0 < off < group:
                raise VerifyException(f"symmetry ({off}, {group}) needs 0 < offset < group")


def sketch_op(sk: Sketch) -> SketchOp:
    """The IR of a sketch model."""
    props: dict[str, Attribute] = {"sym_name": StringAttr(sk.name), "chunkup": IntegerAttr(sk.chunkup, 64)}
    if sk.nnodes is not None:
        props["nodes"] = IntegerAttr(sk.nnodes, 64)
    props["conn"] = ConnAttr.get(sk.conn)
    if sk.senders:
        props["senders"] = PairsAttr.get([(s, g) for s, gs in sk.senders.items() for g in gs])
    if sk.symmetry:
        props["symmetry"] = PairsAttr.get(sk.symmetry)
    if sk.switch_policy:
        props["switch_policy"] = SwitchPolicyAttr(sk.switch_policy)
    if sk.enforce_ordering:
        props["enforce_ordering"] = UnitAttr()
    return SketchOp.create(properties=props)


def collective_op(name: str, coll: Collective, size: int, topology: str) -> CollectiveOp:
    """The IR of a request."""
    props: dict[str, Attribute] = {
        "sym_name": StringAttr(name),
        "kind": KindAttr(coll.kind),
        "ranks": IntegerAttr(coll.ranks, 64),
        "chunkup": IntegerAttr(coll.chunkup, 64),
        "size": IntegerAttr(size, 64),
        "topology": SymbolRefAttr(topology),
    }
    if coll.root:
        props["root"] = IntegerAttr(coll.root, 64)
    return CollectiveOp.create(properties=props)
