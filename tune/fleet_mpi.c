/* The MPI transport of tune/fleet.c (built when CMake finds MPI). Only the main thread of a rank calls MPI
 * (MPI_THREAD_FUNNELED); messages are byte buffers, received whatever their size (probe, then receive). */
#include "fleet.h"
#include <mpi.h>
#include <stdlib.h>

bool fleet_mpi_built(void) { return true; }

vkocc_status fleet_mpi_init(int *rank, int *size) {
  int inited = 0, provided = 0;
  MPI_Initialized(&inited);
  if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI_Init_thread failed");
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return VKOCC_OK;
}

void fleet_mpi_finalize(void) {
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin) MPI_Finalize();
}

void fleet_mpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

vkocc_status fleet_mpi_send(int to, int tag, const void *buf, size_t len) {
  if (len > (size_t)INT32_MAX) return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI: a message of %zu bytes", len);
  if (MPI_Send(buf, (int)len, MPI_BYTE, to, tag, MPI_COMM_WORLD) != MPI_SUCCESS)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI_Send to rank %d failed", to);
  return VKOCC_OK;
}

bool fleet_mpi_poll(int *from, int *tag, void **buf, size_t *len) {
  int flag = 0, n = 0;
  MPI_Status st;
  if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag) return false;
  MPI_Get_count(&st, MPI_BYTE, &n);
  *buf = vkocc_xmalloc((size_t)n + 1);
  MPI_Recv(*buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  *from = st.MPI_SOURCE, *tag = st.MPI_TAG, *len = (size_t)n;
  return true;
}
