# Thin convenience layer over CMake. `make run` and `make test` install any
# missing Debian packages first (.ci/install-deps), then build.
BUILD    ?= build
BUILD_SAN ?= build-sanitize
JOBS     ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build python run test test-sanitize fuzz docs gpu-check clean

all: build

deps:
	@bash .ci/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The Python package into $(BUILD)/python (PYTHONPATH=$(BUILD)/python python3 -c
# 'import sinew'; python3 -m sinew.bake ...): docs/python.md. make test builds it too.
python: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target sinew_python sinew_python_files

# Tube quality + kernel throughput vs copy roofline (sinew-demo), then the crowd
# benchmark (table, CSV, JSON and PNG plot; see sinew-bench --help for --out),
# after the tube quality table of sinew-demo.
run: build
	$(BUILD)/bin/sinew-demo
	$(BUILD)/bin/sinew-bench
	$(BUILD)/bin/sinew-bench --cpu-only

test: build
	cd $(BUILD) && ctest --output-on-failure -j 2

test-sanitize: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DSINEW_SANITIZE=ON -DSINEW_BUILD_SAMPLES=ON
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j 2

# Bounded libFuzzer runs (clang, ASan + UBSan) of the assimp import path and of
# Sinew's glTF importer, FUZZ_SECONDS each (FUZZ_GLTF_SECONDS for the second).
FUZZ_SECONDS ?= 60
FUZZ_GLTF_SECONDS ?= $(FUZZ_SECONDS)
fuzz: deps
	sh tests/fuzz/run_fuzz.sh $(CURDIR) $(CURDIR)/$(BUILD)/fuzz $(FUZZ_SECONDS) $(FUZZ_GLTF_SECONDS)

# API reference from the public headers (Doxyfile) into $(BUILD)/docs/html.
# Needs doxygen (Debian package doxygen), which make test does not install.
DOXYGEN ?= doxygen
docs:
	@command -v $(DOXYGEN) >/dev/null 2>&1 || { echo "make docs: doxygen not found; install it with 'apt-get install doxygen' (or set DOXYGEN=/path/to/doxygen)" >&2; exit 1; }
	@mkdir -p $(BUILD)/docs
	SINEW_DOCS_DIR=$(BUILD)/docs $(DOXYGEN) Doxyfile
	@echo "API reference: $(BUILD)/docs/html/index.html (warnings: $(BUILD)/docs/warnings.txt)"

# tools/gpu-check.sh on an existing build (never rebuilds; the lent GPU machine
# may have no compiler): ctest, kernel A/B, 10k x 10k crowd (DQS with scale +
# bulge), copy roofline, one results file (BUILD/gpu-check/, or $OUT/gpu-check).
# GPU_CHECK_FLAGS=--quick for a CPU device (lavapipe).
GPU_CHECK_FLAGS ?=
gpu-check:
	bash tools/gpu-check.sh $(GPU_CHECK_FLAGS) $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
