/*
 * agio_err.h - the one table of agio's internal error codes.
 *
 * Every function that can fail returns 0 or a negative AGIO_E* code from this table. Lower layers
 * (driver, datatype, hints, stats) never see MPI; the api layer maps each code to an MPI error
 * class through the MPI class named in the third column (see api/api_error.c). errno values are
 * kept distinct up to the class (ENOSPC, EDQUOT, EACCES, EIO, ...), as STYLE.md rule 6 asks.
 */
#ifndef AGIO_ERR_H
#define AGIO_ERR_H

/* X(name, value, MPI class token, one-line text) */
#define AGIO_ERROR_TABLE(X)                                                                        \
    X(OK, 0, MPI_SUCCESS, "success")                                                               \
    X(EARG, -1, MPI_ERR_ARG, "invalid argument")                                                   \
    X(ENOMEM, -2, MPI_ERR_NO_MEM, "out of memory")                                                 \
    X(EIO, -3, MPI_ERR_IO, "input/output error")                                                   \
    X(ENOSPC, -4, MPI_ERR_NO_SPACE, "no space left on device")                                     \
    X(EDQUOT, -5, MPI_ERR_QUOTA, "disk quota exceeded")                                            \
    X(EACCES, -6, MPI_ERR_ACCESS, "permission denied")                                             \
    X(ENOENT, -7, MPI_ERR_NO_SUCH_FILE, "no such file or directory")                               \
    X(EEXIST, -8, MPI_ERR_FILE_EXISTS, "file exists")                                              \
    X(EROFS, -9, MPI_ERR_READ_ONLY, "read-only file system")                                       \
    X(EBADNAME, -10, MPI_ERR_BAD_FILE, "invalid file name")                                        \
    X(EINUSE, -11, MPI_ERR_FILE_IN_USE, "file in use")                                             \
    X(EAMODE, -12, MPI_ERR_AMODE, "invalid access mode")                                           \
    X(ETYPE, -13, MPI_ERR_TYPE, "invalid datatype")                                                \
    X(ECOUNT, -14, MPI_ERR_COUNT, "invalid count")                                                 \
    X(EFILE, -15, MPI_ERR_FILE, "invalid file handle")                                             \
    X(EUNSUPP, -16, MPI_ERR_UNSUPPORTED_OPERATION, "operation not supported")                      \
    X(EDATAREP, -17, MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation")               \
    X(ECONV, -18, MPI_ERR_CONVERSION, "data conversion failed")                                    \
    X(EINTERN, -19, MPI_ERR_INTERN, "internal error")                                              \
    X(EREQUEST, -20, MPI_ERR_REQUEST, "invalid request")                                           \
    X(EINFOVAL, -21, MPI_ERR_INFO_VALUE, "invalid info value")                                     \
    X(ECOMM, -22, MPI_ERR_COMM, "invalid communicator")                                            \
    X(ENOTSAME, -23, MPI_ERR_NOT_SAME, "argument differs between ranks")                           \
    X(EOVERFLOW, -24, MPI_ERR_ARG, "size or offset overflows 64 bits")                             \
    X(EMISMATCH, -25, MPI_ERR_OTHER, "agio built for a different MPI than the one loaded")         \
    X(EOTHER, -26, MPI_ERR_OTHER, "other error")                                                   \
    X(EERRH, -27, MPI_ERR_ARG, "invalid error handler")                                            \
    X(EOFFSET, -28, MPI_ERR_ARG, "invalid offset")                                                 \
    X(ENOLCK, -29, MPI_ERR_IO, "byte-range locks not available")

enum agio_err {
#define AGIO_X_ENUM(name, value, cls, text) AGIO_##name = (value),
    AGIO_ERROR_TABLE(AGIO_X_ENUM)
#undef AGIO_X_ENUM
    AGIO_ERR_MIN = -29
};

/* The table's one-line text for an agio code ("unknown error" for anything else). */
const char *agio_strerror(int code);

/* The code's name without prefix ("ENOSPC"); "?" for unknown codes. */
const char *agio_errname(int code);

/* Map a captured errno value to the agio code that keeps its meaning up to the MPI class. */
int agio_err_from_errno(int errnum);

#endif
