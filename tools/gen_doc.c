/*
 * gen_doc.c - writes doc/hints.md or doc/stats.md from the hints and stats tables, so the
 * reference can never drift from the code (a test compares the checked-in files).
 * usage: gen_doc hints|stats
 */
#include <stdio.h>
#include <string.h>

#include "hints/hints.h"
#include "stats/stats.h"

int main(int argc, char **argv)
{
    if (argc == 2 && 0 == strcmp(argv[1], "hints")) {
        printf("# agio hints\n\nGenerated from `src/hints/hints_table.h` by `tools/gen_doc.c`."
               " Set them with MPI_Info or `AGIO_HINTS` (see README).\n\n");
        agio_hints_print_doc(stdout);
        return 0;
    }
    if (argc == 2 && 0 == strcmp(argv[1], "stats")) {
        printf("# agio statistics\n\nGenerated from `src/stats/stats_table.h` by "
               "`tools/gen_doc.c`. Printed at close with `AGIO_STATS=1`; JSON with "
               "`AGIO_STATS_FILE`.\n\n");
        agio_stats_print_doc(stdout);
        printf("\nSystem I/O size bins (lower bounds): 0, 16, 256, 4Ki, 64Ki, 1Mi, 16Mi bytes.\n");
        return 0;
    }
    fprintf(stderr, "usage: gen_doc hints|stats\n");
    return 2;
}
