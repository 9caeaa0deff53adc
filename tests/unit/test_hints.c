/*
 * test_hints.c - unit test of the hints module (src/hints): defaults, parsing of every value type
 * (valid, boundary, out of range, garbage, suffixes), hint specifications from the environment
 * (patterns on full path and basename, later wins, malformed parts warned and skipped, list values
 * with ':' and ','), the wildcard matcher against the C library's fnmatch, format/set round trips
 * for every hint, the display and Markdown outputs, and a random-input robustness loop.
 *
 * Table-driven: rows of the hints table are rebuilt here from hints_table.h, so a new hint is
 * covered by the generic checks without editing this file. Last line: "N passed, M failed".
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agio_err.h"
#include "hints/hints.h"
#include "hints/hints_internal.h"
#include "unit.h"



/* ---- the table, as the test sees it ------------------------------------------------------- */

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

static const struct trow {
    const char *name, *type;
    int64_t def;
    const char *defstr;
    int64_t min, max;
} trows[AGIO_H_COUNT] = {
#define X(name, type, def, min, max, doc)                                                          \
    {#name, #type, (int64_t)NUM_##type(def), STR_##type(def), (min), (max)},
    AGIO_HINTS_TABLE(X)
#undef X
};

static int is_type(int id, const char *t)
{
    return strcmp(trows[id].type, t) == 0;
}

/* Set key=value from INFO; returns the result and checks the invariants of a set: msg empty on
 * success, h untouched on failure, msg non-empty on failure. */
static int set(struct agio_hints *h, const char *key, const char *value, char *msg, size_t n)
{
    struct agio_hints before = *h;
    char local[512];
    if (!msg) {
        msg = local;
        n = sizeof local;
    }
    int rc = agio_hints_set(h, key, value, AGIO_HSRC_INFO, msg, n);
    if (rc == 0) {
        check(msg[0] == '\0', __LINE__, "msg '%s' after success of %s=%s", msg, key, value);
    } else {
        check(memcmp(&before, h, sizeof before) == 0, __LINE__, "%s=%s changed h on error %d",
              key, value ? value : "(null)", rc);
        check(msg[0] != '\0' && !strchr(msg, '\n'), __LINE__, "bad msg for %s", key);
    }
    return rc;
}

/* ---- parsing of every type --------------------------------------------------------------- */

#define E AGIO_EINFOVAL
struct pcase {
    const char *key, *value;
    int rc;
    int64_t num;      /* expected value when rc == 0 (numeric types) */
    const char *str;  /* expected text when rc == 0 (STRING) */
};

static const struct pcase pcases[] = {
    /* BYTES: cb_buffer_size in [64 KiB, 1 GiB] */
    {"cb_buffer_size", "65536", 0, 65536, 0},
    {"cb_buffer_size", "64k", 0, 65536, 0},
    {"cb_buffer_size", "64K", 0, 65536, 0},
    {"cb_buffer_size", "16m", 0, 16777216, 0},
    {"cb_buffer_size", "16M", 0, 16777216, 0},
    {"cb_buffer_size", "1g", 0, 1073741824, 0},
    {"cb_buffer_size", "1G", 0, 1073741824, 0},
    {"cb_buffer_size", "1024m", 0, 1073741824, 0},
    {"cb_buffer_size", "1073741824", 0, 1073741824, 0},
    {"cb_buffer_size", " \t16M\n ", 0, 16777216, 0},
    {"cb_buffer_size", "0000065536", 0, 65536, 0},
    {"cb_buffer_size", "65535", E, 0, 0},
    {"cb_buffer_size", "63k", E, 0, 0},
    {"cb_buffer_size", "1073741825", E, 0, 0},
    {"cb_buffer_size", "2g", E, 0, 0},
    {"cb_buffer_size", "1025m", E, 0, 0},
    {"cb_buffer_size", "0", E, 0, 0},
    {"cb_buffer_size", "-1", E, 0, 0},
    {"cb_buffer_size", "-64k", E, 0, 0},
    {"cb_buffer_size", "+64k", E, 0, 0},
    {"cb_buffer_size", "64kb", E, 0, 0},
    {"cb_buffer_size", "64KiB", E, 0, 0},
    {"cb_buffer_size", "64 k", E, 0, 0},
    {"cb_buffer_size", "64t", E, 0, 0},
    {"cb_buffer_size", "k", E, 0, 0},
    {"cb_buffer_size", "", E, 0, 0},
    {"cb_buffer_size", "   ", E, 0, 0},
    {"cb_buffer_size", "0x10000", E, 0, 0},
    {"cb_buffer_size", "1e6", E, 0, 0},
    {"cb_buffer_size", "16m junk", E, 0, 0},
    {"cb_buffer_size", "16.5m", E, 0, 0},
    {"cb_buffer_size", "9223372036854775807", E, 0, 0},
    {"cb_buffer_size", "9223372036854775808", E, 0, 0},
    {"cb_buffer_size", "99999999999999999999999", E, 0, 0},
    {"cb_buffer_size", "9007199254740992g", E, 0, 0},
    {"cb_buffer_size", "8589934592g", E, 0, 0},
    {"striping_unit", "0", 0, 0, 0},
    {"striping_unit", "4g", 0, 4294967296, 0},
    {"striping_unit", "4294967296", 0, 4294967296, 0},
    {"striping_unit", "4294967297", E, 0, 0},
    {"striping_unit", "1m", 0, 1048576, 0},
    {"ind_rd_buffer_size", "4k", 0, 4096, 0},
    {"ind_rd_buffer_size", "4095", E, 0, 0},
    {"ind_wr_buffer_size", "512K", 0, 524288, 0},
    /* INT */
    {"cb_nodes", "0", 0, 0, 0},
    {"cb_nodes", "8", 0, 8, 0},
    {"cb_nodes", " 8 ", 0, 8, 0},
    {"cb_nodes", "-0", 0, 0, 0},
    {"cb_nodes", "1048576", 0, 1048576, 0},
    {"cb_nodes", "1048577", E, 0, 0},
    {"cb_nodes", "-1", E, 0, 0},
    {"cb_nodes", "--1", E, 0, 0},
    {"cb_nodes", "-", E, 0, 0},
    {"cb_nodes", "+3", E, 0, 0},
    {"cb_nodes", "8k", E, 0, 0},
    {"cb_nodes", "1.5", E, 0, 0},
    {"cb_nodes", "abc", E, 0, 0},
    {"cb_nodes", "", E, 0, 0},
    {"cb_nodes", "-9223372036854775808", E, 0, 0},
    {"cb_align", "3", 0, 3, 0},
    {"cb_align", "4", E, 0, 0},
    {"striping_factor", "65536", 0, 65536, 0},
    {"striping_factor", "65537", E, 0, 0},
    /* ENUM */
    {"romio_cb_read", "enable", 0, AGIO_HINT_ENABLE, 0},
    {"romio_cb_read", "ENABLE", 0, AGIO_HINT_ENABLE, 0},
    {"romio_cb_read", "Disable", 0, AGIO_HINT_DISABLE, 0},
    {"romio_cb_read", "automatic", 0, AGIO_HINT_AUTO, 0},
    {"romio_cb_read", "AutoMatic", 0, AGIO_HINT_AUTO, 0},
    {"romio_cb_read", "auto", 0, AGIO_HINT_AUTO, 0},
    {"romio_cb_read", "true", 0, AGIO_HINT_ENABLE, 0},
    {"romio_cb_read", "FALSE", 0, AGIO_HINT_DISABLE, 0},
    {"romio_cb_read", " enable\t", 0, AGIO_HINT_ENABLE, 0},
    {"romio_cb_write", "disable", 0, AGIO_HINT_DISABLE, 0},
    {"romio_ds_read", "enable", 0, AGIO_HINT_ENABLE, 0},
    {"romio_ds_write", "auto", 0, AGIO_HINT_AUTO, 0},
    {"romio_cb_read", "enabled", E, 0, 0},
    {"romio_cb_read", "enabl", E, 0, 0},
    {"romio_cb_read", "yes", E, 0, 0},
    {"romio_cb_read", "1", E, 0, 0},
    {"romio_cb_read", "2", E, 0, 0},
    {"romio_cb_read", "", E, 0, 0},
    {"romio_cb_read", "en able", E, 0, 0},
    /* BOOL */
    {"agio_cb_pipeline", "true", 0, 1, 0},
    {"agio_cb_pipeline", "TRUE", 0, 1, 0},
    {"agio_cb_pipeline", "false", 0, 0, 0},
    {"agio_cb_pipeline", "enable", 0, 1, 0},
    {"agio_cb_pipeline", "disable", 0, 0, 0},
    {"agio_cb_pipeline", "1", 0, 1, 0},
    {"agio_cb_pipeline", "0", 0, 0, 0},
    {"agio_cb_pipeline", "yes", 0, 1, 0},
    {"agio_cb_pipeline", "No", 0, 0, 0},
    {"agio_cb_pipeline", " yes ", 0, 1, 0},
    {"agio_cb_pipeline", "2", E, 0, 0},
    {"agio_cb_pipeline", "on", E, 0, 0},
    {"agio_cb_pipeline", "truee", E, 0, 0},
    {"agio_cb_pipeline", "automatic", E, 0, 0},
    {"agio_cb_pipeline", "", E, 0, 0},
    /* PERM */
    {"agio_file_perm", "0644", 0, 0644, 0},
    {"agio_file_perm", "644", 0, 0644, 0},
    {"agio_file_perm", "0", 0, 0, 0},
    {"agio_file_perm", "07777", 0, 07777, 0},
    {"agio_file_perm", "7777", 0, 07777, 0},
    {"agio_file_perm", "000000000600", 0, 0600, 0},
    {"agio_file_perm", " 0600 ", 0, 0600, 0},
    {"agio_file_perm", "10000", E, 0, 0},
    {"agio_file_perm", "0648", E, 0, 0},
    {"agio_file_perm", "-644", E, 0, 0},
    {"agio_file_perm", "0o644", E, 0, 0},
    {"agio_file_perm", "rw-r--r--", E, 0, 0},
    {"agio_file_perm", "", E, 0, 0},
    {"agio_file_perm", "7777777777777777777777777", E, 0, 0},
    /* STRING with ROMIO's cb_config_list grammar */
    {"cb_config_list", "*:1", 0, 0, "*:1"},
    {"cb_config_list", "*", 0, 0, "*"},
    {"cb_config_list", "*:*", 0, 0, "*:*"},
    {"cb_config_list", "*:8", 0, 0, "*:8"},
    {"cb_config_list", "host1", 0, 0, "host1"},
    {"cb_config_list", "host1:2,host2:1", 0, 0, "host1:2,host2:1"},
    {"cb_config_list", "a,b,c", 0, 0, "a,b,c"},
    {"cb_config_list", "node-01.example.org:4,*:1", 0, 0, "node-01.example.org:4,*:1"},
    {"cb_config_list", "host1:*", 0, 0, "host1:*"},
    {"cb_config_list", "  *:2 ", 0, 0, "*:2"},
    {"cb_config_list", "*:2147483647", 0, 0, "*:2147483647"},
    {"cb_config_list", "*:2147483648", E, 0, 0},
    {"cb_config_list", "", E, 0, 0},
    {"cb_config_list", "  ", E, 0, 0},
    {"cb_config_list", ":1", E, 0, 0},
    {"cb_config_list", "*:", E, 0, 0},
    {"cb_config_list", "*:0", E, 0, 0},
    {"cb_config_list", "*:-1", E, 0, 0},
    {"cb_config_list", "*:x", E, 0, 0},
    {"cb_config_list", "*:**", E, 0, 0},
    {"cb_config_list", "a:1:2", E, 0, 0},
    {"cb_config_list", "a,,b", E, 0, 0},
    {"cb_config_list", "a,", E, 0, 0},
    {"cb_config_list", ",a", E, 0, 0},
    {"cb_config_list", "a b:1", E, 0, 0},
    {"cb_config_list", "a\tb", E, 0, 0},
    {"cb_config_list", "a\x01", E, 0, 0},
};

static void test_parse(void)
{
    for (unsigned i = 0; i < sizeof pcases / sizeof pcases[0]; i++) {
        const struct pcase *c = &pcases[i];
        struct agio_hints h;
        agio_hints_init(&h);
        char msg[512];
        int rc = set(&h, c->key, c->value, msg, sizeof msg);
        int id = agio_hint_lookup(c->key);
        check(rc == c->rc, __LINE__, "%s='%s': rc %d want %d (%s)", c->key, c->value, rc, c->rc,
              msg);
        if (rc != 0 || c->rc != 0) {
            /* the message names the hint and shows the value */
            if (rc < 0)
                check(strstr(msg, c->key) && strstr(msg, "invalid value"), __LINE__, "msg '%s'",
                      msg);
            continue;
        }
        check(h.source[id] == AGIO_HSRC_INFO, __LINE__, "%s source %d", c->key, h.source[id]);
        if (c->str)
            check(strcmp(h.str[id], c->str) == 0, __LINE__, "%s='%s' stored '%s'", c->key,
                  c->value, h.str[id]);
        else
            check(h.num[id] == c->num, __LINE__, "%s='%s' -> %" PRId64 " want %" PRId64, c->key,
                  c->value, h.num[id], c->num);
    }
}

static void test_set_misc(void)
{
    struct agio_hints h;
    agio_hints_init(&h);
    char msg[256];
    int rc = set(&h, "no_such_hint", "1", msg, sizeof msg);
    check(rc == 1, __LINE__, "unknown key rc %d", rc);
    check(strcmp(msg, "agio: ignoring unknown hint 'no_such_hint'") == 0, __LINE__, "msg '%s'",
          msg);
    check(set(&h, "", "1", msg, sizeof msg) == 1, __LINE__, "empty key");
    check(set(&h, "cb_nodes ", "1", msg, sizeof msg) == 1, __LINE__, "keys are exact");
    check(set(&h, "CB_NODES", "1", msg, sizeof msg) == 1, __LINE__, "keys are case-sensitive");
    check(set(&h, "cb_nodes", NULL, msg, sizeof msg) == AGIO_EINFOVAL, __LINE__, "NULL value");
    check(set(&h, "cb_config_list", NULL, msg, sizeof msg) == AGIO_EINFOVAL, __LINE__, "NULL");
    check(agio_hints_set(NULL, "cb_nodes", "1", AGIO_HSRC_INFO, msg, sizeof msg) == AGIO_EARG,
          __LINE__, "NULL h");
    check(agio_hints_set(&h, NULL, "1", AGIO_HSRC_INFO, msg, sizeof msg) == AGIO_EARG, __LINE__,
          "NULL key");
    check(agio_hints_set(&h, "cb_nodes", "1", (enum agio_hint_source)7, msg, sizeof msg) ==
              AGIO_EARG,
          __LINE__, "bad source");
    /* message names key, value and range */
    set(&h, "cb_buffer_size", "2g", msg, sizeof msg);
    check(strstr(msg, "cb_buffer_size") && strstr(msg, "'2g'") && strstr(msg, "65536") &&
              strstr(msg, "1073741824"),
          __LINE__, "range msg '%s'", msg);
    set(&h, "agio_file_perm", "9", msg, sizeof msg);
    check(strstr(msg, "07777") != NULL, __LINE__, "perm msg '%s'", msg);
    /* unprintable and long values are quoted safely */
    char longv[2000];
    memset(longv, 'x', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    longv[3] = '\n';
    set(&h, "cb_nodes", longv, msg, sizeof msg);
    check(strlen(msg) < 300 && strstr(msg, "..."), __LINE__, "long msg '%s'", msg);
    /* tiny and absent message buffers */
    char tiny[4] = "zzz";
    check(agio_hints_set(&h, "cb_nodes", "x", AGIO_HSRC_INFO, tiny, sizeof tiny) == E, __LINE__,
          "tiny msg");
    check(strlen(tiny) == 3, __LINE__, "tiny msg truncated");
    check(agio_hints_set(&h, "cb_nodes", "x", AGIO_HSRC_INFO, NULL, 0) == E, __LINE__, "no msg");
    check(agio_hints_set(&h, "cb_nodes", "3", AGIO_HSRC_ENV, NULL, 0) == 0, __LINE__, "set");
    check(h.num[AGIO_H_cb_nodes] == 3 && h.source[AGIO_H_cb_nodes] == AGIO_HSRC_ENV, __LINE__,
          "ENV source");
    /* STRING length limit: AGIO_HINT_STRLEN - 1 bytes fit */
    char list[AGIO_HINT_STRLEN + 2];
    for (int n = AGIO_HINT_STRLEN - 1; n <= AGIO_HINT_STRLEN; n++) {
        for (int k = 0; k < n; k++)
            list[k] = (k % 2) ? ',' : 'a';
        list[n - 1] = 'a' + (n % 2); /* never end in ',' */
        list[n] = '\0';
        rc = set(&h, "cb_config_list", list, msg, sizeof msg);
        check(rc == (n < AGIO_HINT_STRLEN ? 0 : E), __LINE__, "length %d rc %d (%s)", n, rc, msg);
    }
}

/* ---- defaults, names, formatting --------------------------------------------------------- */

static void test_defaults(void)
{
    struct agio_hints h;
    memset(&h, 0x5a, sizeof h);
    agio_hints_init(&h);
    char buf[AGIO_HINT_STRLEN];
    for (int i = 0; i < AGIO_H_COUNT; i++) {
        check(h.source[i] == AGIO_HSRC_DEFAULT, __LINE__, "%s source", trows[i].name);
        check(h.num[i] == trows[i].def, __LINE__, "%s default %" PRId64, trows[i].name, h.num[i]);
        check(strcmp(h.str[i], trows[i].defstr) == 0, __LINE__, "%s str '%s'", trows[i].name,
              h.str[i]);
        check(strlen(trows[i].defstr) < AGIO_HINT_STRLEN, __LINE__, "%s default too long",
              trows[i].name);
        if (!is_type(i, "STRING"))
            check(trows[i].def >= trows[i].min && trows[i].def <= trows[i].max, __LINE__,
                  "%s default outside its range", trows[i].name);
        /* the default is itself a valid value */
        struct agio_hints g = h;
        check(set(&g, trows[i].name, agio_hint_format(&h, i, buf, sizeof buf), NULL, 0) == 0,
              __LINE__, "%s default '%s' does not parse", trows[i].name, buf);
    }
    const struct {
        enum agio_hint_id id;
        const char *text;
    } expect[] = {
        {AGIO_H_romio_cb_read, "automatic"}, {AGIO_H_cb_buffer_size, "16777216"},
        {AGIO_H_cb_config_list, "*:1"},      {AGIO_H_agio_file_perm, "0666"},
        {AGIO_H_agio_cb_pipeline, "true"},         {AGIO_H_cb_align, "2"},
        {AGIO_H_ind_wr_buffer_size, "524288"},
    };
    for (unsigned i = 0; i < sizeof expect / sizeof expect[0]; i++)
        check(strcmp(agio_hint_format(&h, expect[i].id, buf, sizeof buf), expect[i].text) == 0,
              __LINE__, "format %s = '%s'", agio_hint_name(expect[i].id), buf);
    agio_hints_init(NULL);
}

static void test_names(void)
{
    for (int i = 0; i < AGIO_H_COUNT; i++) {
        check(strcmp(agio_hint_name(i), trows[i].name) == 0, __LINE__, "name %d", i);
        check(agio_hint_lookup(trows[i].name) == i, __LINE__, "lookup %s", trows[i].name);
        check(agio_hint_doc(i)[0] != '\0', __LINE__, "doc of %s", trows[i].name);
    }
    check(agio_hint_lookup("nope") == -1 && agio_hint_lookup(NULL) == -1, __LINE__, "unknown");
    check(agio_hint_lookup("") == -1, __LINE__, "empty");
    check(strcmp(agio_hint_name(AGIO_H_COUNT), "?") == 0, __LINE__, "name out of range");
    check(strcmp(agio_hint_doc((enum agio_hint_id)-1), "?") == 0, __LINE__, "doc out of range");
    char buf[8];
    check(strcmp(agio_hint_format(NULL, 0, buf, sizeof buf), "?") == 0, __LINE__, "fmt NULL");
    check(agio_hint_format(NULL, 0, NULL, 0) == NULL, __LINE__, "fmt NULL buf");
    struct agio_hints h;
    agio_hints_init(&h);
    check(strlen(agio_hint_format(&h, AGIO_H_cb_buffer_size, buf, 4)) == 3, __LINE__, "trunc");
}

/* Format text for value v of a numeric row, in the hint's own syntax. */
static void num_text(int id, int64_t v, char *buf, size_t n)
{
    if (is_type(id, "PERM"))
        snprintf(buf, n, "0%" PRIo64, (uint64_t)v);
    else
        snprintf(buf, n, "%" PRId64, v);
}

/* For every hint: min, max and a middle value are accepted, min - 1 and max + 1 are not, and
 * format followed by set reproduces the value exactly. */
static void test_roundtrip(void)
{
    const char *strings[] = {"*:1", "*", "*:*", "a:2,b:1,*:3", "x.y-z_1:7"};
    for (int i = 0; i < AGIO_H_COUNT; i++) {
        const struct trow *r = &trows[i];
        char vals[8][64];
        int nv = 0;
        if (is_type(i, "STRING")) {
            for (unsigned k = 0; k < sizeof strings / sizeof strings[0]; k++)
                snprintf(vals[nv++], 64, "%s", strings[k]);
        } else if (is_type(i, "ENUM")) {
            snprintf(vals[nv++], 64, "enable");
            snprintf(vals[nv++], 64, "disable");
            snprintf(vals[nv++], 64, "automatic");
        } else {
            num_text(i, r->min, vals[nv++], 64);
            num_text(i, r->max, vals[nv++], 64);
            num_text(i, r->min + (r->max - r->min) / 3, vals[nv++], 64);
            char out[64];
            num_text(i, r->max + 1, out, sizeof out);
            check(set(&(struct agio_hints){0}, r->name, out, NULL, 0) == E, __LINE__,
                  "%s accepts max + 1 (%s)", r->name, out);
            num_text(i, r->min - 1, out, sizeof out);
            check(set(&(struct agio_hints){0}, r->name, out, NULL, 0) == E, __LINE__,
                  "%s accepts min - 1 (%s)", r->name, out);
        }
        for (int k = 0; k < nv; k++) {
            struct agio_hints a, b;
            agio_hints_init(&a);
            agio_hints_init(&b);
            char text[AGIO_HINT_STRLEN];
            check(set(&a, r->name, vals[k], NULL, 0) == 0, __LINE__, "%s=%s", r->name, vals[k]);
            agio_hint_format(&a, i, text, sizeof text);
            check(set(&b, r->name, text, NULL, 0) == 0, __LINE__, "%s=%s", r->name, text);
            check(a.num[i] == b.num[i] && strcmp(a.str[i], b.str[i]) == 0, __LINE__,
                  "%s: '%s' -> '%s' does not round-trip", r->name, vals[k], text);
        }
    }
}

/* ---- display and documentation ----------------------------------------------------------- */

static char *capture(void (*fn)(FILE *, const struct agio_hints *, const char *),
                     const struct agio_hints *h, const char *path, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f) return NULL;
    if (fn)
        fn(f, h, path);
    else
        agio_hints_print_doc(f);
    fclose(f);
    return text;
}

static void test_display(void)
{
    struct agio_hints h;
    agio_hints_init(&h);
    set(&h, "cb_nodes", "4", NULL, 0);
    agio_hints_set(&h, "romio_cb_write", "enable", AGIO_HSRC_ENV, NULL, 0);
    size_t len;
    char *text = capture(agio_hints_display, &h, "/tmp/out.nc", &len);
    check(text && strncmp(text, "agio hints for /tmp/out.nc:\n", 28) == 0, __LINE__, "header");
    int lines = 0;
    for (char *c = text; c && *c; c++)
        lines += (*c == '\n');
    check(lines == AGIO_H_COUNT + 1, __LINE__, "%d lines", lines);
    char want[600], buf[AGIO_HINT_STRLEN];
    for (int i = 0; text && i < AGIO_H_COUNT; i++) {
        const char *src = i == AGIO_H_cb_nodes         ? "info"
                          : i == AGIO_H_romio_cb_write ? "env"
                                                       : "default";
        snprintf(want, sizeof want, "\n  %s = %s  (%s)\n", trows[i].name,
                 agio_hint_format(&h, i, buf, sizeof buf), src);
        check(strstr(text, want) != NULL, __LINE__, "display lacks '%s'", want + 1);
    }
    free(text);

    text = capture(NULL, NULL, NULL, &len);
    check(text && strncmp(text, "| hint | type | default | range | meaning |\n", 44) == 0,
          __LINE__, "doc header");
    lines = 0;
    for (int i = 0; text && i < AGIO_H_COUNT; i++) {
        snprintf(want, sizeof want, "\n| `%s` | ", trows[i].name);
        char *row = strstr(text, want);
        check(row != NULL, __LINE__, "doc lacks %s", trows[i].name);
        if (!row) continue;
        /* exactly six unescaped '|' in the row: doc text with '|' must be escaped */
        int bars = 0;
        for (char *c = row + 1; *c && *c != '\n'; c++)
            bars += (*c == '|' && c[-1] != '\\');
        check(bars == 6, __LINE__, "%s row has %d cell separators", trows[i].name, bars);
    }
    check(text && strstr(text, "`16777216`") && strstr(text, "`*:1`") && strstr(text, "`0666`"),
          __LINE__, "doc defaults");
    free(text);
    agio_hints_display(NULL, &h, "x");
    agio_hints_print_doc(NULL);
}

/* ---- wildcard matching ------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static void rand_str(char *s, int maxlen, const char *alpha)
{
    int n = (int)(rnd() % (unsigned)(maxlen + 1));
    size_t na = strlen(alpha);
    for (int i = 0; i < n; i++)
        s[i] = alpha[rnd() % na];
    s[n] = '\0';
}

/* A random pattern of well-formed elements: literals, '?', '*', escapes, bracket expressions. */
static void gen_pattern(char *p)
{
    static const char *const members[] = {"a", "b", "!", "^", "-", "\\]", "\\-", "\\\\",
                                          "a-b", "b-a", "a-a", "!-b", "*", "?"};
    int n = 0;
    for (int k = (int)(rnd() % 7); k > 0; k--) {
        switch (rnd() % 5) {
        case 0: p[n++] = "ab-!^]"[rnd() % 6]; break;
        case 1: p[n++] = "?*"[rnd() % 2]; break;
        case 2:
            p[n++] = '\\';
            p[n++] = "ab*?[]\\"[rnd() % 7];
            break;
        default:
            p[n++] = '[';
            if (rnd() % 3 == 0) p[n++] = "!^"[rnd() % 2];
            if (rnd() % 4 == 0) p[n++] = ']';
            for (int m = 1 + (int)(rnd() % 3); m > 0; m--) {
                const char *mb = members[rnd() % (sizeof members / sizeof members[0])];
                memcpy(p + n, mb, strlen(mb));
                n += (int)strlen(mb);
            }
            p[n++] = ']';
        }
    }
    p[n] = '\0';
}

static void test_match(void)
{
    const struct {
        const char *p, *s;
        int m;
    } cases[] = {
        {"*", "", 1},           {"*", "/a/b", 1},           {"*.nc", "/x/y.nc", 1},
        {"?", "", 0},           {"a?c", "abc", 1},          {"[a-c]x", "bx", 1},
        {"[!a-c]x", "bx", 0},   {"[^a]", "b", 1},           {"[]]", "]", 1},
        {"[!]]", "a", 1},       {"\\*", "*", 1},            {"\\*", "a", 0},
        {"a\\", "a", 0},        {"[ab", "[ab", 1},          {"[ab", "a", 0},
        {"[b[", "[b[", 1},      {"[a-", "[a-", 1},          {"[!]", "[!]", 1},
        {"[\\]]", "]", 1},      {"[Z-\\]]", "]", 1},        {"[a-\\]]", "]", 0},
        {"[]-a]", "^", 1},      {"[z-a]", "z", 0},          {"[!z-a]", "z", 1},
        {"out[0-9].nc", "out7.nc", 1}, {"*a*a*a*a*a*a*a*a*a*a*a*a*a*b", NULL, 0},
    };
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *s = cases[i].s ? cases[i].s : big; /* the last one would take years */
        check(agio_hints_match(cases[i].p, s) == cases[i].m, __LINE__, "match('%s', '%.20s')",
              cases[i].p, s);
    }
    check(agio_hints_match(NULL, "a") == 0 && agio_hints_match("a", NULL) == 0, __LINE__, "NULL");
    /* agreement with the C library: raw patterns without '[' ... */
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        char p[16], s[16];
        rand_str(p, 9, "ab*?]!^-\\");
        rand_str(s, 7, "ab[]-!^\\");
        int want = fnmatch(p, s, 0) == 0;
        if (agio_hints_match(p, s) != want && bad++ < 10)
            fprintf(stderr, "match('%s', '%s') != fnmatch %d\n", p, s, want);
    }
    /* ... and patterns built of well-formed elements, brackets included (C libraries disagree
     * on unterminated brackets, and [: [. [= are unsupported, so those are not generated) */
    for (int i = 0; i < 200000; i++) {
        char p[64], s[16];
        gen_pattern(p);
        rand_str(s, 7, "ab[]-!^\\*?");
        int want = fnmatch(p, s, 0) == 0;
        if (agio_hints_match(p, s) != want && bad++ < 10)
            fprintf(stderr, "match('%s', '%s') != fnmatch %d\n", p, s, want);
    }
    check(bad == 0, __LINE__, "%d disagreements with fnmatch", bad);
}

/* ---- hint specifications from the environment ------------------------------------------- */

struct warns {
    int n, bad;
    char last[700];
};

static void collect(void *ctx, const char *msg)
{
    struct warns *w = ctx;
    w->n++;
    snprintf(w->last, sizeof w->last, "%s", msg);
    if (strchr(msg, '\n') || strncmp(msg, "agio: ", 6) != 0) w->bad++;
}

struct ecase {
    const char *spec, *path;
    int warns;
    const char *k1, *v1, *k2, *v2; /* expected values afterwards, as agio_hint_format gives */
};
#define DEF "" /* expect the table's default */

static const struct ecase ecases[] = {
    {"", "a", 0, "cb_nodes", "0", 0, 0},
    {" , ,, ", "a", 0, "cb_nodes", "0", 0, 0},
    {"*:cb_nodes=4", "/d/a", 0, "cb_nodes", "4", 0, 0},
    {"*:cb_nodes=4", NULL, 0, "cb_nodes", "4", 0, 0},
    /* patterns: whole path or last component */
    {"/scratch/*.nc:cb_nodes=3", "/scratch/a.nc", 0, "cb_nodes", "3", 0, 0},
    {"/scratch/*.nc:cb_nodes=3", "/other/a.nc", 0, "cb_nodes", "0", 0, 0},
    {"*.nc:cb_nodes=5", "/scratch/sub/out.nc", 0, "cb_nodes", "5", 0, 0},
    {"out.nc:cb_nodes=6", "/a/b/out.nc", 0, "cb_nodes", "6", 0, 0},
    {"out.nc:cb_nodes=6", "out.nc", 0, "cb_nodes", "6", 0, 0},
    {"out.n?:cb_nodes=6", "/a/b/out.nc", 0, "cb_nodes", "6", 0, 0},
    {"out[0-9].nc:cb_nodes=7", "rel/out7.nc", 0, "cb_nodes", "7", 0, 0},
    {"out[0-9].nc:cb_nodes=7", "rel/outx.nc", 0, "cb_nodes", "0", 0, 0},
    {"b/out.nc:cb_nodes=6", "/a/b/out.nc", 0, "cb_nodes", "0", 0, 0},
    {"*/b/out.nc:cb_nodes=6", "/a/b/out.nc", 0, "cb_nodes", "6", 0, 0},
    {"*.nc:cb_nodes=4", "/dir.nc/", 0, "cb_nodes", "0", 0, 0}, /* basename "" */
    {"a*:cb_nodes=4", "/dir/", 0, "cb_nodes", "0", 0, 0},
    /* order: later wins, across and within entries */
    {"*:cb_nodes=4,*.nc:cb_nodes=8", "x.nc", 0, "cb_nodes", "8", 0, 0},
    {"*.nc:cb_nodes=8,*:cb_nodes=4", "x.nc", 0, "cb_nodes", "4", 0, 0},
    {"*:cb_nodes=1:cb_nodes=2", "x", 0, "cb_nodes", "2", 0, 0},
    {"*:cb_nodes=1:cb_align=1,*.h5:cb_nodes=9", "x.nc", 0, "cb_nodes", "1", "cb_align", "1"},
    /* entries that do not match are not parsed, so not reported */
    {"*.h5:bogus=1:cb_nodes=junk", "x.nc", 0, "cb_nodes", "0", 0, 0},
    {"*:striping_factor=8:striping_unit=4m:romio_cb_write=enable", "x", 0, "striping_unit",
     "4194304", "romio_cb_write", "enable"},
    {"*:agio_cb_pipeline=true:agio_file_perm=0600", "x", 0, "agio_cb_pipeline", "true", "agio_file_perm",
     "0600"},
    {" *.nc : cb_nodes = 4 , x : cb_align=1", "a.nc", 0, "cb_nodes", "4", "cb_align", "2"},
    {"*:cb_nodes=4:", "x", 0, "cb_nodes", "4", 0, 0},
    {"*:cb_nodes=4::", "x", 0, "cb_nodes", "4", 0, 0},
    /* malformed parts: warned and skipped, the rest applies */
    {"*:cb_nodes", "x", 1, "cb_nodes", "0", 0, 0},
    {"foo,*:cb_nodes=2", "x", 1, "cb_nodes", "2", 0, 0},
    {"*:cb_nodes=4:junk:cb_align=1", "x", 1, "cb_nodes", "4", "cb_align", "1"},
    {"*:=4:cb_nodes=2", "x", 1, "cb_nodes", "2", 0, 0},
    {"*: =4:cb_nodes=2", "x", 1, "cb_nodes", "2", 0, 0},
    {"cb_nodes=4", "x", 1, "cb_nodes", "0", 0, 0},
    {"a=b:cb_nodes=4", "x", 1, "cb_nodes", "0", 0, 0},
    {":cb_nodes=4", "x", 1, "cb_nodes", "0", 0, 0},
    {"  :cb_nodes=4,*:cb_align=0", "x", 1, "cb_nodes", "0", "cb_align", "0"},
    {"*:nokey=3:cb_nodes=2", "x", 1, "cb_nodes", "2", 0, 0},
    {"*:cb_nodes=abc:cb_align=1", "x", 1, "cb_nodes", "0", "cb_align", "1"},
    {"*:cb_nodes=4=5", "x", 1, "cb_nodes", "0", 0, 0},
    {"*:cb_buffer_size=1k", "x", 1, "cb_buffer_size", "16777216", 0, 0},
    {"*:a:b:c,d,*:e", "x", 3, "cb_nodes", "0", 0, 0},
    /* STRING values extend over following tokens without '=' */
    {"*:cb_config_list=*:2:cb_buffer_size=1m", "x", 0, "cb_config_list", "*:2", "cb_buffer_size",
     "1048576"},
    {"*:cb_nodes=4:cb_config_list=a:2,b:1", "x", 0, "cb_config_list", "a:2,b:1", "cb_nodes", "4"},
    {"*:cb_config_list=a:2,b:1,*.nc:cb_nodes=3", "x.nc", 0, "cb_config_list", "a:2,b:1",
     "cb_nodes", "3"},
    {"*:cb_config_list=a:2,b:1:cb_nodes=4", "x", 0, "cb_config_list", "a:2", "cb_nodes", "0"},
    {"*:cb_config_list=a:2,b:1:cb_nodes=4", "/d/b", 1, "cb_config_list", "a:2", "cb_nodes", "4"},
    {"*:cb_config_list=*:*", "x", 0, "cb_config_list", "*:*", 0, 0},
    {"*:cb_config_list=*", "x", 0, "cb_config_list", "*", 0, 0},
    {"*:cb_config_list= host1:2 ", "x", 0, "cb_config_list", "host1:2", 0, 0},
    {"*:romio_cb_read=enable:cb_config_list=host1:2", "x", 0, "cb_config_list", "host1:2",
     "romio_cb_read", "enable"},
    {"*:cb_config_list=*:2,", "x", 0, "cb_config_list", "*:2", 0, 0},
    {"*:cb_config_list=*:0", "x", 1, "cb_config_list", DEF, 0, 0},
    {"*:cb_config_list=a:", "x", 1, "cb_config_list", DEF, 0, 0},
    {"*:cb_config_list=a:2, ,b:1", "x", 1, "cb_config_list", "a:2", 0, 0},
    {"*:cb_config_list=a:2:junk=1", "x", 1, "cb_config_list", "a:2", 0, 0},
};

static void test_env(void)
{
    char buf[AGIO_HINT_STRLEN];
    for (unsigned i = 0; i < sizeof ecases / sizeof ecases[0]; i++) {
        const struct ecase *c = &ecases[i];
        struct agio_hints h;
        struct warns w = {0};
        agio_hints_init(&h);
        agio_hints_apply_env(&h, c->spec, c->path, collect, &w);
        check(w.n == c->warns && w.bad == 0, __LINE__, "'%s' on %s: %d warnings (want %d): %s",
              c->spec, c->path, w.n, c->warns, w.last);
        const char *k[2] = {c->k1, c->k2}, *v[2] = {c->v1, c->v2};
        for (int j = 0; j < 2 && k[j]; j++) {
            int id = agio_hint_lookup(k[j]);
            char def[AGIO_HINT_STRLEN];
            struct agio_hints d;
            agio_hints_init(&d);
            agio_hint_format(&d, id, def, sizeof def);
            if (!v[j][0]) v[j] = def;
            agio_hint_format(&h, id, buf, sizeof buf);
            check(strcmp(buf, v[j]) == 0, __LINE__, "'%s' on %s: %s = '%s', want '%s'", c->spec,
                  c->path, k[j], buf, v[j]);
            int changed = strcmp(def, v[j]) != 0;
            if (changed)
                check(h.source[id] == AGIO_HSRC_ENV, __LINE__, "'%s': %s source %d", c->spec,
                      k[j], h.source[id]);
        }
        /* the same without a warn function, and a failed set never disturbs h */
        struct agio_hints h2;
        agio_hints_init(&h2);
        agio_hints_apply_env(&h2, c->spec, c->path, NULL, NULL);
        check(memcmp(&h, &h2, sizeof h) == 0, __LINE__, "'%s': result depends on warn", c->spec);
    }
    /* NULL arguments */
    struct agio_hints h, d;
    agio_hints_init(&h);
    agio_hints_init(&d);
    struct warns w = {0};
    agio_hints_apply_env(&h, NULL, "x", collect, &w);
    agio_hints_apply_env(NULL, "*:cb_nodes=1", "x", collect, &w);
    check(w.n == 0 && memcmp(&h, &d, sizeof h) == 0, __LINE__, "NULL spec / h");
    check(agio_hint_lookup("cb_config_list") >= 0 && w.n == 0, __LINE__, "lookup");
}

/* Long inputs: a long pattern, a long value, and specs of a megabyte run in linear time. */
static void test_env_long(void)
{
    enum { BIG = 1 << 20 };
    char *spec = malloc(BIG + 64);
    struct agio_hints h;
    struct warns w = {0};
    if (!spec) return;
    agio_hints_init(&h);
    memset(spec, 'a', 2000);
    strcpy(spec + 2000, ":cb_nodes=4");
    agio_hints_apply_env(&h, spec, "x", collect, &w);
    check(w.n == 1 && h.num[AGIO_H_cb_nodes] == 0, __LINE__, "long pattern: %s", w.last);
    strcpy(spec, "*:cb_config_list=");
    for (int i = 0; i < 400; i++)
        strcat(spec, "a,");
    strcat(spec, "a");
    w.n = 0;
    agio_hints_apply_env(&h, spec, "x", collect, &w);
    const char *def = trows[AGIO_H_cb_config_list].defstr;
    check(w.n == 1 && strcmp(h.str[AGIO_H_cb_config_list], def) == 0, __LINE__, "long value");
    size_t n = 0;
    for (; n + 13 < BIG; n += 13)
        memcpy(spec + n, "*:cb_nodes=1,", 13);
    spec[n] = '\0';
    w.n = 0;
    agio_hints_apply_env(&h, spec, "x", collect, &w);
    check(w.n == 0 && h.num[AGIO_H_cb_nodes] == 1, __LINE__, "megabyte of entries");
    const char fill[] = {':', ',', '=', '*', 'a'};
    for (unsigned f = 0; f < sizeof fill; f++) {
        memset(spec, fill[f], BIG);
        spec[BIG] = '\0';
        if (fill[f] == 'a') memcpy(spec, "*:cb_config_list=", 17); /* one huge continuation */
        agio_hints_apply_env(&h, spec, "x", collect, &w);
        check(w.bad == 0, __LINE__, "megabyte of '%c'", fill[f]);
    }
    free(spec);
}

/* Every hint of h holds a value that its own parser accepts. */
static int valid_state(const struct agio_hints *h)
{
    char buf[AGIO_HINT_STRLEN];
    for (int i = 0; i < AGIO_H_COUNT; i++) {
        struct agio_hints c = *h;
        if (h->source[i] > AGIO_HSRC_ENV) return 0;
        if (memchr(h->str[i], '\0', AGIO_HINT_STRLEN) == NULL) return 0;
        agio_hint_format(h, i, buf, sizeof buf);
        if (agio_hints_set(&c, trows[i].name, buf, AGIO_HSRC_INFO, NULL, 0) != 0) return 0;
        if (c.num[i] != h->num[i] || strcmp(c.str[i], h->str[i]) != 0) return 0;
    }
    return 1;
}

/* 100k random byte strings and token soups through apply_env and set: no crash (run this under
 * AddressSanitizer), one-line warnings, and the struct always holds valid values. */
static void test_robust(void)
{
    static const char *const pieces[] = {
        "*", ":", ",", "=", "cb_config_list", "cb_nodes", "cb_buffer_size", "romio_cb_read",
        "agio_file_perm", "direct_io", "4", "1m", "enable", "*:2", "[", "]", "\\", "?", " ",
        "-", "0644", "99999999999999999999", "x.nc", "/", "[!a-", "\t",
    };
    const char *paths[] = {"x.nc", "/a/b/x.nc", "", NULL, "[*?\\"};
    enum { NP = sizeof pieces / sizeof pieces[0] };
    struct agio_hints h;
    struct warns w = {0};
    agio_hints_init(&h);
    int invalid = 0;
    for (int i = 0; i < 100000; i++) {
        char spec[600], key[40], msg[300];
        size_t n = 0;
        if (i % 2) {
            size_t len = rnd() % 300;
            for (; n < len; n++)
                spec[n] = (char)(1 + rnd() % 255);
        } else {
            for (int k = (int)(rnd() % 30); k > 0; k--) {
                const char *pc = pieces[rnd() % NP];
                size_t l = strlen(pc);
                if (n + l + 2 >= sizeof spec) break;
                memcpy(spec + n, pc, l);
                n += l;
                if (rnd() % 8 == 0) spec[n++] = (char)(1 + rnd() % 255);
            }
        }
        spec[n] = '\0';
        agio_hints_apply_env(&h, spec, paths[i % 5], (i % 3) ? collect : NULL, &w);
        if (i % 4 == 0)
            snprintf(key, sizeof key, "%s", trows[rnd() % AGIO_H_COUNT].name);
        else
            rand_str(key, 20, "abc_*:=\x01\xff");
        agio_hints_set(&h, key, spec, (enum agio_hint_source)(rnd() % 3), msg,
                       rnd() % sizeof msg);
        if (i % 500 == 0 && !valid_state(&h)) invalid++;
    }
    check(w.bad == 0, __LINE__, "%d malformed warnings, last '%s'", w.bad, w.last);
    check(invalid == 0 && valid_state(&h), __LINE__, "invalid state %d times", invalid);
    check(w.n > 1000, __LINE__, "only %d warnings: the soup is too tame", w.n);
}

int main(void)
{
    test_defaults();
    test_names();
    test_parse();
    test_set_misc();
    test_roundtrip();
    test_display();
    test_match();
    test_env();
    test_env_long();
    test_robust();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
