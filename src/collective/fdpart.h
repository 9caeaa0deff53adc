/*
 * fdpart.h - file-domain partition strategies for two-phase I/O (pure functions, no MPI).
 *
 * A partition assigns every byte of the accessed range [lo, hi) to exactly one of `naggs`
 * aggregators and cuts each aggregator's domain into rounds of at most `round_bytes` bytes.
 * Strategies (hint cb_align; Cray "Optimizing MPI-IO for applications on Cray XT systems"):
 *   AGIO_FD_EVEN     (0) even split of [lo, hi), no regard to boundaries;
 *   AGIO_FD_STRIPE   (1) split on `unit` (stripe) boundaries per call: every aggregator gets a
 *                        contiguous run of whole stripes (counts differ by at most one), the
 *                        first and last trimmed to [lo, hi); no stripe is in two domains;
 *   AGIO_FD_CYCLIC   (2) persistent stripe-cyclic: stripe k (bytes [k*unit, (k+1)*unit)) always
 *                        belongs to aggregator k mod naggs, whatever lo and hi are, so the same
 *                        aggregator handles the same stripes in every call, writes and reads;
 *   AGIO_FD_BLOCK    (3) block-aligned domains (GPFS / Blue Gene rule): like STRIPE with the file
 *                        system block as unit.
 * STRIPE/BLOCK domains: with k0 = lo/unit, k1 = ceil(hi/unit) and n = k1 - k0 stripes, aggregator
 *   a gets the run of n/naggs + 1 (a < n%naggs) or n/naggs stripes that follows a-1's run (the
 *   first ones get the extra stripe); if n < naggs, aggregators n.. get empty domains.
 * EVEN domains: size ceil((hi-lo)/naggs), the last ones possibly shorter or empty.
 * Rounds: for EVEN/STRIPE/BLOCK, round r of aggregator a is bytes
 *   [start_a + r*R, min(end_a, start_a + (r+1)*R)) with R = round_bytes (for STRIPE/BLOCK, R is
 *   rounded down to a multiple of unit, at least one unit, and the round boundaries fall on unit
 *   boundaries: start_a is taken as the start of a's first stripe, s_a*unit, and the round
 *   trimmed to [lo, hi), so the first round of a domain that starts mid-unit ends at a unit
 *   boundary and holds fewer than R bytes);
 * for CYCLIC, round r covers the S*naggs global stripes from first_stripe + r*S*naggs, with
 *   S = max(1, round_bytes / unit) - i.e. S stripes per aggregator - intersected with [lo, hi);
 *   first_stripe = lo/unit rounded down to a multiple of S*naggs, so rounds with no byte in
 *   [lo, hi) are skipped and a stripe k always sits in slot k mod (S*naggs) of its round, in every
 *   call. S is capped at INT64_MAX/naggs (only matters for absurd round_bytes) so that
 *   S*naggs fits in 64 bits; R = S*unit.
 * Every round r < nrounds has bytes for at least one aggregator; a given aggregator may have
 * none in some rounds (trailing rounds, or CYCLIC rounds clipped by lo/hi).
 * nrounds is the maximum over aggregators, so every rank runs the same number of rounds.
 * Invariants (unit-tested): domains are disjoint and cover [lo, hi) exactly; for STRIPE, BLOCK and
 * CYCLIC no unit-sized stripe has bytes in two domains; CYCLIC ownership depends only on the
 * offset; every piece returned lies in one aggregator's domain and one round.
 * Range: any 0 <= lo <= hi <= INT64_MAX is handled exactly (arithmetic is done in stripe indices,
 * and a stripe end beyond INT64_MAX is clamped to hi), so no call reports AGIO_EOVERFLOW.
 */
#ifndef AGIO_FDPART_H
#define AGIO_FDPART_H

#include <stdint.h>

enum agio_fd_kind { AGIO_FD_EVEN = 0, AGIO_FD_STRIPE = 1, AGIO_FD_CYCLIC = 2, AGIO_FD_BLOCK = 3 };

struct agio_fdpart {
    enum agio_fd_kind kind;
    int naggs;
    int64_t lo, hi;       /* accessed range */
    int64_t unit;         /* stripe or block size (> 0 for STRIPE, CYCLIC, BLOCK; for EVEN as
                           * given, unused by the partition) */
    int64_t round_bytes;  /* effective bytes per aggregator per round (after rounding) */
    int64_t nrounds;      /* rounds every rank runs */
    int64_t first_stripe; /* CYCLIC: first global stripe of round 0 (a multiple of S*naggs);
                           * STRIPE/BLOCK: lo/unit; EVEN: 0 */
    int64_t *bounds;      /* EVEN/STRIPE/BLOCK: naggs + 1 domain boundaries (domain a is
                           * [bounds[a], bounds[a+1]), possibly empty); NULL for CYCLIC */
};

/* Build a partition. unit is ignored for EVEN (only stored); for the others unit <= 0 is
 * AGIO_EARG. naggs >= 1, 0 <= lo <= hi, round_bytes >= 1, kind one of the four. Returns 0,
 * AGIO_EARG or AGIO_ENOMEM; on error *p is zeroed (bounds NULL), so agio_fdpart_free is safe.
 * An empty range gives nrounds 0 (bounds all lo). Overwrites *p without freeing it. */
int agio_fdpart_make(struct agio_fdpart *p, enum agio_fd_kind kind, int naggs, int64_t lo,
                     int64_t hi, int64_t unit, int64_t round_bytes);
void agio_fdpart_free(struct agio_fdpart *p); /* idempotent; NULL is a no-op */

/* Owner of byte `off` (lo <= off < hi): returns the aggregator index, and in *round the round in
 * which it is handled and in *piece_end the end of the contiguous piece starting at off that has
 * the same owner and round (<= hi): it is exactly the end of the agio_fdpart_round range holding
 * off. round and piece_end may be NULL. Returns AGIO_EARG if p is NULL or off is outside
 * [lo, hi). O(1) for CYCLIC, O(log naggs) otherwise. */
int agio_fdpart_owner(const struct agio_fdpart *p, int64_t off, int64_t *round,
                      int64_t *piece_end);

/* The file ranges aggregator a handles in round r, in increasing offset order: calls fn(ctx, lo,
 * hi) for each non-empty range. EVEN/STRIPE/BLOCK give at most one range; CYCLIC gives up to S
 * stripes (adjacent ones are not merged since they belong to one aggregator only when naggs = 1,
 * in which case they are merged). fn may be NULL (just count). Returns the bytes in round r of a,
 * 0 if r is outside [0, nrounds), AGIO_EARG if p is NULL or a is outside [0, naggs). */
int64_t agio_fdpart_round(const struct agio_fdpart *p, int a, int64_t r,
                          void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx);

/* The smallest file range [*rlo, *rhi) containing every byte handled in round r by any
 * aggregator (for CYCLIC a contiguous range; for the others the hull of the naggs ranges).
 * r outside [0, nrounds) gives the empty range [lo, lo). O(1) for CYCLIC, else O(log naggs). */
void agio_fdpart_round_hull(const struct agio_fdpart *p, int64_t r, int64_t *rlo, int64_t *rhi);

#endif
