/*
 * cbio.h - the aggregator side of two-phase I/O: one round's window buffer and its system I/O.
 * No MPI: the exchange (coll_*_mpi.c) fills the window; this module decides how the window
 * reaches the file and runs that on a worker thread so that round k's I/O overlaps round k+1's
 * exchange (double buffering).
 */
#ifndef AGIO_CBIO_H
#define AGIO_CBIO_H

#include <pthread.h>
#include <stdint.h>

#include "driver/driver.h"
#include "stats/stats.h"

#define AGIO_CB_ALIGN 4096 /* buffer and O_DIRECT alignment */

struct agio_cb_range {
    int64_t lo, hi;  /* file range of the aggregator's domain in this round */
    int64_t bufpos;  /* where lo lives in the window buffer (bufpos % 4096 == lo % 4096) */
};

struct agio_cb_window {
    char *buf;
    int64_t cap;
    struct agio_cb_range *ranges;
    int nranges, cap_ranges;
    int64_t (*pieces)[2]; /* (offset, length) of every piece received, for coverage */
    int64_t npieces, cap_pieces;
    char *scratch; /* read-modify-write staging */
    int64_t cap_scratch;
};

/* How the window goes to the file. */
struct agio_cb_io {
    struct agio_dfile *df;     /* buffered descriptor */
    struct agio_dfile *direct; /* O_DIRECT descriptor or NULL */
    int64_t unit;              /* stripe size, for statistics */
    int can_lock;              /* byte-range locks work (else no read-modify-write) */
    struct agio_stats *stats;
};

void agio_cb_window_init(struct agio_cb_window *w);
void agio_cb_window_free(struct agio_cb_window *w);
void agio_cb_window_reset(struct agio_cb_window *w);
/* Append a domain range of this round (ranges come in increasing offset order). */
int agio_cb_window_add_range(struct agio_cb_window *w, int64_t lo, int64_t hi);
/* Buffer address of file offset off (inside a range); NULL if off is in no range. */
char *agio_cb_window_at(const struct agio_cb_window *w, int64_t off);
/* Record a piece for coverage (writes: data placed; reads: data wanted). */
int agio_cb_window_add_piece(struct agio_cb_window *w, int64_t off, int64_t len);

/* Remove the covered bytes at offsets >= from out of the window's pieces, calling
 * keep(ctx, off, data, len) for each removed extent (write-behind). Returns keep's first error. */
int agio_cb_window_hold(struct agio_cb_window *w, int64_t from,
                        int (*keep)(void *ctx, int64_t off, const void *data, int64_t len),
                        void *ctx);

/* Write the covered bytes of the window: whole covered spans in one call each; spans with holes
 * either as separate writes or, when one read plus one write is cheaper, by reading the holes
 * under a byte-range write lock (read-modify-write). Never writes a byte that no piece covered
 * unless it was read back first under the lock. */
int agio_cb_window_write(struct agio_cb_window *w, const struct agio_cb_io *io);

/* Read the wanted bytes into the window (spans with small holes in one read); bytes past end of
 * file read as zeros. */
int agio_cb_window_read(struct agio_cb_window *w, const struct agio_cb_io *io);

/* ---- a single background worker for the I/O of one round ---- */

struct agio_cb_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started, stop, busy;
    int (*job)(void *arg);
    void *arg;
    int err; /* first error of any job since the last agio_cb_worker_wait */
};

int agio_cb_worker_start(struct agio_cb_worker *k);
/* Run job(arg) in the background (waits for the previous job first). */
void agio_cb_worker_submit(struct agio_cb_worker *k, int (*job)(void *), void *arg);
/* Wait for the current job; returns and clears the first error since the last wait. */
int agio_cb_worker_wait(struct agio_cb_worker *k);
/* The first error of finished jobs so far, without waiting or clearing. */
int agio_cb_worker_error(struct agio_cb_worker *k);
void agio_cb_worker_stop(struct agio_cb_worker *k);

#endif
