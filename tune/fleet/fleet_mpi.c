/* The MPI transport of the fleet (tune/fleet/ranks.c speaks over it), where CMake found MPI (VKOCC_HAVE_MPI);
 * without it every call fails or is false. Only the main thread of a rank calls MPI (MPI_THREAD_FUNNELED); messages
 * are byte buffers, received whatever their size (probe, then receive). */
#include "fleet.h"
#ifdef VKOCC_HAVE_MPI
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool fleet_mpi_built(void) { return true; }

vkocc_status fleet_mpi_init(int *rank, int *size) {
  int inited = 0, provided = 0;
  MPI_Initialized(&inited);
  if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI_Init_thread failed");
  /* a send to a rank that died returns an error instead of ending this one (the coordinator gives the rank up) */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return VKOCC_OK;
}

/* what the watch of a bounded MPI_Finalize knows: on fleet_mpi_finalize's stack, which outlives the watch (joined, or
 * the process ends) */
typedef struct finalizing {
  atomic_bool done;
  double limit_ms;
  int code;
  void (*note)(void *user, const char *line);
  void *user;
} finalizing;

static void *finalize_watch(void *arg) {
  finalizing *fz = arg;
  double end = vkocc_now_ms() + fz->limit_ms;
  while (!atomic_load(&fz->done) && vkocc_now_ms() < end) {
    struct timespec ts = {0, 50000000};
    nanosleep(&ts, NULL);
  }
  if (atomic_load(&fz->done)) return NULL;
  /* everything is written by now; what is left is the runtime's goodbye to a rank that will not answer */
  tu_note_to(fz->note, fz->user, "vkocc: MPI_Finalize did not return in %.0f s (a rank is gone?): leaving without it",
             fz->limit_ms / 1e3);
  fflush(NULL);
  _exit(fz->code);
}

/* Open MPI 4.1's MPI_Finalize is a fence with every rank, a lost one included: in mpirun's recovery mode it waits
 * for good. So it is left out once a rank is known lost, and bounded otherwise. */
void fleet_mpi_finalize(bool lost, double limit_ms, int code, void (*note)(void *user, const char *line), void *user) {
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin || lost) return;
  finalizing fz = {.limit_ms = limit_ms > 10000 ? limit_ms : 10000, .code = code, .note = note, .user = user};
  atomic_store(&fz.done, false);
  pthread_t t;
  bool watched = !pthread_create(&t, NULL, finalize_watch, &fz);
  MPI_Finalize();
  atomic_store(&fz.done, true);
  if (watched) pthread_join(t, NULL);
}

void fleet_mpi_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

vkocc_status fleet_mpi_send(int to, int tag, const void *buf, size_t len, double limit_ms) {
  if (len > (size_t)INT32_MAX) return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI: a message of %zu bytes", len);
  /* not MPI_Send: a send to a rank that died blocks for good once its queue is full. The copy outlives a send
   * given up on (the request may still read it). */
  void *copy = util_xmalloc(len + 1);
  memcpy(copy, buf, len);
  MPI_Request req;
  if (MPI_Isend(copy, (int)len, MPI_BYTE, to, tag, MPI_COMM_WORLD, &req) != MPI_SUCCESS) {
    free(copy);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI_Isend to rank %d failed", to);
  }
  double end = vkocc_now_ms() + limit_ms;
  for (;;) {
    int done = 0;
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI: a send to rank %d failed", to);
    if (done) break;
    if (vkocc_now_ms() > end)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "MPI: rank %d took no message for %.0f s", to, limit_ms / 1e3);
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
  free(copy);
  return VKOCC_OK;
}

bool fleet_mpi_poll(int *from, int *tag, void **buf, size_t *len) {
  int flag = 0, n = 0;
  MPI_Status st;
  if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag) return false;
  MPI_Get_count(&st, MPI_BYTE, &n);
  *buf = util_xmalloc((size_t)n + 1);
  MPI_Recv(*buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  *from = st.MPI_SOURCE, *tag = st.MPI_TAG, *len = (size_t)n;
  return true;
}
#else /* built without MPI: every call fails or is false */
#include <stdlib.h>

bool fleet_mpi_built(void) { return false; }
vkocc_status fleet_mpi_init(int *rank, int *size) {
  *rank = 0, *size = 1;
  return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "this vkocc was built without MPI (libopenmpi-dev when it was configured)");
}
void fleet_mpi_finalize(bool lost, double limit_ms, int code, void (*note)(void *user, const char *line), void *user) {
  (void)lost, (void)limit_ms, (void)code, (void)note, (void)user;
}
void fleet_mpi_abort(int code) { exit(code); }
vkocc_status fleet_mpi_send(int to, int tag, const void *buf, size_t len, double limit_ms) {
  (void)to, (void)tag, (void)buf, (void)len, (void)limit_ms;
  return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "this vkocc was built without MPI");
}
bool fleet_mpi_poll(int *from, int *tag, void **buf, size_t *len) {
  (void)from, (void)tag, (void)buf, (void)len;
  return false;
}
#endif
