"""The caches the default schedules' cache tiles read (passes/kernel/loops/cache_tiles.py):
split-K's chunk is half the L1, the tile order's threshold a quarter of the L2 but never
below the 256 KB measured on Zen 3, 4 and 5; impossible sizes are refused in one line."""

from __future__ import annotations

import pytest

from tessel.ir.diagnostics import TesselError
from tessel.passes.kernel.loops.cache_tiles import REUSE_FLOOR, ZEN4, Caches

K, M = 1024, 1024 * 1024


@pytest.mark.parametrize(
    ("caches", "split", "reuse"),
    [
        (ZEN4, 16 * K, 256 * K),
        (Caches(32 * K, 512 * K), 16 * K, REUSE_FLOOR),  # Zen 3: the floor
        (Caches(48 * K, 2 * M), 24 * K, 512 * K),  # Sapphire/Emerald Rapids
        (Caches(48 * K, 1280 * K), 24 * K, 320 * K),  # Ice Lake-SP
    ],
)
def test_thresholds_follow_the_caches(caches: Caches, split: int, reuse: int) -> None:
    assert (caches.split_bytes, caches.reuse_bytes) == (split, reuse)


def test_impossible_sizes_are_refused() -> None:
    with pytest.raises(TesselError, match=r"kernel-to-loops\{l1_bytes=100\}: a cache size must be at least 4096 bytes"):
        Caches(100, M)
    with pytest.raises(TesselError, match=r"the L2 is smaller than the L1"):
        Caches(64 * K, 32 * K)
