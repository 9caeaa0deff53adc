#!/usr/bin/env bash
# test.sh - set up agio and run every test: the -Werror build's full CTest suite (unit tests,
# MPI tests on Open MPI at 1, 2, 3, 8 ranks and MPICH at 1, 2, linked and preloaded, differential
# and interoperability tests), then an AddressSanitizer + UBSan build's unit tests and MPI tests
# at small rank counts. Every MPI test runs under a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
ctest --test-dir build --output-on-failure -j2 --timeout 300
echo "=== AddressSanitizer + UBSan build ==="
AGIO_CMAKE_ARGS="-DAGIO_SANITIZE=ON" scripts/setup.sh build-asan
# LeakSanitizer is off for MPI runs: the host MPIs leak by design at finalize.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-asan --output-on-failure -j2 --timeout 300 \
    -R '^unit\.|^mpi\.(openmpi\..*\.n(1|2|3)\.linked|mpich\..*\.n1\.linked)$'
