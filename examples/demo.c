/*
 * demo.c - the agio demonstration: an unmodified MPI-IO program.
 *
 * Every rank owns a block of columns of a ROWS x COLS matrix of doubles stored row-major in one
 * shared file. Each rank sets a non-contiguous view (MPI_Type_create_subarray), writes its block
 * collectively, reads back its right neighbour's block, and checks every value. It only uses the
 * standard MPI API: run it under agio with LD_PRELOAD (scripts/demo.sh does) or on the host
 * MPI-IO, and the files are byte-identical.
 *
 * usage: demo FILE [ROWS COLS]
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value(int r, int c)
{
    return r * 10000.0 + c;
}

static MPI_Datatype column_block(int rows, int cols, int rank, int nprocs, int *c0, int *nc)
{
    *nc = cols / nprocs + (rank < cols % nprocs);
    *c0 = rank * (cols / nprocs) + (rank < cols % nprocs ? rank : cols % nprocs);
    int sizes[2] = {rows, cols}, sub[2] = {rows, *nc}, start[2] = {0, *c0};
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static void check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "demo: %s failed: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: demo FILE [ROWS COLS]\n");
        MPI_Finalize();
        return 2;
    }
    int rows = argc > 3 ? atoi(argv[2]) : 512, cols = argc > 3 ? atoi(argv[3]) : 1000;
    const char *(*version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "agio_version");
    if (rank == 0)
        printf("demo: %d ranks, %d x %d doubles, MPI-IO by %s\n", nprocs, rows, cols,
               version ? version() : "the host MPI");

    int c0, nc;
    MPI_Datatype mine = column_block(rows, cols, rank, nprocs, &c0, &nc);
    double *buf = malloc(sizeof(double) * (size_t)rows * (size_t)(nc + 1));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < nc; c++)
            buf[(size_t)r * nc + c] = value(r, c0 + c);

    MPI_File fh;
    MPI_Status st;
    check(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh), "MPI_File_open");
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, mine, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_all(fh, buf, rows * nc, MPI_DOUBLE, &st), "write_all");
    int count;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    printf("demo: rank %d wrote columns %d..%d (%d doubles, non-contiguous view)\n", rank, c0,
           c0 + nc - 1, count);
    check(MPI_File_sync(fh), "sync");

    int right = (rank + 1) % nprocs, rc0, rnc, bad = 0;
    MPI_Datatype theirs = column_block(rows, cols, right, nprocs, &rc0, &rnc);
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, theirs, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_read_all(fh, buf, rows * rnc, MPI_DOUBLE, &st), "read_all");
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < rnc; c++)
            bad += buf[(size_t)r * rnc + c] != value(r, rc0 + c);
    MPI_Offset size;
    MPI_File_get_size(fh, &size);
    check(MPI_File_close(&fh), "close");
    int allbad;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("demo: rank %d read rank %d's columns back: %s\n", rank, right,
           bad ? "MISMATCH" : "all values correct");
    if (rank == 0)
        printf("demo: file %s is %lld bytes; %s\n", argv[1], (long long)size,
               allbad ? "FAILED" : "OK");
    MPI_Type_free(&mine);
    MPI_Type_free(&theirs);
    free(buf);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
