/*
 * api_hints_stats.c - the MPI side of the hints and stats modules: reading an MPI_Info into the
 * hints table, and reducing per-rank statistics at close (collective over the file's ranks).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "api.h"

int agio_api_hints_from_info(struct agio_hints *h, MPI_Info info, int display, char *bad,
                             size_t badlen)
{
    int rc = 0, nkeys = 0;
    if (info == MPI_INFO_NULL) return 0;
    if (PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS) return AGIO_EINFOVAL;
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1], msg[256];
        int flag = 0;
        if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS) continue;
        if (PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag) != MPI_SUCCESS || !flag)
            continue;
        int r = agio_hints_set(h, key, val, AGIO_HSRC_INFO, msg, sizeof msg);
        if (r == AGIO_EINFOVAL) {
            if (!rc && bad) snprintf(bad, badlen, "%s", msg);
            rc = AGIO_EINFOVAL;
        }
        if (r && display) fprintf(stderr, "%s\n", msg);
    }
    return rc;
}

/* Append one JSON line to path; never follow into an existing non-regular file, never create
 * with more than the umask allows. */
static void append_json(const char *path, const char *name, int nranks,
                        const struct agio_stats *sum, const struct agio_stats *max)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        fprintf(stderr, "agio: cannot write statistics to %s\n", path);
        return;
    }
    FILE *out = fdopen(fd, "a");
    if (!out) {
        close(fd);
        return;
    }
    agio_stats_print_json(out, name, nranks, sum, max);
    fputc('\n', out);
    fclose(out);
}

/* Collective over f->comm. */
int agio_api_stats_report(struct agio_file *f)
{
    struct agio_stats sum, max;
    uint64_t slots[AGIO_STATS_NSLOTS], s_out[AGIO_STATS_NSLOTS], m_out[AGIO_STATS_NSLOTS];
    memcpy(slots, &f->stats, sizeof slots);
    PMPI_Reduce(slots, s_out, (int)AGIO_STATS_NSLOTS, MPI_UINT64_T, MPI_SUM, 0, f->comm);
    PMPI_Reduce(slots, m_out, (int)AGIO_STATS_NSLOTS, MPI_UINT64_T, MPI_MAX, 0, f->comm);
    if (f->rank != 0) return 0;
    memcpy(&sum, s_out, sizeof sum);
    memcpy(&max, m_out, sizeof max);
    agio_stats_print_text(stderr, f->name, f->nprocs, &sum, &max);
    if (f->cfg.stats_file[0]) append_json(f->cfg.stats_file, f->name, f->nprocs, &sum, &max);
    return 0;
}
