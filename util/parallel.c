/* A work-sharing loop over indices on a few threads: pipeline creation for a surface and for tuning. */
#include "util.h"
#include <pthread.h>
#include <unistd.h>

typedef struct {
  void (*fn)(void *user, uint32_t i);
  void *user;
  uint32_t n, next;
  pthread_mutex_t lock;
} pfor;

static void *pfor_worker(void *arg) {
  pfor *p = arg;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    uint32_t i = p->next++;
    pthread_mutex_unlock(&p->lock);
    if (i >= p->n) break;
    p->fn(p->user, i);
  }
  return NULL;
}

uint32_t util_cores(uint32_t reserve, uint32_t cap) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  long n = cpus - (long)reserve;
  if (n > (long)cap) n = cap;
  return n > 0 ? (uint32_t)n : 1;
}

void util_parallel_for(uint32_t n, uint32_t threads, void (*fn)(void *user, uint32_t i), void *user) {
  /* drivers compile pipelines on the calling thread: one per core, up to 16 (the NVIDIA driver built 6.8x
   * faster on 15 threads than on 1, 5.3x on 8: docs/results/h100/tune-speed) */
  if (!threads) threads = util_cores(0, 16);
  if (threads > n) threads = n ? n : 1;
  if (threads > 64) threads = 64;
  pfor p = {.fn = fn, .user = user, .n = n};
  pthread_mutex_init(&p.lock, NULL);
  pthread_t tid[64];
  uint32_t started = 0;
  for (uint32_t t = 0; t < threads; t++)
    if (pthread_create(&tid[t], NULL, pfor_worker, &p) == 0) started++;
  if (!started) pfor_worker(&p); /* no thread to be had: the same work on this one */
  for (uint32_t t = 0; t < started; t++) pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&p.lock);
}
