"""IR plumbing shared by every dialect and tool: element types, parsing with source
locations, one-line diagnostics, and the weight store behind `tg.weight`."""

from tessel.ir import xdsl_fixes as _xdsl_fixes  # noqa: F401  (applied on import)
