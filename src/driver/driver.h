/*
 * driver.h - storage back-ends behind one operation table (ROMIO ADIO / HDF5 VFD lesson).
 *
 * A driver fills only the slots that differ from the generic default; a NULL slot means
 * "generic". The dispatch functions agio_drv_* below are the only callers of driver slots: they
 * supply the generic fallbacks (vector I/O as a loop of single calls), chunk transfers below
 * AGIO_DRV_MAX_XFER, retry short transfers and EINTR, capture errno into agio codes, and count
 * everything in the file's stats (the stats boundary is here, not in each driver).
 *
 * Drivers never see MPI and never implement collective algorithms: they answer layout queries
 * (stripe size/count, block size) that the partition strategies consume.
 */
#ifndef AGIO_DRIVER_H
#define AGIO_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct agio_stats;

/* Linux transfers at most 0x7ffff000 bytes per read/write call (ompi#2399). */
#define AGIO_DRV_MAX_XFER ((size_t)0x7ffff000)

/* Open flags the drivers understand (translated to O_* by each driver). */
enum {
    AGIO_DRV_RDONLY = 1,
    AGIO_DRV_WRONLY = 2,
    AGIO_DRV_RDWR = 4,
    AGIO_DRV_CREATE = 8,
    AGIO_DRV_EXCL = 16,
    AGIO_DRV_DIRECT = 32,
};

/* File-system layout the partition strategies align to. 0 means unknown. */
struct agio_layout {
    int64_t stripe_size;
    int64_t stripe_count;
    int64_t block_size;
    int64_t fs_magic; /* statfs f_type */
};

/* Lock kinds for the byte-range lock slot. */
enum agio_lock_kind { AGIO_LOCK_READ, AGIO_LOCK_WRITE, AGIO_LOCK_UNLOCK };

struct agio_dfile; /* an open file of some driver */

struct agio_driver {
    size_t size; /* sizeof(struct agio_driver), for appending slots safely */
    int version; /* AGIO_DRIVER_VERSION */
    const char *name;
    /* Open path; *out receives the driver's handle. mode is the creation mode (before umask). */
    int (*open)(const char *path, int flags, unsigned mode, struct agio_dfile **out);
    int (*close)(struct agio_dfile *f);
    /* One transfer of at most AGIO_DRV_MAX_XFER bytes; *done gets the bytes moved (may be short;
     * 0 at end of file for reads). Errors are agio codes. */
    int (*pread)(struct agio_dfile *f, void *buf, size_t len, int64_t off, size_t *done);
    int (*pwrite)(struct agio_dfile *f, const void *buf, size_t len, int64_t off, size_t *done);
    /* Optional vector forms: one contiguous file range from several memory pieces. */
    int (*preadv)(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off, size_t *done);
    int (*pwritev)(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off,
                   size_t *done);
    int (*sync)(struct agio_dfile *f);
    int (*get_size)(struct agio_dfile *f, int64_t *size);
    int (*set_size)(struct agio_dfile *f, int64_t size);
    int (*preallocate)(struct agio_dfile *f, int64_t size);
    int (*remove)(const char *path);
    /* Blocking byte-range lock; len 0 means "to end of file". AGIO_ENOLCK if unsupported. */
    int (*lock)(struct agio_dfile *f, enum agio_lock_kind kind, int64_t off, int64_t len);
    int (*layout)(struct agio_dfile *f, struct agio_layout *out);
};

#define AGIO_DRIVER_VERSION 1

/* Common head of every driver's file struct; drivers embed it first. */
struct agio_dfile {
    const struct agio_driver *drv;
    struct agio_stats *stats; /* set by the owner after open; may be NULL */
    int fd;                   /* POSIX descriptor when the driver has one, else -1 */
    int trace_rank;           /* AGIO_STATS=2: one line per system call ... */
    const char *trace_name;   /* ... naming this file (NULL: no trace) */
};

/* Pick the driver for a file name. A known "prefix:" (ufs:, posix:) selects explicitly and is
 * stripped: *path_out points into name. Unknown prefixes are part of the path. */
const struct agio_driver *agio_drv_select(const char *name, const char **path_out);

/* Find a driver by name ("posix"); NULL if none. */
const struct agio_driver *agio_drv_find(const char *name);

extern const struct agio_driver agio_driver_posix;

/* ---- Dispatch: the only callers of driver slots ---- */

int agio_drv_open(const struct agio_driver *drv, const char *path, int flags, unsigned mode,
                  struct agio_stats *stats, struct agio_dfile **out);
int agio_drv_close(struct agio_dfile *f);

/* Move exactly len bytes unless end of file (reads) or an error stops it; *done = bytes moved.
 * Chunks below AGIO_DRV_MAX_XFER, loops on short transfers and EINTR. */
int agio_drv_pread(struct agio_dfile *f, void *buf, size_t len, int64_t off, size_t *done);
int agio_drv_pwrite(struct agio_dfile *f, const void *buf, size_t len, int64_t off, size_t *done);

/* Vector transfer of one contiguous file range [off, off + sum(iov)) (any n; batched by
 * IOV_MAX and AGIO_DRV_MAX_XFER). Same completion rules as above. */
int agio_drv_preadv(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off,
                    size_t *done);
int agio_drv_pwritev(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off,
                     size_t *done);

int agio_drv_sync(struct agio_dfile *f);
int agio_drv_get_size(struct agio_dfile *f, int64_t *size);
int agio_drv_set_size(struct agio_dfile *f, int64_t size);
int agio_drv_preallocate(struct agio_dfile *f, int64_t size);
int agio_drv_remove(const struct agio_driver *drv, const char *path);
int agio_drv_lock(struct agio_dfile *f, enum agio_lock_kind kind, int64_t off, int64_t len);
int agio_drv_layout(struct agio_dfile *f, struct agio_layout *out);

#endif
