/*
 * file_view.c - file views (MPI-3.1 13.3): displacement, etype, filetype, data representation.
 *
 * Rules checked here (the standard's, and what the data path relies on):
 *  - etype and filetype are committed, decodable types; the etype has non-zero size;
 *  - the filetype's size is a multiple of the etype's, its displacements are non-negative and
 *    monotonically non-decreasing within an instance (`monotone_instance`, `nonneg`);
 *  - the displacement is non-negative (MPI_DISPLACEMENT_CURRENT is for shared-pointer files);
 *  - data representations: "native" only in this release; others are MPI_ERR_UNSUPPORTED_DATAREP.
 * The user's derived types are duplicated so that the user may free theirs; get_view returns
 * duplicates again, as the standard asks.
 */
#include <string.h>

#include "agio_err.h"
#include "datatype/datatype_mpi.h"
#include "file.h"
#include "sieve/sieve.h"

static int is_predefined(MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 0;
    return comb == MPI_COMBINER_NAMED;
}

static int keep_type(MPI_Datatype t, MPI_Datatype *out)
{
    if (is_predefined(t)) {
        *out = t;
        return 0;
    }
    return PMPI_Type_dup(t, out) == MPI_SUCCESS ? 0 : AGIO_ETYPE;
}

static void drop_type(MPI_Datatype *t)
{
    if (*t != MPI_DATATYPE_NULL && !is_predefined(*t)) PMPI_Type_free(t);
    *t = MPI_DATATYPE_NULL;
}

int agio_view_init(struct agio_view *v)
{
    return agio_view_make(v, 0, MPI_BYTE, MPI_BYTE, "native");
}

void agio_view_free(struct agio_view *v)
{
    if (!v->edt && !v->fdt) return; /* never made (zero-filled): no MPI handles to release */
    drop_type(&v->etype);
    drop_type(&v->ftype);
    agio_dt_release(v->edt);
    agio_dt_release(v->fdt);
    v->edt = v->fdt = NULL;
}

static int check_datarep(const char *datarep)
{
    if (!datarep) return AGIO_EARG;
    /* "internal" is implementation-defined (MPI-3.1 13.5.2); agio's is the native one. */
    if (0 == strcmp(datarep, "native") || 0 == strcmp(datarep, "internal")) return 0;
    return AGIO_EDATAREP;
}

static int check_types(const agio_dt *edt, const agio_dt *fdt)
{
    const struct agio_dt_info *e = agio_dt_info(edt), *t = agio_dt_info(fdt);
    if (e->size <= 0 || !e->nonneg) return AGIO_ETYPE;
    if (t->size % e->size != 0) return AGIO_ETYPE;
    /* The standard asks a monotone typemap of one filetype instance; HDF5's chunked datasets
     * use filetypes whose data spans more than their extent (only instance 0 is accessed).
     * Such views are accepted; the two-phase engine sends them to the independent path. */
    if (!t->nonneg || !t->monotone_instance) return AGIO_ETYPE;
    if (t->size > 0 && t->extent <= 0) return AGIO_ETYPE;
    return 0;
}

int agio_view_make(struct agio_view *out, MPI_Offset disp, MPI_Datatype etype,
                   MPI_Datatype ftype, const char *datarep)
{
    struct agio_view v;
    memset(&v, 0, sizeof v);
    v.etype = v.ftype = MPI_DATATYPE_NULL;
    int rc = check_datarep(datarep);
    if (rc) return rc;
    if (disp < 0) return AGIO_EOFFSET;
    if (etype == MPI_DATATYPE_NULL || ftype == MPI_DATATYPE_NULL) return AGIO_ETYPE;
    rc = agio_dt_from_mpi(etype, &v.edt);
    if (!rc) rc = agio_dt_from_mpi(ftype, &v.fdt);
    if (!rc) rc = check_types(v.edt, v.fdt);
    if (!rc) rc = keep_type(etype, &v.etype);
    if (!rc) rc = keep_type(ftype, &v.ftype);
    if (rc) {
        agio_view_free(&v);
        return rc;
    }
    v.disp = (int64_t)disp;
    v.esize = agio_dt_info(v.edt)->size;
    strncpy(v.datarep, datarep, sizeof v.datarep - 1);
    *out = v;
    return 0;
}

int64_t agio_view_byte_offset(const struct agio_view *v, int64_t offset)
{
    if (agio_dt_info(v->fdt)->size == 0) return v->disp;
    return agio_sieve_byte_offset(v->fdt, v->disp, offset * v->esize);
}

int64_t agio_view_etypes_before(const struct agio_view *v, int64_t size)
{
    const struct agio_dt_info *t = agio_dt_info(v->fdt);
    if (size <= v->disp || t->size == 0) return 0;
    /* Whole filetype instances that end before size, then the runs of the next instance. */
    int64_t rel = size - v->disp;
    int64_t end0 = t->true_lb + t->true_extent; /* end of instance 0's data */
    int64_t tiles = (rel >= end0 && t->extent > 0) ? (rel - end0) / t->extent + 1 : 0;
    int64_t bytes = tiles * t->size;
    struct agio_dt_iter it;
    int64_t off, len;
    agio_dt_iter_init(&it, v->fdt, v->disp, bytes);
    while (agio_dt_iter_next(&it, INT64_MAX, &off, &len) && off < size) {
        if (off + len <= size) {
            bytes += len;
        } else {
            bytes += size - off;
            break;
        }
    }
    return bytes / v->esize;
}
