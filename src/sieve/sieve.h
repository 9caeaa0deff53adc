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

#endif
