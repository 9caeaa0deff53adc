/*
 * test_finalize.c - files left open at MPI_Finalize lose nothing.
 *
 * phase "write": every rank writes its interleaved blocks with write_all under write-behind
 * (cb_align 2, small stripes, so the last stripe is held by an aggregator and each writer keeps
 * its own copy), then calls MPI_Finalize WITHOUT closing the file. agio's MPI_COMM_SELF delete
 * callback must flush it. phase "verify" (run after the job has ended, plain POSIX, one
 * process): every byte must be there. Prints "N passed, M failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 3000
#define SEGS 7

static unsigned char val(long off)
{
    return (unsigned char)(off * 13 + 5);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: test_finalize PATH write|verify NPROCS\n");
        return 2;
    }
    int p = atoi(argv[3]);
    long size = (long)BLOCK * SEGS * p;
    if (strcmp(argv[2], "verify") == 0) {
        FILE *fp = fopen(argv[1], "r");
        long bad = -1, n = 0;
        for (int c; fp && (c = fgetc(fp)) != EOF; n++)
            if (c != val(n) && bad < 0) bad = n;
        if (fp) fclose(fp);
        int ok = n == size && bad < 0;
        printf("file %ld bytes (want %ld), first bad byte %ld\n%d passed, %d failed\n", n, size,
               bad, ok, !ok);
        return ok ? 0 : 1;
    }
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "cb_align", "2");
    MPI_Info_set(info, "striping_unit", "4096");
    MPI_Info_set(info, "agio_cb_write_behind", "true");
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh))
        return 1;
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(BLOCK, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)BLOCK * p, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, ft, "native", info);
    unsigned char buf[BLOCK];
    for (int s = 0; s < SEGS; s++) { /* one write_all per segment: each ends mid-stripe */
        long base = ((long)s * p + rank) * BLOCK;
        for (int i = 0; i < BLOCK; i++)
            buf[i] = val(base + i);
        if (MPI_File_write_all(fh, buf, BLOCK, MPI_BYTE, MPI_STATUS_IGNORE)) return 1;
    }
    MPI_Type_free(&blk);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    MPI_Finalize(); /* the file is still open */
    return 0;
}
