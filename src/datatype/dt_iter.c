/*
 * dt_iter.c - the run iterator over an unbounded tiling of a decoded type. Pure (no MPI).
 *
 * Algorithm: a stack of frames, one per tree level on the path to the current run; fr[0] walks
 * the tiling itself (a vector of endless count, stride = extent, child = the type). A frame walks
 * the blocks of its node (block i, instance j of the block); when the child of the current block
 * is a BYTES node (or the node is a RUNS list), the frame is a leaf and produces runs directly.
 *  - Seek (init): instance k = skip / size, then per level the block holding the remaining byte
 *    r: a division for vectors, a binary search over the prefix sums for RUNS/IDX. O(depth+log n).
 *  - Step: the leaf frame advances (an add for vectors); exhausted frames are popped and the next
 *    instance is entered by the same descent with r = 0.
 *  - Merging needs one run of lookahead: `pend` is the run being returned, `la` the next run of
 *    the stream; la is absorbed into pend while it starts exactly where pend ends (also across
 *    instances), until pend reaches max_len. A gap-free tiling (info.contiguous) is one endless
 *    run and is served without walking (mode 1).
 * Invariants: every node below the root has size > 0, so every frame has >= 1 block and every
 * block >= 1 instance; la always holds a run (the stream is endless) in mode 2; the stack never
 * exceeds 1 + root depth <= AGIO_DT_MAXDEPTH frames (the builders guarantee the depth).
 */
#include <stdint.h>

#include "dt_node.h"

enum { LEAF_NO, LEAF_INST, LEAF_RUNS };

/* Largest i in [0, n) with psum[i] <= r (psum strictly increasing, psum[0] = 0). */
static int64_t find_block(const int64_t *psum, int64_t n, int64_t r)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (psum[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void set_child(struct agio_dt_frame *f, const agio_dt *c)
{
    f->child = c;
    f->step = c->info.extent;
    f->leaf = c->kind == DT_BYTES ? LEAF_INST : LEAF_NO;
    f->roff = c->u.bytes.off;
    f->rlen = c->u.bytes.len;
}

static void set_block(struct agio_dt_frame *f)
{
    const agio_dt *nd = f->node;
    f->j = 0;
    if (f->vec) {
        f->blk = (int64_t)((uint64_t)f->base + (uint64_t)f->i * (uint64_t)f->stride);
    } else {
        f->blk = f->base + nd->u.idx.disp[f->i];
        f->bl = nd->u.idx.bl[f->i];
        set_child(f, nd->u.idx.kid[f->i]);
    }
    f->off = f->blk;
}

/* Push the frames from the top frame's current child instance down to the run holding data byte
 * r of that instance; that run, from byte r on, becomes the lookahead. */
static void descend(struct agio_dt_iter *it, int64_t r)
{
    struct agio_dt_frame *f = &it->fr[it->depth - 1];
    while (f->leaf == LEAF_NO) {
        const agio_dt *nd = f->child;
        struct agio_dt_frame *g = &it->fr[it->depth++];
        g->node = nd;
        g->base = f->off;
        g->vec = nd->kind == DT_VEC;
        if (nd->kind == DT_RUNS) {
            const int64_t *ps = nd->u.runs.psum;
            g->n = nd->u.runs.n;
            g->leaf = LEAF_RUNS;
            g->i = r ? find_block(ps, g->n, r) : 0;
            r -= ps[g->i];
            it->la_off = g->base + nd->u.runs.off[g->i] + r;
            it->la_len = ps[g->i + 1] - ps[g->i] - r;
            return;
        }
        if (g->vec) {
            const agio_dt *c = nd->u.vec.child;
            int64_t bsz = nd->u.vec.bl * c->s.size;
            g->n = nd->u.vec.count;
            g->bl = nd->u.vec.bl;
            g->stride = nd->u.vec.stride;
            g->i = r ? r / bsz : 0;
            r -= g->i * bsz;
            set_child(g, c);
        } else {
            g->n = nd->u.idx.n;
            g->i = r ? find_block(nd->u.idx.psum, g->n, r) : 0;
            r -= nd->u.idx.psum[g->i];
        }
        set_block(g);
        int64_t csz = ((const agio_dt *)g->child)->s.size;
        g->j = r ? r / csz : 0;
        r -= g->j * csz;
        g->off = g->blk + g->j * g->step;
        f = g;
    }
    it->la_off = f->off + f->roff + r;
    it->la_len = f->rlen - r;
}

/* General step of the lookahead: next instance, next block, or pop to the parent. */
static void advance(struct agio_dt_iter *it)
{
    struct agio_dt_frame *f = &it->fr[it->depth - 1];
    for (;;) {
        if (f->leaf == LEAF_RUNS) {
            if (++f->i < f->n) {
                const agio_dt *nd = f->node;
                const int64_t *ps = nd->u.runs.psum;
                it->la_off = f->base + nd->u.runs.off[f->i];
                it->la_len = ps[f->i + 1] - ps[f->i];
                return;
            }
        } else if (++f->j < f->bl) {
            f->off += f->step;
            break;
        } else if (++f->i < f->n) {
            set_block(f);
            break;
        }
        f = &it->fr[--it->depth - 1]; /* fr[0] never ends */
    }
    descend(it, 0);
}

/* Next run of the stream into the lookahead; the common leaf-vector step inline. */
static inline void fetch(struct agio_dt_iter *it)
{
    struct agio_dt_frame *f = &it->fr[it->depth - 1];
    if (f->leaf == LEAF_INST) {
        if (f->j + 1 < f->bl) {
            f->j++;
            f->off += f->step;
        } else if (f->vec && f->i + 1 < f->n) {
            f->i++;
            f->j = 0;
            f->blk += f->stride;
            f->off = f->blk;
        } else {
            advance(it);
            return;
        }
        it->la_off = f->off + f->roff;
        it->la_len = f->rlen;
        return;
    }
    advance(it);
}

void agio_dt_iter_init(struct agio_dt_iter *it, const agio_dt *dt, int64_t base, int64_t skip)
{
    const struct agio_dt_info *in = &dt->info;
    it->dt = dt;
    it->depth = 1;
    it->pend_off = it->pend_len = it->la_off = it->la_len = 0;
    it->mode = in->size == 0 ? 0 : in->contiguous ? 1 : 2;
    if (it->mode == 0) return;
    if (it->mode == 1) {
        it->pend_off = base + in->true_lb + skip;
        return;
    }
    int64_t k = skip / in->size, r = skip % in->size;
    if (r < 0) {
        r += in->size;
        k--;
    }
    struct agio_dt_frame *f = &it->fr[0];
    f->node = NULL;
    f->vec = 1;
    f->n = INT64_MAX;
    f->bl = 1;
    f->stride = in->extent;
    f->base = base;
    f->i = k;
    set_child(f, dt);
    set_block(f);
    descend(it, r);
    it->pend_off = it->la_off;
    it->pend_len = it->la_len;
    fetch(it);
}

int agio_dt_iter_next(struct agio_dt_iter *it, int64_t max_len, int64_t *off, int64_t *len)
{
    if (it->mode == 0 || max_len <= 0) {
        *len = 0;
        return 0;
    }
    if (it->mode == 1) { /* endless run: cut so that off + len stays representable */
        *off = it->pend_off;
        *len = it->pend_off > 0 && max_len > INT64_MAX - it->pend_off ? INT64_MAX - it->pend_off
                                                                       : max_len;
        if (*len == 0) *len = 1;
        it->pend_off = (int64_t)((uint64_t)it->pend_off + (uint64_t)*len);
        return 1;
    }
    while (it->pend_len < max_len && it->la_off == it->pend_off + it->pend_len &&
           it->la_len <= INT64_MAX - it->pend_len) {
        it->pend_len += it->la_len;
        fetch(it);
    }
    *off = it->pend_off;
    if (it->pend_len <= max_len) {
        *len = it->pend_len;
        it->pend_off = it->la_off;
        it->pend_len = it->la_len;
        fetch(it);
    } else {
        *len = max_len;
        it->pend_off += max_len;
        it->pend_len -= max_len;
    }
    return 1;
}
