/* Internal to libvkocc: tuning one T1 spec on several devices and MPI ranks at once (tune/fleet.c,
 * docs/fleet.md).
 *
 * Devices whose fingerprints share a cluster ID share one search (tune/search.h, ask/tell): a coordinator asks
 * the strategy for a configuration whenever a device of the cluster is free and tells it the result when it
 * arrives, in whatever order. Each device is a worker: a host thread with its own context and its own harness
 * (tu_tune with tu_options.drive), which measures the configurations it is handed, so the seam to the
 * measurement is "measure configuration c on worker w -> tu_result". With MPI every rank's workers report to
 * rank 0, which alone searches, writes the documents and checkpoints. */
#ifndef VKOCC_TUNE_FLEET_H
#define VKOCC_TUNE_FLEET_H
#include "user.h"
#include <stddef.h>

/* The MPI transport (tune/fleet_mpi.c when vkocc is built with MPI; otherwise every call fails or is false). */
bool fleet_mpi_built(void);
/* MPI_Init_thread (funneled) and the communicator's rank and size. */
vkocc_status fleet_mpi_init(int *rank, int *size);
void fleet_mpi_finalize(void);
/* Ends every rank (a coordinator that cannot go on). */
void fleet_mpi_abort(int code);
vkocc_status fleet_mpi_send(int to, int tag, const void *buf, size_t len);
/* A message waiting from any rank: true with *buf (malloc'd, *len bytes), *from and *tag; false when none. */
bool fleet_mpi_poll(int *from, int *tag, void **buf, size_t *len);
#endif
