/*
 * agio_util.h - small shared helpers (no MPI).
 */
#ifndef AGIO_UTIL_H
#define AGIO_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Grow *p (an array of elem-byte items with capacity *cap) to hold at least need items,
 * doubling from 64. Contents are kept (realloc). Returns 0 or AGIO_ENOMEM. */
int agio_grow(void **p, int64_t *cap, int64_t need, size_t elem);

#endif
