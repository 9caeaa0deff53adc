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
 *  - MPI (dt_decode_mpi.c): decoding of an MPI_Datatype through MPI_Type_get_envelope/get_contents,
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
    int monotone_instance; /* 1: monotone within one instance (what MPI-3.1 13.3 requires of a
                            * filetype's typemap); instances may still overlap when tiled */
};

/* ---- Builders (pure, dt_repr.c). Each takes ownership of the child references passed in and
 * returns a new reference, or NULL on failure (children are released then too; see
 * agio_dt_last_error). lb/extent of the result follow MPI's rules for the matching constructor;
 * agio_dt_resized overrides them. Repetition is kept: a vector is one node whatever its count. */

agio_dt *agio_dt_bytes(int64_t len);                      /* len contiguous bytes, lb 0 */
agio_dt *agio_dt_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, agio_dt *child);
/* n blocks: block i = blocklens[i] consecutive instances (stride child extent) at disps[i]. */
agio_dt *agio_dt_hindexed(int64_t n, const int64_t *blocklens, const int64_t *disps_bytes,
                          agio_dt *child);
/* struct: block i = blocklens[i] instances of children[i] at disps[i]. Consumes one reference per
 * array element (the same node may appear several times if the caller holds that many). A NULL
 * child (a failed inner builder) makes any builder release the rest and return NULL, keeping
 * agio_dt_last_error(), so calls can be nested. */
agio_dt *agio_dt_struct(int64_t n, const int64_t *blocklens, const int64_t *disps_bytes,
                        agio_dt **children);
agio_dt *agio_dt_resized(agio_dt *child, int64_t lb, int64_t extent);

/* Subarray and distributed array (MPI-3.1 4.1.3, 4.1.4; dt_array.c) of the element type old, with
 * the constants below (not MPI's). lb 0, extent = product of the global sizes times old's extent,
 * as MPI gives. Returns NULL with agio_dt_last_error() == AGIO_EARG for arguments MPI rejects. */
enum agio_dt_order { AGIO_DT_ORDER_C, AGIO_DT_ORDER_FORTRAN };
enum agio_dt_distrib { AGIO_DT_DIST_NONE, AGIO_DT_DIST_BLOCK, AGIO_DT_DIST_CYCLIC };
#define AGIO_DT_DARG_DFLT (-1) /* MPI_DISTRIBUTE_DFLT_DARG */
agio_dt *agio_dt_subarray(int ndims, const int64_t *sizes, const int64_t *subsizes,
                          const int64_t *starts, int order, agio_dt *old);
agio_dt *agio_dt_darray(int64_t nprocs, int64_t rank, int ndims, const int64_t *gsizes,
                        const int *distribs, const int64_t *dargs, const int64_t *psizes,
                        int order, agio_dt *old);

/* Why the last builder call of this thread returned NULL: AGIO_ENOMEM, AGIO_EARG (negative count,
 * invalid subarray/darray), AGIO_EOVERFLOW (a size or offset beyond 64 bits), AGIO_EUNSUPP (nesting
 * deeper than AGIO_DT_MAXDEPTH - 1 levels). */
int agio_dt_last_error(void);

agio_dt *agio_dt_ref(agio_dt *dt);
void agio_dt_release(agio_dt *dt);
const struct agio_dt_info *agio_dt_info(const agio_dt *dt);

/* ---- Iteration (pure). Walks the runs of an unbounded tiling of dt (instance k at
 * base + k * extent), in type-map order, starting skip data bytes into the stream. Adjacent runs
 * (the next starting where the previous ended) are merged. Iterators are small values on the
 * caller's stack with no heap allocation beyond a fixed depth. */

#define AGIO_DT_MAXDEPTH 32

/* Private: one level of the walk (the node whose blocks are walked, and the position in it). */
struct agio_dt_frame {
    const void *node;   /* node walked (NULL: the tiling itself) */
    const void *child;  /* child of the current block */
    int64_t i, n;       /* block index, number of blocks */
    int64_t j, bl;      /* instance index within the block, instances in the block */
    int64_t base;       /* origin of the node instance walked */
    int64_t blk, off;   /* origin of the current block, of the current child instance */
    int64_t stride;     /* vector nodes and the tiling: bytes between block origins */
    int64_t step;       /* bytes between instances in a block (the child's extent) */
    int64_t roff, rlen; /* leaf frames: the run of one child instance, relative to its origin */
    int leaf;           /* 0: descend into the child; 1: each child instance is one run;
                         * 2: the node itself is a list of runs */
    int vec;            /* blocks are regular (vector node or the tiling) */
};

/* Private fields: use only the functions below. */
struct agio_dt_iter {
    const agio_dt *dt;
    int mode;                   /* 0: empty type, 1: gap-free tiling (one endless run), 2: walk */
    int depth;                  /* frames in use; fr[0] walks the tiling */
    int64_t pend_off, pend_len; /* the run being returned (merged so far / in pieces) */
    int64_t la_off, la_len;     /* lookahead: the next unmerged run of the stream */
    struct agio_dt_frame fr[AGIO_DT_MAXDEPTH];
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
