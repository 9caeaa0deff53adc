/*
 * coll_aggr_mpi.c - which ranks aggregate (collective over the file's ranks, once per file).
 *
 * Nodes come from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), or from the hint agio_node_size
 * (every N consecutive ranks form a node; lets tests on one machine exercise placement). Each
 * node's leader is its lowest rank; one MPI_Allgather of (leader, processor name) per rank gives
 * every rank the same node table. Candidates per node follow cb_config_list ("*:N", "*:*",
 * "name:N", comma-separated, first match wins; names compare with MPI_Get_processor_name). The
 * list is ordered round-robin over nodes - node 0's first candidate, node 1's first, ..., then
 * the second candidates - so the first k aggregators are spread evenly over nodes (the Blue
 * Gene/L pset rule), and cb_nodes (when > 0) keeps the first cb_nodes of that order.
 */
#include <stdlib.h>
#include <string.h>

#include "agio_err.h"
#include "coll_state.h"

/* Allowance for a node named `name` from a cb_config_list; -1 means all ranks of the node. */
static int allowance(const char *list, const char *name)
{
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', n);
        size_t nl = colon ? (size_t)(colon - p) : n;
        int match = (nl == 1 && p[0] == '*') || (nl == strlen(name) && !strncmp(p, name, nl));
        if (match) {
            if (!colon) return 1;
            if (colon[1] == '*') return -1;
            return atoi(colon + 1);
        }
        p += n + (end ? 1 : 0);
    }
    return 0;
}

struct rank_info {
    int leader;
    char name[MPI_MAX_PROCESSOR_NAME];
};

static int node_leader(struct agio_file *f, int *leader)
{
    int64_t ns = f->hints.num[AGIO_H_agio_node_size];
    if (ns > 0) {
        *leader = (int)(f->rank / ns * ns);
        return 0;
    }
    MPI_Comm node;
    if (PMPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, f->rank, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return AGIO_EINTERN;
    int rc = PMPI_Allreduce(&f->rank, leader, 1, MPI_INT, MPI_MIN, node);
    PMPI_Comm_free(&node);
    return rc == MPI_SUCCESS ? 0 : AGIO_EINTERN;
}

/* Build the ordered candidate list from the gathered table. */
static int order_candidates(struct agio_coll_state *c, const struct rank_info *all, int p,
                            const char *list, int64_t cb_nodes)
{
    int *leaders = malloc(sizeof(int) * (size_t)p), *cnt = calloc((size_t)p, sizeof(int));
    c->aggs = malloc(sizeof(int) * (size_t)p);
    if (!leaders || !cnt || !c->aggs) {
        free(leaders);
        free(cnt);
        return AGIO_ENOMEM;
    }
    int nn = 0;
    for (int r = 0; r < p; r++)
        if (all[r].leader == r) leaders[nn++] = r;
    c->nnodes = nn;
    c->naggs = 0;
    for (int round = 0; round < p && c->naggs < p; round++) {
        int added = 0;
        for (int k = 0; k < nn; k++) {
            int allow = allowance(list, all[leaders[k]].name);
            if (allow >= 0 && round >= allow) continue;
            /* the round-th rank of node k, in rank order */
            for (int r = 0, seen = 0; r < p; r++) {
                if (all[r].leader != leaders[k]) continue;
                if (seen++ == round) {
                    c->aggs[c->naggs++] = r;
                    added = 1;
                    break;
                }
            }
        }
        if (!added) break;
    }
    if (c->naggs == 0) c->aggs[c->naggs++] = 0; /* a list matching no node: rank 0 */
    if (cb_nodes > 0 && c->naggs > cb_nodes) c->naggs = (int)cb_nodes;
    free(leaders);
    free(cnt);
    return 0;
}

int agio_coll_aggregators(struct agio_file *f, const int **aggs, int *naggs, int *nnodes)
{
    struct agio_coll_state *c = f->coll;
    if (!c->aggs) {
        struct rank_info me, *all = malloc(sizeof *all * (size_t)f->nprocs);
        int rc = all ? node_leader(f, &me.leader) : AGIO_ENOMEM, len = 0;
        memset(me.name, 0, sizeof me.name);
        PMPI_Get_processor_name(me.name, &len);
        rc = agio_file_agree(f->comm, rc);
        if (!rc && PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE,
                                  f->comm) != MPI_SUCCESS)
            rc = AGIO_EINTERN;
        if (!rc)
            rc = order_candidates(c, all, f->nprocs, f->hints.str[AGIO_H_cb_config_list],
                                  f->hints.num[AGIO_H_cb_nodes]);
        free(all);
        if (rc) return rc;
    }
    *aggs = c->aggs;
    *naggs = c->naggs;
    *nnodes = c->nnodes;
    return 0;
}
