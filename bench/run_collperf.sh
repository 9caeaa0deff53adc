#!/usr/bin/env bash
# run_collperf.sh - the collperf matrix in one invocation: agio against the host MPI-IO.
#
# For each MPI (Open MPI at N = 2,4,8; MPICH at N = 2) x configuration it launches bench/collperf
# once for all cases (ior1, ior2, array3d) on all file systems (ext4, then tmpfs), write then read,
# fsync included in the write time. Configurations:
#   host  ompio-indep ompio-coll romio-indep romio-coll        (Open MPI: --mca io ompio|romio321)
#         mpich-indep mpich-coll                               (MPICH's ROMIO)
#   agio  agio-indep agio-cb0 agio-cb1 agio-cb2 agio-wb agio-auto  (LD_PRELOAD=libagio-<mpi>.so)
#         agio-wb = agio-cb2 with agio_cb_write_behind=true
# "-coll" host runs and agio-cbN force collective buffering (romio_cb_write/read=enable); agio-auto
# passes no hints. agio's statistics come from AGIO_STATS_FILE (embedded in each result line); the
# host's system calls from one extra strace'd launch per host configuration at one rank count
# (--trace-n, ext4 only), plus agio-auto as a cross-check of agio's own counters.
#
# Results: bench/results/<timestamp>/results.jsonl (one JSON line per case/op/run),
# summary.txt (bench/summarize.py), logs/, strace/, agio-stats/, env.txt, failures.txt.
#
# Usage: bench/run_collperf.sh [--quick] [options]     (--help lists them)
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

quick=0
cases=ior1,ior2,array3d
mpis=openmpi,mpich
nr_openmpi=2,4,8
nr_mpich=2
fss=ext4,tmpfs
configs=all
reps=3
total=280m
build=""
out=""
drop=1
trace=1
trace_n=8
timeout_s=1800

usage() {
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    cat <<EOF
Options:
  --quick              small sizes (4 MB per run), 1 repetition: a smoke run of the whole matrix
  --cases LIST         ior1,ior2,array3d
  --mpi LIST           openmpi,mpich
  --nranks LIST        Open MPI rank counts (2,4,8)       --mpich-nranks LIST (2)
  --fs LIST            ext4,tmpfs; ext4 data go to \$BENCH_DIR (default <results>/data)
  --configs LIST       subset of the configuration names above (default all)
  --reps R             repetitions per run, the median is reported (3; quick 1)
  --total BYTES        bytes per run (280m; quick 4m); k/m/g = 1000^n, Ki/Mi/Gi = 1024^n
  --build DIR          agio build with libagio-<mpi>.so (default build-bench, then build)
  --out DIR            results directory (default bench/results/<timestamp>)
  --no-drop            do not drop the page cache before ext4 reads
  --no-trace           no strace runs
  --trace-n N          rank count of the Open MPI strace runs (8; MPICH uses its first N)
  --timeout S          per launch (1800; quick 120)
EOF
}

while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --cases) cases=$2; shift ;;
    --mpi) mpis=$2; shift ;;
    --nranks) nr_openmpi=$2; shift ;;
    --mpich-nranks) nr_mpich=$2; shift ;;
    --fs) fss=$2; shift ;;
    --configs) configs=$2; shift ;;
    --reps) reps=$2; shift ;;
    --total) total=$2; shift ;;
    --build) build=$2; shift ;;
    --out) out=$2; shift ;;
    --no-drop) drop=0 ;;
    --no-trace) trace=0 ;;
    --trace-n) trace_n=$2; shift ;;
    --timeout) timeout_s=$2; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run_collperf.sh: unknown option $1" >&2; usage >&2; exit 1 ;;
    esac
    shift
done
if [ $quick = 1 ]; then
    # explicit --total/--reps/--timeout given after --quick still win: only override defaults
    [ "$total" = 280m ] && total=4m
    [ "$reps" = 3 ] && reps=1
    [ "$timeout_s" = 1800 ] && timeout_s=120
fi

out=${out:-$here/results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"/{bin,logs,strace,agio-stats} || exit 1
out=$(cd "$out" && pwd)
ext4_dir=${BENCH_DIR:-$out/data}
shm_dir=/dev/shm/agio-bench.$$
mkdir -p "$ext4_dir" "$shm_dir" || exit 1
cleanup() { rm -rf "$shm_dir"; [ -z "${BENCH_DIR:-}" ] && rm -rf "$out/data"; }
trap cleanup EXIT
trap 'echo "interrupted" >&2; exit 130' INT TERM

log() { echo "$*" | tee -a "$out/run.log"; }
# The runs set these themselves; inherited values would leak into host or agio runs.
for v in LD_PRELOAD AGIO_STATS AGIO_STATS_FILE AGIO_HINTS \
    BENCH_IMPL BENCH_CONFIG BENCH_TRACE_DIR; do
    [ -n "${!v:-}" ] && log "note: ignoring $v from the environment"
    unset "$v"
done

# ---- tools ------------------------------------------------------------------------------------
if [ $trace = 1 ] && ! command -v strace >/dev/null; then
    log "strace missing: apt-get install -y strace"
    if ! apt-get install -y strace >/dev/null 2>&1; then
        log "strace not installable: no host system-call counts"
        trace=0
    fi
fi
if [ -z "$build" ]; then
    for d in "$root/build-bench" "$root/build"; do
        if ls "$d"/libagio-*.so >/dev/null 2>&1; then build=$d; break; fi
    done
fi
declare -A mpicc=([openmpi]=mpicc.openmpi [mpich]=mpicc.mpich)
declare -A agiolib
for m in ${mpis//,/ }; do
    if ! command -v "${mpicc[$m]}" >/dev/null; then log "no ${mpicc[$m]}: skipping $m"; continue; fi
    "${mpicc[$m]}" -O2 -std=c11 -Wall -Wextra -o "$out/bin/collperf-$m" "$here/collperf.c" ||
        { log "build of collperf for $m failed"; exit 1; }
    lib=${build:+$build/libagio-$m.so}
    if [ -n "$lib" ] && [ -f "$lib" ]; then
        agiolib[$m]=$lib
    else
        log "no libagio-$m.so: agio runs skipped for $m"
    fi
done

can_drop=0
if [ $drop = 1 ] && (sync && echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then can_drop=1; fi
[ $drop = 1 ] && [ $can_drop = 0 ] && log "cannot drop the page cache: ext4 reads are warm"

{
    echo "date: $(date -Is)"; echo "host: $(uname -a)"; echo "cpus: $(nproc)"
    echo "load: $(cat /proc/loadavg)"; echo "quick=$quick total=$total reps=$reps cases=$cases"
    echo "ext4_dir=$ext4_dir drop_caches=$can_drop trace=$trace trace_n=$trace_n"
    echo "agio build: ${build:-none}"
    # read-only git queries (--no-optional-locks: status must not refresh the index)
    echo "agio commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null)," \
        "modified/untracked files:" \
        "$(git --no-optional-locks -C "$root" status --porcelain 2>/dev/null | wc -l)"
    mpiexec.openmpi --version 2>/dev/null | head -1
    mpiexec.mpich --version 2>/dev/null | grep -m1 Version
} >"$out/env.txt"

# ---- configurations: name -> "impl|mpiexec args|collperf args" -----------------------------
both="romio_cb_write=enable,romio_cb_read=enable"
declare -A cfg=(
    [ompio-indep]="host|--mca io ompio|--mode indep"
    [ompio-coll]="host|--mca io ompio|--mode coll"
    [romio-indep]="host|--mca io romio321|--mode indep"
    [romio-coll]="host|--mca io romio321|--mode coll --hints $both"
    [mpich-indep]="host||--mode indep"
    [mpich-coll]="host||--mode coll --hints $both"
    [agio-indep]="agio||--mode indep"
    [agio-cb0]="agio||--mode coll --hints $both,cb_align=0"
    [agio-cb1]="agio||--mode coll --hints $both,cb_align=1"
    [agio-cb2]="agio||--mode coll --hints $both,cb_align=2"
    [agio-wb]="agio||--mode coll --hints $both,cb_align=2,agio_cb_write_behind=true"
    [agio-auto]="agio||--mode coll"
)
declare -A cfglist=(
    [openmpi]="ompio-indep ompio-coll romio-indep romio-coll
               agio-indep agio-cb0 agio-cb1 agio-cb2 agio-wb agio-auto"
    [mpich]="mpich-indep mpich-coll agio-indep agio-cb0 agio-cb1 agio-cb2 agio-wb agio-auto"
)
declare -A nranks=([openmpi]=$nr_openmpi [mpich]=$nr_mpich)
wanted() { [ "$configs" = all ] || [[ ",$configs," == *",$1,"* ]]; }

# ---- one launch ---------------------------------------------------------------------------
nrun=0
nfail=0
# launch MPI N CONFIG TRACED: one process for every case on every file system (fewer launches)
launch() {
    local m=$1 n=$2 name=$3 traced=$4
    local spec=${cfg[$name]} impl mpiargs args dirs="" id
    impl=${spec%%|*}; spec=${spec#*|}; mpiargs=${spec%%|*}; args=${spec#*|}
    [ "$impl" = agio ] && [ -z "${agiolib[$m]:-}" ] && return 0
    for fs in ${fss//,/ }; do
        [ "$traced" = 1 ] && [ "$fs" != ext4 ] && continue
        if [ "$fs" = ext4 ]; then dirs+=,$ext4_dir; else dirs+=,$shm_dir; fi
    done
    dirs=${dirs#,}
    id="$m-n$n-$name"
    local r=$reps
    [ "$traced" = 1 ] && { id="$id-strace"; r=1; }
    local bargs=(--case "$cases" --op both --fsync --total "$total" --reps "$r" --dir "$dirs"
                 --out "$out/results.jsonl" --label "$name")
    read -r -a extra <<<"$args"
    bargs+=("${extra[@]}")
    [ $can_drop = 1 ] && bargs+=(--drop-caches) # collperf skips it on tmpfs
    local envs=(BENCH_IMPL="$impl" BENCH_CONFIG="$name")
    [ "$impl" = agio ] &&
        envs+=(LD_PRELOAD="${agiolib[$m]}" AGIO_STATS_FILE="$out/agio-stats/$id.jsonl")
    local pre=()
    if [ "$traced" = 1 ]; then
        local td="$out/strace/$id"
        mkdir -p "$td"
        envs+=(BENCH_TRACE_DIR="$td")
        # --seccomp-bpf: stop only on traced calls (not on every sched_yield of a waiting rank)
        pre=(strace -f -ff -qq -ttt -s 0 --seccomp-bpf -e signal=none -o "$td/t"
             -e trace=pwrite64,pwritev,pwritev2,pread64,preadv,preadv2,write,read,writev,readv)
        for c in ${cases//,/ }; do pre+=(-P "$ext4_dir/collperf.$c.$n.dat"); done
    fi
    local cmd=()
    if [ "$m" = openmpi ]; then
        # one node: shared memory (ob1/vader) starts faster than UCX; the same for every config
        cmd=(mpiexec.openmpi --allow-run-as-root --oversubscribe --bind-to none
             --mca mpi_yield_when_idle 1 --mca pml ob1 --mca btl self,vader -n "$n")
        read -r -a extra <<<"$mpiargs"
        cmd+=("${extra[@]}")
        for e in "${envs[@]}"; do cmd+=(-x "$e"); done
    else
        cmd=(mpiexec.mpich -n "$n")
        for e in "${envs[@]}"; do cmd+=(-genv "${e%%=*}" "${e#*=}"); done
    fi
    cmd+=("$out/bin/collperf-$m" "${bargs[@]}")
    nrun=$((nrun + 1))
    local t0 rc
    t0=$(date +%s.%N)
    echo "+ ${pre[*]} ${cmd[*]}" >"$out/logs/$id.log"
    timeout "$timeout_s" "${pre[@]}" "${cmd[@]}" >>"$out/logs/$id.log" 2>&1
    rc=$?
    local msg="ok"
    if [ $rc != 0 ]; then
        msg="FAILED rc=$rc (logs/$id.log)"
        nfail=$((nfail + 1))
        echo "$id rc=$rc" >>"$out/failures.txt"
    fi
    log "[$nrun] $id: $msg ($(echo "$(date +%s.%N) - $t0" | bc | xargs printf %.1f) s)"
}

# ---- the matrix ---------------------------------------------------------------------------
log "collperf matrix -> $out"
for m in ${mpis//,/ }; do
    [ -x "$out/bin/collperf-$m" ] || continue
    for n in ${nranks[$m]//,/ }; do
        for name in ${cfglist[$m]}; do
            wanted "$name" && launch "$m" "$n" "$name" 0
        done
    done
    # system-call counts: host configurations (and agio-auto as a cross-check), ext4, one N
    if [ $trace = 1 ] && [[ ",$fss," == *",ext4,"* ]]; then
        tn=$trace_n
        [ "$m" = mpich ] && tn=${nr_mpich%%,*}
        for name in ${cfglist[$m]}; do
            case "$name" in
            agio-auto | ompio-* | romio-* | mpich-*)
                wanted "$name" && launch "$m" "$tn" "$name" 1 ;;
            esac
        done
    fi
done
log "done: $nrun launches, $nfail failed"

python3 "$here/summarize.py" "$out" | tee "$out/summary.txt"
[ $nfail = 0 ]
