/*
 * coll_state.h - per-file state of the collective engine (private to src/collective).
 */
#ifndef AGIO_COLL_STATE_H
#define AGIO_COLL_STATE_H

#include "cbio.h"
#include "coll.h"

struct agio_coll_state {
    int *aggs;  /* candidate aggregators, spread over nodes (coll_aggr_mpi.c) */
    int naggs;  /* candidates */
    int nnodes;
    struct agio_cb_window win[2];
    struct agio_cb_worker worker;
    struct agio_dfile *direct; /* O_DIRECT descriptor of an aggregator, if the FS accepts it */
    int direct_tried;
    int can_lock;              /* -1 unknown, 0 no, 1 yes */
    /* exchange buffers, grown on demand */
    char *sbuf, *rbuf;
    int64_t cap_s, cap_r;
    int64_t *smeta, *rmeta;
    int64_t cap_sm, cap_rm;
};

#endif
