/* Building ahead (tune/harness/harness.h): the next configurations' modules and pipelines made by a pool of host
 * threads while the device measures another (tu_options.threads, tu_prefetch). */
#include "harness.h"
#include <unistd.h>

/* ---- prebuilding: the next configurations' modules and pipelines made on a host thread while the device
 * measures the current one, so the device does not wait for the compiler and the driver */

typedef enum { PB_QUEUED, PB_COMPILING, PB_COMPILED, PB_BUILDING, PB_READY } pb_state;

typedef struct prebuilt {
  pb_state state;            /* PB_READY: made (or given up): measure_config may take it */
  uint32_t rank;             /* when the measuring thread needs it: 0 next; UINT32_MAX no longer proposed */
  tu_outcome out;            /* TU_GO: module and pipeline below; else the main thread prepares it itself */
  module *m;
  specs sp;
  vkocc_spirv_info info;
  vkocc_kernel k;
  double compile_ms, pipeline_ms;
} prebuilt;

/* The runnable job of the configuration needed soonest (b->lock held): its pipeline once the buffers exist,
 * else its compile, each kind within its limit; NULL when none. */
static config *pool_pick(prebuilder *b) {
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

static void pool_trace(prebuilder *b, const char *job, const config *x, const char *who) {
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
  pool_trace(b, on ? "hold" : "release", x, "measuring"); /* under the lock: in order with the jobs' lines */
  while (on && b->busy) pthread_cond_wait(&b->done, &b->lock);
  if (!on) pthread_cond_broadcast(&b->wake);
  pthread_mutex_unlock(&b->lock);
}

/* x's compile (its module, shared with every configuration of its define set) */
static void prebuild_compile(harness *h, config *x) {
  double ms;
  module *m = tu_get_module(h, x, &ms);
  pthread_mutex_lock(&h->pb.lock);
  x->pre->compile_ms = ms;
  /* a module that failed: the measuring thread records why */
  if (m->failed) x->pre->state = PB_READY, x->pre->out = TU_STOP;
  else x->pre->state = PB_COMPILED;
  pthread_mutex_unlock(&h->pb.lock);
}

/* x's pipeline, its module compiled */
static void prebuild_pipeline(harness *h, config *x) {
  prebuilt *p = x->pre;
  tu_result scratch = {.P = -1};
  trial t = {.x = x, .coord = x->coord, .r = &scratch, .ahead = true};
  memcpy(scratch.local, x->local, sizeof scratch.local);
  tu_outcome out = tu_prepare_module(h, &t);
  double t0 = vkocc_now_ms();
  if (out == TU_GO) out = tu_prepare_pipeline(h, &t);
  double ms = vkocc_now_ms() - t0;
  pthread_mutex_lock(&h->pb.lock);
  p->pipeline_ms = ms;
  p->m = t.m, p->sp = t.sp, p->info = t.info, p->k = t.k, p->out = out;
  p->state = PB_READY;
  pthread_mutex_unlock(&h->pb.lock);
}

static void *prebuild_thread(void *arg) {
  harness *h = arg;
  prebuilder *b = &h->pb;
  pthread_mutex_lock(&b->lock);
  for (;;) {
    config *x;
    while (!(x = pool_pick(b)) && !b->quit) pthread_cond_wait(&b->wake, &b->lock);
    if (b->quit) break;
    bool compile = x->pre->state == PB_QUEUED;
    x->pre->state = compile ? PB_COMPILING : PB_BUILDING;
    compile ? b->compiling++ : b->building++;
    b->busy++;
    pool_trace(b, compile ? "compile" : "pipeline", x, "pool");
    pthread_mutex_unlock(&b->lock);
    if (b->slow_ms) usleep(b->slow_ms * 1000u);
    compile ? prebuild_compile(h, x) : prebuild_pipeline(h, x);
    pthread_mutex_lock(&b->lock);
    compile ? b->compiling-- : b->building--;
    b->busy--;
    pthread_cond_broadcast(&b->done);
    pthread_cond_broadcast(&b->wake); /* a slot of its kind is free; a compiled one may be built */
  }
  pthread_mutex_unlock(&b->lock);
  return NULL;
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
  return vkocc_cores(1, 16);
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
static bool pool_evict(harness *h) {
  prebuilder *b = &h->pb;
  for (uint32_t i = 0; i < b->njobs; i++) {
    config *x = b->job[i];
    prebuilt *p = x->pre;
    if (p->rank != UINT32_MAX || p->state == PB_COMPILING || p->state == PB_BUILDING) continue;
    if (p->state == PB_READY && p->out == TU_GO) vkocc_kernel_destroy(CTX(h), &p->k);
    pool_remove(b, x);
    free(p);
    return true;
  }
  return false;
}

/* Hands the configurations the strategy will propose next (next, n of them in that order: tune_search_peek) that
 * are neither measured nor handed over yet to the pool, and ranks every one it holds by that order. Starts the pool
 * on first use (the buffers exist by then: after a device is reopened the pool builds no pipeline until they are
 * made again). */
void tu_prebuild_queue(harness *h, const uint32_t *next, uint32_t n) {
  prebuilder *b = &h->pb;
  if (!n) return;
  if (!b->thread) {
    b->cap = tu_prebuild_window(h) + b->nthreads;
    b->job = vkocc_xcalloc(b->cap, sizeof *b->job);
    if (!b->max_compiling || b->max_compiling > b->nthreads) b->max_compiling = b->nthreads;
    if (!b->max_building || b->max_building > b->nthreads) b->max_building = b->nthreads;
    b->thread = vkocc_xcalloc(b->nthreads, sizeof *b->thread);
    for (uint32_t i = 0; i < b->nthreads; i++)
      if (!pthread_create(&b->thread[b->started], NULL, prebuild_thread, h)) b->started++;
  }
  if (!b->started) return; /* no thread to be had: each is built when measured */
  pthread_mutex_lock(&b->lock);
  for (uint32_t i = 0; i < b->njobs; i++) b->job[i]->pre->rank = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++) {
    config *x = tu_config_of(h, next[i]);
    if (h->run->r[next[i]].measured) continue;
    if (x->pre) {
      if (x->pre->rank == UINT32_MAX) x->pre->rank = i;
      continue;
    }
    if (b->njobs == b->cap && !pool_evict(h)) continue;
    if (!x->sized && t1_sizes(h->s, x->coord, h->global_P ? 1 : -1, x->local, x->groups)) continue;
    x->sized = true;
    x->pre = vkocc_xcalloc(1, sizeof *x->pre);
    x->pre->state = PB_QUEUED, x->pre->rank = i;
    b->job[b->njobs++] = x;
  }
  pthread_cond_broadcast(&b->wake);
  pthread_mutex_unlock(&b->lock);
}

void tu_prefetch(void *eval_user, const uint32_t *next, uint32_t n) { tu_prebuild_queue(eval_user, next, n); }

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
  pool_trace(&h->pb, "take", t->x, ok ? "pool" : "measuring");
  free(p);
  return ok;
}

/* x's prebuilt pipeline, if any, destroyed */
void tu_prebuild_drop(harness *h, config *x) {
  prebuilt *p = prebuilt_wait(h, x, false);
  if (p && p->state == PB_READY && p->out == TU_GO) vkocc_kernel_destroy(CTX(h), &p->k);
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
