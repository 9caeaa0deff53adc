/*
 * coll_state.h - per-file state of the collective engine (private to src/collective).
 */
#ifndef AGIO_COLL_STATE_H
#define AGIO_COLL_STATE_H

#include "cbio.h"
#include "coll.h"

/* A copy of written bytes: runs (offset, length) and their data in order. */
struct agio_wb_copy {
    char *buf;
    int64_t bytes, cap;
    int64_t (*runs)[2];
    int64_t n, cap_runs;
};

int agio_wb_add(struct agio_wb_copy *c, int64_t off, const void *data, int64_t len);
void agio_wb_clear(struct agio_wb_copy *c);
void agio_wb_free(struct agio_wb_copy *c);

/* Automatic mode (romio_cb_* = automatic): measured cost per byte of each path for each access
 * signature; updated only from values reduced across ranks, so every rank decides alike. */
#define AGIO_AUTO_SIGS 16
struct agio_auto_sig {
    int used;
    int64_t key;       /* direction, log2 of the average run, interleaving */
    double cost[2];    /* ns per byte: [0] independent, [1] two-phase; 0 = not measured */
    int64_t calls;
};

struct agio_coll_state {
    int *aggs;  /* candidate aggregators, spread over nodes (coll_aggr_mpi.c) */
    int naggs;  /* candidates */
    int nnodes;
    struct agio_cb_window win[2];
    struct agio_cb_worker worker;
    struct agio_dfile *direct; /* O_DIRECT descriptor of an aggregator, if the FS accepts it */
    int direct_tried;
    int can_lock;              /* -1 unknown, 0 no, 1 yes */
    /* (offset, length) pairs sent and received, grown on demand */
    int64_t *smeta, *rmeta;
    int64_t cap_sm, cap_rm;
    /* write-behind (coll_wb.c) */
    struct agio_wb_copy held; /* aggregator: the held partial stripe */
    struct agio_wb_copy mine; /* every rank: its own bytes in the held stripe */
    struct agio_wb_copy held_next; /* the stripe this call will hold, built in its last round */
    int self_flushed;         /* this rank wrote "mine" itself since the last collective */
    struct agio_auto_sig sigs[AGIO_AUTO_SIGS];
    int last_sig;             /* signature and path of the previous call (-1: none) */
    int last_path;
    int64_t last_bytes;
    uint64_t last_ns;         /* this rank's time in the previous call's data movement */
    int predict_indep;        /* 1 + is_write: the next call of that direction goes independent
                               * without an access exchange (coll_engine_mpi.c) */
};

/* Reduced facts about the access, identical on every rank. */
struct agio_access_sum {
    int64_t glo, ghi;     /* global accessed range */
    int64_t total;        /* bytes over all ranks */
    int64_t span_sum;     /* sum of each rank's hi - lo */
    int64_t runs;         /* estimated contiguous file runs over all ranks */
    int64_t writers;      /* ranks with data */
    int err;
    int self_flushed;     /* some rank wrote its held bytes itself since the last collective */
    int64_t last_ns;      /* slowest rank's time for the previous collective call */
    int overlap_view;     /* some rank's view has overlapping tiled instances */
};

/* Phase 1: my range and run estimate, reduced with two MPI_Allreduce calls. */

/* coll_auto_mpi.c: the automatic mode (decisions from reduced values only). */
int agio_auto_use_two_phase(struct agio_file *f, int is_write, const struct agio_access_sum *g);
void agio_auto_predict_next(struct agio_file *f, const struct agio_access_sum *g, int is_write,
                            int sig);
void agio_auto_charge_independent(struct agio_file *f, const struct agio_access_sum *g,
                                  int is_write);
/* Collective: seed a new file's measurements from rank 0's process-wide table (c may be NULL
 * on a rank whose allocation failed; it still takes part). */
void agio_auto_seed(struct agio_file *f, struct agio_coll_state *c);
/* Local: merge a closing file's measurements into the process-wide table. */
void agio_auto_learn(struct agio_file *f, const struct agio_coll_state *c);

#endif
