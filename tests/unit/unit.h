/*
 * unit.h - the check counter shared by the unit tests (header only, no MPI).
 * Every check counts once; a failure prints "FAIL line N: ..." (the first 40 of them); the test
 * ends with unit_finish(), which prints the closing line "N passed, M failed".
 */
#ifndef AGIO_UNIT_H
#define AGIO_UNIT_H

#include <stdarg.h>
#include <stdio.h>

static int npass, nfail;

__attribute__((format(printf, 3, 4), unused)) static int check(int ok, int line,
                                                                const char *fmt, ...)
{
    if (ok) {
        npass++;
        return 1;
    }
    if (++nfail <= 40) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "FAIL line %d: ", line);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return 0;
}

/* Print the closing line; the exit status for main. */
__attribute__((unused)) static int unit_finish(void)
{
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}

#endif
