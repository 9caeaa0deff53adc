#!/usr/bin/env bash
# run_diff.sh FLAVOR NRANKS PLAIN_EXE LINKED_EXE [SEED...]
#
# Differential test driver. For each seed, diff_io (write + verify, checked against its own model
# of the standard) runs under agio and under the host MPI's own MPI-IO, and the files must be
# byte-identical (cmp). Two plan profiles per seed:
#   full   every datatype/access feature. agio: linked + preload. Host: Open MPI OMPIO with
#          write data sieving off (it read-modify-writes other ranks' bytes without locks).
#          MPICH: no host run (its ROMIO mishandles parts of this profile, see diff_io.c).
#   romio  the subset ROMIO gets right (diff_io.c, g_romio). agio: preload. Host: ROMIO
#          (Open MPI romio321, MPICH's own) with romio_ds_write=disable (write sieving writes
#          uninitialised bytes into view holes).
# A host run that disagrees with the model is reported as a NOTE (host bug, that comparison is
# skipped); any agio failure or cmp difference fails the test.
#
# Environment: AGIO_DIFF_SEEDS="1-200" or "3 7 9" overrides the seed list (soak);
#   AGIO_DIFF_PROFILES (default "full romio"); AGIO_DIFF_TIMEOUT per run (default 90 s);
#   AGIO_RUN_MPI (default ../tools/run_mpi.sh); AGIO_LIBDIR, AGIO_TEST_DIR as for run_mpi.sh;
#   AGIO_DIFF_KEEP=1 keeps the files of passing seeds.
set -u
if [ $# -lt 4 ]; then
    echo "usage: run_diff.sh FLAVOR NRANKS PLAIN_EXE LINKED_EXE [SEED...]" >&2
    exit 2
fi
flavor=$1 n=$2 plain=$3 linked=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
run_mpi=${AGIO_RUN_MPI:-$here/../tools/run_mpi.sh}
tmo=${AGIO_DIFF_TIMEOUT:-90}
dir=${AGIO_TEST_DIR:-${TMPDIR:-/tmp}/agio-diff-$$}
mkdir -p "$dir"

seeds=()
spec=${AGIO_DIFF_SEEDS:-$*}
[ -z "$spec" ] && spec="1 2 3"
for tok in $spec; do
    if [[ $tok =~ ^([0-9]+)-([0-9]+)$ ]]; then
        for ((s = BASH_REMATCH[1]; s <= BASH_REMATCH[2]; s++)); do seeds+=("$s"); done
    else
        seeds+=("$tok")
    fi
done

fails=0 notes=0 runs=0
# run LABEL MODE EXE FILE [VAR=VALUE...]: one diff_io run through run_mpi.sh
run() {
    local label=$1 mode=$2 exe=$3 file=$4
    shift 4
    local log=$file.log
    runs=$((runs + 1))
    env -u AGIO_DIFF_INFO -u AGIO_HOST_IO -u AGIO_MPI_EXTRA -u AGIO_DIFF_PROFILE "$@" \
        AGIO_TEST_DIR="$dir" "$run_mpi" "$flavor" "$n" "$mode" "$tmo" "$exe" "$seed" "$file" all \
        >"$log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] && return 0
    echo "  $label: exit $rc"
    grep -m 8 -E 'diff_io: |TIMEOUT|Signal|signal|Abort|error' "$log" | sed 's/^/    /'
    echo "    (full log: $log)"
    return $rc
}

for seed in "${seeds[@]}"; do
    for prof in ${AGIO_DIFF_PROFILES:-full romio}; do
        base=$dir/s$seed-$prof
        ok=1
        agio=()
        if [ "$prof" = full ]; then amodes="linked preload"; else amodes="preload"; fi
        for mode in $amodes; do
            exe=$plain
            [ "$mode" = linked ] && exe=$linked
            f=$base-agio-$mode.dat
            if run "seed $seed $prof agio-$mode" "$mode" "$exe" "$f" AGIO_EXPECT=1 \
                AGIO_DIFF_PROFILE=$prof; then
                agio+=("$f")
            else
                ok=0
            fi
        done
        host=""
        hvars=()
        if [ "$flavor" = openmpi ] && [ "$prof" = full ]; then
            host=ompio
            hvars=(AGIO_HOST_IO=ompio "AGIO_MPI_EXTRA=--mca fbtl_posix_write_datasieving 0")
        elif [ "$prof" = romio ]; then
            host=romio
            hvars=(AGIO_DIFF_INFO=romio_ds_write=disable)
            [ "$flavor" = openmpi ] && hvars+=(AGIO_HOST_IO=romio321)
        fi
        hfile=""
        if [ -n "$host" ]; then
            f=$base-host-$host.dat
            if run "seed $seed $prof host-$host" host "$plain" "$f" AGIO_EXPECT=0 \
                AGIO_DIFF_PROFILE=$prof "${hvars[@]}" >"$base.hostnote" 2>&1; then
                hfile=$f
            else
                notes=$((notes + 1))
                echo "  NOTE seed $seed $prof: host $host disagrees with the model (host bug);" \
                    "agio not compared with it"
                sed 's/^/  /' "$base.hostnote"
            fi
        fi
        # byte-identical files: every agio file against the first one and against the host's
        ref=${agio[0]:-}
        for f in "${agio[@]:1}" $hfile; do
            [ -z "$ref" ] && break
            if ! cmp -s "$ref" "$f"; then
                ok=0
                echo "  seed $seed $prof: $(basename "$ref") and $(basename "$f") differ:"
                cmp -l "$ref" "$f" 2>&1 | head -5 | sed 's/^/    /'
            fi
        done
        if [ $ok = 1 ]; then
            echo "seed $seed $prof: OK (agio ${amodes// /+}${hfile:+ = host $host} = model)"
            [ "${AGIO_DIFF_KEEP:-0}" = 1 ] || rm -f "$base"-*.dat "$base"-*.log "$base.hostnote"
        else
            fails=$((fails + 1))
            echo "seed $seed $prof: FAIL (files kept in $dir)"
        fi
    done
done
echo "run_diff: $flavor n=$n: ${#seeds[@]} seeds, $runs runs, $fails failing seed/profile" \
    "pairs, $notes host notes"
[ $fails -eq 0 ]
