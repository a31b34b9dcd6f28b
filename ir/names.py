"""Names from the outside world as SSA name hints.

Exporters name values and initializers freely: PyTorch writes `onnx::Conv_498` and
`/layer1/0/conv1/Conv_output_0`, others use spaces, `:`, leading digits or unicode. An SSA
name hint must match `[A-Za-z_$.-][A-Za-z0-9_$.-]*`; every place that turns such a string into a
name hint goes through `ssa_name`, so no pass or target ever sees an invalid one. Two
strings may map to the same hint (`a:b`, `a_b`); the printer keeps values apart by suffix.
"""

from __future__ import annotations

import re

_INVALID = re.compile(r"[^A-Za-z0-9_$.-]")  # ASCII: what every printer and parser agrees on
_VALID_START = re.compile(r"[A-Za-z_$.-]")


def ssa_name(text: str, default: str = "v") -> str:
    """`text` as a valid SSA name hint: invalid characters become `_`, leading and
    trailing `_` are dropped, and a name that cannot start an identifier gets a `v`."""
    name = _INVALID.sub("_", text).strip("_") or default
    return name if _VALID_START.match(name) else "v" + name
