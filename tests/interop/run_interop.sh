#!/usr/bin/env bash
# run_interop.sh hdf5 FLAVOR NRANKS H5_IO_EXE
# run_interop.sh mpi4py FLAVOR NRANKS SCRIPT.py
#
# Runs an unmodified program twice through tests/tools/run_mpi.sh: on the host MPI's own MPI-IO
# (mode host, AGIO_EXPECT=0) and with libagio preloaded (mode preload, AGIO_EXPECT=1: the
# program itself fails unless libagio is mapped), then compares the two files:
#   hdf5:   both runs pass their own read checks; each file is also read back by the other
#           MPI-IO (h5_io FILE read); `h5dump` of both files must be identical, and so must the
#           bytes (the program stores no object times).
#   mpi4py: both runs pass their own checks; the files must be byte-identical.
# Environment: AGIO_LIBDIR, AGIO_TEST_DIR (scratch), AGIO_RUN_MPI (default ../tools/run_mpi.sh),
#   AGIO_HOST_IO (Open MPI host component, default ompio), AGIO_INTEROP_TIMEOUT (default 90 s),
#   H5DUMP (default h5dump), PYTHON (default /usr/bin/python3: the pyenv python3 has no mpi4py).
set -u
if [ $# -ne 4 ]; then
    echo "usage: run_interop.sh hdf5|mpi4py FLAVOR NRANKS PROGRAM" >&2
    exit 2
fi
kind=$1 flavor=$2 n=$3 prog=$4
here=$(cd "$(dirname "$0")" && pwd)
run_mpi=${AGIO_RUN_MPI:-$here/../tools/run_mpi.sh}
tmo=${AGIO_INTEROP_TIMEOUT:-90}
dir=${AGIO_TEST_DIR:-${TMPDIR:-/tmp}/agio-interop-$$}
h5dump=${H5DUMP:-h5dump}
python=${PYTHON:-/usr/bin/python3}
rm -rf "$dir/host" "$dir/agio"
mkdir -p "$dir/host" "$dir/agio"
fail=0

# step LABEL MODE EXPECT CMD...: one MPI run; prints its output, records a failure
step() {
    local label=$1 mode=$2 expect=$3
    shift 3
    echo "== $label ($mode)"
    AGIO_EXPECT=$expect AGIO_TEST_DIR="$dir" "$run_mpi" "$flavor" "$n" "$mode" "$tmo" "$@" 2>&1
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: $label exited with $rc"
        fail=1
    fi
}

case $kind in
hdf5)
    name=h5io.h5
    step "write+read on the host MPI-IO" host 0 "$prog" "$dir/host/$name" all
    step "write+read through agio" preload 1 "$prog" "$dir/agio/$name" all
    step "host MPI-IO reads agio's file" host 0 "$prog" "$dir/agio/$name" read
    step "agio reads the host's file" preload 1 "$prog" "$dir/host/$name" read
    for side in host agio; do
        # same relative name in both dumps, so the headers agree
        (cd "$dir/$side" && "$h5dump" "$name") >"$dir/$side.dump" 2>&1 ||
            { echo "FAIL: h5dump of the $side file failed:"; head -5 "$dir/$side.dump"; fail=1; }
    done
    if ! diff -u "$dir/host.dump" "$dir/agio.dump" >"$dir/dump.diff"; then
        echo "FAIL: h5dump differs (host vs agio):"
        head -40 "$dir/dump.diff"
        fail=1
    else
        echo "h5dump identical ($(wc -l <"$dir/agio.dump") lines)"
    fi
    file_a=$dir/host/$name file_b=$dir/agio/$name
    ;;
mpi4py)
    name=py.dat
    step "mpi4py on the host MPI-IO" host 0 "$python" "$prog" "$dir/host/$name"
    step "mpi4py through agio" preload 1 "$python" "$prog" "$dir/agio/$name"
    file_a=$dir/host/$name file_b=$dir/agio/$name
    ;;
*)
    echo "run_interop.sh: unknown kind $kind" >&2
    exit 2
    ;;
esac

if [ -f "$file_a" ] && [ -f "$file_b" ] && cmp -s "$file_a" "$file_b"; then
    echo "files byte-identical ($(stat -c %s "$file_b") bytes)"
else
    echo "FAIL: files differ or are missing (host vs agio):"
    cmp -l "$file_a" "$file_b" 2>&1 | head -10
    fail=1
fi
if [ $fail -eq 0 ]; then
    echo "run_interop: $kind $flavor n=$n: OK"
else
    echo "run_interop: $kind $flavor n=$n: FAIL"
fi
exit $fail
