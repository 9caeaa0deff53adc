/*
 * h5_io.c - parallel HDF5 over MPI-IO (H5FD_MPIO, collective transfers).
 *
 * usage: h5_io FILE all|read
 *   all:  create FILE with three 2-D datasets written collectively with per-rank hyperslabs,
 *         close, reopen read-only and read back collectively; then the read checks below.
 *   read: only the read checks (FILE written earlier by `all`, possibly by another MPI-IO).
 * Datasets (sizes depend on the number of ranks P):
 *   "block"    int    [6P][10]     rank r writes rows 6r..6r+5 (one contiguous block per rank)
 *   "colblock" double [7][3*4P]    rank r writes column blocks of width 3, cyclic over ranks
 *                                   (start {0,3r}, stride {1,3P}, count {7,4}, block {1,3})
 *   "chunked"  int    [9][2*5P]    chunks 4x5, column blocks of width 2 as above
 * Reads: every rank reads its neighbour's rows of "block", the whole "colblock" and its own
 * pattern of "chunked", all collectively, and checks every value. Object times are not stored,
 * so two correct MPI-IO layers give byte-identical files.
 * AGIO_EXPECT=1 (0): fail unless libagio is (is not) mapped into the process.
 */
#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks, nfail;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (nfail++ < 10) {                                                                    \
                fprintf(stderr, "h5_io: FAIL rank %d line %d: ", rank, __LINE__);                  \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static int vblock(int i, int j)
{
    return i * 1000 + j + 7;
}
static double vcol(int i, int j)
{
    return i * 0.5 + j * 1000.25;
}
static int vchunk(int i, int j)
{
    return -(i * 100 + j) - 1;
}

static void check_expect(void)
{
    const char *e = getenv("AGIO_EXPECT");
    if (!e || !*e) return;
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "libagio")) found = 1;
    if (f) fclose(f);
    CHECK(found == (atoi(e) != 0), "AGIO_EXPECT=%s but libagio is %smapped", e,
          found ? "" : "not ");
}

static hid_t xfer_collective(void)
{
    hid_t dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    return dx;
}

/* Column blocks of width w, cyclic over the ranks, in a [rows][w*k*P] dataset. */
static hid_t colblock_space(hid_t fs, int rows, int w, int k, int r)
{
    hsize_t start[2] = {0, (hsize_t)(w * r)}, stride[2] = {1, (hsize_t)(w * nranks)};
    hsize_t count[2] = {(hsize_t)rows, (hsize_t)k}, block[2] = {1, (hsize_t)w};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, block);
    return fs;
}

static void write_all(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(f >= 0, "H5Fcreate %s", path);
    H5Pclose(fapl);
    hid_t dx = xfer_collective(), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);

    /* 1. "block": contiguous rows per rank */
    hsize_t bd[2] = {(hsize_t)(6 * nranks), 10};
    hid_t fs = H5Screate_simple(2, bd, NULL);
    hid_t d = H5Dcreate2(f, "block", H5T_NATIVE_INT, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hsize_t start[2] = {(hsize_t)(6 * rank), 0}, cnt[2] = {6, 10};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    int ib[60];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 10; j++)
            ib[i * 10 + j] = vblock(6 * rank + i, j);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dx, ib) >= 0, "H5Dwrite block");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);

    /* 2. "colblock": non-contiguous column blocks */
    hsize_t cd[2] = {7, (hsize_t)(12 * nranks)};
    fs = H5Screate_simple(2, cd, NULL);
    d = H5Dcreate2(f, "colblock", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    colblock_space(fs, 7, 3, 4, rank);
    hsize_t mc[2] = {7, 12};
    ms = H5Screate_simple(2, mc, NULL);
    double db[84];
    for (int i = 0; i < 7; i++)
        for (int k = 0; k < 12; k++)
            db[i * 12 + k] = vcol(i, (k / 3) * 3 * nranks + 3 * rank + k % 3);
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dx, db) >= 0, "H5Dwrite colblock");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);

    /* 3. "chunked": chunked layout, column blocks of width 2 */
    hsize_t hd[2] = {9, (hsize_t)(10 * nranks)}, ch[2] = {4, 5};
    hid_t ccpl = H5Pcopy(dcpl);
    H5Pset_chunk(ccpl, 2, ch);
    fs = H5Screate_simple(2, hd, NULL);
    d = H5Dcreate2(f, "chunked", H5T_NATIVE_INT, fs, H5P_DEFAULT, ccpl, H5P_DEFAULT);
    colblock_space(fs, 9, 2, 5, rank);
    hsize_t mh[2] = {9, 10};
    ms = H5Screate_simple(2, mh, NULL);
    int hb[90];
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 10; k++)
            hb[i * 10 + k] = vchunk(i, (k / 2) * 2 * nranks + 2 * rank + k % 2);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dx, hb) >= 0, "H5Dwrite chunked");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Pclose(ccpl);

    H5Pclose(dcpl);
    H5Pclose(dx);
    CHECK(H5Fclose(f) >= 0, "H5Fclose");
}

static void read_check(const char *path)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    CHECK(f >= 0, "H5Fopen %s", path);
    if (f < 0) return;
    hid_t dx = xfer_collective();

    /* 1. the neighbour's rows of "block" */
    int nb = (rank + 1) % nranks, ib[60];
    hid_t d = H5Dopen2(f, "block", H5P_DEFAULT), fs = H5Dget_space(d);
    hsize_t start[2] = {(hsize_t)(6 * nb), 0}, cnt[2] = {6, 10};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
    hid_t ms = H5Screate_simple(2, cnt, NULL);
    memset(ib, 0, sizeof ib);
    CHECK(H5Dread(d, H5T_NATIVE_INT, ms, fs, dx, ib) >= 0, "H5Dread block");
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 10; j++)
            CHECK(ib[i * 10 + j] == vblock(6 * nb + i, j), "block[%d][%d] = %d, expected %d",
                  6 * nb + i, j, ib[i * 10 + j], vblock(6 * nb + i, j));
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);

    /* 2. all of "colblock" */
    int nc = 12 * nranks;
    double *db = calloc((size_t)(7 * nc), sizeof *db);
    d = H5Dopen2(f, "colblock", H5P_DEFAULT);
    CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, dx, db) >= 0, "H5Dread colblock");
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < nc; j++)
            CHECK(db[i * nc + j] == vcol(i, j), "colblock[%d][%d] = %g, expected %g", i, j,
                  db[i * nc + j], vcol(i, j));
    free(db);
    H5Dclose(d);

    /* 3. own pattern of "chunked" */
    int hb[90];
    d = H5Dopen2(f, "chunked", H5P_DEFAULT);
    fs = H5Dget_space(d);
    colblock_space(fs, 9, 2, 5, rank);
    hsize_t mh[2] = {9, 10};
    ms = H5Screate_simple(2, mh, NULL);
    memset(hb, 0, sizeof hb);
    CHECK(H5Dread(d, H5T_NATIVE_INT, ms, fs, dx, hb) >= 0, "H5Dread chunked");
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < 10; k++) {
            int j = (k / 2) * 2 * nranks + 2 * rank + k % 2;
            CHECK(hb[i * 10 + k] == vchunk(i, j), "chunked[%d][%d] = %d, expected %d", i, j,
                  hb[i * 10 + k], vchunk(i, j));
        }
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Pclose(dx);
    CHECK(H5Fclose(f) >= 0, "H5Fclose");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 3 || (strcmp(argv[2], "all") && strcmp(argv[2], "read"))) {
        if (rank == 0) fprintf(stderr, "usage: h5_io FILE all|read\n");
        MPI_Finalize();
        return 2;
    }
    check_expect();
    if (!strcmp(argv[2], "all")) write_all(argv[1]);
    read_check(argv[1]);
    int any = 0;
    MPI_Allreduce(&nfail, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("h5_io %s %s ranks=%d: %s\n", argv[2], argv[1], nranks, any ? "FAIL" : "OK");
    MPI_Finalize();
    return any ? 1 : 0;
}
