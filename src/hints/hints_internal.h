/*
 * hints_internal.h - functions shared by the files of the hints module (hints.c, hints_env.c,
 * hints_match.c) and its unit test. Not part of the module's surface (hints.h).
 */
#ifndef AGIO_HINTS_INTERNAL_H
#define AGIO_HINTS_INTERNAL_H

#include <stddef.h>

#include "hints.h"

/* Parse value for hint id and, if valid, store it with source src. Returns 0 or AGIO_EINFOVAL
 * (h unchanged). On error body gets one line without the "agio: " prefix, e.g.
 * "invalid value 'x' for hint cb_nodes: expected an integer in [0, 1048576]". */
int agio_hints_set_id(struct agio_hints *h, enum agio_hint_id id, const char *value,
                      enum agio_hint_source src, char *body, size_t bodylen);

/* 1 if hint id takes a STRING value (which may contain ':' and ','), else 0. */
int agio_hints_is_string(enum agio_hint_id id);

/* Copy src into dst (size n > 0) for use inside a one-line message: non-printable bytes become
 * '?', and text longer than max bytes is cut and ends in "...". Returns dst. */
char *agio_hints_quote(char *dst, size_t n, const char *src, size_t srclen, size_t max);

/* Shell wildcard match of a whole string, fnmatch(3) semantics with flags 0 in the C locale
 * ('*', '?', bracket expressions with '!'/'^' negation and ranges, '\' escapes; an unterminated
 * '[' is an ordinary byte; no [:class:]).
 * Runs in O(len(pattern) * len(string)) time: see hints_match.c. Returns 1 on match. */
int agio_hints_match(const char *pattern, const char *string);

#endif
