/*
 * cbio.c - aggregator window I/O for two-phase collective buffering (see cbio.h).
 *
 * Write plan per domain range of a round (numbered as in the code):
 *  1. coverage: the received pieces sorted and merged into extents;
 *  2. per range, the span [first covered byte, last covered byte): no hole -> one write; holes ->
 *     compare a cost model (per-call latency, read and write bandwidth): separate writes of the
 *     extents, or read-modify-write (one read of the span into scratch under a byte-range write
 *     lock, holes copied into the window, one write of the span). Without working locks holes
 *     are always written around, never filled unsafely;
 *  3. each write goes through O_DIRECT for its 4 KiB-aligned middle when a direct descriptor is
 *     available (the window keeps file offset and buffer address congruent modulo 4 KiB), and
 *     through the page cache for the unaligned edges.
 * Invariant: bytes of the file that no piece covers are written only with the value just read
 * under the lock.
 */
#include "cbio.h"

#include <stdlib.h>
#include <string.h>

#include "agio_err.h"

#define LAT 30e-6   /* seconds per system call */
#define BW_R 2.0e9  /* bytes/s read */
#define BW_W 1.0e9  /* bytes/s write */
#define DIRECT_MIN (64 * 1024)

void agio_cb_window_init(struct agio_cb_window *w)
{
    memset(w, 0, sizeof *w);
}

void agio_cb_window_free(struct agio_cb_window *w)
{
    free(w->buf);
    free(w->ranges);
    free(w->pieces);
    free(w->scratch);
    agio_cb_window_init(w);
}

void agio_cb_window_reset(struct agio_cb_window *w)
{
    w->nranges = 0;
    w->npieces = 0;
}

static int grow_buf(char **buf, int64_t *cap, int64_t need)
{
    if (need <= *cap) return 0;
    int64_t n = *cap ? *cap : 1 << 20;
    while (n < need)
        n *= 2;
    char *b = NULL;
    if (posix_memalign((void **)&b, AGIO_CB_ALIGN, (size_t)n)) return AGIO_ENOMEM;
    free(*buf); /* contents need not survive: growth happens before data is placed */
    *buf = b;
    *cap = n;
    return 0;
}

int agio_cb_window_add_range(struct agio_cb_window *w, int64_t lo, int64_t hi)
{
    if (w->nranges == w->cap_ranges) {
        int n = w->cap_ranges ? 2 * w->cap_ranges : 16;
        struct agio_cb_range *r = realloc(w->ranges, (size_t)n * sizeof *r);
        if (!r) return AGIO_ENOMEM;
        w->ranges = r;
        w->cap_ranges = n;
    }
    int64_t end = 0;
    if (w->nranges) {
        const struct agio_cb_range *p = &w->ranges[w->nranges - 1];
        end = p->bufpos + (p->hi - p->lo);
    }
    int64_t pos = (end + AGIO_CB_ALIGN - 1) / AGIO_CB_ALIGN * AGIO_CB_ALIGN + lo % AGIO_CB_ALIGN;
    int rc = grow_buf(&w->buf, &w->cap, pos + (hi - lo) + AGIO_CB_ALIGN);
    if (rc) return rc;
    w->ranges[w->nranges++] = (struct agio_cb_range){lo, hi, pos};
    return 0;
}

static const struct agio_cb_range *find_range(const struct agio_cb_window *w, int64_t off)
{
    int a = 0, b = w->nranges - 1;
    while (a <= b) {
        int m = (a + b) / 2;
        if (off < w->ranges[m].lo)
            b = m - 1;
        else if (off >= w->ranges[m].hi)
            a = m + 1;
        else
            return &w->ranges[m];
    }
    return NULL;
}

char *agio_cb_window_at(const struct agio_cb_window *w, int64_t off)
{
    const struct agio_cb_range *r = find_range(w, off);
    return r ? w->buf + r->bufpos + (off - r->lo) : NULL;
}

int agio_cb_window_add_piece(struct agio_cb_window *w, int64_t off, int64_t len)
{
    if (w->npieces == w->cap_pieces) {
        int64_t n = w->cap_pieces ? 2 * w->cap_pieces : 256;
        void *p = realloc(w->pieces, (size_t)n * sizeof w->pieces[0]);
        if (!p) return AGIO_ENOMEM;
        w->pieces = p;
        w->cap_pieces = n;
    }
    w->pieces[w->npieces][0] = off;
    w->pieces[w->npieces][1] = len;
    w->npieces++;
    return 0;
}

static int cmp_piece(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

/* 1. Sort and merge pieces into extents in place; returns the extent count. */
static int64_t coverage(struct agio_cb_window *w)
{
    int64_t n = 0;
    int sorted = 1;
    for (int64_t i = 1; i < w->npieces && sorted; i++)
        sorted = w->pieces[i - 1][0] <= w->pieces[i][0];
    if (!sorted) qsort(w->pieces, (size_t)w->npieces, sizeof w->pieces[0], cmp_piece);
    for (int64_t i = 0; i < w->npieces; i++) {
        int64_t lo = w->pieces[i][0], hi = lo + w->pieces[i][1];
        if (n && lo <= w->pieces[n - 1][0] + w->pieces[n - 1][1]) {
            int64_t end = w->pieces[n - 1][0] + w->pieces[n - 1][1];
            if (hi > end) w->pieces[n - 1][1] = hi - w->pieces[n - 1][0];
        } else {
            w->pieces[n][0] = lo;
            w->pieces[n][1] = hi - lo;
            n++;
        }
    }
    w->npieces = n;
    return n;
}

int agio_cb_window_hold(struct agio_cb_window *w, int64_t from,
                        int (*keep)(void *ctx, int64_t off, const void *data, int64_t len),
                        void *ctx)
{
    int64_t n = coverage(w), k = n;
    while (k > 0 && w->pieces[k - 1][0] + w->pieces[k - 1][1] > from)
        k--; /* extents [k, n) reach past from */
    int rc = 0;
    for (int64_t i = k; i < n && !rc; i++) {
        int64_t lo = w->pieces[i][0] > from ? w->pieces[i][0] : from;
        int64_t hi = w->pieces[i][0] + w->pieces[i][1];
        rc = keep(ctx, lo, agio_cb_window_at(w, lo), hi - lo);
        if (lo > w->pieces[i][0]) { /* split: keep the part below from in the window */
            w->pieces[i][1] = lo - w->pieces[i][0];
            k = i + 1;
        }
    }
    w->npieces = k;
    return rc;
}

static void count_write(const struct agio_cb_io *io, int64_t off, int64_t len)
{
    int64_t u = io->unit;
    if (u <= 0) return;
    if (off % u == 0 && (off + len) % u == 0) {
        agio_stats_add(io->stats, AGIO_ST_cb_aligned_writes, 1);
        if (len == u) agio_stats_add(io->stats, AGIO_ST_cb_stripe_writes, 1);
    }
}

/* 3. One logical write: aligned middle through O_DIRECT when possible. */
static int put(const struct agio_cb_io *io, const char *p, int64_t off, int64_t len)
{
    size_t done;
    int rc = 0;
    count_write(io, off, len);
    int64_t a = (off + AGIO_CB_ALIGN - 1) / AGIO_CB_ALIGN * AGIO_CB_ALIGN;
    int64_t b = (off + len) / AGIO_CB_ALIGN * AGIO_CB_ALIGN;
    if (io->direct && b - a >= DIRECT_MIN) {
        if (a > off) rc = agio_drv_pwrite(io->df, p, (size_t)(a - off), off, &done);
        if (!rc) rc = agio_drv_pwrite(io->direct, p + (a - off), (size_t)(b - a), a, &done);
        if (!rc) agio_stats_add(io->stats, AGIO_ST_cb_direct_writes, 1);
        if (!rc && off + len > b)
            rc = agio_drv_pwrite(io->df, p + (b - off), (size_t)(off + len - b), b, &done);
        return rc;
    }
    return agio_drv_pwrite(io->df, p, (size_t)len, off, &done);
}

/* 2. Read-modify-write of span [lo, hi) whose covered extents are ext[0..n). */
static int rmw(struct agio_cb_window *w, const struct agio_cb_io *io, char *win, int64_t lo,
               int64_t hi, int64_t (*ext)[2], int64_t n)
{
    int rc = grow_buf(&w->scratch, &w->cap_scratch, hi - lo);
    if (rc) return rc;
    rc = agio_drv_lock(io->df, AGIO_LOCK_WRITE, lo, hi - lo);
    if (rc) return rc;
    size_t got = 0;
    rc = agio_drv_pread(io->df, w->scratch, (size_t)(hi - lo), lo, &got);
    if (!rc) {
        memset(w->scratch + got, 0, (size_t)(hi - lo) - got); /* past end of file */
        int64_t at = lo;
        for (int64_t i = 0; i <= n; i++) { /* copy each hole from scratch */
            int64_t hole_end = i < n ? ext[i][0] : hi;
            if (hole_end > at) memcpy(win + (at - lo), w->scratch + (at - lo), (size_t)(hole_end - at));
            if (i < n) at = ext[i][0] + ext[i][1];
        }
        agio_stats_add(io->stats, AGIO_ST_cb_rmw, 1);
        agio_stats_add(io->stats, AGIO_ST_cb_rmw_bytes, (uint64_t)(hi - lo));
        rc = put(io, win, lo, hi - lo);
    }
    agio_drv_lock(io->df, AGIO_LOCK_UNLOCK, lo, hi - lo);
    return rc;
}

/* Extents [i0, i1) lie in range r: write them. */
static int write_range(struct agio_cb_window *w, const struct agio_cb_io *io,
                       const struct agio_cb_range *r, int64_t i0, int64_t i1)
{
    int64_t (*e)[2] = w->pieces;
    int64_t lo = e[i0][0], hi = e[i1 - 1][0] + e[i1 - 1][1], n = i1 - i0, covered = 0;
    char *win = w->buf + r->bufpos + (lo - r->lo);
    for (int64_t i = i0; i < i1; i++)
        covered += e[i][1];
    double separate = (double)n * LAT + (double)covered / BW_W;
    double filled = 2 * LAT + (double)(hi - lo) / BW_R + (double)(hi - lo) / BW_W;
    if (n > 1 && io->can_lock && filled < separate) return rmw(w, io, win, lo, hi, e + i0, n);
    if (n > 1) agio_stats_add(io->stats, AGIO_ST_cb_gaps, (uint64_t)(n - 1));
    for (int64_t i = i0; i < i1; i++) {
        int rc = put(io, w->buf + r->bufpos + (e[i][0] - r->lo), e[i][0], e[i][1]);
        if (rc) return rc;
    }
    return 0;
}

/* Walk extents range by range (extents never cross ranges: pieces were cut per range). */
static int each_range(struct agio_cb_window *w, const struct agio_cb_io *io, int is_write);

int agio_cb_window_write(struct agio_cb_window *w, const struct agio_cb_io *io)
{
    return each_range(w, io, 1);
}

static int read_range(struct agio_cb_window *w, const struct agio_cb_io *io,
                      const struct agio_cb_range *r, int64_t i0, int64_t i1)
{
    int64_t (*e)[2] = w->pieces;
    int64_t lo = e[i0][0], hi = e[i1 - 1][0] + e[i1 - 1][1], n = i1 - i0, covered = 0;
    for (int64_t i = i0; i < i1; i++)
        covered += e[i][1];
    double separate = (double)n * LAT + (double)covered / BW_R;
    double span = LAT + (double)(hi - lo) / BW_R;
    int whole = n == 1 || span <= separate;
    for (int64_t i = whole ? 0 : i0; i < (whole ? 1 : i1); i++) {
        int64_t off = whole ? lo : e[i][0], len = whole ? hi - lo : e[i][1];
        char *p = w->buf + r->bufpos + (off - r->lo);
        size_t got = 0;
        int rc = agio_drv_pread(io->df, p, (size_t)len, off, &got);
        if (rc) return rc;
        if ((int64_t)got < len) memset(p + got, 0, (size_t)len - got);
    }
    return 0;
}

static int each_range(struct agio_cb_window *w, const struct agio_cb_io *io, int is_write)
{
    int64_t n = coverage(w), i = 0;
    uint64_t t0 = agio_now_ns();
    int rc = 0;
    while (i < n && !rc) {
        const struct agio_cb_range *r = find_range(w, w->pieces[i][0]);
        if (!r) return AGIO_EINTERN;
        int64_t j = i + 1;
        while (j < n && w->pieces[j][0] < r->hi)
            j++;
        rc = is_write ? write_range(w, io, r, i, j) : read_range(w, io, r, i, j);
        i = j;
    }
    agio_stats_add(io->stats, AGIO_ST_cb_io_ns, agio_now_ns() - t0);
    return rc;
}

int agio_cb_window_read(struct agio_cb_window *w, const struct agio_cb_io *io)
{
    return each_range(w, io, 0);
}

/* ---- worker ---- */

static void *worker_main(void *p)
{
    struct agio_cb_worker *k = p;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        while (!k->busy && !k->stop)
            pthread_cond_wait(&k->cv, &k->mu);
        if (k->stop && !k->busy) break;
        int (*job)(void *) = k->job;
        void *arg = k->arg;
        pthread_mutex_unlock(&k->mu);
        int rc = job(arg);
        pthread_mutex_lock(&k->mu);
        if (rc && !k->err) k->err = rc;
        k->busy = 0;
        pthread_cond_broadcast(&k->cv);
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

int agio_cb_worker_start(struct agio_cb_worker *k)
{
    memset(k, 0, sizeof *k);
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    if (pthread_create(&k->thread, NULL, worker_main, k)) return AGIO_ENOMEM;
    k->started = 1;
    return 0;
}

void agio_cb_worker_submit(struct agio_cb_worker *k, int (*job)(void *), void *arg)
{
    if (!k->started) { /* no thread: run inline */
        int rc = job(arg);
        if (rc && !k->err) k->err = rc;
        return;
    }
    pthread_mutex_lock(&k->mu);
    while (k->busy)
        pthread_cond_wait(&k->cv, &k->mu);
    k->job = job;
    k->arg = arg;
    k->busy = 1;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
}

int agio_cb_worker_wait(struct agio_cb_worker *k)
{
    if (k->started) {
        pthread_mutex_lock(&k->mu);
        while (k->busy)
            pthread_cond_wait(&k->cv, &k->mu);
        pthread_mutex_unlock(&k->mu);
    }
    int rc = k->err;
    k->err = 0;
    return rc;
}

int agio_cb_worker_error(struct agio_cb_worker *k)
{
    if (!k->started) return k->err;
    pthread_mutex_lock(&k->mu);
    int rc = k->err;
    pthread_mutex_unlock(&k->mu);
    return rc;
}

void agio_cb_worker_stop(struct agio_cb_worker *k)
{
    if (!k->started) return;
    agio_cb_worker_wait(k);
    pthread_mutex_lock(&k->mu);
    k->stop = 1;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    pthread_join(k->thread, NULL);
    pthread_mutex_destroy(&k->mu);
    pthread_cond_destroy(&k->cv);
    k->started = 0;
}
