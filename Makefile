# Thin convenience layer over CMake. `make run` and `make test` install any
# missing Debian packages first (.ci/install-deps), then build.
BUILD    ?= build
BUILD_SAN ?= build-sanitize
JOBS     ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build run test test-sanitize clean

all: build

deps:
	@bash .ci/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/bin/sinew-demo

test: build
	cd $(BUILD) && ctest --output-on-failure -j 2

test-sanitize: deps
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DSINEW_SANITIZE=ON -DSINEW_BUILD_SAMPLES=OFF
	cmake --build $(BUILD_SAN) -j $(JOBS)
	cd $(BUILD_SAN) && ctest --output-on-failure -j 2 -LE slow

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
