/*
 * coll_engine_mpi.c - two-phase collective I/O, phase by phase (see coll.h for the overview).
 *
 * Senders never build a list of their whole access: for each aggregator and round they look up
 * the stream positions of the domain range in their (monotone) view by binary search
 * (agio_sieve_stream_pos) - the data of a file range is one contiguous range of the view stream -
 * and walk only the runs inside it. Aggregators receive (offset, length) pairs and data, place
 * them in a page-aligned window and hand the window to the worker thread (cbio.c) while the next
 * round is exchanged.
 * Invariants: every rank runs the same rounds and leaves the loop in the same round (errors travel
 * in the count exchange); only bytes covered by some rank's view are written (cbio.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agio_err.h"
#include "agio_util.h"
#include "coll_state.h"
#include "fdpart.h"
#include "sieve/sieve.h"

struct seg {
    int a;          /* aggregator index */
    int64_t p0, p1; /* view stream positions */
};

/* One call's context. */
struct ctx {
    struct agio_file *f;
    struct agio_coll_state *c;
    const struct agio_view *v;
    int is_write;
    int64_t skip, nbytes, lo, hi; /* my access: stream [skip, skip+nbytes), file [lo, hi) */
    int64_t glo, ghi;             /* everyone's access */
    int wb;                       /* write-behind: hold the last partial stripe */
    int64_t hold_lo;              /* start of the stripe part this call holds (or INT64_MAX) */
    int hold_agg;                 /* aggregator index that holds it */
    int64_t hold_round;
    int64_t merged_hi;            /* end of older held bytes merged into this call (or -1) */
    const agio_dt *mdt;
    void *buf;
    struct agio_fdpart part;
    const int *aggs;
    int naggs, my_agg;
    /* per-round sender plan */
    struct seg *segs;
    int nsegs, cap_segs;
    int64_t npairs; /* pairs in c->smeta */
    int64_t *cnt;   /* 3 per rank: pairs, bytes, error (send) */
    int64_t *rcnt;  /* same, received */
    int *sc, *sd, *rc_, *rd; /* Alltoallv counts and displacements */
    int64_t *a_pairs, *a_bytes; /* per aggregator */
    int *order;                 /* aggregator indices sorted by rank */
    MPI_Datatype *mtypes, *wtypes; /* per peer: my memory pieces / window pieces (absolute) */
    int *wcnt, *wzero;             /* per peer: 1 if a type is set, else 0; all-zero displs */
    MPI_Aint *tdisp;               /* scratch for hindexed construction */
    int *tlen;
    int64_t cap_t;
    int err;
};


static void add_pair(void *vx, int64_t off, int64_t len)
{
    struct ctx *x = vx;
    if (x->err) return;
    x->err = agio_grow((void **)&x->c->smeta, &x->c->cap_sm, 2 * (x->npairs + 1), sizeof(int64_t));
    if (x->err) return;
    x->c->smeta[2 * x->npairs] = off;
    x->c->smeta[2 * x->npairs + 1] = len;
    x->npairs++;
}

struct range_cb {
    struct ctx *x;
    int a;
};

/* Sender: my data inside domain range [rlo, rhi) of aggregator a. */
static void plan_range(void *vr, int64_t rlo, int64_t rhi)
{
    struct range_cb *rcb = vr;
    struct ctx *x = rcb->x;
    if (x->err || rhi <= x->lo || rlo >= x->hi) return;
    if (rlo < x->lo) rlo = x->lo;
    if (rhi > x->hi) rhi = x->hi;
    const struct agio_view *v = x->v;
    int64_t e = x->skip + x->nbytes;
    int64_t p0 = agio_sieve_stream_pos(v->fdt, v->disp, rlo, x->skip, e);
    int64_t p1 = agio_sieve_stream_pos(v->fdt, v->disp, rhi, p0, e);
    if (p1 <= p0) return;
    int64_t cap = x->cap_segs;
    x->err = agio_grow((void **)&x->segs, &cap, x->nsegs + 1, sizeof(struct seg));
    x->cap_segs = (int)cap;
    if (x->err) return;
    x->segs[x->nsegs++] = (struct seg){rcb->a, p0, p1};
    x->a_bytes[rcb->a] += p1 - p0;
    agio_sieve_runs(v->fdt, v->disp, p0, p1, add_pair, x);
}

/* Phase 5, sender side of round r: segments, pairs and counts per aggregator. */
static void plan_round(struct ctx *x, int64_t r)
{
    x->nsegs = 0;
    x->npairs = 0;
    for (int k = 0; k < x->naggs; k++) {
        int a = x->order[k]; /* aggregators in rank order: the Alltoallv layout */
        int64_t before = x->npairs;
        x->a_bytes[a] = 0;
        if (x->nbytes > 0) {
            struct range_cb rcb = {x, a};
            agio_fdpart_round(&x->part, a, r, plan_range, &rcb);
        }
        x->a_pairs[a] = x->npairs - before;
    }
}

/* Counts exchange (with errors); returns the agreed error of everyone so far. */
static int exchange_counts(struct ctx *x, int my_err)
{
    int p = x->f->nprocs;
    memset(x->cnt, 0, sizeof(int64_t) * 3 * (size_t)p);
    for (int d = 0; d < p; d++)
        x->cnt[3 * d + 2] = my_err;
    for (int a = 0; a < x->naggs; a++) {
        x->cnt[3 * x->aggs[a]] = x->a_pairs[a];
        x->cnt[3 * x->aggs[a] + 1] = x->a_bytes[a];
    }
    if (PMPI_Alltoall(x->cnt, 3, MPI_INT64_T, x->rcnt, 3, MPI_INT64_T, x->f->comm) != MPI_SUCCESS)
        return AGIO_EINTERN;
    int e = my_err;
    for (int s = 0; s < p; s++)
        if (x->rcnt[3 * s + 2] < e) e = (int)x->rcnt[3 * s + 2];
    return e;
}

/* Alltoallv counts/displacements from per-rank values (field 0 = pairs, 1 = bytes), scaled. */
static int vcounts(struct ctx *x, const int64_t *c3, int field, int scale, int *cnt, int *dsp)
{
    int64_t off = 0;
    for (int d = 0; d < x->f->nprocs; d++) {
        int64_t n = c3[3 * d + field] * scale;
        if (n > 0x7fffffff || off > 0x7fffffff) return AGIO_EOVERFLOW;
        cnt[d] = (int)n;
        dsp[d] = (int)off;
        off += n;
    }
    return off > 0x7fffffff ? AGIO_EOVERFLOW : 0;
}

static int alltoallv(struct ctx *x, const void *sb, int *sc, int *sd, MPI_Datatype t, void *rb,
                     int *rc, int *rd)
{
    uint64_t t0 = agio_now_ns();
    int e = PMPI_Alltoallv(sb, sc, sd, t, rb, rc, rd, t, x->f->comm);
    agio_stats_add(&x->f->stats, AGIO_ST_cb_exch_ns, agio_now_ns() - t0);
    return e == MPI_SUCCESS ? 0 : AGIO_EINTERN;
}

static int memory_types(struct ctx *x);

/* After the count exchange: size every buffer and count array of this round, then agree, so a
 * local failure (memory, int overflow of MPI counts) stops all ranks in the same place. */
static int prepare_round(struct ctx *x, int64_t *rbytes)
{
    struct agio_coll_state *c = x->c;
    int64_t rn = 0, sbytes = 0;
    *rbytes = 0;
    for (int s = 0; s < x->f->nprocs; s++) {
        rn += 2 * x->rcnt[3 * s];
        *rbytes += x->rcnt[3 * s + 1];
        sbytes += x->cnt[3 * s + 1];
    }
    (void)sbytes;
    int rc = agio_grow((void **)&c->rmeta, &c->cap_rm, rn + 1, sizeof(int64_t));
    if (!rc) rc = agio_grow((void **)&c->smeta, &c->cap_sm, 1, sizeof(int64_t));
    if (!rc) rc = vcounts(x, x->cnt, 0, 2, x->sc, x->sd);
    if (!rc) rc = vcounts(x, x->rcnt, 0, 2, x->rc_, x->rd);
    if (!rc) rc = memory_types(x);
    return agio_file_agree(x->f->comm, rc);
}

/* Exchange the (offset, length) pairs: senders -> aggregators. */
static int exchange_meta(struct ctx *x)
{
    return alltoallv(x, x->c->smeta, x->sc, x->sd, MPI_INT64_T, x->c->rmeta, x->rc_, x->rd);
}

/* One hindexed type over absolute (address, length) pieces, used with MPI_BOTTOM. */
static int piece_type(struct ctx *x, int64_t n, MPI_Datatype *t)
{
    if (n > 0x7fffffff) return AGIO_EOVERFLOW;
    int e = PMPI_Type_create_hindexed((int)n, x->tlen, x->tdisp, MPI_BYTE, t);
    if (e == MPI_SUCCESS) e = PMPI_Type_commit(t);
    return e == MPI_SUCCESS ? 0 : AGIO_ENOMEM;
}

static int add_piece(struct ctx *x, int64_t *n, const void *addr, int64_t len)
{
    if (*n && (const char *)x->tdisp[*n - 1] + x->tlen[*n - 1] == (const char *)addr &&
        (int64_t)x->tlen[*n - 1] + len <= 0x7fffffff) {
        x->tlen[*n - 1] += (int)len; /* adjacent in memory: one block */
        return 0;
    }
    int64_t cap = x->cap_t;
    int rc = agio_grow((void **)&x->tdisp, &cap, *n + 1, sizeof(MPI_Aint));
    if (!rc) rc = agio_grow((void **)&x->tlen, &x->cap_t, *n + 1, sizeof(int));
    if (rc) return rc;
    x->tdisp[*n] = (MPI_Aint)(intptr_t)addr;
    x->tlen[*n] = (int)len;
    (*n)++;
    return 0;
}

static void free_types(struct ctx *x)
{
    for (int d = 0; d < x->f->nprocs; d++) {
        if (x->mtypes[d] != MPI_DATATYPE_NULL) PMPI_Type_free(&x->mtypes[d]);
        if (x->wtypes[d] != MPI_DATATYPE_NULL) PMPI_Type_free(&x->wtypes[d]);
        x->mtypes[d] = x->wtypes[d] = MPI_DATATYPE_NULL;
    }
}

/* My memory pieces for each aggregator (segments are grouped by aggregator in rank order). */
static int memory_types(struct ctx *x)
{
    int rc = 0;
    for (int i = 0; i < x->nsegs && !rc;) {
        int a = x->segs[i].a;
        int64_t n = 0;
        for (; i < x->nsegs && x->segs[i].a == a && !rc; i++) {
            struct agio_dt_iter it;
            int64_t off, len, left = x->segs[i].p1 - x->segs[i].p0;
            agio_dt_iter_init(&it, x->mdt, (int64_t)(intptr_t)x->buf, x->segs[i].p0 - x->skip);
            while (!rc && left > 0 && agio_dt_iter_next(&it, left, &off, &len)) {
                rc = add_piece(x, &n, (const void *)(intptr_t)off, len);
                left -= len;
            }
        }
        if (!rc) rc = piece_type(x, n, &x->mtypes[x->aggs[a]]);
    }
    return rc;
}

/* Aggregator: window pieces of each source, in the order the source lists them. */
static int window_types(struct ctx *x, const struct agio_cb_window *w)
{
    const int64_t *m = x->c->rmeta;
    int rc = 0;
    for (int s = 0; s < x->f->nprocs && !rc; s++) {
        int64_t np = x->rcnt[3 * s], n = 0;
        const int64_t *q = m + x->rd[s];
        for (int64_t i = 0; i < np && !rc; i++) {
            char *dst = agio_cb_window_at(w, q[2 * i]);
            rc = dst ? add_piece(x, &n, dst, q[2 * i + 1]) : AGIO_ENOMEM;
        }
        if (!rc && np) rc = piece_type(x, n, &x->wtypes[s]);
    }
    return rc;
}

/* Move the data with one MPI_Alltoallw: memory -> window (writes) or window -> memory (reads). */
static int exchange_typed(struct ctx *x, int to_aggs, uint64_t bytes)
{
    int p = x->f->nprocs;
    int *sc = x->wcnt, *rc = x->wcnt + p;
    for (int d = 0; d < p; d++) {
        sc[d] = (to_aggs ? x->mtypes[d] : x->wtypes[d]) != MPI_DATATYPE_NULL;
        rc[d] = (to_aggs ? x->wtypes[d] : x->mtypes[d]) != MPI_DATATYPE_NULL;
    }
    MPI_Datatype *st = to_aggs ? x->mtypes : x->wtypes, *rt = to_aggs ? x->wtypes : x->mtypes;
    for (int d = 0; d < p; d++) { /* unused slots still need a valid type */
        if (!sc[d]) st[d] = MPI_BYTE;
        if (!rc[d]) rt[d] = MPI_BYTE;
    }
    uint64_t t0 = agio_now_ns();
    int e = PMPI_Alltoallw(MPI_BOTTOM, sc, x->wzero, st, MPI_BOTTOM, rc, x->wzero, rt, x->f->comm);
    agio_stats_add(&x->f->stats, AGIO_ST_cb_exch_ns, agio_now_ns() - t0);
    agio_stats_add(&x->f->stats, AGIO_ST_cb_exch_bytes, bytes);
    for (int d = 0; d < p; d++) {
        if (!sc[d]) st[d] = MPI_DATATYPE_NULL;
        if (!rc[d]) rt[d] = MPI_DATATYPE_NULL;
    }
    free_types(x);
    return e == MPI_SUCCESS ? 0 : AGIO_EINTERN;
}

struct write_job {
    struct agio_cb_window *w;
    struct agio_cb_io io;
};

static int write_job(void *arg)
{
    struct write_job *j = arg;
    return agio_cb_window_write(j->w, &j->io);
}


/* Aggregator: record every piece it receives (writes) or must serve (reads) for coverage. */
static int note_pieces(struct ctx *x, struct agio_cb_window *w)
{
    const int64_t *m = x->c->rmeta;
    int64_t npairs = 0;
    for (int s = 0; s < x->f->nprocs; s++)
        npairs += x->rcnt[3 * s];
    for (int64_t i = 0; i < npairs; i++) {
        int rc = agio_cb_window_add_piece(w, m[2 * i], m[2 * i + 1]);
        if (rc) return rc;
    }
    return 0;
}

static void io_setup(struct ctx *x, struct agio_cb_io *io)
{
    struct agio_coll_state *c = x->c;
    struct agio_file *f = x->f;
    if (c->can_lock < 0) {
        c->can_lock = agio_drv_lock(f->df, AGIO_LOCK_WRITE, 0, 1) == 0;
        if (c->can_lock) agio_drv_lock(f->df, AGIO_LOCK_UNLOCK, 0, 1);
    }
    /* O_DIRECT only when asked: on the reference VM it measured slower (330 MiB/s) than buffered
     * writes with fsync (750-950 MiB/s), see bench/RESULTS.md; automatic means buffered until
     * agio measures the choice per file system. */
    if (x->is_write && !c->direct_tried && f->hints.num[AGIO_H_direct_io] == AGIO_HINT_ENABLE) {
        c->direct_tried = 1;
        if (agio_drv_open(f->drv, f->path, AGIO_DRV_WRONLY | AGIO_DRV_DIRECT, 0, &f->stats,
                          &c->direct))
            c->direct = NULL;
    }
    io->df = f->df;
    io->direct = x->is_write ? c->direct : NULL;
    io->unit = x->part.unit;
    io->can_lock = c->can_lock;
    io->stats = &f->stats;
}

/* Aggregator, write-behind: a range of this round that touches the held stripe is widened to
 * the held bytes, so the stripe is written whole with this call's data. */
struct open_ctx {
    struct agio_cb_window *w;
    const struct agio_wb_copy *held;
    int64_t unit;
    int touched;
};

static void open_range_cb(void *vo, int64_t lo, int64_t hi)
{
    struct open_ctx *o = vo;
    const struct agio_wb_copy *h = o->held;
    if (h->n && o->unit > 0) {
        int64_t k = h->runs[0][0] / o->unit, h0 = h->runs[0][0];
        int64_t h1 = h->runs[h->n - 1][0] + h->runs[h->n - 1][1];
        if (lo < (k + 1) * o->unit && hi > k * o->unit) { /* range meets stripe k */
            lo = lo < h0 ? lo : h0;
            hi = hi > h1 ? hi : h1;
            o->touched = 1;
        }
    }
    agio_cb_window_add_range(o->w, lo, hi);
}

/* Aggregator: the window of round r with its ranges and the receive/send types per source.
 * Window growth must precede the types (they hold absolute addresses). Held bytes go in first,
 * so this call's data, arriving later, overrides them. Returns 0 or a code. */
static int open_window(struct ctx *x, struct agio_cb_window *w, int64_t r)
{
    struct agio_wb_copy *h = &x->c->held;
    struct open_ctx o = {w, h, x->part.unit, 0};
    agio_cb_window_reset(w);
    agio_fdpart_round(&x->part, x->my_agg, r, open_range_cb, &o);
    int rc = 0;
    if (o.touched) {
        const char *p = h->buf;
        int64_t end = h->runs[h->n - 1][0] + h->runs[h->n - 1][1];
        if (end > x->merged_hi) x->merged_hi = end;
        for (int64_t i = 0; i < h->n && !rc; i++) {
            char *dst = agio_cb_window_at(w, h->runs[i][0]);
            if (!dst) rc = AGIO_ENOMEM;
            if (!rc) memcpy(dst, p, (size_t)h->runs[i][1]);
            if (!rc) rc = agio_cb_window_add_piece(w, h->runs[i][0], h->runs[i][1]);
            p += h->runs[i][1];
        }
        agio_wb_clear(h);
    }
    if (!rc) rc = note_pieces(x, w);
    return rc ? rc : window_types(x, w);
}

static int keep_held(void *vc, int64_t off, const void *data, int64_t len)
{
    return agio_wb_add(vc, off, data, len);
}

/* Every rank, write-behind: copy my own bytes at offsets >= hold_lo ("mine"). */
static int keep_mine(struct ctx *x)
{
    const struct agio_view *v = x->v;
    int64_t e = x->skip + x->nbytes;
    if (x->nbytes <= 0 || x->hi <= x->hold_lo) return 0;
    int64_t p0 = agio_sieve_stream_pos(v->fdt, v->disp, x->hold_lo, x->skip, e);
    char *tmp = malloc((size_t)(e - p0) + 1);
    if (!tmp) return AGIO_ENOMEM;
    agio_sieve_copy(x->mdt, x->buf, p0 - x->skip, e - p0, tmp, 1);
    struct agio_dt_iter it;
    int64_t off, len, at = 0, rc = 0;
    agio_dt_iter_init(&it, v->fdt, v->disp, p0);
    while (!rc && at < e - p0 && agio_dt_iter_next(&it, e - p0 - at, &off, &len)) {
        rc = agio_wb_add(&x->c->mine, off, tmp + at, len);
        at += len;
    }
    free(tmp);
    return (int)rc;
}

/* Which stripe part this write holds: the call's last stripe when the call ends inside it. */
static void plan_hold(struct ctx *x)
{
    x->hold_lo = INT64_MAX;
    x->hold_agg = -1;
    int64_t u = x->part.unit;
    if (!x->wb || u <= 0 || x->ghi % u == 0) return;
    int64_t lo = (x->ghi - 1) / u * u;
    x->hold_lo = lo > x->glo ? lo : x->glo;
    int64_t end;
    x->hold_agg = agio_fdpart_owner(&x->part, x->ghi - 1, &x->hold_round, &end);
}

static int write_rounds(struct ctx *x)
{
    struct agio_coll_state *c = x->c;
    struct write_job jobs[2];
    int err = 0, pending = 0; /* pending: a local error to report in the next count exchange */
    for (int64_t r = 0; r < x->part.nrounds; r++) {
        plan_round(x, r);
        int mine = x->err ? x->err : pending;
        if (!mine && x->my_agg >= 0) mine = agio_cb_worker_error(&c->worker);
        int64_t rbytes;
        struct write_job *j = &jobs[r % 2];
        err = exchange_counts(x, mine);
        if (!err) err = prepare_round(x, &rbytes);
        if (!err) err = exchange_meta(x);
        if (!err && x->my_agg >= 0) {
            j->w = &c->win[r % 2]; /* not in flight: the worker holds at most the other one */
            io_setup(x, &j->io);
            pending = open_window(x, j->w, r);
        }
        /* A window failure must not leave peers waiting: agree before moving data. */
        if (!err) err = agio_file_agree(x->f->comm, pending);
        if (!err) err = exchange_typed(x, 1, (uint64_t)rbytes);
        free_types(x);
        if (err) break;
        /* Hold this call's tail, unless older held bytes were merged into it: their writers
         * dropped their copies, so only writing them now keeps them safe. */
        if (x->my_agg >= 0 && x->my_agg == x->hold_agg && r == x->hold_round &&
            x->merged_hi <= x->hold_lo)
            pending = agio_cb_window_hold(j->w, x->hold_lo, keep_held, &c->held_next);
        if (x->my_agg >= 0) agio_cb_worker_submit(&c->worker, write_job, j);
    }
    int werr = x->my_agg >= 0 ? agio_cb_worker_wait(&c->worker) : 0;
    return err ? err : pending ? pending : werr;
}

/* After a write: the previous held stripe if it was not merged goes to disk; this call's held
 * stripe takes its place; every rank keeps its own bytes of it. */
static int finish_hold(struct ctx *x, int rc)
{
    struct agio_coll_state *c = x->c;
    int r2 = agio_coll_wb_write_held(x->f);
    struct agio_wb_copy t = c->held;
    c->held = c->held_next;
    c->held_next = t;
    agio_wb_clear(&c->held_next);
    if (rc) return rc;
    if (r2) return r2;
    if (x->hold_lo == INT64_MAX) return 0;
    int64_t size = 0;
    if (x->my_agg >= 0 && x->my_agg == x->hold_agg && !agio_drv_get_size(x->f->df, &size) &&
        size < x->ghi)
        r2 = agio_drv_set_size(x->f->df, x->ghi); /* get_size sees the held bytes' extent */
    return r2 ? r2 : keep_mine(x);
}

static int read_rounds(struct ctx *x)
{
    struct agio_coll_state *c = x->c;
    int err = 0, pending = 0;
    for (int64_t r = 0; r < x->part.nrounds; r++) {
        plan_round(x, r);
        int64_t rbytes, sbytes = 0;
        err = exchange_counts(x, x->err ? x->err : pending);
        if (!err) err = prepare_round(x, &rbytes);
        if (!err) err = exchange_meta(x);
        if (!err && x->my_agg >= 0) {
            struct agio_cb_io io;
            io_setup(x, &io);
            pending = open_window(x, &c->win[0], r);
            if (!pending) pending = agio_cb_window_read(&c->win[0], &io);
        }
        if (!err) err = agio_file_agree(x->f->comm, pending);
        for (int s = 0; s < x->f->nprocs; s++)
            sbytes += x->cnt[3 * s + 1];
        if (!err) err = exchange_typed(x, 0, (uint64_t)sbytes);
        free_types(x);
        if (err) break;
    }
    return err;
}
/* ---- phases 1-4 ---- */

static struct agio_coll_state *state(struct agio_file *f)
{
    if (f->coll) return f->coll;
    struct agio_coll_state *c = calloc(1, sizeof *c);
    agio_auto_seed(f, c); /* collective: state() runs inside the first collective call */
    if (!c) return NULL;
    c->can_lock = -1;
    c->last_sig = -1;
    agio_cb_window_init(&c->win[0]);
    agio_cb_window_init(&c->win[1]);
    if (f->hints.num[AGIO_H_agio_cb_pipeline]) agio_cb_worker_start(&c->worker);
    f->coll = c;
    return c;
}

void agio_coll_free(struct agio_file *f)
{
    struct agio_coll_state *c = f->coll;
    if (!c) return;
    agio_auto_learn(f, c);
    agio_cb_worker_stop(&c->worker);
    agio_cb_window_free(&c->win[0]);
    agio_cb_window_free(&c->win[1]);
    agio_wb_free(&c->held);
    agio_wb_free(&c->held_next);
    agio_wb_free(&c->mine);
    if (c->direct) agio_drv_close(c->direct);
    free(c->aggs);
    free(c->smeta);
    free(c->rmeta);
    free(c);
    f->coll = NULL;
}

/* One reduction for the access exchange: slots [0, NMAX) take the maximum, the rest the sum
 * (a user-defined, commutative MPI_Op, created once). */
#define NMAX 6
#define NSUM 4
static MPI_Op access_op = MPI_OP_NULL;
static pthread_once_t access_once = PTHREAD_ONCE_INIT;

static void access_reduce(void *in, void *inout, int *len, MPI_Datatype *t)
{
    const int64_t *a = in;
    int64_t *b = inout;
    (void)t;
    for (int k = 0; k + NMAX + NSUM <= *len; k += NMAX + NSUM) {
        for (int i = 0; i < NMAX; i++)
            if (a[k + i] > b[k + i]) b[k + i] = a[k + i];
        for (int i = NMAX; i < NMAX + NSUM; i++)
            b[k + i] += a[k + i];
    }
}

static void make_access_op(void)
{
    PMPI_Op_create(access_reduce, 1, &access_op);
}

/* Phase 1 (and, on the predicted-independent path, the final agreement): my range, run
 * estimate, error and the previous call's time, reduced with one MPI_Allreduce. */
static int access_exchange(struct ctx *x, struct agio_access_sum *g, int local_err, int64_t ns)
{
    const struct agio_dt_info *t = agio_dt_info(x->v->fdt);
    int64_t runs = 0;
    if (x->nbytes > 0)
        runs = t->contiguous ? 1
                             : x->nbytes * (t->nruns > 0 ? t->nruns : 1) / (t->size > 0 ? t->size : 1) + 1;
    int64_t v[NMAX + NSUM] = {x->nbytes > 0 ? -x->lo : INT64_MIN,
                              x->nbytes > 0 ? x->hi : INT64_MIN,
                              -(int64_t)local_err,
                              x->c ? x->c->self_flushed : 0,
                              ns,
                              !agio_dt_info(x->v->fdt)->monotone, /* tiled instances overlap */
                              x->nbytes,
                              x->nbytes > 0 ? x->hi - x->lo : 0,
                              runs,
                              x->nbytes > 0},
            o[NMAX + NSUM];
    pthread_once(&access_once, make_access_op);
    if (access_op == MPI_OP_NULL ||
        PMPI_Allreduce(v, o, NMAX + NSUM, MPI_INT64_T, access_op, x->f->comm) != MPI_SUCCESS)
        return AGIO_EINTERN;
    g->glo = o[0] == INT64_MIN ? 0 : -o[0];
    g->ghi = o[1] == INT64_MIN ? 0 : o[1];
    g->err = -(int)o[2];
    g->self_flushed = (int)o[3];
    g->last_ns = o[4];
    g->overlap_view = (int)o[5];
    g->total = o[6];
    g->span_sum = o[7];
    g->runs = o[8];
    g->writers = o[9];
    return 0;
}

static int64_t stripe_unit(struct agio_file *f, enum agio_fd_kind kind)
{
    struct agio_layout l;
    agio_drv_layout(f->df, &l);
    if (kind == AGIO_FD_BLOCK) return l.block_size > 0 ? l.block_size : 1 << 20;
    if (f->hints.num[AGIO_H_striping_unit] > 0) return f->hints.num[AGIO_H_striping_unit];
    return l.stripe_size > 0 ? l.stripe_size : 1 << 20;
}

/* Phases 3-4: aggregators in use and the partition. */
static int partition(struct ctx *x, const struct agio_access_sum *g)
{
    int nc, nnodes, rc = agio_coll_aggregators(x->f, &x->aggs, &nc, &nnodes);
    if (rc) return rc;
    enum agio_fd_kind kind = (enum agio_fd_kind)x->f->hints.num[AGIO_H_cb_align];
    int64_t unit = stripe_unit(x->f, kind);
    int64_t want = g->total / x->f->hints.num[AGIO_H_agio_cb_min_per_agg];
    x->naggs = nc < want ? nc : want < 1 ? 1 : (int)want;
    rc = agio_fdpart_make(&x->part, kind, x->naggs, g->glo, g->ghi, unit,
                          x->f->hints.num[AGIO_H_cb_buffer_size]);
    if (rc) return rc;
    x->my_agg = -1;
    for (int a = 0; a < x->naggs; a++)
        if (x->aggs[a] == x->f->rank) x->my_agg = a;
    return 0;
}

static int alloc_ctx(struct ctx *x)
{
    int p = x->f->nprocs;
    x->cnt = calloc(6 * (size_t)p, sizeof(int64_t));
    x->sc = calloc(8 * (size_t)p, sizeof(int));
    x->a_pairs = calloc(2 * (size_t)p + 1, sizeof(int64_t));
    x->order = calloc((size_t)p + 1, sizeof(int));
    x->mtypes = malloc(2 * sizeof(MPI_Datatype) * (size_t)p);
    x->wcnt = calloc(3 * (size_t)p, sizeof(int));
    if (!x->cnt || !x->sc || !x->a_pairs || !x->order || !x->mtypes || !x->wcnt)
        return AGIO_ENOMEM;
    x->wtypes = x->mtypes + p;
    for (int d = 0; d < 2 * p; d++)
        x->mtypes[d] = MPI_DATATYPE_NULL;
    x->wzero = x->wcnt + 2 * p;
    x->rcnt = x->cnt + 3 * p;
    x->sd = x->sc + 2 * p;
    x->rc_ = x->sc + 4 * p;
    x->rd = x->sc + 6 * p;
    x->a_bytes = x->a_pairs + p;
    return 0;
}

static void free_ctx(struct ctx *x)
{
    free(x->cnt);
    free(x->sc);
    free(x->a_pairs);
    free(x->order);
    free(x->segs);
    if (x->mtypes) free_types(x);
    free(x->mtypes);
    free(x->wcnt);
    free(x->tdisp);
    free(x->tlen);
    agio_fdpart_free(&x->part);
}

static void sort_order(struct ctx *x)
{
    for (int a = 0; a < x->naggs; a++)
        x->order[a] = a;
    for (int i = 1; i < x->naggs; i++) /* insertion sort by rank; naggs is small */
        for (int j = i; j > 0 && x->aggs[x->order[j - 1]] > x->aggs[x->order[j]]; j--) {
            int t = x->order[j];
            x->order[j] = x->order[j - 1];
            x->order[j - 1] = t;
        }
}

/* Independent path of a collective call (automatic mode chose it, or two-phase is off). */
static int independent(struct ctx *x, int64_t *moved)
{
    struct agio_access a = {.ftype = x->v->fdt, .disp = x->v->disp, .skip = x->skip,
                            .mtype = x->mdt, .buf = x->buf, .nbytes = x->nbytes};
    if (x->nbytes <= 0) return 0;
    return x->is_write ? agio_sieve_write(x->f->df, &a, moved) : agio_sieve_read(x->f->df, &a, moved);
}

static int64_t bytes_before_eof(struct ctx *x)
{
    int64_t size = 0;
    if (agio_drv_get_size(x->f->df, &size)) return x->nbytes;
    int64_t p = agio_sieve_stream_pos(x->v->fdt, x->v->disp, size, x->skip, x->skip + x->nbytes);
    return p - x->skip;
}

/* The predicted-independent path: I/O first, then one reduction that agrees on the error and
 * carries what the next decision needs (this call's access and its own time). */
static int predicted_independent(struct ctx *x, int local_err, int64_t *moved)
{
    struct agio_file *f = x->f;
    struct agio_coll_state *c = x->c;
    struct agio_access_sum g = {0};
    uint64_t t0 = agio_now_ns();
    int rc = local_err ? local_err : agio_coll_flush(f);
    if (!rc) rc = independent(x, moved);
    int arc = access_exchange(x, &g, rc, (int64_t)(agio_now_ns() - t0));
    rc = arc ? arc : g.err;
    agio_stats_add(&f->stats, AGIO_ST_cb_indep_calls, 1);
    c->predict_indep = 0;
    c->last_sig = -1;
    c->last_ns = 0;
    if (!arc && g.total > 0) agio_auto_charge_independent(f, &g, x->is_write);
    if (rc) *moved = 0;
    free_ctx(x);
    return rc;
}

int agio_coll_rw(struct agio_file *f, int local_err, int is_write, int64_t skip,
                 const agio_dt *mdt, void *buf, int64_t nbytes, int64_t *moved, int *used_cb)
{
    struct ctx x = {.f = f, .v = &f->view, .is_write = is_write, .skip = skip, .nbytes = nbytes,
                    .mdt = mdt, .buf = buf, .c = state(f), .merged_hi = -1};
    uint64_t t0 = agio_now_ns();
    struct agio_access_sum g = {0};
    *moved = 0;
    *used_cb = 0;
    int rc = local_err ? local_err : x.c ? alloc_ctx(&x) : AGIO_ENOMEM;
    if (rc) x.nbytes = nbytes = 0;
    if (nbytes > 0) {
        x.lo = agio_sieve_byte_offset(x.v->fdt, x.v->disp, skip);
        x.hi = agio_sieve_byte_offset(x.v->fdt, x.v->disp, skip + nbytes - 1) + 1;
    }
    if (x.c && x.c->predict_indep == 1 + is_write && /* identical on every rank */
        f->hints.num[is_write ? AGIO_H_romio_cb_write : AGIO_H_romio_cb_read] == AGIO_HINT_AUTO)
        return predicted_independent(&x, rc, moved);
    int arc = access_exchange(&x, &g, rc, x.c ? (int64_t)x.c->last_ns : 0);
    rc = arc ? arc : g.err;
    int two_phase = !rc && agio_auto_use_two_phase(f, is_write, &g);
    uint64_t t_move = agio_now_ns();
    /* Write-behind: merge the held stripe into this call only for a two-phase write with
     * persistent (cyclic) domains that nobody flushed since; else everyone flushes first. */
    x.wb = is_write && two_phase && f->hints.num[AGIO_H_agio_cb_write_behind] && !f->atomic &&
           f->hints.num[AGIO_H_cb_align] == AGIO_FD_CYCLIC;
    int frc = (x.wb && !g.self_flushed) ? agio_coll_wb_release(f, 0) : agio_coll_flush(f);
    if (!rc) rc = agio_file_agree(f->comm, frc);
    x.glo = g.glo;
    x.ghi = g.ghi;
    if (!rc && !two_phase) {
        agio_stats_add(&f->stats, AGIO_ST_cb_indep_calls, 1);
        rc = agio_file_agree(f->comm, independent(&x, moved));
        x.c->last_ns = agio_now_ns() - t_move;
        agio_auto_predict_next(f, &g, is_write, x.c->last_sig);
        free_ctx(&x);
        return rc;
    }
    if (!rc) rc = agio_file_agree(f->comm, partition(&x, &g));
    agio_stats_add(&f->stats, AGIO_ST_cb_access_ns, agio_now_ns() - t0);
    if (!rc) {
        *used_cb = 1;
        sort_order(&x);
        plan_hold(&x);
        rc = is_write ? write_rounds(&x) : read_rounds(&x);
        if (is_write) rc = finish_hold(&x, rc);
        rc = agio_file_agree(f->comm, rc);
        agio_stats_add(&f->stats, AGIO_ST_cb_calls, 1);
        agio_stats_max(&f->stats, AGIO_ST_cb_rounds, (uint64_t)x.part.nrounds);
        agio_stats_max(&f->stats, AGIO_ST_cb_aggregators, (uint64_t)x.naggs);
        agio_stats_max(&f->stats, AGIO_ST_cb_stripe_size, (uint64_t)x.part.unit);
        if (x.my_agg >= 0) agio_stats_add(&f->stats, AGIO_ST_cb_agg_calls, 1);
        if (!rc) *moved = is_write ? nbytes : bytes_before_eof(&x);
        if (f->cfg.stats >= 2)
            fprintf(stderr, "agio trace: PE=%d %s_all two-phase range=[%lld,%lld) bytes=%lld "
                    "aggs=%d agg=%d rounds=%lld unit=%lld rc=%d %s\n", f->rank,
                    is_write ? "write" : "read", (long long)g.glo, (long long)g.ghi,
                    (long long)nbytes, x.naggs, x.my_agg, (long long)x.part.nrounds,
                    (long long)x.part.unit, rc, f->name);
    }
    if (x.c) x.c->last_ns = agio_now_ns() - t_move;
    free_ctx(&x);
    return rc;
}
