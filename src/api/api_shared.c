/*
 * api_shared.c - shared file pointers, ordered mode, MPI_Register_datarep, agio_version.
 *
 * Shared file pointers (an MPI RMA window with MPI_Fetch_and_op, ordered mode by MPI_Exscan)
 * and user data representations are not in this release. Each function is still defined by
 * agio - a missing one would hand agio's handle to the host MPI, which crashes (Open MPI) or
 * silently returns success (MPICH) - and raises MPI_ERR_UNSUPPORTED_OPERATION (resp.
 * MPI_ERR_UNSUPPORTED_DATAREP) through the file's error handler.
 */
#include "agio.h"
#include "api.h"

static int unsupported(MPI_File fh, const char *fn)
{
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, fn, rc, NULL);
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile(fn);
    return agio_api_fail(f, fn, AGIO_EUNSUPP, "shared file pointers are not in this agio release");
}

#define SH_RW(name, BUF, CT)                                                                      \
    AGIO_DEF(int, name, (MPI_File fh, BUF buf, CT count, MPI_Datatype datatype,                   \
                         MPI_Status * status))                                                     \
    {                                                                                              \
        (void)buf, (void)count, (void)datatype, (void)status;                                      \
        return unsupported(fh, #name);                                                             \
    }
#define SH_IRW(name, BUF, CT)                                                                     \
    AGIO_DEF(int, name, (MPI_File fh, BUF buf, CT count, MPI_Datatype datatype,                   \
                         MPI_Request * request))                                                   \
    {                                                                                              \
        (void)buf, (void)count, (void)datatype;                                                    \
        if (request) *request = MPI_REQUEST_NULL;                                                  \
        return unsupported(fh, #name);                                                             \
    }
#define SH_BEGIN(name, BUF, CT)                                                                   \
    AGIO_DEF(int, name, (MPI_File fh, BUF buf, CT count, MPI_Datatype datatype))                  \
    {                                                                                              \
        (void)buf, (void)count, (void)datatype;                                                    \
        return unsupported(fh, #name);                                                             \
    }
#define SH_END(name, BUF)                                                                         \
    AGIO_DEF(int, name, (MPI_File fh, BUF buf, MPI_Status * status))                              \
    {                                                                                              \
        (void)buf, (void)status;                                                                   \
        return unsupported(fh, #name);                                                             \
    }

SH_RW(MPI_File_read_shared, void *, int)
SH_RW(MPI_File_write_shared, const void *, int)
SH_RW(MPI_File_read_ordered, void *, int)
SH_RW(MPI_File_write_ordered, const void *, int)
SH_IRW(MPI_File_iread_shared, void *, int)
SH_IRW(MPI_File_iwrite_shared, const void *, int)
SH_BEGIN(MPI_File_read_ordered_begin, void *, int)
SH_BEGIN(MPI_File_write_ordered_begin, const void *, int)
SH_END(MPI_File_read_ordered_end, void *)
SH_END(MPI_File_write_ordered_end, const void *)
#if MPI_VERSION >= 4
SH_RW(MPI_File_read_shared_c, void *, MPI_Count)
SH_RW(MPI_File_write_shared_c, const void *, MPI_Count)
SH_RW(MPI_File_read_ordered_c, void *, MPI_Count)
SH_RW(MPI_File_write_ordered_c, const void *, MPI_Count)
SH_IRW(MPI_File_iread_shared_c, void *, MPI_Count)
SH_IRW(MPI_File_iwrite_shared_c, const void *, MPI_Count)
SH_BEGIN(MPI_File_read_ordered_begin_c, void *, MPI_Count)
SH_BEGIN(MPI_File_write_ordered_begin_c, const void *, MPI_Count)
#endif

AGIO_DEF(int, MPI_File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
{
    (void)offset, (void)whence;
    return unsupported(fh, "MPI_File_seek_shared");
}

AGIO_DEF(int, MPI_File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
{
    (void)offset;
    return unsupported(fh, "MPI_File_get_position_shared");
}

static int datarep_unsupported(const char *fn)
{
    int rc = agio_api_enter();
    return agio_api_fail(NULL, fn, rc ? rc : AGIO_EDATAREP,
                         "user data representations are not in this agio release");
}

AGIO_DEF(int, MPI_Register_datarep,
         (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
          MPI_Datarep_conversion_function *write_conversion_fn,
          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
{
    (void)datarep, (void)read_conversion_fn, (void)write_conversion_fn;
    (void)dtype_file_extent_fn, (void)extra_state;
    return datarep_unsupported("MPI_Register_datarep");
}

#if MPI_VERSION >= 4
AGIO_DEF(int, MPI_Register_datarep_c,
         (const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
          MPI_Datarep_conversion_function_c *write_conversion_fn,
          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
{
    (void)datarep, (void)read_conversion_fn, (void)write_conversion_fn;
    (void)dtype_file_extent_fn, (void)extra_state;
    return datarep_unsupported("MPI_Register_datarep_c");
}
#endif

AGIO_EXPORT const char *agio_version(void)
{
    return "agio 0.1.0 (" AGIO_MPI_FLAVOR ")";
}
