/*
 * sieve.h - independent data movement between a tiled memory type and a tiled file view.
 *
 * No MPI: the file side is a decoded filetype tiled from a displacement (the view), the memory
 * side a decoded memory type tiled from the user's buffer. The MPI path (file/, api/) and the
 * POSIX-level view API use this one implementation. This foundation moves data with one vector
 * system call per contiguous file run (memory pieces gathered with iovecs, never a copy); the
 * data-sieving decision models extend this module.
 */
#ifndef AGIO_SIEVE_H
#define AGIO_SIEVE_H

#include <stdint.h>

#include "datatype/datatype.h"
#include "driver/driver.h"

struct agio_access {
    const agio_dt *ftype; /* file side: instance k at disp + k * extent */
    int64_t disp;
    int64_t skip;         /* start this many data bytes into the file-side stream */
    const agio_dt *mtype; /* memory side: instance k at buf + k * extent */
    void *buf;
    int64_t nbytes;       /* data bytes to move */
};

/* Move a->nbytes bytes. *done = bytes moved before end of file (reads) or an error: for reads, the
 * bytes of the stream that were read completely in order; a read stops at the first short run. */
int agio_sieve_write(struct agio_dfile *f, const struct agio_access *a, int64_t *done);
int agio_sieve_read(struct agio_dfile *f, const struct agio_access *a, int64_t *done);

/* File byte offset of data byte `skip` of the view stream (the view's get_byte_offset). */
int64_t agio_sieve_byte_offset(const agio_dt *ftype, int64_t disp, int64_t skip);

/* Stream position of file offset x in a monotone view: the smallest data byte p in [p_lo, p_hi]
 * whose file offset is >= x (p_hi if none). Binary search: O(log(p_hi - p_lo)) seeks. */
int64_t agio_sieve_stream_pos(const agio_dt *ftype, int64_t disp, int64_t x, int64_t p_lo,
                              int64_t p_hi);

/* Call fn(ctx, off, len) for each file run of the view's data bytes [p0, p1). */
void agio_sieve_runs(const agio_dt *ftype, int64_t disp, int64_t p0, int64_t p1,
                     void (*fn)(void *ctx, int64_t off, int64_t len), void *ctx);

/* Copy between a memory tiling (mtype at buf, data bytes [m0, m0 + len) of its stream) and a
 * contiguous buffer: pack (to_contig != 0) or unpack. */
void agio_sieve_copy(const agio_dt *mtype, void *buf, int64_t m0, int64_t len, char *contig,
                     int to_contig);

#endif
