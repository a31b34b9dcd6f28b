"""User-facing errors: one line, `where: error: what`, like a C compiler or mlir-opt.

Every error a user can cause (bad IR, an unsupported ONNX node, a missing input) is
raised as a `TesselError`; the tools print `str(error)` and exit non-zero without a
traceback unless `--debug` is given.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc, NameLoc
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import ParseError

# (defined in the runtime, which runs saved models without the compiler)
from tessel.runtime.errors import TesselError as TesselError


def op_location(op: Operation | None) -> str | None:
    """`file:line:col` of an op, or of the nearest enclosing op that has one."""
    while op is not None:
        if (where := _describe(op.location)) is not None:
            return where
        op = op.parent_op()
    return None


def _describe(loc: Attribute) -> str | None:
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):
        inner = _describe(loc.location)
        return f"{inner} ({loc.desc.data})" if inner else loc.desc.data
    return None


def from_parse_error(err: ParseError) -> TesselError:
    """A ParseError as one line; xDSL's own rendering spans several lines."""
    loc = err.span.get_location()
    message = " ".join(err.msg.split())
    if message == "in block definition":
        # xDSL's parser stopped after a complete op and found no next op: say what it saw
        seen = err.span.text
        message = (
            f"unexpected '{seen}' after the end of an operation"
            if seen
            else "unexpected end of input after the end of an operation (a region's '}' missing?)"
        )
    # a control byte (binary input read as text) would vanish from the one line: show it
    message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    return TesselError(message, f"{loc.file}:{loc.line}:{loc.col}")
