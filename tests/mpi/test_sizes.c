/*
 * test_sizes.c - file size, views and pointers, consistency calls (MPI-3.1 13.2.3-13.2.8, 13.3,
 * 13.4.3, 13.5.1, 13.6.1).
 *
 * Checks: set_size grows and shrinks (contents of grown regions are undefined: not checked);
 * preallocate grows and never shrinks; sizes are bytes whatever the view; sync makes another rank's
 * writes visible; get_type_extent for the native representation; get_byte_offset under
 * non-contiguous views; seek with SEEK_SET/CUR/END and get_position in etype units under a view;
 * atomicity default/set/get; get_info returns a new info with the hints in effect (cb_buffer_size),
 * set_info accepts unknown keys.
 */
#include "testutil.h"

#define NAMELEN 4096

/* Collective (ends with a barrier: the next size change must not race this query). */
static void check_size(MPI_File fh, MPI_Offset want, const char *when)
{
    MPI_Offset size = -1;
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECKF(size == want, "%s: size %lld, expected %lld", when, (long long)size, (long long)want);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void read_bytes(MPI_File fh, MPI_Offset off, int len, int p, int want_count,
                       const char *when);

/* Collective: rank 'who' reads [off, off+len), checks the count and compares with pattern p
 * (-1: contents undefined, not compared). */
static void check_bytes(MPI_File fh, int who, MPI_Offset off, int len, int p, int want_count,
                        const char *when)
{
    if (tu_rank == who) read_bytes(fh, off, len, p, want_count, when);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void read_bytes(MPI_File fh, MPI_Offset off, int len, int p, int want_count,
                       const char *when)
{
    unsigned char *b = malloc(len);
    MPI_Status st;
    int count = -1, bad = -1;
    memset(b, 0xEE, len);
    CHECK_MPI(MPI_File_read_at(fh, off, b, len, MPI_BYTE, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECKF(count == want_count, "%s: read %d bytes, expected %d", when, count, want_count);
    for (int i = 0; p >= 0 && i < want_count && i < len; i++) {
        unsigned char e = (unsigned char)(p + off + i);
        if (b[i] != e) {
            bad = i;
            break;
        }
    }
    CHECKF(bad < 0, "%s: byte %lld is %d", when, (long long)(off + bad), bad < 0 ? 0 : b[bad]);
    free(b);
}

static void test_set_size_preallocate(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    unsigned char data[100];
    tu_fresh_path(path, sizeof path, "size");
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    check_size(fh, 0, "new file");
    for (int i = 0; i < 100; i++)
        data[i] = (unsigned char)(7 + i);
    if (tu_rank == 0) CHECK_MPI(MPI_File_write_at(fh, 0, data, 100, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    check_size(fh, 100, "after 100-byte write");

    CHECK_MPI(MPI_File_set_size(fh, 1000));
    check_size(fh, 1000, "set_size(1000) grow");
    check_bytes(fh, tu_size - 1, 0, 100, 7, 100, "data kept by grow");
    /* the grown region's contents are undefined (13.2.5): only its size is checked */
    check_bytes(fh, 0, 100, 900, -1, 900, "grown region is readable");

    CHECK_MPI(MPI_File_set_size(fh, 50));
    check_size(fh, 50, "set_size(50) shrink");
    check_bytes(fh, tu_size - 1, 0, 100, 7, 50, "shrunk file: read of 100 returns 50");

    /* Host deviation, Open MPI 4.1.4 OMPIO: preallocate(n) with n == size appends another n
     * bytes (size 4000) (it copies the file's first bytes beyond EOF, allowed: undefined data);
     * ranks that see different sizes then take different collective paths inside preallocate, so at
     * 8 ranks the next MPI_File_open hangs (mismatched bcast/barrier in sharedfp/sm). ROMIO (MPICH,
     * Open MPI --mca io romio321) is correct. */
    tu_expect_host_deviation("ompio", "OMPIO preallocate copies data and appends");
    CHECK_MPI(MPI_File_preallocate(fh, 2000));
    check_size(fh, 2000, "preallocate(2000)");
    check_bytes(fh, 0, 0, 50, 7, 50, "data kept by preallocate");
    check_bytes(fh, tu_size - 1, 50, 1950, -1, 1950, "preallocated region is readable");
    CHECK_MPI(MPI_File_preallocate(fh, 10));
    check_size(fh, 2000, "preallocate(10) never shrinks");
    CHECK_MPI(MPI_File_preallocate(fh, 2000));
    check_size(fh, 2000, "preallocate(size) keeps size");
    tu_end_host_deviation();

    /* Sizes are bytes from the start of the file, whatever the view. */
    CHECK_MPI(MPI_File_set_view(fh, 100, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_set_size(fh, 1001));
    check_size(fh, 1001, "set_size(1001) under an MPI_INT view with disp 100");
    CHECK_MPI(MPI_File_set_size(fh, 0));
    check_size(fh, 0, "set_size(0)");
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(tu_posix_size(path) == 0);
}

/* Each rank writes its block; after sync-barrier-sync every rank sees all blocks (13.6.1). */
static void test_sync_visibility(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    int mine[4], *all = malloc(sizeof(int) * 4 * tu_size), bad = -1;
    tu_fresh_path(path, sizeof path, "sync");
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    for (int i = 0; i < 4; i++)
        mine[i] = 1000 * tu_rank + i;
    CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)sizeof mine * tu_rank, mine, 4, MPI_INT,
                                MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_read_at(fh, 0, all, 4 * tu_size, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4 * tu_size; i++)
        if (all[i] != 1000 * (i / 4) + i % 4) {
            bad = i;
            break;
        }
    CHECKF(bad < 0, "int %d of the file is %d after sync", bad, bad < 0 ? 0 : all[bad]);
    check_size(fh, (MPI_Offset)sizeof mine * tu_size, "after every rank wrote 16 bytes");
    CHECK_MPI(MPI_File_close(&fh));
    free(all);
}

static void test_type_extent(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Datatype vec, rsz, st;
    MPI_Aint ext = -1, lb, mext;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    tu_fresh_path(path, sizeof path, "extent");
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_create_resized(MPI_INT, 0, 100, &rsz);
    MPI_Type_create_struct(2, bl, disp, types, &st);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&rsz);
    MPI_Type_commit(&st);
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    CHECKF(ext == (MPI_Aint)sizeof(int), "MPI_INT file extent %ld", (long)ext);
    CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    CHECKF(ext == 8, "MPI_DOUBLE file extent %ld", (long)ext);
    CHECK_MPI(MPI_File_get_type_extent(fh, vec, &ext));
    CHECKF(ext == 40, "vector(3,2,4,int) file extent %ld, expected 40", (long)ext);
    CHECK_MPI(MPI_File_get_type_extent(fh, rsz, &ext));
    CHECKF(ext == 100, "resized(int, 0, 100) file extent %ld, expected 100", (long)ext);
    CHECK_MPI(MPI_File_get_type_extent(fh, st, &ext));
    MPI_Type_get_extent(st, &lb, &mext);
    CHECKF(ext == mext && ext == 16, "struct{int@0,double@8} file extent %ld, memory %ld",
           (long)ext, (long)mext);
    MPI_Type_free(&vec);
    MPI_Type_free(&rsz);
    MPI_Type_free(&st);
    CHECK_MPI(MPI_File_close(&fh));
}

/* filetype B: ints at bytes 8, 16, 20 of a 32-byte tile (leading hole, gaps). */
static const MPI_Aint tileB_off[3] = {8, 16, 20};
static MPI_Offset byteB(MPI_Offset disp, MPI_Offset k)
{
    return disp + (k / 3) * 32 + tileB_off[k % 3];
}

static MPI_Datatype make_tileB(void)
{
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {8, 16};
    MPI_Datatype t, r;
    MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 32, &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

static void test_byte_offset(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Datatype v, tileA, tileB = make_tileB();
    MPI_Offset b = -1;
    int bad = -1;
    tu_fresh_path(path, sizeof path, "byteoff");
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    /* tile A: vector(2, 1, 3) of int -> ints at 0 and 12, resized to 20 bytes, disp 100. */
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 20, &tileA);
    MPI_Type_commit(&tileA);
    CHECK_MPI(MPI_File_set_view(fh, 100, MPI_INT, tileA, "native", MPI_INFO_NULL));
    for (MPI_Offset k = 0; k < 10; k++) {
        CHECK_MPI(MPI_File_get_byte_offset(fh, k, &b));
        if (b != 100 + (k / 2) * 20 + (k % 2) * 12) {
            bad = (int)k;
            break;
        }
    }
    CHECKF(bad < 0, "view A: get_byte_offset(%d) = %lld", bad, (long long)b);
    bad = -1;
    CHECK_MPI(MPI_File_set_view(fh, 4 * tu_rank, MPI_INT, tileB, "native", MPI_INFO_NULL));
    for (MPI_Offset k = 0; k < 12; k++) {
        CHECK_MPI(MPI_File_get_byte_offset(fh, k, &b));
        if (b != byteB(4 * tu_rank, k)) {
            bad = (int)k;
            break;
        }
    }
    CHECKF(bad < 0, "view B: get_byte_offset(%d) = %lld, expected %lld", bad, (long long)b,
           bad < 0 ? 0LL : (long long)byteB(4 * tu_rank, bad));
    CHECK_MPI(MPI_File_get_byte_offset(fh, 3000001, &b));
    CHECKF(b == byteB(4 * tu_rank, 3000001), "view B: get_byte_offset(3000001) = %lld",
           (long long)b);
    MPI_Type_free(&v);
    MPI_Type_free(&tileA);
    MPI_Type_free(&tileB);
    CHECK_MPI(MPI_File_close(&fh));
}

static void check_pos(MPI_File fh, MPI_Offset want, const char *when)
{
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECKF(pos == want, "%s: position %lld, expected %lld", when, (long long)pos, (long long)want);
}

/* Per-rank file (MPI_COMM_SELF), view B with disp 100. */
static void test_seek_position(void)
{
    char path[NAMELEN], tag[32];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Datatype tileB = make_tileB();
    MPI_Offset b = -1;
    int w[4] = {11, 12, 13, 14}, r[4] = {0};
    snprintf(tag, sizeof tag, "seek.r%d", tu_rank);
    tu_path(path, sizeof path, tag);
    unlink(path);
    CHECK_MPI(
        MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 100, MPI_INT, tileB, "native", MPI_INFO_NULL));
    check_pos(fh, 0, "after set_view");
    CHECK_MPI(MPI_File_seek(fh, 5, MPI_SEEK_SET));
    check_pos(fh, 5, "seek(5, SET)");
    CHECK_MPI(MPI_File_seek(fh, 3, MPI_SEEK_CUR));
    check_pos(fh, 8, "seek(3, CUR)");
    CHECK_MPI(MPI_File_seek(fh, -2, MPI_SEEK_CUR));
    check_pos(fh, 6, "seek(-2, CUR)");
    CHECK_MPI(MPI_File_write(fh, w, 4, MPI_INT, MPI_STATUS_IGNORE));
    check_pos(fh, 10, "after writing 4 etypes at 6");
    /* Etype 9 is the last one written: it ends the file exactly, so EOF is etype 10. */
    {
        MPI_Offset size = -1;
        CHECK_MPI(MPI_File_get_size(fh, &size));
        CHECKF(size == byteB(100, 9) + 4, "size %lld, expected %lld", (long long)size,
               (long long)(byteB(100, 9) + 4));
    }
    /* Host deviation, Open MPI 4.1.4 OMPIO: SEEK_END under a view with holes gives 4, not 10
     * (ROMIO: 10). Each check below starts from an explicit SEEK_SET so they stay independent. */
    tu_expect_host_deviation("ompio", "OMPIO SEEK_END ignores the view's holes");
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    check_pos(fh, 10, "seek(0, END)");
    CHECK_MPI(MPI_File_seek(fh, -4, MPI_SEEK_END));
    check_pos(fh, 6, "seek(-4, END)");
    CHECK_MPI(MPI_File_seek(fh, 2, MPI_SEEK_END));
    check_pos(fh, 12, "seek(2, END) beyond EOF is allowed");
    tu_end_host_deviation();
    CHECK_MPI(MPI_File_get_byte_offset(fh, 10, &b));
    CHECKF(b == byteB(100, 10), "get_byte_offset(10) = %lld", (long long)b);
    CHECK_MPI(MPI_File_seek(fh, 6, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, r, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECKF(memcmp(r, w, sizeof w) == 0, "read back through the pointer: %d %d %d %d", r[0], r[1],
           r[2], r[3]);
    check_pos(fh, 10, "after reading 4 etypes at 6");
    CHECK_MPI(MPI_File_seek(fh, 12, MPI_SEEK_SET));
    /* Explicit-offset calls do not move the individual pointer. */
    CHECK_MPI(MPI_File_read_at(fh, 6, r, 2, MPI_INT, MPI_STATUS_IGNORE));
    check_pos(fh, 12, "read_at does not move the individual pointer");
    /* The individual pointer is per-view: a new view resets it to 0. */
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    check_pos(fh, 0, "set_view resets the pointer");
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    check_pos(fh, byteB(100, 9) + 4, "seek(0, END) in a byte view = size");
    MPI_Type_free(&tileB);
    CHECK_MPI(MPI_File_close(&fh));
}

static void test_atomicity(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    int flag = -1;
    tu_fresh_path(path, sizeof path, "atomic");
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECKF(flag == 0, "default atomicity %d, expected 0 (nonatomic)", flag);
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECKF(flag == 1, "atomicity after set(1): %d", flag);
    CHECK_MPI(MPI_File_set_atomicity(fh, 7)); /* any true value */
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECKF(flag != 0, "atomicity after set(7): %d", flag);
    { /* atomic mode is usable: a write/read round trip */
        int v = 17 + tu_rank, r = -1;
        CHECK_MPI(MPI_File_write_at(fh, 4 * tu_rank, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_File_read_at(fh, 4 * tu_rank, &r, 1, MPI_INT, MPI_STATUS_IGNORE));
        CHECK(r == v);
    }
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECKF(flag == 0, "atomicity after set(0): %d", flag);
    CHECK_MPI(MPI_File_close(&fh));
}

static int info_get(MPI_Info info, const char *key, char *val, int vlen)
{
    int flag = 0;
    val[0] = 0;
    MPI_Info_get(info, key, vlen - 1, val, &flag);
    return flag;
}

static void test_info(void)
{
    char path[NAMELEN], val[MPI_MAX_INFO_VAL + 1];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Info in, a = MPI_INFO_NULL, b = MPI_INFO_NULL, c = MPI_INFO_NULL;
    int nkeys = -1;
    tu_fresh_path(path, sizeof path, "info");
    MPI_Info_create(&in);
    MPI_Info_set(in, "cb_buffer_size", "4194304");
    MPI_Info_set(in, "agio_test_unknown_key", "some value");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, in, &fh));
    MPI_Info_free(&in); /* the file keeps no reference to the user's info */
    CHECK_MPI(MPI_File_get_info(fh, &a));
    CHECK(a != MPI_INFO_NULL);
    if (a != MPI_INFO_NULL) {
        MPI_Info_get_nkeys(a, &nkeys);
        CHECKF(nkeys >= 1, "get_info lists %d hints", nkeys);
        CHECKF(info_get(a, "cb_buffer_size", val, sizeof val) && strcmp(val, "4194304") == 0,
               "cb_buffer_size in get_info: \"%s\" (expected the value given at open)", val);
        /* the returned info is a new object: changing it does not change the file's hints */
        MPI_Info_set(a, "cb_buffer_size", "1");
    }
    CHECK_MPI(MPI_File_get_info(fh, &b));
    CHECK(b != MPI_INFO_NULL && b != a);
    if (b != MPI_INFO_NULL)
        CHECKF(info_get(b, "cb_buffer_size", val, sizeof val) && strcmp(val, "4194304") == 0,
               "cb_buffer_size after modifying a returned info: \"%s\"", val);
    if (a != MPI_INFO_NULL) CHECK_MPI(MPI_Info_free(&a));
    if (b != MPI_INFO_NULL) CHECK_MPI(MPI_Info_free(&b));

    /* set_info (collective) with a known and an unknown key */
    MPI_Info_create(&in);
    MPI_Info_set(in, "agio_test_other_unknown", "1");
    MPI_Info_set(in, "access_style", "read_once,write_once");
    CHECK_MPI(MPI_File_set_info(fh, in));
    MPI_Info_free(&in);
    CHECK_MPI(MPI_File_get_info(fh, &c));
    if (c != MPI_INFO_NULL) {
        CHECKF(info_get(c, "cb_buffer_size", val, sizeof val),
               "cb_buffer_size no longer listed after set_info");
        CHECK_MPI(MPI_Info_free(&c));
    }
    /* set_view passes an info too */
    MPI_Info_create(&in);
    MPI_Info_set(in, "agio_test_view_key", "1");
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", in));
    MPI_Info_free(&in);
    CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "test_sizes");
    test_set_size_preallocate();
    test_sync_visibility();
    test_type_extent();
    test_byte_offset();
    test_seek_position();
    test_atomicity();
    test_info();
    return tu_finish();
}
