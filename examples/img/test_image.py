"""Write a synthetic RGB test image (gradients, rings, edges, noise) for the image demos.

python examples/img/test_image.py -o in.png [--size 1080x1920]
"""

from __future__ import annotations

import argparse

import numpy as np
from PIL import Image


def test_image(h: int, w: int, seed: int = 0) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = np.hypot(yy - h / 2, xx - w / 2)
    rings = 0.5 + 0.5 * np.cos(r * (40.0 / max(h, w)) ** 2 * r / 8)
    squares = ((xx // (w / 8) + yy // (h / 6)) % 2).astype(np.float32)
    noise = np.random.default_rng(seed).normal(0, 0.04, (h, w)).astype(np.float32)
    rgb = np.stack([xx / w * 0.7 + 0.3 * rings, yy / h * 0.6 + 0.4 * squares, rings * 0.8 + 0.2 * squares], axis=2)
    return (np.clip(rgb + noise[:, :, None], 0, 1) * 255 + 0.5).astype(np.uint8)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--out", required=True)
    p.add_argument("--size", default="1080x1920", help="height x width (default: 1080x1920)")
    args = p.parse_args()
    h, w = (int(v) for v in args.size.lower().split("x"))
    Image.fromarray(test_image(h, w)).save(args.out)
    print(f"wrote {args.out} ({h}x{w})")


if __name__ == "__main__":
    main()
