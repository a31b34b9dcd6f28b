"""Topology ops: the machine a collective runs on, with its alpha-beta profile.

    coll.topology @ndv2x2 gpus 16 per_node 8 {
      coll.link 0 -> 1 nvlink alpha 0.3 beta 23.0 {lanes = 2 : i64}
      coll.link 0 -> 8 ib alpha 2.6 beta 105.0
      coll.nic @node0.nic0 gpus [0, 1, 2, 3, 4, 5, 6, 7]
      coll.switch @node0.nvswitch gpus [0, 1, ...]
    }

A link's alpha is microseconds, its beta microseconds per MiB. NICs and switches turn into
shared ports (model.py): every `ib` link of a NIC's GPUs shares the NIC's transmit or receive
side; every `switch` link shares its GPUs' out and in ports.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, Float64Type, FloatAttr, IntegerAttr, StringAttr, SymbolNameConstraint
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

from .attrs import LinkKindAttr, RanksAttr, region_ops
from .model import Group, Link, LinkKind, Topology


@irdl_op_definition
class LinkOp(IRDLOperation):
    """A directed link `src -> dst` of a kind (nvlink, pcie, ib, switch)."""

    name = "coll.link"
    src = prop_def(IntegerAttr[I64])
    dst = prop_def(IntegerAttr[I64])
    kind = prop_def(LinkKindAttr)
    alpha = prop_def(FloatAttr[Float64Type])
    beta = prop_def(FloatAttr[Float64Type])
    lanes = opt_prop_def(IntegerAttr[I64])
    traits = lazy_traits_def(lambda: (HasParent(TopologyOp),))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src `->` $dst $kind `alpha` $alpha `beta` $beta attr-dict"

    def link(self) -> Link:
        lanes = self.lanes.value.data if self.lanes is not None else 1
        return Link(
            self.src.value.data, self.dst.value.data, self.kind.data, self.alpha.value.data, self.beta.value.data, lanes
        )

    def problem(self) -> str | None:
        """What is wrong with this link on its own, or None."""
        link = self.link()
        if not link.alpha >= 0:
            return f"alpha must be >= 0, got {link.alpha}"
        if not link.beta > 0:
            return f"beta must be > 0, got {link.beta}"
        if link.lanes < 1:
            return f"lanes must be >= 1, got {link.lanes}"
        if link.src == link.dst:
            return f"GPU {link.src} cannot link to itself"
        return None

    def verify_(self) -> None:
        problem = self.problem()
        if problem:
            raise VerifyException(problem)


class _GroupOp(IRDLOperation):
    """A named set of a topology's GPUs (the base of coll.nic and coll.switch)."""

    sym_name = prop_def(SymbolNameConstraint())
    gpus = prop_def(RanksAttr)
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(TopologyOp)))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name `gpus` $gpus attr-dict"

    def group(self) -> Group:
        return Group(self.sym_name.data, self.gpus.value)


@irdl_op_definition
class NicOp(_GroupOp):
    """A network card shared by `gpus` for their `ib` links."""

    name = "coll.nic"


@irdl_op_definition
class SwitchOp(_GroupOp):
    """An NVSwitch-like crossbar: each GPU has one out and one in port into it."""

    name = "coll.switch"


@irdl_op_definition
class TopologyOp(IRDLOperation):
    """A machine: `gpus` GPUs in nodes of `per_node`, its links, NICs and switches."""

    name = "coll.topology"
    sym_name = prop_def(SymbolNameConstraint())
    gpus = prop_def(IntegerAttr[I64])
    per_node = prop_def(IntegerAttr[I64])
    body = region_def()
    traits = traits_def(NoTerminator(), SymbolOpInterface(), IsolatedFromAbove())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$sym_name `gpus` $gpus `per_node` $per_node attr-dict-with-keyword $body"

    def topology(self) -> Topology:
        links: dict[tuple[int, int], Link] = {}
        nics: list[Group] = []
        switches: list[Group] = []
        for op in region_ops(self.body):
            if isinstance(op, LinkOp):
                link = op.link()
                links[link.key] = link
            elif isinstance(op, NicOp):
                nics.append(op.group())
            elif isinstance(op, SwitchOp):
                switches.append(op.group())
        return Topology(self.sym_name.data, self.gpus.value.data, self.per_node.value.data, links, nics, switches)

    def verify_(self) -> None:
        seen: set[tuple[int, int]] = set()
        if any(isinstance(op, LinkOp) and op.problem() for op in region_ops(self.body)):
            return  # reported at the link itself
        for op in region_ops(self.body):
            if not isinstance(op, (LinkOp, NicOp, SwitchOp)):
                raise VerifyException(f"may hold only coll.link, coll.nic and coll.switch, found {op.name}")
            if isinstance(op, LinkOp):
                key = op.link().key
                if key in seen:
                    raise VerifyException(f"link {key[0]} -> {key[1]} is declared twice")
                seen.add(key)
        try:
            self.topology().validate()
        except ValueError as err:
            raise VerifyException(str(err)) from None


def topology_op(topo: Topology) -> TopologyOp:
    """The IR of a topology model."""
    ops: list[IRDLOperation] = []
    for link in topo.links.values():
        props: dict[str, Attribute] = {
            "src": IntegerAttr(link.src, 64),
            "dst": IntegerAttr(link.dst, 64),
            "kind": LinkKindAttr(LinkKind(link.kind)),
            "alpha": FloatAttr(link.alpha, 64),
            "beta": FloatAttr(link.beta, 64),
        }
        if link.lanes != 1:
            props["lanes"] = IntegerAttr(link.lanes, 64)
        ops.append(LinkOp.create(properties=props))
    groups_of: list[tuple[list[Group], type[_GroupOp]]] = [(topo.nics, NicOp), (topo.switches, SwitchOp)]
    for groups, cls in groups_of:
        for g in groups:
            ops.append(cls.create(properties={"sym_name": StringAttr(g.name), "gpus": RanksAttr.get(g.gpus)}))
    return TopologyOp.create(
        properties={
            "sym_name": StringAttr(topo.name),
            "gpus": IntegerAttr(topo.gpus, 64),
            "per_node": IntegerAttr(topo.gpus_per_node, 64),
        },
        regions=[Region(Block(ops))],
    )
