/* Building ahead (tune/harness/harness.h): the pool's jobs, the next configurations' modules and pipelines made on
 * host threads while the device measures another (tu_options.threads, tu_prefetch); the pool itself is pool.c. */
#include "harness.h"

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
    while (!(x = tu_pool_pick(b)) && !b->quit) pthread_cond_wait(&b->wake, &b->lock);
    if (b->quit) break;
    bool compile = x->pre->state == PB_QUEUED;
    x->pre->state = compile ? PB_COMPILING : PB_BUILDING;
    compile ? b->compiling++ : b->building++;
    b->busy++;
    tu_pool_trace(b, compile ? "compile" : "pipeline", x, "pool");
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

/* Hands the configurations the strategy will propose next (next, n of them in that order: tune_search_peek) that
 * are neither measured nor handed over yet to the pool, and ranks every one it holds by that order. Starts the pool
 * on first use (the buffers exist by then: after a device is reopened the pool builds no pipeline until they are
 * made again). */
void tu_prebuild_queue(harness *h, const uint32_t *next, uint32_t n) {
  prebuilder *b = &h->pb;
  if (!n) return;
  if (!b->thread) {
    b->cap = tu_prebuild_window(h) + b->nthreads;
    b->job = util_xcalloc(b->cap, sizeof *b->job);
    if (!b->max_compiling || b->max_compiling > b->nthreads) b->max_compiling = b->nthreads;
    if (!b->max_building || b->max_building > b->nthreads) b->max_building = b->nthreads;
    b->thread = util_xcalloc(b->nthreads, sizeof *b->thread);
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
    if (b->njobs == b->cap && !tu_pool_evict(h)) continue;
    if (!x->sized && t1_sizes(h->s, x->coord, h->global_P ? 1 : -1, x->local, x->groups)) continue;
    x->sized = true;
    x->pre = util_xcalloc(1, sizeof *x->pre);
    x->pre->state = PB_QUEUED, x->pre->rank = i;
    b->job[b->njobs++] = x;
  }
  pthread_cond_broadcast(&b->wake);
  pthread_mutex_unlock(&b->lock);
}

void tu_prefetch(void *eval_user, const uint32_t *next, uint32_t n) { tu_prebuild_queue(eval_user, next, n); }
