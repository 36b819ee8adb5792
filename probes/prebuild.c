/* Probe pipelines built ahead, on threads of their own, while the caller does something else with the device
 * (the calibration): on a GPU a pipeline is tens of milliseconds of the driver's compiler, and the adaptive
 * surface asks for its first points in small rounds, one after the other, each waiting for its compile.
 * probes_kernel_create (here) takes a prebuilt kernel where the pool has one for the point (waiting for it when
 * it is being built), and builds one itself where not; a point taken once is built anew the next time.
 * The kernels are the same ones probes_kernel_create makes: only when they are made changes. */
#include "probe_internal.h"
#include "internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { PENDING, BUILDING, BUILT, TAKEN };

typedef struct {
  uint32_t wg, shared;
  int state;
  vkocc_status status;
  core_kernel k;
} entry;

struct probes_pool {
  vkocc_context *ctx;
  entry *e;
  uint32_t n, threads;
  pthread_mutex_t lock;
  pthread_cond_t built;
  pthread_t tid;
  bool started;
};

static void build_entry(void *user, uint32_t i) {
  struct probes_pool *p = user;
  pthread_mutex_lock(&p->lock);
  bool mine = p->e[i].state == PENDING; /* a caller may have taken it already */
  if (mine) p->e[i].state = BUILDING;
  pthread_mutex_unlock(&p->lock);
  if (!mine) return;
  core_kernel k;
  vkocc_status s = probes_kernel_create_now(p->ctx, p->e[i].wg, p->e[i].shared, &k);
  vkocc_clear_error(); /* a point that fails here fails again, with its message, when it is asked for */
  pthread_mutex_lock(&p->lock);
  p->e[i].status = s;
  if (!s) p->e[i].k = k;
  p->e[i].state = BUILT;
  pthread_cond_broadcast(&p->built);
  pthread_mutex_unlock(&p->lock);
}

static void *pool_main(void *arg) {
  struct probes_pool *p = arg;
  util_parallel_for(p->n, p->threads, build_entry, p);
  return NULL;
}

bool probes_prebuild_pays(const vkocc_context *ctx) {
  /* a CPU device compiles at the first dispatch, on the cores the caller measures with: nothing to gain */
  const char *force = getenv("VKOCC_TEST_PREBUILD"); /* lavapipe takes the GPU's path: the tests' way in */
  return ctx->info.device_type != VK_PHYSICAL_DEVICE_TYPE_CPU || (force && !strcmp(force, "1"));
}

void probes_prebuild_start(vkocc_context *ctx, const uint32_t *wg, const uint32_t *shared, uint32_t n) {
  if (!ctx || ctx->probe_pool || !n || !probes_prebuild_pays(ctx)) return;
  struct probes_pool *p = util_xcalloc(1, sizeof *p);
  p->ctx = ctx;
  p->e = util_xcalloc(n, sizeof *p->e);
  for (uint32_t i = 0; i < n; i++) p->e[i] = (entry){.wg = wg[i], .shared = shared[i], .state = PENDING};
  p->n = n;
  p->threads = util_cores(1, 15); /* one core left to the caller's submissions */
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->built, NULL);
  p->started = pthread_create(&p->tid, NULL, pool_main, p) == 0;
  ctx->probe_pool = p; /* without a thread every entry stays PENDING: callers build their own */
}

bool probes_prebuilt_take(vkocc_context *ctx, uint32_t wg, uint32_t shared, core_kernel *k, vkocc_status *st) {
  struct probes_pool *p = ctx->probe_pool;
  if (!p) return false;
  bool got = false;
  pthread_mutex_lock(&p->lock);
  for (uint32_t i = 0; i < p->n; i++) {
    entry *e = &p->e[i];
    if (e->wg != wg || e->shared != shared || e->state == TAKEN) continue;
    if (e->state == PENDING) { e->state = TAKEN; break; } /* not started: the caller builds it now */
    while (e->state == BUILDING) pthread_cond_wait(&p->built, &p->lock);
    if (e->state == BUILT && !e->status) {
      *k = e->k;
      *st = VKOCC_OK;
      got = true;
    }
    e->state = TAKEN; /* a failed build is retried by the caller, which reports it */
    break;
  }
  pthread_mutex_unlock(&p->lock);
  return got;
}

vkocc_status probes_kernel_create(vkocc_context *ctx, uint32_t wg, uint32_t shared, core_kernel *k) {
  vkocc_status s;
  if (probes_prebuilt_take(ctx, wg, shared, k, &s)) return s;
  return probes_kernel_create_now(ctx, wg, shared, k);
}

void probes_prebuild_finish(vkocc_context *ctx) {
  struct probes_pool *p = ctx ? ctx->probe_pool : NULL;
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  for (uint32_t i = 0; i < p->n; i++)
    if (p->e[i].state == PENDING) p->e[i].state = TAKEN; /* nobody asked: build no more */
  pthread_mutex_unlock(&p->lock);
  if (p->started) pthread_join(p->tid, NULL);
  for (uint32_t i = 0; i < p->n; i++)
    if (p->e[i].state == BUILT && !p->e[i].status) core_kernel_destroy(ctx, &p->e[i].k);
  pthread_cond_destroy(&p->built);
  pthread_mutex_destroy(&p->lock);
  free(p->e);
  free(p);
  ctx->probe_pool = NULL;
}
