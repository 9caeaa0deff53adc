/*
 * dt_repr.c - building decoded datatypes: node builders, derived properties, reference counting,
 * dump. Pure (no MPI).
 *
 * Representation (dt_node.h): a tree of BYTES / VEC / RUNS / IDX nodes that keeps repetition: a
 * vector of 10^8 blocks is one VEC node; hindexed/struct keep their n blocks (what MPI stores)
 * plus prefix sums of data bytes, so the iterator seeks by binary search.
 *
 * Algorithm of every builder:
 *  1. lb/extent by the rules of the matching MPI constructor (MPI-3.1 4.1.7): the hull of the
 *     children's [lb, lb + extent) over every block with blocklength > 0, including size-0
 *     children (they act as lb/ub markers).
 *  2. The per-instance summary (size, true bounds, first/last run, merged run count, monotone)
 *     from the children's summaries: a repetition of count items is a closed formula (adjacent
 *     items merge iff the item's span [first, last) equals the step), never a loop over count.
 *  3. Simplification: zero-size parts are dropped; blocklen repeats of a contiguous child fold
 *     into one run; a vector of contiguous runs whose stride equals the run length is one run;
 *     a vector of a vector whose stride spans the inner vector exactly becomes one vector;
 *     hindexed/struct whose children are all contiguous become a RUNS list with adjacent runs
 *     merged; count-1 wrappers disappear.
 * Invariants: nodes are immutable once shared (a node is only changed in place while its
 * reference count is 1, i.e. the caller owns it alone); every non-root node has size > 0; every
 * size, offset and count product is checked for 64-bit overflow (AGIO_EOVERFLOW); a root needs at
 * most AGIO_DT_MAXDEPTH iterator frames (AGIO_EUNSUPP otherwise).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agio_err.h"
#include "dt_node.h"

static _Thread_local int last_err;

agio_dt *agio_dt_fail(int code)
{
    last_err = code;
    return NULL;
}

int agio_dt_last_error(void)
{
    return last_err;
}

static agio_dt *release_fail(agio_dt *dt, int code)
{
    agio_dt_release(dt);
    return agio_dt_fail(code);
}

static const struct dt_sum empty_sum = {.mono = 1};

/* ---- allocation -------------------------------------------------------------------------- */

static size_t node_bytes(int kind, int64_t n)
{
    size_t b = sizeof(struct agio_dt);
    if (kind == DT_RUNS) b += (size_t)(2 * n + 1) * sizeof(int64_t);
    if (kind == DT_IDX) b += (size_t)(3 * n + 1) * sizeof(int64_t) + (size_t)n * sizeof(agio_dt *);
    return b;
}

/* A node with refcount 1 and its arrays (RUNS, IDX) carved from the same allocation. */
static agio_dt *node_new(int kind, int64_t n)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / 64) return agio_dt_fail(AGIO_ENOMEM);
    agio_dt *dt = calloc(1, node_bytes(kind, n));
    if (!dt) return agio_dt_fail(AGIO_ENOMEM);
    atomic_init(&dt->refs, 1);
    dt->kind = kind;
    int64_t *a = (int64_t *)(dt + 1);
    if (kind == DT_RUNS) {
        dt->u.runs.n = n;
        dt->u.runs.off = a;
        dt->u.runs.psum = a + n;
    } else if (kind == DT_IDX) {
        dt->u.idx.n = n;
        dt->u.idx.disp = a;
        dt->u.idx.bl = a + n;
        dt->u.idx.psum = a + 2 * n;
        dt->u.idx.kid = (agio_dt **)(a + 3 * n + 1);
    }
    return dt;
}

/* Fill info from the summary and the given MPI bounds. */
static void finish(agio_dt *dt, int64_t lb, int64_t extent)
{
    const struct dt_sum *s = &dt->s;
    struct agio_dt_info *in = &dt->info;
    int64_t span;
    int wide = __builtin_sub_overflow(s->last, s->first, &span);
    in->size = s->size;
    in->lb = lb;
    in->extent = extent;
    in->true_lb = s->size ? s->tlb : 0;
    in->true_extent = s->size ? s->tub - s->tlb : 0;
    in->nruns = s->nruns;
    in->contiguous = s->size > 0 && s->nruns == 1 && s->size == extent;
    /* across the tiling: instance k's last run ends before instance k+1's first run starts */
    in->monotone = s->size == 0 || (s->mono && !wide && span <= extent);
    in->monotone_instance = s->size == 0 || s->mono;
    in->nonneg = s->size == 0 || s->tlb >= 0;
}

static agio_dt *make_bytes(int64_t off, int64_t len, int64_t lb, int64_t extent)
{
    agio_dt *dt = node_new(DT_BYTES, 0);
    if (!dt) return NULL;
    dt->u.bytes.off = off;
    dt->u.bytes.len = len;
    dt->s = empty_sum;
    if (len > 0) dt->s = (struct dt_sum){len, off, off + len, off, off + len, 1, 1};
    finish(dt, lb, extent);
    return dt;
}

/* ---- summaries --------------------------------------------------------------------------- */

/* Widen [*lo, *hi) to cover count copies of it, step bytes apart. */
static void rep_range(int *ovf, int64_t count, int64_t step, int64_t *lo, int64_t *hi)
{
    int64_t span = ck_mul(ovf, count - 1, step);
    if (span < 0)
        *lo = ck_add(ovf, *lo, span);
    else
        *hi = ck_add(ovf, *hi, span);
}

/* Summary of count copies of s, step bytes apart (closed form: all junctions are alike). */
static void rep_sum(int *ovf, struct dt_sum *s, int64_t count, int64_t step)
{
    if (count == 1 || s->size == 0) return;
    int64_t w = ck_sub(ovf, s->last, s->first);
    s->nruns = ck_sub(ovf, ck_mul(ovf, count, s->nruns), w == step ? count - 1 : 0);
    s->mono = s->mono && w <= step;
    s->size = ck_mul(ovf, count, s->size);
    rep_range(ovf, count, step, &s->tlb, &s->tub);
    s->last = ck_add(ovf, s->last, ck_mul(ovf, count - 1, step));
}

static void shift_sum(int *ovf, struct dt_sum *s, int64_t d)
{
    s->tlb = ck_add(ovf, s->tlb, d);
    s->tub = ck_add(ovf, s->tub, d);
    s->first = ck_add(ovf, s->first, d);
    s->last = ck_add(ovf, s->last, d);
}

/* Append the summary b to the sequence summary a (type-map order). */
static void seq_append(int *ovf, struct dt_sum *a, const struct dt_sum *b)
{
    if (b->size == 0) return;
    if (a->size == 0) {
        *a = *b;
        return;
    }
    a->nruns = ck_sub(ovf, ck_add(ovf, a->nruns, b->nruns), a->last == b->first);
    a->mono = a->mono && b->mono && a->last <= b->first;
    a->size = ck_add(ovf, a->size, b->size);
    if (b->tlb < a->tlb) a->tlb = b->tlb;
    if (b->tub > a->tub) a->tub = b->tub;
    a->last = b->last;
}

/* ---- bytes, vectors ---------------------------------------------------------------------- */

agio_dt *agio_dt_bytes(int64_t len)
{
    if (len < 0) return agio_dt_fail(AGIO_EARG);
    return make_bytes(0, len, 0, len);
}

/* Phase 3 of hvector: simplify and build the VEC node (s, lb, ext already computed). */
static agio_dt *vec_node(int64_t count, int64_t bl, int64_t stride, agio_dt *c,
                         const struct dt_sum *s, int64_t lb, int64_t ext)
{
    if (c->info.contiguous) {
        int64_t off = c->s.tlb, len = bl * c->s.size; /* <= s->size: no overflow */
        agio_dt_release(c);
        if (count == 1 || stride == len) return make_bytes(off, s->size, lb, ext);
        c = make_bytes(off, len, off, len);
        if (!c) return NULL;
        bl = 1;
    }
    if (count == 1) {
        count = bl;
        stride = c->info.extent;
        bl = 1;
    }
    if (bl == 1 && c->kind == DT_VEC && c->u.vec.bl == 1) {
        int ovf = 0;
        int64_t span = ck_mul(&ovf, c->u.vec.count, c->u.vec.stride);
        int64_t n = ck_mul(&ovf, count, c->u.vec.count);
        if (!ovf && span == stride) {
            agio_dt *g = agio_dt_ref(c->u.vec.child);
            count = n;
            stride = c->u.vec.stride;
            agio_dt_release(c);
            c = g;
        }
    }
    if (c->depth >= AGIO_DT_MAXDEPTH - 1) return release_fail(c, AGIO_EUNSUPP);
    agio_dt *dt = node_new(DT_VEC, 0);
    if (!dt) return release_fail(c, AGIO_ENOMEM);
    dt->u.vec.count = count;
    dt->u.vec.bl = bl;
    dt->u.vec.stride = stride;
    dt->u.vec.child = c;
    dt->depth = c->depth + 1;
    dt->s = *s;
    finish(dt, lb, ext);
    return dt;
}

agio_dt *agio_dt_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, agio_dt *child)
{
    if (!child) return NULL;
    if (count < 0 || blocklen < 0) return release_fail(child, AGIO_EARG);
    int ovf = 0;
    int64_t lb = 0, ub = 0;
    struct dt_sum s = empty_sum;
    if (count > 0 && blocklen > 0) {
        lb = child->info.lb;
        ub = ck_add(&ovf, lb, child->info.extent);
        rep_range(&ovf, blocklen, child->info.extent, &lb, &ub);
        rep_range(&ovf, count, stride_bytes, &lb, &ub);
        s = child->s;
        rep_sum(&ovf, &s, blocklen, child->info.extent);
        rep_sum(&ovf, &s, count, stride_bytes);
    }
    int64_t ext = ck_sub(&ovf, ub, lb);
    if (ovf) return release_fail(child, AGIO_EOVERFLOW);
    if (s.size == 0) {
        agio_dt_release(child);
        return make_bytes(0, 0, lb, ext);
    }
    if (count == 1 && blocklen == 1) return child; /* same type map, same bounds */
    return vec_node(count, blocklen, stride_bytes, child, &s, lb, ext);
}

/* ---- hindexed, struct -------------------------------------------------------------------- */

struct idx_in {
    int64_t n;
    const int64_t *bl, *disp;
    agio_dt **kids; /* NULL: every block has the child `one` */
    agio_dt *one;
};

static agio_dt *in_kid(const struct idx_in *in, int64_t i)
{
    return in->kids ? in->kids[i] : in->one;
}

static void in_release(const struct idx_in *in)
{
    if (!in->kids) agio_dt_release(in->one);
    for (int64_t i = 0; in->kids && i < in->n; i++) agio_dt_release(in->kids[i]);
}

static int in_keep(const struct idx_in *in, int64_t i)
{
    return in->bl[i] > 0 && in_kid(in, i)->s.size > 0;
}

/* Phase 1: MPI bounds over blocks with blocklength > 0; count the blocks that hold data. */
static int idx_scan(const struct idx_in *in, int64_t *lb, int64_t *ext, int64_t *kept,
                    int *all_contig)
{
    int ovf = 0, any = 0;
    int64_t lo = 0, hi = 0;
    *kept = 0;
    *all_contig = 1;
    for (int64_t i = 0; i < in->n; i++) {
        const agio_dt *c = in_kid(in, i);
        if (in->bl[i] == 0) continue;
        int64_t l = ck_add(&ovf, in->disp[i], c->info.lb);
        int64_t u = ck_add(&ovf, l, c->info.extent);
        rep_range(&ovf, in->bl[i], c->info.extent, &l, &u);
        if (!any || l < lo) lo = l;
        if (!any || u > hi) hi = u;
        any = 1;
        if (c->s.size == 0) continue;
        (*kept)++;
        if (!c->info.contiguous) *all_contig = 0;
    }
    *lb = lo;
    *ext = ck_sub(&ovf, hi, lo);
    return ovf ? AGIO_EOVERFLOW : 0;
}

/* Phase 3a: every kept block is one run (contiguous child): a RUNS list, adjacent runs merged. */
static agio_dt *make_runs(const struct idx_in *in, int64_t kept, int64_t lb, int64_t ext)
{
    agio_dt *dt = node_new(DT_RUNS, kept);
    if (!dt) return NULL;
    int ovf = 0;
    int64_t m = 0, *off = dt->u.runs.off, *ps = dt->u.runs.psum;
    struct dt_sum s = empty_sum;
    for (int64_t i = 0; i < in->n; i++) {
        if (!in_keep(in, i)) continue;
        const agio_dt *c = in_kid(in, i);
        int64_t o = ck_add(&ovf, in->disp[i], c->s.tlb);
        int64_t len = ck_mul(&ovf, in->bl[i], c->s.size);
        int64_t end = ck_add(&ovf, o, len);
        struct dt_sum r = {len, o, end, o, end, 1, 1};
        seq_append(&ovf, &s, &r);
        if (m > 0 && off[m - 1] + (ps[m] - ps[m - 1]) == o) {
            ps[m] = ck_add(&ovf, ps[m], len);
        } else {
            off[m] = o;
            ps[m + 1] = ck_add(&ovf, ps[m], len);
            m++;
        }
    }
    if (ovf) return release_fail(dt, AGIO_EOVERFLOW);
    if (m == 1) {
        int64_t o = off[0], len = ps[1];
        agio_dt_release(dt);
        return make_bytes(o, len, lb, ext);
    }
    dt->u.runs.n = m; /* keep the layout of node_new(DT_RUNS, m): clone relies on it */
    dt->u.runs.psum = memmove(off + m, ps, (size_t)(m + 1) * sizeof *ps);
    dt->depth = 1;
    dt->s = s;
    finish(dt, lb, ext);
    return dt;
}

/* Phase 3b: the general block list; takes a reference to each kept child. */
static agio_dt *make_idx(const struct idx_in *in, int64_t kept, int64_t lb, int64_t ext)
{
    agio_dt *dt = node_new(DT_IDX, kept);
    if (!dt) return NULL;
    int ovf = 0, depth = 0;
    int64_t m = 0;
    struct dt_sum s = empty_sum;
    for (int64_t i = 0; i < in->n; i++) {
        if (!in_keep(in, i)) continue;
        agio_dt *c = in_kid(in, i);
        struct dt_sum b = c->s;
        rep_sum(&ovf, &b, in->bl[i], c->info.extent);
        shift_sum(&ovf, &b, in->disp[i]);
        seq_append(&ovf, &s, &b);
        dt->u.idx.disp[m] = in->disp[i];
        dt->u.idx.bl[m] = in->bl[i];
        dt->u.idx.kid[m] = agio_dt_ref(c);
        dt->u.idx.psum[m + 1] = ck_add(&ovf, dt->u.idx.psum[m], b.size);
        if (c->depth > depth) depth = c->depth;
        m++;
    }
    if (ovf) return release_fail(dt, AGIO_EOVERFLOW);
    if (depth >= AGIO_DT_MAXDEPTH - 1) return release_fail(dt, AGIO_EUNSUPP);
    dt->depth = depth + 1;
    dt->s = s;
    finish(dt, lb, ext);
    return dt;
}

/* The one kept block if it is a single instance at displacement 0, else NULL. */
static agio_dt *sole_kid(const struct idx_in *in)
{
    for (int64_t i = 0; i < in->n; i++)
        if (in_keep(in, i)) return in->bl[i] == 1 && in->disp[i] == 0 ? in_kid(in, i) : NULL;
    return NULL;
}

static agio_dt *build_idx(const struct idx_in *in)
{
    int64_t lb = 0, ext = 0, kept = 0;
    int all_contig = 1, rc = in->n < 0 ? AGIO_EARG : 0;
    for (int64_t i = 0; rc == 0 && i < in->n; i++) {
        if (!in_kid(in, i)) rc = 1; /* an inner builder failed: keep its error code */
        else if (in->bl[i] < 0) rc = AGIO_EARG;
    }
    if (rc == 0) rc = idx_scan(in, &lb, &ext, &kept, &all_contig);
    if (rc) {
        if (in->n >= 0) in_release(in);
        return rc == 1 ? NULL : agio_dt_fail(rc);
    }
    agio_dt *dt, *sole = kept == 1 ? sole_kid(in) : NULL;
    if (kept == 0)
        dt = make_bytes(0, 0, lb, ext);
    else if (all_contig)
        dt = make_runs(in, kept, lb, ext);
    else if (sole)
        dt = agio_dt_resized(agio_dt_ref(sole), lb, ext);
    else
        dt = make_idx(in, kept, lb, ext);
    in_release(in);
    return dt;
}

agio_dt *agio_dt_hindexed(int64_t n, const int64_t *blocklens, const int64_t *disps_bytes,
                          agio_dt *child)
{
    if (!child) return NULL;
    struct idx_in in = {n, blocklens, disps_bytes, NULL, child};
    return build_idx(&in);
}

agio_dt *agio_dt_struct(int64_t n, const int64_t *blocklens, const int64_t *disps_bytes,
                        agio_dt **children)
{
    struct idx_in in = {n, blocklens, disps_bytes, children, NULL};
    return build_idx(&in);
}

/* ---- resized, references ------------------------------------------------------------------ */

static agio_dt *clone(const agio_dt *c)
{
    int64_t n = c->kind == DT_RUNS ? c->u.runs.n : c->kind == DT_IDX ? c->u.idx.n : 0;
    agio_dt *dt = node_new(c->kind, n);
    if (!dt) return NULL;
    memcpy(dt + 1, c + 1, node_bytes(c->kind, n) - sizeof *dt);
    dt->depth = c->depth;
    dt->s = c->s;
    dt->info = c->info;
    if (c->kind == DT_BYTES || c->kind == DT_VEC) dt->u = c->u;
    if (c->kind == DT_VEC) agio_dt_ref(c->u.vec.child);
    for (int64_t i = 0; c->kind == DT_IDX && i < n; i++) agio_dt_ref(c->u.idx.kid[i]);
    return dt;
}

agio_dt *agio_dt_resized(agio_dt *child, int64_t lb, int64_t extent)
{
    int64_t ub;
    if (!child) return NULL;
    if (__builtin_add_overflow(lb, extent, &ub)) return release_fail(child, AGIO_EOVERFLOW);
    if (child->info.lb == lb && child->info.extent == extent) return child;
    if (atomic_load_explicit(&child->refs, memory_order_acquire) == 1) {
        finish(child, lb, extent); /* the caller owns the only reference */
        return child;
    }
    agio_dt *dt = clone(child);
    agio_dt_release(child);
    if (dt) finish(dt, lb, extent);
    return dt;
}

agio_dt *agio_dt_ref(agio_dt *dt)
{
    if (dt) atomic_fetch_add_explicit(&dt->refs, 1, memory_order_relaxed);
    return dt;
}

void agio_dt_release(agio_dt *dt)
{
    if (!dt || atomic_fetch_sub_explicit(&dt->refs, 1, memory_order_acq_rel) != 1) return;
    if (dt->kind == DT_VEC) agio_dt_release(dt->u.vec.child);
    for (int64_t i = 0; dt->kind == DT_IDX && i < dt->u.idx.n; i++)
        agio_dt_release(dt->u.idx.kid[i]);
    free(dt);
}

const struct agio_dt_info *agio_dt_info(const agio_dt *dt)
{
    return &dt->info;
}

/* ---- dump -------------------------------------------------------------------------------- */

enum { DUMP_MAX = 8 }; /* entries shown per RUNS/IDX node */

static void dump_node(FILE *f, const agio_dt *dt, int ind)
{
    const struct agio_dt_info *in = &dt->info;
    fprintf(f, "%*s", ind, "");
    if (dt->kind == DT_BYTES)
        fprintf(f, "bytes off=%lld len=%lld", (long long)dt->u.bytes.off,
                (long long)dt->u.bytes.len);
    else if (dt->kind == DT_VEC)
        fprintf(f, "vec count=%lld bl=%lld stride=%lld", (long long)dt->u.vec.count,
                (long long)dt->u.vec.bl, (long long)dt->u.vec.stride);
    else
        fprintf(f, "%s n=%lld", dt->kind == DT_RUNS ? "runs" : "idx",
                (long long)(dt->kind == DT_RUNS ? dt->u.runs.n : dt->u.idx.n));
    fprintf(f, "  {size=%lld lb=%lld ext=%lld tlb=%lld text=%lld nruns=%lld%s%s%s}\n",
            (long long)in->size, (long long)in->lb, (long long)in->extent,
            (long long)in->true_lb, (long long)in->true_extent, (long long)in->nruns,
            in->contiguous ? " contig" : "", in->monotone ? " mono" : "",
            in->nonneg ? " nonneg" : "");
    if (dt->kind == DT_VEC) dump_node(f, dt->u.vec.child, ind + 2);
    if (dt->kind == DT_RUNS) {
        const int64_t *ps = dt->u.runs.psum;
        for (int64_t i = 0; i < dt->u.runs.n && i < DUMP_MAX; i++)
            fprintf(f, "%*s(%lld,%lld)\n", ind + 2, "", (long long)dt->u.runs.off[i],
                    (long long)(ps[i + 1] - ps[i]));
    }
    for (int64_t i = 0; dt->kind == DT_IDX && i < dt->u.idx.n && i < DUMP_MAX; i++) {
        fprintf(f, "%*s#%lld disp=%lld bl=%lld\n", ind + 2, "", (long long)i,
                (long long)dt->u.idx.disp[i], (long long)dt->u.idx.bl[i]);
        dump_node(f, dt->u.idx.kid[i], ind + 4);
    }
    int64_t n = dt->kind == DT_RUNS ? dt->u.runs.n : dt->kind == DT_IDX ? dt->u.idx.n : 0;
    if (n > DUMP_MAX) fprintf(f, "%*s... %lld more\n", ind + 2, "", (long long)(n - DUMP_MAX));
}

void agio_dt_dump(const agio_dt *dt, void *FILE_out)
{
    FILE *f = FILE_out ? FILE_out : stderr;
    if (!dt) {
        fprintf(f, "(null datatype)\n");
        return;
    }
    dump_node(f, dt, 0);
}
