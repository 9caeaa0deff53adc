/*
 * file_obj.c - registry of open agio files: validates handles and doubles as the Fortran table.
 *
 * A handle is accepted only if it is a registered pointer (slot f->index holds f) and carries the
 * magic number, so MPI_FILE_NULL, closed handles and the host MPI's own handles are rejected with
 * MPI_ERR_FILE instead of being dereferenced blindly. Slot 0 is never used: Fortran's
 * MPI_FILE_NULL is 0 in both MPIs.
 */
#include <stdlib.h>

#include "agio_err.h"
#include "file.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct agio_file **slots;
static int nslots;

int agio_file_register(struct agio_file *f)
{
    int rc = 0;
    pthread_mutex_lock(&reg_lock);
    int i = 1;
    while (i < nslots && slots[i])
        i++;
    if (i >= nslots) {
        int n = nslots ? 2 * nslots : 64;
        struct agio_file **s = realloc(slots, (size_t)n * sizeof *s);
        if (!s) {
            rc = AGIO_ENOMEM;
            goto out;
        }
        for (int k = nslots; k < n; k++)
            s[k] = NULL;
        slots = s;
        nslots = n;
    }
    slots[i] = f;
    f->index = i;
    f->magic = AGIO_FILE_MAGIC;
out:
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

void agio_file_unregister(struct agio_file *f)
{
    pthread_mutex_lock(&reg_lock);
    if (f->index > 0 && f->index < nslots && slots[f->index] == f) slots[f->index] = NULL;
    f->magic = 0;
    f->index = 0;
    pthread_mutex_unlock(&reg_lock);
}

static struct agio_file *find_locked(const struct agio_file *p)
{
    for (int i = 1; i < nslots; i++)
        if (slots[i] == p) return slots[i];
    return NULL;
}

struct agio_file *agio_file_lookup(MPI_File fh)
{
    if (fh == MPI_FILE_NULL) return NULL;
    struct agio_file *p = (struct agio_file *)fh, *f;
    pthread_mutex_lock(&reg_lock);
    f = find_locked(p);
    pthread_mutex_unlock(&reg_lock);
    return (f && f->magic == AGIO_FILE_MAGIC) ? f : NULL;
}

struct agio_file *agio_file_from_index(int index)
{
    struct agio_file *f = NULL;
    pthread_mutex_lock(&reg_lock);
    if (index > 0 && index < nslots) f = slots[index];
    pthread_mutex_unlock(&reg_lock);
    return f;
}

void agio_file_foreach(void (*fn)(struct agio_file *f))
{
    for (int i = 1;; i++) {
        struct agio_file *f = NULL;
        pthread_mutex_lock(&reg_lock);
        int more = i < nslots;
        if (more) f = slots[i];
        pthread_mutex_unlock(&reg_lock);
        if (!more) break;
        if (f) fn(f);
    }
}

int agio_file_agree(MPI_Comm comm, int code)
{
    int out = code;
    if (PMPI_Allreduce(&code, &out, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return AGIO_EINTERN;
    return out;
}
