"""tessel-opt: parse IR, run a pass pipeline, print IR (mlir-opt / xdsl-opt for Tessel).

Examples:
  tessel-opt model.mlir                                  # parse, verify, print
  tessel-opt model.mlir -p canonicalize,cse              # run a pipeline (options: -p 'pass{opt=1}')
  tessel-opt model.mlir --print-op-generic               # generic op syntax
  tessel-opt model.mlir -p cse --print-ir-after-all      # IR after every pass, on stderr
  tessel-opt bad.mlir --split-input-file --verify-diagnostics   # errors as output, exit 0

Errors are one line, `file:line:col: error: message`, with exit code 1; --debug shows tracebacks.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tessel.dialects import all_dialects
from tessel.dialects.context import upstream_dialects
from tessel.dialects.tg import WeightOp
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module, verify
from tessel.ir.weights import WEIGHTS_ATTR, WeightStore, save_weights, with_weights
from tessel.passes import all_passes
from tessel.tools.cli import AtomicOutput, guarded, wants_debug


class TesselOptMain(xDSLOptMain):
    version_format = "tessel-opt (tessel 0.1.0, xdsl {xdsl_version})"

    def register_all_dialects(self) -> None:
        """xDSL's dialects, those Tessel lowers to in Tessel's form (make_context's: arith's
        casts, compares and select take vectors too, as MLIR's do), and Tessel's own."""
        from xdsl.universe import Universe

        tessel_forms = upstream_dialects()
        for name, factory in Universe.get_multiverse().all_dialects.items():
            self.ctx.register_dialect(name, tessel_forms.get(name, factory))
        for name, factory in all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in all_passes().items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        # The pass list describes every pass, which imports them all (a second and a half of
        # z3, OR-Tools and pandas): made only when help is printed, not on every run.
        format_help = arg_parser.format_help

        def with_pass_list() -> str:
            arg_parser.epilog = _tessel_passes_help()
            return format_help()

        arg_parser.format_help = with_pass_list  # type: ignore[method-assign]
        arg_parser.add_argument(
            "--print-ir-after-all", action="store_true", help="print the IR after every pass to stderr"
        )
        arg_parser.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")

    def setup_pipeline(self) -> None:
        """Our own pipeline callback: verification with source locations after every pass."""

        def callback(previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
            if not self.args.disable_verify:
                try:
                    verify(module)
                except TesselError as err:
                    if previous is not None:
                        err.message = f"{err.message} (after pass {previous.name})"
                    raise
            if previous is not None and self.args.print_ir_after_all:
                print(f"// -----// IR Dump After {previous.name} //----- //", file=sys.stderr)
                Printer(stream=sys.stderr).print_op(module)
                print(file=sys.stderr)
            if previous and following and self.args.print_between_passes:
                print(f"IR after {previous.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")

        try:
            self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, callback)
        except ArgSpecParseError as err:
            lines = [line.strip() for line in str(err).splitlines() if line.strip()]
            raise TesselError(f"bad pass pipeline '{self.args.passes}': {lines[-1]}") from None
        except ValueError as err:
            if str(err).startswith("Unrecognized passes"):
                raise TesselError(self._unknown_pass_message(str(err))) from None
            raise TesselError(f"bad pass pipeline '{self.args.passes}': {err}") from None

    def _unknown_pass_message(self, detail: str) -> str:
        names = re.findall(r"'([^']+)'", detail)
        if not names:
            return detail
        hints = []
        for name in names:
            close = difflib.get_close_matches(name, list(self.available_passes), n=3)
            hints.append(f"unknown pass '{name}'" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        return "; ".join(hints) + "; `tessel-opt --help` lists the passes"

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        name = self.get_input_name()
        return parse_module(self.ctx, chunk.read(), name, start_offset)

    def run(self) -> None:
        """Process each chunk; a user error ends the run (exit 1) unless --verify-diagnostics."""
        chunks, _ = self.prepare_input()
        output = self.prepare_output()
        done = False
        try:
            for i, (chunk, offset) in enumerate(chunks):
                if i > 0:
                    output.write("// -----\n")
                try:
                    module = self.parse_chunk(chunk, "mlir", offset)
                    assert module is not None
                    store = None
                    if WEIGHTS_ATTR in module.attributes:
                        store = WeightStore.for_module(module, self.args.input_file)
                    self.pipeline = PassPipeline(with_weights(self.pipeline.passes, store), self.pipeline.callback)
                    self.apply_passes(module)
                    if store is not None and store.created:
                        self._save_weights(module, store)
                    output.write(self.output_resulting_program(module))
                except TesselError as err:
                    if not self.args.verify_diagnostics:
                        raise
                    output.write(f"{err}\n")
                finally:
                    chunk.close()
                output.flush()
            done = True
        finally:
            if isinstance(self._atomic, AtomicOutput):
                self._atomic.commit() if done else self._atomic.discard()

    def _save_weights(self, module: ModuleOp, store: WeightStore) -> None:
        """Passes made new weights (folded constants): write every weight the module uses
        beside the output and point the module at them."""
        if self.args.output_file is None:
            raise TesselError("the pipeline created new weights; give -o FILE so they can be written beside it")
        out = self.args.output_file
        path = (out[: -len(".mlir")] if out.endswith(".mlir") else out) + ".weights.npz"
        used = {op.weight_name for op in module.walk() if isinstance(op, WeightOp)}
        # after tg-to-kernel, weights are memref.globals without a value, bound by name
        used |= {
            op.sym_name.data
            for op in module.walk()
            if isinstance(op, memref.GlobalOp) and isinstance(op.initial_value, UnitAttr) and op.sym_name.data in store
        }
        save_weights(path, {name: store[name] for name in sorted(used)})
        rel = os.path.relpath(os.path.abspath(path), os.path.dirname(os.path.abspath(out)))
        module.attributes[WEIGHTS_ATTR] = StringAttr(rel)

    def prepare_output(self) -> IO[str]:
        """stdout, or the -o file written beside it and renamed into place on success."""
        self._atomic = None
        if self.args.output_file is None:
            return sys.stdout
        self._atomic = AtomicOutput(self.args.output_file)
        return self._atomic.file

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """Any file is read as MLIR text; a missing one is a user error."""
        if self.args.input_file is None:
            return sys.stdin.buffer, "mlir"
        try:
            return open(self.args.input_file, "rb"), "mlir"
        except OSError as err:
            raise TesselError(f"cannot read {self.args.input_file}: {err.strerror}") from None


def _tessel_passes_help() -> str:
    """Tessel's own passes, one line each (the -p list above mixes them with xDSL's)."""
    from tessel.passes import all_passes, describe

    names = list(all_passes())
    width = max(len(n) for n in names)
    lines = [f"  {name:<{width}}  {describe(name)}" for name in names]
    return "Tessel's passes (passes/<dialect>/<file>.py is <dialect>-<file>):\n" + "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    def body() -> int:
        TesselOptMain(description=__doc__, args=argv).run()
        return 0

    return guarded("tessel-opt", body, wants_debug(argv))


if __name__ == "__main__":
    sys.exit(main())
