# Convenience front end to CMake. Every target first makes sure the Debian
# packages are installed (tools/install-deps.sh is a no-op when they are).
BUILD   ?= build
JOBS    ?= $(shell nproc)
CMAKE_FLAGS ?=
# The interpreter the Python module is built for: Debian's, as on a fresh machine and in CI.
PYTHON  ?= /usr/bin/python3

.PHONY: all deps configure build demo test python test-python test-mpi test-sanitize test-tsan test-clang fuzz bench static test-portable reproduce clean

all: build

deps:
	@tools/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job on a bundled KB: train, evaluate, print induced rules and a proof.
demo: build
	@tools/demo.sh $(BUILD)/ntp

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The Python module `ntp` (python/), built in the same folder with
# -DNTP_PYTHON=ON, which the folder then keeps (so `make test` runs its test
# too): $(BUILD)/python/ntp.cpython-*.so, imported with PYTHONPATH=$(BUILD)/python.
python:
	@tools/install-deps.sh --python
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DNTP_PYTHON=ON -DPython3_EXECUTABLE=$(PYTHON) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target ntp ntp_python
	@echo "Python module built in $(BUILD)/python/: PYTHONPATH=$(BUILD)/python $(PYTHON) -c 'import ntp'"

# The module's test (tests/python/): the CLI and the module on the family KB.
test-python: python
	@cd $(BUILD) && ctest --output-on-failure -R '^python$$'

# `mpirun -np R ntp eval`, a ranking shared by R processes: the command built
# with Open MPI in its own folder (the default build needs no MPI), and its
# test (tests/mpi/).
test-mpi:
	@tools/install-deps.sh --mpi
	@cmake -S . -B $(BUILD)-mpi -DCMAKE_BUILD_TYPE=Release -DNTP_MPI=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-mpi -j $(JOBS) --target ntp model_distance
	@cd $(BUILD)-mpi && ctest --output-on-failure -R '^mpi_'

# The whole test suite under AddressSanitizer and UBSan, in its own build
# folder. -O1 -g without NDEBUG: Eigen's bounds checks stay on, and the suite
# still runs in minutes.
test-sanitize: deps
	@cmake -S . -B $(BUILD)-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DNTP_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-sanitize -j $(JOBS)
	@cd $(BUILD)-sanitize && ctest --output-on-failure -j $(JOBS)

# The whole test suite under ThreadSanitizer, in its own build folder, built
# with clang++ and LLVM's OpenMP runtime (whose barriers TSan can see).
test-tsan:
	@tools/install-deps.sh --clang
	@cmake -S . -B $(BUILD)-tsan -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DNTP_TSAN=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS)
	@cd $(BUILD)-tsan && ctest --output-on-failure -j $(JOBS)

# The whole build and test suite with clang++ in its own folder, so that code
# only GCC accepts cannot land (CI runs it after the GCC suites).
test-clang:
	@tools/install-deps.sh --clang
	@cmake -S . -B $(BUILD)-clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-clang -j $(JOBS)
	@cd $(BUILD)-clang && ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (tools/fuzz/), built with clang in their own folder and
# run for FUZZ_SECONDS each (default 60); fails on any crash.
fuzz:
	@tools/install-deps.sh --fuzz
	@cmake -S . -B $(BUILD)-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DNTP_FUZZ=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)-fuzz -j $(JOBS) --target fuzz
	@tools/fuzz/run.sh $(BUILD)-fuzz

bench: configure
	@tools/install-deps.sh --bench
	@cmake -S . -B $(BUILD) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target bench
	@echo "benchmarks built in $(BUILD)/: run $(BUILD)/bench_tape, $(BUILD)/bench_ann --help"

static: deps
	@cmake -S . -B $(BUILD)-static -DCMAKE_BUILD_TYPE=Release -DNTP_STATIC=ON >/dev/null
	@cmake --build $(BUILD)-static -j $(JOBS) --target ntp
	@file $(BUILD)-static/ntp

# The static binary run as older x86-64 CPUs under qemu-user (about a minute).
test-portable: static
	@tools/install-deps.sh --qemu
	@tools/check_portable.sh $(BUILD)-static/ntp

reproduce: build
	@tools/reproduce.sh $(BUILD)/ntp

clean:
	rm -rf $(BUILD) $(BUILD)-static $(BUILD)-sanitize $(BUILD)-tsan $(BUILD)-clang $(BUILD)-fuzz
