"""MSCCL XML (TACCL-EF) emission, obeying the MSCCL runtime parser's rules.

The rules (research/taccl.md section 3, from msccl's src/graph/topo.cc) and how they are met:
- `<algo>`: `coll` is the runtime's name of the collective; `ngpus` the communicator size;
  `nchunksperloop` = i_chunks x ngpus for allgather, o_chunks x ngpus for reduce_scatter,
  else the chunk count of the buffers; `proto` Simple/LL/LL128; `redop="sum"` for reductions;
  `minBytes`/`maxBytes` give the size bucket.
- `<tb>`: at most one send and one recv peer (-1 = none), never the GPU itself, one channel,
  ids unique and < 216 per GPU; a send on (channel c, peer p) pairs with p's tb that receives
  on channel c (the IR verifier checks this).
- `<step>`: `s` is the index in the tb, < 256; types s, r, rrc, cpy, re, nop; buffers i/o/s;
  `cnt` contiguous chunks; one cross-tb dependency (`depid`, `deps`) per step, so extra ones
  become `nop` steps placed before it; `hasdep="1"` on steps that another step waits for.
A violation that cannot be fixed by rewriting raises a one-line TesselError naming the rule.
"""

from __future__ import annotations

from collections import defaultdict
from xml.etree import ElementTree
from xml.sax.saxutils import quoteattr

from tessel.dialects.coll.model import Algorithm, CollKind, GpuProgram, Step, Threadblock
from tessel.dialects.coll.steps import build
from tessel.ir.diagnostics import TesselError

MAX_TBS = 216
MAX_STEPS = 256
TYPES = {"send": "s", "recv": "r", "recv_reduce_copy": "rrc", "copy": "cpy", "reduce": "re", "nop": "nop"}


def one_dep_per_step(alg: Algorithm) -> Algorithm:
    """An equivalent algorithm where every step has at most one dependency (nops carry the rest)."""
    gpus = []
    for g in alg.gpus:
        # new index of every old step, after inserting nops in front of multi-dep steps
        remap: dict[tuple[int, int], tuple[int, int]] = {}
        for t, tb in enumerate(g.tbs):
            i = 0
            for s, step in enumerate(tb.steps):
                i += max(0, len(step.deps) - 1)
                remap[(t, s)] = (t, i)
                i += 1
        tbs = []
        for tb in g.tbs:
            steps = []
            for step in tb.steps:
                deps = [remap[d] for d in step.deps]
                for d in deps[:-1]:
                    steps.append(Step("nop", None, None, 1, [d]))
                steps.append(Step(step.op, step.src, step.dst, step.count, deps[-1:]))
            tbs.append(Threadblock(tb.send, tb.recv, tb.channel, steps))
        gpus.append(GpuProgram(g.rank, g.input_chunks, g.output_chunks, g.scratch_chunks, tbs))
    return Algorithm(alg.name, alg.collective, alg.topology, gpus, alg.proto, alg.min_bytes, alg.max_bytes)


def chunks_per_loop(alg: Algorithm) -> int:
    coll = alg.collective
    if coll.kind == CollKind.ALLGATHER:
        return coll.input_chunks * coll.ranks
    if coll.kind == CollKind.REDUCE_SCATTER:
        return coll.output_chunks * coll.ranks
    return max(coll.input_chunks, coll.output_chunks)


def emit(alg: Algorithm) -> str:
    """The XML text of one algorithm."""
    alg = one_dep_per_step(alg)
    graph = build(alg)
    for g in alg.gpus:
        if len(g.tbs) > MAX_TBS:
            raise TesselError(
                f"MSCCL allows at most {MAX_TBS} threadblocks per GPU; GPU {g.rank} of {alg.name} needs {len(g.tbs)}"
            )
        for t, tb in enumerate(g.tbs):
            if len(tb.steps) > MAX_STEPS:
                raise TesselError(
                    f"MSCCL allows at most {MAX_STEPS} steps per threadblock; GPU {g.rank} tb {t} of {alg.name} has {len(tb.steps)}"
                )
            for peer in (tb.send, tb.recv):
                if peer == g.rank or peer < -1 or peer >= alg.collective.ranks:
                    raise TesselError(
                        f"MSCCL threadblock peers are -1 or another GPU; GPU {g.rank} tb {t} has peer {peer}"
                    )
    waited: set[tuple[int, int, int]] = set()
    for g in alg.gpus:
        for tb in g.tbs:
            for step in tb.steps:
                for d in step.deps:
                    waited.add((g.rank, *d))
    coll = alg.collective
    attrs = {
        "name": alg.name,
        "nchannels": str(1 + max((tb.channel for g in alg.gpus for tb in g.tbs), default=0)),
        "nchunksperloop": str(chunks_per_loop(alg)),
        "proto": alg.proto,
        "coll": coll.kind.value,
        "inplace": "0",
        "ngpus": str(coll.ranks),
    }
    if coll.is_reduction:
        attrs["redop"] = "sum"
    if alg.min_bytes or alg.max_bytes is not None:
        attrs["minBytes"] = str(alg.min_bytes)
        if alg.max_bytes is not None:
            attrs["maxBytes"] = str(alg.max_bytes)
    lines = ["<algo " + " ".join(f"{k}={quoteattr(v)}" for k, v in attrs.items()) + ">"]
    for g in alg.gpus:
        lines.append(
            f'  <gpu id="{g.rank}" i_chunks="{g.input_chunks}" o_chunks="{g.output_chunks}" s_chunks="{g.scratch_chunks}">'
        )
        for t, tb in enumerate(g.tbs):
            lines.append(f'    <tb id="{t}" send="{tb.send}" recv="{tb.recv}" chan="{tb.channel}">')
            for s, step in enumerate(tb.steps):
                src, dst = step.src, step.dst
                other = graph.match.get((g.rank, t, s))
                if other is not None:  # the peer's side of the message says where it goes / comes from
                    peer_step = graph.step(other)
                    if step.op == "send":
                        dst = peer_step.dst
                    elif src is None:
                        src = peer_step.src
                dep = step.deps[0] if step.deps else (-1, -1)
                has = "1" if (g.rank, t, s) in waited else "0"
                sb, so = src if src is not None else ("i", -1)
                db, do = dst if dst is not None else ("o", -1)
                if step.op == "nop":
                    sb, so, db, do = "i", -1, "o", -1
                lines.append(
                    f'      <step s="{s}" type="{TYPES[step.op]}" srcbuf="{sb}" srcoff="{so}" dstbuf="{db}" dstoff="{do}" '
                    f'cnt="{step.count}" depid="{dep[0]}" deps="{dep[1]}" hasdep="{has}"/>'
                )
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return "\n".join(lines) + "\n"


def parse_check(text: str) -> dict[str, int]:
    """Re-read emitted XML and check the parser's rules (used by tests): counts per element."""
    root = ElementTree.fromstring(text)
    if root.tag != "algo":
        raise ValueError("root element must be <algo>")
    ngpus = int(root.get("ngpus", "0"))
    counts: dict[str, int] = defaultdict(int)
    gpus = root.findall("gpu")
    if len(gpus) != ngpus:
        raise ValueError(f"ngpus={ngpus} but {len(gpus)} <gpu> elements")
    for gpu in gpus:
        rank = _int(gpu, "id")
        tbs = gpu.findall("tb")
        if len(tbs) > MAX_TBS:
            raise ValueError(f"gpu {rank}: {len(tbs)} threadblocks")
        ids = [_int(tb, "id") for tb in tbs]
        if sorted(ids) != list(range(len(ids))):
            raise ValueError(f"gpu {rank}: tb ids {ids} are not 0..{len(ids) - 1}")
        for tb in tbs:
            for key in ("send", "recv"):
                if _int(tb, key) == rank:
                    raise ValueError(f"gpu {rank}: tb {tb.get('id')} has itself as {key} peer")
            steps = tb.findall("step")
            if len(steps) > MAX_STEPS:
                raise ValueError(f"gpu {rank} tb {tb.get('id')}: {len(steps)} steps")
            for i, st in enumerate(steps):
                if _int(st, "s") != i:
                    raise ValueError(f"gpu {rank} tb {tb.get('id')}: step numbered {st.get('s')} at position {i}")
                if st.get("type") not in TYPES.values():
                    raise ValueError(f"unknown step type {st.get('type')}")
                if _int(st, "depid") >= 0 and _int(st, "depid") not in ids:
                    raise ValueError(f"gpu {rank}: step depends on missing tb {st.get('depid')}")
                counts["steps"] += 1
            counts["tbs"] += 1
        counts["gpus"] += 1
    return dict(counts)


def _int(element: ElementTree.Element, key: str) -> int:
    value = element.get(key)
    if value is None:
        raise ValueError(f"<{element.tag}> has no {key} attribute")
    return int(value)
