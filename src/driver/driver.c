/*
 * driver.c - dispatch to the storage drivers, with the generic defaults and the stats boundary.
 *
 * Every system transfer of agio passes through agio_drv_pread/pwrite/preadv/pwritev here:
 *  1. transfers are cut below AGIO_DRV_MAX_XFER (Linux moves at most 0x7ffff000 bytes per call);
 *  2. short transfers are continued and EINTR retried (drivers return AGIO_OK with a short count
 *     and the loop continues; a read that returns 0 bytes is end of file);
 *  3. a driver without vector slots gets a loop over its single-transfer slots;
 *  4. each system call is counted and timed in the file's stats.
 * Invariant: *done is always the number of bytes moved before an error or end of file.
 */
#include "driver.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "agio_err.h"
#include "stats/stats.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

static const struct agio_driver *const drivers[] = {&agio_driver_posix};

const struct agio_driver *agio_drv_find(const char *name)
{
    for (unsigned i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (0 == strcmp(drivers[i]->name, name)) return drivers[i];
    return NULL;
}

const struct agio_driver *agio_drv_select(const char *name, const char **path_out)
{
    /* ROMIO-style prefixes name the driver explicitly ("ufs:/scratch/x"). */
    static const struct {
        const char *prefix;
        const char *driver;
    } prefixes[] = {{"ufs:", "posix"}, {"posix:", "posix"}, {"nfs:", "posix"}};
    for (unsigned i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i].prefix);
        if (0 == strncmp(name, prefixes[i].prefix, n)) {
            *path_out = name + n;
            return agio_drv_find(prefixes[i].driver);
        }
    }
    *path_out = name;
    return &agio_driver_posix;
}

/* AGIO_STATS=2 trace line of one system transfer (Cray XSTATS-like: rank, kind, offset, length). */
static void trace(const struct agio_dfile *f, int is_write, int vec, int64_t off, uint64_t len,
                  uint64_t ns)
{
    if (!f->trace_name) return;
    fprintf(stderr, "agio trace: PE=%d %s%s off=%lld len=%llu t=%.6f %s\n", f->trace_rank,
            is_write ? "pwrite" : "pread", vec ? "v" : "", (long long)off,
            (unsigned long long)len, (double)ns * 1e-9, f->trace_name);
}

static void meta_done(struct agio_dfile *f, uint64_t t0, int rc)
{
    if (!f) return;
    agio_stats_add(f->stats, AGIO_ST_sys_meta_ops, 1);
    agio_stats_add(f->stats, AGIO_ST_sys_meta_ns, agio_now_ns() - t0);
    if (rc) agio_stats_add(f->stats, AGIO_ST_sys_errors, 1);
}

int agio_drv_open(const struct agio_driver *drv, const char *path, int flags, unsigned mode,
                  struct agio_stats *stats, struct agio_dfile **out)
{
    uint64_t t0 = agio_now_ns();
    *out = NULL;
    int rc = drv->open(path, flags, mode, out);
    if (rc == 0) {
        (*out)->drv = drv;
        (*out)->stats = stats;
        meta_done(*out, t0, 0);
    }
    return rc;
}

int agio_drv_close(struct agio_dfile *f)
{
    if (!f) return 0;
    return f->drv->close(f);
}

/* One single-buffer transfer, looped to completion. */
static int xfer(struct agio_dfile *f, int is_write, char *buf, size_t len, int64_t off,
                size_t *done)
{
    *done = 0;
    while (*done < len) {
        size_t want = len - *done, got = 0;
        if (want > AGIO_DRV_MAX_XFER) want = AGIO_DRV_MAX_XFER;
        uint64_t t0 = agio_now_ns();
        int rc = is_write ? f->drv->pwrite(f, buf + *done, want, off + (int64_t)*done, &got)
                          : f->drv->pread(f, buf + *done, want, off + (int64_t)*done, &got);
        agio_stats_sysio(f->stats, is_write, got, agio_now_ns() - t0);
        trace(f, is_write, 0, off + (int64_t)*done, got, agio_now_ns() - t0);
        if (rc) {
            agio_stats_add(f->stats, AGIO_ST_sys_errors, 1);
            return rc;
        }
        *done += got;
        if (got == 0 && !is_write) return 0; /* end of file */
        if (got < want)
            agio_stats_add(f->stats,
                           is_write ? AGIO_ST_sys_write_retries : AGIO_ST_sys_read_retries, 1);
    }
    return 0;
}

int agio_drv_pread(struct agio_dfile *f, void *buf, size_t len, int64_t off, size_t *done)
{
    return xfer(f, 0, buf, len, off, done);
}

int agio_drv_pwrite(struct agio_dfile *f, const void *buf, size_t len, int64_t off, size_t *done)
{
    return xfer(f, 1, (char *)buf, len, off, done);
}

/* Take the next batch of at most IOV_MAX pieces and AGIO_DRV_MAX_XFER bytes from iov[*i]
 * (skipping *skip bytes of the first piece) into batch[]; returns the batch's piece count. */
static int next_batch(const struct iovec *iov, int n, int *i, size_t *skip, struct iovec *batch,
                      size_t *bytes)
{
    int k = 0;
    *bytes = 0;
    while (*i < n && k < IOV_MAX && *bytes < AGIO_DRV_MAX_XFER) {
        size_t avail = iov[*i].iov_len - *skip;
        size_t take = avail;
        if (take > AGIO_DRV_MAX_XFER - *bytes) take = AGIO_DRV_MAX_XFER - *bytes;
        if (take) {
            batch[k].iov_base = (char *)iov[*i].iov_base + *skip;
            batch[k].iov_len = take;
            k++;
            *bytes += take;
        }
        if (take == avail) {
            (*i)++;
            *skip = 0;
        } else {
            *skip += take;
        }
    }
    return k;
}

/* Vector transfer: batches through the driver's vector slot, or single transfers per piece. */
static int xferv(struct agio_dfile *f, int is_write, const struct iovec *iov, int n, int64_t off,
                 size_t *done)
{
    int (*vslot)(struct agio_dfile *, const struct iovec *, int, int64_t, size_t *) =
        is_write ? f->drv->pwritev : f->drv->preadv;
    *done = 0;
    if (!vslot || n == 1) {
        for (int i = 0; i < n; i++) {
            size_t got = 0;
            int rc = xfer(f, is_write, iov[i].iov_base, iov[i].iov_len, off + (int64_t)*done,
                          &got);
            *done += got;
            if (rc || got < iov[i].iov_len) return rc;
        }
        return 0;
    }
    struct iovec batch[IOV_MAX < 1024 ? IOV_MAX : 1024];
    int i = 0;
    size_t skip = 0;
    while (i < n) {
        size_t bytes, got = 0;
        int k = next_batch(iov, n, &i, &skip, batch, &bytes);
        if (k == 0) continue;
        uint64_t t0 = agio_now_ns();
        int rc = vslot(f, batch, k, off + (int64_t)*done, &got);
        agio_stats_sysio(f->stats, is_write, got, agio_now_ns() - t0);
        trace(f, is_write, 1, off + (int64_t)*done, got, agio_now_ns() - t0);
        if (rc) {
            agio_stats_add(f->stats, AGIO_ST_sys_errors, 1);
            return rc;
        }
        *done += got;
        if (got < bytes) {
            /* Short vector transfer: finish this batch piece by piece through xfer. */
            if (got == 0 && !is_write) return 0;
            agio_stats_add(f->stats,
                           is_write ? AGIO_ST_sys_write_retries : AGIO_ST_sys_read_retries, 1);
            size_t rest = got;
            for (int j = 0; j < k; j++) {
                if (rest >= batch[j].iov_len) {
                    rest -= batch[j].iov_len;
                    continue;
                }
                size_t more = 0;
                rc = xfer(f, is_write, (char *)batch[j].iov_base + rest, batch[j].iov_len - rest,
                          off + (int64_t)*done, &more);
                *done += more;
                if (rc || more < batch[j].iov_len - rest) return rc;
                rest = 0;
            }
        }
    }
    return 0;
}

int agio_drv_preadv(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off,
                    size_t *done)
{
    return xferv(f, 0, iov, n, off, done);
}

int agio_drv_pwritev(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off,
                     size_t *done)
{
    return xferv(f, 1, iov, n, off, done);
}

int agio_drv_sync(struct agio_dfile *f)
{
    if (!f->drv->sync) return 0;
    uint64_t t0 = agio_now_ns();
    int rc = f->drv->sync(f);
    agio_stats_add(f->stats, AGIO_ST_sys_syncs, 1);
    agio_stats_add(f->stats, AGIO_ST_sys_sync_ns, agio_now_ns() - t0);
    if (rc) agio_stats_add(f->stats, AGIO_ST_sys_errors, 1);
    return rc;
}

#define META_CALL(f, expr)                                                                         \
    uint64_t t0 = agio_now_ns();                                                                   \
    int rc = (expr);                                                                               \
    meta_done((f), t0, rc)

int agio_drv_get_size(struct agio_dfile *f, int64_t *size)
{
    if (!f->drv->get_size) return AGIO_EUNSUPP;
    META_CALL(f, f->drv->get_size(f, size));
    return rc;
}

int agio_drv_set_size(struct agio_dfile *f, int64_t size)
{
    if (!f->drv->set_size) return AGIO_EUNSUPP;
    META_CALL(f, f->drv->set_size(f, size));
    return rc;
}

int agio_drv_preallocate(struct agio_dfile *f, int64_t size)
{
    int64_t cur = 0;
    int rc0 = agio_drv_get_size(f, &cur);
    if (rc0) return rc0;
    if (size <= cur) return 0; /* preallocate never shrinks */
    if (!f->drv->preallocate) return agio_drv_set_size(f, size);
    META_CALL(f, f->drv->preallocate(f, size));
    return rc;
}

int agio_drv_remove(const struct agio_driver *drv, const char *path)
{
    if (!drv->remove) return AGIO_EUNSUPP;
    return drv->remove(path);
}

int agio_drv_lock(struct agio_dfile *f, enum agio_lock_kind kind, int64_t off, int64_t len)
{
    if (!f->drv->lock) return AGIO_ENOLCK;
    return f->drv->lock(f, kind, off, len);
}

int agio_drv_layout(struct agio_dfile *f, struct agio_layout *out)
{
    memset(out, 0, sizeof *out);
    if (!f->drv->layout) return 0;
    return f->drv->layout(f, out);
}
