/*
 * dt_array.c - subarray and distributed-array types built from the pure builders (no MPI).
 *
 * Algorithm (MPI-3.1 4.1.3 and 4.1.4): both types select, in every dimension d, an ordered list
 * of global indices; the type map visits the selected elements with the fastest dimension
 * innermost (the last dimension for C order, the first for Fortran order), element g at byte
 * (sum_d g_d * gstride_d) * extent(old), where gstride_d is the product of the global sizes of
 * the faster dimensions. Each dimension therefore wraps the type of the faster dimensions T,
 * with step = gstride_d * extent(old), its first index s contributing s * step to one
 * displacement applied once at the top (a displacement commutes with the wrapping):
 *   subarray, block:  the indices [s, s + n)  -> hvector(n, 1, step, T)
 *   cyclic(b), s = r*b: blocks [s + c*P*b, +b) for c < count, then a short block of rem indices
 *                     -> struct{ hvector(count, 1, P*b*step, hvector(b, 1, step, T)) at 0,
 *                                hvector(rem, 1, step, T) at count*P*b*step }
 * Block and cyclic local sizes follow the standard (as ROMIO's MPIOI_Type_block/cyclic and Open
 * MPI's ompi_datatype_create_darray compute them): block size ceil(g/P) by default, cyclic block
 * 1 by default; distribution NONE is a block distribution over one process. The process grid is
 * row-major over psizes whatever the array order. Every level uses explicit strides with
 * blocklength 1, so no intermediate extent matters; the result gets lb 0 and extent
 * prod(gsizes) * extent(old), as in the standard. Depth: one level per block dimension, at most
 * three per cyclic one.
 * Invariants: invalid arguments (those MPI rejects) give NULL with AGIO_EARG; every product is
 * checked (AGIO_EOVERFLOW).
 */
#include <stdint.h>

#include "agio_err.h"
#include "dt_node.h"

/* Index of dimension number k, counting from the fastest one. */
static int dim_at(int ndims, int order, int k)
{
    return order == AGIO_DT_ORDER_C ? ndims - 1 - k : k;
}

/* Instances of t at the indices [first, first + len) of one dimension, step bytes apart; the
 * displacement first * step goes to *disp (the caller applies all of them once, at the top). */
static agio_dt *dim_block(agio_dt *t, int64_t first, int64_t len, int64_t step, int64_t *disp)
{
    int ovf = 0;
    *disp = ck_add(&ovf, *disp, ck_mul(&ovf, first, step));
    if (ovf) {
        agio_dt_release(t);
        return agio_dt_fail(AGIO_EOVERFLOW);
    }
    return agio_dt_hvector(len, 1, step, t);
}

/* Cyclic(b) over P processes, coordinate r, of a dimension of g indices; displacement as above. */
static agio_dt *dim_cyclic(agio_dt *t, int64_t g, int64_t P, int64_t r, int64_t b, int64_t step,
                           int64_t *disp)
{
    int ovf = 0;
    int64_t first = ck_mul(&ovf, r, b), round = ck_mul(&ovf, P, b), local = 0;
    if (!ovf && g > first) {
        int64_t rem = (g - first) % round;
        local = (g - first) / round * b + (rem < b ? rem : b);
    }
    int64_t count = local / b, rest = local % b;
    int64_t bls[2] = {1, 1};
    int64_t disps[2] = {0, ck_mul(&ovf, ck_mul(&ovf, count, round), step)};
    int64_t rstep = ck_mul(&ovf, round, step);
    *disp = ck_add(&ovf, *disp, ck_mul(&ovf, local ? first : 0, step));
    if (ovf) {
        agio_dt_release(t);
        return agio_dt_fail(AGIO_EOVERFLOW);
    }
    agio_dt *kids[2];
    kids[0] = agio_dt_hvector(count, 1, rstep, agio_dt_hvector(b, 1, step, agio_dt_ref(t)));
    kids[1] = agio_dt_hvector(rest, 1, step, t);
    return agio_dt_struct(2, bls, disps, kids);
}

/* t displaced by disp, with lb 0 and extent prod(sizes) * extent(old); checks the product. */
static agio_dt *whole_array(agio_dt *t, int64_t disp, int ndims, const int64_t *sizes,
                            int64_t oext)
{
    int ovf = 0;
    int64_t ext = oext, one = 1;
    for (int d = 0; d < ndims; d++) ext = ck_mul(&ovf, ext, sizes[d]);
    if (ovf) {
        agio_dt_release(t);
        return agio_dt_fail(AGIO_EOVERFLOW);
    }
    if (disp) t = agio_dt_hindexed(1, &one, &disp, t);
    return agio_dt_resized(t, 0, ext);
}

agio_dt *agio_dt_subarray(int ndims, const int64_t *sizes, const int64_t *subsizes,
                          const int64_t *starts, int order, agio_dt *old)
{
    if (!old) return NULL;
    int bad = ndims < 1 || (order != AGIO_DT_ORDER_C && order != AGIO_DT_ORDER_FORTRAN);
    for (int d = 0; !bad && d < ndims; d++)
        bad = sizes[d] < 1 || subsizes[d] < 0 || starts[d] < 0 ||
              starts[d] > sizes[d] - subsizes[d];
    if (bad) {
        agio_dt_release(old);
        return agio_dt_fail(AGIO_EARG);
    }
    int ovf = 0;
    int64_t oext = old->info.extent, step = oext, disp = 0;
    agio_dt *t = old;
    for (int k = 0; k < ndims && t; k++) {
        int d = dim_at(ndims, order, k);
        t = dim_block(t, starts[d], subsizes[d], step, &disp);
        step = ck_mul(&ovf, step, sizes[d]);
    }
    if (ovf) {
        agio_dt_release(t);
        return agio_dt_fail(AGIO_EOVERFLOW);
    }
    return t ? whole_array(t, disp, ndims, sizes, oext) : NULL;
}

/* The arguments MPI_Type_create_darray accepts; coords[d] = this rank's grid coordinate. */
static int darray_ok(int64_t nprocs, int64_t rank, int ndims, const int64_t *gsizes,
                     const int *distribs, const int64_t *dargs, const int64_t *psizes, int order,
                     int64_t *coords)
{
    int64_t procs = 1, rest = rank;
    if (ndims < 1 || ndims > 64 || nprocs < 1 || rank < 0 || rank >= nprocs) return 0;
    if (order != AGIO_DT_ORDER_C && order != AGIO_DT_ORDER_FORTRAN) return 0;
    for (int d = 0; d < ndims; d++) {
        if (gsizes[d] < 1 || psizes[d] < 1 || __builtin_mul_overflow(procs, psizes[d], &procs))
            return 0;
        int64_t a = dargs[d];
        if (distribs[d] == AGIO_DT_DIST_NONE && psizes[d] != 1) return 0;
        if (distribs[d] == AGIO_DT_DIST_BLOCK && a != AGIO_DT_DARG_DFLT &&
            (a < 1 || a > INT64_MAX / psizes[d] || a * psizes[d] < gsizes[d]))
            return 0;
        if (distribs[d] == AGIO_DT_DIST_CYCLIC && a != AGIO_DT_DARG_DFLT && a < 1) return 0;
        if (distribs[d] < AGIO_DT_DIST_NONE || distribs[d] > AGIO_DT_DIST_CYCLIC) return 0;
    }
    if (procs != nprocs) return 0;
    for (int d = 0; d < ndims; d++) { /* row-major process grid */
        procs /= psizes[d];
        coords[d] = rest / procs;
        rest %= procs;
    }
    return 1;
}

agio_dt *agio_dt_darray(int64_t nprocs, int64_t rank, int ndims, const int64_t *gsizes,
                        const int *distribs, const int64_t *dargs, const int64_t *psizes,
                        int order, agio_dt *old)
{
    int64_t coords[64];
    if (!old) return NULL;
    if (!darray_ok(nprocs, rank, ndims, gsizes, distribs, dargs, psizes, order, coords)) {
        agio_dt_release(old);
        return agio_dt_fail(AGIO_EARG);
    }
    int ovf = 0;
    int64_t oext = old->info.extent, step = oext, disp = 0;
    agio_dt *t = old;
    for (int k = 0; k < ndims && t; k++) {
        int d = dim_at(ndims, order, k);
        int64_t g = gsizes[d], P = psizes[d], r = coords[d], a = dargs[d];
        if (distribs[d] == AGIO_DT_DIST_CYCLIC) {
            t = dim_cyclic(t, g, P, r, a == AGIO_DT_DARG_DFLT ? 1 : a, step, &disp);
        } else {
            int64_t b = a == AGIO_DT_DARG_DFLT || distribs[d] == AGIO_DT_DIST_NONE
                            ? (g + P - 1) / P
                            : a;
            int64_t first = b * r, n = g - first; /* b * P < g + P: no overflow */
            if (n > b) n = b;
            t = dim_block(t, n > 0 ? first : 0, n > 0 ? n : 0, step, &disp);
        }
        step = ck_mul(&ovf, step, g);
    }
    if (ovf) {
        agio_dt_release(t);
        return agio_dt_fail(AGIO_EOVERFLOW);
    }
    return t ? whole_array(t, disp, ndims, gsizes, oext) : NULL;
}
