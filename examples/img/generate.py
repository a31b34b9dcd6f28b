"""Write the example image pipelines (frontends/img_examples.py) as .mlir files.

    python examples/img/generate.py [-o examples/img] [--size 1080x1920]

Each example comes in u8 and f32: NAME_u8.mlir, NAME_f32.mlir (box3x3.mlir is the
hand-written u8 box blur the dialect's tests use).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tessel.frontends.img_examples import NAMES, TYPES, pipeline_text


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--out", default=str(Path(__file__).parent), help="directory (default: beside this script)")
    p.add_argument("--size", default="1080x1920", help="frame height x width (default: 1080x1920)")
    args = p.parse_args()
    h, w = (int(v) for v in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in NAMES:
        for t in TYPES:
            (out / f"{name}_{t}.mlir").write_text(pipeline_text(name, t, h, w))
            print(out / f"{name}_{t}.mlir")


if __name__ == "__main__":
    main()
