"""Passes on `tg`: batch-norm and constant folding, the blocked layout, operator fusion,
memory planning, and the lowerings out of tg (tg-to-kernel, tg-to-vta)."""
