/*
 * hints_match.c - shell wildcard matching for the file patterns of hint specifications.
 *
 * Semantics: fnmatch(3) with flags 0 in the C locale (POSIX.1-2008 XCU 2.13.1), byte by byte:
 * '*' matches any string (including '/'), '?' any one byte, "[...]" a bracket expression with
 * '!' or '^' negation and a-z ranges (by byte value), '\' quotes the next byte. A '[' that does
 * not start a terminated bracket expression is an ordinary byte (XCU 2.13.1); a trailing '\'
 * matches nothing. Not supported: [:class:], [.coll.], [=equiv=] - they cannot occur in a spec,
 * where ':' separates tokens and '=' ends the pattern.
 *
 * Algorithm: glibc's fnmatch retries every '*' recursively, which is exponential for patterns
 * such as "*a*a*a*a*b" and unacceptable for input taken from the environment. Every pattern
 * element other than '*' consumes exactly one byte, so only the most recent '*' ever needs to be
 * retried (the classic two-pointer glob algorithm): O(len(pattern) * len(string)), no recursion,
 * no allocation. The unit test checks agreement with the C library's fnmatch.
 */
#include "hints_internal.h"

enum { ELEM_NOMATCH = 0, ELEM_MATCH = 1 };

/* If p (just after '[') starts a bracket expression, return the position of its closing ']',
 * else NULL. A ']' right after "[" or "[!" is a member; '\' quotes the next byte. */
static const char *bracket_end(const char *p)
{
    if (*p == '!' || *p == '^') p++;
    if (*p == ']') p++;
    for (; *p != ']'; p++) {
        if (*p == '\0') return 0;
        if (*p == '\\' && *++p == '\0') return 0;
    }
    return p;
}

/* Does the bracket expression [p, end) (after '[', before its ']') match byte c? */
static int match_bracket(const char *p, const char *end, unsigned char c)
{
    int negate = (*p == '!' || *p == '^');
    int hit = 0;
    if (negate) p++;
    while (p < end && !hit) {
        if (*p == '\\') p++;
        unsigned char lo = (unsigned char)*p++, hi = lo;
        if (p + 1 < end && *p == '-') {
            p++;
            if (*p == '\\') p++;
            hi = (unsigned char)*p++;
        }
        hit = (lo <= c && c <= hi);
    }
    return hit != negate ? ELEM_MATCH : ELEM_NOMATCH;
}

/* Does the pattern element at p (not '*', not end) match byte c? *len gets its length. */
static int match_elem(const char *p, unsigned char c, size_t *len)
{
    if (*p == '?') {
        *len = 1;
        return ELEM_MATCH;
    }
    const char *end = (*p == '[') ? bracket_end(p + 1) : 0;
    if (end) {
        *len = (size_t)(end + 1 - p);
        return match_bracket(p + 1, end, c);
    }
    if (*p == '\\') {
        if (p[1] == '\0') return ELEM_NOMATCH;
        *len = 2;
        return (unsigned char)p[1] == c ? ELEM_MATCH : ELEM_NOMATCH;
    }
    *len = 1;
    return (unsigned char)*p == c ? ELEM_MATCH : ELEM_NOMATCH;
}

int agio_hints_match(const char *pattern, const char *string)
{
    if (!pattern || !string) return 0;
    const char *p = pattern, *s = string;
    const char *star_p = 0, *star_s = 0; /* after the last '*', and where its match ends */
    while (*s) {
        if (*p == '*') {
            while (*p == '*')
                p++;
            if (*p == '\0') return 1;
            star_p = p;
            star_s = s;
            continue;
        }
        size_t len = 0;
        if (*p != '\0' && match_elem(p, (unsigned char)*s, &len) == ELEM_MATCH) {
            p += len;
            s++;
            continue;
        }
        if (!star_p) return 0;
        /* let the last '*' swallow one more byte and retry what follows it */
        p = star_p;
        s = ++star_s;
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}
