/*
 * test_errors.c - unit test of the error table (common/agio_err.h, agio_err.c).
 *
 * Checks: every row has a distinct value and name, values run from 0 down to AGIO_ERR_MIN;
 * agio_strerror / agio_errname return the row's text and name and a fixed answer for unknown
 * codes; agio_err_from_errno keeps ENOSPC, EDQUOT, EACCES, EIO, ENOENT and EEXIST distinct and
 * maps every errno to a code of the table. Last line: "N passed, M failed".
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agio_err.h"
#include "unit.h"



struct row {
    int value;
    const char *name;
    const char *text;
};

static const struct row rows[] = {
#define X(name, value, cls, text) {(value), #name, (text)},
    AGIO_ERROR_TABLE(X)
#undef X
};
enum { NROWS = sizeof rows / sizeof rows[0] };

static void test_table(void)
{
    int minv = 0;
    for (int i = 0; i < NROWS; i++) {
        check(rows[i].value <= 0, __LINE__, "%s has positive value %d", rows[i].name,
              rows[i].value);
        check(rows[i].text[0] != '\0', __LINE__, "%s has no text", rows[i].name);
        if (rows[i].value < minv) minv = rows[i].value;
        for (int j = i + 1; j < NROWS; j++) {
            check(rows[i].value != rows[j].value, __LINE__, "%s and %s share value %d",
                  rows[i].name, rows[j].name, rows[i].value);
            check(strcmp(rows[i].name, rows[j].name) != 0, __LINE__, "name %s twice",
                  rows[i].name);
            check(strcmp(rows[i].text, rows[j].text) != 0, __LINE__, "%s and %s share text",
                  rows[i].name, rows[j].name);
        }
    }
    check(minv == AGIO_ERR_MIN, __LINE__, "AGIO_ERR_MIN %d but smallest row %d", AGIO_ERR_MIN,
          minv);
    check(NROWS == 1 - AGIO_ERR_MIN, __LINE__, "%d rows for values 0..%d", NROWS, AGIO_ERR_MIN);
    check(AGIO_OK == 0, __LINE__, "AGIO_OK is %d", AGIO_OK);
}

static void test_text(void)
{
    for (int i = 0; i < NROWS; i++) {
        check(strcmp(agio_strerror(rows[i].value), rows[i].text) == 0, __LINE__,
              "agio_strerror(%d) = '%s'", rows[i].value, agio_strerror(rows[i].value));
        check(strcmp(agio_errname(rows[i].value), rows[i].name) == 0, __LINE__,
              "agio_errname(%d) = '%s'", rows[i].value, agio_errname(rows[i].value));
    }
    check(strcmp(agio_errname(AGIO_ENOSPC), "ENOSPC") == 0, __LINE__, "ENOSPC name");
    check(strcmp(agio_errname(AGIO_EINFOVAL), "EINFOVAL") == 0, __LINE__, "EINFOVAL name");
    const int unknown[] = {1, 2, AGIO_ERR_MIN - 1, -1000, INT_MIN, INT_MAX};
    for (unsigned i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        check(strcmp(agio_strerror(unknown[i]), "unknown error") == 0, __LINE__,
              "agio_strerror(%d) = '%s'", unknown[i], agio_strerror(unknown[i]));
        check(strcmp(agio_errname(unknown[i]), "?") == 0, __LINE__, "agio_errname(%d) = '%s'",
              unknown[i], agio_errname(unknown[i]));
    }
}

static int in_table(int code)
{
    for (int i = 0; i < NROWS; i++)
        if (rows[i].value == code) return 1;
    return 0;
}

static void test_errno(void)
{
    const struct {
        int err, code;
    } cases[] = {
        {0, AGIO_OK},           {ENOSPC, AGIO_ENOSPC}, {EDQUOT, AGIO_EDQUOT},
        {EACCES, AGIO_EACCES},  {EPERM, AGIO_EACCES},  {EIO, AGIO_EIO},
        {ENOENT, AGIO_ENOENT},  {EEXIST, AGIO_EEXIST}, {EROFS, AGIO_EROFS},
        {ENOMEM, AGIO_ENOMEM},  {EINVAL, AGIO_EARG},   {ENAMETOOLONG, AGIO_EBADNAME},
        {EFBIG, AGIO_EIO}, {ENOLCK, AGIO_ENOLCK}, {EBUSY, AGIO_EINUSE},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = agio_err_from_errno(cases[i].err);
        check(got == cases[i].code, __LINE__, "errno %d (%s) -> %s, want %s", cases[i].err,
              strerror(cases[i].err), agio_errname(got), agio_errname(cases[i].code));
    }
    /* the six that must stay distinct up to the MPI error class (STYLE.md rule 6) */
    const int distinct[] = {ENOSPC, EDQUOT, EACCES, EIO, ENOENT, EEXIST};
    enum { ND = sizeof distinct / sizeof distinct[0] };
    for (int i = 0; i < ND; i++) {
        int a = agio_err_from_errno(distinct[i]);
        check(a < 0, __LINE__, "errno %d maps to %d", distinct[i], a);
        for (int j = i + 1; j < ND; j++)
            check(a != agio_err_from_errno(distinct[j]), __LINE__, "errno %d and %d both -> %s",
                  distinct[i], distinct[j], agio_errname(a));
    }
    /* every errno, known or not, maps to a failing code of the table */
    int bad = 0;
    for (int e = 1; e < 4096; e++) {
        int got = agio_err_from_errno(e);
        if (!(got < 0 && in_table(got)) && bad++ < 5)
            fprintf(stderr, "errno %d -> %d, not a failing table code\n", e, got);
    }
    check(bad == 0, __LINE__, "%d errno values map outside the table", bad);
    check(agio_err_from_errno(-5) < 0, __LINE__, "negative errno");
    check(agio_err_from_errno(INT_MAX) < 0, __LINE__, "huge errno");
}

int main(void)
{
    test_table();
    test_text();
    test_errno();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
