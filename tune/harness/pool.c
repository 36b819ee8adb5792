/* Building ahead (tune/harness/harness.h): the next configurations' modules and pipelines made by a pool of host
 * threads while the device measures another (tu_options.threads, tu_prefetch). */
#include "harness.h"
#include <unistd.h>

/* The runnable job of the configuration needed soonest (b->lock held): its pipeline once the buffers exist,
 * else its compile, each kind within its limit; NULL when none. */
config *tu_pool_pick(prebuilder *b) {
  config *best = NULL;
  if (b->hold) return NULL;
  for (uint32_t i = 0; i < b->njobs; i++) {
    prebuilt *p = b->job[i]->pre;
    bool runnable = (p->state == PB_QUEUED && b->compiling < b->max_compiling) ||
                    (p->state == PB_COMPILED && b->pipelines_ok && b->building < b->max_building);
    if (runnable && (!best || p->rank < best->pre->rank)) best = b->job[i];
  }
  return best;
}

void tu_pool_trace(prebuilder *b, const char *job, const config *x, const char *who) {
  if (b->trace) fprintf(b->trace, "%s %u %s\n", job, x->index, who), fflush(b->trace);
}

/* On a CPU device the pool's threads and the device's take the same cores: a compile beside a timed batch of
 * KTT's vadd on lavapipe's 2-core host left spreads of 3.5-10% and the stopping rule at 50 runs (630-780 ms
 * for one configuration against 60-80 at 5 runs). So while such a device times, the pool starts nothing and
 * the timing waits for the jobs running to end (2-5 ms each once glslang's tables are built). */
void tu_pool_hold(harness *h, const config *x, bool on) {
  prebuilder *b = &h->pb;
  pthread_mutex_lock(&b->lock);
  b->hold = on;
  tu_pool_trace(b, on ? "hold" : "release", x, "measuring"); /* under the lock: in order with the jobs' lines */
  while (on && b->busy) pthread_cond_wait(&b->done, &b->lock);
  if (!on) pthread_cond_broadcast(&b->wake);
  pthread_mutex_unlock(&b->lock);
}

/* Its tests' hooks: VKOCC_TEST_POOL_WAIT=1 (the measuring thread waits for the pool instead of building what the
 * pool has not started: which builds the pool makes no longer depends on timing), VKOCC_TEST_POOL_TRACE=FILE
 * (each job's start), VKOCC_TEST_POOL_STAGES=C,P (at most C compiles and P pipelines at once),
 * VKOCC_TEST_POOL_UNCACHED=1 (the pool's pipelines made without the context's pipeline cache), VKOCC_TEST_POOL_SLOW=MS
 * (each pool job starts MS later: jobs then still wait when the device times). */
void tu_pool_test_hooks(prebuilder *b) {
  const char *w = getenv("VKOCC_TEST_POOL_WAIT"), *t = getenv("VKOCC_TEST_POOL_TRACE"), *st = getenv("VKOCC_TEST_POOL_STAGES");
  b->wait_only = w && !strcmp(w, "1");
  const char *u = getenv("VKOCC_TEST_POOL_UNCACHED");
  b->uncached = u && !strcmp(u, "1");
  if (t && *t) b->trace = fopen(t, "w");
  const char *sl = getenv("VKOCC_TEST_POOL_SLOW");
  if (sl) b->slow_ms = (uint32_t)strtoul(sl, NULL, 10);
  if (st) {
    char *end;
    b->max_compiling = (uint32_t)strtoul(st, &end, 10);
    if (*end == ',') b->max_building = (uint32_t)strtoul(end + 1, NULL, 10);
  }
}

/* The pool's size: tu_options.threads, else one per core less the one that measures (at least 1, at most 16: the
 * driver builds pipelines side by side, an H100's 2048 matmul 4-5x faster on 8 threads than on 1 and 5-7x on 15,
 * and a cold search of it took 12.6 ms per configuration with 15 threads against 20.2 with 8). */
uint32_t tu_prebuild_threads(const tu_options *o) {
  if (o->threads) return o->threads > 64 ? 64 : o->threads;
  return util_cores(1, 16);
}

/* How many configurations ahead are handed to the pool: enough for every thread and a few in hand (the nearest
 * are started first, so a wider window only builds further ahead). */
uint32_t tu_prebuild_window(const harness *h) { return 2 * h->pb.nthreads + 1; }

static void pool_remove(prebuilder *b, config *x) {
  for (uint32_t i = 0; i < b->njobs; i++)
    if (b->job[i] == x) {
      memmove(b->job + i, b->job + i + 1, (b->njobs - i - 1) * sizeof *b->job);
      b->njobs--;
      break;
    }
  x->pre = NULL;
}

/* A job no longer proposed and not running, given up to make room (b->lock held); false when there is none. */
bool tu_pool_evict(harness *h) {
  prebuilder *b = &h->pb;
  for (uint32_t i = 0; i < b->njobs; i++) {
    config *x = b->job[i];
    prebuilt *p = x->pre;
    if (p->rank != UINT32_MAX || p->state == PB_COMPILING || p->state == PB_BUILDING) continue;
    if (p->state == PB_READY && p->out == TU_GO) core_kernel_destroy(CTX(h), &p->k);
    pool_remove(b, x);
    free(p);
    return true;
  }
  return false;
}

/* x's prebuilt state, taken from the pool once no job of it runs (a running job is waited for). What the pool has not
 * started is given up (out TU_STOP: the caller builds it, a compiled module stays compiled), except that with claim
 * (the measuring thread needs it now) and VKOCC_TEST_POOL_WAIT the pool is waited for where it can build it. */
static prebuilt *prebuilt_wait(harness *h, config *x, bool claim) {
  prebuilder *b = &h->pb;
  pthread_mutex_lock(&b->lock);
  prebuilt *p = x->pre;
  if (p) p->rank = 0;
  for (; p; pthread_cond_wait(&b->done, &b->lock)) {
    if (p->state == PB_READY) break;
    if (p->state == PB_COMPILING || p->state == PB_BUILDING) continue;
    /* not started (or compiled, its pipeline not): the measuring thread's own unless told to wait, or unless the
     * pool cannot build it (no buffers: a device being reopened) */
    if (!claim || !b->wait_only || (p->state == PB_COMPILED && !b->pipelines_ok)) {
      p->out = TU_STOP;
      break;
    }
  }
  if (p) pool_remove(b, x);
  pthread_mutex_unlock(&b->lock);
  return p;
}

/* The prebuilt module and pipeline of t's configuration, when there are (waiting for jobs of it that run). */
bool tu_prebuilt_take(harness *h, trial *t) {
  prebuilt *p = prebuilt_wait(h, t->x, true);
  bool ok = p && p->state == PB_READY && p->out == TU_GO;
  t->compiled_ahead_ms = p ? p->compile_ms : 0; /* its module, compiled there, is its cost even when not taken */
  if (ok) {
    t->m = p->m, t->sp = p->sp, t->info = p->info, t->k = p->k;
    t->r->compile_ms = p->compile_ms, t->r->pipeline_ms = p->pipeline_ms;
  }
  tu_pool_trace(&h->pb, "take", t->x, ok ? "pool" : "measuring");
  free(p);
  return ok;
}

/* x's prebuilt pipeline, if any, destroyed */
void tu_prebuild_drop(harness *h, config *x) {
  prebuilt *p = prebuilt_wait(h, x, false);
  if (p && p->state == PB_READY && p->out == TU_GO) core_kernel_destroy(CTX(h), &p->k);
  free(p);
}

/* Every prebuilt pipeline destroyed, the jobs given up (before the device is reopened, and at the end); no
 * pipeline is built until the buffers are made again. */
void tu_prebuild_drain(harness *h) {
  prebuilder *b = &h->pb;
  pthread_mutex_lock(&b->lock);
  b->pipelines_ok = false;
  for (uint32_t i = 0; i < b->njobs; i++) { /* not started: given up */
    prebuilt *p = b->job[i]->pre;
    if (p->state == PB_QUEUED || p->state == PB_COMPILED) p->state = PB_READY, p->out = TU_STOP;
  }
  while (b->busy) pthread_cond_wait(&b->done, &b->lock);
  pthread_mutex_unlock(&b->lock);
  while (b->njobs) tu_prebuild_drop(h, b->job[0]);
}

void tu_prebuild_stop(harness *h) {
  prebuilder *b = &h->pb;
  tu_prebuild_drain(h);
  pthread_mutex_lock(&b->lock);
  b->quit = true;
  pthread_cond_broadcast(&b->wake);
  pthread_mutex_unlock(&b->lock);
  for (uint32_t i = 0; i < b->started; i++) pthread_join(b->thread[i], NULL);
  free(b->thread), free(b->job);
  if (b->trace) fclose(b->trace);
  b->thread = NULL, b->job = NULL, b->trace = NULL, b->started = 0;
}
