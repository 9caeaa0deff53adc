/*
 * datatype_mpi.h - decoding of MPI datatypes into agio_dt (dt_decode_mpi.c).
 *
 * Decoding walks MPI_Type_get_envelope / MPI_Type_get_contents (never an implementation-private
 * flattening call), so it works over any MPI. The result is cached on the MPI datatype with an
 * attribute (keyval created on first use, copy callback shares the reference on MPI_Type_dup,
 * delete callback releases it), so set_view and every read/write of the same type decode once.
 */
#ifndef AGIO_DATATYPE_MPI_H
#define AGIO_DATATYPE_MPI_H

#include <mpi.h>

#include "datatype.h"

/* A new reference to the decoded form of t. Returns 0, AGIO_ETYPE for MPI_DATATYPE_NULL or a
 * type MPI rejects, AGIO_ENOMEM. Safe to call from several threads. */
int agio_dt_from_mpi(MPI_Datatype t, agio_dt **out);

/* Free the attribute keyval (at MPI_Finalize time). */
void agio_dt_mpi_finalize(void);

#endif
