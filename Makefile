# Wraps CMake. Every target first installs what is missing (scripts/install-deps is idempotent).
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps release test demo bench validate-examples clean format

all: release

deps:
	@./scripts/install-deps

build/release/build.ninja: | deps
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DMUSTER_TESTS=OFF \
	  -DMUSTER_BENCHMARKS=ON $(CMAKE_FLAGS)

# The micro-benchmarks are built here too (not run): a change that breaks them fails `make test`.
build/test/build.ninja: | deps
	cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMUSTER_SANITIZE=ON \
	  -DMUSTER_BENCHMARKS=ON -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" $(CMAKE_FLAGS)

# The release binary: build/release/muster.
release: deps build/release/build.ninja
	cmake --build build/release -j $(JOBS) --target muster

# The tests, built with AddressSanitizer and UndefinedBehaviorSanitizer.
test: deps build/test/build.ninja
	cmake --build build/test -j $(JOBS)
	cd build/test && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# The built-in example: seed 000's coscheduling demo, simulated.
demo: release
	./build/release/muster simulate

# Upstream scheduler_perf's workloads and the gang workloads (BENCHMARKS.md), then the
# micro-benchmarks of the hot paths.
bench: deps build/release/build.ninja
	cmake --build build/release -j $(JOBS) --target muster muster_microbench
	./build/release/muster bench; status=$$?; ./build/release/muster_microbench && exit $$status

clean:
	rm -rf build

format:
	clang-format -i $$(find src tests bench -name '*.h' -o -name '*.cc' 2>/dev/null)
