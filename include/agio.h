/*
 * agio.h - agio's own API, beside the standard MPI_File_* functions that libagio exports.
 *
 * Link: -lagio-openmpi or -lagio-mpich ahead of the MPI library (pkg-config agio-<flavor>), or
 * preload libagio-<flavor>.so into an unmodified program.
 */
#ifndef AGIO_H
#define AGIO_H

#ifdef __cplusplus
extern "C" {
#endif

#define AGIO_VERSION_MAJOR 0
#define AGIO_VERSION_MINOR 1
#define AGIO_VERSION_PATCH 0

/* "agio 0.1.0 (openmpi)": the version and the MPI this build of libagio is for. */
const char *agio_version(void);

#ifdef __cplusplus
}
#endif
#endif
