/*
 * api_errhandler.c - file error handlers as agio's own side table (notes/interposition.md 5).
 *
 * The host MPI's file-errhandler functions must never see an agio handle (Open MPI crashes,
 * MPICH silently ignores it). So:
 *  - MPI_File_create_errhandler creates a real host errhandler of communicator kind (the only
 *    kind both MPIs let us attach to a private communicator) and records handle -> (function,
 *    language) in a table;
 *  - references follow the host's rules: set and get each add one, the user frees what get
 *    returned. A reference is taken by attaching the handler to a private communicator and
 *    reading it back (eh_retain), released with MPI_Errhandler_free;
 *  - invocation is ours: MPI_ERRORS_RETURN returns, MPI_ERRORS_ARE_FATAL (and MPICH's
 *    MPI_ERRORS_ABORT) aborts as the user asked, anything else calls the user's function.
 * The default for MPI_FILE_NULL, and so for new files, is MPI_ERRORS_RETURN.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "api.h"

struct eh_entry {
    MPI_Errhandler eh;
    MPI_File_errhandler_function *fn;
    int fortran;
};

static pthread_mutex_t eh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct eh_entry *tab;
static int ntab, captab;
static MPI_Comm ref_comm = MPI_COMM_NULL;
static MPI_Errhandler null_eh = MPI_ERRORS_RETURN;

static int builtin(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ARE_FATAL) return 1;
#ifdef MPI_ERRORS_ABORT
    if (eh == MPI_ERRORS_ABORT) return 1;
#endif
    return 0;
}

/* A new host reference to eh (same handle value), taken by attaching it to a private
 * communicator and reading it back: the host adds one reference on every get. */
static MPI_Errhandler host_ref(MPI_Errhandler eh)
{
    MPI_Errhandler out = eh;
    pthread_mutex_lock(&eh_lock);
    if (ref_comm == MPI_COMM_NULL) {
        PMPI_Comm_dup(MPI_COMM_SELF, &ref_comm);
        PMPI_Comm_set_errhandler(ref_comm, MPI_ERRORS_RETURN);
    }
    if (PMPI_Comm_set_errhandler(ref_comm, eh) == MPI_SUCCESS) {
        PMPI_Comm_get_errhandler(ref_comm, &out);
        PMPI_Comm_set_errhandler(ref_comm, MPI_ERRORS_RETURN);
    }
    pthread_mutex_unlock(&eh_lock);
    return out;
}

/* Internal references: predefined handlers need none (agio_eh_release skips them too). */
MPI_Errhandler agio_eh_retain(MPI_Errhandler eh)
{
    return builtin(eh) ? eh : host_ref(eh);
}

void agio_eh_release(MPI_Errhandler eh)
{
    if (builtin(eh) || eh == MPI_ERRHANDLER_NULL) return;
    PMPI_Errhandler_free(&eh);
}

MPI_Errhandler agio_eh_null_default(void)
{
    pthread_mutex_lock(&eh_lock);
    MPI_Errhandler eh = null_eh;
    pthread_mutex_unlock(&eh_lock);
    return agio_eh_retain(eh);
}

static int lookup(MPI_Errhandler eh, struct eh_entry *out)
{
    int found = 0;
    pthread_mutex_lock(&eh_lock);
    for (int i = 0; i < ntab && !found; i++)
        if (tab[i].eh == eh) {
            *out = tab[i];
            found = 1;
        }
    pthread_mutex_unlock(&eh_lock);
    return found;
}

int agio_eh_invoke(struct agio_file *f, MPI_Errhandler eh, int mpi_code)
{
    if (eh == MPI_ERRORS_RETURN || mpi_code == MPI_SUCCESS) return mpi_code;
    struct eh_entry e;
    if (!builtin(eh) && lookup(eh, &e)) {
        MPI_File fh = f ? (MPI_File)f : MPI_FILE_NULL;
        int code = mpi_code;
        if (e.fortran) {
            MPI_Fint fint = f ? f->index : 0;
            ((void (*)(MPI_Fint *, MPI_Fint *))(void (*)(void))e.fn)(&fint, &code);
        } else {
            e.fn(&fh, &code);
        }
        return mpi_code;
    }
    /* MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT: the user chose to abort on errors. */
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(mpi_code, msg, &len);
    fprintf(stderr, "agio: fatal MPI-IO error (file errhandler MPI_ERRORS_ARE_FATAL): %s\n", msg);
    PMPI_Abort(f ? f->comm : MPI_COMM_WORLD, mpi_code);
    return mpi_code;
}

static int add_entry(MPI_Errhandler eh, MPI_File_errhandler_function *fn, int fortran)
{
    pthread_mutex_lock(&eh_lock);
    int rc = 0;
    if (ntab == captab) {
        int n = captab ? 2 * captab : 16;
        struct eh_entry *t = realloc(tab, (size_t)n * sizeof *t);
        if (!t) {
            rc = AGIO_ENOMEM;
            goto out;
        }
        tab = t;
        captab = n;
    }
    tab[ntab++] = (struct eh_entry){eh, fn, fortran};
out:
    pthread_mutex_unlock(&eh_lock);
    return rc;
}

/* Create a handler for fn; fortran != 0 registers a Fortran routine (called with integers). */
static int create_eh(MPI_File_errhandler_function *fn, int fortran, MPI_Errhandler *eh)
{
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, "MPI_File_create_errhandler", rc, NULL);
    if (!fn || !eh) return agio_api_fail(NULL, "MPI_File_create_errhandler", AGIO_EARG, NULL);
    int err = PMPI_Comm_create_errhandler(
        (MPI_Comm_errhandler_function *)(void (*)(void))fn, eh);
    if (err != MPI_SUCCESS) return err;
    rc = add_entry(*eh, fn, fortran);
    return rc ? agio_api_fail(NULL, "MPI_File_create_errhandler", rc, NULL) : MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_create_errhandler,
         (MPI_File_errhandler_function * fn, MPI_Errhandler *errhandler))
{
    return create_eh(fn, 0, errhandler);
}

AGIO_DEF(int, MPI_File_set_errhandler, (MPI_File fh, MPI_Errhandler errhandler))
{
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, "MPI_File_set_errhandler", rc, NULL);
    if (errhandler == MPI_ERRHANDLER_NULL)
        return agio_api_fail(agio_file_lookup(fh), "MPI_File_set_errhandler", AGIO_EERRH, NULL);
    if (fh == MPI_FILE_NULL) {
        MPI_Errhandler keep = agio_eh_retain(errhandler), old;
        pthread_mutex_lock(&eh_lock);
        old = null_eh;
        null_eh = keep;
        pthread_mutex_unlock(&eh_lock);
        agio_eh_release(old);
        return MPI_SUCCESS;
    }
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile("MPI_File_set_errhandler");
    MPI_Errhandler keep = agio_eh_retain(errhandler), old = f->eh;
    f->eh = keep;
    agio_eh_release(old);
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_get_errhandler, (MPI_File fh, MPI_Errhandler *errhandler))
{
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, "MPI_File_get_errhandler", rc, NULL);
    if (!errhandler) return agio_api_fail(agio_file_lookup(fh), "MPI_File_get_errhandler",
                                          AGIO_EARG, NULL);
    /* The user frees what get returns, predefined handlers included (the host MPIs count
     * references on those too), so the returned handle always carries a host reference. */
    if (fh == MPI_FILE_NULL) {
        MPI_Errhandler eh = agio_eh_null_default();
        *errhandler = host_ref(eh);
        agio_eh_release(eh);
        return MPI_SUCCESS;
    }
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile("MPI_File_get_errhandler");
    *errhandler = host_ref(f->eh);
    return MPI_SUCCESS;
}

AGIO_DEF(int, MPI_File_call_errhandler, (MPI_File fh, int errorcode))
{
    int rc = agio_api_enter();
    if (rc) return agio_api_fail(NULL, "MPI_File_call_errhandler", rc, NULL);
    if (fh == MPI_FILE_NULL) {
        MPI_Errhandler eh = agio_eh_null_default();
        agio_eh_invoke(NULL, eh, errorcode);
        agio_eh_release(eh);
        return MPI_SUCCESS;
    }
    struct agio_file *f = agio_file_lookup(fh);
    if (!f) return agio_api_badfile("MPI_File_call_errhandler");
    agio_eh_invoke(f, f->eh, errorcode);
    return MPI_SUCCESS;
}

/* ---- Fortran MPI_FILE_CREATE_ERRHANDLER in every name mangling (interposition.md 5.4): the
 * host's Fortran binding either bypasses the C API (Open MPI) or registers the routine as C
 * (MPICH); ours registers it as Fortran so it is called with integer handles. */
static void f_create(MPI_File_errhandler_function *fn, MPI_Fint *eh, MPI_Fint *ierr)
{
    MPI_Errhandler c;
    *ierr = create_eh(fn, 1, &c);
    if (*ierr == MPI_SUCCESS) *eh = PMPI_Errhandler_c2f(c);
}

#define AGIO_F_CREATE(sym)                                                                         \
    AGIO_EXPORT void sym(MPI_File_errhandler_function *fn, MPI_Fint *eh, MPI_Fint *ierr);          \
    AGIO_EXPORT void sym(MPI_File_errhandler_function *fn, MPI_Fint *eh, MPI_Fint *ierr)           \
    {                                                                                              \
        f_create(fn, eh, ierr);                                                                    \
    }
AGIO_F_CREATE(mpi_file_create_errhandler_)
AGIO_F_CREATE(mpi_file_create_errhandler__)
AGIO_F_CREATE(mpi_file_create_errhandler)
AGIO_F_CREATE(MPI_FILE_CREATE_ERRHANDLER)
AGIO_F_CREATE(pmpi_file_create_errhandler_)
AGIO_F_CREATE(pmpi_file_create_errhandler__)
AGIO_F_CREATE(pmpi_file_create_errhandler)
AGIO_F_CREATE(PMPI_FILE_CREATE_ERRHANDLER)
#ifdef OPEN_MPI
AGIO_F_CREATE(ompi_file_create_errhandler_f)
#endif
