/*
 * dt_node.h - private layout of agio_dt, shared by dt_repr.c, dt_iter.c and dt_array.c only.
 *
 * Four node kinds. Every node below a root has size > 0 (builders drop empty parts):
 *   BYTES  one run [off, off + len); len == 0 only for an empty root.
 *   VEC    count blocks at origin + b * stride; a block is bl instances of child, one child
 *          extent apart.
 *   RUNS   n runs: run i at off[i], data bytes psum[i] .. psum[i + 1] of the instance.
 *   IDX    n blocks: block i is bl[i] instances of kid[i] at disp[i] (extent apart); data bytes
 *          psum[i] .. psum[i + 1]. Hindexed and struct both become IDX (or RUNS when every child
 *          is one contiguous run).
 * Each node carries its MPI lb/extent (info) and a per-instance summary `s` from which the
 * properties in info are derived; `depth` is the number of iterator frames below the tiling.
 */
#ifndef AGIO_DT_NODE_H
#define AGIO_DT_NODE_H

#include <stdatomic.h>
#include <stdint.h>

#include "datatype.h"

enum dt_kind { DT_BYTES, DT_VEC, DT_RUNS, DT_IDX };

/* Properties of one instance that do not depend on lb/extent. */
struct dt_sum {
    int64_t size;     /* data bytes */
    int64_t tlb, tub; /* lowest data byte, one past the highest */
    int64_t first;    /* start of the first run in type-map order */
    int64_t last;     /* end of the last run in type-map order */
    int64_t nruns;    /* runs after merging adjacent ones */
    int mono;         /* runs ascend without overlap */
};

struct agio_dt {
    atomic_long refs;
    int kind;
    int depth;
    struct agio_dt_info info;
    struct dt_sum s;
    union {
        struct {
            int64_t off, len;
        } bytes;
        struct {
            int64_t count, bl, stride;
            agio_dt *child;
        } vec;
        struct {
            int64_t n;
            int64_t *off, *psum;
        } runs;
        struct {
            int64_t n;
            int64_t *disp, *bl, *psum;
            agio_dt **kid;
        } idx;
    } u;
};

/* Record why a builder fails (agio_dt_last_error) and return NULL. */
agio_dt *agio_dt_fail(int code);

/* Checked 64-bit arithmetic: on overflow set *ovf and return the wrapped value. */
static inline int64_t ck_add(int *ovf, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) *ovf = 1;
    return r;
}

static inline int64_t ck_sub(int *ovf, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) *ovf = 1;
    return r;
}

static inline int64_t ck_mul(int *ovf, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) *ovf = 1;
    return r;
}

#endif
