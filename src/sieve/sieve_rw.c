/*
 * sieve_rw.c - independent transfer between a memory tiling and a file view (no sieving yet).
 *
 * Algorithm: walk the file-side runs and the memory-side runs in lock step (both iterators merge
 * adjacent runs, so a contiguous side yields one run). Each contiguous file run becomes one vector
 * system call whose iovec entries point straight into the user's memory pieces: no staging copy,
 * one system call per file run (cut at IOV_MAX pieces). Reads stop at the first short transfer
 * (end of file) and report the bytes read in stream order.
 * Invariant: no byte outside the file runs of the view is ever written.
 */
#include "sieve.h"

#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#include "agio_err.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif
#define BATCH (IOV_MAX < 1024 ? IOV_MAX : 1024)

struct walker {
    struct agio_dt_iter fi, mi;
    int64_t m_off, m_len; /* unconsumed part of the current memory run */
};

int64_t agio_sieve_byte_offset(const agio_dt *ftype, int64_t disp, int64_t skip)
{
    struct agio_dt_iter it;
    int64_t off, len;
    agio_dt_iter_init(&it, ftype, disp, skip);
    if (!agio_dt_iter_next(&it, INT64_MAX, &off, &len)) return disp;
    return off;
}

int64_t agio_sieve_stream_pos(const agio_dt *ftype, int64_t disp, int64_t x, int64_t p_lo,
                              int64_t p_hi)
{
    while (p_lo < p_hi) {
        int64_t mid = p_lo + (p_hi - p_lo) / 2;
        if (agio_sieve_byte_offset(ftype, disp, mid) >= x)
            p_hi = mid;
        else
            p_lo = mid + 1;
    }
    return p_lo;
}

void agio_sieve_runs(const agio_dt *ftype, int64_t disp, int64_t p0, int64_t p1,
                     void (*fn)(void *ctx, int64_t off, int64_t len), void *ctx)
{
    struct agio_dt_iter it;
    int64_t off, len;
    if (p1 <= p0) return;
    agio_dt_iter_init(&it, ftype, disp, p0);
    while (p0 < p1 && agio_dt_iter_next(&it, p1 - p0, &off, &len)) {
        fn(ctx, off, len);
        p0 += len;
    }
}

void agio_sieve_copy(const agio_dt *mtype, void *buf, int64_t m0, int64_t len, char *contig,
                     int to_contig)
{
    struct agio_dt_iter it;
    int64_t off, n;
    if (len <= 0) return;
    agio_dt_iter_init(&it, mtype, (int64_t)(intptr_t)buf, m0);
    while (len > 0 && agio_dt_iter_next(&it, len, &off, &n)) {
        if (to_contig)
            memcpy(contig, (void *)(intptr_t)off, (size_t)n);
        else
            memcpy((void *)(intptr_t)off, contig, (size_t)n);
        contig += n;
        len -= n;
    }
}

/* Fill iov with memory pieces covering the next `want` bytes of the memory stream. Returns the
 * number of entries; *got = bytes covered (< want only when BATCH entries were used). */
static int take_mem(struct walker *w, int64_t want, struct iovec *iov, int64_t *got)
{
    int k = 0;
    *got = 0;
    while (*got < want && k < BATCH) {
        if (w->m_len == 0) agio_dt_iter_next(&w->mi, INT64_MAX, &w->m_off, &w->m_len);
        int64_t t = want - *got;
        if (t > w->m_len) t = w->m_len;
        iov[k].iov_base = (void *)(intptr_t)w->m_off;
        iov[k].iov_len = (size_t)t;
        k++;
        w->m_off += t;
        w->m_len -= t;
        *got += t;
    }
    return k;
}

static int transfer(struct agio_dfile *f, const struct agio_access *a, int is_write,
                    int64_t *done)
{
    struct walker w = {.m_len = 0};
    struct iovec iov[BATCH];
    *done = 0;
    if (a->nbytes <= 0) return 0;
    agio_dt_iter_init(&w.fi, a->ftype, a->disp, a->skip);
    agio_dt_iter_init(&w.mi, a->mtype, (int64_t)(intptr_t)a->buf, 0);
    while (*done < a->nbytes) {
        int64_t f_off, f_len;
        if (!agio_dt_iter_next(&w.fi, a->nbytes - *done, &f_off, &f_len)) return AGIO_EINTERN;
        while (f_len > 0) {
            int64_t got;
            int n = take_mem(&w, f_len, iov, &got);
            size_t moved = 0;
            int rc = is_write ? agio_drv_pwritev(f, iov, n, f_off, &moved)
                              : agio_drv_preadv(f, iov, n, f_off, &moved);
            *done += (int64_t)moved;
            if (rc) return rc;
            if ((int64_t)moved < got) return is_write ? AGIO_EIO : 0; /* reads: end of file */
            f_off += got;
            f_len -= got;
        }
    }
    return 0;
}

int agio_sieve_write(struct agio_dfile *f, const struct agio_access *a, int64_t *done)
{
    return transfer(f, a, 1, done);
}

int agio_sieve_read(struct agio_dfile *f, const struct agio_access *a, int64_t *done)
{
    return transfer(f, a, 0, done);
}
