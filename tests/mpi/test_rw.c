/*
 * test_rw.c - data access (MPI-3.1 13.3 views, 13.4 data access, 13.5 representation "native").
 *
 * Every write is checked twice: read back through MPI-IO under the same view, and byte for byte
 * against a model of the whole file read by rank 0 through a byte view (pre-filled with 0xEE, so
 * holes of a view must keep 0xEE). Covers write_at/read_at/write/read/write_all/read_all/
 * write_at_all/read_at_all; contiguous and non-contiguous memory types; views built from a vector,
 * a resized type and a struct with gaps; count 0; reads past EOF (MPI_Get_count = what was read,
 * MPI_Get_elements for derived types); the individual pointer advancing by etypes accessed;
 * MPI_STATUS_IGNORE.
 */
#include "testutil.h"

#define NAMELEN 4096
#define FILL 0xEE

/* Collective: fill [0, n) of a fresh file with FILL (rank 0 writes), leaves it open. */
static MPI_File open_filled(const char *tag, int n, char *path, size_t plen)
{
    MPI_File fh = MPI_FILE_NULL;
    tu_fresh_path(path, plen, tag);
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    if (tu_rank == 0 && n > 0) {
        unsigned char *b = malloc(n);
        memset(b, FILL, n);
        CHECK_MPI(MPI_File_write_at(fh, 0, b, n, MPI_BYTE, MPI_STATUS_IGNORE));
        free(b);
    }
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    return fh;
}

/* Collective: close fh, then rank 0 reads the whole file through a separate handle and compares
 * it with the model (length n bytes exactly). */
static void close_and_verify(MPI_File *fh, const char *path, const unsigned char *model, int n,
                             const char *what)
{
    CHECK_MPI(MPI_File_close(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0) {
        MPI_File f = MPI_FILE_NULL;
        unsigned char *b = malloc(n + 64);
        MPI_Status st;
        int count = -1, bad = -1;
        MPI_Offset size = -1;
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &f));
        CHECK_MPI(MPI_File_get_size(f, &size));
        CHECKF(size == n, "%s: file size %lld, expected %d", what, (long long)size, n);
        memset(b, 0, n + 64);
        CHECK_MPI(MPI_File_read_at(f, 0, b, n + 64, MPI_BYTE, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECKF(count == n, "%s: read %d bytes of the file, expected %d", what, count, n);
        for (int i = 0; i < n; i++)
            if (b[i] != model[i]) {
                bad = i;
                break;
            }
        CHECKF(bad < 0, "%s: file byte %d is 0x%02x, expected 0x%02x", what, bad,
               bad < 0 ? 0 : b[bad], bad < 0 ? 0 : model[bad]);
        CHECK_MPI(MPI_File_close(&f));
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static int count_of(MPI_Status *st, MPI_Datatype t)
{
    int c = -12345;
    MPI_Get_count(st, t, &c);
    return c;
}

static int elements_of(MPI_Status *st, MPI_Datatype t)
{
    int c = -12345;
    MPI_Get_elements(st, t, &c);
    return c;
}

static void put_int(unsigned char *model, long off, int v)
{
    memcpy(model + off, &v, sizeof v);
}

/* 1. Explicit offsets, contiguous: write_at/read_at and write_at_all/read_at_all. */
static void test_explicit_contig(void)
{
    char path[NAMELEN];
    const int N = 100, P = tu_size, r = tu_rank;
    int w[100], rd[100], bad;
    MPI_Status st;
    long n = 2L * P * N * 4;
    unsigned char *model = malloc(n);
    MPI_File fh = open_filled("explicit", 0, path, sizeof path);
    for (int i = 0; i < N; i++)
        w[i] = r * 1000 + i;
    CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)r * N * 4, w, N, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == N, "write_at status count %d", count_of(&st, MPI_INT));
    for (int i = 0; i < N; i++)
        w[i] = -(r * 1000 + i);
    CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)(P + r) * N * 4, w, N, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == N, "write_at_all status count %d", count_of(&st, MPI_INT));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    int nb = (r + 1) % P;
    memset(rd, 0, sizeof rd);
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)nb * N * 4, rd, N, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == N, "read_at status count %d", count_of(&st, MPI_INT));
    bad = -1;
    for (int i = 0; i < N; i++)
        if (rd[i] != nb * 1000 + i) bad = i;
    CHECKF(bad < 0, "read_at of rank %d's block: int %d is %d", nb, bad, bad < 0 ? 0 : rd[bad]);
    memset(rd, 0, sizeof rd);
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)(P + nb) * N * 4, rd, N, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == N, "read_at_all status count %d", count_of(&st, MPI_INT));
    bad = -1;
    for (int i = 0; i < N; i++)
        if (rd[i] != -(nb * 1000 + i)) bad = i;
    CHECKF(bad < 0, "read_at_all of rank %d's block: int %d is %d", nb, bad, bad < 0 ? 0 : rd[bad]);
    /* MPI_STATUS_IGNORE everywhere */
    CHECK_MPI(MPI_File_read_at(fh, 0, rd, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read_at_all(fh, 0, rd, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(rd[0] == 0);
    for (int q = 0; q < P; q++)
        for (int i = 0; i < N; i++) {
            put_int(model, ((long)q * N + i) * 4, q * 1000 + i);
            put_int(model, ((long)(P + q) * N + i) * 4, -(q * 1000 + i));
        }
    close_and_verify(&fh, path, model, (int)n, "explicit offsets");
    free(model);
}

static void check_pos(MPI_File fh, MPI_Offset want, const char *when)
{
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECKF(pos == want, "%s: position %lld, expected %lld", when, (long long)pos, (long long)want);
}

/* 2. Individual pointer: write/read/write_all/read_all; each rank's view starts at r*800. */
static void test_individual_pointer(void)
{
    char path[NAMELEN];
    const int P = tu_size, r = tu_rank;
    int w[200], rd[200], bad = -1;
    MPI_Status st;
    unsigned char *model = malloc(800L * P);
    MPI_File fh = open_filled("pointer", 800 * P, path, sizeof path);
    for (int i = 0; i < 200; i++)
        w[i] = r * 10000 + i;
    CHECK_MPI(MPI_File_set_view(fh, 800 * r, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write(fh, w, 50, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 50);
    check_pos(fh, 50, "after write of 50");
    CHECK_MPI(MPI_File_write(fh, w + 50, 25, MPI_INT, MPI_STATUS_IGNORE));
    check_pos(fh, 75, "after write of 25 more");
    CHECK_MPI(MPI_File_write_all(fh, w + 75, 100, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 100);
    check_pos(fh, 175, "after write_all of 100");
    CHECK_MPI(MPI_File_write_all(fh, w + 175, 0, MPI_INT, &st));
    /* Host deviation, Open MPI 4.1.4 with --mca io romio321: the status of a count-0
     * write_all is not set (MPICH's ROMIO and OMPIO set 0). */
    tu_expect_host_deviation("romio321", "romio321 leaves the status of a count-0 write_all unset");
    CHECK(count_of(&st, MPI_INT) == 0);
    tu_end_host_deviation();
    check_pos(fh, 175, "write_all of 0 does not move the pointer");
    /* a derived memory type: the pointer moves by etypes (ints), not by memtype count */
    {
        MPI_Datatype five;
        MPI_Type_contiguous(5, MPI_INT, &five);
        MPI_Type_commit(&five);
        CHECK_MPI(MPI_File_write(fh, w + 175, 5, five, &st));
        CHECK(count_of(&st, five) == 5);
        CHECK(elements_of(&st, five) == 25);
        check_pos(fh, 200, "after write of 5 x contiguous(5 ints)");
        MPI_Type_free(&five);
    }
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(rd, 0, sizeof rd);
    CHECK_MPI(MPI_File_read(fh, rd, 75, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 75);
    check_pos(fh, 75, "after read of 75");
    CHECK_MPI(MPI_File_read_all(fh, rd + 75, 125, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 125);
    check_pos(fh, 200, "after read_all of 125");
    for (int i = 0; i < 200; i++)
        if (rd[i] != w[i]) {
            bad = i;
            break;
        }
    CHECKF(bad < 0, "read back through the pointer: int %d is %d", bad, bad < 0 ? 0 : rd[bad]);
    CHECK_MPI(MPI_File_seek(fh, 10, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read_all(fh, rd, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(rd[0] == w[10]);
    CHECK_MPI(MPI_File_read(fh, rd, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(rd[0] == w[11]);
    CHECK_MPI(MPI_File_write(fh, w, 0, MPI_INT, MPI_STATUS_IGNORE));
    check_pos(fh, 12, "after read_all+read of 1 each and write of 0");
    for (int q = 0; q < P; q++)
        for (int i = 0; i < 200; i++)
            put_int(model, (q * 200L + i) * 4, q * 10000 + i);
    close_and_verify(&fh, path, model, 800 * P, "individual pointer");
    free(model);
}

/* 3. Collective interleaved view: vector(K blocks of B ints, stride P*B) resized to K*P*B ints;
 *    only even ranks write (odd ranks count 0), so odd ranks' blocks are holes: they keep FILL. */
static void test_interleaved_holes(void)
{
    char path[NAMELEN];
    enum { B = 3, K = 4, T = 2 }; /* T tiles */
    const int P = tu_size, r = tu_rank;
    const int nints = B * K * T, fsize = P * B * K * T * 4;
    int w[B * K * T], rd[B * K * T], bad = -1;
    MPI_Datatype v, ft;
    MPI_Status st;
    unsigned char *model = malloc(fsize);
    MPI_File fh = open_filled("interleave", fsize, path, sizeof path);
    MPI_Type_vector(K, B, P * B, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)K * P * B * 4, &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)r * B * 4, MPI_INT, ft, "native", MPI_INFO_NULL));
    for (int i = 0; i < nints; i++)
        w[i] = r * 100000 + i;
    int mycount = (r % 2 == 0) ? nints : 0;
    CHECK_MPI(MPI_File_write_all(fh, w, mycount, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == mycount, "write_all count %d", count_of(&st, MPI_INT));
    check_pos(fh, mycount, "after interleaved write_all");
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    /* read back under the same view: read_at_all with an etype offset */
    if (r % 2 == 0) {
        memset(rd, 0, sizeof rd);
        CHECK_MPI(MPI_File_read_at_all(fh, B + 1, rd, nints - B - 1, MPI_INT, &st));
        CHECK(count_of(&st, MPI_INT) == nints - B - 1);
        for (int i = 0; i < nints - B - 1; i++)
            if (rd[i] != w[B + 1 + i]) {
                bad = i;
                break;
            }
        CHECKF(bad < 0, "read_at_all(B+1) under the view: int %d is %d", bad,
               bad < 0 ? 0 : rd[bad]);
    } else {
        /* odd ranks read their never-written blocks (pre-filled): FILL bytes */
        unsigned fillint;
        memset(&fillint, FILL, sizeof fillint);
        memset(rd, 0, sizeof rd);
        CHECK_MPI(MPI_File_read_at_all(fh, 0, rd, nints, MPI_INT, &st));
        CHECK(count_of(&st, MPI_INT) == nints);
        for (int i = 0; i < nints; i++)
            if ((unsigned)rd[i] != fillint) {
                bad = i;
                break;
            }
        CHECKF(bad < 0, "hole of rank %d: int %d is 0x%x", r, bad, bad < 0 ? 0 : rd[bad]);
    }
    memset(model, FILL, fsize);
    for (int q = 0; q < P; q += 2)
        for (int i = 0; i < nints; i++) {
            long block = i / B; /* block of rank q in the whole file (tiles concatenate) */
            long off = ((block * P + q) * B + i % B) * 4L;
            put_int(model, off, q * 100000 + i);
        }
    close_and_verify(&fh, path, model, fsize, "interleaved vector view, odd ranks write 0");
    MPI_Type_free(&v);
    MPI_Type_free(&ft);
    free(model);
}

/* 4. Struct filetype with gaps (etype MPI_BYTE): {int @0, short @8, 3 chars @12}, extent 20.
 *    Memory: a vector type (every other int). */
static void test_struct_view_noncontig_mem(void)
{
    char path[NAMELEN];
    const int P = tu_size, r = tu_rank, REG = 200, TILES = 4, DATA = 9;
    int bl[3] = {1, 1, 3};
    MPI_Aint d[3] = {0, 8, 12};
    MPI_Datatype ty[3] = {MPI_INT, MPI_SHORT, MPI_CHAR}, st0, ft, mt;
    MPI_Status st;
    unsigned char src[TILES * DATA], got[TILES * DATA];
    unsigned char *model = malloc((size_t)REG * P);
    MPI_File fh = open_filled("struct", REG * P, path, sizeof path);
    MPI_Type_create_struct(3, bl, d, ty, &st0);
    MPI_Type_create_resized(st0, 0, 20, &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)REG * r, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    for (int i = 0; i < TILES * DATA; i++)
        src[i] = (unsigned char)(r * 37 + i + 1);
    CHECK_MPI(MPI_File_write_at_all(fh, 0, src, TILES * DATA, MPI_BYTE, &st));
    CHECK(count_of(&st, MPI_BYTE) == TILES * DATA);
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    memset(got, 0, sizeof got);
    CHECK_MPI(MPI_File_read_at(fh, 5, got, TILES * DATA - 5, MPI_BYTE, &st));
    CHECK(count_of(&st, MPI_BYTE) == TILES * DATA - 5);
    CHECKF(memcmp(got, src + 5, TILES * DATA - 5) == 0, "struct view: read_at(5) data differs");

    /* non-contiguous memory: every other int of a 2*16-int buffer, written under a byte view */
    {
        int mem[32], back[32], bad = -1;
        MPI_Type_vector(16, 1, 2, MPI_INT, &mt);
        MPI_Type_commit(&mt);
        for (int i = 0; i < 32; i++)
            mem[i] = (i % 2) ? -1 : r * 1000 + i;
        CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)REG * r + 100, MPI_BYTE, MPI_BYTE, "native",
                                    MPI_INFO_NULL));
        CHECK_MPI(MPI_File_write_at(fh, 0, mem, 1, mt, &st));
        CHECK(count_of(&st, mt) == 1);
        CHECK(elements_of(&st, mt) == 16);
        memset(back, 0, sizeof back);
        CHECK_MPI(MPI_File_read_at(fh, 0, back, 16, MPI_INT, &st));
        for (int i = 0; i < 16; i++)
            if (back[i] != r * 1000 + 2 * i) bad = i;
        CHECKF(bad < 0, "vector memtype write: int %d is %d", bad, bad < 0 ? 0 : back[bad]);
        /* read into the vector memtype: the gaps in memory must stay untouched */
        for (int i = 0; i < 32; i++)
            back[i] = -7;
        CHECK_MPI(MPI_File_read_at_all(fh, 0, back, 1, mt, &st));
        CHECK(count_of(&st, mt) == 1);
        bad = -1;
        for (int i = 0; i < 32; i++)
            if (back[i] != ((i % 2) ? -7 : r * 1000 + i)) bad = i;
        CHECKF(bad < 0, "vector memtype read: mem[%d] is %d", bad, bad < 0 ? 0 : back[bad]);
        MPI_Type_free(&mt);
    }
    memset(model, FILL, (size_t)REG * P);
    for (int q = 0; q < P; q++) {
        for (int i = 0; i < TILES * DATA; i++) {
            int t = i / DATA, j = i % DATA;
            int off = j < 4 ? j : j < 6 ? 8 + (j - 4) : 12 + (j - 6);
            model[REG * q + 20 * t + off] = (unsigned char)(q * 37 + i + 1);
        }
        for (int i = 0; i < 16; i++)
            put_int(model, REG * q + 100 + 4L * i, q * 1000 + 2 * i);
    }
    close_and_verify(&fh, path, model, REG * P, "struct view with gaps + vector memtype");
    MPI_Type_free(&st0);
    MPI_Type_free(&ft);
    free(model);
}

/* 5. Count 0 and reads past EOF (per-rank file, 40 ints), MPI_Get_count/MPI_Get_elements. */
static void test_zero_and_eof(void)
{
    char path[NAMELEN], tag[32];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Status st;
    MPI_Offset size = -1;
    int w[40], rd[64], bad = -1;
    MPI_Datatype triple;
    snprintf(tag, sizeof tag, "eof.r%d", tu_rank);
    tu_path(path, sizeof path, tag);
    unlink(path);
    CHECK_MPI(
        MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_write_at(fh, 0, w, 0, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 0);
    CHECK_MPI(MPI_File_write_at(fh, 1000, NULL, 0, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 0);
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECKF(size == 0, "writes of count 0 changed the size to %lld", (long long)size);
    CHECK_MPI(MPI_File_read_at(fh, 0, rd, 10, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == 0, "read of an empty file: count %d", count_of(&st, MPI_INT));
    for (int i = 0; i < 40; i++)
        w[i] = 500 + i + tu_rank;
    CHECK_MPI(MPI_File_write_at(fh, 0, w, 40, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_read_at(fh, 0, rd, 0, MPI_INT, &st));
    CHECK(count_of(&st, MPI_INT) == 0);
    /* past EOF */
    CHECK_MPI(MPI_File_read_at(fh, 30 * 4, rd, 20, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == 10, "read_at 20 ints at int 30 of 40: count %d",
           count_of(&st, MPI_INT));
    for (int i = 0; i < 10; i++)
        if (rd[i] != w[30 + i]) bad = i;
    CHECKF(bad < 0, "EOF read data: int %d", bad);
    CHECK_MPI(MPI_File_read_at(fh, 50 * 4, rd, 20, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == 0, "read_at beyond EOF: count %d", count_of(&st, MPI_INT));
    /* derived memtype: 4 triples at int 30 -> 10 ints: count undefined, 10 elements */
    MPI_Type_contiguous(3, MPI_INT, &triple);
    MPI_Type_commit(&triple);
    CHECK_MPI(MPI_File_read_at(fh, 30 * 4, rd, 4, triple, &st));
    CHECKF(count_of(&st, triple) == MPI_UNDEFINED, "partial triple: MPI_Get_count %d",
           count_of(&st, triple));
    CHECKF(elements_of(&st, triple) == 10, "partial triple: MPI_Get_elements %d",
           elements_of(&st, triple));
    CHECK_MPI(MPI_File_read_at(fh, 0, rd, 3, triple, &st));
    CHECK(count_of(&st, triple) == 3);
    CHECK(elements_of(&st, triple) == 9);
    MPI_Type_free(&triple);
    /* individual pointer stops at EOF: it advances by the etypes actually read */
    CHECK_MPI(MPI_File_seek(fh, 35 * 4, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, rd, 40, MPI_BYTE, &st));
    CHECKF(count_of(&st, MPI_BYTE) == 20, "read 40 bytes at 140 of 160: count %d",
           count_of(&st, MPI_BYTE));
    /* 13.4.3: "the individual file pointer is updated to point to the next etype after the last
     * one that will be accessed"; past EOF nothing is accessed. Host deviation: ROMIO and OMPIO
     * both advance by the requested amount (180). */
    tu_expect_host_deviation("host", "pointer advances by the requested count past EOF");
    check_pos(fh, 160, "pointer after a read stopped by EOF");
    tu_end_host_deviation();
    /* EOF under a view with holes: ints at 8,16,20 of 32-byte tiles, disp 0 -> the file's 160
     * bytes hold 5 whole tiles = 15 etypes */
    {
        int bl[2] = {1, 2};
        MPI_Aint d[2] = {8, 16};
        MPI_Datatype t, ft;
        MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t);
        MPI_Type_create_resized(t, 0, 32, &ft);
        MPI_Type_commit(&ft);
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
        CHECK_MPI(MPI_File_read_at(fh, 10, rd, 20, MPI_INT, &st));
        /* Host deviation, ROMIO (MPICH, Open MPI romio321): a non-contiguous independent read
         * (data sieving) reports the requested count (20) past EOF. OMPIO reports 5. */
        tu_expect_host_deviation("romio", "ROMIO non-contiguous read reports requested count");
        CHECKF(count_of(&st, MPI_INT) == 5, "read under a view at etype 10 of 15: count %d",
               count_of(&st, MPI_INT));
        tu_end_host_deviation();
        CHECKF(rd[0] == w[(3 * 32 + 16) / 4], "etype 10 = int at byte 112: %d", rd[0]);
        CHECKF(rd[4] == w[(4 * 32 + 20) / 4], "etype 14 = int at byte 148: %d", rd[4]);
        MPI_Type_free(&t);
        MPI_Type_free(&ft);
    }
    CHECK_MPI(MPI_File_close(&fh));
}

/* 6. Collective read past EOF with different counts per rank (read_all, read_at_all): the file
 *    holds 8*(P-1)+4 ints, rank r reads 16 ints at int 8*r, so the last two ranks hit EOF. */
static void test_collective_eof(void)
{
    char path[NAMELEN];
    const int r = tu_rank, nfile = 8 * (tu_size - 1) + 4;
    int *w = malloc(sizeof(int) * nfile), rd[16];
    MPI_Status st;
    MPI_File fh = open_filled("colleof", 0, path, sizeof path);
    for (int i = 0; i < nfile; i++)
        w[i] = i * 3;
    if (r == 0) CHECK_MPI(MPI_File_write_at(fh, 0, w, nfile, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    int want = nfile - 8 * r;
    want = want > 16 ? 16 : want;
    /* Host deviation: the collective reads of OMPIO and ROMIO (two-phase) report the requested
     * count past EOF, and the pointer moves by it. */
    tu_expect_host_deviation("host", "collective read reports requested count past EOF");
    CHECK_MPI(MPI_File_read_at_all(fh, 32L * r, rd, 16, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == want, "read_at_all at int %d: count %d, expected %d", 8 * r,
           count_of(&st, MPI_INT), want);
    CHECK(rd[0] == w[8 * r] && rd[want - 1] == w[8 * r + want - 1]);
    CHECK_MPI(MPI_File_seek(fh, 32L * r, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read_all(fh, rd, 16, MPI_INT, &st));
    CHECKF(count_of(&st, MPI_INT) == want, "read_all at int %d: count %d, expected %d", 8 * r,
           count_of(&st, MPI_INT), want);
    check_pos(fh, 32L * r + 4L * want, "pointer after read_all stopped by EOF");
    tu_end_host_deviation();
    CHECK_MPI(MPI_File_close(&fh));
    free(w);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "test_rw");
    test_explicit_contig();
    test_individual_pointer();
    test_interleaved_holes();
    test_struct_view_noncontig_mem();
    test_zero_and_eof();
    test_collective_eof();
    return tu_finish();
}
