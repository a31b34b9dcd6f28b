"""TACCL's topology and sketch JSON (taccl/examples/topo, taccl/examples/sketch).

Every error names the file and the field, in one line (`TesselError`).
"""

from __future__ import annotations

import json
from typing import Any

from tessel.ir.diagnostics import TesselError

from .model import MAX_CHUNKUP, MAX_GPUS, Sketch, SwitchPolicy, Topology, automorphism_problem
from .topologies import IB_ALPHA, IB_BETA, _nics, custom, dgx2, ndv2


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
        v = self.data.get(key)
        if (
            not isinstance(v, list)
            or not v
            or any(isinstance(x, bool) or not isinstance(x, (int, float)) or x <= 0 for x in v)
        ):
            raise self.fail(key, f"expected a non-empty list of positive numbers, got {json.dumps(v)}")
        return [float(x) for x in v]

    def matrix(self, key: str, size: int | None) -> list[list[float]]:
        v = self.data.get(key)
        ok = isinstance(v, list) and v and all(isinstance(r, list) for r in v)
        if not ok:
            raise self.fail(key, "expected a square matrix (list of lists of numbers)")
        n = size or len(v)
        if len(v) != n or any(len(r) != n for r in v):
            raise self.fail(key, f"expected a {n}x{n} matrix")
        for r in v:
            for x in r:
                if isinstance(x, bool) or not isinstance(x, (int, float)) or x < 0:
                    raise self.fail(key, f"entries must be numbers >= 0, got {json.dumps(x)}")
        return v


def load_topology_json(path: str, nodes: int | None = None) -> Topology:
    """TACCL's profiled topology: NDv2*/DGX2* node configs or `custom` matrices.

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
    scale = f.number("scale", 1.0, positive=True)
    unit = (1 << 20) / f.number("profile_bytes", float(1 << 20), positive=True) / scale
    remote_alpha = f.number("remote_alpha", IB_ALPHA) / scale
    if "remote_beta" in data or "remote_invbw" in data:
        remote_beta = (
            f.number("remote_beta", positive=True)
            if "remote_beta" in data
            else f.number("remote_invbw") * scale - remote_alpha * scale
        )
        remote_beta *= unit
    else:
        remote_beta = IB_BETA
    if remote_beta <= 0:
        raise f.fail("remote_invbw", "must exceed remote_alpha")
    ib = (remote_alpha, remote_beta)
    lower = name.lower()
    per = f.integer("gpus_per_node", 0, minimum=0, maximum=MAX_GPUS)
    nics = f.integer("nics_per_node", 1)
    if lower.startswith("ndv2") or lower.startswith("dgx2"):
        betas = f.numbers("node_betas_list")
        alpha = f.number("alpha") / scale
        want = 2 if lower.startswith("ndv2") else 1
        expected_per = 8 if want == 2 else 16
        if per != expected_per:
            raise f.fail("gpus_per_node", f"{name} nodes have {expected_per} GPUs, got {per}")
        if len(betas) != want:
            raise f.fail(
                "node_betas_list",
                f"{name} has {want} intra-node link class{'es' if want > 1 else ''}, got {len(betas)} betas",
            )
        if lower.startswith("ndv2"):
            if nics != 1:
                raise f.fail("nics_per_node", f"NDv2 nodes have one NIC, got {nics}")
            b = sorted(x * unit for x in betas)
            topo = ndv2(nodes, alpha, (b[0], b[1]), ib)
        else:
            if nics not in (1, 2, 4, 8, 16):
                raise f.fail("nics_per_node", f"must divide 16, got {nics}")
            topo = dgx2(nodes, alpha, betas[0] * unit, ib)
            if nodes > 1 and nics != 8:
                topo.nics = _nics(nodes, 16, nics)
        topo.name = name if nodes == 1 else f"{name}x{nodes}"
        return topo
    if lower.startswith("custom"):
        counts = f.matrix("links", None)
        size = len(counts)
        betas_m = f.matrix("betas", size)
        if "invbws" in data:
            inv = f.matrix("invbws", size)
        else:
            inv = [[b + f.number("alpha", 0.0) * scale for b in row] for row in betas_m]
        # TACCL indexes these [dst][src]; Tessel's links are [src][dst].
        c = [[int(counts[d][s]) for d in range(size)] for s in range(size)]
        bt = [[betas_m[d][s] * unit for d in range(size)] for s in range(size)]
        al = [[max(inv[d][s] - betas_m[d][s], 0.0) / scale for d in range(size)] for s in range(size)]
        for s in range(size):
            for d in range(size):
                if c[s][d] and bt[s][d] <= 0:
                    raise f.fail("betas", f"link {s} -> {d} exists but its beta is {betas_m[d][s]}")
        if size % nics:
            raise f.fail("nics_per_node", f"must divide the {size} GPUs of a node, got {nics}")
        return custom(name if nodes == 1 else f"{name}x{nodes}", c, bt, al, nodes, ib, nics)
    raise f.fail(
        "name",
        f"cannot tell the intra-node structure of '{name}': name it NDv2*/DGX2* or 'custom' with links and betas matrices",
    )


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
