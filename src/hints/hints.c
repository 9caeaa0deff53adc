/*
 * hints.c - the hints table (hints_table.h) as data: defaults, parsing and validation of one
 * key=value, formatting, the AGIO_HINTS_DISPLAY listing and the Markdown reference.
 *
 * Value syntax by type (surrounding ASCII whitespace is ignored for every type):
 *   BYTES  decimal digits with an optional k/K, m/M or g/G suffix (x 1024, 1024^2, 1024^3);
 *          no sign, no other suffix.
 *   INT    optional '-', decimal digits.
 *   ENUM   enable | disable | automatic, also true | false | auto (ASCII case-insensitive).
 *   BOOL   true | false | enable | disable | yes | no | 1 | 0 (ASCII case-insensitive).
 *   PERM   octal digits, with or without a leading 0 ("0644", "644").
 *   STRING fewer than AGIO_HINT_STRLEN bytes, stored trimmed; cb_config_list must follow ROMIO's
 *          grammar: entry {',' entry}, entry = name [':' count], name = '*' or a host name,
 *          count = '*' or a positive integer (< 2^31).
 * Numeric results must lie in the row's [min, max].
 *
 * Invariants: a failed set leaves the struct untouched (parse to a local, then store); no static
 * mutable state and no allocation, so every function is thread-safe; no locale-dependent calls.
 */
#include "hints_internal.h"

#include <inttypes.h>
#include <string.h>

#include "agio_err.h"

enum htype { T_BYTES, T_INT, T_ENUM, T_BOOL, T_PERM, T_STRING };

/* The table's default column is a number for every type but STRING, where it is the text. */
#define NUM_BYTES(d) (d)
#define NUM_INT(d) (d)
#define NUM_ENUM(d) (d)
#define NUM_BOOL(d) (d)
#define NUM_PERM(d) (d)
#define NUM_STRING(d) 0
#define STR_BYTES(d) ""
#define STR_INT(d) ""
#define STR_ENUM(d) ""
#define STR_BOOL(d) ""
#define STR_PERM(d) ""
#define STR_STRING(d) d

struct hint_row {
    const char *name;
    enum htype type;
    int64_t def;
    const char *defstr;
    int64_t min, max;
    const char *doc;
};

static const struct hint_row rows[AGIO_H_COUNT] = {
#define AGIO_X_ROW(name, type, def, min, max, doc)                                                 \
    {#name, T_##type, (int64_t)NUM_##type(def), STR_##type(def), (min), (max), (doc)},
    AGIO_HINTS_TABLE(AGIO_X_ROW)
#undef AGIO_X_ROW
};

static const char *const type_names[] = {"bytes", "int", "enum", "bool", "perm", "string"};
static const char *const source_names[] = {"default", "info", "env"};
static const char *const enum_names[] = {"disable", "enable", "automatic"};
static const char *const enum_words[] = {"disable", "enable", "automatic", "false", "true", "auto"};
static const int enum_values[] = {AGIO_HINT_DISABLE, AGIO_HINT_ENABLE, AGIO_HINT_AUTO,
                                  AGIO_HINT_DISABLE, AGIO_HINT_ENABLE, AGIO_HINT_AUTO};
static const char *const bool_words[] = {"false", "true", "disable", "enable",
                                         "no",    "yes",  "0",       "1"}; /* even = false */
static const char *const suffixes[] = {"k", "m", "g"};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* ASCII case-insensitive comparison of [s, s+n) with the NUL-terminated word w. */
static int word_eq(const char *s, size_t n, const char *w)
{
    size_t i = 0;
    for (; i < n && w[i]; i++)
        if (lower(s[i]) != w[i]) return 0;
    return i == n && w[i] == '\0';
}

/* Find the first of any string in words[] equal to [s, s+n); its index, or -1. */
static int word_index(const char *s, size_t n, const char *const *words, int nwords)
{
    for (int i = 0; i < nwords; i++)
        if (word_eq(s, n, words[i])) return i;
    return -1;
}

char *agio_hints_quote(char *dst, size_t n, const char *src, size_t srclen, size_t max)
{
    if (!dst || n == 0) return dst;
    size_t o = 0;
    if (!src) srclen = 0;
    for (size_t i = 0; i < srclen && i < max && o + 1 < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (srclen > max)
        for (int k = 0; k < 3 && o + 1 < n; k++)
            dst[o++] = '.';
    dst[o] = '\0';
    return dst;
}

/* Parse digits of base 8 or 10 in [s, e) into *v, no sign. Returns 0, or -1 on no digits, a bad
 * digit or overflow of int64_t. */
static int parse_digits(const char *s, const char *e, int base, int64_t *v)
{
    int64_t x = 0;
    if (s == e) return -1;
    for (; s < e; s++) {
        if (!is_digit(*s) || *s - '0' >= base) return -1;
        int d = *s - '0';
        if (x > (INT64_MAX - d) / base) return -1;
        x = x * base + d;
    }
    *v = x;
    return 0;
}

/* Parse [s, e) (already trimmed) as a number of the row's type. Returns 0 or -1. */
static int parse_number(const struct hint_row *r, const char *s, const char *e, int64_t *v)
{
    int i;
    switch (r->type) {
    case T_BYTES: {
        int shift = 0;
        if (s < e && (i = word_index(e - 1, 1, suffixes, 3)) >= 0) {
            shift = 10 * (i + 1);
            e--;
        }
        if (parse_digits(s, e, 10, v) < 0 || *v > (INT64_MAX >> shift)) return -1;
        *v <<= shift;
        return 0;
    }
    case T_INT: {
        int neg = (s < e && *s == '-');
        if (parse_digits(s + neg, e, 10, v) < 0) return -1;
        if (neg) *v = -*v;
        return 0;
    }
    case T_PERM: return parse_digits(s, e, 8, v);
    case T_ENUM:
        i = word_index(s, (size_t)(e - s), enum_words, 6);
        if (i < 0) return -1;
        *v = enum_values[i];
        return 0;
    case T_BOOL:
        i = word_index(s, (size_t)(e - s), bool_words, 8);
        if (i < 0) return -1;
        *v = i % 2;
        return 0;
    case T_STRING: break;
    }
    return -1;
}

/* Check [s, e) against ROMIO's cb_config_list grammar (see the top of this file). */
static int valid_cb_config_list(const char *s, const char *e)
{
    if (s == e) return 0;
    while (s < e) {
        const char *ent = s;
        while (s < e && *s != ',')
            s++;
        const char *colon = memchr(ent, ':', (size_t)(s - ent));
        const char *name_end = colon ? colon : s;
        if (name_end == ent) return 0;
        for (const char *c = ent; c < name_end; c++) {
            unsigned char u = (unsigned char)*c;
            if (u <= 0x20 || u >= 0x7f) return 0;
        }
        if (colon) {
            const char *n = colon + 1;
            int64_t cnt;
            int star = (s - n == 1 && *n == '*');
            if (!star && (parse_digits(n, s, 10, &cnt) < 0 || cnt < 1 || cnt > INT32_MAX))
                return 0;
        }
        if (s < e) {
            s++; /* the ',' */
            if (s == e) return 0;
        }
    }
    return 1;
}

/* "an integer in [0, 1048576]" and the like: what a valid value of row r looks like. */
static void describe_range(const struct hint_row *r, char *buf, size_t len)
{
    switch (r->type) {
    case T_BYTES:
        snprintf(buf, len, "a byte count in [%" PRId64 ", %" PRId64 "] (suffix k, m, g allowed)",
                 r->min, r->max);
        break;
    case T_INT:
        snprintf(buf, len, "an integer in [%" PRId64 ", %" PRId64 "]", r->min, r->max);
        break;
    case T_ENUM: snprintf(buf, len, "enable, disable or automatic"); break;
    case T_BOOL: snprintf(buf, len, "true or false"); break;
    case T_PERM:
        snprintf(buf, len, "an octal mode in [0%03" PRIo64 ", 0%03" PRIo64 "]", r->min, r->max);
        break;
    case T_STRING:
        if (r == &rows[AGIO_H_cb_config_list])
            snprintf(buf, len, "a list of name[:count] (name * or host, count * or > 0), "
                               "shorter than %d bytes",
                     AGIO_HINT_STRLEN);
        else
            snprintf(buf, len, "text shorter than %d bytes", AGIO_HINT_STRLEN);
        break;
    }
}

int agio_hints_set_id(struct agio_hints *h, enum agio_hint_id id, const char *value,
                      enum agio_hint_source src, char *body, size_t bodylen)
{
    if (body && bodylen) body[0] = '\0';
    if (!h || (int)id < 0 || id >= AGIO_H_COUNT || (int)src < 0 || src > AGIO_HSRC_ENV)
        return AGIO_EARG;
    const struct hint_row *r = &rows[id];
    const char *s = value ? value : "", *e = s + strlen(s);
    while (s < e && is_space(*s))
        s++;
    while (e > s && is_space(e[-1]))
        e--;
    int64_t v = 0;
    int ok;
    if (r->type == T_STRING) {
        ok = value && (size_t)(e - s) < AGIO_HINT_STRLEN;
        if (ok && id == AGIO_H_cb_config_list) ok = valid_cb_config_list(s, e);
    } else {
        ok = value && parse_number(r, s, e, &v) == 0 && v >= r->min && v <= r->max;
    }
    if (!ok) {
        char q[80], want[160];
        describe_range(r, want, sizeof want);
        agio_hints_quote(q, sizeof q, value, value ? strlen(value) : 0, 64);
        if (body && bodylen)
            snprintf(body, bodylen, "invalid value '%s' for hint %s: expected %s", q, r->name,
                     want);
        return AGIO_EINFOVAL;
    }
    h->num[id] = v;
    if (r->type == T_STRING) {
        memcpy(h->str[id], s, (size_t)(e - s));
        h->str[id][e - s] = '\0';
    }
    h->source[id] = (unsigned char)src;
    return 0;
}

int agio_hints_set(struct agio_hints *h, const char *key, const char *value,
                   enum agio_hint_source src, char *msg, size_t msglen)
{
    if (msg && msglen) msg[0] = '\0';
    if (!h || !key) return AGIO_EARG;
    int id = agio_hint_lookup(key);
    if (id < 0) {
        char q[80];
        agio_hints_quote(q, sizeof q, key, strlen(key), 64);
        if (msg && msglen) snprintf(msg, msglen, "agio: ignoring unknown hint '%s'", q);
        return 1;
    }
    char body[400];
    int rc = agio_hints_set_id(h, (enum agio_hint_id)id, value, src, body, sizeof body);
    if (rc < 0 && msg && msglen) snprintf(msg, msglen, "agio: %s", body);
    return rc;
}

void agio_hints_init(struct agio_hints *h)
{
    if (!h) return;
    memset(h, 0, sizeof *h);
    for (int i = 0; i < AGIO_H_COUNT; i++) {
        h->num[i] = rows[i].def;
        /* defaults are table literals, checked shorter than AGIO_HINT_STRLEN by the unit test */
        snprintf(h->str[i], AGIO_HINT_STRLEN, "%s", rows[i].defstr);
        h->source[i] = AGIO_HSRC_DEFAULT;
    }
}

int agio_hints_is_string(enum agio_hint_id id)
{
    return (int)id >= 0 && id < AGIO_H_COUNT && rows[id].type == T_STRING;
}

int agio_hint_lookup(const char *key)
{
    if (!key) return -1;
    for (int i = 0; i < AGIO_H_COUNT; i++)
        if (strcmp(key, rows[i].name) == 0) return i;
    return -1;
}

const char *agio_hint_name(enum agio_hint_id id)
{
    return ((int)id >= 0 && id < AGIO_H_COUNT) ? rows[id].name : "?";
}

const char *agio_hint_doc(enum agio_hint_id id)
{
    return ((int)id >= 0 && id < AGIO_H_COUNT) ? rows[id].doc : "?";
}

/* Format a value v (or text str) of row r. */
static void format_value(const struct hint_row *r, int64_t v, const char *str, char *buf,
                         size_t len)
{
    switch (r->type) {
    case T_BYTES:
    case T_INT: snprintf(buf, len, "%" PRId64, v); break;
    case T_ENUM: snprintf(buf, len, "%s", (v >= 0 && v <= 2) ? enum_names[v] : "?"); break;
    case T_BOOL: snprintf(buf, len, "%s", v ? "true" : "false"); break;
    case T_PERM: snprintf(buf, len, "0%03" PRIo64, (uint64_t)v); break;
    case T_STRING: snprintf(buf, len, "%.*s", AGIO_HINT_STRLEN - 1, str); break;
    }
}

const char *agio_hint_format(const struct agio_hints *h, enum agio_hint_id id, char *buf,
                             size_t len)
{
    if (!buf || len == 0) return buf;
    if (!h || (int)id < 0 || id >= AGIO_H_COUNT) {
        snprintf(buf, len, "?");
        return buf;
    }
    format_value(&rows[id], h->num[id], h->str[id], buf, len);
    return buf;
}

void agio_hints_display(FILE *out, const struct agio_hints *h, const char *path)
{
    if (!out || !h) return;
    char buf[AGIO_HINT_STRLEN];
    fprintf(out, "agio hints for %s:\n", path ? path : "(no path)");
    for (int i = 0; i < AGIO_H_COUNT; i++) {
        unsigned s = h->source[i];
        fprintf(out, "  %s = %s  (%s)\n", rows[i].name,
                agio_hint_format(h, (enum agio_hint_id)i, buf, sizeof buf),
                s <= AGIO_HSRC_ENV ? source_names[s] : "?");
    }
}

/* Write text to out for a Markdown table cell: '|' always escaped (GitHub tables need it even
 * in code spans), '*' and '_' too unless the text goes into a code span. */
static void md_cell(FILE *out, const char *text, int code)
{
    for (const char *c = text; *c; c++) {
        if (*c == '|' || (!code && (*c == '*' || *c == '_'))) fputc('\\', out);
        fputc(*c, out);
    }
}

void agio_hints_print_doc(FILE *out)
{
    if (!out) return;
    fprintf(out, "| hint | type | default | range | meaning |\n");
    fprintf(out, "|---|---|---|---|---|\n");
    for (int i = 0; i < AGIO_H_COUNT; i++) {
        const struct hint_row *r = &rows[i];
        char def[AGIO_HINT_STRLEN], lo[32], hi[32], range[96];
        format_value(r, r->def, r->defstr, def, sizeof def);
        format_value(r, r->min, "", lo, sizeof lo);
        format_value(r, r->max, "", hi, sizeof hi);
        if (r->type == T_ENUM)
            snprintf(range, sizeof range, "enable, disable, automatic");
        else if (r->type == T_BOOL)
            snprintf(range, sizeof range, "true, false");
        else if (r->type == T_STRING)
            snprintf(range, sizeof range, "< %d bytes", AGIO_HINT_STRLEN);
        else
            snprintf(range, sizeof range, "%s .. %s", lo, hi);
        fprintf(out, "| `%s` | %s | `", r->name, type_names[r->type]);
        md_cell(out, def, 1);
        fprintf(out, "` | %s | ", range);
        md_cell(out, r->doc, 0);
        fprintf(out, " |\n");
    }
}
