/*
 * agio_err.c - text and errno mapping for the error table in agio_err.h. No MPI here: the MPI
 * class mapping lives in the api layer, which is the only layer that includes mpi.h.
 */
#include "agio_err.h"

#include <errno.h>

struct err_row {
    int code;
    const char *name;
    const char *text;
};

static const struct err_row rows[] = {
#define AGIO_X_ROW(name, value, cls, text) {(value), #name, (text)},
    AGIO_ERROR_TABLE(AGIO_X_ROW)
#undef AGIO_X_ROW
};

static const struct err_row *find(int code)
{
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].code == code) return &rows[i];
    return 0;
}

const char *agio_strerror(int code)
{
    const struct err_row *r = find(code);
    return r ? r->text : "unknown error";
}

const char *agio_errname(int code)
{
    const struct err_row *r = find(code);
    return r ? r->name : "?";
}

int agio_err_from_errno(int errnum)
{
    switch (errnum) {
    case 0: return AGIO_OK;
    case ENOSPC: return AGIO_ENOSPC;
#ifdef EDQUOT
    case EDQUOT: return AGIO_EDQUOT;
#endif
    case EACCES:
    case EPERM: return AGIO_EACCES;
    case ENOENT: return AGIO_ENOENT;
    case EEXIST: return AGIO_EEXIST;
    case EROFS: return AGIO_EROFS;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: return AGIO_EBADNAME;
    case ETXTBSY:
    case EBUSY: return AGIO_EINUSE;
    case ENOMEM: return AGIO_ENOMEM;
    case EFBIG: return AGIO_EIO; /* file size limit (RLIMIT_FSIZE, file system maximum) */
    case EINVAL: return AGIO_EARG;
    case ENOLCK: return AGIO_ENOLCK;
    default: return AGIO_EIO;
    }
}
