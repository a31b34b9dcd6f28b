"""`coll`, the collective-communication dialect (TACCL's domain, research/taccl.md).

A module states a problem and, after `coll-synthesize`, its answer:

    coll.topology @ndv2x2 gpus 16 per_node 8 { coll.link ... coll.nic ... }
    coll.collective @ag allgather ranks 16 chunkup 1 size 1048576 on @ndv2x2
    coll.sketch @sk conn [(0, 1)] symmetry [(8, 16)]        // optional hints
    coll.algorithm @ag_ndv2x2 allgather ranks 16 ... { coll.gpu 0 ... { coll.threadblock ... } }

The ops: topology.py, problem.py, algorithm.py (attributes: attrs.py). The same content as
plain Python for solvers, simulators and executors: model.py (and plan.py, a schedule before
it becomes threadblocks). Its meaning: reference.py (numpy), verify.py (the symbolic proof),
steps.py (who waits for whom), simulate.py and bounds.py (time under the alpha-beta model).
Machines: topologies.py (built-ins), taccl.py (TACCL's JSON).
"""

from xdsl.ir import Attribute, Dialect, Operation

from .algorithm import (
    STEP_OPS,
    AlgorithmOp,
    CopyOp,
    GpuOp,
    NopOp,
    RecvOp,
    RecvReduceCopyOp,
    ReduceOp,
    SendOp,
    StepOp,
    ThreadblockOp,
    algorithm_op,
)
from .attrs import (
    BufferAttr,
    ConnAttr,
    ConnModeAttr,
    KindAttr,
    LinkKindAttr,
    PairsAttr,
    ProtoAttr,
    RanksAttr,
    SlotAttr,
    SwitchPolicyAttr,
)
from .problem import CollectiveOp, SketchOp, collective_op, sketch_op
from .topology import LinkOp, NicOp, SwitchOp, TopologyOp, topology_op

OPS: list[type[Operation]] = [
    TopologyOp,
    LinkOp,
    NicOp,
    SwitchOp,
    CollectiveOp,
    SketchOp,
    AlgorithmOp,
    GpuOp,
    ThreadblockOp,
    SendOp,
    RecvOp,
    RecvReduceCopyOp,
    CopyOp,
    ReduceOp,
    NopOp,
]
ATTRS: list[type[Attribute]] = [
    SlotAttr,
    RanksAttr,
    PairsAttr,
    KindAttr,
    ConnAttr,
    BufferAttr,
    ConnModeAttr,
    LinkKindAttr,
    ProtoAttr,
    SwitchPolicyAttr,
]

COLL = Dialect("coll", OPS, ATTRS)

__all__ = [
    "COLL",
    "OPS",
    "ATTRS",
    "STEP_OPS",
    "TopologyOp",
    "LinkOp",
    "NicOp",
    "SwitchOp",
    "CollectiveOp",
    "SketchOp",
    "AlgorithmOp",
    "GpuOp",
    "ThreadblockOp",
    "StepOp",
    "SendOp",
    "RecvOp",
    "RecvReduceCopyOp",
    "CopyOp",
    "ReduceOp",
    "NopOp",
    "SlotAttr",
    "RanksAttr",
    "PairsAttr",
    "KindAttr",
    "ConnAttr",
    "BufferAttr",
    "ConnModeAttr",
    "LinkKindAttr",
    "ProtoAttr",
    "SwitchPolicyAttr",
    "topology_op",
    "collective_op",
    "sketch_op",
    "algorithm_op",
]
