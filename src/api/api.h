/*
 * api.h - shared pieces of the MPI_File_* entry points.
 *
 * Symbols: every entry point is a strong PMPI_File_x with a weak MPI_File_x alias, both with
 * default visibility (notes/interposition.md 1.3, 3, 7.2): Fortran bindings of Open MPI call the
 * PMPI names, profilers such as Darshan interpose the MPI names above us.
 *
 * Errors: agio_api_fail turns an agio code into an MPI error code of the right class whose
 * MPI_Error_string names the call, the file and the cause, and invokes the file's errhandler (or
 * MPI_FILE_NULL's for calls without a valid file). Collective calls agree on one code first with
 * agio_api_agree so every rank returns the same class and nobody is left waiting.
 */
#ifndef AGIO_API_H
#define AGIO_API_H

#include <mpi.h>

#include "agio_err.h"
#include "file/file.h"

#define AGIO_EXPORT __attribute__((visibility("default")))

/* Define PMPI_<name> and the weak alias <name>. Use as: AGIO_DEF(int, MPI_File_open, (args)) {..} */
#define AGIO_DEF(ret, name, args)                                                                  \
    AGIO_EXPORT ret name args __attribute__((weak, alias("P" #name)));                             \
    AGIO_EXPORT ret P##name args

/* First-use checks (MPI build matches the loaded MPI; MPI initialized). 0 or an agio code. */
int agio_api_enter(void);

/* Raise an error for call `fn` on file f (NULL: a call without valid file, uses MPI_FILE_NULL's
 * handler). detail may be NULL. Returns the MPI error code to return to the user. */
int agio_api_fail(struct agio_file *f, const char *fn, int code, const char *detail);

/* Same, for a handle that did not validate: MPI_ERR_FILE through MPI_FILE_NULL's handler. */
int agio_api_badfile(const char *fn);

/* Collective over comm: every rank passes its local agio code; all receive the same code (the
 * most severe, i.e. lowest, of all ranks). Ranks whose own code differs learn the agreed one. */
int agio_api_agree(MPI_Comm comm, int code);

/* MPI error class of an agio code. */
int agio_api_class(int code);

/* The errhandler side table (api_errhandler.c). */
MPI_Errhandler agio_eh_retain(MPI_Errhandler eh);
void agio_eh_release(MPI_Errhandler eh);
MPI_Errhandler agio_eh_null_default(void); /* a new reference to MPI_FILE_NULL's handler */
int agio_eh_invoke(struct agio_file *f, MPI_Errhandler eh, int mpi_code);

/* Finalize hook installation (api_open.c) - called from agio_api_enter once MPI is up. */
void agio_api_install_finalize_hook(void);

/* Hints from an MPI_Info into h (info may be MPI_INFO_NULL). Returns 0 or AGIO_EINFOVAL if a known
 * key had a malformed value (the others are still applied); warnings go to stderr when
 * display is set. */
int agio_api_hints_from_info(struct agio_hints *h, MPI_Info info, int display, char *bad,
                             size_t badlen);

/* One blocking data access (api_rw.c); the nonblocking and split forms reuse it. */
struct agio_rw_req {
    const char *fn;
    int is_write, explicit_off, collective;
    MPI_Offset offset;
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    MPI_Status *status;
    int64_t moved; /* out: bytes moved */
    int used_cb;   /* out: two-phase collective buffering was used */
    int local_err; /* out: this rank's own error (collective calls agree on one code) */
};
int agio_api_rw(MPI_File fh, struct agio_rw_req *r);

/* Overflow-checked count * size. */
int agio_mul_overflow(int64_t a, int64_t b, int64_t *out);

#endif
