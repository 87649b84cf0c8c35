# Wraps CMake. Every target first installs what is missing (scripts/install-deps is idempotent).
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 60

.PHONY: all deps release test demo bench bench-scale fuzz soak tsan clean format \
  format-check

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

# What a pod costs, where it shows: the workloads at scale, SchedulingBasic and GangBasic with a
# million measured pods on 50,000 nodes (each about 2 minutes and 2.1 GiB on 2 cores;
# BENCHMARKS.md). scripts/bench-compare puts two builds side by side at this size.
bench-scale: deps build/release/build.ninja
	cmake --build build/release -j $(JOBS) --target muster
	./build/release/muster bench SchedulingBasicAtScale GangBasicAtScale

# The randomized workloads under the invariant checker, far beyond the 2,000 seeds of `make
# test`: SOAK_SEEDS (default 2001-50000), in the test build (AddressSanitizer and UBSan).
SOAK_SEEDS ?= 2001-50000
soak: deps build/test/build.ninja
	cmake --build build/test -j $(JOBS) --target muster_tests
	cd build/test && MUSTER_RANDOM_SEEDS=$(SOAK_SEEDS) ASAN_OPTIONS=detect_leaks=1 \
	  ctest --output-on-failure --no-tests=error -j $(JOBS) -R 'RandomWorkload.KeepsEveryInvariant'

# The tests under ThreadSanitizer: the loop pool, the parallel Filter and Score of every
# scheduling test, and `muster run`'s binder threads and informers in the end-to-end tests.
build/tsan/build.ninja: | deps
	cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMUSTER_TSAN=ON \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" $(CMAKE_FLAGS)

tsan: deps build/tsan/build.ninja
	cmake --build build/tsan -j $(JOBS)
	cd build/tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  ctest --output-on-failure -j $(JOBS)

# libFuzzer needs clang: everything is built with coverage instrumentation, ASan and UBSan.
build/fuzz/build.ninja: | deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DMUSTER_FUZZ=ON -DMUSTER_TESTS=OFF $(CMAKE_FLAGS)

# Runs each fuzz target (fuzz/*_fuzz.cc) for FUZZ_SECONDS; fails if any finds a crash, a leak,
# undefined behaviour, a hang or an out-of-memory (docs/checking.md "Fuzzing").
fuzz: deps build/fuzz/build.ninja
	cmake --build build/fuzz -j $(JOBS) \
	  --target $(patsubst fuzz/%_fuzz.cc,fuzz_%,$(wildcard fuzz/*_fuzz.cc))
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz

clean:
	rm -rf build

# Every C++ file as clang-format 14 writes it (.clang-format); `make test` checks it (ctest: format).
format: deps
	clang-format-14 -i $$(find src tests microbench fuzz \( -name '*.h' -o -name '*.cc' \))

format-check: deps
	./scripts/check-format
