/*
 * collperf.c - agio's MPI-IO benchmark: the Cray paper's IOR cases and ROMIO's coll_perf pattern.
 *
 * Uses only the standard MPI API, so the same binary runs on the host MPI-IO (OMPIO, ROMIO) and
 * under agio (LD_PRELOAD=libagio-<flavor>.so).
 *
 * Cases
 *   ior1, ior2  IOR's strided ("segmented") shared-file pattern: N ranks, S segments; in segment s
 *               rank r owns the block at file offset (s*N + r)*block and moves it in transfers of
 *               xfer bytes. ior1: block = xfer = 1,000,000; ior2: block = xfer = 10,000 (Cray,
 *               "Optimizing MPI-IO for Applications on Cray XT Systems", IOR cases 1 and 2).
 *   array3d     a global nx*ny*nz array of doubles, block-distributed over an MPI_Dims_create
 *               process grid, one subarray view, one write_all/read_all (ROMIO test/coll_perf.c).
 * Styles (ior)
 *   at    one MPI_File_write_at[_all] per transfer at an explicit offset (IOR's default)
 *   view  a file view (hvector of the rank's blocks) and one MPI_File_write[_all] per transfer
 *         (IOR's collective mode with a strided view); xfer may then be a multiple of block.
 *
 * Timing: barrier, then open .. close (including MPI_File_sync with --fsync) on every rank; the
 * reported time is the maximum over ranks; with --reps R the median is reported.
 *
 * Correctness: the file content is a pure function of the file offset (8-byte words, seeded per
 * write repetition), so every rank can generate and check its data without communication. Reads
 * are checked on every rank after the timed region. Written files are checked on rank 0 through
 * mmap, outside the timed region; mmap (rather than pread) keeps the checker's system calls out
 * of strace counts of pread/pwrite. For --op read alone, rank 0 creates the file through mmap.
 *
 * --case and --dir take lists: every case runs in every directory, in one launch.
 * --drop-caches drops the page cache (rank 0, /proc/sys/vm/drop_caches) before each read, except
 * on tmpfs; the result line says "cache":"dropped" or "warm".
 *
 * Output: rank 0 prints one JSON line per (case, op) with the median, to stdout and --out FILE.
 * BENCH_IMPL, BENCH_CONFIG and BENCH_TRACE_DIR (set by run_collperf.sh) label the line.
 * If AGIO_STATS_FILE is set, the agio-stats line appended during the median repetition is
 * embedded as "agio_stats".
 */
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 64

enum bcase { CASE_IOR1, CASE_IOR2, CASE_ARRAY3D };

struct opts {
    enum bcase bcase;
    const char *case_name;
    char cases[256]; /* --case list, comma separated; one run per case */
    int do_write, do_read;
    long long segments, block, xfer, total;
    long long gsize[3];
    int coll;     /* 0 independent, 1 collective */
    int view;     /* 0 "at" style, 1 "view" style */
    char hints[1024];
    int fsync;
    const char *dir;
    char dirs[2048]; /* --dir list, comma separated; every case runs in every directory */
    int reps;
    int verify; /* 0 none, 1 first repetition, 2 every repetition */
    int drop_caches;
    int keep;
    const char *out;
    const char *label;
};

struct ctx {
    struct opts o;
    int rank, nprocs;
    char path[4096];
    MPI_Info info;
    /* ior */
    long long per_rank; /* bytes per rank */
    /* array3d */
    int dims[3], coords[3];
    long long lsize[3], start[3];
    unsigned char *buf;
    size_t buflen;
    uint64_t seed;
    long long calls; /* I/O calls per rank per phase */
};

/* ---- data pattern: file word w (bytes 8w..8w+7, little endian) ------------------------------ */

static inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int g_array; /* array3d: words are doubles (global index + seed * 2^32) */

static inline uint64_t pattern_word(uint64_t w, uint64_t seed)
{
    if (g_array) {
        double d = (double)((seed << 32) + w);
        uint64_t v;
        memcpy(&v, &d, sizeof v);
        return v;
    }
    return mix64(w ^ (seed << 40));
}

static inline unsigned char pattern_byte(uint64_t off, uint64_t seed)
{
    return (unsigned char)(pattern_word(off >> 3, seed) >> (8 * (off & 7)));
}

static inline void store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Fill buf with the file bytes [off, off+len). */
static void fill_range(unsigned char *buf, uint64_t off, size_t len, uint64_t seed)
{
    size_t i = 0;
    for (; i < len && ((off + i) & 7); i++)
        buf[i] = pattern_byte(off + i, seed);
    for (; i + 8 <= len; i += 8)
        store_le64(buf + i, pattern_word((off + i) >> 3, seed));
    for (; i < len; i++)
        buf[i] = pattern_byte(off + i, seed);
}

/* -1 if buf holds the file bytes [off, off+len), else the index of the first difference. */
static long long check_range(const unsigned char *buf, uint64_t off, size_t len, uint64_t seed)
{
    size_t i = 0;
    for (; i < len && ((off + i) & 7); i++)
        if (buf[i] != pattern_byte(off + i, seed)) return (long long)i;
    for (; i + 8 <= len; i += 8)
        if (load_le64(buf + i) != pattern_word((off + i) >> 3, seed)) break;
    for (; i < len; i++)
        if (buf[i] != pattern_byte(off + i, seed)) return (long long)i;
    return -1;
}

/* ---- helpers --------------------------------------------------------------------------------- */

static void die(struct ctx *c, const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "collperf: rank %d: %s failed: %s (%s)\n", c ? c->rank : -1, what, msg,
            c ? c->path : "");
    MPI_Abort(MPI_COMM_WORLD, 3);
}

#define CHECK(c, call)                                                                             \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) die((c), #call, rc_);                                              \
    } while (0)

static void usage(void)
{
    fprintf(stderr,
            "usage: collperf [--case ior1|ior2|array3d[,...]] [--op write|read|both]\n"
            "  [--mode indep|coll]"
            " [--style at|view] [--segments S] [--block B] [--xfer X] [--total BYTES]\n"
            "  [--gsize NX[,NY,NZ]] [--hints k=v,...] [--fsync] [--dir PATH[,PATH]] [--reps R]\n"
            "  [--verify none|once|all] [--drop-caches] [--keep] [--out FILE] [--label NAME]\n"
            "sizes accept k/m/g (x1000) and Ki/Mi/Gi (x1024) suffixes\n");
}

static long long parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    long long m = 1;
    if (!strcmp(end, "k") || !strcmp(end, "K")) m = 1000;
    else if (!strcmp(end, "m") || !strcmp(end, "M")) m = 1000000;
    else if (!strcmp(end, "g") || !strcmp(end, "G")) m = 1000000000;
    else if (!strcmp(end, "Ki")) m = 1ll << 10;
    else if (!strcmp(end, "Mi")) m = 1ll << 20;
    else if (!strcmp(end, "Gi")) m = 1ll << 30;
    else if (*end || end == s) return -1;
    return (long long)(v * (double)m);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->cases, sizeof o->cases, "ior1");
    o->do_write = o->do_read = 1;
    o->view = -1;
    o->total = 280000000; /* ~267 MiB per run, independent of N; ior2 makes total/N/10,000 calls */
    snprintf(o->dirs, sizeof o->dirs, ".");
    o->reps = 1;
    o->verify = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && v && (++i, 1))
        if (ARG("--case")) {
            snprintf(o->cases, sizeof o->cases, "%s", v);
        } else if (ARG("--op")) {
            o->do_write = !strcmp(v, "write") || !strcmp(v, "both");
            o->do_read = !strcmp(v, "read") || !strcmp(v, "both");
            if (!o->do_write && !o->do_read) return -1;
        } else if (ARG("--mode")) {
            if (!strcmp(v, "indep")) o->coll = 0;
            else if (!strcmp(v, "coll")) o->coll = 1;
            else return -1;
        } else if (ARG("--style")) {
            if (!strcmp(v, "at")) o->view = 0;
            else if (!strcmp(v, "view")) o->view = 1;
            else return -1;
        } else if (ARG("--segments")) o->segments = parse_size(v);
        else if (ARG("--block")) o->block = parse_size(v);
        else if (ARG("--xfer")) o->xfer = parse_size(v);
        else if (ARG("--total")) o->total = parse_size(v);
        else if (ARG("--gsize")) {
            int n = sscanf(v, "%lld,%lld,%lld", &o->gsize[0], &o->gsize[1], &o->gsize[2]);
            if (n == 1) o->gsize[1] = o->gsize[2] = o->gsize[0];
            else if (n != 3) return -1;
        } else if (ARG("--hints")) snprintf(o->hints, sizeof o->hints, "%s", v);
        else if (!strcmp(a, "--fsync")) o->fsync = 1;
        else if (ARG("--dir")) snprintf(o->dirs, sizeof o->dirs, "%s", v);
        else if (ARG("--reps")) o->reps = atoi(v);
        else if (ARG("--verify")) {
            o->verify = !strcmp(v, "none") ? 0 : !strcmp(v, "all") ? 2 : 1;
        } else if (!strcmp(a, "--drop-caches")) o->drop_caches = 1;
        else if (!strcmp(a, "--keep")) o->keep = 1;
        else if (ARG("--out")) o->out = v;
        else if (ARG("--label")) o->label = v;
        else return -1;
#undef ARG
    }
    if (o->reps < 1 || o->reps > MAX_REPS || o->total <= 0) return -1;
    return 0;
}

/* The options of one case of the --case list; -1 if the case or its sizes are invalid. */
static int case_opts(struct opts *o, const char *name)
{
    o->case_name = name;
    if (!strcmp(name, "ior1")) o->bcase = CASE_IOR1;
    else if (!strcmp(name, "ior2")) o->bcase = CASE_IOR2;
    else if (!strcmp(name, "array3d")) o->bcase = CASE_ARRAY3D;
    else return -1;
    if (o->view < 0) o->view = o->coll; /* collective default: the strided view */
    if (o->bcase == CASE_ARRAY3D) o->view = 1; /* coll_perf: one call through a subarray view */
    if (o->bcase != CASE_ARRAY3D) {
        long long dflt = o->bcase == CASE_IOR1 ? 1000000 : 10000;
        if (o->block <= 0) o->block = o->xfer > 0 ? o->xfer : dflt;
        if (o->xfer <= 0) o->xfer = o->block < dflt ? o->block : dflt;
        if (o->block % o->xfer && !(o->view && o->xfer % o->block == 0)) return -1;
        if (o->block > INT32_MAX || o->xfer > INT32_MAX) return -1;
    }
    return 0;
}

/* "k=v,k=v" -> MPI_Info. */
static void make_info(struct ctx *c)
{
    CHECK(c, MPI_Info_create(&c->info));
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", c->o.hints);
    for (char *save = NULL, *kv = strtok_r(tmp, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = 0;
        CHECK(c, MPI_Info_set(c->info, kv, eq + 1));
    }
}

static const char *fs_name(const char *dir)
{
    struct statfs s;
    if (statfs(dir, &s) != 0) return "unknown";
    switch ((unsigned long)s.f_type) {
    case 0xEF53: return "ext4";
    case 0x01021994: return "tmpfs";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x0BD00BD0: return "lustre";
    default: return "other";
    }
}

static const char *mpi_name(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    if (strstr(v, "Open MPI")) return "openmpi";
    if (strstr(v, "MPICH")) return "mpich";
    return "other";
}

/* The agio version string if libagio is loaded in this process, else NULL. */
static const char *agio_loaded(void)
{
    const char *(*fn)(void) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "agio_version");
    memcpy(&fn, &sym, sizeof fn); /* POSIX guarantees the conversion; ISO C does not */
    return fn ? fn() : NULL;
}

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- layout ---------------------------------------------------------------------------------- */

static long long total_bytes(const struct ctx *c)
{
    if (c->o.bcase == CASE_ARRAY3D) return c->o.gsize[0] * c->o.gsize[1] * c->o.gsize[2] * 8;
    return c->o.segments * c->o.block * c->nprocs;
}

static void setup_layout(struct ctx *c)
{
    struct opts *o = &c->o;
    if (o->bcase == CASE_ARRAY3D) {
        if (o->gsize[0] <= 0) {
            long long side = 2;
            while ((side + 2) * (side + 2) * (side + 2) * 8 <= o->total)
                side += 2;
            o->gsize[0] = o->gsize[1] = o->gsize[2] = side;
        }
        MPI_Dims_create(c->nprocs, 3, c->dims);
        int r = c->rank;
        c->coords[0] = r / (c->dims[1] * c->dims[2]);
        c->coords[1] = (r / c->dims[2]) % c->dims[1];
        c->coords[2] = r % c->dims[2];
        long long n = 1;
        for (int d = 0; d < 3; d++) {
            long long q = o->gsize[d] / c->dims[d], rem = o->gsize[d] % c->dims[d];
            c->lsize[d] = q + (c->coords[d] < rem);
            c->start[d] = c->coords[d] * q + (c->coords[d] < rem ? c->coords[d] : rem);
            n *= c->lsize[d];
        }
        if (n > INT32_MAX) die(c, "local array > 2^31 elements", MPI_SUCCESS);
        c->buflen = (size_t)n * 8;
        c->calls = 1;
    } else {
        if (o->segments <= 0) {
            o->segments = o->total / (o->block * c->nprocs);
            if (o->segments < 1) o->segments = 1;
        }
        c->per_rank = o->segments * o->block;
        c->buflen = (size_t)c->per_rank;
        c->calls = c->per_rank / o->xfer;
        if (o->view && o->xfer > o->block && o->segments % (o->xfer / o->block))
            die(c, "--xfer must divide segments*block", MPI_SUCCESS);
    }
    c->buf = malloc(c->buflen ? c->buflen : 1);
    if (!c->buf) die(c, "malloc", MPI_SUCCESS);
}

/* Rank's data as file offsets: calls fn(file_off, buf_off, len) per contiguous piece. */
typedef void (*piece_fn)(struct ctx *c, uint64_t foff, size_t boff, size_t len, void *arg);

static void for_each_piece(struct ctx *c, piece_fn fn, void *arg)
{
    if (c->o.bcase == CASE_ARRAY3D) {
        const long long *g = c->o.gsize;
        size_t boff = 0, row = (size_t)c->lsize[2] * 8;
        for (long long i = 0; i < c->lsize[0]; i++)
            for (long long j = 0; j < c->lsize[1]; j++) {
                uint64_t w = (uint64_t)(((c->start[0] + i) * g[1] + c->start[1] + j) * g[2] +
                                        c->start[2]);
                fn(c, w * 8, boff, row, arg);
                boff += row;
            }
        return;
    }
    for (long long s = 0; s < c->o.segments; s++)
        fn(c, (uint64_t)((s * c->nprocs + c->rank) * c->o.block), (size_t)(s * c->o.block),
           (size_t)c->o.block, arg);
}

static void fill_piece(struct ctx *c, uint64_t foff, size_t boff, size_t len, void *arg)
{
    (void)arg;
    fill_range(c->buf + boff, foff, len, c->seed);
}

static void check_piece(struct ctx *c, uint64_t foff, size_t boff, size_t len, void *arg)
{
    long long *bad = arg;
    if (*bad >= 0) return;
    long long i = check_range(c->buf + boff, foff, len, c->seed);
    if (i >= 0) *bad = (long long)foff + i;
}

/* ---- the timed phases ------------------------------------------------------------------------ */

static void set_view(struct ctx *c, MPI_File fh)
{
    MPI_Datatype ft;
    if (c->o.bcase == CASE_ARRAY3D) {
        int g[3], l[3], s[3];
        for (int d = 0; d < 3; d++) {
            g[d] = (int)c->o.gsize[d];
            l[d] = (int)c->lsize[d];
            s[d] = (int)c->start[d];
        }
        CHECK(c, MPI_Type_create_subarray(3, g, l, s, MPI_ORDER_C, MPI_DOUBLE, &ft));
        CHECK(c, MPI_Type_commit(&ft));
        CHECK(c, MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", c->info));
    } else {
        MPI_Datatype blk;
        CHECK(c, MPI_Type_contiguous((int)c->o.block, MPI_BYTE, &blk));
        CHECK(c, MPI_Type_create_hvector((int)c->o.segments, 1, (MPI_Aint)c->o.block * c->nprocs,
                                         blk, &ft));
        CHECK(c, MPI_Type_commit(&ft));
        CHECK(c, MPI_Type_free(&blk));
        CHECK(c, MPI_File_set_view(fh, (MPI_Offset)c->rank * c->o.block, MPI_BYTE, ft, "native",
                                   c->info));
    }
    CHECK(c, MPI_Type_free(&ft));
}

static void check_count(struct ctx *c, MPI_Status *st, MPI_Datatype t, long long want)
{
    int n = -1;
    MPI_Get_count(st, t, &n);
    if (n != want) {
        fprintf(stderr, "collperf: rank %d: transfer of %lld returned count %d\n", c->rank, want,
                n);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
}

/* One I/O call; is_write selects write or read, c->o.coll/view the function. */
static void io_call(struct ctx *c, MPI_File fh, int is_write, MPI_Offset off, void *p, int n,
                    MPI_Datatype t)
{
    MPI_Status st;
    int rc;
    if (c->o.view) {
        if (is_write)
            rc = c->o.coll ? MPI_File_write_all(fh, p, n, t, &st)
                           : MPI_File_write(fh, p, n, t, &st);
        else
            rc = c->o.coll ? MPI_File_read_all(fh, p, n, t, &st) : MPI_File_read(fh, p, n, t, &st);
    } else {
        if (is_write)
            rc = c->o.coll ? MPI_File_write_at_all(fh, off, p, n, t, &st)
                           : MPI_File_write_at(fh, off, p, n, t, &st);
        else
            rc = c->o.coll ? MPI_File_read_at_all(fh, off, p, n, t, &st)
                           : MPI_File_read_at(fh, off, p, n, t, &st);
    }
    if (rc != MPI_SUCCESS) die(c, is_write ? "write" : "read", rc);
    check_count(c, &st, t, n);
}

/* Open .. close on every rank; returns max over ranks of the elapsed seconds. */
static double timed_phase(struct ctx *c, int is_write)
{
    MPI_File fh;
    int amode = is_write ? (MPI_MODE_CREATE | MPI_MODE_WRONLY) : MPI_MODE_RDONLY;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    CHECK(c, MPI_File_open(MPI_COMM_WORLD, c->path, amode, c->info, &fh));
    if (c->o.bcase == CASE_ARRAY3D) {
        if (!c->o.view) die(c, "array3d needs the view style", MPI_SUCCESS);
        set_view(c, fh);
        io_call(c, fh, is_write, 0, c->buf, (int)(c->buflen / 8), MPI_DOUBLE);
    } else {
        if (c->o.view) set_view(c, fh);
        long long x = c->o.xfer;
        for (long long k = 0; k < c->calls; k++) {
            size_t boff = (size_t)(k * x);
            long long s = k * x / c->o.block, in = k * x % c->o.block;
            MPI_Offset off = (MPI_Offset)((s * c->nprocs + c->rank) * c->o.block + in);
            io_call(c, fh, is_write, off, c->buf + boff, (int)x, MPI_BYTE);
        }
    }
    if (is_write && c->o.fsync) CHECK(c, MPI_File_sync(fh));
    CHECK(c, MPI_File_close(&fh));
    double dt = MPI_Wtime() - t0, mx = 0;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

/* Rank 0 checks the whole file through mmap against the pattern; collective. */
static int verify_file(struct ctx *c)
{
    int ok = 1;
    if (c->rank == 0) {
        long long want = total_bytes(c);
        int fd = open(c->path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || st.st_size != want) {
            fprintf(stderr, "collperf: %s: size %lld, expected %lld\n", c->path,
                    fd < 0 ? -1ll : (long long)st.st_size, want);
            ok = 0;
        } else if (want > 0) {
            void *m = mmap(NULL, (size_t)want, PROT_READ, MAP_SHARED, fd, 0);
            if (m == MAP_FAILED) {
                ok = 0;
            } else {
                madvise(m, (size_t)want, MADV_SEQUENTIAL);
                long long i = check_range(m, 0, (size_t)want, c->seed);
                if (i >= 0) {
                    fprintf(stderr, "collperf: %s: wrong data at offset %lld\n", c->path, i);
                    ok = 0;
                }
                munmap(m, (size_t)want);
            }
        }
        if (fd >= 0) close(fd);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/* Rank 0 writes the expected file through mmap (for --op read without a write phase). */
static void create_file(struct ctx *c)
{
    int ok = 1;
    if (c->rank == 0) {
        long long n = total_bytes(c);
        int fd = open(c->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        void *m = MAP_FAILED;
        if (fd >= 0 && ftruncate(fd, n) == 0)
            m = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            ok = 0;
        } else {
            fill_range(m, 0, (size_t)n, c->seed);
            msync(m, (size_t)n, MS_SYNC);
            munmap(m, (size_t)n);
        }
        if (fd >= 0) close(fd);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) die(c, "creating the input file", MPI_SUCCESS);
}

/* Rank 0: drop the page cache so reads come from the device; 1 if it worked. */
static int drop_caches(struct ctx *c)
{
    int ok = 0;
    if (c->rank == 0) {
        sync();
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
        ok = fd >= 0 && write(fd, "3\n", 2) == 2;
        if (fd >= 0) close(fd);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

/* ---- agio statistics ------------------------------------------------------------------------- */

static long long stats_size(void)
{
    const char *p = getenv("AGIO_STATS_FILE");
    struct stat st;
    return (p && stat(p, &st) == 0) ? (long long)st.st_size : 0;
}

/* The last agio-stats line appended to AGIO_STATS_FILE after byte `from` (malloc'd), or NULL. */
static char *stats_since(long long from)
{
    const char *p = getenv("AGIO_STATS_FILE");
    FILE *f = p ? fopen(p, "r") : NULL;
    if (!f) return NULL;
    char *line = NULL, *last = NULL;
    size_t cap = 0;
    fseeko(f, (off_t)from, SEEK_SET);
    while (getline(&line, &cap, f) > 0) {
        if (!strstr(line, "\"agio-stats\"")) continue;
        free(last);
        last = strdup(line);
        char *nl = strchr(last, '\n');
        if (nl) *nl = 0;
    }
    free(line);
    fclose(f);
    return last;
}

/* ---- output ---------------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

struct result {
    const char *op;
    double secs[MAX_REPS];
    char *stats[MAX_REPS];
    int nreps;
    const char *verify; /* "ok", "FAIL", "skipped" */
    const char *cache;  /* reads: "dropped" or "warm" */
    double wall0, wall1; /* epoch seconds around all repetitions (to cut strace -ttt traces) */
};

static void print_one(FILE *f, struct ctx *c, struct result *r)
{
    const struct opts *o = &c->o;
    double sorted[MAX_REPS];
    memcpy(sorted, r->secs, sizeof sorted);
    double med = median(sorted, r->nreps);
    int mi = 0; /* repetition closest to the median, for its statistics */
    for (int i = 0; i < r->nreps; i++) {
        double di = r->secs[i] - med, dm = r->secs[mi] - med;
        if (di * di < dm * dm) mi = i;
    }
    long long bytes = total_bytes(c);
    const char *impl = getenv("BENCH_IMPL");
    const char *agio = agio_loaded();
    const char *io = getenv("OMPI_MCA_io");
    fprintf(f, "{\"bench\":\"collperf\",\"case\":\"%s\",\"op\":\"%s\"", o->case_name, r->op);
    fprintf(f, ",\"mode\":\"%s\",\"style\":\"%s\"",
            o->coll ? "coll" : "indep", o->view ? "view" : "at");
    fprintf(f, ",\"impl\":");
    json_str(f, impl ? impl : (agio ? "agio" : "host"));
    fprintf(f, ",\"label\":");
    json_str(f, o->label ? o->label : (getenv("BENCH_CONFIG") ? getenv("BENCH_CONFIG") : ""));
    fprintf(f, ",\"mpi\":\"%s\",\"io_component\":", mpi_name());
    json_str(f, agio ? "agio" : io ? io : "default");
    fprintf(f, ",\"agio_version\":");
    json_str(f, agio ? agio : "");
    fprintf(f, ",\"hints\":");
    json_str(f, o->hints);
    fprintf(f, ",\"fs\":\"%s\",\"dir\":", fs_name(o->dir));
    json_str(f, o->dir);
    fprintf(f, ",\"fsync\":%s,\"nranks\":%d", o->fsync ? "true" : "false", c->nprocs);
    if (o->bcase == CASE_ARRAY3D)
        fprintf(f, ",\"gsize\":[%lld,%lld,%lld],\"pgrid\":[%d,%d,%d]", o->gsize[0], o->gsize[1],
                o->gsize[2], c->dims[0], c->dims[1], c->dims[2]);
    else
        fprintf(f, ",\"segments\":%lld,\"block\":%lld,\"xfer\":%lld", o->segments, o->block,
                o->xfer);
    fprintf(f, ",\"calls_per_rank\":%lld,\"bytes\":%lld,\"reps\":%d", c->calls, bytes, r->nreps);
    fprintf(f, ",\"seconds\":%.6f,\"mib_s\":%.2f", med,
            med > 0 ? (double)bytes / med / 1048576.0 : 0.0);
    fprintf(f, ",\"rep_seconds\":[");
    for (int i = 0; i < r->nreps; i++)
        fprintf(f, "%s%.6f", i ? "," : "", r->secs[i]);
    fprintf(f, "],\"verify\":\"%s\"", r->verify);
    if (r->cache) fprintf(f, ",\"cache\":\"%s\"", r->cache);
    fprintf(f, ",\"data_file\":");
    json_str(f, c->path);
    fprintf(f, ",\"wall_start\":%.6f,\"wall_end\":%.6f", r->wall0, r->wall1);
    const char *td = getenv("BENCH_TRACE_DIR");
    fprintf(f, ",\"traced\":%s", td && *td ? "true" : "false");
    if (td && *td) {
        fprintf(f, ",\"trace_dir\":");
        json_str(f, td);
    }
    if (r->stats[mi]) fprintf(f, ",\"agio_stats\":%s", r->stats[mi]);
    fprintf(f, "}\n");
}

static void report(struct ctx *c, struct result *r)
{
    if (c->rank != 0) return;
    print_one(stdout, c, r);
    fflush(stdout);
    if (c->o.out) {
        FILE *f = fopen(c->o.out, "a");
        if (f) {
            print_one(f, c, r);
            fclose(f);
        } else {
            fprintf(stderr, "collperf: cannot append to %s: %s\n", c->o.out, strerror(errno));
        }
    }
}

/* ---- main ------------------------------------------------------------------------------------ */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t new_seed(struct ctx *c, int rep)
{
    uint64_t s = 0;
    if (c->rank == 0) s = (mix64((uint64_t)MPI_Wtime() * 1000003u ^ (uint64_t)getpid()) + rep);
    MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return (s & 0xfffff) | 1; /* 20 bits: array3d values stay exact doubles */
}

static void run_reps(struct ctx *c, int is_write, struct result *r)
{
    int bad = 0, dropped = 1;
    r->wall0 = wall_now();
    for (int rep = 0; rep < c->o.reps; rep++) {
        if (is_write) {
            c->seed = new_seed(c, rep);
            for_each_piece(c, fill_piece, NULL);
            if (c->rank == 0) unlink(c->path);
        } else {
            memset(c->buf, 0, c->buflen);
            if (c->o.drop_caches && strcmp(fs_name(c->o.dir), "tmpfs"))
                dropped &= drop_caches(c);
            else
                dropped = 0;
        }
        long long st0 = c->rank == 0 ? stats_size() : 0;
        r->secs[rep] = timed_phase(c, is_write);
        r->stats[rep] = c->rank == 0 ? stats_since(st0) : NULL;
        int check = c->o.verify == 2 || (c->o.verify == 1 && rep == 0);
        if (is_write && check) {
            bad |= !verify_file(c);
        } else if (!is_write && c->o.verify) {
            long long first = -1;
            for_each_piece(c, check_piece, &first);
            if (first >= 0)
                fprintf(stderr, "collperf: rank %d: read wrong data at file offset %lld\n",
                        c->rank, first);
            int lbad = first >= 0, gbad = 0;
            MPI_Allreduce(&lbad, &gbad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            bad |= gbad;
        }
    }
    r->wall1 = wall_now();
    r->nreps = c->o.reps;
    r->verify = bad ? "FAIL" : (c->o.verify ? "ok" : "skipped");
    if (!is_write) r->cache = c->o.drop_caches && dropped ? "dropped" : "warm";
}

/* One case: write and/or read phases, reports, clean-up; 1 if verification failed. */
static int run_case(struct ctx *c)
{
    g_array = c->o.bcase == CASE_ARRAY3D;
    snprintf(c->path, sizeof c->path, "%s/collperf.%s.%d.dat", c->o.dir, c->o.case_name,
             c->nprocs);
    setup_layout(c);
    int failed = 0;
    struct result rw = {.op = "write"}, rr = {.op = "read"};
    if (c->o.do_write) {
        run_reps(c, 1, &rw);
        report(c, &rw);
        failed |= rw.verify[0] == 'F';
    } else {
        c->seed = new_seed(c, 0);
        create_file(c);
    }
    if (c->o.do_read) {
        run_reps(c, 0, &rr);
        report(c, &rr);
        failed |= rr.verify[0] == 'F';
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (c->rank == 0 && !c->o.keep) unlink(c->path);
    for (int i = 0; i < MAX_REPS; i++) {
        free(rw.stats[i]);
        free(rr.stats[i]);
    }
    free(c->buf);
    c->buf = NULL;
    return failed;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct ctx c;
    memset(&c, 0, sizeof c);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs);
    struct opts parsed;
    if (parse_opts(argc, argv, &parsed) != 0) {
        if (c.rank == 0) usage();
        MPI_Finalize();
        return 1;
    }
    c.o = parsed;
    make_info(&c);
    int failed = 0;
    char list[sizeof parsed.cases];
    memcpy(list, parsed.cases, sizeof list);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) { /* validate every case before running any */
        c.o = parsed;
        if (case_opts(&c.o, name) != 0) {
            if (c.rank == 0) {
                fprintf(stderr, "collperf: bad case or sizes for case %s\n", name);
                usage();
            }
            MPI_Finalize();
            return 1;
        }
    }
    char dirs[sizeof parsed.dirs];
    memcpy(dirs, parsed.dirs, sizeof dirs);
    for (char *dsave = NULL, *dir = strtok_r(dirs, ",", &dsave); dir;
         dir = strtok_r(NULL, ",", &dsave)) {
        memcpy(list, parsed.cases, sizeof list);
        for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            c.o = parsed;
            c.o.dir = dir;
            case_opts(&c.o, name);
            failed |= run_case(&c);
        }
    }
    MPI_Info_free(&c.info);
    MPI_Finalize();
    return failed ? 2 : 0;
}
