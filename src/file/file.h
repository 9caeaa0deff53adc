/*
 * file.h - the open-file object behind agio's MPI_File handle, its view and file pointers.
 *
 * An MPI_File returned by agio is a struct agio_file * (checked by magic and by the handle
 * registry, which is also the Fortran integer table). The view is kept both as the user's MPI
 * datatypes (for MPI_File_get_view) and decoded (agio_dt) for the data path.
 */
#ifndef AGIO_FILE_H
#define AGIO_FILE_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "datatype/datatype.h"
#include "driver/driver.h"
#include "hints/hints.h"
#include "stats/stats.h"

struct agio_coll_state;

#define AGIO_FILE_MAGIC 0x6167696fu /* "agio" */

/* Process-wide settings decided on one rank at open and broadcast with the hints. */
struct agio_env_cfg {
    int stats;           /* AGIO_STATS: 0 off, 1 summary at close, 2 + trace */
    int hints_display;   /* AGIO_HINTS_DISPLAY=1 */
    char stats_file[512]; /* AGIO_STATS_FILE: JSON lines appended by rank 0 */
};

struct agio_view {
    int64_t disp;
    MPI_Datatype etype, ftype; /* as given (derived types duplicated, freed on change) */
    agio_dt *edt, *fdt;
    int64_t esize;             /* etype size in bytes */
    char datarep[64];
};

struct agio_file {
    uint32_t magic;
    int index;                 /* registry slot = Fortran handle */
    MPI_Comm comm;             /* private duplicate of the user's communicator */
    int rank, nprocs;
    int amode;
    char *name;                /* as given to MPI_File_open (for messages and stats) */
    const char *path;          /* name without a driver prefix (points into name) */
    const struct agio_driver *drv;
    struct agio_dfile *df;
    struct agio_hints hints;
    struct agio_env_cfg cfg;
    struct agio_stats stats;
    struct agio_view view;
    int64_t fp_ind;            /* individual file pointer, etypes relative to the view */
    int atomic;
    MPI_Errhandler eh;
    struct {
        int active;            /* a split collective is between begin and end */
        int is_write;
        int64_t bytes;         /* result of the begin part, reported by end */
    } split;
    struct agio_coll_state *coll; /* collective-buffering state, created on first use */
    pthread_mutex_t lock;      /* file pointer and view updates */
};

/* ---- registry (file_registry_mpi... here: file_obj.c) ---- */

/* Register f, assign f->index (>= 1). Returns 0 or AGIO_ENOMEM. */
int agio_file_register(struct agio_file *f);
void agio_file_unregister(struct agio_file *f);
/* The live file behind a handle, or NULL (MPI_FILE_NULL, closed or foreign handles). */
struct agio_file *agio_file_lookup(MPI_File fh);
/* Fortran integer handle <-> file (0 <-> none). */
struct agio_file *agio_file_from_index(int index);
/* Call fn for every open file (finalize); fn may unregister the file it is given. */
void agio_file_foreach(void (*fn)(struct agio_file *f));

/* Collective over comm: every rank passes its agio code, all get the lowest (most severe). */
int agio_file_agree(MPI_Comm comm, int code);

/* ---- view (file_view.c) ---- */

/* Initial view: disp 0, etype = filetype = MPI_BYTE, "native". */
int agio_view_init(struct agio_view *v);
void agio_view_free(struct agio_view *v);
/* Validate and build a new view into *out (v untouched on error). */
int agio_view_make(struct agio_view *out, MPI_Offset disp, MPI_Datatype etype,
                   MPI_Datatype ftype, const char *datarep);
/* File byte offset of view position `offset` (etypes). */
int64_t agio_view_byte_offset(const struct agio_view *v, int64_t offset);
/* Number of whole etypes of the view that lie before file byte `size` (for MPI_SEEK_END). */
int64_t agio_view_etypes_before(const struct agio_view *v, int64_t size);

#endif
