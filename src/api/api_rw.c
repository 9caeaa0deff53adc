/*
 * api_rw.c - blocking data access: read/write, _at, _all, _at_all (and their _c large-count forms).
 *
 * One path for all of them (rw below):
 *  1. validate the handle (MPI_ERR_FILE through MPI_FILE_NULL's handler otherwise);
 *  2. check access mode, count, datatype, offset; the byte count must be a whole number of etypes;
 *  3. position: explicit offset or the individual file pointer, in etypes of the view;
 *  4. move the data with the sieve layer (memory tiling <-> view tiling), under a byte-range lock
 *     in atomic mode;
 *  5. status: bytes moved (MPI_Get_count/Get_elements derive from it); the individual pointer
 *     advances by the etypes actually accessed;
 *  6. collective forms agree on one error code across the file's ranks before returning, so an
 *     error on one rank is the same error class on all (and no rank waits for another).
 * The collective forms use the independent path in this release; the two-phase engine replaces
 * step 4 for them.
 */
#include <string.h>

#include "api.h"
#include "datatype/datatype_mpi.h"
#include "collective/coll.h"
#include "sieve/sieve.h"

enum { POS_INDIVIDUAL = 0, POS_EXPLICIT = 1 };

static int check_access(const struct agio_file *f, const struct agio_rw_req *r)
{
    if (r->is_write && (f->amode & MPI_MODE_RDONLY)) return AGIO_EROFS;
    if (!r->is_write && (f->amode & MPI_MODE_WRONLY)) return AGIO_EACCES;
    if (f->amode & MPI_MODE_SEQUENTIAL) return AGIO_EUNSUPP; /* only shared pointers there */
    if (r->count < 0) return AGIO_ECOUNT;
    if (r->type == MPI_DATATYPE_NULL) return AGIO_ETYPE;
    if (r->explicit_off && r->offset < 0) return AGIO_EOFFSET;
    return 0;
}

/* Lock the file range the access covers (atomic mode). */
static int lock_range(struct agio_file *f, int is_write, int64_t skip, int64_t nbytes,
                      enum agio_lock_kind kind, int64_t *lo, int64_t *len)
{
    const struct agio_view *v = &f->view;
    *lo = agio_sieve_byte_offset(v->fdt, v->disp, skip);
    int64_t last = agio_sieve_byte_offset(v->fdt, v->disp, skip + nbytes - 1);
    *len = last + 1 - *lo;
    (void)is_write;
    return agio_drv_lock(f->df, kind, *lo, *len);
}

/* Step 4, independent: the sieve layer, under a byte-range lock in atomic mode. */
static int move_independent(struct agio_file *f, const struct agio_rw_req *r, int64_t skip,
                            const agio_dt *mdt, int64_t nbytes, int64_t *moved)
{
    const struct agio_view *v = &f->view;
    struct agio_access a = {.ftype = v->fdt, .disp = v->disp, .skip = skip, .mtype = mdt,
                            .buf = r->buf, .nbytes = nbytes};
    int64_t lo = 0, len = 0;
    int locked = 0, rc = 0;
    if (f->atomic) {
        rc = lock_range(f, r->is_write, skip, nbytes,
                        r->is_write ? AGIO_LOCK_WRITE : AGIO_LOCK_READ, &lo, &len);
        locked = rc == 0;
        if (rc == AGIO_ENOLCK) rc = 0; /* no locks here: a single system call per run */
    }
    if (!rc) rc = r->is_write ? agio_sieve_write(f->df, &a, moved) : agio_sieve_read(f->df, &a, moved);
    if (locked) agio_drv_lock(f->df, AGIO_LOCK_UNLOCK, lo, len);
    return rc;
}

/* Steps 2-5 on a valid file; returns an agio code (agreed across ranks for collective calls),
 * *moved = bytes moved. */
static int rw_local(struct agio_file *f, struct agio_rw_req *r, int64_t *moved)
{
    agio_dt *mdt = NULL;
    int rc = check_access(f, r);
    *moved = 0;
    if (!rc) rc = agio_dt_from_mpi(r->type, &mdt);
    int64_t nbytes = 0, skip = 0;
    const struct agio_view *v = &f->view;
    if (!rc && agio_mul_overflow(r->count, agio_dt_info(mdt)->size, &nbytes)) rc = AGIO_EOVERFLOW;
    if (!rc && nbytes % v->esize) rc = AGIO_ETYPE;
    pthread_mutex_lock(&f->lock);
    int64_t pos = r->explicit_off ? (int64_t)r->offset : f->fp_ind;
    if (!rc && agio_mul_overflow(pos, v->esize, &skip)) rc = AGIO_EOVERFLOW;
    if (!rc && nbytes > 0 && agio_dt_info(v->fdt)->size == 0) rc = AGIO_ETYPE;
    if (rc) nbytes = 0;
    r->local_err = rc;
    if (r->collective) {
        int used_cb = 0;
        rc = agio_coll_rw(f, rc, r->is_write, skip, mdt, r->buf, nbytes, moved, &used_cb);
        r->used_cb = used_cb;
    } else if (!rc && nbytes > 0) {
        rc = agio_coll_wb_self_flush(f); /* a process sees its own collective writes */
        if (!rc) rc = move_independent(f, r, skip, mdt, nbytes, moved);
    }
    if (!r->explicit_off) f->fp_ind += *moved / v->esize;
    pthread_mutex_unlock(&f->lock);
    agio_dt_release(mdt);
    agio_stats_add(&f->stats, r->is_write ? AGIO_ST_user_write_bytes : AGIO_ST_user_read_bytes,
                   (uint64_t)(nbytes > 0 ? nbytes : 0));
    return rc;
}

static void set_status(MPI_Status *status, int64_t bytes)
{
    if (status == MPI_STATUS_IGNORE) return;
    PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)bytes);
    PMPI_Status_set_cancelled(status, 0);
}

int agio_api_rw(MPI_File fh, struct agio_rw_req *r)
{
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, r->fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(r->fn);
    int64_t moved = 0;
    rc = rw_local(f, r, &moved);
    enum agio_stat_id id = r->collective ? (r->is_write ? AGIO_ST_coll_writes : AGIO_ST_coll_reads)
                                         : (r->is_write ? AGIO_ST_indep_writes : AGIO_ST_indep_reads);
    agio_stats_add(&f->stats, id, 1);
    r->moved = rc ? 0 : moved;
    set_status(r->status, r->moved);
    if (r->collective && rc && !r->local_err)
        return agio_api_fail(f, r->fn, rc, "error agreed across the ranks of the collective call");
    if (rc) {
        char detail[160];
        snprintf(detail, sizeof detail, "%s at etype offset %lld, count %lld",
                 r->is_write ? "write" : "read",
                 (long long)(r->explicit_off ? r->offset : f->fp_ind), (long long)r->count);
        return agio_api_fail(f, r->fn, rc, detail);
    }
    return MPI_SUCCESS;
}

/* The 16 entry points differ only in these flags; one generator keeps them identical. */
#define RW_AT(name, W, C, CT)                                                                     \
    AGIO_DEF(int, name, (MPI_File fh, MPI_Offset offset, RW_BUF_##W buf, CT count,                \
                         MPI_Datatype datatype, MPI_Status * status))                              \
    {                                                                                              \
        struct agio_rw_req r = {#name, W, POS_EXPLICIT, C, offset, (void *)buf, count, datatype,       \
                           status};                                                                \
        return agio_api_rw(fh, &r);                                                                         \
    }
#define RW_IND(name, W, C, CT)                                                                    \
    AGIO_DEF(int, name, (MPI_File fh, RW_BUF_##W buf, CT count, MPI_Datatype datatype,            \
                         MPI_Status * status))                                                     \
    {                                                                                              \
        struct agio_rw_req r = {#name, W, POS_INDIVIDUAL, C, 0, (void *)buf, count, datatype, status}; \
        return agio_api_rw(fh, &r);                                                                         \
    }
#define RW_BUF_0 void *
#define RW_BUF_1 const void *

RW_AT(MPI_File_read_at, 0, 0, int)
RW_AT(MPI_File_write_at, 1, 0, int)
RW_AT(MPI_File_read_at_all, 0, 1, int)
RW_AT(MPI_File_write_at_all, 1, 1, int)
RW_IND(MPI_File_read, 0, 0, int)
RW_IND(MPI_File_write, 1, 0, int)
RW_IND(MPI_File_read_all, 0, 1, int)
RW_IND(MPI_File_write_all, 1, 1, int)
#if MPI_VERSION >= 4
RW_AT(MPI_File_read_at_c, 0, 0, MPI_Count)
RW_AT(MPI_File_write_at_c, 1, 0, MPI_Count)
RW_AT(MPI_File_read_at_all_c, 0, 1, MPI_Count)
RW_AT(MPI_File_write_at_all_c, 1, 1, MPI_Count)
RW_IND(MPI_File_read_c, 0, 0, MPI_Count)
RW_IND(MPI_File_write_c, 1, 0, MPI_Count)
RW_IND(MPI_File_read_all_c, 0, 1, MPI_Count)
RW_IND(MPI_File_write_all_c, 1, 1, MPI_Count)
#endif
