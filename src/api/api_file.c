/*
 * api_file.c - file-wide operations: sizes, sync, group, amode, info, atomicity, c2f/f2c.
 *
 * Collective ones (set_size, preallocate, sync, set_info, set_atomicity) agree on one outcome
 * across the file's ranks. set_size and preallocate act on rank 0 only (one truncate, not P
 * racing ones) and a barrier-like agreement orders them before any rank returns.
 */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "collective/coll.h"

/* Validated file or NULL after raising the error; *mpi_rc receives the code to return. */
static struct agio_file *enter(MPI_File fh, const char *fn, int *mpi_rc)
{
    int rc = agio_api_enter();
    if (rc) {
        *mpi_rc = agio_api_fail(NULL, fn, rc, NULL);
        return NULL;
    }
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) *mpi_rc = agio_api_badfile(fn);
    return f;
}

static int finish(struct agio_file *f, const char *fn, int own, int agreed)
{
    if (!agreed) return MPI_SUCCESS;
    return agio_api_fail(f, fn, agreed, own ? NULL : "failed on another rank");
}

/* Collective size change on rank 0: grow/shrink (set_size) or only grow (preallocate). */
static int size_op(MPI_File fh, MPI_Offset size, int prealloc, const char *fn)
{
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    int frc = agio_coll_flush(f); /* held write-behind bytes land before the size changes */
    int rc = frc ? frc : size < 0 ? AGIO_EARG : (f->amode & MPI_MODE_RDONLY) ? AGIO_EROFS
             : (f->amode & MPI_MODE_SEQUENTIAL) && !prealloc ? AGIO_EUNSUPP : 0;
    /* All ranks must pass the same size (the standard requires it; we check). */
    MPI_Offset mm[2] = {size, -size}, out[2];
    PMPI_Allreduce(mm, out, 2, MPI_OFFSET, MPI_MAX, f->comm);
    if (!rc && out[0] != -out[1]) rc = AGIO_ENOTSAME;
    int all = agio_api_agree(f->comm, rc);
    if (all) return finish(f, fn, rc, all);
    if (f->rank == 0) rc = prealloc ? agio_drv_preallocate(f->df, size) : agio_drv_set_size(f->df, size);
    all = agio_api_agree(f->comm, rc);
    return finish(f, fn, rc, all);
}

AGIO_DEF(int, MPI_File_set_size, (MPI_File fh, MPI_Offset size))
{
    return size_op(fh, size, 0, "MPI_File_set_size");
}

AGIO_DEF(int, MPI_File_preallocate, (MPI_File fh, MPI_Offset size))
{
    return size_op(fh, size, 1, "MPI_File_preallocate");
}

AGIO_DEF(int, MPI_File_get_size, (MPI_File fh, MPI_Offset *size))
{
    static const char fn[] = "MPI_File_get_size";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    if (!size) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    int64_t s = 0;
    int rc = agio_drv_get_size(f->df, &s);
    if (rc) return agio_api_fail(f, fn, rc, NULL);
    *size = (MPI_Offset)s;
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_sync, (MPI_File fh))
{
    static const char fn[] = "MPI_File_sync";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    int rc = agio_coll_flush(f);
    if (!rc && !(f->amode & MPI_MODE_RDONLY)) rc = agio_drv_sync(f->df);
    return finish(f, fn, rc, agio_api_agree(f->comm, rc));
}

AGIO_DEF(int, MPI_File_get_group, (MPI_File fh, MPI_Group *group))
{
    static const char fn[] = "MPI_File_get_group";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    if (!group) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    return PMPI_Comm_group(f->comm, group);
}

AGIO_DEF(int, MPI_File_get_amode, (MPI_File fh, int *amode))
{
    static const char fn[] = "MPI_File_get_amode";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    if (!amode) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    *amode = f->amode;
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_set_info, (MPI_File fh, MPI_Info info))
{
    static const char fn[] = "MPI_File_set_info";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    struct agio_hints h = f->hints;
    char bad[256] = "";
    int rc = agio_api_hints_from_info(&h, info, f->cfg.hints_display, bad, sizeof bad);
    /* rank 0's hints for all: ranks must never take different collective paths */
    PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, f->comm);
    int all = agio_api_agree(f->comm, rc);
    pthread_mutex_lock(&f->lock);
    f->hints = h; /* well-formed hints apply even when another one was malformed */
    pthread_mutex_unlock(&f->lock);
    if (all) return agio_api_fail(f, fn, all, bad[0] ? bad : "failed on another rank");
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_get_info, (MPI_File fh, MPI_Info *info_used))
{
    static const char fn[] = "MPI_File_get_info";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    if (!info_used) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    if (PMPI_Info_create(info_used) != MPI_SUCCESS) return agio_api_fail(f, fn, AGIO_ENOMEM, NULL);
    char val[AGIO_HINT_STRLEN];
    for (int i = 0; i < AGIO_H_COUNT; i++)
        PMPI_Info_set(*info_used, agio_hint_name(i), agio_hint_format(&f->hints, i, val, sizeof val));
    PMPI_Info_set(*info_used, "filename", f->name);
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_set_atomicity, (MPI_File fh, int flag))
{
    static const char fn[] = "MPI_File_set_atomicity";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    int v = flag ? 1 : 0, mm[2] = {v, -v}, out[2];
    PMPI_Allreduce(mm, out, 2, MPI_INT, MPI_MAX, f->comm);
    int rc = out[0] != -out[1] ? AGIO_ENOTSAME : agio_coll_flush(f);
    rc = agio_api_agree(f->comm, rc);
    if (!rc) f->atomic = v;
    return rc ? agio_api_fail(f, fn, rc, "flag differs between ranks") : MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_get_atomicity, (MPI_File fh, int *flag))
{
    static const char fn[] = "MPI_File_get_atomicity";
    int mrc;
    struct agio_file *f = enter(fh, fn, &mrc);
    if (!f) return mrc;
    if (!flag) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    *flag = f->atomic;
    return MPI_SUCCESS;
}

AGIO_DEF(MPI_Fint, MPI_File_c2f, (MPI_File fh))
{
    struct agio_file *f = agio_file_lookup(fh);
    return f ? (MPI_Fint)f->index : 0;
}

AGIO_DEF(MPI_File, MPI_File_f2c, (MPI_Fint fh))
{
    struct agio_file *f = agio_file_from_index((int)fh);
    return f ? (MPI_File)f : MPI_FILE_NULL;
}
