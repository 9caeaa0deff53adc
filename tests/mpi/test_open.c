/*
 * test_open.c - MPI_File_open/close/delete and the access modes (MPI-3.1 sections 13.2.1-13.2.7,
 * 13.7 error classes).
 *
 * Checks: every valid amode opens and get_amode returns it; exactly one of RDONLY/WRONLY/RDWR,
 * RDONLY with CREATE or EXCL, RDWR with SEQUENTIAL -> MPI_ERR_AMODE; a missing file without
 * CREATE -> MPI_ERR_NO_SUCH_FILE; CREATE|EXCL on an existing file -> MPI_ERR_FILE_EXISTS;
 * permission denied -> MPI_ERR_ACCESS (skipped as root); CREATE does not truncate;
 * DELETE_ON_CLOSE; APPEND puts the individual and shared pointers at EOF; get_group is IDENT to
 * the comm's group; MPI_File_delete; the handle stays MPI_FILE_NULL after a failed open; a failure
 * on rank 0 only gives every rank an error of the same class, without a hang.
 */
#include "testutil.h"

#define NAMELEN 4096

/* Collective: rank 0 creates path with nbytes of data through MPI-IO, everybody closes. */
static void make_file(const char *path, int nbytes)
{
    MPI_File fh = MPI_FILE_NULL;
    char buf[4096];
    memset(buf, 'a', sizeof buf);
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    if (tu_rank == 0 && nbytes > 0)
        CHECK_MPI(MPI_File_write_at(fh, 0, buf, nbytes, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
}

static void test_valid_amodes(void)
{
    char path[NAMELEN];
    static const struct {
        int amode;
        const char *name;
    } modes[] = {
        {MPI_MODE_RDONLY, "RDONLY"},
        {MPI_MODE_WRONLY, "WRONLY"},
        {MPI_MODE_RDWR, "RDWR"},
        {MPI_MODE_WRONLY | MPI_MODE_CREATE, "WRONLY|CREATE"},
        {MPI_MODE_RDWR | MPI_MODE_CREATE, "RDWR|CREATE"},
        {MPI_MODE_RDWR | MPI_MODE_UNIQUE_OPEN, "RDWR|UNIQUE_OPEN"},
        {MPI_MODE_RDONLY | MPI_MODE_UNIQUE_OPEN, "RDONLY|UNIQUE_OPEN"},
        {MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL, "RDONLY|SEQUENTIAL"},
        {MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, "WRONLY|SEQUENTIAL"},
        {MPI_MODE_WRONLY | MPI_MODE_APPEND, "WRONLY|APPEND"},
        {MPI_MODE_RDWR | MPI_MODE_APPEND, "RDWR|APPEND"},
        {MPI_MODE_RDONLY | MPI_MODE_APPEND, "RDONLY|APPEND"},
    };
    tu_fresh_path(path, sizeof path, "valid");
    make_file(path, 100);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        MPI_File fh = MPI_FILE_NULL;
        int amode = -1;
        int err = MPI_File_open(MPI_COMM_WORLD, path, modes[i].amode, MPI_INFO_NULL, &fh);
        CHECKF(err == MPI_SUCCESS, "open amode %s failed (class %s)", modes[i].name,
               tu_class_name(tu_class(err)));
        if (err != MPI_SUCCESS)
            continue; /* same on every rank for a valid mode on an existing file */
        CHECK(fh != MPI_FILE_NULL);
        CHECK_MPI(MPI_File_get_amode(fh, &amode));
        CHECKF(amode == modes[i].amode, "get_amode for %s: got %d, expected %d", modes[i].name,
               amode, modes[i].amode);
        CHECK_MPI(MPI_File_close(&fh));
        CHECKF(fh == MPI_FILE_NULL, "close must set the handle to MPI_FILE_NULL (%s)",
               modes[i].name);
    }
    /* CREATE on an existing file does not truncate it. */
    {
        MPI_File fh = MPI_FILE_NULL;
        MPI_Offset size = -1;
        CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                                MPI_INFO_NULL, &fh));
        CHECK_MPI(MPI_File_get_size(fh, &size));
        CHECKF(size == 100, "CREATE on an existing file changed its size to %lld", (long long)size);
        CHECK_MPI(MPI_File_close(&fh));
    }
    /* CREATE|EXCL on a new file works and get_amode reports both bits. */
    {
        char p2[NAMELEN];
        MPI_File fh = MPI_FILE_NULL;
        int amode = 0, want = MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL;
        tu_fresh_path(p2, sizeof p2, "excl-new");
        CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p2, want, MPI_INFO_NULL, &fh));
        CHECK_MPI(MPI_File_get_amode(fh, &amode));
        CHECKF(amode == want, "get_amode: got %d, expected %d", amode, want);
        CHECK_MPI(MPI_File_close(&fh));
        CHECK(tu_exists(p2));
    }
}

static void test_invalid_amodes(void)
{
    char path[NAMELEN], missing[NAMELEN];
    static const struct {
        int amode;
        const char *name;
    } bad[] = {
        {0, "0 (none of RDONLY/WRONLY/RDWR)"},
        {MPI_MODE_CREATE, "CREATE alone"},
        {MPI_MODE_RDONLY | MPI_MODE_WRONLY, "RDONLY|WRONLY"},
        {MPI_MODE_RDONLY | MPI_MODE_RDWR, "RDONLY|RDWR"},
        {MPI_MODE_WRONLY | MPI_MODE_RDWR, "WRONLY|RDWR"},
        {MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR, "RDONLY|WRONLY|RDWR"},
        {MPI_MODE_RDONLY | MPI_MODE_CREATE, "RDONLY|CREATE"},
        {MPI_MODE_RDONLY | MPI_MODE_EXCL, "RDONLY|EXCL"},
        {MPI_MODE_RDONLY | MPI_MODE_CREATE | MPI_MODE_EXCL, "RDONLY|CREATE|EXCL"},
        {MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, "RDWR|SEQUENTIAL"},
        {MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL, "RDWR|CREATE|SEQUENTIAL"},
    };
    tu_fresh_path(path, sizeof path, "amode");
    tu_fresh_path(missing, sizeof missing, "amode-missing");
    make_file(path, 10);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int which = 0; which < 2; which++) {
            MPI_File fh = MPI_FILE_NULL;
            const char *p = which ? missing : path;
            int err = MPI_File_open(MPI_COMM_WORLD, p, bad[i].amode, MPI_INFO_NULL, &fh);
            char d[MPI_MAX_ERROR_STRING + 128];
            CHECKF(tu_class(err) == MPI_ERR_AMODE,
                   "amode %s on %s file: expected MPI_ERR_AMODE, "
                   "got %s",
                   bad[i].name, which ? "a missing" : "an existing", tu_describe(err, d, sizeof d));
            CHECKF(fh == MPI_FILE_NULL, "handle not MPI_FILE_NULL after failed open (%s)",
                   bad[i].name);
            if (err == MPI_SUCCESS && fh != MPI_FILE_NULL)
                MPI_File_close(&fh); /* every rank opened: closing is collective and safe */
        }
        MPI_Barrier(MPI_COMM_WORLD);
        CHECKF(!tu_exists(missing), "a rejected amode (%s) created the file", bad[i].name);
        MPI_Barrier(MPI_COMM_WORLD);
        if (tu_rank == 0) unlink(missing);
    }
}

/* On agio the message of a file error must name the file (not required by the standard). */
static void check_names_file(int err, const char *path)
{
    char s[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (tu_impl != TU_IMPL_AGIO) {
        if (tu_rank == 0)
            tu_skip("error string naming the file is an agio requirement, not the standard's");
        return;
    }
    MPI_Error_string(err, s, &len);
    CHECKF(strstr(s, base) != NULL, "MPI_Error_string does not name the file: \"%s\"", s);
}

static void test_missing_and_exists(void)
{
    char missing[NAMELEN], path[NAMELEN];
    static const int modes[] = {MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR,
                                MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE};
    tu_fresh_path(missing, sizeof missing, "does-not-exist");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        MPI_File fh = MPI_FILE_NULL;
        int err = CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, missing, modes[i], MPI_INFO_NULL, &fh),
                              MPI_ERR_NO_SUCH_FILE);
        CHECK(fh == MPI_FILE_NULL);
        if (i == 0) check_names_file(err, missing);
    }
    /* A missing directory in the path, with CREATE. */
    {
        char p[NAMELEN + 32];
        MPI_File fh = MPI_FILE_NULL;
        snprintf(p, sizeof p, "%s.nodir/f", missing);
        CHECK_CLASS(
            MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
            MPI_ERR_NO_SUCH_FILE);
        CHECK(fh == MPI_FILE_NULL);
    }
    /* CREATE|EXCL on an existing file: FILE_EXISTS, and the file is left alone. */
    tu_fresh_path(path, sizeof path, "exists");
    make_file(path, 123);
    {
        MPI_File fh = MPI_FILE_NULL;
        int err = CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path,
                                            MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                                            MPI_INFO_NULL, &fh),
                              MPI_ERR_FILE_EXISTS);
        CHECK(fh == MPI_FILE_NULL);
        check_names_file(err, path);
        CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path,
                                  MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL,
                                  &fh),
                    MPI_ERR_FILE_EXISTS);
        CHECK(fh == MPI_FILE_NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECKF(tu_posix_size(path) == 123, "failed EXCL open changed the file (size %lld)",
               tu_posix_size(path));
    }
}

static void test_access(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    if (geteuid() == 0) {
        /* root passes every permission check (CAP_DAC_OVERRIDE): nothing to test here. */
        if (tu_rank == 0)
            tu_skip("running as root: MPI_ERR_ACCESS for a mode-000 file not testable");
        return;
    }
    tu_fresh_path(path, sizeof path, "noaccess");
    make_file(path, 10);
    if (tu_rank == 0) chmod(path, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                MPI_ERR_ACCESS);
    CHECK(fh == MPI_FILE_NULL);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                MPI_ERR_ACCESS);
    CHECK(fh == MPI_FILE_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0) chmod(path, 0644);
}

static void test_delete_on_close(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    int v = 42;
    tu_fresh_path(path, sizeof path, "doc");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path,
                            MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &fh));
    CHECK_MPI(
        MPI_File_write_at(fh, tu_rank * (MPI_Offset)sizeof v, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(tu_exists(path)); /* still there while open */
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECKF(!tu_exists(path), "DELETE_ON_CLOSE: %s still exists after close", path);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                MPI_ERR_NO_SUCH_FILE);
}

static void test_append(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Offset pos = -1, size = -1;
    tu_fresh_path(path, sizeof path, "append");
    make_file(path, 1000);
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECKF(pos == 1000, "APPEND: individual pointer at %lld, expected 1000 (EOF)", (long long)pos);
    pos = -1;
    if (tu_agio_defers("issue 5: shared file pointers (MPI_File_get_position_shared)")) {
        CHECK_CLASS(MPI_File_get_position_shared(fh, &pos), MPI_ERR_UNSUPPORTED_OPERATION);
    } else {
        CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
        CHECKF(pos == 1000, "APPEND: shared pointer at %lld, expected 1000 (EOF)", (long long)pos);
    }
    /* A write through the individual pointer goes to EOF (rank 0 only, 8 bytes). */
    if (tu_rank == 0) {
        char b[8] = "appendix";
        CHECK_MPI(MPI_File_write(fh, b, 8, MPI_BYTE, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_File_get_position(fh, &pos));
        CHECKF(pos == 1008, "after append write pointer at %lld, expected 1008", (long long)pos);
    }
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    CHECK_MPI(MPI_File_get_size(fh, &size));
    CHECKF(size == 1008, "size after append write %lld, expected 1008", (long long)size);
    if (tu_rank == tu_size - 1) {
        char b[9] = "";
        CHECK_MPI(MPI_File_read_at(fh, 1000, b, 8, MPI_BYTE, MPI_STATUS_IGNORE));
        CHECK(memcmp(b, "appendix", 8) == 0);
    }
    CHECK_MPI(MPI_File_close(&fh));

    /* set_view resets the individual pointer to 0 (13.3) even under APPEND; SEEK_END then
     * gives the position of EOF in etype units (size / etype size). */
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECKF(pos == 0, "set_view must reset the individual pointer, got %lld", (long long)pos);
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECKF(pos == 1008 / 4, "SEEK_END in MPI_INT view: got %lld, expected %d", (long long)pos,
           1008 / 4);
    CHECK_MPI(MPI_File_close(&fh));
}

static void test_group(void)
{
    char path[NAMELEN];
    MPI_File fh = MPI_FILE_NULL;
    MPI_Group fg = MPI_GROUP_NULL, cg = MPI_GROUP_NULL;
    MPI_Comm half = MPI_COMM_NULL;
    int res = -1, fsize = -1;
    tu_fresh_path(path, sizeof path, "group");
    CHECK_MPI(
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_get_group(fh, &fg));
    MPI_Comm_group(MPI_COMM_WORLD, &cg);
    MPI_Group_compare(fg, cg, &res);
    CHECKF(res == MPI_IDENT, "file group vs MPI_COMM_WORLD group: %d, expected MPI_IDENT", res);
    MPI_Group_free(&fg);
    MPI_Group_free(&cg);
    CHECK_MPI(MPI_File_close(&fh));

    /* A split communicator (reverse order within halves): group must be IDENT to it. */
    MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2, tu_size - tu_rank, &half);
    {
        char p2[NAMELEN];
        if (snprintf(p2, sizeof p2, "%s.half%d", path, tu_rank % 2) >= (int)sizeof p2) p2[0] = 0;
        if (tu_rank < 2) unlink(p2);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_File_open(half, p2, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        CHECK_MPI(MPI_File_get_group(fh, &fg));
        MPI_Comm_group(half, &cg);
        MPI_Group_compare(fg, cg, &res);
        CHECKF(res == MPI_IDENT, "file group vs split comm group: %d, expected MPI_IDENT", res);
        MPI_Group_size(fg, &fsize);
        MPI_Comm_size(half, &res);
        CHECK(fsize == res);
        MPI_Group_free(&fg);
        MPI_Group_free(&cg);
        CHECK_MPI(MPI_File_close(&fh));
    }
    MPI_Comm_free(&half);
}

static void test_delete(void)
{
    char path[NAMELEN], tag[64];
    MPI_File fh = MPI_FILE_NULL;
    snprintf(tag, sizeof tag, "del.r%d", tu_rank);
    tu_path(path, sizeof path, tag);
    unlink(path);
    CHECK_MPI(
        MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_close(&fh));
    CHECK(tu_exists(path));
    CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    CHECK(!tu_exists(path));
    int err = CHECK_CLASS(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    check_names_file(err, path);
}

/* Only rank 0 cannot create the file (its working directory lacks the subdirectory); every
 * rank must see an error of the same class, and nobody may hang. */
static void test_rank0_only_failure(void)
{
    char base[NAMELEN], d0[NAMELEN + 16], d1[NAMELEN + 16], sub[NAMELEN + 32], cwd[PATH_MAX];
    MPI_File fh = MPI_FILE_NULL;
    int err, cls, minmax[2], out[2];
    tu_path(base, sizeof base, "cwd");
    snprintf(d0, sizeof d0, "%s.rank0", base);
    snprintf(d1, sizeof d1, "%s.others", base);
    snprintf(sub, sizeof sub, "%s/sub", d1);
    if (tu_rank == 0) {
        mkdir(d0, 0777);
        mkdir(d1, 0777);
        mkdir(sub, 0777);
        snprintf(sub, sizeof sub, "%s/sub/f", d1);
        unlink(sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    CHECK(chdir(tu_rank == 0 ? d0 : d1) == 0);
    err =
        MPI_File_open(MPI_COMM_WORLD, "sub/f", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    cls = tu_class(err);
    if (tu_rank == 0)
        CHECK_CLASS(err, MPI_ERR_NO_SUCH_FILE);
    else
        CHECK_FAILS(err);
    minmax[0] = -cls;
    minmax[1] = cls;
    MPI_Allreduce(minmax, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECKF(-out[0] == out[1], "ranks got different error classes for one open: %s .. %s",
           tu_class_name(-out[0]), tu_class_name(out[1]));
    /* If this rank got a handle although rank 0 failed, it can not be closed collectively
     * (rank 0 has nothing to close); it is left open on purpose. */
    CHECK(fh == MPI_FILE_NULL);
    if (cwd[0]) CHECK(chdir(cwd) == 0);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "test_open");
    test_valid_amodes();
    test_invalid_amodes();
    test_missing_and_exists();
    test_access();
    test_delete_on_close();
    test_append();
    test_group();
    test_delete();
    test_rank0_only_failure();
    return tu_finish();
}
