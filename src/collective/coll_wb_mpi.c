/*
 * coll_wb.c - write-behind across collective writes (hint agio_cb_write_behind).
 *
 * After a two-phase write with stripe-aligned domains, the aggregator that owns the call's last,
 * partly filled stripe keeps those bytes (the "held" region H) instead of writing them, so that
 * the next write_all - typically continuing where this one ended - writes that stripe whole and
 * aligned. Every rank that contributed bytes to H keeps its own copy of them ("mine").
 *
 * Visibility without communication: any flush is local. A rank flushes by writing its own
 * pieces of H itself (they are the same bytes the aggregator holds); the aggregator then drops
 * its copy. Flush points: before any independent access of the rank (so a process always sees
 * its own writes), and on every rank at sync, close, set_view, set_size, preallocate,
 * set_atomicity, collective reads and finalize. Data of other processes becomes visible at
 * MPI_File_sync, as the standard's nonatomic mode requires.
 * The next collective write merges H only if no rank flushed since (an MPI_MAX in its access
 * exchange); otherwise every rank writes its pieces and the aggregator drops H, so a rank's
 * newer independent write is never overwritten by stale held bytes.
 * Invariant: every byte of H is on disk or in both the aggregator's and its writer's copy.
 */
#include <stdlib.h>
#include <string.h>

#include "agio_err.h"
#include "agio_util.h"
#include "coll_state.h"


int agio_wb_add(struct agio_wb_copy *c, int64_t off, const void *data, int64_t len)
{
    int rc = agio_grow((void **)&c->buf, &c->cap, c->bytes + len, 1);
    if (!rc) rc = agio_grow((void **)&c->runs, &c->cap_runs, c->n + 1, sizeof c->runs[0]);
    if (rc) return rc;
    memcpy(c->buf + c->bytes, data, (size_t)len);
    c->runs[c->n][0] = off;
    c->runs[c->n][1] = len;
    c->n++;
    c->bytes += len;
    return 0;
}

void agio_wb_clear(struct agio_wb_copy *c)
{
    c->n = 0;
    c->bytes = 0;
}

void agio_wb_free(struct agio_wb_copy *c)
{
    free(c->buf);
    free(c->runs);
    memset(c, 0, sizeof *c);
}

/* Write every run of c (in order; later runs win) and clear it. */
static int write_copy(struct agio_file *f, struct agio_wb_copy *c)
{
    const char *p = c->buf;
    int rc = 0;
    for (int64_t i = 0; i < c->n && !rc; i++) {
        size_t done;
        rc = agio_drv_pwrite(f->df, p, (size_t)c->runs[i][1], c->runs[i][0], &done);
        p += c->runs[i][1];
    }
    agio_wb_clear(c);
    return rc;
}

int agio_coll_wb_self_flush(struct agio_file *f)
{
    struct agio_coll_state *c = f->coll;
    if (!c || c->mine.n == 0) return 0;
    c->self_flushed = 1;
    return write_copy(f, &c->mine);
}

int agio_coll_flush(struct agio_file *f)
{
    struct agio_coll_state *c = f->coll;
    if (!c) return 0;
    int rc = agio_coll_wb_self_flush(f);
    agio_wb_clear(&c->held);
    c->self_flushed = 0;
    return rc;
}

int agio_coll_wb_release(struct agio_file *f, int any_self_flushed)
{
    struct agio_coll_state *c = f->coll;
    if (!c) return 0;
    if (any_self_flushed) return agio_coll_flush(f);
    agio_wb_clear(&c->mine); /* the aggregator will write H with the next call */
    return 0;
}

int agio_coll_wb_write_held(struct agio_file *f)
{
    struct agio_coll_state *c = f->coll;
    if (!c || c->held.n == 0) return 0;
    return write_copy(f, &c->held);
}

int agio_coll_wb_pending(const struct agio_file *f)
{
    const struct agio_coll_state *c = f->coll;
    return c && (c->mine.n || c->held.n);
}
