/*
 * api_error.c - agio codes to MPI error codes and classes, first-use checks.
 *
 * Error codes with messages: for each MPI class agio uses, a small ring of dynamic error codes is
 * added with MPI_Add_error_code on first use; every raised error takes the next code of its
 * class's ring and sets its text with MPI_Add_error_string (which replaces an earlier text, as the
 * standard allows). MPI_Error_class gives the standard class, MPI_Error_string names the call,
 * the file and the cause. If dynamic codes are unavailable the class itself is returned.
 * Invariant: the class of a returned code is always agio_api_class(code).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

#define RING 16
#define NCLASS_SLOTS 64

static int class_of(int code)
{
    switch (code) {
#define AGIO_X_CASE(name, value, cls, text)                                                        \
    case (value): return (cls);
        AGIO_ERROR_TABLE(AGIO_X_CASE)
#undef AGIO_X_CASE
    default: return MPI_ERR_OTHER;
    }
}

int agio_api_class(int code)
{
    return class_of(code);
}

static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int cls;
    int codes[RING];
    char text[RING][MPI_MAX_ERROR_STRING];
    int n, next;
} rings[NCLASS_SLOTS];
static int nrings;

/* Next dynamic code of class cls carrying msg, or cls itself. Caller holds ring_lock. */
static int code_with_text(int cls, const char *msg)
{
    int r = 0;
    while (r < nrings && rings[r].cls != cls)
        r++;
    if (r == nrings) {
        if (nrings == NCLASS_SLOTS) return cls;
        rings[r].cls = cls;
        rings[r].n = rings[r].next = 0;
        nrings++;
    }
    if (rings[r].n < RING) {
        int c;
        if (PMPI_Add_error_code(cls, &c) != MPI_SUCCESS) return cls;
        rings[r].codes[rings[r].n++] = c;
    }
    int slot = rings[r].next, c = rings[r].codes[slot];
    rings[r].next = (rings[r].next + 1) % rings[r].n;
    snprintf(rings[r].text[slot], MPI_MAX_ERROR_STRING, "%s", msg);
    PMPI_Add_error_string(c, msg); /* MPICH 4.0.2 ignores it: see MPI_Error_string below */
    return c;
}

static int make_code(int code, const char *msg)
{
    int cls = class_of(code), init = 0, fin = 0;
    if (cls == MPI_SUCCESS) return MPI_SUCCESS;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return cls;
    pthread_mutex_lock(&ring_lock);
    int c = code_with_text(cls, msg);
    pthread_mutex_unlock(&ring_lock);
    return c;
}

static int mismatch;

int agio_api_fail(struct agio_file *f, const char *fn, int code, const char *detail)
{
    /* Built for another MPI: its handles and constants mean nothing to the loaded one, so no
     * MPI call is made at all (the message was printed once at first use). */
    if (mismatch || code == AGIO_EMISMATCH) return MPI_ERR_OTHER;
    char msg[MPI_MAX_ERROR_STRING];
    const char *name = f ? f->name : NULL;
    snprintf(msg, sizeof msg, "agio %s%s%s: %s%s%s", fn, name ? " " : "", name ? name : "",
             agio_strerror(code), detail ? ": " : "", detail ? detail : "");
    int mpi_code = make_code(code, msg);
    if (mpi_code == MPI_SUCCESS) return MPI_SUCCESS;
    if (f) return agio_eh_invoke(f, f->eh, mpi_code);
    MPI_Errhandler eh = agio_eh_null_default();
    int rc = agio_eh_invoke(NULL, eh, mpi_code);
    agio_eh_release(eh);
    return rc;
}

int agio_api_badfile(const char *fn)
{
    return agio_api_fail(NULL, fn, AGIO_EFILE, "not an open file handle");
}

int agio_api_agree(MPI_Comm comm, int code)
{
    return agio_file_agree(comm, code);
}

int agio_mul_overflow(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

/* MPI_Error_string: agio's dynamic codes carry their message in agio's table (MPICH 4.0.2
 * ignores MPI_Add_error_string for codes of predefined classes); every other code goes to the
 * host MPI's implementation. */
static int text_of(int code, char *out, int *len)
{
    int found = 0;
    pthread_mutex_lock(&ring_lock);
    for (int r = 0; r < nrings && !found; r++)
        for (int i = 0; i < rings[r].n && !found; i++)
            if (rings[r].codes[i] == code) {
                snprintf(out, MPI_MAX_ERROR_STRING, "%s", rings[r].text[i]);
                *len = (int)strlen(out);
                found = 1;
            }
    pthread_mutex_unlock(&ring_lock);
    return found;
}

AGIO_DEF(int, MPI_Error_string, (int errorcode, char *string, int *resultlen))
{
    static int (*host)(int, char *, int *);
    if (string && resultlen && text_of(errorcode, string, resultlen)) return MPI_SUCCESS;
    if (!host) host = (int (*)(int, char *, int *))dlsym(RTLD_NEXT, "PMPI_Error_string");
    return host ? host(errorcode, string, resultlen) : MPI_ERR_INTERN;
}

/* ---- first use ---- */

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void first_use(void)
{
    /* Sized for any MPI, not just ours: a mismatched library writes its own maximum (MPICH
     * 8192 bytes, Open MPI 256) and would overflow a buffer of our header's size. */
    char ver[16384];
    int len = 0;
    if (PMPI_Get_library_version(ver, &len) == MPI_SUCCESS && !strstr(ver, AGIO_MPI_EXPECT)) {
        mismatch = 1;
        fprintf(stderr,
                "agio: this libagio-%s was built for %s, but the program runs on another MPI "
                "(\"%.60s\"). Preload or link the libagio build for that MPI "
                "(libagio-openmpi.so or libagio-mpich.so). MPI-IO calls will fail.\n",
                AGIO_MPI_FLAVOR, AGIO_MPI_EXPECT, ver);
    }
}

int agio_api_enter(void)
{
    pthread_once(&once, first_use);
    if (mismatch) return AGIO_EMISMATCH;
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin) return AGIO_EOTHER;
    agio_api_install_finalize_hook();
    return 0;
}
