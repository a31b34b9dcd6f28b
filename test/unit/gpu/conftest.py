"""fake_cuda.py sits beside the tests; pytest's importlib mode does not put this folder on
sys.path, so put it there. `fake`: the GPU runtime on the stand-in driver."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_cuda import FakeDriver  # noqa: E402


@pytest.fixture
def fake(monkeypatch):  # noqa: ANN001, ANN201
    from tessel.targets.gpu import nvptx, runtime

    driver = FakeDriver()
    monkeypatch.setattr(runtime, "driver", lambda hint=None: driver)
    original = nvptx.emit_ptx_module

    def emit(module):  # noqa: ANN001, ANN202 - every PTX module loaded stands for the module it came from
        driver.expect(module)
        return original(module)

    monkeypatch.setattr(runtime.GpuExecutable, "emit", staticmethod(emit))
    monkeypatch.setattr(nvptx, "emit_ptx_module", emit)
    return driver
