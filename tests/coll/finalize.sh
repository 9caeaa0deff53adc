#!/usr/bin/env bash
# finalize.sh FLAVOR N MODE EXE - write with the file left open at MPI_Finalize, then verify.
set -u
f="${AGIO_TEST_DIR:-/tmp}/finalize.dat"
mkdir -p "$(dirname "$f")"; rm -f "$f"
"$(dirname "$0")/../tools/run_mpi.sh" "$1" "$2" "$3" 60 "$4" "$f" write "$2" || exit 1
"$4" "$f" verify "$2"
