"""Reading and checking textual IR with source locations.

xDSL's parser attaches a location to an op only when the text spells `loc(...)`, so a
verifier error cannot say where the op was. `LocatingParser` records `file:line:col` of
every op it parses, and `verify` reports the first failing op as a one-line
`TesselError` at that position, as mlir-opt does.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import AttributeInvT, Operation, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span

from tessel.ir.diagnostics import TesselError, from_parse_error, op_location
from tessel.ir.limits import check_shape


class LocatingParser(Parser):
    """A Parser that gives every parsed op a FileLineColLoc and reports type-constraint
    failures found while parsing as ParseErrors at the op."""

    def __init__(self, ctx: Context, text: str | bytes, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._name = name
        self._line_offset = line_offset
        self._first_uses: dict[str, Span] = {}
        content = self._parser_state.lexer.input.content
        newline = "\n" if isinstance(content, str) else b"\n"
        self._line_starts = [0]
        start = content.find(newline)
        while start != -1:
            self._line_starts.append(start + 1)
            start = content.find(newline, start + 1)

    def _location(self, pos: int) -> FileLineColLoc:
        line = bisect.bisect_right(self._line_starts, pos)
        col = pos - self._line_starts[line - 1] + 1
        return FileLineColLoc(StringAttr(self._name), IntAttr(line + self._line_offset), IntAttr(col))

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError, OverflowError) as err:
            # constraint failures and values that do not fit their type (dense<300> : tensor<2xui8>)
            end = self._current_token.span
            raise ParseError(Span(start.start, end.start, start.input, self._line_offset), str(err)) from err
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(start.start)
        return op

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue[AttributeInvT]:
        """Remember where each value is first used before its definition."""
        name = operand.operand_name
        if name not in self.ssa_values:
            self._first_uses.setdefault(name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """As upstream, but an undefined value is reported at its first use, not at the end."""
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as err:
            if not err.msg.startswith("values used but not defined") or not self.forward_ssa_references:
                raise
            name = next(iter(self.forward_ssa_references))
            span = self._first_uses.get(name)
            if span is None:
                raise
            span = Span(span.start, span.end, span.input, self._line_offset)
            raise ParseError(span, f"use of undefined value '%{name}'") from None


def parse_module(ctx: Context, text: str | bytes, name: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """Parse a module; a syntax error becomes a one-line TesselError at its position.

    A text with no operations (empty, or only comments) is an empty module, as in mlir-opt."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise TesselError(
                f"{name} is not UTF-8 text (byte {err.start}); is it a binary file such as an .onnx model?"
            ) from None
    if not re.sub(r"//[^\n]*", "", text).strip():
        return ModuleOp([])
    try:
        return LocatingParser(ctx, text, name, line_offset).parse_module()
    except RecursionError:
        raise TesselError(f"{name}: the IR is nested too deeply to parse") from None
    except ParseError as err:
        if err.span.line_offset == 0 and line_offset:
            err.span = dataclasses.replace(err.span, line_offset=line_offset)
        raise from_parse_error(err) from err


def verify(module: Operation) -> None:
    """Verify every op; the first failure becomes a TesselError at the failing op.

    Beyond xDSL's verifiers: every operand is defined before its use (xDSL does not check
    dominance, so a cyclic graph such as `%a = tg.add %x, %b` ... `%b = tg.relu %a` would
    reach the passes), and no shaped value exceeds the element limit (ir/limits.py)."""
    positions: dict[Operation, int] = {}
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as err:
            message = " ".join(str(err).split())
            raise TesselError(f"'{op.name}' op {message}", op_location(op)) from err
        _check_defined_before_use(op, positions)
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            shape = getattr(value.type, "get_shape", None)
            if shape is not None:
                check_shape(
                    shape(),
                    lambda: f"'{op.name}' op value %{value.name_hint or '?'} of type {value.type}",  # noqa: B023
                    op_location(op),
                )


def _check_defined_before_use(op: Operation, positions: dict[Operation, int]) -> None:
    """An operand defined by a later op of the same block (or by the op itself) is a cycle
    or a use before definition: refuse it, naming the value."""
    block = op.parent_block()
    if block is None:
        return
    for operand in op.operands:
        owner = operand.owner
        if not isinstance(owner, Operation) or owner.parent_block() is not block:
            continue
        if not positions.get(op):
            positions.update((o, i) for i, o in enumerate(block.ops, 1))
        if owner is op or positions[owner] > positions[op]:
            name = f"%{operand.name_hint}" if operand.name_hint else "a value"
            raise TesselError(
                f"'{op.name}' op uses {name} before it is defined (the graph has a cycle)", op_location(op)
            )


def read_module(ctx: Context, path: str) -> ModuleOp:
    """Parse and verify a file."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as err:
        raise TesselError(f"cannot read {path}: {err.strerror}") from err
    module = parse_module(ctx, text, path)
    verify(module)
    return module


def print_module(module: Operation, generic: bool = False) -> str:
    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    out.write("\n")
    return out.getvalue()
