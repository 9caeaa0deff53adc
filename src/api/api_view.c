/*
 * api_view.c - views and file pointers: set_view, get_view, seek, get_position, get_byte_offset,
 * get_type_extent.
 *
 * set_view is collective over the file's ranks: every rank validates its own arguments, one
 * agreement makes the outcome the same on all, and only then is the new view installed (the old
 * one stays on every rank if any rank failed). Positions are in etypes relative to the view.
 */
#include "api.h"
#include "collective/coll.h"
#include "datatype/datatype_mpi.h"

AGIO_DEF(int, MPI_File_set_view,
         (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
          const char *datarep, MPI_Info info))
{
    static const char fn[] = "MPI_File_set_view";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    struct agio_view nv;
    int frc = agio_coll_flush(f); /* held bytes belong to the old view's accesses */
    if (frc)
        rc = frc;
    else if (disp == MPI_DISPLACEMENT_CURRENT)
        rc = (f->amode & MPI_MODE_SEQUENTIAL) ? AGIO_EUNSUPP : AGIO_EOFFSET;
    else
        rc = agio_view_make(&nv, disp, etype, filetype, datarep);
    struct agio_hints h = f->hints;
    char bad[256] = "";
    int hrc = rc ? 0 : agio_api_hints_from_info(&h, info, f->cfg.hints_display, bad, sizeof bad);
    PMPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, f->comm); /* rank 0's hints for all */
    int all = agio_api_agree(f->comm, rc ? rc : hrc);
    if (rc || (all && all != AGIO_EINFOVAL)) {
        if (!rc) agio_view_free(&nv);
        if (frc) return agio_api_fail(f, fn, all, "writing held write-behind data");
        return agio_api_fail(f, fn, all, rc ? NULL : "failed on another rank");
    }
    pthread_mutex_lock(&f->lock);
    agio_view_free(&f->view);
    f->view = nv;
    f->fp_ind = 0;
    f->hints = h;
    pthread_mutex_unlock(&f->lock);
    return all ? agio_api_fail(f, fn, all, bad[0] ? bad : "malformed hint value") : MPI_SUCCESS;
}

static int dup_out(MPI_Datatype t, MPI_Datatype *out)
{
    int ni, na, nd, comb;
    PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        *out = t;
        return MPI_SUCCESS;
    }
    return PMPI_Type_dup(t, out);
}

AGIO_DEF(int, MPI_File_get_view,
         (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
          char *datarep))
{
    static const char fn[] = "MPI_File_get_view";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    if (!disp || !etype || !filetype || !datarep) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    pthread_mutex_lock(&f->lock);
    *disp = (MPI_Offset)f->view.disp;
    int e = dup_out(f->view.etype, etype);
    if (e == MPI_SUCCESS) e = dup_out(f->view.ftype, filetype);
    snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", f->view.datarep);
    pthread_mutex_unlock(&f->lock);
    return e == MPI_SUCCESS ? MPI_SUCCESS : agio_api_fail(f, fn, AGIO_ETYPE, NULL);
}

AGIO_DEF(int, MPI_File_seek, (MPI_File fh, MPI_Offset offset, int whence))
{
    static const char fn[] = "MPI_File_seek";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    if (f->amode & MPI_MODE_SEQUENTIAL) return agio_api_fail(f, fn, AGIO_EUNSUPP, NULL);
    int64_t base = 0, size = 0, pos;
    pthread_mutex_lock(&f->lock);
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = f->fp_ind; break;
    case MPI_SEEK_END:
        rc = agio_drv_get_size(f->df, &size);
        base = agio_view_etypes_before(&f->view, size);
        break;
    default: rc = AGIO_EARG;
    }
    if (!rc && __builtin_add_overflow(base, (int64_t)offset, &pos)) rc = AGIO_EOVERFLOW;
    if (!rc && pos < 0) rc = AGIO_EOFFSET;
    if (!rc) f->fp_ind = pos;
    pthread_mutex_unlock(&f->lock);
    return rc ? agio_api_fail(f, fn, rc, whence == MPI_SEEK_END || whence == MPI_SEEK_CUR ||
                                                 whence == MPI_SEEK_SET
                                             ? "resulting position"
                                             : "invalid whence")
              : MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_get_position, (MPI_File fh, MPI_Offset *offset))
{
    static const char fn[] = "MPI_File_get_position";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    if (!offset) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    if (f->amode & MPI_MODE_SEQUENTIAL) return agio_api_fail(f, fn, AGIO_EUNSUPP, NULL);
    pthread_mutex_lock(&f->lock);
    *offset = (MPI_Offset)f->fp_ind;
    pthread_mutex_unlock(&f->lock);
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
{
    static const char fn[] = "MPI_File_get_byte_offset";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    if (!disp) return agio_api_fail(f, fn, AGIO_EARG, NULL);
    if (offset < 0) return agio_api_fail(f, fn, AGIO_EOFFSET, NULL);
    if (f->amode & MPI_MODE_SEQUENTIAL) return agio_api_fail(f, fn, AGIO_EUNSUPP, NULL);
    int64_t skip;
    if (agio_mul_overflow(offset, f->view.esize, &skip))
        return agio_api_fail(f, fn, AGIO_EOVERFLOW, NULL);
    pthread_mutex_lock(&f->lock);
    *disp = (MPI_Offset)agio_view_byte_offset(&f->view, offset);
    pthread_mutex_unlock(&f->lock);
    return MPI_SUCCESS;
}

static int type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent, MPI_Count *cext)
{
    static const char fn[] = "MPI_File_get_type_extent";
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    if (datatype == MPI_DATATYPE_NULL) return agio_api_fail(f, fn, AGIO_ETYPE, NULL);
    MPI_Count lb, ext;
    if (PMPI_Type_get_extent_x(datatype, &lb, &ext) != MPI_SUCCESS)
        return agio_api_fail(f, fn, AGIO_ETYPE, NULL);
    if (extent) *extent = (MPI_Aint)ext; /* "native": the extent in memory */
    if (cext) *cext = ext;
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
{
    if (!extent) return agio_api_fail(agio_file_lookup(fh), "MPI_File_get_type_extent", AGIO_EARG, NULL);
    return type_extent(fh, datatype, extent, NULL);
}

#if MPI_VERSION >= 4
AGIO_DEF(int, MPI_File_get_type_extent_c, (MPI_File fh, MPI_Datatype datatype, MPI_Count *extent))
{
    if (!extent) return agio_api_fail(agio_file_lookup(fh), "MPI_File_get_type_extent_c", AGIO_EARG, NULL);
    return type_extent(fh, datatype, NULL, extent);
}
#endif
