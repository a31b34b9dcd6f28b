# `make test` and `make demo` work on a fresh machine with Python 3.11 and pip: each
# creates .venv and installs the project with what it needs.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
DEMO := build/demo

.PHONY: test unit conformance conformance-full lit demo clean fuzz check lint typecheck zoo wheel-test docs-api

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(PIP) install --disable-pip-version-check --progress-bar off -q -e '.[$*]'
	touch $@

# pytest runs on every core (pytest-xdist; TEST_JOBS=1 for one process): on CI's two cores
# that is 14 minutes for unit, conformance, fuzz and bad inputs instead of 26.
TEST_JOBS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(TEST_JOBS) --dist worksteal

test: $(VENV)/.installed-test
	$(MAKE) --no-print-directory check
	$(PYTEST) test/unit test/conformance -q
	$(PYTEST) test/fuzz test/bad-inputs test/gpu -q -rs
	$(BIN)/lit -sv test/lit
	$(MAKE) --no-print-directory docs-api
	$(MAKE) --no-print-directory wheel-test WHEEL_DEPS=venv

# The long fuzz profile (test/fuzz/profile.py): random seeds, many examples, statistics.
fuzz: $(VENV)/.installed-test
	TESSEL_FUZZ=long $(BIN)/python -m pytest test/fuzz -q --hypothesis-show-statistics

unit: $(VENV)/.installed-test
	$(PYTEST) test/unit -q

conformance: $(VENV)/.installed-test
	$(PYTEST) test/conformance -q

# Every node test on every target (make test runs the compiled targets on a cover of the
# suite: test/conformance/onnx/node_suite.py); rewrites docs/onnx-coverage.md.
conformance-full: $(VENV)/.installed-test
	TESSEL_CONFORMANCE=full $(PYTEST) test/conformance -q

lit: $(VENV)/.installed-test
	$(BIN)/lit -sv test/lit

demo: $(VENV)/.installed-demo
	@mkdir -p $(DEMO)
	$(BIN)/python examples/models/resnet18.py -o $(DEMO)/resnet18.onnx
	$(BIN)/tessel-translate --import-onnx $(DEMO)/resnet18.onnx -o $(DEMO)/resnet18.mlir
	@echo "--- $(DEMO)/resnet18.mlir (first ops of the tg IR) ---"
	@grep -m 8 -E 'tg\.(conv2d|batch_norm|relu|max_pool2d|add)' $(DEMO)/resnet18.mlir | cut -c1-160
	$(BIN)/tessel-run $(DEMO)/resnet18.mlir --target reference --seed 0 -o $(DEMO)/logits.npz
	$(BIN)/tessel-run $(DEMO)/resnet18.onnx --target reference --seed 0 --check
	@echo "--- ResNet-18 compiled for this CPU (2 threads): latency next to onnxruntime's, max error ---"
	$(BIN)/tessel-run $(DEMO)/resnet18.onnx --target cpu --threads 2 --seed 0 --check --time 20 --dump-ir $(DEMO)/ir
	@echo "--- homomorphic encryption: box blur synthesized, verified, run on SEAL ---"
	$(BIN)/python examples/he/demo.py -o $(DEMO)/box_blur.mlir
	$(BIN)/tessel-run $(DEMO)/box_blur.mlir --target seal --entry box_blur_synth
	$(BIN)/tessel-translate $(DEMO)/box_blur.mlir --target seal-cpp --opt entry=box_blur_synth -o $(DEMO)/box_blur_seal.h
	@echo "--- collectives: allgather on 2 NDv2 nodes, synthesized, verified, simulated, run on gloo ---"
	$(BIN)/tessel-run ndv2x2 --target nccl --collective allgather --size 1MB --time-limit 20 -o $(DEMO)/allgather-ndv2x2.xml --emit-ir $(DEMO)/allgather-ndv2x2.mlir --timeline $(DEMO)/allgather-ndv2x2.png --execute gloo --ranks 8
	@echo "--- VTA: ResNet-18's C9 as an int8 layer on the simulated accelerator, without and with latency hiding ---"
	$(BIN)/python examples/vta/layers.py C9 -o $(DEMO)/c9.mlir
	$(BIN)/tessel-run $(DEMO)/c9.mlir --target vta --vthreads 1 --check
	$(BIN)/tessel-run $(DEMO)/c9.mlir --target vta --vthreads 2 --check --dump-ir $(DEMO)/c9-vta.mlir
	$(BIN)/tessel-translate $(DEMO)/c9.mlir --target vta --opt form=bin -o $(DEMO)/c9.vta.bin
	@echo "--- image pipelines: unsharp mask and an ISP-lite, fused and line-buffered, on a generated 1080p image ---"
	$(BIN)/python examples/img/test_image.py -o $(DEMO)/in.png
	$(BIN)/tessel-run examples/img/unsharp_u8.mlir --target cpu --image $(DEMO)/in.png -o $(DEMO)/unsharp.png --check --time 20 --report
	$(BIN)/tessel-run examples/img/isp_lite_u8.mlir --target cpu --image $(DEMO)/in.png --bayer -o $(DEMO)/isp_lite.png --check --time 20
	@echo "--- camera study (IISWC'17): where the data should leave the camera, and what each data reduction is worth ---"
	$(BIN)/python -m tessel.bench.camera --plot $(DEMO)/camera_study.png
	@echo "--- the two camera pipelines compiled for this CPU: gates drop frames, every sink checked against the reference ---"
	$(BIN)/tessel-run examples/img/camera/face_auth.mlir --target cpu --frames 4 --check --report
	$(BIN)/python -m tessel.bench.camera_run --frames 100 --rig-frames 2

# The model zoo (examples/zoo): real architectures from torchvision and transformers built
# from code with random weights, exported by PyTorch (opset 17), checked on the reference
# and CPU targets against onnxruntime and timed; the table goes to docs/zoo.md. The
# exporters live in their own venv (a CUDA build of torch, ~5.5 GB), not in .venv.
ZOO_VENV := .venv-zoo
ZOO_PIP := $(ZOO_VENV)/bin/python -m pip

$(ZOO_VENV)/bin/python:
	$(PYTHON) -m venv $(ZOO_VENV)

$(ZOO_VENV)/.installed: | $(ZOO_VENV)/bin/python
	$(ZOO_PIP) install --disable-pip-version-check --progress-bar off -q torch==2.14.1 torchvision==0.29.1 transformers==5.24.0 onnx==1.23.2 onnxruntime==1.32.0
	touch $@

zoo: $(VENV)/.installed-test $(ZOO_VENV)/.installed
	$(ZOO_VENV)/bin/python examples/zoo/export.py --out build/zoo
	$(BIN)/python examples/zoo/check.py build/zoo --time 20 -o docs/zoo.md; status=$$?; \
	$(BIN)/python examples/zoo/int8_layers.py build/zoo/resnet18_int8.onnx && exit $$status

clean:
	rm -rf $(VENV) $(ZOO_VENV) build .cache *.egg-info

# Lint, formatting, types and the layer line (docs/architecture.md).
# The house rules (docs/architecture.md): ruff, the formatter, the import-linter layer and
# acyclicity contracts (lint), and the type checker (typecheck); make test runs both first.
check: lint typecheck

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(VENV)/.installed-test
	@tmp=$$(mktemp -d) && ln -s $(CURDIR) $$tmp/tessel && cd $$tmp && MYPYPATH=$$tmp $(CURDIR)/$(BIN)/mypy -p tessel --config-file $(CURDIR)/pyproject.toml; status=$$?; rm -rf $$tmp; exit $$status

# The wheel from outside the checkout (test/wheel/wheel_check.py): python -m build, a fresh
# venv in a temporary folder, the wheel and its dependencies from the index, then the
# README's Python examples, a saved model loaded without the compiler, and img-partition's
# default platform model (package data), all run from a folder outside the checkout.
# WHEEL_DEPS=venv links the dependencies from .venv instead (offline, ~1 minute).
WHEEL_DEPS ?= index
wheel-test: $(VENV)/.installed-test
	$(BIN)/python test/wheel/wheel_check.py --deps $(WHEEL_DEPS)

# The API reference from the docstrings (pdoc): the package root, tessel.api and the
# deployable runtime, into build/docs/api; any warning fails the build.
API_MODULES := tessel tessel.api tessel.runtime $(foreach p,bench dialects frontends ir passes pipelines targets tools tune,'!tessel.$(p)')
docs-api: $(VENV)/.installed-test
	@rm -rf build/docs/api
	$(BIN)/python -W error -m pdoc $(API_MODULES) -o build/docs/api
	@echo "API reference: build/docs/api/index.html"
