#!/usr/bin/env bash
# Download the wheels bench/gpu_check.sh installs on a GPU machine without a package
# registry (Python 3.12, x86-64): Tessel's pure-Python dependencies the device image lacks.
# (bench/cpu_check.sh installs the same: threadpoolctl is bench.cpu_ops' only addition.)
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
  xdsl==0.74.0 immutabledict ordered-set typing-extensions threadpoolctl==3.8.0
ls .whl
