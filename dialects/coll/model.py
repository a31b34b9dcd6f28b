"""The plain-Python form of `coll`: topologies, collectives, sketches and algorithms.

The IR ops (topology.py, problem.py, algorithm.py) are the textual form that tools print,
parse and FileCheck; the solvers, the simulator, the buffer interpreter and the executors
work on these dataclasses. `convert.py` moves between the two without loss.

Cost model (TACCL's, with explicit ports): sending `b` bytes over a link costs
`alpha + beta * b / MiB` microseconds and occupies the link for that long. A link may also
belong to ports that serialise it with other links: a NIC's transmit and receive sides (every
`ib` link leaving or entering one of the NIC's GPUs) and a switch's per-GPU out and in ports
(every `switch` link among the switch's GPUs). Times are microseconds, sizes bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

from xdsl.utils.str_enum import StrEnum

MIB = 1 << 20
# Sizes past these are refused up front (a topology of 10^8 GPUs would otherwise hang the
# synthesis while it builds per-GPU tables): far above the 80-GPU machines TACCL handles.
MAX_GPUS = 1024
MAX_CHUNKUP = 64


class CollKind(StrEnum):
    ALLGATHER = "allgather"
    REDUCE_SCATTER = "reduce_scatter"
    ALLREDUCE = "allreduce"
    ALLTOALL = "alltoall"
    BROADCAST = "broadcast"
    REDUCE = "reduce"


class LinkKind(StrEnum):
    """What carries a link: NVLink, PCIe, InfiniBand through NICs, or an NVSwitch-like crossbar."""

    NVLINK = "nvlink"
    PCIE = "pcie"
    IB = "ib"
    SWITCH = "switch"


class Proto(StrEnum):
    """MSCCL's protocols (the runtime's names)."""

    SIMPLE = "Simple"
    LL = "LL"
    LL128 = "LL128"


class SwitchPolicy(StrEnum):
    """TACCL's switch-hyperedge policies: few switch peers with big buffers, or many with small."""

    UC_MIN = "uc-min"
    UC_MAX = "uc-max"


class Buffer(StrEnum):
    """A GPU's buffers in MSCCL: input, output, scratch."""

    INPUT = "i"
    OUTPUT = "o"
    SCRATCH = "s"


LINK_KINDS = tuple(k.value for k in LinkKind)


# --------------------------------------------------------------------------- topology


@dataclass(frozen=True)
class Link:
    """A directed connection; parallel physical links are folded into `beta` (and `lanes`)."""

    src: int
    dst: int
    kind: LinkKind
    alpha: float
    beta: float
    lanes: int = 1

    @property
    def key(self) -> tuple[int, int]:
        return (self.src, self.dst)

    def cost(self, nbytes: float) -> float:
        return self.alpha + self.beta * nbytes / MIB


@dataclass(frozen=True)
class Group:
    """A NIC or a switch: the GPUs attached to it."""

    name: str
    gpus: tuple[int, ...]


@dataclass(frozen=True)
class Port:
    """A shared resource: at most one transfer over any of `links` at a time."""

    name: str
    links: frozenset[tuple[int, int]]


@dataclass
class Topology:
    name: str
    gpus: int
    gpus_per_node: int
    links: dict[tuple[int, int], Link]
    nics: list[Group] = field(default_factory=list)
    switches: list[Group] = field(default_factory=list)

    @property
    def nodes(self) -> int:
        return self.gpus // self.gpus_per_node

    def node(self, gpu: int) -> int:
        return gpu // self.gpus_per_node

    def nic_of(self, gpu: int) -> Group | None:
        for nic in self.nics:
            if gpu in nic.gpus:
                return nic
        return None

    @cached_property
    def ports(self) -> list[Port]:
        ports: list[Port] = []
        ib = [k for k, l in self.links.items() if l.kind == "ib"]
        for nic in self.nics:
            members = set(nic.gpus)
            tx = frozenset(k for k in ib if k[0] in members)
            rx = frozenset(k for k in ib if k[1] in members)
            if tx:
                ports.append(Port(f"{nic.name}.tx", tx))
            if rx:
                ports.append(Port(f"{nic.name}.rx", rx))
        for sw in self.switches:
            members = set(sw.gpus)
            inside = [k for k, l in self.links.items() if l.kind == "switch" and k[0] in members and k[1] in members]
            for g in sw.gpus:
                out = frozenset(k for k in inside if k[0] == g)
                into = frozenset(k for k in inside if k[1] == g)
                if out:
                    ports.append(Port(f"{sw.name}.out{g}", out))
                if into:
                    ports.append(Port(f"{sw.name}.in{g}", into))
        return ports

    @cached_property
    def resources(self) -> dict[tuple[int, int], tuple[str, ...]]:
        """Link key -> names of every resource a transfer on it occupies (itself first)."""
        out = {k: [f"link{k[0]}->{k[1]}"] for k in self.links}
        for port in self.ports:
            for k in port.links:
                out[k].append(port.name)
        return {k: tuple(v) for k, v in out.items()}

    def validate(self) -> None:
        """Raise ValueError naming the first malformed part (the verifier and importers share it)."""
        n, per = self.gpus, self.gpus_per_node
        if n < 1:
            raise ValueError(f"gpus must be positive, got {n}")
        if n > MAX_GPUS:
            raise ValueError(f"gpus {n} is more than the limit of {MAX_GPUS} that synthesis and simulation handle")
        if per < 1 or n % per:
            raise ValueError(f"gpus_per_node ({per}) must be positive and divide gpus ({n})")
        for (s, d), link in self.links.items():
            where = f"link {s} -> {d}"
            if not (0 <= s < n and 0 <= d < n):
                raise ValueError(f"{where}: endpoint out of range 0..{n - 1}")
            if s == d:
                raise ValueError(f"{where}: a GPU cannot link to itself")
            if link.kind not in LINK_KINDS:
                raise ValueError(f"{where}: kind '{link.kind}' is not one of {', '.join(LINK_KINDS)}")
            if not (math.isfinite(link.alpha) and link.alpha >= 0):
                raise ValueError(f"{where}: alpha must be finite and >= 0, got {link.alpha}")
            if not (math.isfinite(link.beta) and link.beta > 0):
                raise ValueError(f"{where}: beta must be finite and > 0, got {link.beta}")
            if link.lanes < 1:
                raise ValueError(f"{where}: lanes must be >= 1, got {link.lanes}")
            same_node = self.node(s) == self.node(d)
            if link.kind == "ib" and same_node:
                raise ValueError(f"{where}: an ib link must join two nodes (both GPUs are on node {self.node(s)})")
            if link.kind != "ib" and not same_node:
                raise ValueError(f"{where}: a {link.kind} link cannot leave its node; use kind ib")
            if link.kind == "ib" and (self.nic_of(s) is None or self.nic_of(d) is None):
                gpu = s if self.nic_of(s) is None else d
                raise ValueError(f"{where}: GPU {gpu} has no NIC")
            if link.kind == "switch" and not any(s in sw.gpus and d in sw.gpus for sw in self.switches):
                raise ValueError(f"{where}: no switch holds both GPUs")
        seen: dict[int, str] = {}
        for group, what in [(g, "nic") for g in self.nics] + [(g, "switch") for g in self.switches]:
            if not group.gpus:
                raise ValueError(f"{what} {group.name}: no GPUs")
            if len(set(group.gpus)) != len(group.gpus):
                raise ValueError(f"{what} {group.name}: lists a GPU twice: {list(group.gpus)}")
            for g in group.gpus:
                if not 0 <= g < n:
                    raise ValueError(f"{what} {group.name}: GPU {g} out of range 0..{n - 1}")
            if len({self.node(g) for g in group.gpus}) > 1:
                raise ValueError(f"{what} {group.name}: GPUs {list(group.gpus)} span several nodes")
            if what == "nic":
                for g in group.gpus:
                    if g in seen:
                        raise ValueError(f"nic {group.name}: GPU {g} is already attached to nic {seen[g]}")
                    seen[g] = group.name
        names = [g.name for g in self.nics + self.switches]
        if len(set(names)) != len(names):
            dup = next(x for x in names if names.count(x) > 1)
            raise ValueError(f"name '{dup}' is used by two NICs/switches")

    def neighbours(self, gpu: int) -> list[int]:
        return [d for (s, d) in self.links if s == gpu]


# --------------------------------------------------------------------------- collectives


@dataclass(frozen=True)
class Flow:
    """One chunk to move. `bcast`: from `root` to `members`; `reduce`: the sum of the
    `members`' contributions (root's included) must reach `root`; `unicast`: from `root` to
    the single member. `after`: a flow that must have completed at `root` first (ALLREDUCE)."""

    id: int
    kind: str
    root: int
    members: tuple[int, ...]
    chunk: int
    after: int | None = None


@dataclass(frozen=True)
class Collective:
    """A collective on `ranks` ranks whose buffers are cut into chunks.

    `chunkup` splits each rank's share into that many chunks. Buffers, in chunks:
    allgather in=c out=n*c; reduce_scatter in=n*c out=c; allreduce and alltoall in=out=n*c;
    broadcast and reduce in=out=c. The request's size is the larger per-rank buffer.
    """

    kind: CollKind
    ranks: int
    chunkup: int = 1
    root: int = 0

    @property
    def input_chunks(self) -> int:
        c, n = self.chunkup, self.ranks
        return {CollKind.ALLGATHER: c, CollKind.BROADCAST: c, CollKind.REDUCE: c}.get(self.kind, n * c)

    @property
    def output_chunks(self) -> int:
        c, n = self.chunkup, self.ranks
        return {CollKind.REDUCE_SCATTER: c, CollKind.BROADCAST: c, CollKind.REDUCE: c}.get(self.kind, n * c)

    @property
    def is_reduction(self) -> bool:
        return self.kind in (CollKind.REDUCE_SCATTER, CollKind.ALLREDUCE, CollKind.REDUCE)

    def chunk_bytes(self, size: int) -> float:
        return size / max(self.input_chunks, self.output_chunks)

    def flows(self, reduce_roots: dict[int, int] | None = None) -> list[Flow]:
        """The chunks to move. `reduce_roots` (allreduce only) reduces chunk j at that rank
        instead of its owner j // chunkup, then broadcasts it from there."""
        n, c, kind = self.ranks, self.chunkup, self.kind
        everyone = tuple(range(n))
        flows: list[Flow] = []
        if kind == CollKind.ALLGATHER:
            for r in range(n):
                for k in range(c):
                    flows.append(Flow(len(flows), "bcast", r, tuple(x for x in everyone if x != r), r * c + k))
        elif kind in (CollKind.REDUCE_SCATTER, CollKind.ALLREDUCE):
            for r in range(n):
                for k in range(c):
                    j = r * c + k
                    root = reduce_roots[j] if reduce_roots and kind == CollKind.ALLREDUCE else r
                    flows.append(Flow(len(flows), "reduce", root, everyone, j))
            if kind == CollKind.ALLREDUCE:
                for f in list(flows):
                    flows.append(
                        Flow(len(flows), "bcast", f.root, tuple(x for x in everyone if x != f.root), f.chunk, f.id)
                    )
        elif kind == CollKind.ALLTOALL:
            for s in range(n):
                for d in range(n):
                    if s != d:
                        for k in range(c):
                            flows.append(Flow(len(flows), "unicast", s, (d,), d * c + k))
        elif kind == CollKind.BROADCAST:
            for k in range(c):
                flows.append(Flow(k, "bcast", self.root, tuple(x for x in everyone if x != self.root), k))
        elif kind == CollKind.REDUCE:
            for k in range(c):
                flows.append(Flow(k, "reduce", self.root, everyone, k))
        return flows


# --------------------------------------------------------------------------- sketches


@dataclass
class Sketch:
    """TACCL's communication sketch: hints that shrink the synthesis problem.

    `conn`: which local GPU may send over IB to which local GPU of another node, as
    (sender, receiver) pairs, or the modes "direct-map" (i -> i) and "fully-connected".
    `senders`: local sender -> local GPUs whose chunks it may carry out of the node.
    `symmetry`: (offset, group) rotations that map the algorithm onto itself.
    `switch_policy`: "uc-min" (few switch peers, big buffers) or "uc-max" (many, small).
    """

    name: str = "sketch"
    nnodes: int | None = None
    conn: str | list[tuple[int, int]] = "fully-connected"
    senders: dict[int, tuple[int, ...]] | None = None
    symmetry: list[tuple[int, int]] = field(default_factory=list)
    switch_policy: SwitchPolicy | None = None
    chunkup: int = 1
    enforce_ordering: bool = False
    reduce_roots: str = "owner"  # allreduce: "owner" (RS + AG) or "leaders" (reduce at node leaders)

    def roots(self, topo: Topology, coll: Collective) -> dict[int, int] | None:
        """Chunk -> reduction root for allreduce under `reduce_roots`."""
        if self.reduce_roots != "leaders" or coll.kind != CollKind.ALLREDUCE:
            return None
        total = coll.ranks * coll.chunkup
        return {j: (j * topo.nodes // total) * topo.gpus_per_node for j in range(total)}

    def ib_pairs(self, per_node: int) -> set[tuple[int, int]]:
        """The (local sender, local receiver) pairs that may use InfiniBand."""
        if not isinstance(self.conn, str):
            return set(self.conn)
        if self.conn == "fully-connected":
            return {(a, b) for a in range(per_node) for b in range(per_node)}
        if self.conn == "direct-map":
            return {(a, a) for a in range(per_node)}
        raise ValueError(f"sketch {self.name}: conn must be direct-map, fully-connected or pairs, got {self.conn!r}")

    def describe(self) -> str:
        conn = self.conn if isinstance(self.conn, str) else ",".join(f"{a}->{b}" for a, b in self.conn)
        policy = f" {self.switch_policy.value}" if self.switch_policy else ""
        roots = ", reduce at node leaders" if self.reduce_roots == "leaders" else ""
        return f"ib {conn}, chunkup {self.chunkup}{policy}{roots}"


def rotate(rank: int, offset: int, group: int) -> int:
    """TACCL's symmetry map: rotate by `offset` inside consecutive blocks of `group` ranks."""
    return (rank + offset) % group + (rank // group) * group


# --------------------------------------------------------------------------- algorithms


BUFFERS = tuple(b.value for b in Buffer)
STEP_OPS = ("send", "recv", "recv_reduce_copy", "copy", "reduce", "nop")


@dataclass
class Step:
    """One threadblock step. `src`/`dst` are (buffer, chunk offset); `count` chunks.

    send: read src, send to the tb's send peer.   recv: receive into dst from the recv peer.
    recv_reduce_copy: receive x, dst = src + x.   copy: dst = src.   reduce: dst = dst + src.
    nop: nothing (it carries a dependency). `deps`: (threadblock, step) on the same GPU that
    must be complete first; program order inside a threadblock is implicit.
    """

    op: str
    src: tuple[str, int] | None = None
    dst: tuple[str, int] | None = None
    count: int = 1
    deps: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Threadblock:
    send: int
    recv: int
    channel: int
    steps: list[Step] = field(default_factory=list)


@dataclass
class GpuProgram:
    rank: int
    input_chunks: int
    output_chunks: int
    scratch_chunks: int
    tbs: list[Threadblock] = field(default_factory=list)


@dataclass
class Algorithm:
    name: str
    collective: Collective
    topology: str
    gpus: list[GpuProgram]
    proto: Proto = Proto.SIMPLE
    min_bytes: int = 0
    max_bytes: int | None = None

    def transfers(self) -> int:
        return sum(1 for g in self.gpus for tb in g.tbs for s in tb.steps if s.op == "send")


def automorphism_problem(topo: Topology, offset: int, group: int) -> str | None:
    """Why rotating ranks by (offset, group) does not map `topo` onto itself, or None."""
    sigma = [rotate(r, offset, group) for r in range(topo.gpus)]
    for (s, d), link in topo.links.items():
        image = topo.links.get((sigma[s], sigma[d]))
        if image is None:
            return f"link {s} -> {d} maps to {sigma[s]} -> {sigma[d]}, which does not exist"
        if (image.kind, image.alpha, image.beta) != (link.kind, link.alpha, link.beta):
            return f"link {s} -> {d} maps to {sigma[s]} -> {sigma[d]}, which has a different kind or cost"
    for groups, what in ((topo.nics, "nic"), (topo.switches, "switch")):
        sets = {frozenset(g.gpus) for g in groups}
        for g in groups:
            if frozenset(sigma[x] for x in g.gpus) not in sets:
                return f"{what} {g.name} maps onto GPUs {sorted(sigma[x] for x in g.gpus)}, which share no {what}"
    return None
