/* A worker (tune/fleet/fleet_internal.h): a device's host thread with its own context and harness (tu_tune with
 * tu_options.drive), measuring what the coordinator hands it and posting each result; its messages and commands. */
#include "fleet_internal.h"
#include <signal.h>
#include <time.h>
#include <unistd.h>

static void post(fleet *f, msg *m) {
  pthread_mutex_lock(&f->mu);
  m->next = NULL;
  if (f->out_tail) f->out_tail->next = m;
  else f->out_head = m;
  f->out_tail = m;
  pthread_cond_signal(&f->out_cond);
  pthread_mutex_unlock(&f->mu);
}

/* the next message; waits up to wait_ms (0: does not wait) */
msg *fleet_take(fleet *f, double wait_ms) {
  pthread_mutex_lock(&f->mu);
  if (!f->out_head && wait_ms > 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long)(wait_ms * 1e6);
    ts.tv_sec += ns / 1000000000L, ts.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(&f->out_cond, &f->mu, &ts);
  }
  msg *m = f->out_head;
  if (m) {
    f->out_head = m->next;
    if (!f->out_head) f->out_tail = NULL;
  }
  pthread_mutex_unlock(&f->mu);
  return m;
}

void fleet_msg_free(msg *m) {
  if (m) free(m->r.times_ns), free(m);
}

/* ---- the worker thread */

/* the test hooks' times (worker.scale, worker.synth) in place of the measured ones */
static void test_times(const worker *w, uint32_t c, tu_result *r) {
  if (r->inv != TU_CORRECT || !r->runs || (w->scale == 1 && w->synth < 0)) return;
  double base = w->synth >= 0 ? 1e5 * (1 + 0.05 * fabs((double)c - (double)w->synth)) : 0;
  /* made-up times spread by 0.1-0.2% about base: two at base, then pairs above and below, so that their median is base
   * at any count of runs */
  for (uint32_t i = 0; i < r->runs; i++) {
    int off = i < 2 ? 0 : (int)((i - 2) / 2 % 2 + 1) * (i % 2 ? -1 : 1);
    r->times_ns[i] = w->scale * (w->synth >= 0 ? base * (1 + 0.001 * off) : r->times_ns[i]);
  }
  r->median_ns *= w->scale, r->min_ns *= w->scale, r->max_ns *= w->scale;
  if (w->synth >= 0) { /* the figures of the times made up, so that the result is one vkocc records (its median theirs) */
    vkocc_summary sum;
    vkocc_summarize(r->times_ns, r->runs, &sum);
    r->median_ns = sum.median, r->min_ns = sum.min, r->max_ns = sum.max;
    r->spread = r->runs > 2 ? 0.001 : 0;
  }
}

/* Configuration c measured afresh, whatever this worker measured before; its own record stays as it was. A
 * reference stops at 3 runs where the spread allows (the search's rule: tu_min_runs): its points measure how the boards
 * differ, 0.5-3% by configuration against spreads of 0.01-0.3% on two H200s, and a drift, 5% at the least; each such
 * measurement is one that only a shared search makes (matmul 12288: 0.9 s a reference on an H200, six of them). */
static vkocc_status measure_again(worker *w, uint32_t c, int32_t purpose, tune_eval_fn eval, void *eval_user,
                                  tu_result *out) {
  tu_result keep = w->run.r[c];
  uint32_t nevals = w->run.nevals, min_runs = w->to.min_runs;
  memset(&w->run.r[c], 0, sizeof keep);
  w->run.r[c].P = -1;
  bool full_rule = w->to.full_rule;
  if (purpose == FOR_REFERENCE && tu_min_runs(&w->to) > 3) w->to.min_runs = 3;
  w->to.full_rule = true; /* measured again to compare, never raced */
  tune_eval e;
  vkocc_status st = eval(eval_user, c, &e);
  w->to.min_runs = min_runs, w->to.full_rule = full_rule;
  *out = w->run.r[c];
  w->run.r[c] = keep, w->run.nevals = nevals;
  if (st) free(out->times_ns), out->times_ns = NULL;
  return st;
}

static vkocc_status worker_drive(void *user, const tune_space *s, tune_eval_fn eval, void *eval_user) {
  worker *w = user;
  fleet *f = w->f;
  (void)s;
  for (;;) {
    pthread_mutex_lock(&f->mu);
    while (!w->ntodo && !w->nagain && !w->stop) pthread_cond_wait(&w->cond, &f->mu);
    if (!w->ntodo && !w->nagain) {
      pthread_mutex_unlock(&f->mu);
      return VKOCC_OK;
    }
    uint32_t c;
    int32_t purpose = FOR_SEARCH;
    if (w->nagain) {
      c = w->again[w->again_head], purpose = w->again_for[w->again_head];
      w->again_head = (w->again_head + 1) % AGAIN_MAX, w->nagain--;
    } else {
      c = w->todo[w->head];
      w->head = (w->head + 1) % CHUNK, w->ntodo--;
    }
    /* what it holds after this one, then what the search hands out next: the harness's pool builds them while the
     * device measures c */
    uint32_t next[CHUNK + AHEAD], nnext = 0;
    for (; nnext < w->ntodo; nnext++) next[nnext] = w->todo[(w->head + nnext) % CHUNK];
    for (uint32_t i = 0; i < w->nahead; i++) next[nnext++] = w->ahead[(w->ahead_head + i) % AHEAD];
    pthread_mutex_unlock(&f->mu);
    tu_prefetch(eval_user, next, nnext);
    if (w->fail_after >= 0 && w->done == (uint64_t)w->fail_after)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "device %s: failed as VKOCC_TEST_FLEET_FAIL asked", w->device);
    if (w->kill_after >= 0 && w->done == (uint64_t)w->kill_after) {
      usleep(300000); /* the results it posted reach the coordinator's journal first */
      raise(SIGKILL);
    }
    if (w->delay_ms > 0 && purpose == FOR_SEARCH) usleep((useconds_t)w->delay_ms * 1000);
    msg *m = util_xcalloc(1, sizeof *m);
    m->kind = MSG_RESULT, m->purpose = purpose, m->worker = w->gid, m->config = c;
    vkocc_status st;
    if (purpose != FOR_SEARCH) {
      st = measure_again(w, c, purpose, eval, eval_user, &m->r);
    } else {
      tune_eval e;
      st = eval(eval_user, c, &e);
      m->r = w->run.r[c];
      m->r.times_ns = NULL;
      if (!st) {
        m->r.times_ns = util_xmalloc(((size_t)m->r.runs + 1) * sizeof *m->r.times_ns);
        if (m->r.runs) memcpy(m->r.times_ns, w->run.r[c].times_ns, m->r.runs * sizeof *m->r.times_ns);
      }
    }
    if (st) {
      fleet_msg_free(m);
      return st;
    }
    test_times(w, c, &m->r);
    /* a forged result: a median half its times' (the coordinator's check gives this worker up) */
    if (purpose == FOR_SEARCH && w->forge_at >= 0 && w->done == (uint64_t)w->forge_at && m->r.inv == TU_CORRECT)
      m->r.median_ns *= 0.5;
    snprintf(m->reference, sizeof m->reference, "%s", w->run.reference);
    m->compiles = w->run.compiles, m->setup_ms = w->run.setup_ms;
    if (purpose == FOR_SEARCH) w->done++;
    post(f, m);
  }
}

static vkocc_status worker_reopen(void *user, vkocc_context **ctx) {
  worker *w = user;
  vkocc_context_destroy(*ctx);
  *ctx = NULL;
  vkocc_context_options co = {.device = w->device, .queue = w->queue};
  return vkocc_context_create(&co, ctx);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  fleet *f = w->f;
  const vkocc_tune_options *o = f->o;
  pthread_mutex_lock(&f->mu);
  while (!w->go && !w->stop) pthread_cond_wait(&w->cond, &f->mu);
  bool go = w->go;
  if (go) snprintf(w->run.reference, sizeof w->run.reference, "%s", w->reference);
  pthread_mutex_unlock(&f->mu);
  if (!go) return NULL;
  /* budget, confirm, checkpoints and the stop belong to the coordinator; the sentinel stays per device where the group
   * does not normalize (a device alone in its cluster) */
  tu_options_from(&w->to, o);
  w->to.budget = (tune_budget){0}, w->to.confirm = -1, w->to.stop = NULL;
  if (w->no_sentinel) w->to.sentinel_every = -1;
  w->to.reopen = worker_reopen, w->to.user = w, w->to.drive = worker_drive, w->to.drive_user = w;
  w->to.shared = f->shared, w->to.fp_doc = w->fp_doc;
  vkocc_status st = tu_tune(&w->ctx, &w->run, &w->to);
  if (st) {
    msg *m = util_xcalloc(1, sizeof *m);
    m->kind = MSG_FAILED, m->worker = w->gid;
    snprintf(m->error, sizeof m->error, "%s", vkocc_last_error());
    post(f, m);
  }
  return NULL;
}

/* commands to a worker of this rank */
void fleet_worker_command(fleet *f, worker *w, const cmd *c) {
  pthread_mutex_lock(&f->mu);
  if (c->kind == CMD_GO) {
    w->go = true, w->no_sentinel = c->purpose != 0;
    snprintf(w->reference, sizeof w->reference, "%s", c->reference);
  }
  else if (c->kind == CMD_MEASURE && w->ntodo < CHUNK) w->todo[(w->head + w->ntodo++) % CHUNK] = c->config;
  else if (c->kind == CMD_AGAIN && w->nagain < AGAIN_MAX) {
    uint32_t at = (w->again_head + w->nagain++) % AGAIN_MAX;
    w->again[at] = c->config, w->again_for[at] = c->purpose;
  } else if (c->kind == CMD_AHEAD) {
    if (w->nahead == AHEAD) w->ahead_head = (w->ahead_head + 1) % AHEAD, w->nahead--;
    w->ahead[(w->ahead_head + w->nahead++) % AHEAD] = c->config;
  } else if (c->kind != CMD_AGAIN) w->stop = true; /* CMD_STOP; a MEASURE past CHUNK (never sent) stops rather than
                                                     * be lost; an AGAIN past AGAIN_MAX (never sent) is dropped */
  pthread_cond_signal(&w->cond);
  pthread_mutex_unlock(&f->mu);
}

/* "W:N,W:N": N for worker gid, -1 when absent */
static int64_t test_hook(const char *var, uint32_t gid) {
  const char *e = getenv(var);
  for (const char *p = e; p && *p;) {
    char *end;
    unsigned long w = strtoul(p, &end, 10);
    if (*end != ':') break;
    unsigned long n = strtoul(end + 1, &end, 10);
    if (w == gid) return (int64_t)n;
    p = *end == ',' ? end + 1 : NULL;
  }
  return -1;
}

/* This rank's worker w, on the space of its group (count coordinates of nparams each). */
vkocc_status fleet_make_worker(fleet *f, worker *w, const vkocc_tune_fleet_member *m, uint32_t gid, uint32_t count,
                                const uint32_t *coord) {
  w->f = f, w->gid = gid, w->ctx = m->ctx, w->device = m->device, w->queue = m->queue;
  w->fp_doc = m->details ? vkocc_fingerprint_details_json(m->details) : NULL;
  pthread_cond_init(&w->cond, NULL);
  vkocc_status st = tu_prepare(f->spec_path, f->name, &w->run);
  if (st) return st;
  /* its own device's limits: its space holds its group's (bound to the smallest member's) */
  limits_t lim;
  tu_device_limits(w->ctx, lim);
  if ((st = tu_bind_device(&w->run, lim))) return st;
  if (count > w->run.space.count)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the coordinator's space has %u configurations, this rank's %u", f->spec_path,
                      count, w->run.space.count);
  /* the coordinator's indices (after --only and a resume) are this worker's */
  memcpy(w->run.space.coord, coord, (size_t)count * w->run.spec.nparams * sizeof *coord);
  w->run.space.count = count;
  w->fail_after = test_hook("VKOCC_TEST_FLEET_FAIL", gid), w->kill_after = test_hook("VKOCC_TEST_FLEET_KILL", gid);
  int64_t pct = test_hook("VKOCC_TEST_FLEET_SLOW", gid);
  w->scale = pct > 0 ? (double)pct / 100 : 1;
  const char *synth = getenv("VKOCC_TEST_FLEET_SYNTH");
  w->synth = synth && *synth ? strtol(synth, NULL, 10) : -1;
  w->delay_ms = test_hook("VKOCC_TEST_FLEET_DELAY", gid);
  w->forge_at = test_hook("VKOCC_TEST_FLEET_FORGE", gid);
  return VKOCC_OK;
}

vkocc_status fleet_start_workers(fleet *f) {
  for (uint32_t i = 0; i < f->nw; i++) {
    if (pthread_create(&f->w[i].thread, NULL, worker_main, &f->w[i]))
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot start the thread of device %s", f->w[i].device);
    f->w[i].started = true;
  }
  return VKOCC_OK;
}

void fleet_stop_workers(fleet *f) {
  for (uint32_t i = 0; i < f->nw; i++) fleet_worker_command(f, &f->w[i], &(cmd){.kind = CMD_STOP});
  for (uint32_t i = 0; i < f->nw; i++)
    if (f->w[i].started) pthread_join(f->w[i].thread, NULL), f->w[i].started = false;
}
