/*
 * stats_table.h - the one table of agio's counters and timers (Darshan-style X-macro).
 *
 * Add a counter by adding a row; the struct, the text summary, the JSON output and the
 * documentation (doc/stats.md, generated) all come from this table. Timers are counted in
 * nanoseconds so that every slot is a uint64_t that can be added atomically and summed across
 * ranks with one MPI_Reduce.
 *
 * X(name, kind, reduce, doc): kind COUNT (events), BYTES, NSEC (time); reduce SUM or MAX across
 * ranks for the per-file summary.
 */
#ifndef AGIO_STATS_TABLE_H
#define AGIO_STATS_TABLE_H

#define AGIO_STATS_TABLE(X)                                                                        \
    X(indep_reads, COUNT, SUM, "independent read calls (MPI_File_read*, not _all)")               \
    X(indep_writes, COUNT, SUM, "independent write calls (MPI_File_write*, not _all)")            \
    X(coll_reads, COUNT, SUM, "collective read calls (MPI_File_read*_all)")                        \
    X(coll_writes, COUNT, SUM, "collective write calls (MPI_File_write*_all)")                     \
    X(user_read_bytes, BYTES, SUM, "bytes the program asked to read")                              \
    X(user_write_bytes, BYTES, SUM, "bytes the program asked to write")                            \
    X(sys_reads, COUNT, SUM, "read system calls (pread/preadv) that reached the file system")      \
    X(sys_writes, COUNT, SUM, "write system calls (pwrite/pwritev) that reached the file system")  \
    X(sys_read_bytes, BYTES, SUM, "bytes read from the file system")                               \
    X(sys_write_bytes, BYTES, SUM, "bytes written to the file system")                             \
    X(sys_read_retries, COUNT, SUM, "short reads or EINTR that were retried")                      \
    X(sys_write_retries, COUNT, SUM, "short writes or EINTR that were retried")                    \
    X(sys_syncs, COUNT, SUM, "fsync calls")                                                        \
    X(sys_meta_ops, COUNT, SUM, "open/close/truncate/stat/allocate calls")                         \
    X(sys_errors, COUNT, SUM, "system calls that failed")                                          \
    X(sys_read_ns, NSEC, MAX, "time in read system calls")                                         \
    X(sys_write_ns, NSEC, MAX, "time in write system calls")                                       \
    X(sys_sync_ns, NSEC, MAX, "time in fsync")                                                     \
    X(sys_meta_ns, NSEC, MAX, "time in metadata system calls")                                     \
    X(cb_calls, COUNT, SUM, "collective calls that used collective buffering (two-phase)")        \
    X(cb_indep_calls, COUNT, SUM, "collective calls that the automatic mode sent to independent I/O")\
    X(cb_rounds, COUNT, MAX, "two-phase rounds (max over ranks)")                                  \
    X(cb_aggregators, COUNT, MAX, "aggregators used by the last collective call")                  \
    X(cb_agg_calls, COUNT, SUM, "collective calls in which this rank aggregated data")             \
    X(cb_stripe_size, BYTES, MAX, "stripe (alignment unit) used for file domains")                 \
    X(cb_stripe_writes, COUNT, SUM, "aggregator writes that cover exactly one whole aligned stripe") \
    X(cb_aligned_writes, COUNT, SUM, "aggregator writes starting and ending on stripe boundaries") \
    X(cb_direct_writes, COUNT, SUM, "aggregator writes issued with O_DIRECT")                      \
    X(cb_rmw, COUNT, SUM, "read-modify-write cycles (holes filled by reading)")                    \
    X(cb_rmw_bytes, BYTES, SUM, "bytes read for read-modify-write")                                \
    X(cb_gaps, COUNT, SUM, "holes left in aggregator domains (written around)")                    \
    X(cb_exch_bytes, BYTES, SUM, "bytes moved between ranks in the data exchange")                 \
    X(cb_access_ns, NSEC, MAX, "time in the access exchange and decision")                         \
    X(cb_exch_ns, NSEC, MAX, "time in the data exchange")                                          \
    X(cb_io_ns, NSEC, MAX, "time aggregators spent in system I/O")

/* System I/O size bins: [0,16) [16,256) [256,4Ki) [4Ki,64Ki) [64Ki,1Mi) [1Mi,16Mi) [16Mi,inf). */
#define AGIO_STATS_NBINS 7

#endif
