"""A timeline (PNG) of link usage in a simulation: one row per used link, one bar per transfer."""

from __future__ import annotations

from tessel.dialects.coll.model import Topology
from tessel.dialects.coll.simulate import SimResult
from tessel.ir.diagnostics import TesselError

COLOURS = {"nvlink": "#4c72b0", "switch": "#55a868", "pcie": "#8172b2", "ib": "#c44e52"}


def plot(sim: SimResult, topo: Topology, path: str, title: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TesselError("--timeline needs matplotlib (pip install matplotlib)") from None
    links = sorted({(t.src, t.dst) for t in sim.transfers}, key=lambda k: (topo.links[k].kind != "ib", k))
    row = {k: i for i, k in enumerate(links)}
    height = max(3.0, 0.18 * len(links) + 1.5)
    fig, ax = plt.subplots(figsize=(11, height))
    for t in sim.transfers:
        kind = topo.links[(t.src, t.dst)].kind
        ax.barh(
            row[(t.src, t.dst)],
            t.end - t.start,
            left=t.start,
            height=0.8,
            color=COLOURS.get(kind, "grey"),
            edgecolor="black",
            linewidth=0.2,
        )
    ax.set_yticks(range(len(links)))
    ax.set_yticklabels([f"{s}->{d} {topo.links[(s, d)].kind}" for s, d in links], fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("time (us)")
    ax.set_title(title, fontsize=9)
    handles = [
        plt.Rectangle((0, 0), 1, 1, color=c) for k, c in COLOURS.items() if any(topo.links[l].kind == k for l in links)
    ]
    labels = [k for k in COLOURS if any(topo.links[l].kind == k for l in links)]
    ax.legend(handles, labels, loc="lower right", fontsize=7)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as err:
        raise TesselError(f"cannot write --timeline {path}: {err.strerror}") from None
    finally:
        plt.close(fig)
