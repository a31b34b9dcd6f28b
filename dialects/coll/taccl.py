"""TACCL's topology and sketch JSON (taccl/examples/topo, taccl/examples/sketch).

Every error names the file and the field, in one line (`TesselError`).
"""

from __future__ import annotations

import json
from typing import Any

from tessel.ir.diagnostics import TesselError

from .model import MAX_CHUNKUP, MAX_GPUS, Link, LinkKind, Sketch, SwitchPolicy, Topology, automorphism_problem
from .topologies import IB_ALPHA, IB_BETA, Key, hub_node, machine, ndv2_node


def _read_json(path: str, what: str) -> dict[str, Any]:
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as err:
        raise TesselError(f"cannot read {what} {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise TesselError(f"{what} is not valid JSON: {err.msg}", f"{path}:{err.lineno}:{err.colno}") from None
    if not isinstance(data, dict):
        raise TesselError(f"{path}: {what} must be a JSON object, got {type(data).__name__}")
    return data


class _Fields:
    """Typed access to a JSON object with one-line errors naming file and field."""

    def __init__(self, path: str, data: dict[str, Any], prefix: str = ""):
        self.path, self.data, self.prefix = path, data, prefix

    def fail(self, key: str, message: str) -> TesselError:
        return TesselError(f"{self.path}: field '{self.prefix}{key}': {message}")

    def number(self, key: str, default: float | None = None, positive: bool = False) -> float:
        if key not in self.data:
            if default is None:
                raise self.fail(key, "missing")
            return default
        v = self.data[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(key, f"expected a number, got {json.dumps(v)}")
        if v < 0 or (positive and v == 0):
            raise self.fail(key, f"must be {'> 0' if positive else '>= 0'}, got {v}")
        return float(v)

    def integer(self, key: str, default: int | None = None, minimum: int = 1, maximum: int | None = None) -> int:
        if key not in self.data:
            if default is None:
                raise self.fail(key, "missing")
            return default
        v = self.data[key]
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(key, f"expected an integer, got {json.dumps(v)}")
        if v < minimum:
            raise self.fail(key, f"must be >= {minimum}, got {v}")
        if maximum is not None and v > maximum:
            raise self.fail(key, f"must be <= {maximum}, got {v}")
        return v

    def numbers(self, key: str) -> list[float]:
        if key not in self.data:
            raise self.fail(key, "missing")
        v = self.data[key]
        if (
            not isinstance(v, list)
            or not v
            or any(isinstance(x, bool) or not isinstance(x, (int, float)) or x <= 0 for x in v)
        ):
            raise self.fail(key, f"expected a non-empty list of positive numbers, got {json.dumps(v)}")
        return [float(x) for x in v]

    def matrix(self, key: str, size: int | None) -> list[list[float]]:
        v = self.data.get(key)
        if not isinstance(v, list) or not v or not all(isinstance(r, list) for r in v):
            raise self.fail(key, "expected a square matrix (list of lists of numbers)")
        n = size or len(v)
        if len(v) != n or any(len(r) != n for r in v):
            raise self.fail(key, f"expected a {n}x{n} matrix")
        out: list[list[float]] = []
        for r in v:
            for x in r:
                if isinstance(x, bool) or not isinstance(x, (int, float)) or x < 0:
                    raise self.fail(key, f"entries must be numbers >= 0, got {json.dumps(x)}")
            out.append([float(x) for x in r])
        return out


CLASS_FIELDS = ("node_betas_list", "node_invbws_list")
MATRIX_FIELDS = ("links", "betas", "invbws")
REMOTE_FIELDS = ("remote_alpha", "remote_beta", "remote_invbw")


class _Units:
    """TACCL's numbers in Tessel's units: alpha in us, beta in us per MiB.

    A profile gives costs for one chunk of `profile_bytes` (default 1 MiB), optionally all
    multiplied by `scale` (TACCL's advice for keeping its integer rounding exact)."""

    def __init__(self, f: _Fields):
        self.scale = f.number("scale", 1.0, positive=True)
        self.per_mib = (1 << 20) / f.number("profile_bytes", float(1 << 20), positive=True)

    def alpha(self, raw: float) -> float:
        return raw / self.scale

    def beta(self, raw: float) -> float:
        return raw * self.per_mib / self.scale


def load_topology_json(path: str, nodes: int | None = None) -> Topology:
    """TACCL's profiled topology, its form read from its fields (the name is only a name).

    The node is given in one of TACCL's two forms, never both:
    - link classes: `alpha` and `node_betas_list` (with the totals `node_invbws_list`). One
      class is a hub and spoke (TACCL's HubAndSpoke and DGX2: every GPU reaches every other
      through the node's switch); two classes are NDv2's hybrid cube-mesh of 8 GPUs (double
      NVLinks at the smaller beta, single ones at the larger).
    - matrices [dst][src], as TACCL indexes them: `links` (link counts), `betas` and `invbws`
      (alpha + beta per link; without it, one `alpha` for all links). A node whose every pair is linked at one
      cost is the same hub and spoke as the one-class form (TACCL's hub_and_spoke() writes
      exactly that matrix), so both forms of a machine give the same topology.
    Local pairs without a link talk over PCIe. Nodes are joined by InfiniBand through
    `nics_per_node` NICs, each serving as many consecutive GPUs, at `remote_alpha` and
    `remote_beta` (or `remote_invbw` = alpha + beta); a 1-node topology needs none of these.
    Costs are for one chunk of the profile's size; Tessel reads betas as us per MiB unless
    the file says otherwise with `profile_bytes` (and `scale` for TACCL's scaled profiles).
    The node count comes from `nodes` (the sketch's nnodes), else the file's `nodes`, else 1.
    """
    data = _read_json(path, "topology")
    f = _Fields(path, data)
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise f.fail("name", f"expected a non-empty string, got {json.dumps(name)}")
    nodes = nodes if nodes is not None else f.integer("nodes", 1, maximum=MAX_GPUS)
    units = _Units(f)
    per = f.integer("gpus_per_node", 0, minimum=0, maximum=MAX_GPUS) if "gpus_per_node" in data else None
    classes = [k for k in CLASS_FIELDS if k in data]
    matrices = [k for k in MATRIX_FIELDS if k in data]
    if classes and matrices:
        raise f.fail(
            classes[0],
            f"the file also gives '{matrices[0]}': a node is either link classes (node_betas_list, "
            "node_invbws_list) or matrices (links, betas, invbws), not both",
        )
    if classes:
        per, node, hub = _class_node(f, units, per)
    elif matrices:
        per, node, hub = _matrix_node(f, units, per)
    else:
        raise f.fail(
            "links", "missing: give the node as matrices (links, betas, invbws) or as link classes (node_betas_list)"
        )
    ib, nics = _network(f, units, nodes, per)
    if per * nodes > MAX_GPUS:
        raise f.fail("nodes", f"{nodes} nodes of {per} GPUs are more than the limit of {MAX_GPUS} GPUs")
    topo = machine(name if nodes == 1 else f"{name}x{nodes}", node, per, nodes, hub=hub, ib=ib, nics_per_node=nics)
    try:
        topo.validate()
    except ValueError as err:
        raise TesselError(f"{path}: {err}") from None
    return topo


def _class_node(f: _Fields, units: _Units, per: int | None) -> tuple[int, dict[Key, Link], bool]:
    """The link-class form: one class is a hub and spoke, two are NDv2's cube-mesh."""
    betas = f.numbers("node_betas_list")
    alpha = units.alpha(f.number("alpha"))
    if "node_invbws_list" in f.data:
        totals = f.numbers("node_invbws_list")
        if len(totals) != len(betas):
            raise f.fail(
                "node_invbws_list", f"{len(totals)} totals for the {len(betas)} link classes of node_betas_list"
            )
        for total, beta in zip(totals, betas):
            if total < beta:
                raise f.fail("node_invbws_list", f"total cost {total:g} is below its class's beta {beta:g}")
    if per is None:
        raise f.fail("gpus_per_node", "missing (the link-class form does not say how many GPUs a node has)")
    if per < 1:
        raise f.fail("gpus_per_node", f"must be >= 1, got {per}")
    if len(betas) == 1:
        return per, hub_node(per, alpha, units.beta(betas[0])), per > 1
    if len(betas) == 2:
        if per != 8:
            raise f.fail(
                "gpus_per_node",
                f"two link classes are NDv2's hybrid cube-mesh of 8 GPUs, got {per}; give other nodes as matrices (links, betas, invbws)",
            )
        low, high = sorted(units.beta(b) for b in betas)
        return per, ndv2_node(alpha, (low, high)), False
    raise f.fail(
        "node_betas_list",
        f"{len(betas)} link classes; TACCL's class form has one (hub and spoke) or two (NDv2's cube-mesh): "
        "give other nodes as matrices (links, betas, invbws)",
    )


def _matrix_node(f: _Fields, units: _Units, per: int | None) -> tuple[int, dict[Key, Link], bool]:
    """The matrix form ([dst][src], as TACCL indexes it); a complete node at one cost is a hub."""
    for key in ("links", "betas"):
        if key not in f.data:
            raise f.fail(
                key,
                f"missing: the matrix form needs links and betas (it gives {', '.join(k for k in MATRIX_FIELDS if k in f.data)})",
            )
    counts = f.matrix("links", None)
    size = len(counts)
    betas = f.matrix("betas", size)
    totals = f.matrix("invbws", size) if "invbws" in f.data else None
    alpha = f.number("alpha", 0.0)  # for links without a total; TACCL's files give both
    if per is not None and per != size:
        raise f.fail("gpus_per_node", f"{per} GPUs, but the matrices are {size}x{size}")
    node: dict[Key, Link] = {}
    for s in range(size):
        for d in range(size):
            count, beta = counts[d][s], betas[d][s]
            total = totals[d][s] if totals is not None else None
            if s == d:
                if count:
                    raise f.fail("links", f"GPU {s} links to itself")
                continue
            if not count:
                if beta or total:
                    key = "betas" if beta else "invbws"
                    raise f.fail(key, f"{s} -> {d} has a cost but 'links' has no link there")
                continue
            if count != int(count):
                raise f.fail("links", f"link counts are whole numbers, got {count:g} for {s} -> {d}")
            if beta <= 0:
                raise f.fail("betas", f"link {s} -> {d} exists but its beta is {beta:g}")
            if total is not None and total < beta:
                raise f.fail("invbws", f"link {s} -> {d}: total cost {total:g} is below its beta {beta:g}")
            # profiles are decimal: 23.3 - 23 is 0.3, not 0.30000000000000071
            raw_alpha = round(total - beta, 9) if total is not None else alpha
            node[(s, d)] = Link(s, d, LinkKind.NVLINK, units.alpha(raw_alpha), units.beta(beta), int(count))
    costs = {(link.alpha, link.beta) for link in node.values()}
    hub = size > 1 and len(node) == size * (size - 1) and len(costs) == 1
    if hub:
        ((a, b),) = costs
        node = hub_node(size, a, b)
    return size, node, hub


def _network(f: _Fields, units: _Units, nodes: int, per: int) -> tuple[tuple[float, float], int]:
    """InfiniBand's (alpha, beta) and the NICs per node; a 1-node topology needs neither."""
    if "nics_per_node" not in f.data:
        if nodes > 1:
            raise f.fail(
                "nics_per_node",
                f"missing: {nodes} nodes talk through their NICs (give nics_per_node, remote_alpha and remote_beta)",
            )
        return (IB_ALPHA, IB_BETA), 1
    nics = f.integer("nics_per_node", maximum=MAX_GPUS)
    if per % nics:
        raise f.fail("nics_per_node", f"must divide the {per} GPUs of a node, got {nics}")
    given = [k for k in REMOTE_FIELDS if k in f.data]
    if nodes == 1 and not given:
        return (IB_ALPHA, IB_BETA), nics
    if "remote_alpha" not in f.data:
        raise f.fail("remote_alpha", "missing: the NICs' latency (with remote_beta or remote_invbw)")
    alpha_raw = f.number("remote_alpha")
    if "remote_beta" in f.data:
        beta_raw = f.number("remote_beta", positive=True)
        if "remote_invbw" in f.data and f.number("remote_invbw") < beta_raw:
            raise f.fail("remote_invbw", f"total cost {f.number('remote_invbw'):g} is below remote_beta {beta_raw:g}")
    elif "remote_invbw" in f.data:
        beta_raw = round(f.number("remote_invbw") - alpha_raw, 9)
        if beta_raw <= 0:
            raise f.fail("remote_invbw", "must exceed remote_alpha")
    else:
        raise f.fail("remote_beta", "missing: the NICs' cost per chunk (or remote_invbw = remote_alpha + remote_beta)")
    return (units.alpha(alpha_raw), units.beta(beta_raw)), nics


def load_sketch_json(path: str) -> Sketch:
    """TACCL's communication sketch (see taccl/examples/sketch)."""
    data = _read_json(path, "sketch")
    f = _Fields(path, data)
    sk = Sketch(name=path.rsplit("/", 1)[-1].removesuffix(".json"))
    if "nnodes" in data:
        sk.nnodes = f.integer("nnodes")
    intra = data.get("intranode_sketch", {"strategy": "none"})
    if not isinstance(intra, dict):
        raise f.fail("intranode_sketch", "expected an object")
    fi = _Fields(path, intra, "intranode_sketch.")
    strategy = intra.get("strategy", "none")
    if strategy not in ("none", "switch", "maxmin", "minmax"):
        raise fi.fail("strategy", f"expected none, switch, maxmin or minmax, got {json.dumps(strategy)}")
    if strategy == "switch":
        policy = intra.get("switch_hyperedge_strategy", ["uc-max"])
        policy = policy[0] if isinstance(policy, list) and policy else policy
        if policy not in ("uc-min", "uc-max"):
            raise fi.fail("switch_hyperedge_strategy", f"expected uc-min or uc-max, got {json.dumps(policy)}")
        sk.switch_policy = SwitchPolicy(policy)
    inter = data.get("internode_sketch")
    if inter is not None:
        if not isinstance(inter, dict):
            raise f.fail("internode_sketch", "expected an object")
        fx = _Fields(path, inter, "internode_sketch.")
        if inter.get("strategy", "relay") != "relay":
            raise fx.fail("strategy", f"only relay is supported, got {json.dumps(inter.get('strategy'))}")
        conn = inter.get("internode_conn", "fully-connected")
        if conn in ("direct-map", "fully-connected"):
            sk.conn = conn
        elif isinstance(conn, dict):
            sk.conn = [
                (_local(fx, "internode_conn", k), _local(fx, "internode_conn", r))
                for k, v in conn.items()
                for r in _list(fx, "internode_conn", v)
            ]
            if not sk.conn:
                raise fx.fail("internode_conn", "no sender -> receiver pairs")
        else:
            raise fx.fail(
                "internode_conn", f'expected an object, "direct-map" or "fully-connected", got {json.dumps(conn)}'
            )
        rev = inter.get("gpus_to_sender_rev_map")
        if rev is not None:
            if not isinstance(rev, dict):
                raise fx.fail("gpus_to_sender_rev_map", "expected an object")
            sk.senders = {
                _local(fx, "gpus_to_sender_rev_map", k): tuple(
                    _local(fx, "gpus_to_sender_rev_map", g) for g in _list(fx, "gpus_to_sender_rev_map", v)
                )
                for k, v in rev.items()
            }
        sk.enforce_ordering = bool(inter.get("enforce_ordering", False))
    sym = data.get("symmetry_offsets", [])
    if not isinstance(sym, list) or any(
        not isinstance(p, list) or len(p) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in p)
        for p in sym
    ):
        raise f.fail("symmetry_offsets", f"expected a list of [offset, group] integer pairs, got {json.dumps(sym)}")
    for off, group in sym:
        if group < 1 or not 0 < off < group:
            raise f.fail("symmetry_offsets", f"[{off}, {group}]: need 0 < offset < group")
    sk.symmetry = [(a, b) for a, b in sym]
    hyper = data.get("hyperparameters", {})
    if not isinstance(hyper, dict):
        raise f.fail("hyperparameters", "expected an object")
    sk.chunkup = _Fields(path, hyper, "hyperparameters.").integer("input_chunkup", 1, maximum=MAX_CHUNKUP)
    return sk


def _local(f: _Fields, key: str, v: Any) -> int:
    try:
        r = int(v)
    except (TypeError, ValueError):
        raise f.fail(key, f"expected local GPU indices, got {json.dumps(v)}") from None
    if r < 0 or isinstance(v, bool):
        raise f.fail(key, f"local GPU indices must be >= 0, got {json.dumps(v)}")
    return r


def _list(f: _Fields, key: str, v: Any) -> list:
    if not isinstance(v, list):
        raise f.fail(key, f"expected a list of local GPUs, got {json.dumps(v)}")
    return v


def check_sketch(sk: Sketch, topo: Topology, source: str) -> None:
    """The sketch must fit the topology: local indices in range, symmetries that are real."""
    per = topo.gpus_per_node
    if sk.nnodes is not None and sk.nnodes != topo.nodes:
        raise TesselError(
            f"{source}: field 'nnodes': the sketch is for {sk.nnodes} nodes, topology {topo.name} has {topo.nodes}"
        )
    if not isinstance(sk.conn, str):
        for a, b in sk.conn:
            if a >= per or b >= per:
                raise TesselError(
                    f"{source}: field 'internode_sketch.internode_conn': local GPU {max(a, b)} does not exist (nodes have {per} GPUs)"
                )
    for sender, gpus in (sk.senders or {}).items():
        if sender >= per or any(g >= per for g in gpus):
            raise TesselError(
                f"{source}: field 'internode_sketch.gpus_to_sender_rev_map': local GPU out of range (nodes have {per} GPUs)"
            )
    for off, group in sk.symmetry:
        if topo.gpus % group:
            raise TesselError(f"{source}: field 'symmetry_offsets': group {group} does not divide {topo.gpus} GPUs")
        problem = automorphism_problem(topo, off, group)
        if problem:
            raise TesselError(
                f"{source}: field 'symmetry_offsets': [{off}, {group}] is not a symmetry of {topo.name}: {problem}"
            )
