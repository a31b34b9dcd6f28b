"""What every Tessel command-line tool shares: one-line errors, `--debug`, value parsing.

A user error (bad IR, unsupported ONNX, a missing file) prints `where: error: what` and
exits 1. Anything else is a compiler bug: one line saying so, exit 70, and the traceback
only with --debug.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import zipfile
from collections.abc import Callable, Sequence
from types import FrameType

import numpy as np

from tessel.ir.diagnostics import TesselError

EXIT_USER_ERROR = 1
EXIT_UNAVAILABLE = 2
EXIT_INTERNAL = 70


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that `finally` blocks (closing worker pools,
    discarding partial outputs) run as they do for Ctrl-C."""


_STOPPED_BY: list[int] = []  # the signals received, for exceptions that hide them (below)


def _stop(signum: int, frame: FrameType | None) -> None:
    """Raise the signal's exception in the main thread, except inside a finalizer, where
    Python would print and swallow it (z3's `__del__` calls into C often): there, deliver
    the signal again a moment later instead."""
    _STOPPED_BY.append(signum)
    sys.unraisablehook = _after_stop
    f = frame
    while f is not None:
        if f.f_code.co_name == "__del__":
            threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
            return
        f = f.f_back
    raise KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def _after_stop(unraisable: sys.UnraisableHookArgs) -> None:
    """After a stop, an exception in a finalizer is the stop's echo, not news: the signal's
    exception can land inside a constructor (z3's `BitVecNumRef.__init__` before it sets
    `ctx`), and the half-built object's `__del__` then fails when it is collected. Python
    would print that as "Exception ignored ... Traceback"; the one stop line says it all."""


def _stopped(tool: str, signum: int) -> int:
    name, how = ("SIGINT", "interrupted") if signum == signal.SIGINT else ("SIGTERM", "terminated")
    print(f"{tool}: {how} ({name}); finished work is kept, rerun the same command to resume", file=sys.stderr)
    return 128 + signum


def guarded(tool: str, body: Callable[[], int], debug: bool) -> int:
    """Run a tool's body, turning exceptions into one-line messages and exit codes.

    SIGINT and SIGTERM stop the run cleanly: what was already recorded (tuning records,
    synthesis cache entries) stays, partial outputs are removed, and the exit status is
    128 + the signal number with one line saying that a rerun resumes."""
    main = threading.current_thread() is threading.main_thread()
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main else {}
    for s in previous:
        signal.signal(s, _stop)
    try:
        return body()
    except TesselError as err:
        print(f"{tool}: {err}" if err.location is None else str(err), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return _stopped(tool, signal.SIGINT)
    except Terminated:
        return _stopped(tool, signal.SIGTERM)
    except BrokenPipeError:
        return 0
    except Exception as err:
        if (
            _STOPPED_BY
        ):  # the signal's exception was wrapped on the way (ctypes: "ArgumentError: argument 1: Terminated")
            return _stopped(tool, _STOPPED_BY[-1])
        if debug:
            raise
        message = " ".join(str(err).split()) or type(err).__name__
        print(
            f"{tool}: internal error: {type(err).__name__}: {message} (this is a Tessel bug; rerun with --debug for the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


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


class AtomicOutput:
    """An output file that appears whole or not at all: written to `PATH.tmp.PID` beside
    it, renamed over PATH by `commit()`, removed by `discard()` (a failed or interrupted
    run leaves no partial file for a later step to read as if it were complete)."""

    def __init__(self, path: str, mode: str = "w", flag: str = "-o"):
        check_output_path(path, flag)
        self.path = path
        self.temp = f"{path}.tmp.{os.getpid()}"
        try:
            self.file = open(self.temp, mode)
        except OSError as err:
            raise TesselError(f"cannot write {flag} {path}: {err.strerror or err}") from None

    def commit(self) -> None:
        self.file.close()
        os.replace(self.temp, self.path)

    def discard(self) -> None:
        self.file.close()
        try:
            os.unlink(self.temp)
        except FileNotFoundError:
            pass

    def __enter__(self):
        return self.file

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def write_atomically(path: str, data: str | bytes, flag: str = "-o") -> None:
    """Write a whole file at once (see AtomicOutput)."""
    with AtomicOutput(path, "wb" if isinstance(data, bytes) else "w", flag) as f:
        f.write(data)


def save_npz_atomically(path: str, arrays: dict, flag: str = "-o") -> None:
    """np.savez to a temporary file, renamed over `path` once complete. (np.savez appends
    `.npz` to names without it; the file object keeps the name as given.)"""
    with AtomicOutput(path if path.endswith(".npz") else path + ".npz", "wb", flag) as f:
        np.savez(f, **arrays)
