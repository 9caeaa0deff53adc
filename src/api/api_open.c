/*
 * api_open.c - MPI_File_open, close, delete, and the flush at MPI_Finalize.
 *
 * Open (collective over comm), in numbered phases:
 *  1. local argument checks (amode rules of MPI-3.1 13.2.1, communicator, name);
 *  2. one MPI_Allreduce agrees on the checks and on identical amodes across ranks;
 *  3. rank 0 decides hints and settings (MPI_Info, then AGIO_HINTS, then the environment) and
 *     creates the file if asked, honouring EXCL; one MPI_Bcast shares the outcome, so all ranks
 *     take the same decisions even if their environments differ;
 *  4. the other ranks open the existing file; one MPI_Allreduce agrees on the result, and on
 *     failure every rank closes what it opened and returns the same error class.
 * Close is collective too: statistics are reduced, DELETE_ON_CLOSE unlinks after every rank has
 * closed. At MPI_Finalize a delete callback on MPI_COMM_SELF closes files the program left open
 * (locally: no collective calls there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "collective/coll.h"
#include "datatype/datatype_mpi.h"

#define ALL_MODES                                                                                  \
    (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL |         \
     MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND)

int agio_api_stats_report(struct agio_file *f); /* api_stats.c */

static int check_amode(int amode)
{
    int access = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) +
                 !!(amode & MPI_MODE_RDWR);
    if (access != 1 || (amode & ~ALL_MODES)) return AGIO_EAMODE;
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) return AGIO_EAMODE;
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) return AGIO_EAMODE;
    return 0;
}

static int drv_flags(int amode, int create)
{
    int fl = (amode & MPI_MODE_RDONLY) ? AGIO_DRV_RDONLY
             : (amode & MPI_MODE_WRONLY) ? AGIO_DRV_WRONLY : AGIO_DRV_RDWR;
    if (create && (amode & MPI_MODE_CREATE)) fl |= AGIO_DRV_CREATE;
    if (create && (amode & MPI_MODE_EXCL)) fl |= AGIO_DRV_EXCL;
    return fl;
}

static void read_env_cfg(struct agio_env_cfg *c)
{
    const char *s = getenv("AGIO_STATS");
    c->stats = s ? atoi(s) : 0;
    s = getenv("AGIO_HINTS_DISPLAY");
    c->hints_display = s ? atoi(s) : 0;
    s = getenv("AGIO_STATS_FILE");
    if (s) {
        strncpy(c->stats_file, s, sizeof c->stats_file - 1);
        if (!c->stats) c->stats = 1;
    }
}

static void warn_line(void *ctx, const char *msg)
{
    if (*(int *)ctx) fprintf(stderr, "%s\n", msg);
}

/* What rank 0 decides and broadcasts. */
struct open_decision {
    int rc;
    struct agio_env_cfg cfg;
    struct agio_hints hints;
};

/* Phase 3 on rank 0: hints, settings, and creation of the file. */
static void decide(struct agio_file *f, MPI_Info info, struct open_decision *d)
{
    char bad[256];
    read_env_cfg(&d->cfg);
    agio_hints_init(&d->hints);
    agio_api_hints_from_info(&d->hints, info, d->cfg.hints_display, bad, sizeof bad);
    const char *env = getenv("AGIO_HINTS");
    if (env) agio_hints_apply_env(&d->hints, env, f->path, warn_line, &d->cfg.hints_display);
    unsigned perm = (unsigned)d->hints.num[AGIO_H_agio_file_perm];
    d->rc = agio_drv_open(f->drv, f->path, drv_flags(f->amode, 1), perm, &f->stats, &f->df);
}

static struct agio_file *new_file(MPI_Comm comm, const char *name, int amode)
{
    struct agio_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->name = strdup(name);
    if (!f->name || PMPI_Comm_dup(comm, &f->comm) != MPI_SUCCESS) {
        free(f->name);
        free(f);
        return NULL;
    }
    PMPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(f->comm, &f->rank);
    PMPI_Comm_size(f->comm, &f->nprocs);
    f->amode = amode;
    f->drv = agio_drv_select(f->name, &f->path);
    pthread_mutex_init(&f->lock, NULL);
    f->eh = agio_eh_null_default();
    return f;
}

static void free_file(struct agio_file *f)
{
    if (!f) return;
    agio_coll_free(f);
    if (f->df) agio_drv_close(f->df);
    agio_view_free(&f->view);
    agio_eh_release(f->eh);
    if (f->comm != MPI_COMM_NULL) PMPI_Comm_free(&f->comm);
    pthread_mutex_destroy(&f->lock);
    free(f->name);
    free(f);
}

/* Phases 3-4 for an allocated file object; returns the agreed code. */
static int open_collective(struct agio_file *f, MPI_Info info)
{
    struct open_decision d;
    memset(&d, 0, sizeof d);
    if (f->rank == 0) decide(f, info, &d);
    PMPI_Bcast(&d, (int)sizeof d, MPI_BYTE, 0, f->comm);
    if (d.rc) return d.rc; /* every rank returns rank 0's class */
    f->cfg = d.cfg;
    f->hints = d.hints;
    int rc = 0;
    if (f->rank != 0) {
        rc = agio_drv_open(f->drv, f->path, drv_flags(f->amode, 0), 0, &f->stats, &f->df);
    }
    if (!rc) rc = agio_view_init(&f->view);
    if (!rc && (f->amode & MPI_MODE_APPEND)) {
        int64_t size = 0;
        rc = agio_drv_get_size(f->df, &size);
        f->fp_ind = size; /* initial view: etype MPI_BYTE */
    }
    if (!rc) rc = agio_file_register(f);
    return agio_api_agree(f->comm, rc);
}

AGIO_DEF(int, MPI_File_open,
         (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
{
    static const char fn[] = "MPI_File_open";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    int inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return agio_api_fail(NULL, fn, AGIO_ECOMM, "null, invalid or inter-communicator");
    if (fh) *fh = MPI_FILE_NULL;
    /* Phases 1-2: agree on local checks and on identical amodes. */
    int local = !fh ? AGIO_EARG : !filename ? AGIO_EBADNAME : !*filename ? AGIO_EBADNAME
                                                              : check_amode(amode);
    int in[3] = {-local, amode, -amode}, out[3];
    if (PMPI_Allreduce(in, out, 3, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return agio_api_fail(NULL, fn, AGIO_ECOMM, NULL);
    if (out[0]) {
        rc = -out[0];
        return agio_api_fail(NULL, fn, rc, local ? (rc == AGIO_EAMODE ? "invalid amode" : NULL)
                                                 : "invalid argument on another rank");
    }
    if (out[1] != -out[2])
        return agio_api_fail(NULL, fn, AGIO_ENOTSAME, "amode differs between ranks");
    struct agio_file *f = new_file(comm, filename, amode);
    rc = f ? 0 : AGIO_ENOMEM;
    rc = agio_api_agree(comm, rc);
    if (rc) {
        free_file(f);
        return agio_api_fail(NULL, fn, rc, filename);
    }
    rc = open_collective(f, info);
    if (rc) {
        char detail[600];
        snprintf(detail, sizeof detail, "%s", filename);
        agio_file_unregister(f);
        free_file(f);
        return agio_api_fail(NULL, fn, rc, detail);
    }
    if (f->cfg.hints_display && f->rank == 0) agio_hints_display(stderr, &f->hints, f->name);
    if (f->cfg.stats >= 2) {
        f->df->trace_rank = f->rank;
        f->df->trace_name = f->name;
    }
    *fh = (MPI_File)f;
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_close, (MPI_File * fh))
{
    static const char fn[] = "MPI_File_close";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = fh ? agio_file_lookup(*fh) : NULL;
    if (!f) return agio_api_badfile(fn);
    int frc = agio_coll_flush(f);
    int crc = agio_drv_close(f->df);
    if (!crc) crc = frc;
    f->df = NULL;
    crc = agio_api_agree(f->comm, crc);
    if (f->cfg.stats) agio_api_stats_report(f);
    int drc = 0;
    if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
        drc = agio_drv_remove(f->drv, f->path);
    PMPI_Bcast(&drc, 1, MPI_INT, 0, f->comm);
    rc = crc ? crc : drc;
    /* Errors go to the file's handler while the handle still names the file. */
    int mrc = rc ? agio_api_fail(f, fn, rc, crc ? "closing the file" : "deleting on close")
                 : MPI_SUCCESS;
    agio_file_unregister(f);
    free_file(f);
    *fh = MPI_FILE_NULL;
    return mrc;
}

AGIO_DEF(int, MPI_File_delete, (const char *filename, MPI_Info info))
{
    static const char fn[] = "MPI_File_delete";
    (void)info;
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    if (!filename || !*filename) return agio_api_fail(NULL, fn, AGIO_EBADNAME, NULL);
    const char *path;
    const struct agio_driver *drv = agio_drv_select(filename, &path);
    rc = agio_drv_remove(drv, path);
    return rc ? agio_api_fail(NULL, fn, rc, filename) : MPI_SUCCESS;
}

/* ---- MPI_Finalize: close what the program left open (local only). ---- */

static void close_at_finalize(struct agio_file *f)
{
    agio_file_unregister(f);
    agio_coll_flush(f);
    agio_coll_free(f);
    if (f->df) agio_drv_close(f->df);
    f->df = NULL;
    agio_view_free(&f->view);
    free(f->name);
    free(f); /* the communicator and errhandler are the MPI's to reclaim at finalize */
}

static int finalize_cb(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)attr, (void)extra;
    agio_file_foreach(close_at_finalize);
    agio_dt_mpi_finalize();
    return MPI_SUCCESS;
}

static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void install_hook(void)
{
    int key;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_cb, &key, NULL) == MPI_SUCCESS)
        PMPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
}

void agio_api_install_finalize_hook(void)
{
    pthread_once(&hook_once, install_hook);
}
