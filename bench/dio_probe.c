/*
 * dio_probe.c - O_DIRECT versus buffered writes with fsync on one file system, one process.
 *
 * usage: dio_probe FILE DIRECT(0|1) CHUNK_BYTES PREALLOCATE(0|1)
 * Writes 512 MiB in CHUNK_BYTES pieces (4 KiB-aligned buffer), then fsync; prints the write
 * time, the fsync time and the overall MiB/s. The file is removed afterwards.
 * Build: cc -O2 bench/dio_probe.c -o dio_probe    (figures in bench/RESULTS.md)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: dio_probe FILE DIRECT(0|1) CHUNK_BYTES PREALLOCATE(0|1)\n");
        return 2;
    }
    int direct = atoi(argv[2]), prealloc = atoi(argv[4]);
    long total = 512L << 20, chunk = atol(argv[3]);
    char *buf = NULL;
    if (chunk <= 0 || chunk % 4096 || posix_memalign((void **)&buf, 4096, (size_t)chunk)) {
        fprintf(stderr, "dio_probe: CHUNK_BYTES must be a positive multiple of 4096\n");
        return 2;
    }
    memset(buf, 7, (size_t)chunk);
    unlink(argv[1]);
    int fd = open(argv[1], O_CREAT | O_WRONLY | (direct ? O_DIRECT : 0), 0644);
    if (fd < 0) {
        perror("dio_probe: open");
        return 1;
    }
    if (prealloc) posix_fallocate(fd, 0, total);
    double t0 = now();
    for (long off = 0; off < total; off += chunk)
        if (pwrite(fd, buf, (size_t)chunk, off) != chunk) {
            perror("dio_probe: pwrite");
            return 1;
        }
    double t1 = now();
    fsync(fd);
    double t2 = now();
    printf("direct=%d chunk=%ld prealloc=%d write %.3fs fsync %.3fs total %.0f MiB/s\n", direct,
           chunk, prealloc, t1 - t0, t2 - t1, 512 / (t2 - t0));
    close(fd);
    unlink(argv[1]);
    free(buf);
    return 0;
}
