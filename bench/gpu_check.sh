#!/usr/bin/env bash
# Every GPU check in one run, for a machine with an NVIDIA GPU (under 5 minutes on an H200):
# the device tests (test/gpu) and the benchmark against cuBLAS/cuDNN/torch.
#
# The machine needs Python with numpy, onnx, onnxruntime, llvmlite 0.50, cuda-python
# (cuda.bindings), torch and pytest; Tessel's pure-Python dependencies that it lacks
# (xdsl and its three) travel as wheels in .whl/ (bench/gpu_wheels.sh downloads them).
# With the device tool: run `bash bench/gpu_check.sh` with carry [".whl"].
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if compgen -G ".whl/*.whl" > /dev/null; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tessel-site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/tessel-site${PYTHONPATH:+:$PYTHONPATH}
fi
# the repository root is the package `tessel` (pyproject: package-dir tessel = .)
mkdir -p /tmp/tessel-pkg && ln -sfn "$PWD" /tmp/tessel-pkg/tessel
export PYTHONPATH=/tmp/tessel-pkg:$PYTHONPATH PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
$PY -c "import llvmlite, xdsl; print('llvmlite', llvmlite.__version__, 'xdsl', xdsl.__version__)" || exit 1
status=0
$PY -m pytest test/gpu -q -p no:cacheprovider -rs || status=1
$PY -m tessel.bench.gpu --runs 20 "$@" || status=1
exit $status
