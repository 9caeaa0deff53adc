/* A program built against an installed agio: agio_version() comes from libagio, MPI_File_open
 * must resolve to agio too (checked by the caller with the version string). */
#include <agio.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_SELF, "/nonexistent-dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("%s\n%s\n", agio_version(), msg);
    int ok = strstr(agio_version(), "agio") && strstr(msg, "agio MPI_File_open");
    MPI_Finalize();
    return ok ? 0 : 1;
}
