#!/usr/bin/env bash
# check_symbols.sh HOSTLIB AGIOLIB - every MPI-IO symbol the host MPI exports must be defined by
# libagio, as MPI_ (weak) and PMPI_ (strong) with default visibility; otherwise a program calling
# the missing one hands agio's handle to the host MPI (notes/interposition.md 1.4).
set -u
host=$1 agio=$2
want=$(nm -D --defined-only "$host" | awk '{print $3}' | grep -E '^P?MPI_(File_|Register_datarep)' | sort -u)
have=$(nm -D --defined-only "$agio" | awk '{print $3}' | sort -u)
missing=$(comm -23 <(echo "$want") <(echo "$have"))
n=$(echo "$want" | wc -l)
if [ -n "$missing" ]; then
    echo "missing in $(basename "$agio"):"; echo "$missing" | sed 's/^/  /'
    echo "0 passed, 1 failed"; exit 1
fi
weak=$(nm -D --defined-only "$agio" | awk '$2=="W" && $3 ~ /^MPI_File_/' | wc -l)
strong=$(nm -D --defined-only "$agio" | awk '$2=="T" && $3 ~ /^PMPI_File_/' | wc -l)
echo "$(basename "$agio"): all $n host MPI-IO symbols defined ($weak weak MPI_File_*, $strong strong PMPI_File_*)"
[ "$weak" -gt 0 ] && [ "$strong" -gt 0 ] || { echo "0 passed, 1 failed"; exit 1; }
echo "1 passed, 0 failed"
