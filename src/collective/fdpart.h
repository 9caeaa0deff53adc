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
 * Rounds: for EVEN/STRIPE/BLOCK, round r of aggregator a is bytes
 *   [start_a + r*R, min(end_a, start_a + (r+1)*R)) with R = round_bytes (for STRIPE/BLOCK, R is
 *   rounded down to a multiple of unit, at least one unit, and the round boundaries fall on unit
 *   boundaries: the first round of a domain that starts mid-unit ends at a unit boundary);
 * for CYCLIC, round r covers the global stripes [r*S*naggs, (r+1)*S*naggs) with S = max(1,
 *   round_bytes / unit) - i.e. S stripes per aggregator - intersected with [lo, hi); rounds with
 *   no byte in [lo, hi) are skipped by numbering rounds from the one containing lo.
 * nrounds is the maximum over aggregators, so every rank runs the same number of rounds.
 * Invariants (unit-tested): domains are disjoint and cover [lo, hi) exactly; for STRIPE, BLOCK and
 * CYCLIC no unit-sized stripe has bytes in two domains; CYCLIC ownership depends only on the
 * offset; every piece returned lies in one aggregator's domain and one round.
 */
#ifndef AGIO_FDPART_H
#define AGIO_FDPART_H

#include <stdint.h>

enum agio_fd_kind { AGIO_FD_EVEN = 0, AGIO_FD_STRIPE = 1, AGIO_FD_CYCLIC = 2, AGIO_FD_BLOCK = 3 };

struct agio_fdpart {
    enum agio_fd_kind kind;
    int naggs;
    int64_t lo, hi;       /* accessed range */
    int64_t unit;         /* stripe or block size (> 0 for STRIPE, CYCLIC, BLOCK) */
    int64_t round_bytes;  /* effective bytes per aggregator per round (after rounding) */
    int64_t nrounds;      /* rounds every rank runs */
    int64_t first_stripe; /* CYCLIC: first global stripe of round 0 */
    int64_t *bounds;      /* EVEN/STRIPE/BLOCK: naggs + 1 domain boundaries (domain a is
                           * [bounds[a], bounds[a+1]), possibly empty); NULL for CYCLIC */
};

/* Build a partition. unit is ignored for EVEN; for the others unit <= 0 is AGIO_EARG. naggs >= 1,
 * lo <= hi, round_bytes >= 1. Returns 0, AGIO_EARG or AGIO_ENOMEM. An empty range gives
 * nrounds 0. */
int agio_fdpart_make(struct agio_fdpart *p, enum agio_fd_kind kind, int naggs, int64_t lo,
                     int64_t hi, int64_t unit, int64_t round_bytes);
void agio_fdpart_free(struct agio_fdpart *p);

/* Owner of byte `off` (lo <= off < hi): returns the aggregator index, and in *round the round in
 * which it is handled and in *piece_end the end of the contiguous piece starting at off that has
 * the same owner and round (<= hi). O(1) for CYCLIC, O(log naggs) otherwise. */
int agio_fdpart_owner(const struct agio_fdpart *p, int64_t off, int64_t *round,
                      int64_t *piece_end);

/* The file ranges aggregator a handles in round r, in increasing offset order: calls fn(ctx, lo,
 * hi) for each non-empty range. EVEN/STRIPE/BLOCK give at most one range; CYCLIC gives up to S
 * stripes (adjacent ones are not merged since they belong to one aggregator only when naggs = 1,
 * in which case they are merged). Returns the bytes in round r of a. */
int64_t agio_fdpart_round(const struct agio_fdpart *p, int a, int64_t r,
                          void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx);

/* The smallest file range [*rlo, *rhi) containing every byte handled in round r by any
 * aggregator (for CYCLIC a contiguous range; for the others the hull of the naggs ranges). */
void agio_fdpart_round_hull(const struct agio_fdpart *p, int64_t r, int64_t *rlo, int64_t *rhi);

#endif
