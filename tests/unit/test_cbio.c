/*
 * test_cbio.c - the aggregator window of two-phase I/O (src/collective/cbio.c), no MPI.
 *
 * On a temporary file through the posix driver:
 *  - ranges keep buffer addresses congruent to file offsets modulo 4 KiB;
 *  - a window with holes never changes the bytes in the holes, whether written around (no lock)
 *    or by read-modify-write (many small extents, locks available), including holes past EOF
 *    (the file must not grow beyond the last covered byte);
 *  - overlapping pieces: the later copy wins;
 *  - hold: extents at or past the hold offset are handed out and not written;
 *  - reads fill covered bytes and zero bytes past end of file;
 *  - the worker runs jobs in order and reports the first error.
 * Prints "N passed, M failed".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agio_err.h"
#include "collective/cbio.h"
#include "stats/stats.h"
#include "unit.h"

#define CHECK(c, ...) check(!!(c), __LINE__, __VA_ARGS__)

static char path[4096];

static struct agio_dfile *fresh(int64_t size, unsigned char fill)
{
    unlink(path);
    int fd = open(path, O_CREAT | O_RDWR, 0600);
    unsigned char *b = malloc((size_t)size + 1);
    memset(b, fill, (size_t)size);
    if (size && write(fd, b, (size_t)size) != size) printf("setup write failed\n");
    close(fd);
    free(b);
    struct agio_dfile *df = NULL;
    if (agio_drv_open(&agio_driver_posix, path, AGIO_DRV_RDWR, 0600, NULL, &df)) {
        printf("cannot open %s\n0 passed, 1 failed\n", path);
        exit(1);
    }
    return df;
}

static int64_t file_size(void)
{
    FILE *fp = fopen(path, "r");
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fclose(fp);
    return n;
}

static int byte_at(int64_t off)
{
    FILE *fp = fopen(path, "r");
    fseek(fp, off, SEEK_SET);
    int c = fgetc(fp);
    fclose(fp);
    return c;
}

static unsigned char pat(int64_t off)
{
    return (unsigned char)(off * 7 + 3);
}

/* Put the pattern for [off, off+len) into the window and record the piece. */
static void put(struct agio_cb_window *w, int64_t off, int64_t len)
{
    char *p = agio_cb_window_at(w, off);
    for (int64_t i = 0; i < len; i++)
        p[i] = (char)pat(off + i);
    agio_cb_window_add_piece(w, off, len);
}

static void test_alignment(void)
{
    struct agio_cb_window w;
    agio_cb_window_init(&w);
    agio_cb_window_add_range(&w, 1000, 5000);
    agio_cb_window_add_range(&w, 9000, 20000);
    agio_cb_window_add_range(&w, 123457, 123500);
    int64_t offs[] = {1000, 4999, 9000, 19999, 123457, 123499};
    for (unsigned i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        char *p = agio_cb_window_at(&w, offs[i]);
        CHECK(p && (intptr_t)p % AGIO_CB_ALIGN == offs[i] % AGIO_CB_ALIGN,
              "offset %lld not congruent", (long long)offs[i]);
    }
    CHECK(agio_cb_window_at(&w, 5000) == NULL && agio_cb_window_at(&w, 999) == NULL,
          "offsets outside ranges");
    agio_cb_window_free(&w);
}

/* Holes keep their bytes; can_lock selects read-modify-write or writing around. */
static void test_holes(int can_lock)
{
    struct agio_dfile *df = fresh(50000, 0xEE);
    struct agio_stats st;
    memset(&st, 0, sizeof st);
    struct agio_cb_io io = {df, NULL, 4096, can_lock, &st};
    struct agio_cb_window w;
    agio_cb_window_init(&w);
    agio_cb_window_add_range(&w, 0, 60000); /* past the 50000-byte end of file */
    for (int64_t off = 100; off < 40000; off += 64) /* 8-byte pieces, 56-byte holes */
        put(&w, off, 8);
    put(&w, 55000, 100); /* a piece past end of file, after a hole that crosses EOF */
    int rc = agio_cb_window_write(&w, &io);
    CHECK(rc == 0, "write rc %d", rc);
    int bad = 0;
    for (int64_t off = 0; off < 55100 && !bad; off++) {
        int covered = (off >= 100 && off < 40000 && (off - 100) % 64 < 8) ||
                      (off >= 55000 && off < 55100);
        int want = covered ? pat(off) : off < 50000 ? 0xEE : 0;
        if (byte_at(off) != want) {
            bad = 1;
            CHECK(0, "can_lock %d: byte %lld is %d want %d", can_lock, (long long)off,
                  byte_at(off), want);
        }
    }
    CHECK(!bad, "holes kept (can_lock %d)", can_lock);
    CHECK(file_size() == 55100, "size %lld want 55100", (long long)file_size());
    if (can_lock)
        CHECK(st.v[AGIO_ST_cb_rmw] > 0, "small extents with locks use read-modify-write");
    else
        CHECK(st.v[AGIO_ST_cb_rmw] == 0 && st.v[AGIO_ST_cb_gaps] > 0, "no locks: written around");
    agio_cb_window_free(&w);
    agio_drv_close(df);
}

struct kept {
    int64_t off[16], len[16];
    unsigned char first[16];
    int n;
};

static int keep(void *ctx, int64_t off, const void *data, int64_t len)
{
    struct kept *k = ctx;
    if (k->n < 16) {
        k->off[k->n] = off;
        k->len[k->n] = len;
        k->first[k->n] = *(const unsigned char *)data;
        k->n++;
    }
    return 0;
}

/* Overlapping pieces: the later copy wins. Hold: extents from 7000 on are handed out, not
 * written; an extent straddling 7000 is split there. */
static void test_overlap_and_hold(void)
{
    struct agio_dfile *df = fresh(0, 0);
    struct agio_cb_io io = {df, NULL, 4096, 1, NULL};
    struct agio_cb_window w;
    agio_cb_window_init(&w);
    agio_cb_window_add_range(&w, 0, 10000);
    put(&w, 0, 8000);                        /* [0, 8000) pattern */
    memset(agio_cb_window_at(&w, 1000), 0x42, 1000); /* later copy over [1000, 2000) */
    agio_cb_window_add_piece(&w, 1000, 1000);
    put(&w, 9000, 500);                      /* [9000, 9500), after a hole */
    struct kept k = {{0}, {0}, {0}, 0};
    int rc = agio_cb_window_hold(&w, 7000, keep, &k);
    CHECK(rc == 0 && k.n == 2, "hold: %d extents handed out (want 2)", k.n);
    CHECK(k.n == 2 && k.off[0] == 7000 && k.len[0] == 1000 && k.first[0] == pat(7000),
          "hold splits [0, 8000) at 7000");
    CHECK(k.n == 2 && k.off[1] == 9000 && k.len[1] == 500, "hold takes [9000, 9500)");
    rc = agio_cb_window_write(&w, &io);
    CHECK(rc == 0, "write rc %d", rc);
    CHECK(file_size() == 7000, "held bytes not written: size %lld want 7000",
          (long long)file_size());
    CHECK(byte_at(1500) == 0x42 && byte_at(999) == pat(999) && byte_at(2000) == pat(2000),
          "the later overlapping copy wins");
    agio_cb_window_free(&w);
    /* reads: covered bytes come back, past end of file reads as zeros */
    agio_cb_window_init(&w);
    agio_cb_window_add_range(&w, 6000, 9000);
    memset(agio_cb_window_at(&w, 6000), 0x77, 3000);
    agio_cb_window_add_piece(&w, 6500, 1000);
    agio_cb_window_add_piece(&w, 8000, 500);
    rc = agio_cb_window_read(&w, &io);
    const unsigned char *q = (const unsigned char *)agio_cb_window_at(&w, 6500);
    CHECK(rc == 0 && q[0] == pat(6500) && q[499] == pat(6999) && q[500] == 0,
          "read: data below EOF, zeros past it");
    q = (const unsigned char *)agio_cb_window_at(&w, 8000);
    CHECK(q[0] == 0 && q[499] == 0, "read past end of file gives zeros");
    agio_cb_window_free(&w);
    agio_drv_close(df);
}

static int order[8], norder;

static int job(void *arg)
{
    int v = (int)(intptr_t)arg;
    order[norder++] = v;
    return v == 3 ? AGIO_EIO : 0;
}

static void test_worker(void)
{
    struct agio_cb_worker k;
    CHECK(agio_cb_worker_start(&k) == 0, "worker starts");
    for (int i = 1; i <= 5; i++)
        agio_cb_worker_submit(&k, job, (void *)(intptr_t)i);
    int rc = agio_cb_worker_wait(&k);
    CHECK(norder == 5 && order[0] == 1 && order[4] == 5, "jobs run in order (%d ran)", norder);
    CHECK(rc == AGIO_EIO, "first error reported (%d)", rc);
    CHECK(agio_cb_worker_wait(&k) == 0, "wait clears the error");
    agio_cb_worker_stop(&k);
}

int main(void)
{
    const char *dir = getenv("AGIO_TEST_DIR") ? getenv("AGIO_TEST_DIR") : "/tmp";
    mkdir(dir, 0755); /* ctest names a per-test scratch directory that may not exist yet */
    snprintf(path, sizeof path, "%s/agio-test-cbio-%d.dat", dir, (int)getpid());
    test_alignment();
    test_holes(0);
    test_holes(1);
    test_overlap_and_hold();
    test_worker();
    unlink(path);
    return unit_finish();
}
