"""What synthesis takes and gives: its options, each sketch's candidate, the result.

Kept apart from driver.py so that the pipelines and tools can name these types without
loading the solvers (CP-SAT, HiGHS) until they synthesize.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tessel.dialects.coll.model import Algorithm, Sketch
from tessel.dialects.coll.plan import Plan


@dataclass
class Options:
    """Synthesis budget and solver settings."""

    time_limit: float = 60.0  # seconds for the whole synthesis (solver limits share it)
    exact: bool | None = None  # None: when the topology has at most exact_max_gpus GPUs
    exact_max_gpus: int = 32
    workers: int = 2
    seed: int = 0
    symmetry: bool = True


@dataclass
class Candidate:
    """The best schedule of one sketch (or the NIC pipeline), merged and simulated."""

    sketch: Sketch
    plan: Plan  # unmerged schedule (of greedy and polish, the one the simulator prefers)
    algorithm: Algorithm
    time: float  # simulated, us
    stages: dict[str, float] = field(default_factory=dict)
    merges: dict[str, float] = field(default_factory=dict)
    hint: Plan | None = None  # the best schedule in the model: the exact model's warm start


@dataclass
class Result:
    """The synthesized algorithm, its plan and simulated time, the winning sketch, and the log."""

    algorithm: Algorithm
    plan: Plan
    time: float
    sketch: Sketch
    size: int
    wall: float
    stages: dict[str, float]
    candidates: list[Candidate]
    log: list[str]

    @property
    def chunk_bytes(self) -> float:
        return self.plan.chunk_bytes
