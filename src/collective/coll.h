/*
 * coll.h - the two-phase collective I/O engine (MPI side). Collective over the file's ranks.
 *
 * agio_coll_rw moves one collective access (every rank's part of MPI_File_write_all & co.):
 *  1. access exchange: each rank's file range and run statistics, reduced with MPI_Allreduce
 *     (never a gather of offset lists);
 *  2. decision (romio_cb_read/write = enable | disable | automatic), identical on all ranks
 *     because it uses only reduced values and broadcast hints;
 *  3. aggregators: cb_nodes / cb_config_list, spread evenly over nodes (coll_aggr_mpi.c);
 *  4. file domains from a partition strategy (fdpart.h, hint cb_align);
 *  5. rounds of cb_buffer_size: counts by MPI_Alltoall, (offset, length) lists and data by
 *     MPI_Alltoallv, aggregator I/O on a worker thread overlapping the next round's exchange;
 *  6. agreement: the count exchange of every round carries each rank's error, so all ranks
 *     leave the loop in the same round; a final MPI_Allreduce gives one code to all.
 */
#ifndef AGIO_COLL_H
#define AGIO_COLL_H

#include "datatype/datatype.h"
#include "file/file.h"

/* local_err: this rank's argument-check result (the call still takes part, so every rank returns
 * the same agreed code). *moved = bytes of this rank's access moved; *used_cb = 1 if two-phase
 * was used. Returns the code agreed by all ranks. */
int agio_coll_rw(struct agio_file *f, int local_err, int is_write, int64_t skip,
                 const agio_dt *mdt, void *buf, int64_t nbytes, int64_t *moved, int *used_cb);

/* Release the per-file collective state (close, finalize). Local. */
void agio_coll_free(struct agio_file *f);

/* ---- write-behind (coll_wb.c); all local, no communication ---- */

/* Before an independent access: write this rank's own held bytes. */
int agio_coll_wb_self_flush(struct agio_file *f);
/* Full local flush (sync, close, set_view, set_size, reads, finalize): own bytes written, the
 * aggregator's copy dropped. Called on every rank at collective flush points. */
int agio_coll_flush(struct agio_file *f);
/* Start of a collective write: keep H for merging unless some rank flushed it. */
int agio_coll_wb_release(struct agio_file *f, int any_self_flushed);
/* Aggregator: write the held copy now (the call did not merge it). */
int agio_coll_wb_write_held(struct agio_file *f);
int agio_coll_wb_pending(const struct agio_file *f);

/* ---- aggregator placement (coll_aggr_mpi.c) ---- */

/* Collective over f->comm on first use, cached: ranks (in f->comm) that may aggregate, in the
 * order domains are assigned (spread round-robin over nodes), and the node count. */
int agio_coll_aggregators(struct agio_file *f, const int **aggs, int *naggs, int *nnodes);

#endif
