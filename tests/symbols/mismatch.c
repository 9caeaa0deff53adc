/* mismatch.c - run with the OTHER MPI's libagio preloaded: MPI_File_open must fail cleanly
 * (agio prints which build to use), never crash. Exit 0 when the open failed. */
#include <mpi.h>
#include <stdio.h>
int main(int c, char **v) {
    MPI_Init(&c, &v);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_SELF, "/tmp/agio-mismatch-test.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    printf("open rc=%d (success=%d)\n", rc, rc == MPI_SUCCESS);
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 1 : 0;
}
