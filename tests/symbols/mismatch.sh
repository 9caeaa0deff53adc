#!/usr/bin/env bash
# mismatch.sh PROGRAM WRONG_LIBAGIO - preload the libagio built for the other MPI: the program
# must not crash, MPI_File_open must fail, and agio must say which build to use.
set -u
out=$(timeout 60 env LD_PRELOAD="$2" "$1" 2>&1); rc=$?
echo "$out"
if [ $rc -eq 0 ] && echo "$out" | grep -q "was built for" && echo "$out" | grep -q "success=0"; then
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed (exit $rc)"; exit 1
fi
