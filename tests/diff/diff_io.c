/*
 * diff_io.c - differential test of an MPI-IO implementation against a sequential model of the
 * MPI standard (MPI 3.1 chapter 13: views, data access with explicit offsets, individual file
 * pointers, collective access).
 *
 * usage: diff_io SEED PATH write|verify|all
 *
 * Every rank builds the SAME pseudo-random plan from SEED and the number of ranks: 10-30
 * operations, each a view (displacement, etype, one filetype per rank built from nested
 * datatype constructors) followed by 1-3 accesses (memory datatype, count, access function).
 * The filetypes of the ranks select disjoint bytes of a common tile (slot, scatter, darray and
 * subarray partitions, optionally wrapped once or twice more), so the expected file is a
 * function of the plan alone. Each datatype also carries a model (typemap as (offset, length)
 * runs, lb/ub with sticky markers, size); the model of every datatype a rank creates is checked
 * against the host MPI's datatype engine (extent, true extent, size, MPI_Pack) before use, so a
 * mismatch reported later is an I/O mismatch, not a model bug (a model bug exits with code 3).
 *
 * write:  rank 0 pre-fills PATH with 0xA5 through POSIX; all ranks run the plan through MPI-IO
 *         (sync-barrier-sync between operations, MPI 3.1 13.6.1, because operations overlap);
 *         after close rank 0 compares the file with the model byte for byte.
 * verify: reopen, set the same views, read with other random memory types through read_at,
 *         read, read_at_all and read_all; check data, untouched memory gaps, file pointers; then
 *         rank 0 reads the whole file through MPI-IO and compares it with the model.
 * all:    write then verify in one run.
 * Every status is checked with MPI_Get_count and MPI_Get_elements(_x).
 *
 * Environment: AGIO_DIFF_INFO="k=v,k=v" hints for open and set_view; AGIO_DIFF_NOPS=N keeps
 * only the first N operations and AGIO_DIFF_FIRST=M leaves out the first M (to shrink a failing
 * case; the plan and the operation numbers stay the same); AGIO_DIFF_VERBOSE=1 prints the plan;
 * AGIO_DIFF_TRACE=1 prints each access before it runs; AGIO_DIFF_PROFILE=romio keeps to datatypes
 * that ROMIO handles correctly (see g_romio); AGIO_DIFF_NOMEM/NOFILE="darray,subarray,..." leave
 * constructors out of memory/file types; AGIO_EXPECT=1 (0) fails unless libagio is (is not) mapped
 * into the process. Exit codes: 0 pass, 1 mismatch or MPI error, 2 usage, 3 plan/model self-check
 * failure.
 */
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXR 64        /* max ranks */
#define MAXACC 3       /* accesses per operation */
#define RUN_LIMIT 4096 /* max runs in any datatype model */
#define EXT_LIMIT (1 << 20)
#define MEM_LIMIT (8 << 20)
#define GUARD 64
#define SENT 0x5A /* memory sentinel for reads */
#define GAP 0xEE  /* memory gap filler for writes */
#define PREFILL 0xA5

typedef struct {
    int64_t off, len;
} run_t;

/* ---- random numbers (splitmix64) ---- */
typedef struct {
    uint64_t s;
} rng_t;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t rnext(rng_t *g)
{
    return mix64(g->s += 0x9e3779b97f4a7c15ULL);
}
static int64_t rint_(rng_t *g, int64_t lo, int64_t hi) /* inclusive */
{
    if (hi <= lo) return lo;
    return lo + (int64_t)(rnext(g) % (uint64_t)(hi - lo + 1));
}
static int rpct(rng_t *g, int pct)
{
    return (int)(rnext(g) % 100) < pct;
}
static void shuffle(rng_t *g, int64_t *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rint_(g, 0, i);
        int64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
static int64_t rup(int64_t v, int64_t x)
{
    return (v + x - 1) / x * x;
}
static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Data of access (phase-op-acc, rank), byte q of its stream. */
static uint64_t g_seed;
static uint8_t data_byte(uint64_t key, int64_t q)
{
    uint64_t z = mix64(key ^ mix64((uint64_t)(q >> 3) + 0x1234567ULL));
    return (uint8_t)(z >> ((q & 7) * 8));
}
static uint64_t data_key(int op, int acc, int rank)
{
    return mix64(g_seed * 0x100000001b3ULL + (uint64_t)op * 4096 + (uint64_t)acc * 128 +
                 (uint64_t)rank);
}

/* ---- failure reporting ---- */
static int g_rank, g_nr, g_fail, g_nmsg;
static const char *g_phase = "init";

static void fail(const char *fmt, ...)
{
    g_fail = 1;
    if (g_nmsg++ >= 12) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "diff_io: FAIL seed=%" PRIu64 " nranks=%d rank=%d phase=%s: ", g_seed, g_nr,
            g_rank, g_phase);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void plan_bug(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "diff_io: MODEL/PLAN SELF-CHECK FAILED seed=%" PRIu64 " rank=%d: ", g_seed,
            g_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(3);
}

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s ? s : 1);
    if (!p) {
        fprintf(stderr, "diff_io: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- datatype model ---- */
enum {
    K_ETYPE,
    K_CONTIG,
    K_VECTOR,
    K_HVECTOR,
    K_INDEXED,
    K_HINDEXED,
    K_INDEXED_BLOCK,
    K_HINDEXED_BLOCK,
    K_STRUCT,
    K_SUBARRAY,
    K_DARRAY,
    K_RESIZED,
    K_DUP,
    K_NKINDS
};
static const char *kname[] = {
    "etype",          "contig", "vector",   "hvector", "indexed", "hindexed", "indexed_block",
    "hindexed_block", "struct", "subarray", "darray",  "resized", "dup"};

typedef struct tnode tnode;
struct tnode {
    int kind;
    int n;          /* count, number of blocks, or ndims */
    int bl;         /* blocklength of vector, hvector, *_BLOCK */
    int64_t stride; /* vector: child extents; hvector: bytes */
    int *bls;       /* per-block lengths (indexed, hindexed, struct) */
    int64_t *ds;    /* per-block displacements (child extents for indexed*, bytes for h*) */
    tnode **kids;   /* kids[0] child; struct: n kids */
    int sizes[3], subs[3], starts[3], order; /* subarray; darray: sizes = gsizes */
    int dsize, drank, distribs[3], dargs[3], psizes[3];
    int64_t rlb, rext; /* resized */
    int etype;
    /* model */
    int64_t lb, ub, size, tlb, tub, nbasic, nruns, cap;
    int mlb, mub, bad;
    run_t *runs;
    /* accumulators while building */
    int64_t a_lbm, a_ubm, a_lb, a_ub;
    int a_any;
    MPI_Datatype mpi;
    int made;
};

typedef struct {
    const char *name;
    MPI_Datatype mpi;
    tnode node;
    run_t runs[2];
} etype_t;
enum { E_BYTE, E_INT, E_DOUBLE, E_C3I, E_SID, E_RINT, E_COUNT };
static etype_t g_et[E_COUNT];

static tnode *newnode(int kind)
{
    tnode *t = xcalloc(1, sizeof *t);
    t->kind = kind;
    t->mpi = MPI_DATATYPE_NULL;
    return t;
}
static int64_t ext(const tnode *t)
{
    return t->ub - t->lb;
}

static void add_run(tnode *t, int64_t off, int64_t len)
{
    if (len <= 0 || t->bad) return;
    if (t->nruns > 0 && t->runs[t->nruns - 1].off + t->runs[t->nruns - 1].len == off) {
        t->runs[t->nruns - 1].len += len;
    } else {
        if (t->nruns >= RUN_LIMIT) {
            t->bad = 1;
            return;
        }
        if (t->nruns == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 8;
            t->runs = realloc(t->runs, (size_t)t->cap * sizeof *t->runs);
            if (!t->runs) plan_bug("out of memory");
        }
        t->runs[t->nruns].off = off;
        t->runs[t->nruns].len = len;
        t->nruns++;
    }
    if (t->size == 0 || off < t->tlb) t->tlb = off;
    if (t->size == 0 || off + len > t->tub) t->tub = off + len;
    t->size += len;
}

/* Place child c at byte displacement d (one typemap copy). */
static void place(tnode *t, const tnode *c, int64_t d)
{
    if (c->bad) t->bad = 1;
    for (int64_t i = 0; i < c->nruns && !t->bad; i++)
        add_run(t, d + c->runs[i].off, c->runs[i].len);
    t->nbasic += c->nbasic;
    int64_t lb = d + c->lb, ub = d + c->ub;
    if (!t->a_any) {
        t->a_lb = lb;
        t->a_ub = ub;
    }
    t->a_lb = min64(t->a_lb, lb);
    t->a_ub = max64(t->a_ub, ub);
    if (c->mlb) t->a_lbm = t->mlb ? min64(t->a_lbm, lb) : lb, t->mlb = 1;
    if (c->mub) t->a_ubm = t->mub ? max64(t->a_ubm, ub) : ub, t->mub = 1;
    t->a_any = 1;
}

static void finish_bounds(tnode *t)
{
    t->lb = t->mlb ? t->a_lbm : t->a_lb;
    t->ub = t->mub ? t->a_ubm : t->a_ub;
}

/* Owned indices of one darray dimension (MPI 3.1 4.1.4), ascending. */
static int darray_dim(const tnode *t, int d, int coord, int *idx)
{
    int g = t->sizes[d], p = t->psizes[d], n = 0;
    if (t->distribs[d] == MPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < g; i++)
            idx[n++] = i;
    } else if (t->distribs[d] == MPI_DISTRIBUTE_BLOCK) {
        int b = t->dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : t->dargs[d];
        for (int i = coord * b; i < g && i < (coord + 1) * b; i++)
            idx[n++] = i;
    } else {
        int k = t->dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : t->dargs[d];
        for (int i = 0; i < g; i++)
            if ((i / k) % p == coord) idx[n++] = i;
    }
    return n;
}

/* Place the child at the listed per-dimension indices in memory order (subarray, darray). */
static void place_grid(tnode *t, int nd, int *const idx[3], const int cnt[3])
{
    const tnode *c = t->kids[0];
    int64_t stride[3];
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= t->sizes[d];
    if (t->order == MPI_ORDER_C) {
        stride[nd - 1] = 1;
        for (int d = nd - 2; d >= 0; d--)
            stride[d] = stride[d + 1] * t->sizes[d + 1];
    } else {
        stride[0] = 1;
        for (int d = 1; d < nd; d++)
            stride[d] = stride[d - 1] * t->sizes[d - 1];
    }
    /* dims from slowest to fastest varying */
    int dimord[3];
    for (int d = 0; d < nd; d++)
        dimord[d] = t->order == MPI_ORDER_C ? d : nd - 1 - d;
    int pos[3] = {0, 0, 0};
    for (int d = 0; d < nd; d++)
        if (cnt[d] == 0) goto bounds;
    for (;;) {
        int64_t lin = 0;
        for (int d = 0; d < nd; d++)
            lin += idx[d][pos[d]] * stride[d];
        place(t, c, lin * ext(c));
        int k = nd - 1;
        while (k >= 0) {
            int d = dimord[k];
            if (++pos[d] < cnt[d]) break;
            pos[d] = 0;
            k--;
        }
        if (k < 0) break;
    }
bounds:
    t->mlb = t->mub = 1;
    t->a_lbm = 0;
    t->a_ubm = total * ext(c);
    t->a_any = 1;
}

/* Compute the model of t from its parameters. */
static void model(tnode *t)
{
    tnode *c = t->kids ? t->kids[0] : NULL;
    switch (t->kind) {
    case K_CONTIG:
        for (int i = 0; i < t->n; i++)
            place(t, c, i * ext(c));
        break;
    case K_VECTOR:
    case K_HVECTOR:
        for (int j = 0; j < t->n; j++)
            for (int k = 0; k < t->bl; k++)
                place(t, c,
                      (t->kind == K_VECTOR ? j * t->stride * ext(c) : j * t->stride) + k * ext(c));
        break;
    case K_INDEXED:
    case K_HINDEXED:
    case K_INDEXED_BLOCK:
    case K_HINDEXED_BLOCK:
    case K_STRUCT:
        for (int i = 0; i < t->n; i++) {
            const tnode *ci = t->kind == K_STRUCT ? t->kids[i] : c;
            int bl =
                (t->kind == K_INDEXED_BLOCK || t->kind == K_HINDEXED_BLOCK) ? t->bl : t->bls[i];
            int64_t d = (t->kind == K_INDEXED || t->kind == K_INDEXED_BLOCK) ? t->ds[i] * ext(ci)
                                                                             : t->ds[i];
            for (int k = 0; k < bl; k++)
                place(t, ci, d + k * ext(ci));
        }
        break;
    case K_SUBARRAY: {
        int buf[3][64], *idx[3], cnt[3];
        for (int d = 0; d < t->n; d++) {
            idx[d] = buf[d];
            cnt[d] = t->subs[d];
            for (int i = 0; i < cnt[d]; i++)
                buf[d][i] = t->starts[d] + i;
        }
        place_grid(t, t->n, idx, cnt);
        break;
    }
    case K_DARRAY: {
        int buf[3][64], *idx[3], cnt[3], coords[3], procs = t->dsize, rem = t->drank;
        for (int d = 0; d < t->n; d++) { /* process grid is row-major for both orders */
            procs /= t->psizes[d];
            coords[d] = rem / procs;
            rem %= procs;
        }
        for (int d = 0; d < t->n; d++) {
            idx[d] = buf[d];
            cnt[d] = darray_dim(t, d, coords[d], buf[d]);
        }
        place_grid(t, t->n, idx, cnt);
        break;
    }
    case K_RESIZED:
        place(t, c, 0);
        t->mlb = t->mub = 1;
        t->a_lbm = t->rlb;
        t->a_ubm = t->rlb + t->rext;
        break;
    case K_DUP:
        place(t, c, 0);
        t->mlb = c->mlb;
        t->mub = c->mub;
        t->a_lbm = c->lb;
        t->a_ubm = c->ub;
        break;
    default:
        plan_bug("model: bad kind %d", t->kind);
    }
    finish_bounds(t);
}

static tnode *mk1(int kind, tnode *c)
{
    tnode *t = newnode(kind);
    t->kids = xcalloc(1, sizeof *t->kids);
    t->kids[0] = c;
    return t;
}
static tnode *mk_contig(int n, tnode *c)
{
    tnode *t = mk1(K_CONTIG, c);
    t->n = n;
    model(t);
    return t;
}
static tnode *mk_resized(tnode *c, int64_t lb, int64_t extent)
{
    tnode *t = mk1(K_RESIZED, c);
    t->rlb = lb;
    t->rext = extent;
    model(t);
    return t;
}
static tnode *mk_blocks(int kind, tnode *c, int n, const int *bls, const int64_t *ds)
{
    tnode *t = mk1(kind, c);
    t->n = n;
    t->bls = xcalloc((size_t)n, sizeof(int));
    t->ds = xcalloc((size_t)n, sizeof(int64_t));
    memcpy(t->ds, ds, (size_t)n * sizeof(int64_t));
    if (kind == K_INDEXED_BLOCK || kind == K_HINDEXED_BLOCK)
        t->bl = bls[0];
    else
        memcpy(t->bls, bls, (size_t)n * sizeof(int));
    if (kind == K_STRUCT) {
        t->kids = realloc(t->kids, (size_t)n * sizeof *t->kids);
        for (int i = 0; i < n; i++)
            t->kids[i] = c;
    }
    model(t);
    return t;
}

/* Short description of a type for messages. */
static void describe(const tnode *t, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    if (len + 24 >= cap) {
        if (len + 4 < cap) strcat(buf, "...");
        return;
    }
    char *p = buf + len;
    size_t room = cap - len;
    switch (t->kind) {
    case K_ETYPE:
        snprintf(p, room, "%s", g_et[t->etype].name);
        return;
    case K_CONTIG:
        snprintf(p, room, "contig(%d,", t->n);
        break;
    case K_VECTOR:
    case K_HVECTOR:
        snprintf(p, room, "%s(%d,%d,%" PRId64 ",", kname[t->kind], t->n, t->bl, t->stride);
        break;
    case K_INDEXED:
    case K_HINDEXED:
    case K_INDEXED_BLOCK:
    case K_HINDEXED_BLOCK:
    case K_STRUCT: {
        snprintf(p, room, "%s(%d:", kname[t->kind], t->n);
        for (int i = 0; i < t->n && strlen(buf) + 40 < cap; i++) {
            int bl =
                (t->kind == K_INDEXED_BLOCK || t->kind == K_HINDEXED_BLOCK) ? t->bl : t->bls[i];
            len = strlen(buf);
            snprintf(buf + len, cap - len, "%s%d@%" PRId64, i ? "," : "", bl, t->ds[i]);
        }
        strncat(buf, ";", cap - strlen(buf) - 1);
        if (t->kind == K_STRUCT) {
            for (int i = 0; i < t->n; i++) {
                if (i) strncat(buf, "|", cap - strlen(buf) - 1);
                describe(t->kids[i], buf, cap);
            }
            strncat(buf, ")", cap - strlen(buf) - 1);
            return;
        }
        break;
    }
    case K_SUBARRAY:
        snprintf(p, room, "subarray(%dd %s sz=%d,%d,%d sub=%d,%d,%d st=%d,%d,%d;", t->n,
                 t->order == MPI_ORDER_C ? "C" : "F", t->sizes[0], t->sizes[1], t->sizes[2],
                 t->subs[0], t->subs[1], t->subs[2], t->starts[0], t->starts[1], t->starts[2]);
        break;
    case K_DARRAY:
        snprintf(p, room, "darray(%d/%d %dd %s g=%d,%d,%d dist=%d,%d,%d darg=%d,%d,%d p=%d,%d,%d;",
                 t->drank, t->dsize, t->n, t->order == MPI_ORDER_C ? "C" : "F", t->sizes[0],
                 t->sizes[1], t->sizes[2], t->distribs[0], t->distribs[1], t->distribs[2],
                 t->dargs[0], t->dargs[1], t->dargs[2], t->psizes[0], t->psizes[1], t->psizes[2]);
        break;
    case K_RESIZED:
        snprintf(p, room, "resized(%" PRId64 ",%" PRId64 ",", t->rlb, t->rext);
        break;
    case K_DUP:
        snprintf(p, room, "dup(");
        break;
    }
    describe(t->kids[0], buf, cap);
    strncat(buf, ")", cap - strlen(buf) - 1);
}

/* ---- building MPI datatypes from models ---- */
static MPI_Datatype g_made[4096];
static int g_nmade;

static MPI_Datatype mk_mpi(tnode *t)
{
    if (t->kind == K_ETYPE) return g_et[t->etype].mpi;
    if (t->made) return t->mpi;
    MPI_Datatype old = mk_mpi(t->kids[0]), nt = MPI_DATATYPE_NULL;
    int n = t->n, ibuf[64];
    MPI_Aint abuf[64];
    MPI_Datatype tbuf[64];
    for (int i = 0; t->ds && i < n; i++) {
        ibuf[i] = (int)t->ds[i];
        abuf[i] = (MPI_Aint)t->ds[i];
    }
    switch (t->kind) {
    case K_CONTIG:
        MPI_Type_contiguous(n, old, &nt);
        break;
    case K_VECTOR:
        MPI_Type_vector(n, t->bl, (int)t->stride, old, &nt);
        break;
    case K_HVECTOR:
        MPI_Type_create_hvector(n, t->bl, (MPI_Aint)t->stride, old, &nt);
        break;
    case K_INDEXED:
        MPI_Type_indexed(n, t->bls, ibuf, old, &nt);
        break;
    case K_HINDEXED:
        MPI_Type_create_hindexed(n, t->bls, abuf, old, &nt);
        break;
    case K_INDEXED_BLOCK:
        MPI_Type_create_indexed_block(n, t->bl, ibuf, old, &nt);
        break;
    case K_HINDEXED_BLOCK:
        MPI_Type_create_hindexed_block(n, t->bl, abuf, old, &nt);
        break;
    case K_STRUCT:
        for (int i = 0; i < n; i++)
            tbuf[i] = mk_mpi(t->kids[i]);
        MPI_Type_create_struct(n, t->bls, abuf, tbuf, &nt);
        break;
    case K_SUBARRAY:
        MPI_Type_create_subarray(n, t->sizes, t->subs, t->starts, t->order, old, &nt);
        break;
    case K_DARRAY:
        MPI_Type_create_darray(t->dsize, t->drank, n, t->sizes, t->distribs, t->dargs, t->psizes,
                               t->order, old, &nt);
        break;
    case K_RESIZED:
        MPI_Type_create_resized(old, (MPI_Aint)t->rlb, (MPI_Aint)t->rext, &nt);
        break;
    case K_DUP:
        MPI_Type_dup(old, &nt);
        break;
    }
    if (g_nmade >= (int)(sizeof g_made / sizeof g_made[0])) plan_bug("too many datatypes");
    g_made[g_nmade++] = nt;
    t->mpi = nt;
    t->made = 1;
    return nt;
}

static void unmake(tnode *t)
{
    if (t->kind == K_ETYPE || !t->made) return;
    t->made = 0;
    int nk = t->kind == K_STRUCT ? t->n : 1;
    for (int i = 0; i < nk; i++)
        unmake(t->kids[i]);
}

/* Create and commit the MPI type of t, then check its model against the MPI engine. */
static MPI_Datatype make_top(tnode *t)
{
    g_nmade = 0;
    MPI_Datatype top = mk_mpi(t);
    if (t->kind == K_ETYPE) return top;
    MPI_Type_commit(&top);
    for (int i = 0; i < g_nmade; i++)
        if (g_made[i] != top) MPI_Type_free(&g_made[i]);
    unmake(t);
    t->mpi = top;

    char d[600] = "";
    MPI_Count size, lb, extent, tlb, text;
    MPI_Type_size_x(top, &size);
    MPI_Type_get_extent_x(top, &lb, &extent);
    MPI_Type_get_true_extent_x(top, &tlb, &text);
    if (size != t->size || lb != t->lb || extent != ext(t) || tlb != t->tlb ||
        text != t->tub - t->tlb) {
        describe(t, d, sizeof d);
        plan_bug("type %s: MPI size/lb/extent/true_lb/true_extent %lld/%lld/%lld/%lld/%lld, "
                 "model %lld/%lld/%lld/%lld/%lld",
                 d, (long long)size, (long long)lb, (long long)extent, (long long)tlb,
                 (long long)text, (long long)t->size, (long long)t->lb, (long long)ext(t),
                 (long long)t->tlb, (long long)(t->tub - t->tlb));
    }
    /* typemap order and content: MPI_Pack of random bytes against the model's gather */
    int64_t span = t->tub - t->tlb;
    uint8_t *src = xcalloc((size_t)span, 1), *pk = xcalloc((size_t)t->size, 1);
    for (int64_t i = 0; i < span; i++)
        src[i] = (uint8_t)(mix64((uint64_t)i * 31 + 7) >> 17);
    int pos = 0;
    MPI_Pack(src - t->tlb, 1, top, pk, (int)t->size, &pos, MPI_COMM_SELF);
    int64_t q = 0;
    for (int64_t i = 0; i < t->nruns; i++) {
        if (memcmp(pk + q, src + (t->runs[i].off - t->tlb), (size_t)t->runs[i].len) != 0) {
            describe(t, d, sizeof d);
            plan_bug("type %s: MPI_Pack differs from the model in run %" PRId64 " (off %" PRId64
                     " len %" PRId64 ")",
                     d, i, t->runs[i].off, t->runs[i].len);
        }
        q += t->runs[i].len;
    }
    free(src);
    free(pk);
    return top;
}

static void free_top(tnode *t, MPI_Datatype *dt)
{
    if (t->kind != K_ETYPE) MPI_Type_free(dt);
}

/* ---- etypes ---- */
static void init_etype(int i, const char *name, MPI_Datatype mpi, int64_t extent, int nruns,
                       int64_t o0, int64_t l0, int64_t o1, int64_t l1, int nbasic, int markers)
{
    etype_t *e = &g_et[i];
    e->name = name;
    e->mpi = mpi;
    e->runs[0] = (run_t){o0, l0};
    e->runs[1] = (run_t){o1, l1};
    tnode *t = &e->node;
    t->kind = K_ETYPE;
    t->etype = i;
    t->runs = e->runs;
    t->nruns = nruns;
    t->lb = 0;
    t->ub = extent;
    t->mlb = t->mub = markers;
    t->size = l0 + (nruns > 1 ? l1 : 0);
    t->tlb = o0;
    t->tub = nruns > 1 ? o1 + l1 : o0 + l0;
    t->nbasic = nbasic;
}

static void init_etypes(void)
{
    MPI_Datatype c3, sid, rint;
    MPI_Type_contiguous(3, MPI_INT, &c3);
    MPI_Type_commit(&c3);
    int bl[2] = {1, 1};
    MPI_Aint dd[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, dd, ty, &sid);
    MPI_Type_commit(&sid);
    MPI_Type_create_resized(MPI_INT, 0, 8, &rint);
    MPI_Type_commit(&rint);
    init_etype(E_BYTE, "BYTE", MPI_BYTE, 1, 1, 0, 1, 0, 0, 1, 0);
    init_etype(E_INT, "INT", MPI_INT, 4, 1, 0, 4, 0, 0, 1, 0);
    init_etype(E_DOUBLE, "DOUBLE", MPI_DOUBLE, 8, 1, 0, 8, 0, 0, 1, 0);
    init_etype(E_C3I, "C3I", c3, 12, 1, 0, 12, 0, 0, 3, 0);
    init_etype(E_SID, "S{int,double}", sid, 16, 2, 0, 4, 8, 8, 2, 0);
    init_etype(E_RINT, "R{int,8}", rint, 8, 1, 0, 4, 0, 0, 1, 1);
    for (int i = 0; i < E_COUNT; i++) {
        MPI_Count size, lb, extent;
        MPI_Type_size_x(g_et[i].mpi, &size);
        MPI_Type_get_extent_x(g_et[i].mpi, &lb, &extent);
        if (size != g_et[i].node.size || lb != 0 || extent != g_et[i].node.ub)
            plan_bug("etype %s: MPI size/lb/extent %lld/%lld/%lld", g_et[i].name, (long long)size,
                     (long long)lb, (long long)extent);
    }
}

/* ---- random datatype generation ---- */
static int monotone(const tnode *t)
{
    for (int64_t i = 1; i < t->nruns; i++)
        if (t->runs[i - 1].off + t->runs[i - 1].len > t->runs[i].off) return 0;
    return 1;
}

static int cmp_run(const void *a, const void *b)
{
    const run_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}
static int no_overlap(const tnode *t)
{
    run_t *r = xcalloc((size_t)t->nruns, sizeof *r);
    memcpy(r, t->runs, (size_t)t->nruns * sizeof *r);
    qsort(r, (size_t)t->nruns, sizeof *r, cmp_run);
    int ok = 1;
    for (int64_t i = 1; i < t->nruns; i++)
        if (r[i - 1].off + r[i - 1].len > r[i].off) ok = 0;
    free(r);
    return ok;
}

/* File-mode nodes: typemap monotone and non-overlapping, data inside [lb, ub), lb >= 0, all
 * byte quantities multiples of the etype extent (MPI 3.1 13.3: holes are multiples of it). */
static int g_romio; /* AGIO_DIFF_PROFILE=romio: stay inside what ROMIO handles correctly */
/* MPICH 4.0.2 computes wrong true extents for some darray types (a single-element cyclic one
 * gets the bounding box of its plane) and asserts in MPI_Get_elements on others: on MPICH darray
 * appears only as the partition of the file among the ranks, never nested. */
static int g_mpich;
static unsigned g_nokind[2]; /* constructors left out of [memory, file] types */
/* ROMIO (3.2.1 in Open MPI 4.1.4, and MPICH 4.0.2's) mishandles memory types that are darray,
 * subarray or resized inside, that have a negative lb or true lb (contiguous ones are read from
 * buf instead of buf + lb), that are not monotone, or that have zero-length blocks; and etypes
 * with holes. The romio profile keeps out of all of these. */
static const unsigned g_romio_nomem = 1u << K_DARRAY | 1u << K_SUBARRAY | 1u << K_RESIZED;

static int valid(const tnode *t, int filemode)
{
    if (t->bad || t->size <= 0 || ext(t) <= 0) return 0;
    /* MPICH ignores the sticky lb/ub rule (MPI 3.1 4.1.7) in a struct whose members differ in
     * having explicit markers, Open MPI follows it: keep struct members uniform */
    for (int i = 1; t->kind == K_STRUCT && i < t->n; i++)
        if (t->kids[i]->mlb != t->kids[0]->mlb || t->kids[i]->mub != t->kids[0]->mub) return 0;
    if (filemode)
        return t->lb >= 0 && t->tlb >= t->lb && t->tub <= t->ub && t->ub <= EXT_LIMIT &&
               monotone(t);
    if (g_romio && (t->lb < 0 || t->tlb < 0 || !monotone(t))) return 0;
    return t->tub - t->tlb <= MEM_LIMIT && no_overlap(t);
}

/* A child usable as the element of subarray/darray: lb 0, data inside [0, extent). */
/* MPICH 4.0.2 computes a wrong true_lb for darray/subarray of an element whose true_lb is not 0,
 * so elements start with data at 0. */
static int grid_ok(const tnode *c)
{
    return c->lb == 0 && c->tlb == 0 && c->tub <= c->ub;
}

static void gen_darray_params(rng_t *g, tnode *t, int dsize, int drank)
{
    int nd = (int)rint_(g, 1, 3);
    t->n = nd;
    t->dsize = dsize;
    t->drank = drank;
    t->order = rpct(g, 50) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    for (int d = 0; d < 3; d++)
        t->psizes[d] = 1;
    int rest = dsize;
    for (int f = 2; rest > 1;) { /* give each prime factor to a random dimension */
        if (rest % f == 0) {
            t->psizes[rint_(g, 0, nd - 1)] *= f;
            rest /= f;
        } else {
            f++;
        }
    }
    for (int d = 0; d < nd; d++) {
        int p = t->psizes[d];
        int gs = (int)rint_(g, 1, min64(p * 3 + 2, 24));
        t->sizes[d] = gs;
        int k = (int)rint_(g, 0, p > 1 ? 1 : 2);
        if (g_mpich && k == 1) /* MPICH: loose true extent of cyclic darrays */
            k = 0;
        t->distribs[d] = k == 0   ? MPI_DISTRIBUTE_BLOCK
                         : k == 1 ? MPI_DISTRIBUTE_CYCLIC
                                  : MPI_DISTRIBUTE_NONE;
        t->dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
        if (t->distribs[d] == MPI_DISTRIBUTE_BLOCK && rpct(g, 40))
            t->dargs[d] = (gs + p - 1) / p + (int)rint_(g, 0, 2);
        if (t->distribs[d] == MPI_DISTRIBUTE_CYCLIC && rpct(g, 60))
            t->dargs[d] = (int)rint_(g, 1, 3);
    }
}

static tnode *gen_type(rng_t *g, int depth, tnode *leaf, int fm);

/* Alignment of the etype's basic types. Memory types keep every byte quantity a multiple of it,
 * because MPI pads extents to it ("epsilon", MPI 3.1 4.1.6) and Open MPI does so even for
 * hvector/hindexed; with aligned quantities no padding arises and the model stays exact. */
static int64_t align_of(const tnode *leaf)
{
    static const int64_t al[E_COUNT] = {1, 4, 8, 4, 8, 4};
    return al[leaf->etype];
}

static tnode *gen_once(rng_t *g, int depth, tnode *leaf, int fm)
{
    int64_t X = ext(leaf), A = align_of(leaf);
    tnode *c = gen_type(g, depth - 1, leaf, fm);
    int kind = (int)rint_(g, K_CONTIG, K_NKINDS - 1);
    unsigned no = g_nokind[fm] | (g_romio && !fm ? g_romio_nomem : 0);
    while ((no | (g_mpich ? 1u << K_DARRAY : 0)) & (1u << kind))
        kind = (int)rint_(g, K_CONTIG, K_NKINDS - 1);
    int64_t E = ext(c);
    tnode *t = mk1(kind, c);
    int n;
    switch (kind) {
    case K_CONTIG:
        t->n = (int)rint_(g, 1, 4);
        break;
    case K_VECTOR:
        t->n = (int)rint_(g, 1, 4);
        t->bl = (int)rint_(g, 1, 3);
        t->stride = t->bl + rint_(g, 0, 3);
        if (!fm && rpct(g, 30)) /* Open MPI 4.1.4 gets lb wrong for vector(2,1,-1) */
            t->stride = -(t->stride + 1);
        break;
    case K_HVECTOR:
        t->n = (int)rint_(g, 1, 4);
        t->bl = (int)rint_(g, 1, 3);
        t->stride = t->bl * E + rint_(g, 0, fm ? 3 : 7) * (fm ? X : A);
        if (!fm && rpct(g, 30)) /* never reverse-contiguous, as for the vector */
            t->stride = -(t->stride + A);
        break;
    case K_INDEXED:
    case K_HINDEXED:
    case K_INDEXED_BLOCK:
    case K_HINDEXED_BLOCK:
    case K_STRUCT: {
        int blk = kind == K_INDEXED_BLOCK || kind == K_HINDEXED_BLOCK;
        int bytes = kind == K_HINDEXED || kind == K_HINDEXED_BLOCK || kind == K_STRUCT;
        n = t->n = (int)rint_(g, 1, 4);
        t->bls = xcalloc((size_t)n, sizeof(int));
        t->ds = xcalloc((size_t)n, sizeof(int64_t));
        if (kind == K_STRUCT) {
            t->kids = realloc(t->kids, (size_t)n * sizeof *t->kids);
            for (int i = 0; i < n; i++)
                t->kids[i] = (i == 0 || rpct(g, 50)) ? c : gen_type(g, depth - 1, leaf, fm);
        }
        t->bl = (int)rint_(g, 1, 3);
        int64_t cur = 0; /* file mode: end of the data placed so far */
        for (int i = 0; i < n; i++) {
            tnode *ci = kind == K_STRUCT ? t->kids[i] : c;
            int bl = blk ? t->bl : (int)rint_(g, (!fm && !g_romio && rpct(g, 10)) ? 0 : 1, 3);
            t->bls[i] = bl;
            int64_t d;
            if (kind == K_STRUCT && fm) {
                d = max64(0, rup(cur - ci->tlb, X)) + rint_(g, 0, 2) * X;
                cur = d + (bl - 1) * ext(ci) + ci->tub;
            } else if (bytes) {
                d = cur + (fm ? rint_(g, 0, 3) * X : rint_(g, 0, 5) * A);
                cur = d + bl * ext(ci);
            } else {
                d = cur + rint_(g, 0, 2);
                cur = d + bl;
            }
            t->ds[i] = d;
        }
        if (!fm) { /* memory types: any order, negative displacements */
            int64_t perm[8];
            for (int i = 0; i < n; i++)
                perm[i] = i;
            shuffle(g, perm, n);
            int64_t shift = bytes ? -rint_(g, 0, 16) * A : -rint_(g, 0, 3);
            int64_t d2[8];
            int b2[8];
            for (int i = 0; i < n; i++) {
                d2[i] = t->ds[perm[i]] + shift;
                b2[i] = t->bls[perm[i]];
            }
            for (int i = 0; i < n; i++) {
                t->ds[i] = d2[i];
                t->bls[i] = b2[i];
            }
            if (kind == K_STRUCT)
                for (int i = 0; i < n; i++)
                    t->ds[i] = rint_(g, -8, 16) * A;
        }
        break;
    }
    case K_SUBARRAY:
        if (!grid_ok(c)) t->kids[0] = c = leaf;
        t->n = (int)rint_(g, 1, 3);
        t->order = rpct(g, 50) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        for (int d = 0; d < t->n; d++) {
            t->sizes[d] = (int)rint_(g, 1, 5);
            t->subs[d] = (int)rint_(g, 1, t->sizes[d]);
            t->starts[d] = (int)rint_(g, 0, t->sizes[d] - t->subs[d]);
        }
        break;
    case K_DARRAY: {
        if (!grid_ok(c)) t->kids[0] = c = leaf;
        int ds = (int)rint_(g, 1, 4);
        gen_darray_params(g, t, ds, (int)rint_(g, 0, ds - 1));
        break;
    }
    case K_RESIZED:
        if (fm) {
            t->rlb = max64(0, c->lb - rint_(g, 0, 2) * X);
            t->rext = rpct(g, 20) ? rup(c->tub - t->rlb, X) : c->ub - t->rlb + rint_(g, 0, 3) * X;
        } else {
            t->rlb = c->tlb - rint_(g, 0, 8) * A;
            t->rext = max64(A, c->tub - t->rlb + rint_(g, -1, 3) * A);
        }
        break;
    case K_DUP:
        break;
    }
    model(t);
    return t;
}

static tnode *gen_type(rng_t *g, int depth, tnode *leaf, int fm)
{
    if (depth <= 0) return leaf;
    for (int tries = 0; tries < 20; tries++) {
        tnode *t = gen_once(g, depth, leaf, fm);
        if (valid(t, fm)) return t;
    }
    return fm ? mk_contig((int)rint_(g, 1, 3), leaf) : leaf;
}

/* ---- the plan ---- */
enum { M_SLOT, M_SCATTER, M_DARRAY, M_SUBARRAY };
static const char *mname[] = {"slot", "scatter", "darray", "subarray"};
enum { A_AT, A_PTR, A_AT_ALL, A_ALL };
static const char *wname[] = {"write_at", "write", "write_at_all", "write_all"};
static const char *rname[] = {"read_at", "read", "read_at_all", "read_all"};

typedef struct {
    int kind, skip, whence; /* whence -1: no seek */
    int64_t seekoff, off;   /* off: etype offset where the data starts (after any seek) */
    int64_t count;
    tnode *mem;
} acc_t;

typedef struct {
    int64_t disp, ext, size;
    tnode *ft;
    int64_t *prefix;
} view_t;

typedef struct {
    int mode, et;
    int64_t disp;
    view_t v[MAXR];
    int nacc[2];
    acc_t acc[2][MAXACC][MAXR]; /* [write/read][access][rank] */
    int64_t byteoff_q[2];       /* etype offsets checked with MPI_File_get_byte_offset */
    int off;                    /* left out (AGIO_DIFF_FIRST) */
} op_t;

static int g_nops;
static op_t *g_ops;
static int64_t g_limit, g_prefill, g_fsize;
static uint8_t *g_model;
static int32_t *g_owner; /* 0 prefill/zero, else 1 + ((op * MAXACC + acc) * MAXR + rank) */

static void view_init(view_t *v, int64_t disp, tnode *ft)
{
    v->disp = disp;
    v->ft = ft;
    v->ext = ext(ft);
    v->size = ft->size;
    v->prefix = xcalloc((size_t)ft->nruns + 1, sizeof(int64_t));
    for (int64_t i = 0; i < ft->nruns; i++)
        v->prefix[i + 1] = v->prefix[i] + ft->runs[i].len;
}

/* Data bytes of the view at file positions below lim. */
static int64_t view_max_q(const view_t *v, int64_t lim)
{
    if (lim <= v->disp) return 0;
    int64_t full = (lim - v->disp) / v->ext, rem = (lim - v->disp) % v->ext, q = full * v->size;
    for (int64_t i = 0; i < v->ft->nruns; i++)
        q += max64(0, min64(v->ft->runs[i].len, rem - v->ft->runs[i].off));
    return q;
}

typedef void (*chunk_fn)(void *ctx, int64_t pos, int64_t q, int64_t len);

/* Call fn(ctx, file position, stream index, length) for each contiguous file piece of the data
 * bytes [q0, q0+n) of the view; the stream index counts from 0 at q0. */
static void view_chunks(const view_t *v, int64_t q0, int64_t n, chunk_fn fn, void *ctx)
{
    if (n <= 0) return;
    int64_t k = q0 / v->size, rem = q0 % v->size, q = 0;
    int64_t lo = 0, hi = v->ft->nruns - 1;
    while (lo < hi) { /* last run with prefix <= rem */
        int64_t mid = (lo + hi + 1) / 2;
        if (v->prefix[mid] <= rem)
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t i = lo;
    while (n > 0) {
        int64_t in = rem - v->prefix[i];
        int64_t len = min64(v->ft->runs[i].len - in, n);
        fn(ctx, v->disp + k * v->ext + v->ft->runs[i].off + in, q, len);
        q += len;
        n -= len;
        rem += len;
        if (rem == v->prefix[i + 1]) {
            if (++i == v->ft->nruns) {
                i = 0;
                k++;
                rem = 0;
            }
        }
    }
}

static void pos_fn(void *ctx, int64_t pos, int64_t q, int64_t len)
{
    (void)q;
    (void)len;
    int64_t *p = ctx;
    if (*p < 0) *p = pos;
}
static int64_t view_pos(const view_t *v, int64_t q)
{
    int64_t p = -1;
    view_chunks(v, q, 1, pos_fn, &p);
    return p;
}

/* Filetypes of all ranks for one operation: disjoint bytes inside one common tile. */
static tnode *place_slot(rng_t *g, tnode *b, int64_t d)
{
    int one = 1;
    int k = (int)rint_(g, 0, 3);
    if (k == 3 && d % ext(b) == 0) {
        int64_t di = d / ext(b);
        return mk_blocks(K_INDEXED, b, 1, &one, &di);
    }
    static const int kinds[] = {K_HINDEXED, K_STRUCT, K_HINDEXED_BLOCK, K_HINDEXED};
    return mk_blocks(kinds[k], b, 1, &one, &d);
}

static void gen_slot(rng_t *g, op_t *op, tnode *leaf, tnode **ft)
{
    int64_t X = ext(leaf), S = 0;
    tnode *b[MAXR];
    int same = rpct(g, 40);
    for (int r = 0; r < g_nr; r++) {
        b[r] = (r == 0 || !same) ? gen_type(g, (int)rint_(g, 1, 3), leaf, 1) : b[0];
        S = max64(S, b[r]->tub);
    }
    S = rup(S, X) + rint_(g, 0, 2) * X;
    int nslots = g_nr + (int)rint_(g, 0, 2);
    int64_t perm[MAXR + 2];
    for (int i = 0; i < nslots; i++)
        perm[i] = i;
    shuffle(g, perm, nslots);
    for (int r = 0; r < g_nr; r++)
        ft[r] = mk_resized(place_slot(g, b[r], perm[r] * S), 0, nslots * S);
    (void)op;
}

static void gen_scatter(rng_t *g, tnode *leaf, tnode **ft)
{
    int64_t X = ext(leaf);
    int m = (int)rint_(g, 1, 4), T = (int)rint_(g, g_nr, 48);
    int owner[64];
    int64_t perm[64];
    for (int i = 0; i < T; i++) {
        perm[i] = i;
        owner[i] = rpct(g, 20) ? -1 : (int)rint_(g, 0, g_nr - 1);
    }
    shuffle(g, perm, T);
    for (int r = 0; r < g_nr; r++)
        owner[perm[r]] = r;
    int rep = (int)rint_(g, 0, 4);
    tnode *cm = rep == 4 ? mk_contig(m, leaf) : NULL;
    for (int r = 0; r < g_nr; r++) {
        int bls[64], nb = 0, uniform = 1;
        int64_t ds[64];
        for (int i = 0; i < T; i++) {
            if (owner[i] != r || (i > 0 && owner[i - 1] == r)) continue;
            int len = 0;
            while (i + len < T && owner[i + len] == r)
                len++;
            bls[nb] = len;
            ds[nb++] = i;
            if (bls[nb - 1] != bls[0]) uniform = 0;
        }
        tnode *t;
        int kind;
        for (int i = 0; i < nb; i++) {
            if (rep != 4) bls[i] *= m;
            ds[i] *= rep == 0 || rep == 2 ? m : m * X;
        }
        switch (rep) {
        case 0:
            kind = K_INDEXED;
            break;
        case 1:
            kind = K_HINDEXED;
            break;
        case 2:
            kind = uniform ? K_INDEXED_BLOCK : K_INDEXED;
            break;
        case 3:
            kind = K_STRUCT;
            break;
        default:
            kind = K_HINDEXED;
            break;
        }
        t = mk_blocks(kind, rep == 4 ? cm : leaf, nb, bls, ds);
        ft[r] = mk_resized(t, 0, T * m * X);
    }
}

static tnode *grid_child(rng_t *g, tnode *leaf)
{
    int k = (int)rint_(g, 0, 3);
    if (k == 2) return mk_contig((int)rint_(g, 2, 3), leaf);
    if (k == 3) {
        tnode *t = mk1(K_VECTOR, leaf);
        t->n = 2;
        t->bl = 1;
        t->stride = 2;
        model(t);
        return t;
    }
    return leaf;
}

static int gen_darray(rng_t *g, tnode *leaf, tnode **ft)
{
    tnode *c = grid_child(g, leaf);
    for (int tries = 0; tries < 10; tries++) {
        tnode proto;
        memset(&proto, 0, sizeof proto);
        gen_darray_params(g, &proto, g_nr, 0);
        int ok = 1;
        for (int r = 0; r < g_nr && ok; r++) {
            tnode *t = mk1(K_DARRAY, c);
            memcpy(t->sizes, proto.sizes, sizeof t->sizes);
            memcpy(t->distribs, proto.distribs, sizeof t->distribs);
            memcpy(t->dargs, proto.dargs, sizeof t->dargs);
            memcpy(t->psizes, proto.psizes, sizeof t->psizes);
            t->n = proto.n;
            t->order = proto.order;
            t->dsize = g_nr;
            t->drank = r;
            model(t);
            ft[r] = t;
            ok = t->size > 0 && !t->bad;
        }
        if (ok) return 1;
    }
    return 0;
}

static void gen_subarray(rng_t *g, tnode *leaf, tnode **ft)
{
    tnode *c = grid_child(g, leaf);
    int nd = (int)rint_(g, 1, 3), s = (int)rint_(g, 0, nd - 1);
    int order = rpct(g, 50) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    int sizes[3] = {0}, subs[3] = {0}, starts[3] = {0};
    for (int d = 0; d < nd; d++) {
        sizes[d] = (int)rint_(g, 1, 5);
        subs[d] = (int)rint_(g, 1, sizes[d]);
        starts[d] = (int)rint_(g, 0, sizes[d] - subs[d]);
    }
    sizes[s] = (int)rint_(g, g_nr, min64(3 * g_nr, 60));
    /* cut dimension s into g_nr non-empty ranges, given to the ranks in random order */
    int64_t cuts[3 * MAXR], perm[MAXR];
    int nc = sizes[s] - 1;
    for (int i = 0; i < nc; i++)
        cuts[i] = i + 1;
    shuffle(g, cuts, nc);
    for (int i = 1; i < g_nr - 1; i++) /* insertion sort of the first g_nr-1 cuts */
        for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            int64_t tmp = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = tmp;
        }
    for (int r = 0; r < g_nr; r++)
        perm[r] = r;
    shuffle(g, perm, g_nr);
    for (int r = 0; r < g_nr; r++) {
        int piece = (int)perm[r];
        int lo = piece == 0 ? 0 : (int)cuts[piece - 1];
        int hi = piece == g_nr - 1 ? sizes[s] : (int)cuts[piece];
        tnode *t = mk1(K_SUBARRAY, c);
        t->n = nd;
        t->order = order;
        memcpy(t->sizes, sizes, sizeof sizes);
        memcpy(t->subs, subs, sizeof subs);
        memcpy(t->starts, starts, sizeof starts);
        t->subs[s] = hi - lo;
        t->starts[s] = lo;
        model(t);
        ft[r] = t;
    }
}

/* The same extra constructor around every rank's filetype keeps them disjoint. */
static void wrap(rng_t *g, tnode *leaf, tnode **ft)
{
    int64_t X = ext(leaf);
    int layers = (int)rint_(g, 0, 2);
    for (int l = 0; l < layers; l++) {
        int k = (int)rint_(g, 0, 3);
        int cnt = (int)rint_(g, 2, 3);
        int64_t gap = rint_(g, 0, 4) * X;
        for (int r = 0; r < g_nr; r++) {
            tnode *c = ft[r];
            if (k == 0) {
                ft[r] = mk_contig(cnt, c);
            } else if (k == 1) {
                ft[r] = mk1(K_DUP, c);
                model(ft[r]);
            } else if (k == 2) {
                ft[r] = mk_resized(c, 0, ext(c) + gap + X);
            } else {
                tnode *t = mk1(K_HVECTOR, c);
                t->n = cnt;
                t->bl = 1;
                t->stride = ext(c) + gap;
                model(t);
                ft[r] = t;
            }
        }
    }
}

static int check_disjoint(tnode **ft)
{
    int64_t T = ext(ft[0]);
    if (T > EXT_LIMIT) return 0;
    uint8_t *mark = xcalloc((size_t)T, 1);
    int ok = 1;
    for (int r = 0; r < g_nr && ok; r++) {
        if (!valid(ft[r], 1) || ext(ft[r]) != T || ft[r]->lb != 0 || ft[r]->tub > T) ok = 0;
        for (int64_t i = 0; ok && i < ft[r]->nruns; i++)
            for (int64_t b = 0; b < ft[r]->runs[i].len; b++)
                if (mark[ft[r]->runs[i].off + b]++) ok = 0;
    }
    free(mark);
    return ok;
}

static void gen_views(rng_t *g, op_t *op)
{
    tnode *leaf = &g_et[op->et].node, *ft[MAXR];
    int64_t pm = rint_(g, 0, 99);
    op->mode = pm < 35 ? M_SLOT : pm < 60 ? M_SCATTER : pm < 80 ? M_DARRAY : M_SUBARRAY;
    if (op->mode == M_SLOT)
        gen_slot(g, op, leaf, ft);
    else if (op->mode == M_SCATTER)
        gen_scatter(g, leaf, ft);
    else if (op->mode == M_DARRAY && !gen_darray(g, leaf, ft))
        op->mode = M_SCATTER, gen_scatter(g, leaf, ft);
    else if (op->mode == M_SUBARRAY)
        gen_subarray(g, leaf, ft);
    wrap(g, leaf, ft);
    if (!check_disjoint(ft)) { /* too large or invalid: fall back to a plain scatter */
        op->mode = M_SCATTER;
        gen_scatter(g, leaf, ft);
        if (!check_disjoint(ft)) plan_bug("op views not disjoint");
    }
    for (int r = 0; r < g_nr; r++)
        view_init(&op->v[r], op->disp, ft[r]);
}

/* Memory datatype and count for one access of one rank. */
static void gen_mem(rng_t *g, acc_t *a, tnode *leaf, int64_t qavail)
{
    int depth = rpct(g, 30) ? 0 : (int)rint_(g, 1, 3);
    a->mem = gen_type(g, depth, leaf, 0);
    int64_t ms = a->mem->size;
    int64_t budget = (int64_t)1 << rint_(g, 4, 17);
    int64_t cmax = min64(max64(1, budget / ms), max64(0, qavail) / ms);
    /* count > 1 only when the copies cannot overlap */
    if (a->mem->tub - a->mem->tlb > ext(a->mem)) cmax = min64(cmax, 1);
    if ((cmax - 1) * ext(a->mem) > MEM_LIMIT) cmax = 1 + MEM_LIMIT / ext(a->mem);
    a->count = (cmax <= 0 || rpct(g, 12)) ? 0 : rint_(g, 1, cmax);
}

static int64_t pick_off(rng_t *g, int64_t qe, int64_t tile_e)
{
    return rpct(g, 50) ? rint_(g, 0, min64(qe, 2 * tile_e)) : rint_(g, 0, qe);
}

/* Accesses of one phase (0 write, 1 read) of an operation; lim bounds the file positions. */
static void gen_accesses(rng_t *g, op_t *op, int ph, int64_t lim)
{
    tnode *leaf = &g_et[op->et].node;
    int64_t es = leaf->size;
    int64_t ptr[MAXR] = {0};
    op->nacc[ph] = (int)rint_(g, 1, MAXACC);
    for (int i = 0; i < op->nacc[ph]; i++) {
        int coll = rpct(g, 50), ckind = rpct(g, 50) ? A_AT_ALL : A_ALL;
        for (int r = 0; r < g_nr; r++) {
            acc_t *a = &op->acc[ph][i][r];
            view_t *v = &op->v[r];
            int64_t qmax = view_max_q(v, lim), qe = qmax / es, te = v->size / es;
            a->kind = coll ? ckind : rpct(g, 50) ? A_AT : A_PTR;
            if (g_romio) /* ROMIO misplaces pointer-based accesses after a strided one */
                a->kind = coll ? A_AT_ALL : A_AT;
            a->skip = !coll && rpct(g, 20);
            a->whence = -1;
            if (a->kind == A_AT || a->kind == A_AT_ALL) {
                a->off = pick_off(g, qe, te);
            } else {
                int64_t w = rint_(g, 0, 9);
                if (w < 3) {
                    a->off = ptr[r];
                } else if (w < 7) {
                    a->whence = MPI_SEEK_SET;
                    a->seekoff = a->off = pick_off(g, qe, te);
                } else {
                    a->whence = MPI_SEEK_CUR;
                    a->seekoff = rint_(g, -ptr[r], max64(1, qe / 8));
                    a->off = ptr[r] + a->seekoff;
                }
            }
            gen_mem(g, a, leaf, qmax - a->off * es);
            if (a->skip) {
                a->count = 0;
                continue;
            }
            if (a->kind == A_PTR || a->kind == A_ALL)
                ptr[r] = a->off + a->count * a->mem->size / es;
        }
    }
    op->byteoff_q[0] = rint_(g, 0, 64);
    op->byteoff_q[1] = rint_(g, 0, 4096);
}

typedef struct {
    uint64_t key;
    int32_t owner;
} wctx_t;

static void model_write_fn(void *ctx, int64_t pos, int64_t q, int64_t len)
{
    wctx_t *w = ctx;
    for (int64_t i = 0; i < len; i++) {
        g_model[pos + i] = data_byte(w->key, q + i);
        g_owner[pos + i] = w->owner;
    }
}

static void max_fn(void *ctx, int64_t pos, int64_t q, int64_t len)
{
    (void)q;
    int64_t *m = ctx;
    *m = max64(*m, pos + len);
}

static void make_plan(uint64_t seed)
{
    rng_t g = {mix64(seed ^ 0xD1FF10ULL) + (uint64_t)g_nr};
    g_nops = (int)rint_(&g, 10, 30);
    const char *s = getenv("AGIO_DIFF_NOPS");
    int keep = s ? atoi(s) : g_nops;
    static const int64_t limits[] = {64 << 10, 256 << 10, 1 << 20, 2 << 20};
    g_limit = limits[rint_(&g, 0, 3)];
    g_ops = xcalloc((size_t)g_nops, sizeof *g_ops);
    int64_t wend = 0;
    for (int o = 0; o < g_nops; o++) {
        op_t *op = &g_ops[o];
        op->et = (int)rint_(&g, 0, g_romio ? E_C3I : E_COUNT - 1); /* romio: no etype holes */
        op->disp = rpct(&g, 30) ? rint_(&g, 0, 16) * 512 : rint_(&g, 0, 5000);
        gen_views(&g, op);
        gen_accesses(&g, op, 0, g_limit);
        for (int i = 0; i < op->nacc[0]; i++)
            for (int r = 0; r < g_nr; r++) {
                acc_t *a = &op->acc[0][i][r];
                view_chunks(&op->v[r], a->off * g_et[op->et].node.size, a->count * a->mem->size,
                            max_fn, &wend);
            }
    }
    if (keep < g_nops) g_nops = keep;
    s = getenv("AGIO_DIFF_FIRST");
    for (int o = 0; s && o < atoi(s) && o < g_nops; o++)
        g_ops[o].off = 1;
    /* ROMIO's two-phase read-modify-write writes stale buffer bytes into holes beyond EOF (MPI
     * leaves such bytes undefined), so the romio profile never grows the file */
    g_prefill = rint_(&g, g_romio ? wend : wend / 2, wend + 4096);
    /* the model of the file after the write phase */
    wend = 0;
    for (int o = 0; o < g_nops; o++)
        for (int i = 0; i < g_ops[o].nacc[0] && !g_ops[o].off; i++)
            for (int r = 0; r < g_nr; r++) {
                acc_t *a = &g_ops[o].acc[0][i][r];
                view_chunks(&g_ops[o].v[r], a->off * g_et[g_ops[o].et].node.size,
                            a->count * a->mem->size, max_fn, &wend);
            }
    g_fsize = max64(g_prefill, wend);
    g_model = xcalloc((size_t)g_fsize, 1);
    g_owner = xcalloc((size_t)g_fsize, sizeof *g_owner);
    memset(g_model, PREFILL, (size_t)g_prefill);
    for (int o = 0; o < g_nops; o++)
        for (int i = 0; i < g_ops[o].nacc[0] && !g_ops[o].off; i++)
            for (int r = 0; r < g_nr; r++) {
                acc_t *a = &g_ops[o].acc[0][i][r];
                wctx_t w = {data_key(o, i, r), 1 + (o * MAXACC + i) * MAXR + r};
                view_chunks(&g_ops[o].v[r], a->off * g_et[g_ops[o].et].node.size,
                            a->count * a->mem->size, model_write_fn, &w);
            }
    /* read accesses: same views, positions inside the final file */
    rng_t gr = {mix64(seed ^ 0x5EADULL) + (uint64_t)g_nr};
    for (int o = 0; o < g_nops; o++)
        gen_accesses(&gr, &g_ops[o], 1, g_fsize);
}

static void print_plan(void)
{
    printf("plan: %d ops, limit %" PRId64 ", prefill %" PRId64 ", file size %" PRId64 "\n", g_nops,
           g_limit, g_prefill, g_fsize);
    for (int o = 0; o < g_nops; o++) {
        op_t *op = &g_ops[o];
        printf("op %d: %s disp=%" PRId64 " etype=%s tile=%" PRId64 "\n", o, mname[op->mode],
               op->disp, g_et[op->et].name, op->v[0].ext);
        for (int r = 0; r < g_nr; r++) {
            char d[800] = "";
            describe(op->v[r].ft, d, sizeof d);
            printf("  ft[%d] size=%" PRId64 " %s\n", r, op->v[r].size, d);
        }
        for (int ph = 0; ph < 2; ph++)
            for (int i = 0; i < op->nacc[ph]; i++)
                for (int r = 0; r < g_nr; r++) {
                    acc_t *a = &op->acc[ph][i][r];
                    char d[400] = "";
                    describe(a->mem, d, sizeof d);
                    printf("  %s %d rank %d: %s%s off=%" PRId64 " whence=%d count=%" PRId64
                           " mem=%s\n",
                           ph ? "read" : "write", i, r, (ph ? rname : wname)[a->kind],
                           a->skip ? " (skipped)" : "", a->off, a->whence, a->count, d);
                }
    }
    fflush(stdout);
}

/* ---- execution ---- */
static MPI_Info g_info = MPI_INFO_NULL;

static void check_rc(int rc, const char *what, int o, int i)
{
    if (rc == MPI_SUCCESS) return;
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, s, &len);
    fail("op %d acc %d: %s returned %d (%s)", o, i, what, rc, s);
}

typedef struct {
    uint8_t *alloc, *base; /* base: address of copy 0 */
    int64_t lo, hi;        /* byte range of all copies relative to base */
} membuf_t;

static void mem_alloc(membuf_t *m, const tnode *t, int64_t count, int fill)
{
    int64_t e = ext(t);
    m->lo = count > 0 ? t->tlb + min64(0, (count - 1) * e) : 0;
    m->hi = count > 0 ? t->tub + max64(0, (count - 1) * e) : 0;
    m->alloc = xcalloc((size_t)(m->hi - m->lo + 2 * GUARD), 1);
    memset(m->alloc, fill, (size_t)(m->hi - m->lo + 2 * GUARD));
    m->base = m->alloc + GUARD - m->lo;
}

/* For each data run of the memory: fn(ctx, address, stream index, len). */
typedef void (*mem_fn)(void *ctx, uint8_t *p, int64_t q, int64_t len);
static void mem_runs(const membuf_t *m, const tnode *t, int64_t count, mem_fn fn, void *ctx)
{
    int64_t q = 0;
    for (int64_t c = 0; c < count; c++)
        for (int64_t i = 0; i < t->nruns; i++) {
            fn(ctx, m->base + c * ext(t) + t->runs[i].off, q, t->runs[i].len);
            q += t->runs[i].len;
        }
}

static void fill_fn(void *ctx, uint8_t *p, int64_t q, int64_t len)
{
    uint64_t key = *(uint64_t *)ctx;
    for (int64_t i = 0; i < len; i++)
        p[i] = data_byte(key, q + i);
}

static int g_trace; /* AGIO_DIFF_TRACE=1: print every access before it runs */

static int has_kind(const tnode *t, int kind)
{
    if (t->kind == kind) return 1;
    if (t->kind == K_ETYPE) return 0;
    for (int i = 0; i < (t->kind == K_STRUCT ? t->n : 1); i++)
        if (has_kind(t->kids[i], kind)) return 1;
    return 0;
}

static void trace(const acc_t *a, int o, int i, const char *fn)
{
    if (!g_trace) return;
    char d[600] = "";
    describe(a->mem, d, sizeof d);
    fprintf(stderr,
            "diff_io trace: rank %d %s op %d acc %d %s off=%" PRId64 " count=%" PRId64 " mem=%s\n",
            g_rank, g_phase, o, i, fn, a->off, a->count, d);
}

static void check_status(MPI_Status *st, MPI_Datatype dt, const acc_t *a, int o, int i,
                         const char *fn)
{
    int cnt = -1, el = -1;
    MPI_Count elx = -1;
    MPI_Get_count(st, dt, &cnt);
    int64_t eel = a->count * a->mem->nbasic;
    if (g_mpich && has_kind(a->mem, K_DARRAY)) /* MPICH 4.0.2 asserts in MPI_Get_elements */
        el = (int)eel, elx = eel;
    else {
        MPI_Get_elements(st, dt, &el);
        MPI_Get_elements_x(st, dt, &elx);
    }
    if (cnt != a->count || el != eel || elx != eel)
        fail("op %d acc %d %s: MPI_Get_count=%d (expected %" PRId64 "), MPI_Get_elements=%d, "
             "_x=%lld (expected %" PRId64 ")",
             o, i, fn, cnt, a->count, el, (long long)elx, eel);
}

/* Seek if planned, then check the pointer after the access. */
static void do_seek(MPI_File fh, const acc_t *a, int o, int i)
{
    if (a->whence != -1)
        check_rc(MPI_File_seek(fh, (MPI_Offset)a->seekoff, a->whence), "MPI_File_seek", o, i);
    if (a->kind == A_PTR || a->kind == A_ALL) {
        MPI_Offset p = -1;
        MPI_File_get_position(fh, &p);
        if (p != a->off)
            fail("op %d acc %d: MPI_File_get_position before access = %lld, expected %" PRId64, o,
                 i, (long long)p, a->off);
    }
}

static void check_pos_after(MPI_File fh, const acc_t *a, int o, int i, int64_t es)
{
    if (a->kind != A_PTR && a->kind != A_ALL) return;
    MPI_Offset p = -1;
    MPI_File_get_position(fh, &p);
    int64_t want = a->off + a->count * a->mem->size / es;
    if (p != want)
        fail("op %d acc %d: MPI_File_get_position after access = %lld, expected %" PRId64, o, i,
             (long long)p, want);
}

static void set_view(MPI_File fh, op_t *op, int o)
{
    tnode *ft = op->v[g_rank].ft;
    MPI_Datatype fdt = make_top(ft);
    check_rc(MPI_File_set_view(fh, (MPI_Offset)op->disp, g_et[op->et].mpi, fdt, "native", g_info),
             "MPI_File_set_view", o, -1);
    free_top(ft, &fdt);
    MPI_Offset disp = -1;
    MPI_Datatype et, ftx;
    char rep[MPI_MAX_DATAREP_STRING + 1] = "";
    check_rc(MPI_File_get_view(fh, &disp, &et, &ftx, rep), "MPI_File_get_view", o, -1);
    MPI_Count fsz = -1, flb = -1, fex = -1, esz = -1;
    MPI_Type_size_x(ftx, &fsz);
    MPI_Type_get_extent_x(ftx, &flb, &fex);
    MPI_Type_size_x(et, &esz);
    if (disp != op->disp || strcmp(rep, "native") != 0 || fsz != ft->size || fex != ext(ft) ||
        esz != g_et[op->et].node.size)
        fail("op %d: MPI_File_get_view gives disp %lld datarep '%s' filetype size/extent "
             "%lld/%lld etype size %lld",
             o, (long long)disp, rep, (long long)fsz, (long long)fex, (long long)esz);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(et, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED) MPI_Type_free(&et);
    MPI_Type_get_envelope(ftx, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED) MPI_Type_free(&ftx);
    for (int k = 0; k < 2; k++) {
        int64_t qe = op->byteoff_q[k];
        MPI_Offset b = -1;
        check_rc(MPI_File_get_byte_offset(fh, (MPI_Offset)qe, &b), "MPI_File_get_byte_offset", o,
                 -1);
        int64_t want = view_pos(&op->v[g_rank], qe * g_et[op->et].node.size);
        if (b != want)
            fail("op %d: MPI_File_get_byte_offset(%" PRId64 ") = %lld, expected %" PRId64, o, qe,
                 (long long)b, want);
    }
}

static int64_t g_bytes;

static void write_access(MPI_File fh, op_t *op, int o, int i)
{
    acc_t *a = &op->acc[0][i][g_rank];
    if (a->skip) return;
    int64_t es = g_et[op->et].node.size;
    MPI_Datatype mt = make_top(a->mem);
    membuf_t m;
    mem_alloc(&m, a->mem, a->count, GAP);
    uint64_t key = data_key(o, i, g_rank);
    mem_runs(&m, a->mem, a->count, fill_fn, &key);
    size_t tot = (size_t)(m.hi - m.lo + 2 * GUARD);
    uint8_t *copy = xcalloc(tot, 1);
    memcpy(copy, m.alloc, tot);
    trace(a, o, i, wname[a->kind]);
    do_seek(fh, a, o, i);
    MPI_Status st;
    int rc = MPI_SUCCESS, cnt = (int)a->count;
    switch (a->kind) {
    case A_AT:
        rc = MPI_File_write_at(fh, a->off, m.base, cnt, mt, &st);
        break;
    case A_PTR:
        rc = MPI_File_write(fh, m.base, cnt, mt, &st);
        break;
    case A_AT_ALL:
        rc = MPI_File_write_at_all(fh, a->off, m.base, cnt, mt, &st);
        break;
    case A_ALL:
        rc = MPI_File_write_all(fh, m.base, cnt, mt, &st);
        break;
    }
    check_rc(rc, wname[a->kind], o, i);
    if (rc == MPI_SUCCESS) check_status(&st, mt, a, o, i, wname[a->kind]);
    check_pos_after(fh, a, o, i, es);
    if (memcmp(copy, m.alloc, tot) != 0)
        fail("op %d acc %d %s: the write buffer was modified", o, i, wname[a->kind]);
    g_bytes += a->count * a->mem->size;
    free(copy);
    free(m.alloc);
    free_top(a->mem, &mt);
}

typedef struct {
    const view_t *v;
    uint8_t *exp;
} gather_ctx;
static void gather_fn(void *ctx, int64_t pos, int64_t q, int64_t len)
{
    gather_ctx *c = ctx;
    memcpy(c->exp + q, g_model + pos, (size_t)len);
}
typedef struct {
    const uint8_t *exp;
    int64_t bad_q;
} rcheck_ctx;
static void rcheck_fn(void *ctx, uint8_t *p, int64_t q, int64_t len)
{
    rcheck_ctx *c = ctx;
    for (int64_t k = 0; k < len; k++) {
        if (c->bad_q < 0 && p[k] != c->exp[q + k]) c->bad_q = q + k;
        p[k] = SENT; /* afterwards the whole buffer must be sentinel */
    }
}
static void rgot_fn(void *ctx, uint8_t *p, int64_t q, int64_t len)
{
    int64_t *want = ctx;
    if (*want >= q && *want < q + len) {
        want[1] = p[*want - q];
        *want = -1;
    }
}

static void read_access(MPI_File fh, op_t *op, int o, int i)
{
    acc_t *a = &op->acc[1][i][g_rank];
    if (a->skip) return;
    int64_t es = g_et[op->et].node.size, n = a->count * a->mem->size;
    MPI_Datatype mt = make_top(a->mem);
    membuf_t m;
    mem_alloc(&m, a->mem, a->count, SENT);
    trace(a, o, i, rname[a->kind]);
    do_seek(fh, a, o, i);
    MPI_Status st;
    int rc = MPI_SUCCESS, cnt = (int)a->count;
    switch (a->kind) {
    case A_AT:
        rc = MPI_File_read_at(fh, a->off, m.base, cnt, mt, &st);
        break;
    case A_PTR:
        rc = MPI_File_read(fh, m.base, cnt, mt, &st);
        break;
    case A_AT_ALL:
        rc = MPI_File_read_at_all(fh, a->off, m.base, cnt, mt, &st);
        break;
    case A_ALL:
        rc = MPI_File_read_all(fh, m.base, cnt, mt, &st);
        break;
    }
    check_rc(rc, rname[a->kind], o, i);
    if (rc == MPI_SUCCESS) check_status(&st, mt, a, o, i, rname[a->kind]);
    check_pos_after(fh, a, o, i, es);
    uint8_t *exp = xcalloc((size_t)n, 1);
    gather_ctx gc = {&op->v[g_rank], exp};
    view_chunks(&op->v[g_rank], a->off * es, n, gather_fn, &gc);
    /* 1. data: find the first wrong stream byte and report what arrived */
    size_t tot = (size_t)(m.hi - m.lo + 2 * GUARD);
    uint8_t *save = xcalloc(tot, 1);
    memcpy(save, m.alloc, tot);
    rcheck_ctx rc2 = {exp, -1};
    mem_runs(&m, a->mem, a->count, rcheck_fn, &rc2);
    if (rc2.bad_q >= 0) {
        int64_t probe[2] = {rc2.bad_q, 0};
        memcpy(m.alloc, save, tot);
        mem_runs(&m, a->mem, a->count, rgot_fn, probe);
        int64_t pos = view_pos(&op->v[g_rank], rc2.bad_q + a->off * es);
        fail("op %d acc %d %s (offset %" PRId64 " etypes, count %d): data byte %" PRId64
             " (file offset %" PRId64 "): expected 0x%02x got 0x%02x",
             o, i, rname[a->kind], a->off, cnt, rc2.bad_q, pos, exp[rc2.bad_q], (unsigned)probe[1]);
        mem_runs(&m, a->mem, a->count, rcheck_fn, &rc2); /* back to sentinel for step 2 */
    }
    free(save);
    /* 2. gaps: rcheck_fn overwrote the data with sentinel, so everything must be sentinel */
    for (int64_t k = 0; k < m.hi - m.lo + 2 * GUARD; k++)
        if (m.alloc[k] != SENT) {
            fail("op %d acc %d %s: memory outside the datatype's data was modified at byte %" PRId64
                 " of the buffer (0x%02x)",
                 o, i, rname[a->kind], k - GUARD + m.lo, m.alloc[k]);
            break;
        }
    g_bytes += n;
    free(exp);
    free(m.alloc);
    free_top(a->mem, &mt);
}

static MPI_File open_file(const char *path, int amode)
{
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, g_info, &fh);
    if (rc != MPI_SUCCESS) {
        check_rc(rc, "MPI_File_open", -1, -1);
        return MPI_FILE_NULL;
    }
    return fh;
}

static void check_size(MPI_File fh)
{
    MPI_Offset sz = -1;
    check_rc(MPI_File_get_size(fh, &sz), "MPI_File_get_size", -1, -1);
    if (sz != g_fsize) fail("MPI_File_get_size = %lld, expected %" PRId64, (long long)sz, g_fsize);
}

static void describe_owner(int32_t w, char *buf, size_t cap)
{
    if (w == 0) {
        snprintf(buf, cap, "never written (pre-fill/zero)");
        return;
    }
    w--;
    int r = w % MAXR, oi = w / MAXR, o = oi / MAXACC, i = oi % MAXACC;
    acc_t *a = &g_ops[o].acc[0][i][r];
    snprintf(buf, cap, "written by op %d acc %d rank %d %s offset %" PRId64 " count %" PRId64, o, i,
             r, wname[a->kind], a->off, a->count);
}

/* Rank 0: the file as POSIX sees it against the model. */
static void compare_file(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fail("cannot open %s: %s", path, strerror(errno));
        return;
    }
    int64_t sz = lseek(fd, 0, SEEK_END);
    uint8_t *buf = xcalloc((size_t)max64(sz, 1), 1);
    int64_t got = 0;
    while (got < sz) {
        ssize_t k = pread(fd, buf + got, (size_t)(sz - got), got);
        if (k <= 0) break;
        got += k;
    }
    close(fd);
    if (sz != g_fsize) fail("file size %" PRId64 ", expected %" PRId64, sz, g_fsize);
    int64_t nbad = 0, n = min64(sz, g_fsize);
    for (int64_t p = 0; p < n; p++) {
        if (buf[p] == g_model[p]) continue;
        if (nbad++ < 5) {
            char d[200];
            describe_owner(g_owner[p], d, sizeof d);
            fail("file offset %" PRId64 ": expected 0x%02x got 0x%02x (%s)", p, g_model[p], buf[p],
                 d);
        }
    }
    if (nbad) fail("%" PRId64 " of %" PRId64 " file bytes differ from the model", nbad, n);
    free(buf);
}

static void prefill(const char *path)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        fail("cannot create %s: %s", path, strerror(errno));
        return;
    }
    uint8_t *buf = xcalloc((size_t)max64(g_prefill, 1), 1);
    memset(buf, PREFILL, (size_t)g_prefill);
    if (write(fd, buf, (size_t)g_prefill) != (ssize_t)g_prefill)
        fail("pre-fill of %s failed", path);
    close(fd);
    free(buf);
}

static void sync_barrier_sync(MPI_File fh, int o)
{
    check_rc(MPI_File_sync(fh), "MPI_File_sync", o, -1);
    MPI_Barrier(MPI_COMM_WORLD);
    check_rc(MPI_File_sync(fh), "MPI_File_sync", o, -1);
}

/* Between the accesses of one operation the file bytes of one rank may be written twice (an
 * earlier collective access carried out by an aggregator, a later independent one), and OMPIO
 * and ROMIO both let the aggregator's read-modify-write of a hole land after the rank's next
 * independent write. MPI 3.1 13.6.1 only promises the outcome for conflicting accesses separated
 * by sync-barrier-sync, so every access step is separated; AGIO_DIFF_NOSYNC_ACC=1 drops the
 * separation inside an operation (stricter: same-process sequential consistency). */
static int g_nosync_acc;

static void phase_write(const char *path)
{
    g_phase = "write";
    if (g_rank == 0) prefill(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh = open_file(path, MPI_MODE_RDWR);
    if (fh == MPI_FILE_NULL) return;
    for (int o = 0; o < g_nops; o++) {
        if (g_ops[o].off) continue;
        set_view(fh, &g_ops[o], o);
        for (int i = 0; i < g_ops[o].nacc[0]; i++) {
            write_access(fh, &g_ops[o], o, i);
            if (i + 1 < g_ops[o].nacc[0] && !g_nosync_acc) sync_barrier_sync(fh, o);
        }
        sync_barrier_sync(fh, o);
    }
    check_size(fh);
    check_rc(MPI_File_close(&fh), "MPI_File_close", -1, -1);
    if (fh != MPI_FILE_NULL) fail("MPI_File_close did not set the handle to MPI_FILE_NULL");
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0) compare_file(path);
}

static void phase_verify(const char *path)
{
    g_phase = "verify";
    MPI_File fh = open_file(path, MPI_MODE_RDONLY);
    if (fh == MPI_FILE_NULL) return;
    check_size(fh);
    for (int o = 0; o < g_nops; o++) {
        if (g_ops[o].off) continue;
        set_view(fh, &g_ops[o], o);
        for (int i = 0; i < g_ops[o].nacc[1]; i++)
            read_access(fh, &g_ops[o], o, i);
    }
    /* rank 0 reads the whole file through a byte view */
    check_rc(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", g_info), "set_view", -1, -1);
    if (g_rank == 0) {
        uint8_t *buf = xcalloc((size_t)g_fsize, 1);
        MPI_Status st;
        for (int64_t p = 0; p < g_fsize; p += 1 << 20) {
            int n = (int)min64(1 << 20, g_fsize - p);
            check_rc(MPI_File_read_at(fh, p, buf + p, n, MPI_BYTE, &st), "MPI_File_read_at", -1,
                     -1);
        }
        for (int64_t p = 0; p < g_fsize; p++)
            if (buf[p] != g_model[p]) {
                fail("whole-file read_at: file offset %" PRId64 ": expected 0x%02x got 0x%02x", p,
                     g_model[p], buf[p]);
                break;
            }
        free(buf);
    }
    check_rc(MPI_File_close(&fh), "MPI_File_close", -1, -1);
}

static void check_expect(void)
{
    const char *e = getenv("AGIO_EXPECT");
    if (!e || !*e) return;
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "libagio")) found = 1;
    if (f) fclose(f);
    if (found != (atoi(e) != 0))
        fail("AGIO_EXPECT=%s but libagio is %smapped into the process", e, found ? "" : "not ");
}

static void parse_info(void)
{
    const char *s = getenv("AGIO_DIFF_INFO");
    if (!s || !*s) return;
    MPI_Info_create(&g_info);
    char *dup = strdup(s), *save = NULL;
    for (char *kv = strtok_r(dup, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) continue;
        *eq = 0;
        MPI_Info_set(g_info, kv, eq + 1);
    }
    free(dup);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_nr);
    if (argc != 4 ||
        (strcmp(argv[3], "write") && strcmp(argv[3], "verify") && strcmp(argv[3], "all"))) {
        if (g_rank == 0) fprintf(stderr, "usage: diff_io SEED PATH write|verify|all\n");
        MPI_Finalize();
        return 2;
    }
    if (g_nr > MAXR) {
        if (g_rank == 0) fprintf(stderr, "diff_io: at most %d ranks\n", MAXR);
        MPI_Finalize();
        return 2;
    }
    g_seed = strtoull(argv[1], NULL, 0);
    g_romio = getenv("AGIO_DIFF_PROFILE") && !strcmp(getenv("AGIO_DIFF_PROFILE"), "romio");
    for (int m = 0; m < 2; m++) {
        const char *s = getenv(m ? "AGIO_DIFF_NOFILE" : "AGIO_DIFF_NOMEM");
        for (int k = K_CONTIG; s && k < K_NKINDS; k++)
            if (strstr(s, kname[k])) g_nokind[m] |= 1u << k;
    }
    const char *path = argv[2], *phase = argv[3];
    check_expect();
    g_trace = getenv("AGIO_DIFF_TRACE") && atoi(getenv("AGIO_DIFF_TRACE"));
    g_nosync_acc = getenv("AGIO_DIFF_NOSYNC_ACC") && atoi(getenv("AGIO_DIFF_NOSYNC_ACC"));
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;
    MPI_Get_library_version(ver, &vlen);
    g_mpich = strstr(ver, "MPICH") != NULL;
    parse_info();
    init_etypes();
    make_plan(g_seed);
    if (g_rank == 0 && getenv("AGIO_DIFF_VERBOSE") && atoi(getenv("AGIO_DIFF_VERBOSE")))
        print_plan();
    if (strcmp(phase, "verify") != 0) phase_write(path);
    if (strcmp(phase, "write") != 0) phase_verify(path);
    int any = 0;
    MPI_Allreduce(&g_fail, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int64_t tot = 0;
    MPI_Reduce(&g_bytes, &tot, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g_rank == 0)
        printf("diff_io seed=%" PRIu64 " nranks=%d phase=%s ops=%d file=%" PRId64
               " bytes moved=%" PRId64 ": %s\n",
               g_seed, g_nr, phase, g_nops, g_fsize, tot, any ? "FAIL" : "OK");
    if (g_info != MPI_INFO_NULL) MPI_Info_free(&g_info);
    MPI_Finalize();
    return any ? 1 : 0;
}
