#!/usr/bin/env bash
# host_check.sh [OUTDIR] [TEST...] - build the tests/mpi programs by hand against each host MPI
# and run them on the host MPI's own MPI-IO (run_mpi.sh MODE=host), for validating the tests
# themselves independently of libagio. Rank counts as registered in CMakeLists.txt.
# Environment: HOST_FLAVORS (default "openmpi mpich"), AGIO_HOST_IO (openmpi: ompio | romio321).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/agio-host-check}
shift || true
tests=("$@")
[ ${#tests[@]} -eq 0 ] && tests=(test_open test_sizes test_rw test_errh test_badinput test_large)
mkdir -p "$out"
rc=0
for flavor in ${HOST_FLAVORS:-openmpi mpich}; do
    for t in "${tests[@]}"; do
        exe=$out/$t-$flavor
        if ! mpicc.$flavor -std=c11 -D_GNU_SOURCE -O2 -g -Werror -Wall -Wextra \
              -Wno-missing-field-initializers -I"$here" "$here/$t.c" -o "$exe" -lm; then
            echo "BUILD FAILED: $t ($flavor)"; rc=1; continue
        fi
        ranks_openmpi="1 2 3 8" ranks_mpich="1 2" tmo=120
        if [ "$t" = test_large ]; then ranks_openmpi="1 2" ranks_mpich="1"; fi
        eval "ranks=\$ranks_$flavor"
        for n in $ranks; do
            dir=$out/scratch/$flavor.$t.n$n
            rm -rf "$dir"
            AGIO_TEST_DIR=$dir "$here/../tools/run_mpi.sh" "$flavor" "$n" host "$tmo" "$exe" \
                >"$out/$flavor.$t.n$n.log" 2>&1
            r=$?
            log=$out/$flavor.$t.n$n.log
            echo "$flavor $t n=$n rc=$r: $(grep -a -E "passed, [0-9]+ failed" "$log" | tail -n 1)" \
                 "($(grep -a -c "known host deviation" "$log") deviation lines)"
            [ $r -ne 0 ] && rc=1
        done
    done
done
exit $rc
