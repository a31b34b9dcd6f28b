"""Graph-level passes on `tg`: constant folding, batch-norm folding, operator fusion,
layout transformation and static memory planning (TVM OSDI'18, section 3)."""
