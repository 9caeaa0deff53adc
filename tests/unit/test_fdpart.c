/*
 * test_fdpart.c - unit test of the file-domain partition strategies (src/collective/fdpart.h).
 *
 * 1. Table: small partitions of every kind, including offsets near INT64_MAX, rendered to a
 *    string (round_bytes, nrounds, first_stripe, bounds, every round range) and compared with a
 *    hand-computed expectation; plus round hulls.
 * 2. Invalid arguments and empty ranges.
 * 3. Randomized (seeded; AGIO_TEST_SEED overrides): every kind over naggs 1..64, offsets below
 *    2^40, near 2^62 and near INT64_MAX, units that are powers of two or odd (1000000, ...),
 *    many round sizes. Every case is put through verify(): domains disjoint and covering
 *    [lo, hi) (from agio_fdpart_round over all (a, r), and again by walking agio_fdpart_owner
 *    piece by piece - both must give the same piece sequence), each range inside its domain and
 *    round hull, hull minimal, at most round_bytes per round, nrounds the max over aggregators,
 *    no stripe in two domains (STRIPE/BLOCK/CYCLIC), stripe counts differing by at most one
 *    (STRIPE/BLOCK), CYCLIC owner = (off/unit) % naggs and the same for another [lo, hi)
 *    (persistence, including the round slot). Parameters keep each case to a few thousand
 *    pieces, so the whole test runs in about a second.
 * Each case counts as one check. Last line: "N passed, M failed".
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agio_err.h"
#include "collective/fdpart.h"
#include "unit.h"

static int case_fail, nmsg; /* failures inside the current case; messages printed so far */


/* A failed condition inside a case: printed (up to a limit) and remembered for the case. */
__attribute__((format(printf, 3, 4))) static void expect(int ok, int line, const char *fmt, ...)
{
    if (ok)
        return;
    case_fail++;
    if (nmsg++ >= 40)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "  line %d: ", line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static const char *kname[] = {"EVEN", "STRIPE", "CYCLIC", "BLOCK"};

/* ---- helpers --------------------------------------------------------------------------------- */

struct range {
    int64_t lo, hi, r;
    int a;
};

struct rlist {
    struct range *v;
    size_t n, cap;
    int a;
    int64_t r;
};

static void collect(void *ctx, int64_t lo, int64_t hi)
{
    struct rlist *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) {
            fprintf(stderr, "out of memory\n");
            exit(2); /* a test program, not the library */
        }
    }
    l->v[l->n++] = (struct range){lo, hi, l->r, l->a};
}

static int cmp_range(const void *x, const void *y)
{
    const struct range *a = x, *b = y;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

static int64_t ceil_div(int64_t x, int64_t d)
{
    return x / d + (x % d != 0);
}

static int is_striped(const struct agio_fdpart *p)
{
    return p->kind != AGIO_FD_EVEN;
}

/* Expected effective round_bytes. */
static int64_t want_round_bytes(enum agio_fd_kind kind, int naggs, int64_t unit, int64_t rb)
{
    if (kind == AGIO_FD_EVEN)
        return rb;
    int64_t s = rb / unit < 1 ? 1 : rb / unit;
    if (kind == AGIO_FD_CYCLIC && s > INT64_MAX / naggs)
        s = INT64_MAX / naggs;
    return s * unit;
}

/* ---- verify(): the invariants of one partition ----------------------------------------------- */

/* Fields, bounds, domain sizes and stripe counts. */
static void check_domains(const struct agio_fdpart *p, int naggs, int64_t lo, int64_t hi,
                          int64_t unit, int64_t rb)
{
    expect(p->naggs == naggs && p->lo == lo && p->hi == hi && p->unit == unit, __LINE__, "fields");
    expect(p->round_bytes == want_round_bytes(p->kind, naggs, unit, rb), __LINE__,
           "round_bytes %" PRId64, p->round_bytes);
    if (p->kind == AGIO_FD_CYCLIC) {
        int64_t g = p->round_bytes / unit * naggs;
        expect(!p->bounds, __LINE__, "CYCLIC has bounds");
        expect(p->first_stripe % g == 0 && p->first_stripe <= lo / unit &&
                   lo / unit - p->first_stripe < g,
               __LINE__, "first_stripe %" PRId64, p->first_stripe);
        return;
    }
    expect(p->bounds && p->bounds[0] == lo && p->bounds[naggs] == hi, __LINE__, "bounds ends");
    if (!p->bounds)
        return;
    int64_t d = ceil_div(hi - lo, naggs), prevcnt = INT64_MAX, mincnt = INT64_MAX, maxcnt = 0;
    for (int a = 0; a < naggs; a++) {
        int64_t b0 = p->bounds[a], b1 = p->bounds[a + 1];
        expect(b0 <= b1, __LINE__, "bounds decrease at %d", a);
        if (p->kind == AGIO_FD_EVEN) {
            int64_t want = hi - b0 < d ? hi - b0 : d;
            expect(b1 - b0 == want, __LINE__, "EVEN domain %d size %" PRId64, a, b1 - b0);
            continue;
        }
        if (b0 > lo && b0 < hi)
            expect(b0 % unit == 0, __LINE__, "bound %d = %" PRId64 " not on a stripe", a, b0);
        int64_t cnt = b1 > b0 ? ceil_div(b1, unit) - b0 / unit : 0;
        expect(cnt <= prevcnt, __LINE__, "stripe count grows at %d", a);
        prevcnt = cnt;
        mincnt = cnt < mincnt ? cnt : mincnt;
        maxcnt = cnt > maxcnt ? cnt : maxcnt;
    }
    if (is_striped(p))
        expect(maxcnt - mincnt <= 1, __LINE__, "stripe counts %" PRId64 "..%" PRId64, mincnt,
               maxcnt);
}

/* One range of round r of aggregator a: inside its domain and hull, owner() agrees. */
static void check_range(const struct agio_fdpart *p, const struct range *g, int64_t hlo,
                        int64_t hhi)
{
    int64_t unit = p->unit, r, pe;
    expect(g->lo < g->hi && g->lo >= p->lo && g->hi <= p->hi, __LINE__,
           "range [%" PRId64 ",%" PRId64 ") a %d r %" PRId64, g->lo, g->hi, g->a, g->r);
    expect(g->lo >= hlo && g->hi <= hhi, __LINE__, "range outside hull, r %" PRId64, g->r);
    if (p->kind == AGIO_FD_CYCLIC) {
        if (p->naggs > 1)
            expect(g->lo / unit == (g->hi - 1) / unit, __LINE__, "CYCLIC range spans stripes");
        expect((g->lo / unit) % p->naggs == g->a, __LINE__, "CYCLIC owner");
    } else {
        expect(g->lo >= p->bounds[g->a] && g->hi <= p->bounds[g->a + 1], __LINE__,
               "range outside domain %d", g->a);
        if (is_striped(p))
            expect((g->lo == p->lo || g->lo % unit == 0) && (g->hi == p->hi || g->hi % unit == 0),
                   __LINE__, "round not on stripe boundaries");
        else
            expect((g->lo - p->bounds[g->a]) == g->r * p->round_bytes, __LINE__, "EVEN round");
    }
    int64_t probe[3] = {g->lo, g->lo + (g->hi - g->lo) / 2, g->hi - 1};
    for (int i = 0; i < 3; i++) {
        int a = agio_fdpart_owner(p, probe[i], &r, &pe);
        expect(a == g->a && r == g->r && pe == g->hi, __LINE__,
               "owner(%" PRId64 ") = %d r %" PRId64 " end %" PRId64 ", want %d %" PRId64
               " %" PRId64,
               probe[i], a, r, pe, g->a, g->r, g->hi);
    }
}

/* All rounds of all aggregators into *all; returns the largest round count seen. */
static int64_t enumerate(const struct agio_fdpart *p, struct rlist *all)
{
    int64_t maxr = 0, hlo, hhi;
    int64_t *mn = calloc((size_t)p->nrounds + 1, sizeof *mn);
    int64_t *mx = calloc((size_t)p->nrounds + 1, sizeof *mx);

    for (int64_t r = 0; r < p->nrounds; r++)
        mn[r] = INT64_MAX;
    for (int a = 0; a < p->naggs; a++) {
        expect(agio_fdpart_round(p, a, -1, collect, all) == 0, __LINE__, "round -1");
        expect(agio_fdpart_round(p, a, p->nrounds, collect, all) == 0, __LINE__, "round n");
        for (int64_t r = 0; r < p->nrounds; r++) {
            size_t first = all->n;
            int64_t sum = 0;
            all->a = a;
            all->r = r;
            int64_t got = agio_fdpart_round(p, a, r, collect, all);
            expect(got == agio_fdpart_round(p, a, r, NULL, NULL), __LINE__, "fn NULL");
            agio_fdpart_round_hull(p, r, &hlo, &hhi);
            for (size_t i = first; i < all->n; i++) {
                check_range(p, &all->v[i], hlo, hhi);
                if (i > first)
                    expect(all->v[i].lo >= all->v[i - 1].hi, __LINE__, "round out of order");
                sum += all->v[i].hi - all->v[i].lo;
                mn[r] = all->v[i].lo < mn[r] ? all->v[i].lo : mn[r];
                mx[r] = all->v[i].hi > mx[r] ? all->v[i].hi : mx[r];
            }
            expect(sum == got && got <= p->round_bytes, __LINE__, "round bytes %" PRId64, got);
            expect(p->kind == AGIO_FD_CYCLIC || all->n - first <= 1, __LINE__, "ranges > 1");
            if (got > 0 && r + 1 > maxr)
                maxr = r + 1;
        }
    }
    for (int64_t r = 0; r < p->nrounds; r++) {
        agio_fdpart_round_hull(p, r, &hlo, &hhi);
        expect(hlo == mn[r] && hhi == mx[r], __LINE__, "hull of round %" PRId64 " not minimal", r);
    }
    agio_fdpart_round_hull(p, p->nrounds, &hlo, &hhi);
    expect(hlo == hhi, __LINE__, "hull past nrounds not empty");
    agio_fdpart_round_hull(p, -1, &hlo, &hhi);
    expect(hlo == hhi, __LINE__, "hull of round -1 not empty");
    free(mn);
    free(mx);
    return maxr;
}

/* Sorted ranges tile [lo, hi); walking owner() gives the same pieces; no shared stripe. */
static void check_cover(const struct agio_fdpart *p, struct rlist *all)
{
    int64_t off = p->lo, r, pe;
    size_t i = 0;
    int prev = -1;

    if (all->n > 0)
        qsort(all->v, all->n, sizeof *all->v, cmp_range);
    while (off < p->hi) {
        int a = agio_fdpart_owner(p, off, &r, &pe);
        if (i >= all->n || a < 0 || pe <= off) {
            expect(0, __LINE__, "walk stuck at %" PRId64 " (owner %d)", off, a);
            return;
        }
        const struct range *g = &all->v[i++];
        expect(g->lo == off && g->hi == pe && g->a == a && g->r == r, __LINE__,
               "walk piece [%" PRId64 ",%" PRId64 ") %d/%" PRId64 " vs range [%" PRId64
               ",%" PRId64 ") %d/%" PRId64,
               off, pe, a, r, g->lo, g->hi, g->a, g->r);
        if (is_striped(p) && prev >= 0 && a != prev)
            expect(off % p->unit == 0, __LINE__, "owner changes inside stripe at %" PRId64, off);
        if (p->kind == AGIO_FD_CYCLIC)
            expect(a == (int)((off / p->unit) % p->naggs), __LINE__, "CYCLIC owner formula");
        prev = a;
        off = pe;
    }
    expect(i == all->n, __LINE__, "%zu ranges, walk saw %zu", all->n, i);
    expect(agio_fdpart_owner(p, p->hi, NULL, NULL) == AGIO_EARG, __LINE__, "owner(hi)");
    if (p->lo > 0)
        expect(agio_fdpart_owner(p, p->lo - 1, NULL, NULL) == AGIO_EARG, __LINE__, "owner(lo-1)");
}

/* Build and check one partition; returns 1 if it held (one check per case). */
static int verify(enum agio_fd_kind kind, int naggs, int64_t lo, int64_t hi, int64_t unit,
                  int64_t rb)
{
    struct agio_fdpart p;
    struct rlist all = {0};

    case_fail = 0;
    int rc = agio_fdpart_make(&p, kind, naggs, lo, hi, unit, rb);
    expect(rc == 0, __LINE__, "make returned %d", rc);
    if (rc == 0) {
        check_domains(&p, naggs, lo, hi, unit, rb);
        expect(agio_fdpart_round(&p, -1, 0, NULL, NULL) == AGIO_EARG, __LINE__, "a = -1");
        expect(agio_fdpart_round(&p, naggs, 0, NULL, NULL) == AGIO_EARG, __LINE__, "a = naggs");
        if (lo == hi)
            expect(p.nrounds == 0, __LINE__, "empty range has %" PRId64 " rounds", p.nrounds);
        int64_t maxr = enumerate(&p, &all);
        expect(maxr == p.nrounds, __LINE__, "nrounds %" PRId64 ", max over aggregators %" PRId64,
               p.nrounds, maxr);
        check_cover(&p, &all);
    }
    agio_fdpart_free(&p);
    agio_fdpart_free(&p);
    free(all.v);
    if (case_fail)
        fprintf(stderr, "  in case %s naggs %d [%" PRId64 ", %" PRId64 ") unit %" PRId64
                        " rb %" PRId64 "\n",
                kname[kind], naggs, lo, hi, unit, rb);
    return case_fail == 0;
}

/* CYCLIC: ownership and round slot do not depend on [lo, hi). */
static int persistence(int naggs, int64_t lo1, int64_t hi1, int64_t lo2, int64_t hi2,
                       int64_t unit, int64_t rb, uint64_t seed)
{
    struct agio_fdpart p1, p2;
    int64_t from = lo1 > lo2 ? lo1 : lo2, to = hi1 < hi2 ? hi1 : hi2, r1, r2;

    case_fail = 0;
    if (agio_fdpart_make(&p1, AGIO_FD_CYCLIC, naggs, lo1, hi1, unit, rb) ||
        agio_fdpart_make(&p2, AGIO_FD_CYCLIC, naggs, lo2, hi2, unit, rb))
        return 0;
    int64_t g = p1.round_bytes / unit * naggs;
    expect(p1.round_bytes == p2.round_bytes, __LINE__, "round_bytes differ");
    expect((p2.first_stripe - p1.first_stripe) % g == 0, __LINE__, "first stripes misaligned");
    for (int i = 0; i < 64 && from < to; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t off = from + (int64_t)((seed >> 11) % (uint64_t)(to - from));
        int a1 = agio_fdpart_owner(&p1, off, &r1, NULL);
        int a2 = agio_fdpart_owner(&p2, off, &r2, NULL);
        expect(a1 == a2 && a1 == (int)((off / unit) % naggs), __LINE__, "owner differs");
        expect(r1 - r2 == (p2.first_stripe - p1.first_stripe) / g, __LINE__, "round slot");
    }
    agio_fdpart_free(&p1);
    agio_fdpart_free(&p2);
    if (case_fail)
        fprintf(stderr, "  in persistence naggs %d [%" PRId64 ",%" PRId64 ") [%" PRId64
                        ",%" PRId64 ") unit %" PRId64 " rb %" PRId64 "\n",
                naggs, lo1, hi1, lo2, hi2, unit, rb);
    return case_fail == 0;
}

/* ---- 1. table ------------------------------------------------------------------------------- */

struct rbuf {
    char *s;
    size_t cap;
    int a;
    int64_t r;
};

static void render_range(void *ctx, int64_t lo, int64_t hi)
{
    struct rbuf *b = ctx;
    size_t len = strlen(b->s);
    snprintf(b->s + len, b->cap - len, " %d.%" PRId64 "[%" PRId64 ",%" PRId64 ")", b->a, b->r, lo,
             hi);
}

/* "R=<round_bytes> n=<nrounds> f=<first_stripe> b=<bounds|-> |" then " a.r[lo,hi)" by a, r. */
static void render(const struct agio_fdpart *p, char *s, size_t cap)
{
    int n = snprintf(s, cap, "R=%" PRId64 " n=%" PRId64 " f=%" PRId64 " b=", p->round_bytes,
                     p->nrounds, p->first_stripe);
    for (int a = 0; p->bounds && a <= p->naggs; a++)
        n += snprintf(s + n, cap - (size_t)n, "%s%" PRId64, a ? "," : "", p->bounds[a]);
    snprintf(s + n, cap - (size_t)n, "%s |", p->bounds ? "" : "-");
    struct rbuf l = {s, cap, 0, 0};
    for (l.a = 0; l.a < p->naggs; l.a++)
        for (l.r = 0; l.r < p->nrounds; l.r++)
            agio_fdpart_round(p, l.a, l.r, render_range, &l);
}

static const struct tcase {
    enum agio_fd_kind kind;
    int naggs;
    int64_t lo, hi, unit, rb;
    const char *want;
    const char *hulls; /* "[lo,hi)" per round */
} tcases[] = {
    {AGIO_FD_EVEN, 3, 0, 10, 0, 100, "R=100 n=1 f=0 b=0,4,8,10 | 0.0[0,4) 1.0[4,8) 2.0[8,10)",
     "[0,10)"},
    {AGIO_FD_EVEN, 5, 0, 6, 7, 1,
     "R=1 n=2 f=0 b=0,2,4,6,6,6 | 0.0[0,1) 0.1[1,2) 1.0[2,3) 1.1[3,4) 2.0[4,5) 2.1[5,6)",
     "[0,5)[1,6)"},
    {AGIO_FD_EVEN, 4, 100, 110, 0, 2,
     "R=2 n=2 f=0 b=100,103,106,109,110 | 0.0[100,102) 0.1[102,103) 1.0[103,105) 1.1[105,106) "
     "2.0[106,108) 2.1[108,109) 3.0[109,110)",
     "[100,110)[102,109)"},
    {AGIO_FD_STRIPE, 4, 5, 95, 10, 25,
     "R=20 n=2 f=0 b=5,30,60,80,95 | 0.0[5,20) 0.1[20,30) 1.0[30,50) 1.1[50,60) 2.0[60,80) "
     "3.0[80,95)",
     "[5,95)[20,60)"},
    {AGIO_FD_STRIPE, 4, 15, 35, 10, 5, "R=10 n=1 f=1 b=15,20,30,35,35 | 0.0[15,20) 1.0[20,30) "
                                       "2.0[30,35)",
     "[15,35)"},
    {AGIO_FD_BLOCK, 3, 1500000, 5200000, 1000000, 2500000,
     "R=2000000 n=1 f=1 b=1500000,3000000,5000000,5200000 | 0.0[1500000,3000000) "
     "1.0[3000000,5000000) 2.0[5000000,5200000)",
     "[1500000,5200000)"},
    {AGIO_FD_CYCLIC, 3, 75, 200, 10, 20,
     "R=20 n=3 f=6 b=- | 0.0[90,100) 0.1[120,130) 0.1[150,160) 0.2[180,190) 1.0[75,80) "
     "1.0[100,110) 1.1[130,140) 1.1[160,170) 1.2[190,200) 2.0[80,90) 2.0[110,120) 2.1[140,150) "
     "2.1[170,180)",
     "[75,120)[120,180)[180,200)"},
    {AGIO_FD_CYCLIC, 1, 3, 30, 4, 9, "R=8 n=4 f=0 b=- | 0.0[3,8) 0.1[8,16) 0.2[16,24) 0.3[24,30)",
     "[3,8)[8,16)[16,24)[24,30)"},
    {AGIO_FD_CYCLIC, 4, 0, 40, 8, 1000,
     "R=1000 n=1 f=0 b=- | 0.0[0,8) 0.0[32,40) 1.0[8,16) 2.0[16,24) 3.0[24,32)", "[0,40)"},
    {AGIO_FD_CYCLIC, 2, 45, 46, 10, 10, "R=10 n=1 f=4 b=- | 0.0[45,46)", "[45,46)"},
    /* 2^62 stripes near the top: the last stripe would end past INT64_MAX. */
    {AGIO_FD_STRIPE, 3, 4611686018427387899, INT64_MAX, 4611686018427387904, INT64_MAX,
     "R=4611686018427387904 n=1 f=0 b=4611686018427387899,4611686018427387904,"
     "9223372036854775807,9223372036854775807 | 0.0[4611686018427387899,4611686018427387904) "
     "1.0[4611686018427387904,9223372036854775807)",
     "[4611686018427387899,9223372036854775807)"},
    /* S capped at INT64_MAX/3, so G = INT64_MAX - 1 and the last stripe starts round 1. */
    {AGIO_FD_CYCLIC, 3, INT64_MAX - 4, INT64_MAX, 1, INT64_MAX,
     "R=3074457345618258602 n=2 f=0 b=- | 0.0[9223372036854775803,9223372036854775804) "
     "0.1[9223372036854775806,9223372036854775807) 1.0[9223372036854775804,9223372036854775805) "
     "2.0[9223372036854775805,9223372036854775806)",
     "[9223372036854775803,9223372036854775806)[9223372036854775806,9223372036854775807)"},
    {AGIO_FD_EVEN, 2, INT64_MAX - 3, INT64_MAX, 0, INT64_MAX,
     "R=9223372036854775807 n=1 f=0 b=9223372036854775804,9223372036854775806,"
     "9223372036854775807 | 0.0[9223372036854775804,9223372036854775806) "
     "1.0[9223372036854775806,9223372036854775807)",
     "[9223372036854775804,9223372036854775807)"},
};

static void test_table(void)
{
    char got[2048], hull[1024];
    for (size_t i = 0; i < sizeof tcases / sizeof tcases[0]; i++) {
        const struct tcase *t = &tcases[i];
        struct agio_fdpart p;
        int rc = agio_fdpart_make(&p, t->kind, t->naggs, t->lo, t->hi, t->unit, t->rb);
        check(rc == 0, __LINE__, "table %zu: make %d", i, rc);
        if (rc)
            continue;
        got[0] = 0;
        render(&p, got, sizeof got);
        check(strcmp(got, t->want) == 0, __LINE__, "table %zu:\n  got  %s\n  want %s", i, got,
              t->want);
        int n = 0;
        hull[0] = 0;
        for (int64_t r = 0; r < p.nrounds; r++) {
            int64_t lo, hi;
            agio_fdpart_round_hull(&p, r, &lo, &hi);
            n += snprintf(hull + n, sizeof hull - (size_t)n, "[%" PRId64 ",%" PRId64 ")", lo, hi);
        }
        check(strcmp(hull, t->hulls) == 0, __LINE__, "table %zu hulls: got %s want %s", i, hull,
              t->hulls);
        agio_fdpart_free(&p);
        check(verify(t->kind, t->naggs, t->lo, t->hi, t->unit ? t->unit : 1, t->rb), __LINE__,
              "table %zu invariants", i);
    }
}

/* ---- 2. invalid arguments, empty ranges ---------------------------------------------------- */

static void test_invalid(void)
{
    struct agio_fdpart p;
    static const struct {
        int kind, naggs;
        int64_t lo, hi, unit, rb;
    } bad[] = {
        {AGIO_FD_EVEN, 0, 0, 10, 1, 1},     {AGIO_FD_EVEN, -3, 0, 10, 1, 1},
        {AGIO_FD_EVEN, 2, 10, 9, 1, 1},     {AGIO_FD_EVEN, 2, -1, 9, 1, 1},
        {AGIO_FD_EVEN, 2, 0, 10, 1, 0},     {AGIO_FD_STRIPE, 2, 0, 10, 1, -5},
        {AGIO_FD_STRIPE, 2, 0, 10, 0, 10},  {AGIO_FD_CYCLIC, 2, 0, 10, -4, 10},
        {AGIO_FD_BLOCK, 2, 0, 10, 0, 10},   {4, 2, 0, 10, 1, 10},
        {-1, 2, 0, 10, 1, 10},              {AGIO_FD_CYCLIC, 1, 5, 4, 1, 10},
        {AGIO_FD_BLOCK, 2, INT64_MIN, 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&p, 0x5a, sizeof p);
        int rc = agio_fdpart_make(&p, (enum agio_fd_kind)bad[i].kind, bad[i].naggs, bad[i].lo,
                                  bad[i].hi, bad[i].unit, bad[i].rb);
        check(rc == AGIO_EARG && p.bounds == NULL, __LINE__, "bad %zu: make gave %d", i, rc);
        agio_fdpart_free(&p);
    }
    check(agio_fdpart_make(NULL, AGIO_FD_EVEN, 1, 0, 1, 1, 1) == AGIO_EARG, __LINE__, "p NULL");
    check(agio_fdpart_owner(NULL, 0, NULL, NULL) == AGIO_EARG, __LINE__, "owner NULL");
    check(agio_fdpart_round(NULL, 0, 0, NULL, NULL) == AGIO_EARG, __LINE__, "round NULL");
    agio_fdpart_free(NULL);
    check(agio_fdpart_make(&p, AGIO_FD_EVEN, 2, 0, 10, 0, 1) == 0, __LINE__, "EVEN unit 0");
    agio_fdpart_free(&p);
    check(agio_fdpart_make(&p, AGIO_FD_EVEN, 2, 0, 10, -7, 1) == 0 && p.unit == -7 && p.bounds,
          __LINE__, "EVEN keeps unit as given, unchecked");
    agio_fdpart_free(&p);

    static const int64_t empty_at[] = {0, 5, 4096, ((int64_t)1 << 62) + 3, INT64_MAX};
    for (int k = 0; k < 4; k++) {
        for (size_t i = 0; i < sizeof empty_at / sizeof empty_at[0]; i++) {
            int64_t at = empty_at[i], lo, hi;
            int rc = agio_fdpart_make(&p, (enum agio_fd_kind)k, 3, at, at, 4096, 8192);
            agio_fdpart_round_hull(&p, 0, &lo, &hi);
            check(rc == 0 && p.nrounds == 0 && agio_fdpart_round(&p, 0, 0, NULL, NULL) == 0 &&
                      agio_fdpart_owner(&p, at, NULL, NULL) == AGIO_EARG && lo == hi,
                  __LINE__, "%s empty range at %" PRId64, kname[k], at);
            agio_fdpart_free(&p);
            check(verify((enum agio_fd_kind)k, 3, at, at, 4096, 8192), __LINE__, "empty verify");
        }
    }
}

/* ---- 3. randomized -------------------------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int64_t below(int64_t n) /* uniform-ish in [0, n), n > 0 */
{
    return (int64_t)(rnd() % (uint64_t)n);
}

static const int64_t odd_units[] = {3, 7, 1000, 4097, 999983, 1000000, 3 << 20, 65537 * 3};

struct params {
    int naggs;
    int64_t lo, hi, unit, rb;
};

static void gen(struct params *c)
{
    int pick = (int)below(20);
    int64_t len = 0; /* empty one time in 20 */
    if (pick > 0)
        len = 1 + below(pick < 6 ? 200 : pick < 12 ? 1 << 20 : (int64_t)1 << 40);
    c->naggs = below(8) == 0 ? (int)(1 + below(3)) : (int)(1 + below(64));
    int where = (int)below(10);
    if (where < 3)
        c->lo = below(1 << 16);
    else if (where < 6)
        c->lo = below((int64_t)1 << 40);
    else if (where < 8) /* just below or above 2^62 */
        c->lo = ((int64_t)1 << 62) - len + below(1 << 21) - (1 << 20);
    else /* touching or just below INT64_MAX */
        c->lo = INT64_MAX - len - (below(2) ? 0 : below(1 << 20));
    c->hi = c->lo + len;
    c->unit = below(3) == 0 ? odd_units[below(8)] : (int64_t)1 << below(35);
    while (len / c->unit > 3000 && c->unit <= INT64_MAX / 2)
        c->unit *= 2; /* bound the number of stripes, hence of pieces */
    switch (below(8)) {
    case 0: c->rb = 1 + below(c->unit); break;
    case 1: c->rb = c->unit > 1 ? c->unit - 1 : 1; break;
    case 2: c->rb = c->unit; break;
    case 3: c->rb = c->unit * (1 + below(8)) + below(c->unit); break;
    case 4: c->rb = INT64_MAX - below(3); break;
    case 5: c->rb = 1 + len / (1 + below(5)); break;
    case 6: c->rb = c->unit <= INT64_MAX / 17 ? c->unit * 17 : c->unit; break;
    default: c->rb = 1 + below((int64_t)1 << 34); break;
    }
    while (len / c->rb > 3000) /* EVEN rounds are not bounded by stripes */
        c->rb = c->rb * 2 + 1;
}

static void test_random(uint64_t seed, int ncases)
{
    int fails[4] = {0}, persist_fail = 0, npersist = 0;
    rng_state = seed;
    for (int i = 0; i < ncases; i++) {
        struct params c;
        gen(&c);
        for (int k = 0; k < 4; k++)
            if (!verify((enum agio_fd_kind)k, c.naggs, c.lo, c.hi, c.unit, c.rb))
                fails[k]++;
        if (c.hi > c.lo) { /* another range overlapping this one */
            int64_t x = c.lo + below(c.hi - c.lo), span = INT64_MAX / 3000;
            span = 1 + (c.unit < span ? 1000 * c.unit : span);
            int64_t lo2 = x - below(x < span ? x + 1 : span), len2 = 1 + below(span);
            int64_t hi2 = x > INT64_MAX - len2 ? INT64_MAX : x + len2;
            npersist++;
            if (!persistence(c.naggs, c.lo, c.hi, lo2, hi2, c.unit, c.rb, rnd()))
                persist_fail++;
        }
    }
    for (int k = 0; k < 4; k++)
        check(fails[k] == 0, __LINE__, "%s: %d of %d random cases failed (seed %" PRIu64 ")",
              kname[k], fails[k], ncases, seed);
    check(persist_fail == 0, __LINE__, "CYCLIC persistence: %d of %d failed (seed %" PRIu64 ")",
          persist_fail, npersist, seed);
}

int main(void)
{
    uint64_t seed = 20240611;
    const char *env = getenv("AGIO_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 0);
    printf("seed %" PRIu64 "\n", seed);

    test_table();
    test_invalid();
    test_random(seed, 4000);

    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
