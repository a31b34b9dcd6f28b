"""lit configuration: FileCheck tests over Tessel's textual IR and tools.

Run with `lit -v test/lit` from an environment where the tessel tools are installed
(`make test` does this in .venv).
"""

import os
import shutil
import sys

import lit.formats

config.name = "tessel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.environment["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
# 120 s per test; a loaded machine may raise it (TESSEL_LIT_TIMEOUT=600)
config.maxIndividualTestTime = int(os.environ.get("TESSEL_LIT_TIMEOUT", "120"))


def tool(name: str, module: str) -> str:
    return shutil.which(name, path=config.environment["PATH"]) or f"{sys.executable} -m tessel.tools.{module}"


opt = tool("tessel-opt", "opt")
# Longest names first: lit substitutes in order and %tessel-opt must not eat %tessel-opt-roundtrip.
config.substitutions.append(
    ("%roundtrip", f"{opt} %s --split-input-file --print-op-generic | {opt} --split-input-file | filecheck %s")
)
config.substitutions.append(("%tessel-opt", opt))
config.substitutions.append(("%tessel-translate", tool("tessel-translate", "translate")))
config.substitutions.append(("%tessel-run", tool("tessel-run", "run")))
config.substitutions.append(("%tessel-tune", tool("tessel-tune", "tune")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%examples", os.path.join(os.path.dirname(__file__), "..", "..", "examples")))


def _host_has(feature: str) -> bool:
    try:
        import llvmlite.binding as llvm

        return f"+{feature}" in llvm.get_host_cpu_features().flatten().split(",")
    except Exception:
        return False


# Tests of generated machine code state what the host must have (`REQUIRES: avx512f`).
for _feature in ("avx512f", "avx2"):
    if _host_has(_feature):
        config.available_features.add(_feature)
