/*
 * api_nonblocking.c - MPI_File_iread/iwrite[_at][_all] and the split collectives.
 *
 * Nonblocking operations return generalized requests (MPI_Grequest_start), the only request
 * kind that works with every MPI_Wait/Test form of both MPIs and from Fortran and mpi4py
 * (notes/interposition.md 4). In this release the transfer is done before the call returns and
 * the request is completed at once; the request state is reference-counted because MPICH calls
 * free_fn from MPI_Request_free of a still-active request. Errors detected while starting are
 * returned by the call itself (with MPI_REQUEST_NULL), as the standard permits.
 *
 * Split collectives (MPI-3.1 13.4.5): begin performs the collective access and records its result;
 * end reports it in the status. One split collective may be active per file handle; a second
 * begin, or an end without begin or of the other kind, is an error.
 */
#include <stdlib.h>

#include "api.h"

struct greq_state {
    int refs;
    int64_t bytes;
};

static void state_put(struct greq_state *s)
{
    if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) free(s);
}

static int query_fn(void *extra, MPI_Status *status)
{
    struct greq_state *s = extra;
    PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)s->bytes);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    state_put(extra);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete; /* already complete: cancelling has no effect */
    return MPI_SUCCESS;
}

static int start(MPI_File fh, struct agio_rw_req *r, MPI_Request *request)
{
    if (!request) return agio_api_fail(agio_file_lookup(fh), r->fn, AGIO_EARG, "request is NULL");
    *request = MPI_REQUEST_NULL;
    int rc = agio_api_rw(fh, r);
    if (rc != MPI_SUCCESS) return rc;
    struct greq_state *s = malloc(sizeof *s);
    if (!s) return agio_api_fail(agio_file_lookup(fh), r->fn, AGIO_ENOMEM, NULL);
    s->refs = 2; /* one for MPI (free_fn), one for the completing side */
    s->bytes = r->moved;
    rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, s, request);
    if (rc != MPI_SUCCESS) {
        free(s);
        return agio_api_fail(agio_file_lookup(fh), r->fn, AGIO_EREQUEST, NULL);
    }
    PMPI_Grequest_complete(*request);
    state_put(s);
    return MPI_SUCCESS;
}

#define IRW_AT(name, W, C, CT)                                                                    \
    AGIO_DEF(int, name, (MPI_File fh, MPI_Offset offset, IRW_BUF_##W buf, CT count,               \
                         MPI_Datatype datatype, MPI_Request * request))                            \
    {                                                                                              \
        struct agio_rw_req r = {#name, W, 1, C, offset, (void *)buf, count, datatype,             \
                                MPI_STATUS_IGNORE, 0};                                             \
        return start(fh, &r, request);                                                             \
    }
#define IRW_IND(name, W, C, CT)                                                                   \
    AGIO_DEF(int, name, (MPI_File fh, IRW_BUF_##W buf, CT count, MPI_Datatype datatype,           \
                         MPI_Request * request))                                                   \
    {                                                                                              \
        struct agio_rw_req r = {#name, W, 0, C, 0, (void *)buf, count, datatype,                  \
                                MPI_STATUS_IGNORE, 0};                                             \
        return start(fh, &r, request);                                                             \
    }
#define IRW_BUF_0 void *
#define IRW_BUF_1 const void *

IRW_AT(MPI_File_iread_at, 0, 0, int)
IRW_AT(MPI_File_iwrite_at, 1, 0, int)
IRW_AT(MPI_File_iread_at_all, 0, 1, int)
IRW_AT(MPI_File_iwrite_at_all, 1, 1, int)
IRW_IND(MPI_File_iread, 0, 0, int)
IRW_IND(MPI_File_iwrite, 1, 0, int)
IRW_IND(MPI_File_iread_all, 0, 1, int)
IRW_IND(MPI_File_iwrite_all, 1, 1, int)
#if MPI_VERSION >= 4
IRW_AT(MPI_File_iread_at_c, 0, 0, MPI_Count)
IRW_AT(MPI_File_iwrite_at_c, 1, 0, MPI_Count)
IRW_AT(MPI_File_iread_at_all_c, 0, 1, MPI_Count)
IRW_AT(MPI_File_iwrite_at_all_c, 1, 1, MPI_Count)
IRW_IND(MPI_File_iread_c, 0, 0, MPI_Count)
IRW_IND(MPI_File_iwrite_c, 1, 0, MPI_Count)
IRW_IND(MPI_File_iread_all_c, 0, 1, MPI_Count)
IRW_IND(MPI_File_iwrite_all_c, 1, 1, MPI_Count)
#endif

/* ---- split collectives ---- */

static int split_begin(MPI_File fh, struct agio_rw_req *r)
{
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(r->fn);
    int busy = f->split.active;
    int all = agio_api_agree(f->comm, busy ? AGIO_EARG : 0);
    if (all) return agio_api_fail(f, r->fn, all, "a split collective is already active");
    int rc = agio_api_rw(fh, r);
    f->split.active = 1;
    f->split.is_write = r->is_write;
    f->split.bytes = rc == MPI_SUCCESS ? r->moved : 0;
    return rc;
}

static int split_end(MPI_File fh, const char *fn, int is_write, MPI_Status *status)
{
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    if (!f->split.active || f->split.is_write != is_write)
        return agio_api_fail(f, fn, AGIO_EARG, "no matching split collective was begun");
    f->split.active = 0;
    if (status != MPI_STATUS_IGNORE) {
        PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)f->split.bytes);
        PMPI_Status_set_cancelled(status, 0);
    }
    return MPI_SUCCESS;
}

#define SPLIT_AT(name, W, CT)                                                                     \
    AGIO_DEF(int, name, (MPI_File fh, MPI_Offset offset, IRW_BUF_##W buf, CT count,               \
                         MPI_Datatype datatype))                                                   \
    {                                                                                              \
        struct agio_rw_req r = {#name, W, 1, 1, offset, (void *)buf, count, datatype,             \
                                MPI_STATUS_IGNORE, 0};                                             \
        return split_begin(fh, &r);                                                                \
    }
#define SPLIT_IND(name, W, CT)                                                                    \
    AGIO_DEF(int, name, (MPI_File fh, IRW_BUF_##W buf, CT count, MPI_Datatype datatype))         \
    {                                                                                              \
        struct agio_rw_req r = {#name, W, 0, 1, 0, (void *)buf, count, datatype,                  \
                                MPI_STATUS_IGNORE, 0};                                             \
        return split_begin(fh, &r);                                                                \
    }
#define SPLIT_END(name, W)                                                                        \
    AGIO_DEF(int, name, (MPI_File fh, IRW_BUF_##W buf, MPI_Status * status))                      \
    {                                                                                              \
        (void)buf;                                                                                 \
        return split_end(fh, #name, W, status);                                                    \
    }

SPLIT_AT(MPI_File_read_at_all_begin, 0, int)
SPLIT_AT(MPI_File_write_at_all_begin, 1, int)
SPLIT_IND(MPI_File_read_all_begin, 0, int)
SPLIT_IND(MPI_File_write_all_begin, 1, int)
SPLIT_END(MPI_File_read_at_all_end, 0)
SPLIT_END(MPI_File_write_at_all_end, 1)
SPLIT_END(MPI_File_read_all_end, 0)
SPLIT_END(MPI_File_write_all_end, 1)
#if MPI_VERSION >= 4
SPLIT_AT(MPI_File_read_at_all_begin_c, 0, MPI_Count)
SPLIT_AT(MPI_File_write_at_all_begin_c, 1, MPI_Count)
SPLIT_IND(MPI_File_read_all_begin_c, 0, MPI_Count)
SPLIT_IND(MPI_File_write_all_begin_c, 1, MPI_Count)
#endif
