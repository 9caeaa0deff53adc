/*
 * test_badinput.c - erroneous arguments must give the standard's error class (MPI-3.1 13.7,
 * 8.4 error classes), never a crash or a hang.
 *
 * Table-driven: each row is (description, a function making one call, expected class(es)).
 * Every rank runs every row in the same order, so collective calls stay matched. Rank 0 prints
 * every row's outcome ("got X, expected Y"); other ranks print only rows that fail.
 *
 * Classes where the standard names none, and what is accepted (documented choices):
 *   - set_view with a filetype that is not built from whole etypes, or an etype/filetype with a
 *     negative displacement: 13.3 makes these erroneous without naming a class: MPI_ERR_TYPE,
 *     MPI_ERR_ARG accepted too;
 *   - write on a RDONLY file: MPI_ERR_READ_ONLY ("read-only file or file system") or
 *     MPI_ERR_ACCESS ("permission denied") both fit 13.7: either is accepted;
 *   - negative offsets, negative positions, invalid whence, MPI_DISPLACEMENT_CURRENT on a
 *     non-sequential file: MPI_ERR_ARG;
 *   - individual-pointer and explicit-offset access, or seek, on a MPI_MODE_SEQUENTIAL file
 *     (13.4.5: only shared file pointer routines are allowed): MPI_ERR_UNSUPPORTED_OPERATION;
 *   - a memory type that holds a fraction of an etype: any error class.
 */
#include "testutil.h"

#define NAMELEN 4096
#define ANY_ERROR (-1)

static struct ctx {
    char path[NAMELEN], seqpath[NAMELEN], missing[NAMELEN];
    MPI_File rw, ro, wo, seqw, seqr;
    MPI_Datatype uncommitted, six_bytes, negdisp, negetype;
    char buf[4096];
} C;

typedef int (*row_fn)(void);

struct row {
    const char *desc;
    row_fn fn;
    int c1, c2;        /* expected classes (c2 == c1 if only one); ANY_ERROR = any error */
    const char *hosts; /* host MPIs known to deviate on this row (NULL: none) */
    const char *why;
    const char *hang; /* host MPIs on which the call hangs or crashes: not made there */
    const char *later; /* agio: feature of a later issue; until then agio answers later_cls */
    int later_cls;
};

static int reset_view(MPI_File fh)
{
    return MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
}

/* ---- invalid handle ------------------------------------------------------------------------ */
#define NF MPI_FILE_NULL
static int null_read_at(void)
{
    return MPI_File_read_at(NF, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_write_at(void)
{
    return MPI_File_write_at(NF, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_read(void)
{
    return MPI_File_read(NF, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_write(void)
{
    return MPI_File_write(NF, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_read_all(void)
{
    return MPI_File_read_all(NF, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_write_all(void)
{
    return MPI_File_write_all(NF, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_read_at_all(void)
{
    return MPI_File_read_at_all(NF, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_write_at_all(void)
{
    return MPI_File_write_at_all(NF, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_write_shared(void)
{
    return MPI_File_write_shared(NF, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_read_ordered(void)
{
    return MPI_File_read_ordered(NF, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int null_iwrite_at(void)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int err = MPI_File_iwrite_at(NF, 0, C.buf, 1, MPI_BYTE, &rq);
    if (rq != MPI_REQUEST_NULL) MPI_Wait(&rq, MPI_STATUS_IGNORE);
    return err;
}
static int null_set_view(void)
{
    return MPI_File_set_view(NF, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
}
static int null_get_view(void)
{
    MPI_Offset d;
    MPI_Datatype e, f;
    char rep[MPI_MAX_DATAREP_STRING];
    return MPI_File_get_view(NF, &d, &e, &f, rep);
}
static int null_get_size(void)
{
    MPI_Offset s;
    return MPI_File_get_size(NF, &s);
}
static int null_set_size(void)
{
    return MPI_File_set_size(NF, 10);
}
static int null_preallocate(void)
{
    return MPI_File_preallocate(NF, 10);
}
static int null_sync(void)
{
    return MPI_File_sync(NF);
}
static int null_seek(void)
{
    return MPI_File_seek(NF, 0, MPI_SEEK_SET);
}
static int null_get_position(void)
{
    MPI_Offset p;
    return MPI_File_get_position(NF, &p);
}
static int null_get_byte_offset(void)
{
    MPI_Offset b;
    return MPI_File_get_byte_offset(NF, 0, &b);
}
static int null_get_amode(void)
{
    int a;
    return MPI_File_get_amode(NF, &a);
}
static int null_get_group(void)
{
    MPI_Group g = MPI_GROUP_NULL;
    int err = MPI_File_get_group(NF, &g);
    if (err == MPI_SUCCESS && g != MPI_GROUP_NULL) MPI_Group_free(&g);
    return err;
}
static int null_get_info(void)
{
    MPI_Info i = MPI_INFO_NULL;
    int err = MPI_File_get_info(NF, &i);
    if (err == MPI_SUCCESS && i != MPI_INFO_NULL) MPI_Info_free(&i);
    return err;
}
static int null_set_info(void)
{
    return MPI_File_set_info(NF, MPI_INFO_NULL);
}
static int null_set_atomicity(void)
{
    return MPI_File_set_atomicity(NF, 1);
}
static int null_get_atomicity(void)
{
    int f;
    return MPI_File_get_atomicity(NF, &f);
}
static int null_get_type_extent(void)
{
    MPI_Aint e;
    return MPI_File_get_type_extent(NF, MPI_INT, &e);
}
static int null_close(void)
{
    MPI_File f = MPI_FILE_NULL;
    return MPI_File_close(&f);
}

/* ---- counts and offsets -------------------------------------------------------------------- */
static int neg_count_write_at(void)
{
    return MPI_File_write_at(C.rw, 0, C.buf, -1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_count_read_at(void)
{
    return MPI_File_read_at(C.rw, 0, C.buf, -1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_count_write(void)
{
    return MPI_File_write(C.rw, C.buf, -5, MPI_INT, MPI_STATUS_IGNORE);
}
static int neg_count_read_all(void)
{
    return MPI_File_read_all(C.rw, C.buf, -1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_count_write_at_all(void)
{
    return MPI_File_write_at_all(C.rw, 0, C.buf, -1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_off_write_at(void)
{
    return MPI_File_write_at(C.rw, -1, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_off_read_at(void)
{
    return MPI_File_read_at(C.rw, -4096, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_off_read_at_all(void)
{
    return MPI_File_read_at_all(C.rw, -1, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_off_write_at_all(void)
{
    return MPI_File_write_at_all(C.rw, -1, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int neg_byte_offset(void)
{
    MPI_Offset b;
    return MPI_File_get_byte_offset(C.rw, -1, &b);
}
static int neg_set_size(void)
{
    return MPI_File_set_size(C.rw, -1);
}
static int neg_preallocate(void)
{
    return MPI_File_preallocate(C.rw, -1);
}
static int neg_disp_view(void)
{
    int err = MPI_File_set_view(C.rw, -5, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}

/* ---- datatypes ----------------------------------------------------------------------------- */
static int null_memtype_write_at(void)
{
    return MPI_File_write_at(C.rw, 0, C.buf, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
}
static int null_memtype_read_at(void)
{
    return MPI_File_read_at(C.rw, 0, C.buf, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
}
static int null_memtype_write_all(void)
{
    return MPI_File_write_all(C.rw, C.buf, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE);
}
static int uncommitted_memtype(void)
{
    return MPI_File_write_at(C.rw, 0, C.buf, 1, C.uncommitted, MPI_STATUS_IGNORE);
}
static int view_null_etype(void)
{
    int err = MPI_File_set_view(C.rw, 0, MPI_DATATYPE_NULL, MPI_BYTE, "native", MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}
static int view_null_filetype(void)
{
    int err = MPI_File_set_view(C.rw, 0, MPI_BYTE, MPI_DATATYPE_NULL, "native", MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}
static int view_uncommitted_filetype(void)
{
    int err = MPI_File_set_view(C.rw, 0, MPI_BYTE, C.uncommitted, "native", MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}
static int view_filetype_not_etypes(void)
{
    int err = MPI_File_set_view(C.rw, 0, MPI_INT, C.six_bytes, "native", MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}
static int view_filetype_negdisp(void)
{
    int err = MPI_File_set_view(C.rw, 64, MPI_INT, C.negdisp, "native", MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}
static int view_etype_negdisp(void)
{
    int err = MPI_File_set_view(C.rw, 64, C.negetype, C.negetype, "native", MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}
static int type_extent_null(void)
{
    MPI_Aint e;
    return MPI_File_get_type_extent(C.rw, MPI_DATATYPE_NULL, &e);
}
static int fraction_of_etype(void)
{
    int err;
    MPI_File_set_view(C.rw, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    err = MPI_File_write_at(C.rw, 0, C.buf, 3, MPI_BYTE, MPI_STATUS_IGNORE);
    reset_view(C.rw);
    return err;
}

/* ---- access mode --------------------------------------------------------------------------- */
static int wronly_read_at(void)
{
    return MPI_File_read_at(C.wo, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int wronly_read(void)
{
    return MPI_File_read(C.wo, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int wronly_read_all(void)
{
    return MPI_File_read_all(C.wo, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int rdonly_write_at(void)
{
    return MPI_File_write_at(C.ro, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int rdonly_write(void)
{
    return MPI_File_write(C.ro, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int rdonly_write_at_all(void)
{
    return MPI_File_write_at_all(C.ro, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}

/* ---- seek ---------------------------------------------------------------------------------- */
static int seek_neg_set(void)
{
    return MPI_File_seek(C.rw, -1, MPI_SEEK_SET);
}
static int seek_neg_cur(void)
{
    MPI_File_seek(C.rw, 10, MPI_SEEK_SET);
    return MPI_File_seek(C.rw, -11, MPI_SEEK_CUR);
}
static int seek_neg_end(void)
{
    return MPI_File_seek(C.rw, -1000000, MPI_SEEK_END);
}
static int seek_bad_whence(void)
{
    return MPI_File_seek(C.rw, 0, 12345);
}

/* ---- sequential files ---------------------------------------------------------------------- */
static int seq_write_at(void)
{
    return MPI_File_write_at(C.seqw, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int seq_write(void)
{
    return MPI_File_write(C.seqw, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int seq_write_at_all(void)
{
    return MPI_File_write_at_all(C.seqw, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int seq_read_at(void)
{
    return MPI_File_read_at(C.seqr, 0, C.buf, 1, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int seq_seek(void)
{
    return MPI_File_seek(C.seqr, 0, MPI_SEEK_SET);
}
static int seq_view_current(void)
{
    return MPI_File_set_view(C.seqw, MPI_DISPLACEMENT_CURRENT, MPI_BYTE, MPI_BYTE, "native",
                             MPI_INFO_NULL);
}
static int nonseq_view_current(void)
{
    int err = MPI_File_set_view(C.rw, MPI_DISPLACEMENT_CURRENT, MPI_BYTE, MPI_BYTE, "native",
                                MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}

/* ---- open ---------------------------------------------------------------------------------- */
static int open_mode(int amode, const char *path, MPI_Comm comm)
{
    MPI_File f = MPI_FILE_NULL;
    int err = MPI_File_open(comm, path, amode, MPI_INFO_NULL, &f);
    if (err == MPI_SUCCESS && f != MPI_FILE_NULL && comm != MPI_COMM_NULL) MPI_File_close(&f);
    return err;
}
static int open_amode0(void)
{
    return open_mode(0, C.path, MPI_COMM_WORLD);
}
static int open_ro_create(void)
{
    return open_mode(MPI_MODE_RDONLY | MPI_MODE_CREATE, C.path, MPI_COMM_WORLD);
}
static int open_rdwr_seq(void)
{
    return open_mode(MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, C.path, MPI_COMM_WORLD);
}
static int open_two_modes(void)
{
    return open_mode(MPI_MODE_RDONLY | MPI_MODE_WRONLY, C.path, MPI_COMM_WORLD);
}
static int open_comm_null(void)
{
    return open_mode(MPI_MODE_RDONLY, C.path, MPI_COMM_NULL);
}
static int open_missing(void)
{
    return open_mode(MPI_MODE_RDONLY, C.missing, MPI_COMM_WORLD);
}
static int delete_missing(void)
{
    return MPI_File_delete(C.missing, MPI_INFO_NULL);
}

/* ---- datarep ------------------------------------------------------------------------------- */
static int view_datarep(const char *rep)
{
    int err = MPI_File_set_view(C.rw, 0, MPI_BYTE, MPI_BYTE, rep, MPI_INFO_NULL);
    reset_view(C.rw);
    return err;
}
static int datarep_nonsense(void)
{
    return view_datarep("no-such-representation");
}
static int datarep_empty(void)
{
    return view_datarep("");
}
static int datarep_native(void)
{
    return view_datarep("native");
}
static int datarep_internal(void)
{
    return view_datarep("internal");
}
static int datarep_external32(void)
{
    return view_datarep("external32");
}

/* ---- errhandler ---------------------------------------------------------------------------- */
static int set_errhandler_null(void)
{
    return MPI_File_set_errhandler(C.rw, MPI_ERRHANDLER_NULL);
}

/* ---- valid corner cases that must succeed --------------------------------------------------- */
static int ok_count0_null_buf(void)
{
    return MPI_File_write_at(C.rw, 0, NULL, 0, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int ok_read_beyond_eof(void)
{
    return MPI_File_read_at(C.rw, 1 << 30, C.buf, 8, MPI_BYTE, MPI_STATUS_IGNORE);
}
static int ok_seek_beyond_eof(void)
{
    int err = MPI_File_seek(C.rw, (MPI_Offset)1 << 40, MPI_SEEK_SET);
    MPI_File_seek(C.rw, 0, MPI_SEEK_SET);
    return err;
}
static int ok_unknown_hint(void)
{
    MPI_Info in;
    int err;
    MPI_Info_create(&in);
    /* MPI-3.1 9: an unrecognized key is ignored. (A recognized key with a malformed value has
     * an undefined result, so that is not tested.) */
    MPI_Info_set(in, "agio_no_such_hint", "whatever");
    err = MPI_File_set_info(C.rw, in);
    MPI_Info_free(&in);
    return err;
}

#define ROW(d, f, c)                                                                               \
    {                                                                                              \
        d, f, c, c, NULL, NULL, NULL                                                               \
    }
#define ROW2(d, f, c1, c2)                                                                         \
    {                                                                                              \
        d, f, c1, c2, NULL, NULL, NULL                                                             \
    }
/* a row on which the named host MPIs deviate from the standard (see the table of host deviations
 * below); DEV2 with two accepted classes, HANG: the call is not made on those hosts */
#define DEV(d, f, c, h, w)                                                                         \
    {                                                                                              \
        d, f, c, c, h, w, NULL                                                                     \
    }
#define DEV2(d, f, c1, c2, h, w)                                                                   \
    {                                                                                              \
        d, f, c1, c2, h, w, NULL                                                                   \
    }
/* a row whose feature agio implements in a later issue (tu_agio_defers) */
#define LATER(d, f, c, lc, why)                                                                    \
    {                                                                                              \
        d, f, c, c, NULL, NULL, NULL, why, lc                                                      \
    }
#define HANG(d, f, c, h, w)                                                                        \
    {                                                                                              \
        d, f, c, c, h, w, h                                                                        \
    }

/* Host deviations (Open MPI 4.1.4 with OMPIO = "ompio" or ROMIO 3.2.1 = "romio321"; MPICH 4.0.2):
 *   get_info(MPI_FILE_NULL): Open MPI MPI_ERR_COMM;
 *   get_view/get_position/get_byte_offset/get_atomicity(MPI_FILE_NULL): MPICH returns success,
 *     sync(MPI_FILE_NULL) MPI_ERR_ARG; set_view with MPI_DATATYPE_NULL: MPICH MPI_ERR_ARG;
 *   OMPIO accepts negative offsets (read_at_all/write_at_all with -1 hang at 3+ ranks), negative
 *     set_view displacements, preallocate(-1), a write of a fraction of an etype, every access
 *     on SEQUENTIAL files; returns MPI_ERR_OTHER for set_size(-1) and seeks to negative
 *     positions; rejects the "internal" data representation; an unnamed class for
 *     MPI_DISPLACEMENT_CURRENT on a normal file; at 3+ ranks read_all on a WRONLY file and
 *     write_at_all on a RDONLY file succeed;
 *   ROMIO (both MPIs) accepts get_byte_offset(-1) and filetypes/etypes with negative
 *     displacements (OMPIO rejects them with MPI_ERR_IO, which is accepted). */
#define OMPIO_NEG "OMPIO accepts negative offsets"
#define OMPIO_SEQ "OMPIO does not enforce MPI_MODE_SEQUENTIAL"
#define MPICH_NULL "MPICH does not validate MPI_FILE_NULL here"

static const struct row rows[] = {
    ROW("read_at on MPI_FILE_NULL", null_read_at, MPI_ERR_FILE),
    ROW("write_at on MPI_FILE_NULL", null_write_at, MPI_ERR_FILE),
    ROW("read on MPI_FILE_NULL", null_read, MPI_ERR_FILE),
    ROW("write on MPI_FILE_NULL", null_write, MPI_ERR_FILE),
    ROW("read_all on MPI_FILE_NULL", null_read_all, MPI_ERR_FILE),
    ROW("write_all on MPI_FILE_NULL", null_write_all, MPI_ERR_FILE),
    ROW("read_at_all on MPI_FILE_NULL", null_read_at_all, MPI_ERR_FILE),
    ROW("write_at_all on MPI_FILE_NULL", null_write_at_all, MPI_ERR_FILE),
    ROW("write_shared on MPI_FILE_NULL", null_write_shared, MPI_ERR_FILE),
    ROW("read_ordered on MPI_FILE_NULL", null_read_ordered, MPI_ERR_FILE),
    ROW("iwrite_at on MPI_FILE_NULL", null_iwrite_at, MPI_ERR_FILE),
    ROW("set_view on MPI_FILE_NULL", null_set_view, MPI_ERR_FILE),
    DEV("get_view on MPI_FILE_NULL", null_get_view, MPI_ERR_FILE, "mpich", MPICH_NULL),
    ROW("get_size on MPI_FILE_NULL", null_get_size, MPI_ERR_FILE),
    ROW("set_size on MPI_FILE_NULL", null_set_size, MPI_ERR_FILE),
    ROW("preallocate on MPI_FILE_NULL", null_preallocate, MPI_ERR_FILE),
    DEV("sync on MPI_FILE_NULL", null_sync, MPI_ERR_FILE, "mpich", MPICH_NULL),
    ROW("seek on MPI_FILE_NULL", null_seek, MPI_ERR_FILE),
    DEV("get_position on MPI_FILE_NULL", null_get_position, MPI_ERR_FILE, "mpich", MPICH_NULL),
    DEV("get_byte_offset on MPI_FILE_NULL", null_get_byte_offset, MPI_ERR_FILE, "mpich",
        MPICH_NULL),
    ROW("get_amode on MPI_FILE_NULL", null_get_amode, MPI_ERR_FILE),
    ROW("get_group on MPI_FILE_NULL", null_get_group, MPI_ERR_FILE),
    DEV("get_info on MPI_FILE_NULL", null_get_info, MPI_ERR_FILE, "openmpi",
        "Open MPI returns MPI_ERR_COMM"),
    ROW("set_info on MPI_FILE_NULL", null_set_info, MPI_ERR_FILE),
    ROW("set_atomicity on MPI_FILE_NULL", null_set_atomicity, MPI_ERR_FILE),
    DEV("get_atomicity on MPI_FILE_NULL", null_get_atomicity, MPI_ERR_FILE, "mpich", MPICH_NULL),
    ROW("get_type_extent on MPI_FILE_NULL", null_get_type_extent, MPI_ERR_FILE),
    ROW("close of MPI_FILE_NULL", null_close, MPI_ERR_FILE),
    ROW("write_at count -1", neg_count_write_at, MPI_ERR_COUNT),
    ROW("read_at count -1", neg_count_read_at, MPI_ERR_COUNT),
    ROW("write count -5", neg_count_write, MPI_ERR_COUNT),
    ROW("read_all count -1", neg_count_read_all, MPI_ERR_COUNT),
    ROW("write_at_all count -1", neg_count_write_at_all, MPI_ERR_COUNT),
    DEV("write_at offset -1", neg_off_write_at, MPI_ERR_ARG, "ompio", OMPIO_NEG),
    DEV("read_at offset -4096", neg_off_read_at, MPI_ERR_ARG, "ompio", OMPIO_NEG),
    HANG("read_at_all offset -1", neg_off_read_at_all, MPI_ERR_ARG, "ompio", OMPIO_NEG),
    HANG("write_at_all offset -1", neg_off_write_at_all, MPI_ERR_ARG, "ompio", OMPIO_NEG),
    DEV("get_byte_offset offset -1", neg_byte_offset, MPI_ERR_ARG, "romio",
        "ROMIO accepts a negative offset"),
    DEV("set_size -1", neg_set_size, MPI_ERR_ARG, "ompio", "OMPIO returns MPI_ERR_OTHER"),
    DEV("preallocate -1", neg_preallocate, MPI_ERR_ARG, "ompio", "OMPIO accepts it"),
    DEV("set_view disp -5", neg_disp_view, MPI_ERR_ARG, "ompio", "OMPIO accepts it"),
    ROW("write_at memtype MPI_DATATYPE_NULL", null_memtype_write_at, MPI_ERR_TYPE),
    ROW("read_at memtype MPI_DATATYPE_NULL", null_memtype_read_at, MPI_ERR_TYPE),
    ROW("write_all memtype MPI_DATATYPE_NULL", null_memtype_write_all, MPI_ERR_TYPE),
    ROW("write_at uncommitted memtype", uncommitted_memtype, MPI_ERR_TYPE),
    DEV("set_view etype MPI_DATATYPE_NULL", view_null_etype, MPI_ERR_TYPE, "mpich",
        "MPICH returns MPI_ERR_ARG"),
    DEV("set_view filetype MPI_DATATYPE_NULL", view_null_filetype, MPI_ERR_TYPE, "mpich",
        "MPICH returns MPI_ERR_ARG"),
    ROW("set_view uncommitted filetype", view_uncommitted_filetype, MPI_ERR_TYPE),
    ROW2("set_view filetype of 6 bytes, etype int", view_filetype_not_etypes, MPI_ERR_TYPE,
         MPI_ERR_ARG),
    DEV("set_view filetype with displacement -8", view_filetype_negdisp, ANY_ERROR, "romio",
        "ROMIO accepts it"),
    DEV("set_view etype with displacement -4", view_etype_negdisp, ANY_ERROR, "romio",
        "ROMIO accepts it"),
    ROW("get_type_extent MPI_DATATYPE_NULL", type_extent_null, MPI_ERR_TYPE),
    DEV("write of 3 bytes in an MPI_INT view", fraction_of_etype, ANY_ERROR, "ompio",
        "OMPIO accepts it"),
    ROW("read_at on a WRONLY file", wronly_read_at, MPI_ERR_ACCESS),
    ROW("read on a WRONLY file", wronly_read, MPI_ERR_ACCESS),
    DEV("read_all on a WRONLY file", wronly_read_all, MPI_ERR_ACCESS, "ompio",
        "OMPIO collective access ignores the amode at 3+ ranks"),
    ROW2("write_at on a RDONLY file", rdonly_write_at, MPI_ERR_READ_ONLY, MPI_ERR_ACCESS),
    ROW2("write on a RDONLY file", rdonly_write, MPI_ERR_READ_ONLY, MPI_ERR_ACCESS),
    DEV2("write_at_all on a RDONLY file", rdonly_write_at_all, MPI_ERR_READ_ONLY, MPI_ERR_ACCESS,
         "ompio", "OMPIO collective access ignores the amode at 3+ ranks"),
    DEV("seek(-1, SEEK_SET)", seek_neg_set, MPI_ERR_ARG, "ompio", "OMPIO: MPI_ERR_OTHER"),
    DEV("seek(-11, SEEK_CUR) at 10", seek_neg_cur, MPI_ERR_ARG, "ompio", "OMPIO: MPI_ERR_OTHER"),
    DEV("seek(-1000000, SEEK_END)", seek_neg_end, MPI_ERR_ARG, "ompio", "OMPIO: MPI_ERR_OTHER"),
    ROW("seek whence 12345", seek_bad_whence, MPI_ERR_ARG),
    DEV("write_at on a SEQUENTIAL file", seq_write_at, MPI_ERR_UNSUPPORTED_OPERATION, "ompio",
        OMPIO_SEQ),
    DEV("write (individual pointer) on a SEQUENTIAL file", seq_write, MPI_ERR_UNSUPPORTED_OPERATION,
        "ompio", OMPIO_SEQ),
    DEV("write_at_all on a SEQUENTIAL file", seq_write_at_all, MPI_ERR_UNSUPPORTED_OPERATION,
        "ompio", OMPIO_SEQ),
    DEV("read_at on a SEQUENTIAL file", seq_read_at, MPI_ERR_UNSUPPORTED_OPERATION, "ompio",
        OMPIO_SEQ),
    DEV("seek on a SEQUENTIAL file", seq_seek, MPI_ERR_UNSUPPORTED_OPERATION, "ompio", OMPIO_SEQ),
    LATER("set_view MPI_DISPLACEMENT_CURRENT on a SEQUENTIAL file", seq_view_current, MPI_SUCCESS,
          MPI_ERR_UNSUPPORTED_OPERATION, "issue 5: shared file pointers (MPI_DISPLACEMENT_CURRENT)"),
    DEV("set_view MPI_DISPLACEMENT_CURRENT on a normal file", nonseq_view_current, MPI_ERR_ARG,
        "ompio", "OMPIO returns a code outside the standard classes"),
    ROW("open amode 0", open_amode0, MPI_ERR_AMODE),
    ROW("open RDONLY|CREATE", open_ro_create, MPI_ERR_AMODE),
    ROW("open RDWR|SEQUENTIAL", open_rdwr_seq, MPI_ERR_AMODE),
    ROW("open RDONLY|WRONLY", open_two_modes, MPI_ERR_AMODE),
    ROW("open on MPI_COMM_NULL", open_comm_null, MPI_ERR_COMM),
    ROW("open of a missing file", open_missing, MPI_ERR_NO_SUCH_FILE),
    ROW("delete of a missing file", delete_missing, MPI_ERR_NO_SUCH_FILE),
    ROW("set_view datarep \"no-such-representation\"", datarep_nonsense,
        MPI_ERR_UNSUPPORTED_DATAREP),
    ROW("set_view datarep \"\"", datarep_empty, MPI_ERR_UNSUPPORTED_DATAREP),
    ROW("set_view datarep \"native\"", datarep_native, MPI_SUCCESS),
    DEV("set_view datarep \"internal\"", datarep_internal, MPI_SUCCESS, "ompio",
        "OMPIO does not support \"internal\""),
    LATER("set_view datarep \"external32\"", datarep_external32, MPI_SUCCESS,
          MPI_ERR_UNSUPPORTED_DATAREP, "issue 5: data representation external32"),
    ROW("set_errhandler MPI_ERRHANDLER_NULL", set_errhandler_null, MPI_ERR_ARG),
    ROW("write_at count 0 with a NULL buffer", ok_count0_null_buf, MPI_SUCCESS),
    ROW("read_at at 1 GiB, beyond EOF", ok_read_beyond_eof, MPI_SUCCESS),
    ROW("seek to 2^40, beyond EOF", ok_seek_beyond_eof, MPI_SUCCESS),
    ROW("set_info with an unknown key", ok_unknown_hint, MPI_SUCCESS),
};

static void setup(void)
{
    int bl = 1;
    MPI_Aint neg = -8, nege = -4;
    tu_fresh_path(C.path, sizeof C.path, "file");
    tu_fresh_path(C.seqpath, sizeof C.seqpath, "seq");
    tu_fresh_path(C.missing, sizeof C.missing, "missing");
    memset(C.buf, 'x', sizeof C.buf);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, C.path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &C.rw));
    if (tu_rank == 0) CHECK_MPI(MPI_File_write_at(C.rw, 0, C.buf, 64, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(C.rw));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, C.path, MPI_MODE_RDONLY, MPI_INFO_NULL, &C.ro));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, C.path, MPI_MODE_WRONLY, MPI_INFO_NULL, &C.wo));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, C.seqpath,
                            MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                            &C.seqw));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, C.seqpath, MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL,
                            MPI_INFO_NULL, &C.seqr));
    MPI_Type_contiguous(2, MPI_INT, &C.uncommitted); /* never committed */
    MPI_Type_contiguous(6, MPI_BYTE, &C.six_bytes);
    MPI_Type_commit(&C.six_bytes);
    MPI_Type_create_hindexed(1, &bl, &neg, MPI_INT, &C.negdisp);
    MPI_Type_commit(&C.negdisp);
    MPI_Type_create_hindexed(1, &bl, &nege, MPI_INT, &C.negetype);
    MPI_Type_commit(&C.negetype);
}

static void teardown(void)
{
    CHECK_MPI(MPI_File_close(&C.rw));
    CHECK_MPI(MPI_File_close(&C.ro));
    CHECK_MPI(MPI_File_close(&C.wo));
    CHECK_MPI(MPI_File_close(&C.seqw));
    CHECK_MPI(MPI_File_close(&C.seqr));
    MPI_Type_free(&C.uncommitted);
    MPI_Type_free(&C.six_bytes);
    MPI_Type_free(&C.negdisp);
    MPI_Type_free(&C.negetype);
}

static const char *expected_text(const struct row *r, char *buf, size_t n)
{
    if (r->c1 == ANY_ERROR)
        snprintf(buf, n, "any error");
    else if (r->c1 == r->c2)
        snprintf(buf, n, "%s", tu_class_name(r->c1));
    else
        snprintf(buf, n, "%s or %s", tu_class_name(r->c1), tu_class_name(r->c2));
    return buf;
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "test_badinput");
    setup();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct row *r = &rows[i];
        char exp[128], got[MPI_MAX_ERROR_STRING + 128];
        if (r->hang && TU_HOST_CRASHES(r->hang, r->why)) continue;
        int err = r->fn();
        int cls = tu_class(err);
        int ok = r->c1 == ANY_ERROR ? err != MPI_SUCCESS : (cls == r->c1 || cls == r->c2);
        if (r->later && tu_agio_defers(r->later)) ok = cls == r->later_cls;
        expected_text(r, exp, sizeof exp);
        if (r->hosts) tu_expect_host_deviation(r->hosts, r->why);
        if (tu_rank == 0 || !ok)
            printf("[rank %d] row %2zu: %-52s got %s, expected %s -> %s\n", tu_rank, i, r->desc,
                   tu_class_name(cls), exp, ok ? "ok" : "WRONG");
        tu_report(ok, __FILE__, __LINE__, r->desc, "got %s, expected %s",
                  tu_describe(err, got, sizeof got), exp);
        tu_end_host_deviation();
        fflush(stdout);
    }
    teardown();
    return tu_finish();
}
