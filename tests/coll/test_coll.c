/*
 * test_coll.c - the collective-buffering engine through the standard API, in every mode.
 *
 * 1. modes: for each hint set (cb_align 0/1/2/3, romio_cb_write enable/disable/automatic,
 *    write-behind, node-aware placement with several aggregators per node, tiny rounds), seeded
 *    random interleaved views (including ranks with zero bytes) are written with write_all and
 *    read back with read_all and with independent reads; the file must equal a sequential model
 *    byte for byte (bytes outside every view keep the pre-fill);
 * 2. overlap: ranks write overlapping regions in one write_all; every byte must come from one of
 *    the ranks that wrote it (the standard allows any order, never a mix inside one rank's byte);
 * 3. write-behind visibility: after write_all with write-behind, a rank reads its own bytes
 *    independently with no sync, get_size includes the held bytes, and after sync every rank
 *    sees everything;
 * 4. injected I/O error: the aggregator rank gets RLIMIT_FSIZE below the file's end, so its write
 *    fails (EFBIG, from outside agio); every rank must return MPI_ERR_IO, nobody hangs (the
 *    test runs under a timeout), and the file handle works again once the limit is lifted.
 */
#include <signal.h>
#include <sys/resource.h>

#include "testutil.h"

#define TILE_MAX 64

static unsigned rng(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static unsigned char val(int rank, int64_t off, int pass)
{
    return (unsigned char)(off * 7 + rank * 31 + pass * 13 + 1);
}

/* A tile of `slots` slots of `bs` bytes; rank r owns slots with slot % P == r, except that rank
 * `empty` owns none (zero bytes). The filetype is resized to the tile. */
static MPI_Datatype view_type(int rank, int p, int slots, int bs, int empty, int *nown)
{
    int disp[TILE_MAX], n = 0;
    for (int s = 0; s < slots; s++)
        if (s % p == rank && rank != empty) disp[n++] = s;
    MPI_Datatype t, r;
    if (n == 0) {
        MPI_Type_contiguous(0, MPI_BYTE, &t);
    } else {
        MPI_Type_create_indexed_block(n, 1, disp, MPI_BYTE, &t); /* in units of bytes... */
        MPI_Datatype blk;
        MPI_Type_contiguous(bs, MPI_BYTE, &blk);
        MPI_Type_free(&t);
        MPI_Aint d[TILE_MAX];
        for (int i = 0; i < n; i++)
            d[i] = (MPI_Aint)disp[i] * bs;
        MPI_Type_create_hindexed_block(n, 1, d, blk, &t);
        MPI_Type_free(&blk);
    }
    MPI_Type_create_resized(t, 0, (MPI_Aint)slots * bs, &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    *nown = n;
    return r;
}

static void prefill(const char *path, int64_t size)
{
    if (tu_rank == 0) {
        FILE *fp = fopen(path, "w");
        for (int64_t i = 0; fp && i < size; i++)
            fputc(0xA5, fp);
        if (fp) fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* One mode: several passes of write_all through random views, then checks. */
static void run_mode(const char *hints, unsigned seed)
{
    char path[PATH_MAX], key[64], value[128];
    tu_fresh_path(path, sizeof path, "modes");
    unsigned s = seed;
    int slots = 2 + (int)(rng(&s) % (TILE_MAX - 2)), bs = 1 + (int)(rng(&s) % 5000);
    int tiles = 1 + (int)(rng(&s) % 40), empty = (int)(rng(&s) % (tu_size + 1)) - 1;
    int64_t size = (int64_t)slots * bs * tiles + 777;
    prefill(path, size);
    MPI_Info info;
    MPI_Info_create(&info);
    for (const char *h = hints; *h;) { /* "k=v;k=v" */
        const char *e = strchr(h, ';'), *eq = strchr(h, '=');
        size_t n = e ? (size_t)(e - h) : strlen(h);
        snprintf(key, sizeof key, "%.*s", (int)(eq - h), h);
        snprintf(value, sizeof value, "%.*s", (int)(n - (size_t)(eq - h) - 1), eq + 1);
        MPI_Info_set(info, key, value);
        h += n + (e ? 1 : 0);
    }
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    int nown;
    MPI_Datatype ft = view_type(tu_rank, tu_size, slots, bs, empty, &nown);
    int64_t mine = (int64_t)nown * bs * tiles;
    unsigned char *buf = malloc((size_t)mine + 1), *back = malloc((size_t)mine + 1);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", info));
    /* two passes: the second rewrites the first half, so merged/held data must be current */
    int64_t at = 0;
    for (int pass = 0; pass < 2; pass++) {
        int64_t n = pass ? mine / 2 : mine;
        for (int64_t i = 0; i < n; i++) { /* byte i of my stream lands at this file offset */
            int64_t k = i / bs, t = k / (nown ? nown : 1), j = k % (nown ? nown : 1);
            int slot = 0, c = 0;
            for (int q = 0; q < slots; q++)
                if (q % tu_size == tu_rank && tu_rank != empty && c++ == j) slot = q;
            buf[i] = val(tu_rank, (int64_t)t * slots * bs + (int64_t)slot * bs + i % bs, pass);
        }
        MPI_Status st;
        int chunks = 1 + (int)(rng(&s) % 4); /* several write_all calls in a row */
        int64_t per = n / chunks, done = 0;
        for (int c = 0; c < chunks; c++) {
            int64_t cnt = c == chunks - 1 ? n - done : per;
            CHECK_MPI(MPI_File_write_at_all(fh, done, buf + done, (int)cnt, MPI_BYTE, &st));
            done += cnt;
        }
        at = n;
    }
    (void)at;
    /* independent read of my own bytes (write-behind must flush for me), then read_all */
    MPI_Status st;
    CHECK_MPI(MPI_File_read_at(fh, 0, back, (int)mine, MPI_BYTE, &st));
    int ok = 1;
    for (int64_t i = 0; i < mine; i++)
        ok &= back[i] == (i < mine / 2 ? buf[i] : buf[i]); /* buf holds pass 1 for the first half */
    CHECKF(ok, "mode '%s' seed %u: independent read of own data", hints, seed);
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    memset(back, 0, (size_t)mine + 1);
    CHECK_MPI(MPI_File_read_at_all(fh, 0, back, (int)mine, MPI_BYTE, &st));
    int cnt;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECKF(cnt == mine, "mode '%s': read_all count %d want %lld", hints, cnt, (long long)mine);
    ok = memcmp(back, buf, (size_t)mine) == 0 || mine == 0;
    CHECKF(ok, "mode '%s' seed %u: read_all data", hints, seed);
    MPI_Offset fsize;
    CHECK_MPI(MPI_File_get_size(fh, &fsize));
    CHECKF(fsize == size, "mode '%s': size %lld want %lld", hints, (long long)fsize, (long long)size);
    CHECK_MPI(MPI_File_close(&fh));
    /* the whole file against the model: every byte is the pre-fill or its owner's last value */
    if (tu_rank == 0) {
        FILE *fp = fopen(path, "r");
        int64_t bad = -1;
        for (int64_t off = 0; fp && off < size; off++) {
            int c = fgetc(fp);
            int64_t in = off % ((int64_t)slots * bs), t = off / ((int64_t)slots * bs);
            int slot = (int)(in / bs), owner = slot % tu_size;
            int expect = 0xA5;
            if (off < (int64_t)slots * bs * tiles && owner != empty) {
                int64_t k = 0; /* stream index of this byte for its owner */
                int j = 0;
                for (int q = 0; q < slot; q++)
                    j += q % tu_size == owner;
                int own_n = 0;
                for (int q = 0; q < slots; q++)
                    own_n += q % tu_size == owner;
                k = (t * own_n + j) * bs + in % bs;
                int64_t own_total = (int64_t)own_n * bs * tiles;
                expect = val(owner, off, k < own_total / 2 ? 1 : 0);
            }
            if (c != expect && bad < 0) {
                bad = off;
                if (getenv("AGIO_TEST_ONLY"))
                    fprintf(stderr, "off %lld: got %d want %d (slots %d bs %d tiles %d empty %d "
                            "owner %d)\n", (long long)off, c, expect, slots, bs, tiles, empty,
                            owner);
            }
        }
        if (fp) fclose(fp);
        CHECKF(bad < 0, "mode '%s' seed %u: file byte %lld differs from the model", hints, seed,
               (long long)bad);
    }
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    free(buf);
    free(back);
}

/* 2: every rank writes the same region; each byte must be one writer's value. */
static void overlap(void)
{
    char path[PATH_MAX];
    tu_fresh_path(path, sizeof path, "overlap");
    int n = 100000;
    unsigned char *buf = malloc((size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = val(tu_rank, i, 0);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_File fh;
    MPI_Status st;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    CHECK_MPI(MPI_File_write_at_all(fh, tu_rank * 1000, buf, n, MPI_BYTE, &st));
    CHECK_MPI(MPI_File_close(&fh));
    if (tu_rank == 0) {
        FILE *fp = fopen(path, "r");
        int64_t bad = -1;
        for (int64_t off = 0; fp && off < (int64_t)(tu_size - 1) * 1000 + n; off++) {
            int c = fgetc(fp), any = 0;
            for (int r = 0; r < tu_size; r++)
                if (off >= r * 1000 && off < r * 1000 + n) any |= c == val(r, off - r * 1000, 0);
            if (!any && bad < 0) bad = off;
        }
        if (fp) fclose(fp);
        CHECKF(bad < 0, "overlapping write_all: byte %lld from no writer", (long long)bad);
    }
    MPI_Info_free(&info);
    free(buf);
}

/* 4: aggregator write fails with EFBIG under RLIMIT_FSIZE; all ranks get MPI_ERR_IO. */
static void injected_error(void)
{
    char path[PATH_MAX];
    tu_fresh_path(path, sizeof path, "efbig");
    int n = 1 << 20; /* per rank; the file ends at size * 1 MiB > the 512 KiB limit */
    unsigned char *buf = malloc((size_t)n);
    memset(buf, 0x5a, (size_t)n);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_config_list", "*:*"); /* every rank aggregates: rank 0 surely does */
    MPI_File fh;
    MPI_Status st;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    struct rlimit old, lim;
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 512 * 1024; /* soft limit only: it can be raised again */
    if (tu_rank == 0) setrlimit(RLIMIT_FSIZE, &lim);
    int rc = MPI_File_write_at_all(fh, (MPI_Offset)tu_rank * n, buf, n, MPI_BYTE, &st);
    CHECK_CLASS(rc, MPI_ERR_IO);
    if (tu_rank == 0) setrlimit(RLIMIT_FSIZE, &old);
    CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)tu_rank * n, buf, n, MPI_BYTE, &st));
    MPI_Offset size;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECK(size == (MPI_Offset)tu_size * n);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Info_free(&info);
    free(buf);
}

/* HDF5's chunked datasets: a filetype whose data spans more than its extent (instances would
 * overlap when tiled); the standard only asks a monotone typemap, and only instance 0 is used. */
static void wide_filetype(void)
{
    char path[PATH_MAX];
    tu_fresh_path(path, sizeof path, "wide");
    MPI_Datatype c4, ft;
    MPI_Type_contiguous(4, MPI_INT, &c4);
    MPI_Type_create_resized(c4, 0, 8, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    MPI_Status st;
    int out[4] = {tu_rank, 11, 22, 33}, in[4] = {0};
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                            &fh));
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)tu_rank * 16, MPI_INT, ft, "native",
                                MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write_at_all(fh, 0, out, 4, MPI_INT, &st));
    CHECK_MPI(MPI_File_read_at_all(fh, 0, in, 4, MPI_INT, &st));
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Type_free(&c4);
    MPI_Type_free(&ft);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "test_coll");
    static const char *const modes[] = {
        "romio_cb_write=enable;romio_cb_read=enable;cb_align=0",
        "romio_cb_write=enable;romio_cb_read=enable;cb_align=1;striping_unit=4096",
        "romio_cb_write=enable;romio_cb_read=enable;cb_align=2;striping_unit=8192",
        "romio_cb_write=enable;romio_cb_read=enable;cb_align=3",
        "romio_cb_write=disable;romio_cb_read=disable",
        "romio_cb_write=automatic;romio_cb_read=automatic",
        "romio_cb_write=enable;cb_align=2;striping_unit=4096;agio_cb_write_behind=true",
        "romio_cb_write=enable;agio_node_size=2;cb_config_list=*:2;cb_buffer_size=65536",
        "romio_cb_write=enable;romio_cb_read=enable;cb_buffer_size=65536;striping_unit=65536;"
        "agio_cb_pipeline=false",
    };
    unsigned seed = getenv("AGIO_TEST_SEED") ? (unsigned)atoi(getenv("AGIO_TEST_SEED")) : 7;
    const char *only = getenv("AGIO_TEST_ONLY"); /* debugging: one mode index */
    for (unsigned m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (unsigned k = 0; k < 3 && (!only || (unsigned)atoi(only) == m); k++)
            run_mode(modes[m], seed * 1000 + m * 10 + k);
    overlap();
    wide_filetype();
    injected_error();
    return tu_finish();
}
