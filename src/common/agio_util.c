/*
 * agio_util.c - small shared helpers (see agio_util.h).
 */
#include "agio_util.h"

#include <stdlib.h>

#include "agio_err.h"

int agio_grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap) return 0;
    int64_t n = *cap > 0 ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q) return AGIO_ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}
