/*
 * hints_env.c - hints from an AGIO_HINTS / MPICH_MPIIO_HINTS style specification.
 *
 * Syntax (Cray MPICH's MPICH_MPIIO_HINTS, extended for list values):
 *   spec  = entry {',' entry}
 *   entry = pattern ':' key '=' value {':' key '=' value}
 * e.g. "*.nc:striping_factor=8:cb_buffer_size=4m,/scratch/out*:romio_cb_write=enable".
 * The pattern is a shell wildcard (fnmatch semantics, hints_match.c) matched against the whole
 * path and against its last component; an entry applies if either matches. Matching entries are
 * applied in order with source AGIO_HSRC_ENV, so a later entry overrides an earlier one.
 *
 * ':' and ',' are separators, so a value cannot contain them - except the value of a STRING hint
 * (cb_config_list is the one today), whose ROMIO syntax needs both ("host1:2,host2:1", "*:*").
 * Rule: a key=value token of a STRING hint extends over the following tokens that contain no
 * '=', with the ':' or ',' between them kept. A ','-separated segment that contains '=' always
 * starts a new entry, so a list value with ',' must be the last key of its entry:
 *   "*:cb_config_list=*:2:cb_buffer_size=1m"  -> cb_config_list "*:2", cb_buffer_size 1 MiB
 *   "*:cb_nodes=4:cb_config_list=a:2,b:1"     -> cb_nodes 4, cb_config_list "a:2,b:1"
 *   "*:cb_config_list=a:2,b:1:cb_nodes=4"     -> new entry "b:1:cb_nodes=4" (pattern "b"), so
 *                                                cb_config_list is "a:2" (write it last instead)
 * A segment that is empty or blank ends the entry; whitespace around patterns, keys and values
 * is ignored.
 *
 * Errors never stop the parse: a segment without '=', an entry without a pattern, a token that
 * is not key=value, an empty or unknown key, a bad value - each is reported through warn as one
 * line and skipped. Entries whose pattern does not match are skipped without parsing their
 * tokens, so their mistakes are reported only for the files they name.
 *
 * Invariants: linear in the length of the spec (each segment is scanned at most twice, matching
 * is O(pattern * path)), no allocation, no static state; input may be any bytes.
 */
#include "hints_internal.h"

#include <stdarg.h>
#include <string.h>

#define KEY_MAX 64
#define VAL_MAX (2 * AGIO_HINT_STRLEN)
#define PAT_MAX 1024

struct env_state {
    struct agio_hints *h;
    agio_hint_warn_fn warn;
    void *ctx;
    char qpat[80];   /* the current entry's pattern, quoted for messages */
    int pending;     /* a key=value waits for possible continuation tokens */
    const char *key; /* the pending key in the spec, [key, key + keylen), trimmed */
    size_t keylen;
    int id;       /* the pending key's hint id, -1 if unknown */
    int overflow; /* the pending value did not fit val */
    size_t vallen;
    char val[VAL_MAX];
};

__attribute__((format(printf, 2, 3))) static void warnf(struct env_state *st, const char *fmt,
                                                         ...)
{
    if (!st->warn) return;
    char msg[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st->warn(st->ctx, msg);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && is_space(**s))
        (*s)++;
    while (*e > *s && is_space((*e)[-1]))
        (*e)--;
}

static int blank(const char *s, const char *e)
{
    trim(&s, &e);
    return s == e;
}

static int has_eq(const char *s, const char *e)
{
    return memchr(s, '=', (size_t)(e - s)) != 0;
}

/* The end of the ','-separated segment starting at p: its ',' or the terminating NUL. */
static const char *seg_end(const char *p)
{
    return p + strcspn(p, ",");
}

static char *quote(char *buf, size_t n, const char *s, const char *e)
{
    return agio_hints_quote(buf, n, s, (size_t)(e - s), 64);
}

static void append(struct env_state *st, const char *s, size_t n)
{
    if (st->vallen + n >= sizeof st->val) {
        st->overflow = 1;
        return;
    }
    memcpy(st->val + st->vallen, s, n);
    st->vallen += n;
}

/* Apply the pending key=value, if any. */
static void flush(struct env_state *st)
{
    if (!st->pending) return;
    st->pending = 0;
    char q[80], body[400];
    if (st->keylen == 0) {
        warnf(st, "agio: hints spec entry '%s': empty key; skipped", st->qpat);
        return;
    }
    if (st->id < 0) {
        quote(q, sizeof q, st->key, st->key + st->keylen);
        warnf(st, "agio: hints spec entry '%s': ignoring unknown hint '%s'", st->qpat, q);
        return;
    }
    const char *name = agio_hint_name((enum agio_hint_id)st->id);
    if (st->overflow) {
        warnf(st, "agio: hints spec entry '%s': value of hint %s too long; skipped", st->qpat,
              name);
        return;
    }
    st->val[st->vallen] = '\0';
    if (agio_hints_set_id(st->h, (enum agio_hint_id)st->id, st->val, AGIO_HSRC_ENV, body,
                          sizeof body) != 0)
        warnf(st, "agio: hints spec entry '%s': %s", st->qpat, body);
}

/* Handle the token [s, e) that followed separator sep (':' or ','). */
static void token(struct env_state *st, char sep, const char *s, const char *e)
{
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (eq) {
        flush(st);
        const char *ks = s, *ke = eq;
        trim(&ks, &ke);
        char key[KEY_MAX];
        size_t kl = (size_t)(ke - ks);
        st->id = -1;
        if (kl < sizeof key) {
            memcpy(key, ks, kl);
            key[kl] = '\0';
            st->id = agio_hint_lookup(key);
        }
        st->pending = 1;
        st->key = ks;
        st->keylen = kl;
        st->overflow = 0;
        st->vallen = 0;
        append(st, eq + 1, (size_t)(e - eq - 1));
        return;
    }
    if (st->pending && st->id >= 0 && agio_hints_is_string((enum agio_hint_id)st->id)) {
        append(st, &sep, 1);
        append(st, s, (size_t)(e - s));
        return;
    }
    if (blank(s, e)) return;
    char q[80];
    warnf(st, "agio: hints spec entry '%s': '%s' is not key=value; skipped", st->qpat,
          quote(q, sizeof q, s, e));
}

/* Parse the entry that starts at p (whose first segment contains '='); apply it if its pattern
 * matches path or base. Returns where the next entry starts. */
static const char *entry(struct env_state *st, const char *p, const char *path, const char *base)
{
    const char *e = seg_end(p);
    /* 1. the entry extends over the following segments that are not blank and have no '=' */
    const char *end = e;
    while (*end == ',') {
        const char *n = end + 1, *ne = seg_end(n);
        if (blank(n, ne) || has_eq(n, ne)) break;
        end = ne;
    }
    const char *next = *end ? end + 1 : end;

    /* 2. the pattern: everything before the first ':', which must come before the first '=' */
    const char *colon = memchr(p, ':', (size_t)(e - p));
    const char *eq = memchr(p, '=', (size_t)(e - p));
    const char *ps = p, *pe = colon ? colon : eq;
    trim(&ps, &pe);
    quote(st->qpat, sizeof st->qpat, ps, pe);
    if (!colon || eq < colon || ps == pe) {
        char q[80];
        warnf(st, "agio: hints spec entry '%s' has no file pattern before ':'; skipped",
              quote(q, sizeof q, p, end));
        return next;
    }
    char pat[PAT_MAX];
    if ((size_t)(pe - ps) >= sizeof pat) {
        warnf(st, "agio: hints spec entry '%s': file pattern too long; skipped", st->qpat);
        return next;
    }
    memcpy(pat, ps, (size_t)(pe - ps));
    pat[pe - ps] = '\0';
    if (!agio_hints_match(pat, path) && !agio_hints_match(pat, base)) return next;

    /* 3. the key=value tokens, separated by ':' or ',' */
    st->pending = 0;
    char sep = ':';
    for (const char *q = colon + 1;;) {
        const char *r = q;
        while (r < end && *r != ':' && *r != ',')
            r++;
        token(st, sep, q, r);
        if (r == end) break;
        sep = *r;
        q = r + 1;
    }
    flush(st);
    return next;
}

/*
 * Apply the entries of spec that match path, in order (later wins), with source ENV. Syntax,
 * matching and error handling as described at the top of this file; in short: entries are
 * separated by ',' and tokens by ':', so values cannot contain either, except a STRING hint's
 * value (cb_config_list), which extends over the following tokens that contain no '='
 * ("*:cb_config_list=*:2:cb_buffer_size=1m" works). Never fails; any input is safe.
 */
void agio_hints_apply_env(struct agio_hints *h, const char *spec, const char *path,
                          agio_hint_warn_fn warn, void *ctx)
{
    if (!h || !spec) return;
    struct env_state st = {.h = h, .warn = warn, .ctx = ctx, .id = -1};
    if (!path) path = "";
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *p = spec;
    while (*p) {
        const char *e = seg_end(p);
        if (blank(p, e)) {
            p = *e ? e + 1 : e;
            continue;
        }
        if (!has_eq(p, e)) {
            char q[80];
            quote(q, sizeof q, p, e);
            warnf(&st, "agio: hints spec: '%s' has no key=value; skipped", q);
            p = *e ? e + 1 : e;
            continue;
        }
        p = entry(&st, p, path, base);
    }
}
