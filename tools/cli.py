"""What every Tessel command-line tool shares: one-line errors, `--debug`, value parsing.

A user error (bad IR, unsupported ONNX, a missing file) prints `where: error: what` and
exits 1. Anything else is a compiler bug: one line saying so, exit 70, and the traceback
only with --debug.
"""

from __future__ import annotations

import os
import sys
import zipfile
from collections.abc import Callable, Sequence

import numpy as np

from tessel.ir.diagnostics import TesselError

EXIT_USER_ERROR = 1
EXIT_UNAVAILABLE = 2
EXIT_INTERNAL = 70


def guarded(tool: str, body: Callable[[], int], debug: bool) -> int:
    """Run a tool's body, turning exceptions into one-line messages and exit codes."""
    try:
        return body()
    except TesselError as err:
        print(f"{tool}: {err}" if err.location is None else str(err), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print(f"{tool}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as err:
        if debug:
            raise
        message = " ".join(str(err).split()) or type(err).__name__
        print(
            f"{tool}: internal error: {type(err).__name__}: {message} (this is a Tessel bug; rerun with --debug for the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def wants_debug(argv: Sequence[str] | None) -> bool:
    return "--debug" in (sys.argv[1:] if argv is None else argv)


def parse_assignments(items: Sequence[str], flag: str) -> dict[str, str]:
    """`name=value` pairs; the name may itself contain '=' only if quoted away by the shell."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.rpartition("=")
        if not sep or not name or not value:
            raise TesselError(f"{flag} expects NAME=VALUE, got '{item}'")
        out[name] = value
    return out


def parse_shapes(items: Sequence[str]) -> dict[str, list[int]]:
    shapes = {}
    for name, text in parse_assignments(items, "--input-shape").items():
        try:
            shapes[name] = [int(d) for d in text.split(",")]
        except ValueError:
            raise TesselError(f"--input-shape {name}={text}: dimensions must be integers separated by commas") from None
        if any(d < 0 for d in shapes[name]):
            raise TesselError(f"--input-shape {name}={text}: dimensions must be non-negative")
    return shapes


def _load(path: str, what: str) -> np.ndarray | np.lib.npyio.NpzFile:
    try:
        return np.load(path, allow_pickle=False)
    except OSError as err:
        raise TesselError(f"cannot read {what} {path}: {err.strerror or err}") from None
    except (ValueError, EOFError, zipfile.BadZipFile):
        raise TesselError(f"{what} {path} is not a numpy .npy or .npz file") from None


def load_array(path: str, what: str) -> np.ndarray:
    value = _load(path, what)
    if isinstance(value, np.lib.npyio.NpzFile):
        value.close()
        raise TesselError(f"{what} {path} is an .npz archive; give one array as .npy")
    return value


def parse_bindings(items: Sequence[str]) -> dict[str, np.ndarray]:
    return {name: load_array(path, f"--bind {name}") for name, path in parse_assignments(items, "--bind").items()}


def load_npz(path: str, what: str) -> dict[str, np.ndarray]:
    value = _load(path, what)
    if not isinstance(value, np.lib.npyio.NpzFile):
        raise TesselError(f"{what} {path} must be an .npz archive of named arrays, not a single .npy array")
    with value as npz:
        return {name: npz[name] for name in npz.files}


def check_output_path(path: str | None, flag: str = "-o") -> None:
    """Fail before any work when an output cannot be written (its folder does not exist)."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise TesselError(f"cannot write {flag} {path}: folder {folder} does not exist")
