/*
 * datatype.h - compact decoded datatypes and iteration over their contiguous runs.
 *
 * An agio_dt describes where the data bytes of one instance of a type lie, relative to the
 * type's origin, in type-map order. It keeps repetition (a vector of 10^8 blocks is one node,
 * never 10^8 entries) and is immutable and reference-counted once built, so it can be shared
 * between views, requests and threads.
 *
 * Two halves:
 *  - pure (dt_repr.c, dt_iter.c; no MPI): node builders, derived properties, the run iterator.
 *    The POSIX view API (agio.h) builds its views with these builders.
 *  - MPI (dt_decode.c): decoding of an MPI_Datatype through MPI_Type_get_envelope/get_contents,
 *    cached on the type with an attribute. Declared in datatype_mpi.h.
 */
#ifndef AGIO_DATATYPE_H
#define AGIO_DATATYPE_H

#include <stddef.h>
#include <stdint.h>

typedef struct agio_dt agio_dt;

/* Properties of one instance of a type (bytes). */
struct agio_dt_info {
    int64_t size;        /* data bytes in one instance */
    int64_t lb, extent;  /* MPI lower bound and extent (tiling stride) */
    int64_t true_lb;     /* offset of the first data byte (lowest offset touched) */
    int64_t true_extent; /* span from the lowest to one past the highest data byte */
    int64_t nruns;       /* contiguous runs in one instance after merging adjacent ones */
    int contiguous;      /* 1: one run of size bytes at true_lb, and size == extent */
    int monotone;        /* 1: run offsets never decrease and runs never overlap, within an
                          * instance and across tiling (required of filetypes); exact */
    int nonneg;          /* 1: no run starts below offset 0 (required of filetypes) */
};

/* ---- Builders (pure). Each takes ownership of the child references passed in and returns a
 * new reference, or NULL on allocation failure (children are released then too). lb/extent of
 * the result follow MPI's rules for the matching constructor; agio_dt_resized overrides them. */

agio_dt *agio_dt_bytes(int64_t len);                      /* len contiguous bytes, lb 0 */
agio_dt *agio_dt_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, agio_dt *child);
/* n blocks: block i = blocklens[i] consecutive instances (stride child extent) at disps[i]. */
agio_dt *agio_dt_hindexed(int64_t n, const int64_t *blocklens, const int64_t *disps_bytes,
                          agio_dt *child);
/* struct: block i = blocklens[i] instances of children[i] at disps[i]. */
agio_dt *agio_dt_struct(int64_t n, const int64_t *blocklens, const int64_t *disps_bytes,
                        agio_dt **children);
agio_dt *agio_dt_resized(agio_dt *child, int64_t lb, int64_t extent);

agio_dt *agio_dt_ref(agio_dt *dt);
void agio_dt_release(agio_dt *dt);
const struct agio_dt_info *agio_dt_info(const agio_dt *dt);

/* ---- Iteration (pure). Walks the runs of an unbounded tiling of dt (instance k at
 * base + k * extent), in type-map order, starting skip data bytes into the stream. Adjacent runs
 * (the next starting where the previous ended) are merged. Iterators are small values on the
 * caller's stack with no heap allocation beyond a fixed depth. */

#define AGIO_DT_MAXDEPTH 32

struct agio_dt_frame {
    const void *node;
    int64_t base;
    int64_t i, n;
};

struct agio_dt_iter {
    const agio_dt *dt;
    int64_t base;
    int64_t tile;      /* current instance index */
    int depth;
    struct agio_dt_frame fr[AGIO_DT_MAXDEPTH];
    int64_t pend_off, pend_len; /* the run being returned in pieces */
};

/* Position it at data byte skip of the stream (O(depth + log n) seek, no walk from the start). */
void agio_dt_iter_init(struct agio_dt_iter *it, const agio_dt *dt, int64_t base, int64_t skip);

/* Next run of at most max_len bytes: *off (absolute: base + ...), *len > 0. Always produces a run
 * (the stream is unbounded) unless dt has size 0, in which case it returns 0 and *len = 0.
 * Returns 1 when a run was produced. */
int agio_dt_iter_next(struct agio_dt_iter *it, int64_t max_len, int64_t *off, int64_t *len);

/* Human-readable dump of the tree (debugging, AGIO_DEBUG=dt). */
void agio_dt_dump(const agio_dt *dt, void *FILE_out);

#endif
