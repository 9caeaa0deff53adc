/*
 * coll_auto_mpi.c - the automatic mode of collective I/O (romio_cb_read/write = automatic).
 *
 * For each access signature (direction, log2 of the average run, interleaving) both paths -
 * independent and two-phase - are timed (the slowest rank's time, reduced in the next access
 * exchange); the cheaper measured path is taken and the other re-measured with a period that
 * grows with their cost ratio. Calls predicted to go independent skip the access exchange.
 * Measurements persist per file system across files (rank 0's copy is broadcast when a file's
 * collective state is created).
 * Invariant: every decision uses only values reduced across the file's ranks or broadcast from
 * rank 0, so all ranks take the same path.
 */
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "coll_state.h"

/* Automatic-mode measurements outlive files: a process-wide table per file system (st_dev).
 * A new file's table is rank 0's copy, broadcast inside the (collective) first call, so every
 * rank of the file starts from the same values; at close a file's table merges back (local). */
static pthread_mutex_t learned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t dev;
    struct agio_auto_sig sig;
} learned[4 * AGIO_AUTO_SIGS];

static uint64_t file_dev(struct agio_file *f)
{
    struct stat st;
    return (f->df && f->df->fd >= 0 && fstat(f->df->fd, &st) == 0) ? (uint64_t)st.st_dev : 0;
}

void agio_auto_seed(struct agio_file *f, struct agio_coll_state *c)
{
    struct agio_auto_sig sigs[AGIO_AUTO_SIGS];
    uint64_t dev = file_dev(f);
    memset(sigs, 0, sizeof sigs);
    if (f->rank == 0) {
        int n = 0;
        pthread_mutex_lock(&learned_lock);
        for (unsigned i = 0; i < sizeof learned / sizeof learned[0] && n < AGIO_AUTO_SIGS; i++)
            if (learned[i].sig.used && learned[i].dev == dev) {
                sigs[n] = learned[i].sig;
                sigs[n++].calls = 0;
            }
        pthread_mutex_unlock(&learned_lock);
    }
    /* every rank takes part, even one whose allocation failed (c == NULL) */
    PMPI_Bcast(sigs, (int)sizeof sigs, MPI_BYTE, 0, f->comm);
    if (c) memcpy(c->sigs, sigs, sizeof sigs);
}

void agio_auto_learn(struct agio_file *f, const struct agio_coll_state *c)
{
    uint64_t dev = file_dev(f);
    pthread_mutex_lock(&learned_lock);
    for (int k = 0; k < AGIO_AUTO_SIGS; k++) {
        if (!c->sigs[k].used || (c->sigs[k].cost[0] == 0 && c->sigs[k].cost[1] == 0)) continue;
        unsigned n = sizeof learned / sizeof learned[0], i = 0, slot = n;
        for (; i < n; i++) {
            if (learned[i].sig.used && learned[i].dev == dev && learned[i].sig.key == c->sigs[k].key)
                break;
            if (!learned[i].sig.used && slot == n) slot = i;
        }
        if (i == n) i = slot < n ? slot : (unsigned)(c->sigs[k].key % n);
        learned[i].dev = dev;
        learned[i].sig = c->sigs[k];
    }
    pthread_mutex_unlock(&learned_lock);
}

/* Phase 2: two-phase or independent. Uses only reduced values and hints: same on all ranks.
 * automatic: the first calls of an access signature try both paths; afterwards the cheaper
 * measured path (ns per byte, slowest rank) is taken, and the other one re-measured every 64
 * calls so that a changed file system or load is noticed. */
static int64_t signature(int is_write, const struct agio_access_sum *g)
{
    int64_t avg = g->total / (g->runs > 0 ? g->runs : 1), lg = 0;
    while (avg > 1 && lg < 62) {
        avg >>= 1;
        lg++;
    }
    return (int64_t)is_write | lg << 1 | (int64_t)(g->span_sum > g->ghi - g->glo) << 8;
}

static void account_last(struct agio_coll_state *c, const struct agio_access_sum *g)
{
    if (c->last_sig < 0 || c->last_bytes <= 0 || g->last_ns <= 0) return;
    struct agio_auto_sig *sg = &c->sigs[c->last_sig];
    double cost = (double)g->last_ns / (double)c->last_bytes;
    double *slot = &sg->cost[c->last_path];
    /* Noise (a descheduled rank, another job) only adds time: keep the minimum, but let it
     * drift up 5% per sample so a lasting change in the file system is followed. */
    double drift = *slot * 1.05;
    *slot = (*slot > 0 && drift < cost) ? drift : cost;
}

/* The slot of an access signature (created, or a slot reused when the table is full). */
static int find_sig(struct agio_coll_state *c, int64_t key)
{
    int i = 0;
    while (i < AGIO_AUTO_SIGS && c->sigs[i].used && c->sigs[i].key != key)
        i++;
    if (i == AGIO_AUTO_SIGS) i = (int)(key % AGIO_AUTO_SIGS);
    struct agio_auto_sig *sg = &c->sigs[i];
    if (!sg->used || sg->key != key) *sg = (struct agio_auto_sig){1, key, {0, 0}, 0};
    return i;
}

/* Is a re-measurement of the losing path due on this call? Its period grows with the cost
 * ratio, so re-measuring never costs more than about 1/64 of the time spent (64 calls when the
 * paths are close, up to 65536 when one is 1000x dearer). */
static int explore_due(const struct agio_auto_sig *sg, int64_t call)
{
    double lo = sg->cost[0] < sg->cost[1] ? sg->cost[0] : sg->cost[1];
    double hi = sg->cost[0] < sg->cost[1] ? sg->cost[1] : sg->cost[0];
    double ratio = lo > 0 ? hi / lo : 1;
    int64_t period = (int64_t)(64 * (ratio < 1 ? 1 : ratio > 1024 ? 1024 : ratio));
    return call % period == 0;
}

static int auto_choice(struct agio_coll_state *c, int is_write, const struct agio_access_sum *g, int *sig)
{
    *sig = find_sig(c, signature(is_write, g));
    struct agio_auto_sig *sg = &c->sigs[*sig];
    sg->calls++;
    int interleaved = g->span_sum > g->ghi - g->glo;
    int64_t avg_run = g->total / (g->runs > 0 ? g->runs : 1);
    int guess = interleaved || avg_run < ((int64_t)4 << 20); /* untried: aggregation first */
    if (sg->cost[guess] == 0) return guess;
    if (sg->cost[!guess] == 0) return !guess;
    int best = sg->cost[1] <= sg->cost[0];
    return explore_due(sg, sg->calls) ? !best : best;
}

int agio_auto_use_two_phase(struct agio_file *f, int is_write, const struct agio_access_sum *g)
{
    struct agio_coll_state *c = f->coll;
    int64_t mode = f->hints.num[is_write ? AGIO_H_romio_cb_write : AGIO_H_romio_cb_read];
    account_last(c, g);
    c->last_sig = -1;
    /* two-phase needs views whose stream order is file order (binary searches by offset) */
    if (mode == AGIO_HINT_DISABLE || g->total == 0 || g->overlap_view) return 0;
    if (mode == AGIO_HINT_ENABLE) return 1;
    if (g->writers <= 1) return 0;
    int path = auto_choice(c, is_write, g, &c->last_sig);
    c->last_path = path;
    c->last_bytes = g->total;
    return path;
}

/* After an independent automatic call: if the next call of this direction is predicted to go
 * independent too (independent measured cheaper, and no re-measurement due), it skips the
 * access exchange and agrees once at its end. Decided from reduced values only: every rank
 * makes the same prediction. */
void agio_auto_predict_next(struct agio_file *f, const struct agio_access_sum *g, int is_write,
                            int sig)
{
    struct agio_coll_state *c = f->coll;
    int64_t mode = f->hints.num[is_write ? AGIO_H_romio_cb_write : AGIO_H_romio_cb_read];
    const struct agio_auto_sig *sg = sig >= 0 ? &c->sigs[sig] : NULL;
    c->predict_indep = 0;
    if (mode == AGIO_HINT_AUTO && sg && g->writers > 1 && sg->cost[0] > 0 && sg->cost[1] > 0 &&
        sg->cost[0] < sg->cost[1] && !explore_due(sg, sg->calls + 1))
        c->predict_indep = 1 + is_write;
}

/* The predicted-independent path took this call: charge its time (g->last_ns, the slowest
 * rank's) to the independent path of its signature and predict the next call. */
void agio_auto_charge_independent(struct agio_file *f, const struct agio_access_sum *g,
                                  int is_write)
{
    struct agio_coll_state *c = f->coll;
    int sig = find_sig(c, signature(is_write, g));
    c->sigs[sig].calls++;
    c->last_sig = sig;
    c->last_path = 0;
    c->last_bytes = g->total;
    account_last(c, g);
    c->last_sig = -1;
    agio_auto_predict_next(f, g, is_write, sig);
}
