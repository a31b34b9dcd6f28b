#!/usr/bin/env bash
# Every CPU benchmark of the CPU-speed issue in one run, for a machine lent for minutes (the
# device machine's Intel Xeon): what CPU it is, its FMA peak at the benchmarks' 2 threads, the
# single operators (matmul's fraction of that peak, ResNet-18's convolutions, MobileNet's
# depthwise layers), the example models, and where each model's time goes beside
# onnxruntime's own profile (bench.cpu_profile). About 7 minutes on a Zen 4.
#
# The machine needs Python with numpy, onnx, onnxruntime and llvmlite 0.50; Tessel's
# pure-Python dependencies it lacks travel as wheels in .whl/ (bench/gpu_wheels.sh). Zoo
# models (`make zoo`'s build/zoo, or a few of them: the device tool carries 64 MiB) are
# profiled where ZOO names their folder. With the device tool:
#   bash bench/cpu_check.sh            with carry [".whl"]            (and ZOO=zoo, carry "zoo")
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
THREADS=${THREADS:-2}
if compgen -G ".whl/*.whl" > /dev/null; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tessel-site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/tessel-site${PYTHONPATH:+:$PYTHONPATH}
fi
mkdir -p /tmp/tessel-pkg && ln -sfn "$PWD" /tmp/tessel-pkg/tessel
export PYTHONPATH=/tmp/tessel-pkg:$PYTHONPATH PYTHONUNBUFFERED=1 TESSEL_MODEL_CACHE=0
lscpu | grep -E "Model name|^CPU\(s\)|Thread|L1d|L2|L3" || true
$PY -c "from tessel.targets.cpu import cpu_target; print('tessel target:', cpu_target.host().details)" || exit 1
status=0
$PY -m tessel.bench.cpu_peak --threads "$THREADS" || status=1
$PY -m tessel.bench.cpu_ops --threads "$THREADS" --rounds 3 || status=1
$PY -m tessel.bench.cpu_models --threads "$THREADS" --rounds 5 || status=1
$PY -m tessel.bench.cpu_profile --examples resnet18,mobilenet_v1,transformer,dcgan --threads "$THREADS" --runs 20 || status=1
if [ -n "${ZOO:-}" ] && [ -f "$ZOO/index.json" ]; then
  $PY -m tessel.bench.cpu_models --zoo "$ZOO" --threads "$THREADS" --rounds 5 || status=1
  $PY -m tessel.bench.cpu_profile --zoo "$ZOO" --threads "$THREADS" --runs 20 || status=1
fi
exit $status
