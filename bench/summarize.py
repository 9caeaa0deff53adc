#!/usr/bin/env python3
"""summarize.py - tables from collperf results (run_collperf.sh): agio against the host MPI-IO.

Usage: bench/summarize.py RESULTS_DIR_OR_JSONL [--stripe BYTES] [--syscalls brief|all]

Prints, per MPI, a table of MiB/s of every configuration for each case/op/fs/N, the best host
configuration, agio automatic and the ratio agio-auto / best host; then system-call statistics:
agio's own counters (embedded "agio_stats") and the strace counts of the traced launches
(pwrite/pread and friends on the data file, cut to each phase by its wall-clock window); then the
issue-3 targets. Python 3 standard library only.

Alignment: a system write counts as "stripe" when its offset is a multiple of --stripe (default
1 MiB) and its length a multiple of it or it ends at the end of the file; "4K" likewise for 4096.
strace shows offsets, so host runs get both; agio's stats (format agio-stats v1) have only size
bins, so for agio only the share of writes >= 1 MiB (an upper bound) is shown unless the stats carry
the counter "sys_write_aligned" (see ALIGN_COUNTER).
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict
from typing import Any, Dict, Iterable, List, Optional, Tuple

ALIGN_COUNTER = "cb_aligned_writes"  # aggregator writes starting and ending on stripe boundaries
ALIGN_UNIT_COUNTER = "cb_stripe_size"  # the stripe agio aligned to (bytes)

HOST_ORDER = ["ompio-indep", "ompio-coll", "romio-indep", "romio-coll", "mpich-indep", "mpich-coll"]
AGIO_ORDER = ["agio-indep", "agio-cb0", "agio-cb1", "agio-cb2", "agio-wb", "agio-auto"]
CASE_ORDER = {"ior1": 0, "ior2": 1, "array3d": 2}
OP_ORDER = {"write": 0, "read": 1}
MPI_NAME = {"openmpi": "Open MPI", "mpich": "MPICH"}
# issue 3: N = 8, Open MPI, ext4 with fsync: agio automatic / best host, write phase
TARGETS = {"ior1": 1.5, "ior2": 2.0, "array3d": 2.0}

Row = Dict[str, Any]


def load(path: str) -> List[Row]:
    files = [path] if os.path.isfile(path) else [os.path.join(path, "results.jsonl")]
    rows: List[Row] = []
    for f in files:
        if not os.path.exists(f):
            sys.exit(f"summarize.py: no {f}")
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if r.get("bench") == "collperf":
                    rows.append(r)
    return rows


def label_of(r: Row) -> str:
    return r.get("label") or f"{r.get('impl')}-{r.get('mode')}"


def group_key(r: Row) -> Tuple[str, str, str, str, int]:
    return (r["mpi"], r["case"], r["op"], r["fs"], int(r["nranks"]))


def sort_key(k: Tuple[str, str, str, str, int]) -> Tuple[Any, ...]:
    mpi, case, op, fs, n = k
    return (mpi != "openmpi", CASE_ORDER.get(case, 9), case, OP_ORDER.get(op, 9), fs, n)


def ordered_labels(labels: Iterable[str]) -> List[str]:
    known = HOST_ORDER + AGIO_ORDER
    ls = set(labels)
    return [x for x in known if x in ls] + sorted(ls - set(known))


# ---- performance ---------------------------------------------------------------------------

def perf_tables(rows: List[Row]) -> List[str]:
    out: List[str] = []
    perf = [r for r in rows if not r.get("traced")]
    cells: Dict[Tuple[Any, ...], Dict[str, List[float]]] = defaultdict(lambda: defaultdict(list))
    impl: Dict[str, str] = {}
    for r in perf:
        lab = label_of(r)
        cells[group_key(r)][lab].append(float(r["mib_s"]))
        impl[lab] = r.get("impl", "host")
    for mpi in sorted({k[0] for k in cells}, key=lambda m: m != "openmpi"):
        keys = sorted((k for k in cells if k[0] == mpi), key=sort_key)
        labels = ordered_labels(lab for k in keys for lab in cells[k])
        reps = sorted({int(r.get("reps", 1)) for r in perf if r["mpi"] == mpi})
        out.append(f"== {MPI_NAME.get(mpi, mpi)}: MiB/s (median of {'/'.join(map(str, reps))} "
                   "reps; writes include fsync; ext4 reads after drop_caches if marked d) ==")
        w = max([11] + [len(x) for x in labels])
        head = f"{'case':8}{'op':6}{'fs':6}{'N':>3} " + "".join(f"{x:>{w + 1}}" for x in labels)
        out.append(head + f"  {'best host':>{w}} {'MiB/s':>8} {'agio/best':>9}")
        for k in keys:
            _, case, op, fs, n = k
            med = {lab: statistics.median(v) for lab, v in cells[k].items()}
            cache = ""
            if op == "read":
                dropped = [r.get("cache") == "dropped" for r in perf if group_key(r) == k]
                cache = "d" if dropped and all(dropped) else ""
            line = f"{case:8}{op:6}{(fs + cache):6}{n:>3} "
            line += "".join(f"{med[x]:>{w + 1}.1f}" if x in med else f"{'-':>{w + 1}}"
                            for x in labels)
            host = {lab: v for lab, v in med.items() if impl.get(lab) == "host"}
            best = max(host, key=lambda x: host[x]) if host else None
            line += f"  {best or '-':>{w}} {host[best] if best else 0:>8.1f}"
            if best and "agio-auto" in med and host[best] > 0:
                line += f" {med['agio-auto'] / host[best]:>8.2f}x"
            else:
                line += f" {'-':>9}"
            out.append(line)
        out.append("")
    return out


# ---- system calls ---------------------------------------------------------------------------

SYSCALL_RE = re.compile(r"^(\d+\.\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)")
WRITES = {"pwrite64", "pwritev", "pwritev2", "write", "writev"}
READS = {"pread64", "preadv", "preadv2", "read", "readv"}


def split_args(s: str) -> List[str]:
    """Top-level comma split of a strace argument list (brackets and strings nest)."""
    parts, depth, cur, quote = [], 0, [], False
    i = 0
    while i < len(s):
        ch = s[i]
        if quote:
            cur.append(ch)
            if ch == "\\" and i + 1 < len(s):
                cur.append(s[i + 1])
                i += 1
            elif ch == '"':
                quote = False
        elif ch == '"':
            quote = True
            cur.append(ch)
        elif ch in "[{(":
            depth += 1
            cur.append(ch)
        elif ch in "]})":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur).strip())
    return parts


def parse_trace(tdir: str) -> List[Tuple[float, str, Optional[int], int]]:
    """(time, syscall, offset or None, bytes) of every successful traced transfer."""
    calls = []
    for f in glob.glob(os.path.join(tdir, "t.*")):
        with open(f, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = SYSCALL_RE.match(line)
                if not m:
                    continue
                t, name, args, ret = float(m.group(1)), m.group(2), m.group(3), int(m.group(4))
                if ret <= 0 or (name not in WRITES and name not in READS):
                    continue
                a = split_args(args)
                off: Optional[int] = None
                try:
                    if name in ("pwrite64", "pread64", "pwritev", "preadv"):
                        off = int(a[-1])
                    elif name in ("pwritev2", "preadv2"):
                        off = int(a[-2])
                except (ValueError, IndexError):
                    off = None
                calls.append((t, name, off, ret))
    return calls


def aligned(off: Optional[int], size: int, unit: int, eof: int) -> bool:
    return off is not None and off % unit == 0 and (size % unit == 0 or off + size == eof)


def pct(a: float, b: float) -> str:
    return f"{100.0 * a / b:5.1f}%" if b else "    - "


def strace_stats(r: Row, stripe: int, cache: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    tdir = r.get("trace_dir")
    if not tdir or not os.path.isdir(tdir):
        return None
    if tdir not in cache:
        cache[tdir] = parse_trace(tdir)
    t0, t1 = float(r["wall_start"]), float(r["wall_end"])
    want = WRITES if r["op"] == "write" else READS
    sel = [c for c in cache[tdir] if t0 <= c[0] <= t1 and c[1] in want]
    other = [c for c in cache[tdir] if t0 <= c[0] <= t1 and c[1] not in want]
    eof = int(r["bytes"])
    n = len(sel)
    nbytes = sum(c[3] for c in sel)
    reps = max(1, int(r.get("reps", 1)))
    return {
        "calls": n / reps, "bytes": nbytes / reps,
        "big": sum(1 for c in sel if c[3] >= 1 << 20),
        "stripe": sum(1 for c in sel if aligned(c[2], c[3], stripe, eof)),
        "page": sum(1 for c in sel if aligned(c[2], c[3], 4096, eof)),
        "n": n, "other": len(other) / reps,
        "names": sorted({c[1] for c in sel}),
    }


def agio_stats(r: Row) -> Optional[Dict[str, Any]]:
    s = r.get("agio_stats")
    if not isinstance(s, dict) or s.get("format") != "agio-stats":
        return None
    c = s.get("counters", {})
    w = r["op"] == "write"
    n = c.get("sys_writes" if w else "sys_reads", 0)
    nbytes = c.get("sys_write_bytes" if w else "sys_read_bytes", 0)
    bins = s.get("write_bins" if w else "read_bins", [])
    lows = s.get("bin_lower_bounds", [])
    big = sum(b for b, lo in zip(bins, lows) if lo >= 1 << 20)
    al = c.get(ALIGN_COUNTER) if w else None
    return {"calls": n, "bytes": nbytes, "big": big, "n": n, "stripe": al, "page": None,
            "other": c.get("sys_reads" if w else "sys_writes", 0),
            "unit": c.get(ALIGN_UNIT_COUNTER)}


def syscall_tables(rows: List[Row], stripe: int, mode: str) -> List[str]:
    out = [f"== system calls per run on the data file (stripe = {stripe} B) ==",
           "source: agio = agio's own counters (AGIO_STATS_FILE), strace = traced launch; "
           "'other' = transfers of the other direction in the same phase (read-modify-write)",
           f"{'mpi':8}{'case':8}{'op':6}{'fs':6}{'N':>3} {'config':12}{'source':7}"
           f"{'calls':>9}{'avg size':>11}{'>=1MiB':>8}{'stripe':>8}{'4K':>8}{'other':>7}"]
    cache: Dict[str, Any] = {}
    need_counter = False
    lines = []
    max_n = defaultdict(int)
    for r in rows:
        max_n[r["mpi"]] = max(max_n[r["mpi"]], int(r["nranks"]))
    for r in rows:
        lab = label_of(r)
        if r.get("traced"):
            st, src = strace_stats(r, stripe, cache), "strace"
        else:
            if mode == "brief" and (lab not in ("agio-auto", "agio-cb2") or r["fs"] != "ext4"
                                    or int(r["nranks"]) != max_n[r["mpi"]]):
                continue
            st, src = agio_stats(r), "agio"
        if not st:
            continue
        calls = st["calls"]
        avg = st["bytes"] / calls if calls else 0
        if st["stripe"] is None:
            stripe_s = "  n/a  " if r["op"] == "write" else "    - "
            need_counter |= r["op"] == "write"
        else:
            stripe_s = pct(st["stripe"], st["n"])
        page_s = pct(st["page"], st["n"]) if st["page"] is not None else "    - "
        lines.append((sort_key(group_key(r)), src != "agio", lab,
                      f"{r['mpi']:8}{r['case']:8}{r['op']:6}{r['fs']:6}{int(r['nranks']):>3} "
                      f"{lab:12}{src:7}{calls:>9.0f}{fmt_size(avg):>11}{pct(st['big'], st['n']):>8}"
                      f"{stripe_s:>8}{page_s:>8}{st['other']:>7.0f}"))
    lines.sort(key=lambda x: (x[0], x[1], ordered_labels([x[2]])))
    out += [x[3] for x in lines]
    if need_counter:
        out.append(f"agio 'stripe' n/a: agio-stats v1 has only size bins; it needs a counter "
                   f"'{ALIGN_COUNTER}' (writes with offset % unit == 0 and length % unit == 0 or "
                   f"ending at EOF) and '{ALIGN_UNIT_COUNTER}' (the unit used).")
    out.append("")
    return out


def fmt_size(b: float) -> str:
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return f"{b / div:.1f}{unit}"
    return f"{b:.0f}B"


# ---- targets ---------------------------------------------------------------------------------

def targets(rows: List[Row], stripe: int) -> List[str]:
    out = ["== issue 3 targets: Open MPI, N = 8, ext4, fsync, write; agio-auto / best host =="]
    perf = [r for r in rows if not r.get("traced") and r["mpi"] == "openmpi"
            and int(r["nranks"]) == 8 and r["fs"] == "ext4" and r["op"] == "write"
            and r.get("fsync")]
    for case, goal in TARGETS.items():
        sel = [r for r in perf if r["case"] == case]
        by: Dict[str, List[float]] = defaultdict(list)
        impl = {}
        for r in sel:
            by[label_of(r)].append(float(r["mib_s"]))
            impl[label_of(r)] = r.get("impl")
        host = {k: statistics.median(v) for k, v in by.items() if impl[k] == "host"}
        if not host or "agio-auto" not in by:
            out.append(f"  {case:8} >= {goal}x: not measured")
            continue
        best = max(host, key=lambda k: host[k])
        ratio = statistics.median(by["agio-auto"]) / host[best] if host[best] else 0
        out.append(f"  {case:8} >= {goal}x: {ratio:.2f}x (agio-auto "
                   f"{statistics.median(by['agio-auto']):.1f} vs {best} {host[best]:.1f} MiB/s) "
                   f"{'PASS' if ratio >= goal else 'FAIL'}")
    al = [agio_stats(r) for r in perf if r["case"] == "ior1" and label_of(r) == "agio-auto"]
    al = [a for a in al if a]
    if not al:
        out.append("  ior1 agio writes stripe-sized and aligned >= 90%: not measured")
    elif al[0]["stripe"] is None:
        out.append(f"  ior1 agio writes stripe-sized and aligned >= 90%: n/a (counter "
                   f"'{ALIGN_COUNTER}' missing); writes >= 1 MiB: {pct(al[0]['big'], al[0]['n'])}")
    else:
        p = 100.0 * al[0]["stripe"] / al[0]["n"] if al[0]["n"] else 0
        out.append(f"  ior1 agio writes stripe-sized and aligned >= 90%: {p:.1f}% "
                   f"{'PASS' if p >= 90 else 'FAIL'}")
    out.append("")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results directory (results.jsonl inside) or a JSON-lines file")
    ap.add_argument("--stripe", type=int, default=1 << 20, help="alignment unit in bytes")
    ap.add_argument("--syscalls", choices=["brief", "all"], default="brief",
                    help="brief: agio-auto/agio-cb2 at the largest N on ext4, plus strace runs")
    a = ap.parse_args()
    rows = load(a.results)
    if not rows:
        print("no collperf results")
        return 1
    out = perf_tables(rows) + syscall_tables(rows, a.stripe, a.syscalls) + targets(rows, a.stripe)
    bad = [r for r in rows if r.get("verify") not in ("ok", "skipped")]
    out.append(f"verification: {len(rows) - len(bad)} of {len(rows)} result lines verified ok"
               + "".join(f"\n  FAILED: {r['mpi']} {r['case']} {r['op']} {r['fs']} N={r['nranks']} "
                         f"{label_of(r)}" for r in bad))
    d = a.results if os.path.isdir(a.results) else os.path.dirname(a.results)
    fails = os.path.join(d, "failures.txt")
    if os.path.exists(fails):
        with open(fails, encoding="utf-8") as fh:
            out.append("failed launches:\n  " + "  ".join(fh.readlines()).rstrip())
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
