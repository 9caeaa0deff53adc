/*
 * test_datatype.c - unit test of the pure datatype module (datatype.h: dt_repr.c, dt_iter.c,
 * dt_array.c). No MPI.
 *
 * Checks: builders and every info field on hand-made cases and on seeded random nested trees
 * against a brute-force model (the test's own tree description, expanded run by run, with MPI's
 * lb/extent rules evaluated by loops); the iterator's byte stream and run boundaries (maximal
 * merging, max_len splitting) from every start offset of small types; a 10^8-block vector in
 * bounded memory, sought at arbitrary positions; overflow and depth limits; monotone/nonneg;
 * subarray against enumeration and darray by exact coverage over all ranks. Prints the iterator
 * speed on a 10^7-block vector. AGIO_TEST_SEED changes the seed. Last line: "N passed, M failed".
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "agio_err.h"
#include "datatype/datatype.h"
#include "unit.h"


#define CHECK(c, ...) check(!!(c), __LINE__, __VA_ARGS__)

static uint64_t rng = 88172645463325252ull;
static int64_t rnd(int64_t n) /* uniform-ish in [0, n) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

/* ---- the model: a tree description, expanded by brute force ------------------------------ */

enum { S_BYTES, S_HVEC, S_HIDX, S_STRUCT, S_RESIZED, S_NKIND };
#define SMAX 4

struct spec {
    int kind, n;
    int64_t len, count, bl, stride, lb, ext;
    int64_t bls[SMAX], disps[SMAX];
    struct spec *kid[SMAX]; /* S_HVEC, S_HIDX, S_RESIZED: kid[0] only */
};

struct runs {
    int64_t n, cap;
    int64_t *off, *len;
};

static void runs_add(struct runs *r, int64_t off, int64_t len)
{
    if (len == 0) return;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->off = realloc(r->off, (size_t)r->cap * sizeof *r->off);
        r->len = realloc(r->len, (size_t)r->cap * sizeof *r->len);
    }
    r->off[r->n] = off;
    r->len[r->n++] = len;
}

static void bounds(const struct spec *s, int64_t *lb, int64_t *ub);

static int64_t s_ext(const struct spec *s)
{
    int64_t lb, ub;
    bounds(s, &lb, &ub);
    return ub - lb;
}

/* MPI's lb/ub, by looping over every block and instance (MPI-3.1 4.1.7). */
static void bounds(const struct spec *s, int64_t *lb, int64_t *ub)
{
    int any = 0;
    *lb = *ub = 0;
    if (s->kind == S_BYTES) *ub = s->len;
    if (s->kind == S_RESIZED) {
        *lb = s->lb;
        *ub = s->lb + s->ext;
    }
    if (s->kind == S_BYTES || s->kind == S_RESIZED) return;
    int nb = s->kind == S_HVEC ? (int)s->count : s->n;
    for (int b = 0; b < nb; b++) {
        const struct spec *k = s->kind == S_STRUCT ? s->kid[b] : s->kid[0];
        int64_t bl = s->kind == S_HVEC ? s->bl : s->bls[b];
        int64_t d = s->kind == S_HVEC ? b * s->stride : s->disps[b];
        int64_t kl, ku, ke = s_ext(k);
        bounds(k, &kl, &ku);
        for (int64_t j = 0; j < bl; j++) {
            if (!any || d + j * ke + kl < *lb) *lb = d + j * ke + kl;
            if (!any || d + j * ke + ku > *ub) *ub = d + j * ke + ku;
            any = 1;
        }
    }
}

static void expand(const struct spec *s, int64_t o, struct runs *r)
{
    if (s->kind == S_BYTES) runs_add(r, o, s->len);
    if (s->kind == S_RESIZED) expand(s->kid[0], o, r);
    if (s->kind == S_BYTES || s->kind == S_RESIZED) return;
    int nb = s->kind == S_HVEC ? (int)s->count : s->n;
    for (int b = 0; b < nb; b++) {
        const struct spec *k = s->kind == S_STRUCT ? s->kid[b] : s->kid[0];
        int64_t bl = s->kind == S_HVEC ? s->bl : s->bls[b];
        int64_t d = s->kind == S_HVEC ? b * s->stride : s->disps[b];
        for (int64_t j = 0; j < bl; j++) expand(k, o + d + j * s_ext(k), r);
    }
}

static struct spec *gen(int depth)
{
    struct spec *s = calloc(1, sizeof *s);
    s->kind = depth == 0 ? S_BYTES : (int)rnd(S_NKIND);
    if (s->kind == S_BYTES) s->len = rnd(8) == 0 ? 0 : 1 + rnd(6);
    if (s->kind == S_HVEC) {
        s->count = rnd(5);
        s->bl = rnd(4);
        s->kid[0] = gen(depth - 1);
        int64_t e = s_ext(s->kid[0]);
        int64_t pick[] = {e * s->bl, e * s->bl + 1 + rnd(5), -e * s->bl, rnd(40) - 20, 0};
        s->stride = pick[rnd(5)];
    }
    if (s->kind == S_HIDX || s->kind == S_STRUCT) {
        s->n = (int)rnd(SMAX + 1);
        if (s->kind == S_HIDX) s->kid[0] = gen(depth - 1);
        for (int i = 0; i < s->n; i++) {
            if (s->kind == S_STRUCT) s->kid[i] = gen(depth - 1);
            s->bls[i] = rnd(4);
            s->disps[i] = rnd(60) - 20;
            if (i > 0 && rnd(3) == 0) { /* adjacent to the previous block */
                const struct spec *k = s->kid[s->kind == S_STRUCT ? i - 1 : 0];
                s->disps[i] = s->disps[i - 1] + s->bls[i - 1] * s_ext(k);
            }
        }
    }
    if (s->kind == S_RESIZED) {
        s->kid[0] = gen(depth - 1);
        int64_t lb, ub;
        bounds(s->kid[0], &lb, &ub);
        s->lb = lb + rnd(7) - 3;
        s->ext = rnd(4) == 0 ? -(1 + rnd(5)) : ub - lb + rnd(9) - 3;
    }
    return s;
}

static void spec_free(struct spec *s)
{
    for (int i = 0; i < SMAX; i++)
        if (s->kid[i]) spec_free(s->kid[i]);
    free(s);
}

/* Extra references taken while building, so that some builders see shared children (and must
 * copy instead of changing them in place); released after each tree. */
static agio_dt *extra[64];
static int nextra;

static agio_dt *maybe_share(agio_dt *dt)
{
    if (dt && nextra < 64 && rnd(2)) extra[nextra++] = agio_dt_ref(dt);
    return dt;
}

static void release_extra(void)
{
    while (nextra > 0) agio_dt_release(extra[--nextra]);
}

static agio_dt *build(const struct spec *s)
{
    agio_dt *kids[SMAX];
    switch (s->kind) {
    case S_BYTES:
        return agio_dt_bytes(s->len);
    case S_HVEC:
        return agio_dt_hvector(s->count, s->bl, s->stride, build(s->kid[0]));
    case S_HIDX:
        return agio_dt_hindexed(s->n, s->bls, s->disps, maybe_share(build(s->kid[0])));
    case S_STRUCT:
        for (int i = 0; i < s->n; i++) kids[i] = build(s->kid[i]);
        return agio_dt_struct(s->n, s->bls, s->disps, kids);
    default:
        return agio_dt_resized(maybe_share(build(s->kid[0])), s->lb, s->ext);
    }
}

/* ---- comparing the iterator with the model ----------------------------------------------- */

/* Merge adjacent runs of r in place. */
static void merge(struct runs *r)
{
    int64_t m = 0;
    for (int64_t i = 0; i < r->n; i++) {
        if (m > 0 && r->off[m - 1] + r->len[m - 1] == r->off[i]) {
            r->len[m - 1] += r->len[i];
        } else {
            r->off[m] = r->off[i];
            r->len[m++] = r->len[i];
        }
    }
    r->n = m;
}

/* Byte offsets of the first nbytes of the stream from data byte skip, by the iterator; checks
 * that every run respects max_len and, for unbounded max_len, that runs are maximal. */
static int iter_bytes(const agio_dt *dt, int64_t base, int64_t skip, int64_t nbytes,
                      int64_t max_len, int64_t *out)
{
    struct agio_dt_iter it;
    int64_t got = 0, prev_end = INT64_MIN, off, len;
    int ok = 1;
    agio_dt_iter_init(&it, dt, base, skip);
    while (got < nbytes) {
        if (!agio_dt_iter_next(&it, max_len, &off, &len)) return 0;
        if (len <= 0 || len > max_len) return 0;
        if (max_len == INT64_MAX && off == prev_end) ok = 0; /* not merged */
        for (int64_t b = 0; b < len && got < nbytes; b++) out[got++] = off + b;
        prev_end = off + len;
    }
    return ok;
}

static void check_tree(const struct spec *s, int tno)
{
    agio_dt *dt = build(s);
    if (!CHECK(dt, "tree %d: build failed (%d)", tno, agio_dt_last_error())) {
        release_extra();
        return;
    }
    const struct agio_dt_info *in = agio_dt_info(dt);
    int64_t lb, ub, ext;
    bounds(s, &lb, &ub);
    ext = ub - lb;
    struct runs one = {0}, two = {0};
    expand(s, 0, &one);
    expand(s, 0, &two);
    expand(s, ext, &two);
    int64_t size = 0, tlo = 0, thi = 0, mono = 1, nonneg = 1;
    for (int64_t i = 0; i < one.n; i++) {
        size += one.len[i];
        if (i == 0 || one.off[i] < tlo) tlo = one.off[i];
        if (i == 0 || one.off[i] + one.len[i] > thi) thi = one.off[i] + one.len[i];
        if (one.off[i] < 0) nonneg = 0;
    }
    for (int64_t i = 1; i < two.n; i++)
        if (two.off[i] < two.off[i - 1] + two.len[i - 1]) mono = 0;
    merge(&one);
    CHECK(in->size == size, "tree %d: size %lld want %lld", tno, (long long)in->size,
          (long long)size);
    CHECK(in->lb == lb && in->extent == ext, "tree %d: lb/ext %lld/%lld want %lld/%lld", tno,
          (long long)in->lb, (long long)in->extent, (long long)lb, (long long)ext);
    CHECK(in->true_lb == tlo && in->true_extent == thi - tlo, "tree %d: true bounds", tno);
    CHECK(in->nruns == one.n, "tree %d: nruns %lld want %lld", tno, (long long)in->nruns,
          (long long)one.n);
    CHECK(in->contiguous == (one.n == 1 && size == ext), "tree %d: contiguous", tno);
    CHECK(in->monotone == (size == 0 || mono), "tree %d: monotone %d want %lld", tno,
          in->monotone, (long long)mono);
    CHECK(in->nonneg == nonneg, "tree %d: nonneg", tno);
    if (size > 0) {
        /* stream of 3 instances from base 1000, then every start offset within 2 instances */
        struct runs three = {0};
        for (int k = 0; k < 3; k++) expand(s, 1000 + k * ext, &three);
        int64_t total = 3 * size, *want = malloc((size_t)total * sizeof *want), w = 0;
        int64_t *got = malloc((size_t)total * sizeof *got);
        for (int64_t i = 0; i < three.n; i++)
            for (int64_t b = 0; b < three.len[i]; b++) want[w++] = three.off[i] + b;
        for (int64_t skip = 0; skip < 2 * size; skip++) {
            int64_t nb = total - skip;
            int ok = iter_bytes(dt, 1000, skip, nb, INT64_MAX, got);
            ok = ok && !memcmp(got, want + skip, (size_t)nb * sizeof *got);
            int64_t ml = 1 + rnd(3);
            ok = ok && iter_bytes(dt, 1000, skip, nb, ml, got);
            ok = ok && !memcmp(got, want + skip, (size_t)nb * sizeof *got);
            if (!CHECK(ok, "tree %d: stream from skip %lld", tno, (long long)skip)) {
                agio_dt_dump(dt, stderr);
                break;
            }
        }
        free(want);
        free(got);
        free(three.off);
        free(three.len);
    } else {
        struct agio_dt_iter it;
        int64_t off, len = 7;
        agio_dt_iter_init(&it, dt, 0, 0);
        CHECK(!agio_dt_iter_next(&it, 100, &off, &len) && len == 0, "tree %d: empty", tno);
    }
    free(one.off);
    free(one.len);
    free(two.off);
    free(two.len);
    agio_dt_release(dt);
    release_extra();
}

static void test_random_trees(void)
{
    for (int t = 0; t < 3000; t++) {
        struct spec *s = gen(1 + (int)rnd(4));
        struct runs r = {0};
        expand(s, 0, &r);
        if (r.n <= 2000) check_tree(s, t);
        free(r.off);
        free(r.len);
        spec_free(s);
    }
}

/* ---- hand-made cases --------------------------------------------------------------------- */

static void first_run(const agio_dt *dt, int64_t base, int64_t skip, int64_t max_len,
                      int64_t *off, int64_t *len)
{
    struct agio_dt_iter it;
    agio_dt_iter_init(&it, dt, base, skip);
    *off = *len = -1;
    agio_dt_iter_next(&it, max_len, off, len);
}

static void test_basics(void)
{
    int64_t off, len;
    agio_dt *b = agio_dt_bytes(8);
    const struct agio_dt_info *in = agio_dt_info(b);
    CHECK(in->size == 8 && in->extent == 8 && in->contiguous && in->nruns == 1, "bytes info");
    first_run(b, 100, 13, 1000, &off, &len);
    CHECK(off == 113 && len == 1000, "contiguous tiling is one run (%lld,%lld)", (long long)off,
          (long long)len);
    agio_dt *v = agio_dt_hvector(10, 2, 8, agio_dt_ref(b)); /* blocks of 16 at stride 8: overlap */
    CHECK(v && agio_dt_info(v)->nruns == 10 && !agio_dt_info(v)->monotone, "overlapping vector");
    agio_dt_release(v);
    v = agio_dt_hvector(10, 2, 16, agio_dt_ref(b)); /* stride == block: one run */
    CHECK(v && agio_dt_info(v)->contiguous && agio_dt_info(v)->size == 160, "folded vector");
    agio_dt_release(v);
    /* runs [0,4) [8,12), extent 12: [8,12) merges with the next instance's [12,16) */
    int64_t bl2[2] = {1, 1}, d2[2] = {0, 8};
    agio_dt *h = agio_dt_resized(agio_dt_hindexed(2, bl2, d2, agio_dt_bytes(4)), 0, 12);
    int64_t want[][2] = {{0, 4}, {8, 8}, {20, 8}, {32, 8}};
    struct agio_dt_iter it;
    agio_dt_iter_init(&it, h, 0, 0);
    for (int i = 0; i < 4; i++) {
        agio_dt_iter_next(&it, INT64_MAX, &off, &len);
        CHECK(off == want[i][0] && len == want[i][1], "merge across instances, run %d", i);
    }
    CHECK(agio_dt_info(h)->nruns == 2 && agio_dt_info(h)->monotone, "merge info");
    /* resizing a shared node copies it; resizing an owned one does not touch others */
    agio_dt *r = agio_dt_resized(agio_dt_ref(h), -4, 20);
    CHECK(r != h && agio_dt_info(h)->extent == 12 && agio_dt_info(r)->lb == -4, "resized copy");
    first_run(r, 0, 8, INT64_MAX, &off, &len);
    CHECK(off == 20 && len == 4, "resized tiling (%lld,%lld)", (long long)off, (long long)len);
    char *txt = NULL;
    size_t tlen = 0;
    FILE *mf = open_memstream(&txt, &tlen);
    agio_dt_dump(r, mf);
    fclose(mf);
    CHECK(txt && strstr(txt, "runs n=2") && strstr(txt, "ext=20"), "dump: %s", txt ? txt : "");
    free(txt);
    agio_dt *e = agio_dt_struct(0, NULL, NULL, NULL);
    CHECK(e && agio_dt_info(e)->size == 0 && agio_dt_info(e)->extent == 0, "empty struct");
    int64_t one = 1, neg = -3;
    agio_dt *nd = agio_dt_hindexed(1, &one, &neg, agio_dt_bytes(2));
    CHECK(nd && !agio_dt_info(nd)->nonneg && agio_dt_info(nd)->lb == -3, "negative disp");
    agio_dt *desc = agio_dt_hvector(3, 1, -4, agio_dt_bytes(2));
    CHECK(desc && !agio_dt_info(desc)->monotone && agio_dt_info(desc)->lb == -8, "descending");
    agio_dt_release(desc);
    agio_dt_release(nd);
    agio_dt_release(e);
    agio_dt_release(r);
    agio_dt_release(h);
    agio_dt_release(b);
}

static void test_errors(void)
{
    int64_t big = INT64_MAX, one = 1, two[2] = {1, 1};
    CHECK(!agio_dt_hvector(INT64_MAX / 2, 1, 16, agio_dt_bytes(4)) &&
              agio_dt_last_error() == AGIO_EOVERFLOW, "size overflow");
    CHECK(!agio_dt_hvector(3, 1, INT64_MAX / 2 + 1, agio_dt_bytes(1)) &&
              agio_dt_last_error() == AGIO_EOVERFLOW, "extent overflow");
    CHECK(!agio_dt_hvector(2, INT64_MAX, 1, agio_dt_bytes(2)) &&
              agio_dt_last_error() == AGIO_EOVERFLOW, "blocklen overflow");
    CHECK(!agio_dt_hindexed(1, &one, &big, agio_dt_bytes(4)) &&
              agio_dt_last_error() == AGIO_EOVERFLOW, "displacement overflow");
    CHECK(!agio_dt_resized(agio_dt_bytes(1), INT64_MAX, 1) &&
              agio_dt_last_error() == AGIO_EOVERFLOW, "resized overflow");
    CHECK(!agio_dt_bytes(-1) && agio_dt_last_error() == AGIO_EARG, "negative length");
    CHECK(!agio_dt_hvector(2, 1, 8, agio_dt_hvector(-1, 1, 1, agio_dt_bytes(1))) &&
              agio_dt_last_error() == AGIO_EARG, "error passes through nesting");
    agio_dt *kids[2] = {agio_dt_bytes(4), agio_dt_hvector(1, -1, 0, agio_dt_bytes(1))};
    CHECK(!agio_dt_struct(2, two, two, kids) && agio_dt_last_error() == AGIO_EARG,
          "struct with a failed child");
    int64_t n = INT64_MAX / 8; /* huge but valid: seek near the end */
    agio_dt *v = agio_dt_hvector(n, 1, 8, agio_dt_bytes(1));
    int64_t off, len;
    if (CHECK(v, "huge vector")) {
        first_run(v, 0, n - 2, INT64_MAX, &off, &len);
        CHECK(off == (n - 2) * 8 && len == 1, "seek near the end of a huge vector");
    }
    agio_dt_release(v);
    /* depth: each level a non-mergeable vector of the previous one */
    agio_dt *t = agio_dt_bytes(1);
    int d;
    int64_t stride[40];
    for (d = 0; d < 40; d++) {
        stride[d] = 2 * agio_dt_info(t)->extent + 1;
        agio_dt *u = agio_dt_hvector(2, 1, stride[d], agio_dt_ref(t));
        if (!u) break;
        agio_dt_release(t);
        t = u;
    }
    CHECK(d == AGIO_DT_MAXDEPTH - 1 && agio_dt_last_error() == AGIO_EUNSUPP,
          "depth limit at %d (%d)", d, agio_dt_last_error());
    for (int64_t k = 0; k < 4096; k += 77) { /* data byte k: bit L selects level L's stride */
        int64_t want = 0;
        for (int l = 0; l < d; l++)
            if (k >> l & 1) want += stride[l];
        first_run(t, 0, k, 1, &off, &len);
        CHECK(off == want, "deepest type, byte %lld at %lld want %lld", (long long)k,
              (long long)off, (long long)want);
    }
    agio_dt_release(t);
}

/* 10^8 blocks: one node, bounded memory, seeks anywhere. */
static void test_huge(void)
{
    const int64_t N = 100000000;
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    agio_dt *v = agio_dt_hvector(N, 1, 16, agio_dt_bytes(4));
    const struct agio_dt_info *in = agio_dt_info(v);
    CHECK(in->size == 4 * N && in->nruns == N && in->extent == (N - 1) * 16 + 4 && in->monotone,
          "10^8 vector info");
    int64_t off, len;
    for (int t = 0; t < 2000; t++) {
        int64_t skip = rnd(12 * N), inst = skip / (4 * N), rem = skip % (4 * N);
        first_run(v, 7, skip, INT64_MAX, &off, &len);
        CHECK(off == 7 + inst * in->extent + rem / 4 * 16 + rem % 4 && len == 4 - rem % 4,
              "10^8 vector seek %lld", (long long)skip);
    }
    /* element: runs (0,3) (8,1) (13,1), extent 18; two per block, blocks 64 apart */
    int64_t bl[2] = {1, 2}, ds[2] = {0, 8};
    agio_dt *k2[2] = {agio_dt_bytes(3), agio_dt_resized(agio_dt_bytes(1), 0, 5)};
    agio_dt *el = agio_dt_struct(2, bl, ds, k2);
    int64_t eoff[5] = {0, 1, 2, 8, 13};
    agio_dt *w = agio_dt_hindexed(1, &bl[0], &ds[1], agio_dt_hvector(N, 2, 64, el));
    for (int t = 0; t < 2000; t++) {
        int64_t skip = rnd(10 * N), q = skip / 5, b = q / 2, j = q % 2;
        first_run(w, 0, skip, 1, &off, &len);
        CHECK(off == 8 + b * 64 + j * 18 + eoff[skip % 5], "nested 10^8 seek %lld",
              (long long)skip);
    }
    getrusage(RUSAGE_SELF, &ru1);
    CHECK(ru1.ru_maxrss - ru0.ru_maxrss < 16 * 1024, "bounded memory (%ld KiB more)",
          ru1.ru_maxrss - ru0.ru_maxrss);
    agio_dt_release(w);
    agio_dt_release(v);
}

/* ---- subarray, darray -------------------------------------------------------------------- */

static void test_subarray(void)
{
    for (int t = 0; t < 300; t++) {
        int nd = 1 + (int)rnd(3), order = (int)rnd(2);
        int64_t sz[3], sub[3], st[3], gs[3], idx[3] = {0, 0, 0}, total = 1;
        for (int d = 0; d < nd; d++) {
            sz[d] = 1 + rnd(5);
            sub[d] = rnd(sz[d] + 1);
            st[d] = rnd(sz[d] - sub[d] + 1);
            total *= sub[d];
        }
        for (int k = 0, d; k < nd; k++) { /* k-th fastest dimension */
            d = order == AGIO_DT_ORDER_C ? nd - 1 - k : k;
            gs[d] = k == 0 ? 1 : gs[order == AGIO_DT_ORDER_C ? d + 1 : d - 1] *
                                     sz[order == AGIO_DT_ORDER_C ? d + 1 : d - 1];
        }
        agio_dt *old = agio_dt_resized(agio_dt_bytes(2), 0, 3);
        agio_dt *s = agio_dt_subarray(nd, sz, sub, st, order, old);
        if (!CHECK(s && agio_dt_info(s)->size == 2 * total, "subarray %d", t)) continue;
        int64_t full = 3;
        for (int d = 0; d < nd; d++) full *= sz[d];
        CHECK(agio_dt_info(s)->lb == 0 && agio_dt_info(s)->extent == full, "subarray bounds");
        int64_t *got = malloc((size_t)(2 * total + 1) * sizeof *got), w = 0;
        if (total) iter_bytes(s, 0, 0, 2 * total, INT64_MAX, got);
        for (int64_t e = 0; e < total && w >= 0; e++) {
            int64_t o = 0;
            for (int d = 0; d < nd; d++) o += (st[d] + idx[d]) * gs[d];
            if (got[w] != 3 * o || got[w + 1] != 3 * o + 1) w = -1;
            else w += 2;
            for (int k = 0; k < nd; k++) { /* odometer, fastest dimension first */
                int d = order == AGIO_DT_ORDER_C ? nd - 1 - k : k;
                if (++idx[d] < sub[d]) break;
                idx[d] = 0;
            }
        }
        CHECK(w >= 0, "subarray %d stream", t);
        free(got);
        agio_dt_release(s);
    }
}

static void test_darray(void)
{
    static const int64_t grids[][3] = {{1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {2, 2, 1},
                                       {1, 3, 2}, {2, 3, 1}, {5, 1, 1}, {1, 2, 3}};
    for (int t = 0; t < 400; t++) {
        int nd = 1 + (int)rnd(3), order = (int)rnd(2), dist[3];
        int64_t gsz[3], ps[3], darg[3], P = 1, total = 1;
        const int64_t *g = grids[rnd(8)];
        for (int d = 0; d < nd; d++) {
            gsz[d] = 1 + rnd(7);
            ps[d] = d < nd ? g[d] : 1;
            dist[d] = ps[d] == 1 && rnd(3) == 0 ? AGIO_DT_DIST_NONE : 1 + (int)rnd(2);
            darg[d] = rnd(2) ? AGIO_DT_DARG_DFLT : 1 + rnd(3);
            if (dist[d] == AGIO_DT_DIST_BLOCK && darg[d] != AGIO_DT_DARG_DFLT)
                darg[d] = (gsz[d] + ps[d] - 1) / ps[d] + rnd(2);
            P *= ps[d];
            total *= gsz[d];
        }
        char *seen = calloc((size_t)total, 1);
        int ok = 1;
        for (int64_t r = 0; r < P && ok; r++) {
            agio_dt *a = agio_dt_darray(P, r, nd, gsz, dist, darg, ps, order, agio_dt_bytes(1));
            if (!a || agio_dt_info(a)->extent != total || !agio_dt_info(a)->monotone) {
                ok = 0;
                break;
            }
            int64_t n = agio_dt_info(a)->size, *got = malloc((size_t)(n + 1) * sizeof *got);
            if (n) iter_bytes(a, 0, 0, n, INT64_MAX, got);
            for (int64_t i = 0; i < n; i++) {
                if (got[i] < 0 || got[i] >= total || seen[got[i]]++) ok = 0;
                if (i && got[i] <= got[i - 1]) ok = 0;
            }
            free(got);
            agio_dt_release(a);
        }
        for (int64_t i = 0; i < total && ok; i++) ok = seen[i] == 1;
        CHECK(ok, "darray %d: every element owned by exactly one rank", t);
        free(seen);
    }
    int64_t gs[1] = {10}, ps2[1] = {2}, ps1[1] = {1}, small[1] = {4};
    int blk[1] = {AGIO_DT_DIST_BLOCK}, none[1] = {AGIO_DT_DIST_NONE};
    CHECK(!agio_dt_darray(2, 0, 1, gs, blk, small, ps2, 0, agio_dt_bytes(1)) &&
              agio_dt_last_error() == AGIO_EARG, "darray: block too small");
    CHECK(!agio_dt_darray(2, 0, 1, gs, none, small, ps2, 0, agio_dt_bytes(1)), "darray: none");
    CHECK(!agio_dt_darray(2, 0, 1, gs, blk, small, ps1, 0, agio_dt_bytes(1)), "darray: nprocs");
}

/* ---- speed ------------------------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs per second walking one instance (best of 5); the run count must be info.nruns. */
static double runs_per_s(const agio_dt *dt)
{
    double best = 0;
    const struct agio_dt_info *in = agio_dt_info(dt);
    for (int rep = 0; rep < 5; rep++) {
        struct agio_dt_iter it;
        int64_t off, len, sum = 0, n = 0;
        double t0 = now();
        agio_dt_iter_init(&it, dt, 0, 0);
        for (; sum < in->size; n++) {
            agio_dt_iter_next(&it, INT64_MAX, &off, &len);
            sum += len;
        }
        double rate = (double)n / (now() - t0);
        CHECK(n == in->nruns, "speed run: %lld runs, want %lld", (long long)n,
              (long long)in->nruns);
        if (rate > best) best = rate;
    }
    return best;
}

static void test_speed(void)
{
    agio_dt *v = agio_dt_hvector(10000000, 1, 16, agio_dt_bytes(8));
    agio_dt *v2 =
        agio_dt_hvector(10000, 1, 1 << 20, agio_dt_hvector(1000, 1, 24, agio_dt_bytes(8)));
    int64_t n = 1000000, *bl = malloc((size_t)n * 8), *ds = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) {
        bl[i] = 1 + i % 3;
        ds[i] = 16 * i;
    }
    agio_dt *h = agio_dt_hindexed(n, bl, ds, agio_dt_bytes(4));
    double r1 = runs_per_s(v), r2 = runs_per_s(v2), r3 = runs_per_s(h);
    printf("iterator speed (best of 5): vector 1e7 blocks %.1f Mruns/s, 2-level vector %.1f "
           "Mruns/s, hindexed 1e6 %.1f Mruns/s\n",
           r1 / 1e6, r2 / 1e6, r3 / 1e6);
    CHECK(r1 > 1e7, "vector iteration at least 10 Mruns/s (%.1f)", r1 / 1e6);
    free(bl);
    free(ds);
    agio_dt_release(h);
    agio_dt_release(v2);
    agio_dt_release(v);
}

int main(void)
{
    const char *seed = getenv("AGIO_TEST_SEED"); /* default: a fixed seed */
    if (seed) rng += strtoull(seed, NULL, 0) * 0x9E3779B97F4A7C15ull;
    test_basics();
    test_errors();
    test_random_trees();
    test_subarray();
    test_darray();
    test_huge();
    test_speed();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
