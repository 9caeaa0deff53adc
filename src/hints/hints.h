/*
 * hints.h - hints in effect for one open file: defaults, MPI_Info, AGIO_HINTS environment.
 *
 * struct agio_hints is plain data (no pointers) so the api layer can decide the hints on one
 * rank and broadcast the struct as bytes: every rank then takes the same collective paths even
 * when environments differ (mpich#5604). No MPI here: the api layer walks an MPI_Info and calls
 * agio_hints_set for each key.
 */
#ifndef AGIO_HINTS_H
#define AGIO_HINTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hints_table.h"

enum agio_hint_id {
#define AGIO_X_ID(name, type, def, min, max, doc) AGIO_H_##name,
    AGIO_HINTS_TABLE(AGIO_X_ID)
#undef AGIO_X_ID
    AGIO_H_COUNT
};

/* Where the value in effect came from (for the display). */
enum agio_hint_source { AGIO_HSRC_DEFAULT = 0, AGIO_HSRC_INFO, AGIO_HSRC_ENV };

#define AGIO_HINT_STRLEN 256

struct agio_hints {
    int64_t num[AGIO_H_COUNT];                /* numeric, enum, bool and perm values */
    char str[AGIO_H_COUNT][AGIO_HINT_STRLEN]; /* STRING values (empty for other types) */
    unsigned char source[AGIO_H_COUNT];       /* enum agio_hint_source */
};

/* Called for each ignored key or malformed value; msg is one line without newline. */
typedef void (*agio_hint_warn_fn)(void *ctx, const char *msg);

/* Fill h with the table's defaults. */
void agio_hints_init(struct agio_hints *h);

/* Apply one key=value. Returns 0 if applied, 1 if the key is not agio's (ignored), or
 * AGIO_EINFOVAL if the value is malformed or out of range (h unchanged; msg explains). */
int agio_hints_set(struct agio_hints *h, const char *key, const char *value,
                   enum agio_hint_source src, char *msg, size_t msglen);

/* Apply the entries of an AGIO_HINTS / MPICH_MPIIO_HINTS specification that match path:
 * "pattern:key=value:key=value,pattern2:key=value". Patterns are shell wildcards (fnmatch)
 * matched against the whole path and against its last component. Malformed parts are reported
 * through warn (may be NULL) and skipped; this never fails. */
void agio_hints_apply_env(struct agio_hints *h, const char *spec, const char *path,
                          agio_hint_warn_fn warn, void *ctx);

/* Look up a hint id by name; -1 if unknown. */
int agio_hint_lookup(const char *key);

const char *agio_hint_name(enum agio_hint_id id);
const char *agio_hint_doc(enum agio_hint_id id);

/* The value in effect as text ("automatic", "16777216", "0644", "*:1"). Returns buf. */
const char *agio_hint_format(const struct agio_hints *h, enum agio_hint_id id, char *buf,
                             size_t len);

/* One line per hint: name, value, source (default/info/env) - for AGIO_HINTS_DISPLAY=1. */
void agio_hints_display(FILE *out, const struct agio_hints *h, const char *path);

/* Markdown reference of every hint (doc/hints.md). */
void agio_hints_print_doc(FILE *out);

#endif
