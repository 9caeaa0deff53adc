#!/usr/bin/env bash
# run_mpi.sh FLAVOR NRANKS MODE TIMEOUT EXE [ARGS...]
#   FLAVOR  openmpi | mpich
#   MODE    linked  - EXE was linked with libagio ahead of the MPI library
#           preload - EXE is a plain MPI program; libagio is preloaded into the ranks
#           host    - EXE is a plain MPI program run on the host MPI's own MPI-IO (reference)
#   Every run is under a hard timeout (no test may hang the suite).
# Environment: AGIO_LIBDIR (dir of libagio-*.so), AGIO_TEST_DIR (scratch dir, created),
#   AGIO_HOST_IO (openmpi only: ompio | romio321, for MODE=host), AGIO_MPI_EXTRA (extra mpiexec args).
# Any AGIO_* variable of the caller is passed to the ranks.
set -u
flavor=$1 n=$2 mode=$3 tmo=$4
shift 4
: "${AGIO_TEST_DIR:=${TMPDIR:-/tmp}/agio-test-$$}"
mkdir -p "$AGIO_TEST_DIR"
export AGIO_TEST_DIR
lib="${AGIO_LIBDIR:-}/libagio-$flavor.so"
args=()
case $flavor in
openmpi)
    args=(mpiexec.openmpi --allow-run-as-root --oversubscribe -n "$n" --mca mpi_yield_when_idle 1
          --mca btl self,vader)
    [ "$mode" = preload ] && args+=(-x "LD_PRELOAD=$lib")
    [ "$mode" = host ] && args+=(--mca io "${AGIO_HOST_IO:-ompio}")
    for v in $(env | grep -o '^AGIO_[A-Z0-9_]*' | sort -u); do args+=(-x "$v"); done
    ;;
mpich)
    args=(mpiexec.mpich -n "$n")
    [ "$mode" = preload ] && args+=(-env LD_PRELOAD "$lib")
    for v in $(env | grep -o '^AGIO_[A-Z0-9_]*' | sort -u); do args+=(-env "$v" "${!v}"); done
    ;;
*) echo "run_mpi.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
# shellcheck disable=SC2206
extra=(${AGIO_MPI_EXTRA:-})
timeout -k 5 "$tmo" "${args[@]}" "${extra[@]}" "$@"
rc=$?
[ $rc -eq 124 ] && echo "run_mpi.sh: TIMEOUT after ${tmo}s: $*" >&2
exit $rc
