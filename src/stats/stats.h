/*
 * stats.h - per-file statistics: counters at the driver boundary and at the api entry points.
 *
 * One struct agio_stats per open file per rank, updated with relaxed atomic adds (safe from agio's
 * I/O threads). The api layer sums them across ranks at close and prints them with the formatters
 * below when AGIO_STATS is set. No MPI here.
 */
#ifndef AGIO_STATS_H
#define AGIO_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "stats_table.h"

enum agio_stat_id {
#define AGIO_X_ID(name, kind, reduce, doc) AGIO_ST_##name,
    AGIO_STATS_TABLE(AGIO_X_ID)
#undef AGIO_X_ID
    AGIO_ST_COUNT
};

struct agio_stats {
    uint64_t v[AGIO_ST_COUNT];
    uint64_t read_bins[AGIO_STATS_NBINS];
    uint64_t write_bins[AGIO_STATS_NBINS];
};

/* Number of uint64_t slots in struct agio_stats (for one MPI_Reduce of the whole struct). */
#define AGIO_STATS_NSLOTS (sizeof(struct agio_stats) / sizeof(uint64_t))

static inline void agio_stats_add(struct agio_stats *s, enum agio_stat_id id, uint64_t n)
{
    if (s) __atomic_fetch_add(&s->v[id], n, __ATOMIC_RELAXED);
}

/* Raise slot id to at least v (for counters reduced by maximum). */
static inline void agio_stats_max(struct agio_stats *s, enum agio_stat_id id, uint64_t v)
{
    if (!s) return;
    uint64_t cur = __atomic_load_n(&s->v[id], __ATOMIC_RELAXED);
    while (cur < v && !__atomic_compare_exchange_n(&s->v[id], &cur, v, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED))
        ;
}

/* Monotonic clock in nanoseconds. */
uint64_t agio_now_ns(void);

/* Size bin of one system transfer of len bytes. */
int agio_stats_bin(uint64_t len);

/* Lower bound of bin b, for labels ("4Ki"). */
const char *agio_stats_bin_label(int b);

/* Record one system read or write of len bytes that took ns nanoseconds. */
void agio_stats_sysio(struct agio_stats *s, int is_write, uint64_t len, uint64_t ns);

/* Per-slot reduction across ranks: 1 if the slot is summed, 0 if the maximum is taken. */
int agio_stats_slot_is_sum(unsigned slot);

/* Human-readable per-file summary; sum/max are the reductions across nranks ranks. */
void agio_stats_print_text(FILE *out, const char *path, int nranks, const struct agio_stats *sum,
                           const struct agio_stats *max);

/* The same as one JSON object (format "agio-stats", version 1), without trailing newline. */
void agio_stats_print_json(FILE *out, const char *path, int nranks, const struct agio_stats *sum,
                           const struct agio_stats *max);

/* Markdown table of every counter (name, kind, reduction, doc) for doc/stats.md. */
void agio_stats_print_doc(FILE *out);

#endif
