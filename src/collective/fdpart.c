/*
 * fdpart.c - file-domain partition strategies for two-phase I/O (contract in fdpart.h).
 *
 * Purpose: split the accessed range [lo, hi) among naggs aggregators and cut each aggregator's
 * share into rounds, as pure functions (no MPI), so every rank computes the same partition.
 *
 * Algorithms (notes/peers.md 1.4, 1.6, 1.7; Cray, "Optimizing MPI-IO for applications on Cray XT
 * systems", cb_align 0/1/2):
 *   EVEN          ROMIO's ADIOI_Calc_file_domains without alignment: domain a is
 *                 [lo + a*d, lo + (a+1)*d) clipped to hi, d = ceil((hi-lo)/naggs).
 *   STRIPE/BLOCK  GPFS's ADIOI_GPFS_Calc_file_domains: the range rounded out to the stripes
 *                 [k0, k1), k0 = lo/unit, k1 = ceil(hi/unit); aggregator a gets the contiguous run
 *                 of q+1 (a < rem) or q stripes, q = n/naggs, rem = n%naggs, n = k1-k0; the run is
 *                 trimmed to [lo, hi). Round r of a is the run's stripes [r*S, (r+1)*S), S =
 *                 round_bytes/unit, so round boundaries fall on stripe boundaries.
 *   CYCLIC        Lustre's ADIOI_LUSTRE_Calc_aggregator (Cray algorithm 2): stripe k belongs to
 *                 k % naggs. Round r is the G = S*naggs global stripes from first_stripe + r*G,
 *                 first_stripe = (k0/G)*G, so a stripe's slot in its round (k % G) never depends
 *                 on lo or hi.
 *
 * Invariants: domains are disjoint and cover [lo, hi); a STRIPE/BLOCK/CYCLIC stripe never has
 * bytes in two domains; a round of one aggregator has at most round_bytes bytes; for
 * EVEN/STRIPE/BLOCK the aggregators that have a round r form a prefix 0..m-1 (domain lengths and
 * run lengths do not increase with a), which the hull's binary search relies on.
 *
 * Overflow: arithmetic is done in stripe indices (all <= k1) or in offsets inside [lo, hi].
 * A stripe start k*unit is formed only for k < k1, where it is below hi; an index past k1 maps to
 * hi (stripe_off()). For CYCLIC, S is capped at INT64_MAX/naggs so that G fits. Hence every
 * 0 <= lo <= hi <= INT64_MAX is handled exactly and make never needs AGIO_EOVERFLOW.
 */
#include "collective/fdpart.h"

#include <stdlib.h>
#include <string.h>

#include "agio_err.h"

/* ceil(x / d) for x >= 0, d > 0, without forming x + d - 1. */
static int64_t ceil_div(int64_t x, int64_t d)
{
    return x / d + (x % d != 0);
}

/* Stripe index just past the range: ceil(hi / unit). */
static int64_t end_stripe(const struct agio_fdpart *p)
{
    return ceil_div(p->hi, p->unit);
}

/* Start of stripe k clamped to [lo, hi] (k1 = end_stripe(p)); k*unit < hi whenever k < k1. */
static int64_t stripe_off(const struct agio_fdpart *p, int64_t k1, int64_t k)
{
    if (k >= k1)
        return p->hi;
    int64_t off = k * p->unit;
    return off < p->lo ? p->lo : off;
}

/* STRIPE/BLOCK: first stripe *s and stripe count *cnt of aggregator a's run. */
static void run_of(const struct agio_fdpart *p, int a, int64_t *s, int64_t *cnt)
{
    int64_t k0 = p->lo / p->unit;
    int64_t n = p->hi > p->lo ? end_stripe(p) - k0 : 0;
    int64_t q = n / p->naggs, rem = n % p->naggs;

    *s = k0 + a * q + (a < rem ? a : rem);
    *cnt = q + (a < rem);
}

/* EVEN/STRIPE/BLOCK: round r of aggregator a as [*rlo, *rhi); returns 0 if a has no round r. */
static int linear_round(const struct agio_fdpart *p, int a, int64_t r, int64_t *rlo, int64_t *rhi)
{
    if (r < 0 || r >= p->nrounds)
        return 0;
    if (p->kind == AGIO_FD_EVEN) {
        int64_t start = p->bounds[a], len = p->bounds[a + 1] - start, rb = p->round_bytes;
        if (len == 0 || r > (len - 1) / rb)
            return 0;
        int64_t off = r * rb; /* < len */
        *rlo = start + off;
        *rhi = *rlo + (len - off < rb ? len - off : rb);
        return 1;
    }
    int64_t s, cnt, S = p->round_bytes / p->unit, k1 = end_stripe(p);
    run_of(p, a, &s, &cnt);
    if (cnt == 0 || r > (cnt - 1) / S)
        return 0;
    int64_t done = r * S; /* < cnt */
    *rlo = stripe_off(p, k1, s + done);
    *rhi = stripe_off(p, k1, s + done + (cnt - done < S ? cnt - done : S));
    return 1;
}

/* EVEN/STRIPE/BLOCK: the aggregator whose domain holds off (largest a with bounds[a] <= off;
 * bounds[0] = lo <= off < hi = bounds[naggs], so that domain is not empty). */
static int find_domain(const struct agio_fdpart *p, int64_t off)
{
    int lo = 0, hi = p->naggs - 1;

    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (p->bounds[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* CYCLIC: stripes per aggregator per round, and global stripes per round. */
static int64_t cyc_stripes(const struct agio_fdpart *p)
{
    return p->round_bytes / p->unit;
}

/* CYCLIC: first global stripe of round r (0 <= r < nrounds), and the stripe just past it. */
static int64_t cyc_base(const struct agio_fdpart *p, int64_t r, int64_t *end)
{
    int64_t g = cyc_stripes(p) * p->naggs, k1 = end_stripe(p);
    int64_t base = p->first_stripe + r * g; /* r*g < k1 - first_stripe */

    *end = g > k1 - base ? k1 : base + g;
    return base;
}

static int make_cyclic(struct agio_fdpart *p, int64_t round_bytes)
{
    int64_t s = round_bytes / p->unit;

    if (s < 1)
        s = 1;
    if (s > INT64_MAX / p->naggs)
        s = INT64_MAX / p->naggs; /* keeps G = s*naggs in range; depends on no offset */
    int64_t g = s * p->naggs, k1 = end_stripe(p);
    p->round_bytes = s * p->unit; /* s <= max(1, round_bytes/unit): no overflow */
    p->first_stripe = p->lo / p->unit / g * g;
    p->nrounds = p->hi > p->lo ? ceil_div(k1 - p->first_stripe, g) : 0;
    return 0;
}

static void make_even(struct agio_fdpart *p, int64_t round_bytes)
{
    int64_t len = p->hi - p->lo, d = ceil_div(len, p->naggs);

    for (int a = 0; a <= p->naggs; a++) {
        int64_t off = d == 0 || a > len / d ? len : a * d;
        p->bounds[a] = p->lo + off;
    }
    p->round_bytes = round_bytes;
    p->nrounds = len > 0 ? ceil_div(d, round_bytes) : 0; /* domain 0 is the largest */
}

static void make_stripe(struct agio_fdpart *p, int64_t round_bytes)
{
    int64_t s = round_bytes / p->unit, k1 = end_stripe(p), first, cnt0;

    if (s < 1)
        s = 1;
    p->round_bytes = s * p->unit;
    for (int a = 0; a < p->naggs; a++) {
        int64_t cnt;
        run_of(p, a, &first, &cnt);
        p->bounds[a] = stripe_off(p, k1, first);
    }
    p->bounds[p->naggs] = p->hi;
    run_of(p, 0, &first, &cnt0);
    p->first_stripe = first;
    p->nrounds = ceil_div(cnt0, s); /* run 0 is the longest; 0 for an empty range */
}

int agio_fdpart_make(struct agio_fdpart *p, enum agio_fd_kind kind, int naggs, int64_t lo,
                     int64_t hi, int64_t unit, int64_t round_bytes)
{
    if (!p)
        return AGIO_EARG;
    memset(p, 0, sizeof *p);
    switch (kind) {
    case AGIO_FD_EVEN:
        break;
    case AGIO_FD_STRIPE:
    case AGIO_FD_CYCLIC:
    case AGIO_FD_BLOCK:
        if (unit <= 0)
            return AGIO_EARG;
        break;
    default:
        return AGIO_EARG;
    }
    if (naggs < 1 || lo < 0 || lo > hi || round_bytes < 1)
        return AGIO_EARG;
    p->kind = kind;
    p->naggs = naggs;
    p->lo = lo;
    p->hi = hi;
    p->unit = unit; /* EVEN does not use it; kept for callers' statistics */
    if (kind == AGIO_FD_CYCLIC)
        return make_cyclic(p, round_bytes);
    p->bounds = calloc((size_t)naggs + 1, sizeof *p->bounds);
    if (!p->bounds) {
        memset(p, 0, sizeof *p);
        return AGIO_ENOMEM;
    }
    if (kind == AGIO_FD_EVEN)
        make_even(p, round_bytes);
    else
        make_stripe(p, round_bytes);
    return 0;
}

void agio_fdpart_free(struct agio_fdpart *p)
{
    if (!p)
        return;
    free(p->bounds);
    p->bounds = NULL;
}

int agio_fdpart_owner(const struct agio_fdpart *p, int64_t off, int64_t *round,
                      int64_t *piece_end)
{
    int64_t r, rlo, rhi;
    int a;

    if (!p || off < p->lo || off >= p->hi)
        return AGIO_EARG;
    if (p->kind == AGIO_FD_CYCLIC) {
        int64_t k = off / p->unit, end;
        a = (int)(k % p->naggs);
        r = (k - p->first_stripe) / (cyc_stripes(p) * p->naggs);
        cyc_base(p, r, &end);
        /* Neighbouring stripes have other owners unless naggs = 1: then the piece is the round. */
        rhi = stripe_off(p, end_stripe(p), p->naggs == 1 ? end : k + 1);
    } else {
        a = find_domain(p, off);
        if (p->kind == AGIO_FD_EVEN) {
            r = (off - p->bounds[a]) / p->round_bytes;
        } else {
            int64_t s, cnt;
            run_of(p, a, &s, &cnt);
            r = (off / p->unit - s) / (p->round_bytes / p->unit);
        }
        if (!linear_round(p, a, r, &rlo, &rhi))
            return AGIO_EINTERN; /* unreachable: off lies in a's domain */
    }
    if (round)
        *round = r;
    if (piece_end)
        *piece_end = rhi;
    return a;
}

/* CYCLIC: stripes base + a + j*naggs (j < S) of round r that lie in [lo, hi), in order. */
static int64_t cyclic_round(const struct agio_fdpart *p, int a, int64_t r,
                            void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    int64_t end, base = cyc_base(p, r, &end), k1 = end_stripe(p), k0 = p->lo / p->unit;
    int64_t total = 0, n = p->naggs;

    if (n == 1) {
        int64_t lo = stripe_off(p, k1, base), hi = stripe_off(p, k1, end);
        if (hi > lo && fn)
            fn(ctx, lo, hi);
        return hi - lo;
    }
    if (a >= end - base)
        return 0;
    int64_t k = base + a;
    if (k < k0) { /* skip a's stripes before lo without stepping past end */
        int64_t skip = ceil_div(k0 - k, n);
        if (skip > (end - k - 1) / n)
            return 0;
        k += skip * n;
    }
    for (;;) {
        int64_t lo = stripe_off(p, k1, k), hi = stripe_off(p, k1, k + 1);
        if (fn)
            fn(ctx, lo, hi);
        total += hi - lo;
        if (end - k <= n)
            break;
        k += n;
    }
    return total;
}

int64_t agio_fdpart_round(const struct agio_fdpart *p, int a, int64_t r,
                          void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    int64_t lo, hi;

    if (!p || a < 0 || a >= p->naggs)
        return AGIO_EARG;
    if (r < 0 || r >= p->nrounds)
        return 0;
    if (p->kind == AGIO_FD_CYCLIC)
        return cyclic_round(p, a, r, fn, ctx);
    if (!linear_round(p, a, r, &lo, &hi))
        return 0;
    if (fn)
        fn(ctx, lo, hi);
    return hi - lo;
}

void agio_fdpart_round_hull(const struct agio_fdpart *p, int64_t r, int64_t *rlo, int64_t *rhi)
{
    int64_t lo, hi, end;

    *rlo = *rhi = p ? p->lo : 0;
    if (!p || r < 0 || r >= p->nrounds)
        return;
    if (p->kind == AGIO_FD_CYCLIC) {
        int64_t base = cyc_base(p, r, &end), k1 = end_stripe(p);
        *rlo = stripe_off(p, k1, base);
        *rhi = stripe_off(p, k1, end);
        return;
    }
    /* Aggregators having round r are a prefix (file comment): find its last member. */
    int first = 0, last = p->naggs - 1;
    while (first < last) {
        int mid = first + (last - first + 1) / 2;
        if (linear_round(p, mid, r, &lo, &hi))
            first = mid;
        else
            last = mid - 1;
    }
    if (linear_round(p, 0, r, &lo, &hi))
        *rlo = lo;
    if (linear_round(p, first, r, &lo, &hi))
        *rhi = hi;
}
