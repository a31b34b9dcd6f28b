"""SIGTERM and SIGINT stop a tool with one line and exit 128 + the signal, even when the
signal lands inside C code called through ctypes (as z3's bindings are), where the
exception it raises comes back wrapped as `ctypes.ArgumentError`."""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import sys
import time

import pytest

from tessel.tools import cli


class _SignalsWhileConverting:
    """A ctypes argument type whose conversion runs Python code: the signal handler runs
    there, and ctypes reports its exception as "ArgumentError: argument 1: Terminated"."""

    signum = signal.SIGTERM

    @classmethod
    def from_param(cls, obj):
        os.kill(os.getpid(), cls.signum)
        time.sleep(0.2)
        return 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_inside_ctypes_is_a_clean_stop(signum, capsys) -> None:
    _SignalsWhileConverting.signum = signum
    labs = ctypes.CDLL(None).labs
    labs.argtypes = [_SignalsWhileConverting]

    def body() -> int:
        labs(1)
        return 0

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    assert cli.guarded("tessel-x", body, debug=False) == 128 + signum
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err
    assert err.startswith(f"tessel-x: {'terminated (SIGTERM)' if signum == signal.SIGTERM else 'interrupted (SIGINT)'}")
    assert {s: signal.getsignal(s) for s in before} == before, "the handlers are restored"
    cli._STOPPED_BY.clear()
    sys.unraisablehook = sys.__unraisablehook__


def test_a_signal_inside_a_finalizer_is_delivered_again_not_swallowed(capsys) -> None:
    """Found by test_he_synthesis_killed_midway_resumes_from_its_cache[SIGTERM]: SIGTERM
    landed in z3's AstRef.__del__, Python printed 'Exception ignored' and the run went on
    to exit 0."""

    class Finalized:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)

    def body() -> int:
        Finalized()  # collected at once: the signal arrives inside __del__
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            time.sleep(0.01)
        return 0

    assert cli.guarded("tessel-x", body, debug=False) == 128 + signal.SIGTERM
    err = capsys.readouterr().err
    assert "Exception ignored" not in err and err.startswith("tessel-x: terminated (SIGTERM)")
    cli._STOPPED_BY.clear()
    sys.unraisablehook = sys.__unraisablehook__


def test_a_signal_inside_a_constructor_leaves_no_finalizer_traceback(capsys) -> None:
    """Found by CI in test_he_synthesis_killed_midway_resumes_from_its_cache[SIGTERM]: the
    signal landed in z3's BitVecNumRef.__init__ before it set `ctx`; when the half-built
    object was collected its __del__ failed, and Python printed 'Exception ignored' with a
    traceback after the one stop line."""

    class HalfBuilt:
        def __init__(self) -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)
            self.ctx = object()

        def __del__(self) -> None:
            self.ctx.ref()  # AttributeError when __init__ was cut short

    def body() -> int:
        HalfBuilt()
        return 0

    try:
        assert cli.guarded("tessel-x", body, debug=False) == 128 + signal.SIGTERM
        gc.collect()
        err = capsys.readouterr().err
        assert "Traceback" not in err and "Exception ignored" not in err, err
        assert err.startswith("tessel-x: terminated (SIGTERM)") and err.count("\n") == 1
    finally:
        sys.unraisablehook = sys.__unraisablehook__
        cli._STOPPED_BY.clear()
    sys.unraisablehook = sys.__unraisablehook__
