/*
 * driver_posix.c - the default driver: POSIX calls on a file descriptor.
 *
 * Single transfers only move one system call's worth (the dispatch layer loops); EINTR is
 * reported as a zero-length transfer so that the dispatch loop retries it. errno is captured at
 * the call and mapped to an agio code immediately. Locks are fcntl F_SETLKW (blocking) byte-range
 * locks; layout reports st_blksize as the block size and the statfs magic.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "agio_err.h"
#include "driver.h"

struct posix_file {
    struct agio_dfile head;
};

static int posix_open(const char *path, int flags, unsigned mode, struct agio_dfile **out)
{
    int o = O_CLOEXEC;
    if (flags & AGIO_DRV_RDWR)
        o |= O_RDWR;
    else if (flags & AGIO_DRV_WRONLY)
        o |= O_WRONLY;
    else
        o |= O_RDONLY;
    if (flags & AGIO_DRV_CREATE) o |= O_CREAT;
    if (flags & AGIO_DRV_EXCL) o |= O_EXCL;
    if (flags & AGIO_DRV_DIRECT) o |= O_DIRECT;
    int fd;
    do
        fd = open(path, o, (mode_t)mode);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return agio_err_from_errno(errno);
    struct posix_file *pf = calloc(1, sizeof *pf);
    if (!pf) {
        close(fd);
        return AGIO_ENOMEM;
    }
    pf->head.fd = fd;
    *out = &pf->head;
    return 0;
}

static int posix_close(struct agio_dfile *f)
{
    int rc = close(f->fd) ? agio_err_from_errno(errno) : 0;
    free(f);
    return rc;
}

static int moved(ssize_t n, size_t *done)
{
    if (n >= 0) {
        *done = (size_t)n;
        return 0;
    }
    *done = 0;
    if (errno == EINTR || errno == EAGAIN) return 0; /* the dispatch loop retries */
    return agio_err_from_errno(errno);
}

static int posix_pread(struct agio_dfile *f, void *buf, size_t len, int64_t off, size_t *done)
{
    ssize_t n = pread(f->fd, buf, len, (off_t)off);
    int rc = moved(n, done);
    /* An EINTR read reports 0 bytes, which the dispatch would take for end of file: retry here. */
    while (rc == 0 && n < 0) {
        n = pread(f->fd, buf, len, (off_t)off);
        rc = moved(n, done);
    }
    return rc;
}

static int posix_pwrite(struct agio_dfile *f, const void *buf, size_t len, int64_t off,
                        size_t *done)
{
    return moved(pwrite(f->fd, buf, len, (off_t)off), done);
}

static int posix_preadv(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off,
                        size_t *done)
{
    ssize_t r;
    do
        r = preadv(f->fd, iov, n, (off_t)off);
    while (r < 0 && (errno == EINTR || errno == EAGAIN));
    return moved(r, done);
}

static int posix_pwritev(struct agio_dfile *f, const struct iovec *iov, int n, int64_t off,
                         size_t *done)
{
    return moved(pwritev(f->fd, iov, n, (off_t)off), done);
}

static int posix_sync(struct agio_dfile *f)
{
    return fsync(f->fd) ? agio_err_from_errno(errno) : 0;
}

static int posix_get_size(struct agio_dfile *f, int64_t *size)
{
    struct stat st;
    if (fstat(f->fd, &st)) return agio_err_from_errno(errno);
    *size = (int64_t)st.st_size;
    return 0;
}

static int posix_set_size(struct agio_dfile *f, int64_t size)
{
    int r;
    do
        r = ftruncate(f->fd, (off_t)size);
    while (r && errno == EINTR);
    return r ? agio_err_from_errno(errno) : 0;
}

static int posix_preallocate(struct agio_dfile *f, int64_t size)
{
    int r = posix_fallocate(f->fd, 0, (off_t)size);
    if (r == EOPNOTSUPP || r == EINVAL) return posix_set_size(f, size); /* e.g. some tmpfs */
    return r ? agio_err_from_errno(r) : 0;
}

static int posix_remove(const char *path)
{
    return unlink(path) ? agio_err_from_errno(errno) : 0;
}

static int posix_lock(struct agio_dfile *f, enum agio_lock_kind kind, int64_t off, int64_t len)
{
    struct flock fl = {0};
    fl.l_type = kind == AGIO_LOCK_READ ? F_RDLCK : kind == AGIO_LOCK_WRITE ? F_WRLCK : F_UNLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = (off_t)len;
    int r;
    do
        r = fcntl(f->fd, F_SETLKW, &fl);
    while (r && errno == EINTR);
    if (r == 0) return 0;
    if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS) return AGIO_ENOLCK;
    return agio_err_from_errno(errno);
}

static int posix_layout(struct agio_dfile *f, struct agio_layout *out)
{
    struct stat st;
    struct statfs sf;
    if (fstat(f->fd, &st) == 0) out->block_size = (int64_t)st.st_blksize;
    if (fstatfs(f->fd, &sf) == 0) out->fs_magic = (int64_t)sf.f_type;
    return 0;
}

const struct agio_driver agio_driver_posix = {
    .size = sizeof(struct agio_driver),
    .version = AGIO_DRIVER_VERSION,
    .name = "posix",
    .open = posix_open,
    .close = posix_close,
    .pread = posix_pread,
    .pwrite = posix_pwrite,
    .preadv = posix_preadv,
    .pwritev = posix_pwritev,
    .sync = posix_sync,
    .get_size = posix_get_size,
    .set_size = posix_set_size,
    .preallocate = posix_preallocate,
    .remove = posix_remove,
    .lock = posix_lock,
    .layout = posix_layout,
};
