/* One T1 spec tuned on several devices and MPI ranks (tune/fleet.h, include/vkocc.h "tuning on several devices",
 * docs/fleet.md).
 *
 * Rank 0 (the only rank without MPI) holds the coordinator: per cluster a merged record (a tu_run that no harness
 * measures into), a search (ask/tell) and a results document. Workers are host threads, one per member, each with
 * its own context and tu_run; tu_tune runs in each with tu_options.drive, which waits for a configuration, measures
 * it through the harness's own evaluation and posts the result. The coordinator hands a configuration to every free
 * worker of a cluster, takes results in any order, journals each one, and checkpoints the document every 10 s. A
 * worker that fails gives its configuration back to the search (another worker of its cluster measures it); when
 * none is left the cluster's search stops and the document says why.
 *
 * Without ReferenceArguments the reference outputs come from the first configuration that runs. All workers of a
 * cluster must compare against the same one, so only the first worker measures until that configuration is known;
 * the others then start with it as their reference (measuring it once themselves for its outputs).
 *
 * Several devices in a cluster: boards of one model differ, per configuration (docs/fleet.md, "Boards that
 * differ"). Each device measures reference configurations again (worker.again: before its next configuration);
 * the search ranks by times divided by each device's factor where that factor lies outside its spread, and where
 * the factors could decide the ranking the candidates are measured again on every device (the final round).
 *
 * Under MPI the other ranks run the same workers behind an agent that forwards their results to rank 0 and rank
 * 0's commands to them; MPI is called from the main thread of each rank only. Both sides send a heartbeat; a rank
 * silent too long is given up (its configurations go to the others), and an agent whose coordinator is gone stops. */
#include "fleet.h"
#include "user_results.h"
#include "builtin.h"
#include "io.h"
#include "jsonio.h"
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- messages: worker -> coordinator (results, failures), coordinator -> worker (commands) */
enum { MSG_RESULT = 1, MSG_FAILED };
enum { TAG_HELLO = 11, TAG_WELCOME, TAG_CMD, TAG_MSG, TAG_BYE, TAG_BEAT };
/* Under MPI each side says it is alive every second (TAG_BEAT, beside its other messages). A rank silent for
 * longer than VKOCC_FLEET_SILENT_S seconds (default 30) is lost: the coordinator hands its configurations in
 * flight to the others; a rank whose coordinator is silent stops. Open MPI ends the whole job when a rank dies
 * unless mpirun runs with --enable-recovery --mca orte_abort_on_non_zero_status 0 (docs/fleet.md). */
#define BEAT_MS 1000.0
enum { CMD_GO = 1, CMD_MEASURE, CMD_STOP, CMD_AGAIN, CMD_AHEAD };
/* why a configuration is measured: for the search, or again on a device that may have measured it before: the
 * cluster's common reference (each device's speed against the others') or the final round (the best re-timed) */
enum { FOR_SEARCH = 0, FOR_REFERENCE, FOR_FINAL };

typedef struct msg {
  int32_t kind, purpose;
  uint32_t worker, config;   /* global worker index; the configuration (the merged space's index) */
  char reference[512];       /* RESULT: the worker's reference once known */
  char error[700];           /* FAILED */
  uint32_t compiles;         /* RESULT: the modules its harness compiled so far (the others were another's copies) */
  double setup_ms;           /* ... and the time it spent on the arguments' data so far (generated or shared, uploaded) */
  tu_result r;               /* RESULT: times_ns owned */
  struct msg *next;
} msg;

typedef struct cmd {
  int32_t kind, purpose;     /* purpose: AGAIN's FOR_*; GO's 1 where the group normalizes (no sentinel of its own) */
  uint32_t worker, config;
  char reference[512];
} cmd;

/* ---- a worker on this rank */
/* Configurations a worker holds at once, at most. Brute force hands out runs of consecutive configurations, whose
 * modules and pipelines the worker's pool builds while its device measures (tu_prefetch: a held configuration is
 * one it can build ahead; with 8 held, Kernel Tuner's matmul, a compile of 47 ms per configuration, kept two H200s
 * waiting for the compiler); other strategies one at a time. */
#define CHUNK 32
/* measurements again (the reference, the final round's rounds) a worker holds at once; they go first */
#define AGAIN_MAX 128
/* configurations the search will hand out next, to whichever device (CMD_AHEAD): a worker's pool builds them after
 * its own, so that their modules, compiled once for the process, are ready for whichever device measures them (a
 * space whose compiles outweigh its measurements, Kernel Tuner's matmul, kept two H200s waiting for the compiler) */
#define AHEAD 16
typedef struct worker {
  struct fleet *f;
  uint32_t gid;              /* global index */
  vkocc_context *ctx;
  const char *device, *queue;
  tu_run run;
  pthread_t thread;
  bool started;
  /* inbox (f->mu) */
  bool go, stop;
  bool no_sentinel;          /* its group normalizes: the references, timed again through the run and at its end, show a
                              * drift, so its own sentinel (which nothing reads in a fleet) is not timed */
  uint32_t todo[CHUNK], head, ntodo; /* configurations handed to it, measured in order */
  tu_options to;             /* its harness's options (worker_main); measure_again changes min_runs for a reference */
  const json_t *fp_doc;      /* its member's fingerprint document (NULL: none) */
  uint32_t again[AGAIN_MAX], again_head, nagain;
  int32_t again_for[AGAIN_MAX];
  uint32_t ahead[AHEAD], ahead_head, nahead; /* CMD_AHEAD's, newest kept */
  char reference[512];
  pthread_cond_t cond;
  /* tests: VKOCC_TEST_FLEET_FAIL / _KILL "W:N,...": worker W fails (returns an error) / kills its process with
   * SIGKILL once it has measured N configurations */
  int64_t fail_after, kill_after;
  uint32_t done;
  /* tests: VKOCC_TEST_FLEET_SLOW "W:PERCENT": worker W's times scaled (a board of another speed);
   * VKOCC_TEST_FLEET_SYNTH=C: every valid time replaced by a known one, 100 us x (1 + 5% x |c - C|) (the best: C) */
  double scale;
  int64_t synth;
  /* tests: VKOCC_TEST_FLEET_DELAY "W:MS": worker W waits MS ms before each configuration for the search (a slower
   * board) */
  int64_t delay_ms;
} worker;

/* ---- every worker of every rank, as the coordinator sees it */
/* candidates of a shared search's final round, and its rounds (interleaved: c1..ck, c1..ck, ...): each a full
 * measurement of each candidate on each device */
#define FINAL_MAX 4
/* reference configurations of a shared search */
#define NREF 4
#define FINAL_ROUNDS 1
enum { PH_SEARCH, PH_LAST_REF, PH_FINAL, PH_DONE };

typedef struct slot {
  int rank;
  uint32_t group;
  tune_device_id dev;
  int64_t limits[TEXPR_NDEVICE];     /* its device's limits as a spec's conditions name them */
  char host[64];
  uint32_t inflight[CHUNK], ninflight; /* configurations handed to it, not yet measured */
  bool started, dead;
  uint32_t measured;
  char error[700];
  /* when (ms since the fleet began, the coordinator's clock) it was told to start, and its first and last results
   * for the search: what each device spent before it measured, and where it ended */
  double go_ms, first_ms, last_ms;
  uint32_t stolen;           /* configurations it took from another device's queue (steal) */
  bool end_ref;              /* its end-of-search reference asked already (idle while another device finishes) */
  uint32_t compiles;         /* what its worker last said it compiled, and spent on the arguments' data */
  double setup_ms;
  /* a shared search: measurements again in flight, configurations since its last reference point, the common
   * reference's points, and per final-round candidate its times on this device */
  uint32_t again_inflight, since_ref, ref_turn;
  fleet_point *pts;
  uint32_t npts;
  double *fin[FINAL_MAX];
  uint32_t nfin[FINAL_MAX];
} slot;

typedef struct group {
  char cluster_id[24];
  tu_run run;                /* the merged record */
  tune_device_id dev;        /* the document's device: its first member */
  const char *names[32];
  uint32_t nvals[32];
  tune_space sp;
  tune_search *ts;
  char output[1100], journal[1120];
  FILE *jf;
  int32_t *who;              /* per configuration: the slot that measured it, -1 none or resumed */
  uint8_t *told;             /* per configuration: told to the workers as coming next (tell_ahead) */
  json_t *prev_devices;      /* a resumed document's devices, and per configuration its device there */
  json_t *attrib;            /* resumed: configuration key -> index into prev_devices */
  int32_t *prev_who;
  bool ref_known, finished;
  char reference[512];
  char stopped[700];
  uint32_t nslots, resumed;
  uint32_t chunk;            /* configurations a worker holds at once (CHUNK for brute force, else 1) */
  double last_cp;
  /* Boards of one model differ, and by how much depends on the configuration (two H100s: 0.6% at the median; two
   * H200s: -2.5% to +5%), more than a median's spread: a search shared by several devices ranks by times
   * normalized to reference configurations that every device measures (reference_due, slot_factor). Where the
   * factors' spread could change the ranking, the candidates are timed again on every device (the final round) and
   * the answer is one device's raw time. */
  bool norm;
  uint32_t refs[NREF], nrefs; /* the reference configurations (reference_due) */
  int64_t win_best;          /* the fastest valid result of the current window (-1: none yet), and its valid results */
  uint32_t win_n;
  uint32_t every;            /* 0: at the start and the end only */
  int phase;                 /* PH_* */
  uint32_t cand[FINAL_MAX], ncand;
  int32_t final_slot;        /* the device whose final round is the answer (-1: none) */
  char note[700];
} group;

typedef struct fleet {
  const vkocc_tune_options *o;
  const char *spec_path, *name;
  bool resume;
  int rank, nranks;
  bool mpi;
  bool peer_lost;            /* a rank died or was given up: MPI_Finalize would wait for it for good */
  /* local workers */
  worker *w;
  uint32_t nw;
  pthread_mutex_t mu;
  pthread_cond_t out_cond;
  msg *out_head, *out_tail;
  /* coordinator */
  slot *slots;
  uint32_t nslots;
  group *g;
  uint32_t ng;
  uint32_t *coord;           /* MPI: the merged spaces' coordinates sent to a rank (per group) */
  double *heard;             /* MPI, coordinator: when each rank was last heard from (ms) */
  bool *lost;                /* ... and whether it is given up */
  double silent_ms, last_beat;
  double t0;                 /* when vkocc_tune_fleet began (ms) */
  /* where the process's part outside the search goes (ms since t0): the coordinator's loop began and ended, and every
   * worker had returned (its harness closed: buffers, pipelines, its pool) */
  double loop_ms, loop_end_ms, joined_ms;
  tu_shared *shared;         /* this rank's workers' data and modules, made once (tu_options.shared) */
} fleet;

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
static msg *take(fleet *f, double wait_ms) {
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

static void msg_free(msg *m) {
  if (m) free(m->r.times_ns), free(m);
}

/* ---- the worker thread */

/* the test hooks' times (worker.scale, worker.synth) in place of the measured ones */
static void test_times(const worker *w, uint32_t c, tu_result *r) {
  if (r->inv != TU_CORRECT || !r->runs || (w->scale == 1 && w->synth < 0)) return;
  double base = w->synth >= 0 ? 1e5 * (1 + 0.05 * fabs((double)c - (double)w->synth)) : 0;
  for (uint32_t i = 0; i < r->runs; i++)
    r->times_ns[i] = w->scale * (w->synth >= 0 ? base * (1 + 0.001 * (double)((int)(i % 5) - 2)) : r->times_ns[i]);
  r->median_ns = w->scale * (w->synth >= 0 ? base : r->median_ns);
  r->min_ns = w->scale * (w->synth >= 0 ? base * 0.998 : r->min_ns);
  r->max_ns = w->scale * (w->synth >= 0 ? base * 1.002 : r->max_ns);
  if (w->synth >= 0) r->spread = r->runs > 2 ? 0.001 : 0;
}

/* Configuration c measured afresh, whatever this worker measured before; its own record stays as it was. A
 * reference stops at 3 runs where the spread allows (the search's rule: 5): its points measure how the boards
 * differ, 0.5-3% by configuration against spreads of 0.01-0.3% on two H200s, and a drift, 5% at the least; each such
 * measurement is one that only a shared search makes (matmul 12288: 0.9 s a reference on an H200, six of them). */
static vkocc_status measure_again(worker *w, uint32_t c, int32_t purpose, tune_eval_fn eval, void *eval_user,
                                  tu_result *out) {
  tu_result keep = w->run.r[c];
  uint32_t nevals = w->run.nevals, min_runs = w->to.min_runs;
  memset(&w->run.r[c], 0, sizeof keep);
  w->run.r[c].P = -1;
  bool full_rule = w->to.full_rule;
  if (purpose == FOR_REFERENCE && (!min_runs || min_runs > 3)) w->to.min_runs = 3;
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
    msg *m = vkocc_xcalloc(1, sizeof *m);
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
        m->r.times_ns = vkocc_xmalloc(((size_t)m->r.runs + 1) * sizeof *m->r.times_ns);
        if (m->r.runs) memcpy(m->r.times_ns, w->run.r[c].times_ns, m->r.runs * sizeof *m->r.times_ns);
      }
    }
    if (st) {
      msg_free(m);
      return st;
    }
    test_times(w, c, &m->r);
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
  /* budget, confirm and checkpoints belong to the coordinator; the sentinel stays per device where the group does not
   * normalize (a device alone in its cluster) */
  w->to = (tu_options){.strategy = o->strategy, .seed = o->seed, .reference = o->reference, .always_P = o->always_occupancy,
                   .target_spread = o->target_spread, .max_runs = o->max_runs, .full_rule = o->full_rule, .timeout_s = o->timeout_s,
                   .warmup_ms = o->warmup_ms, .warmup_ratio = o->warmup_ratio,
                   .sentinel_every = w->no_sentinel ? -1 : o->sentinel_every,
                   .confirm = -1, .reopen = worker_reopen, .user = w, .drive = worker_drive, .drive_user = w,
                   .shared = f->shared, .fp_doc = w->fp_doc};
  vkocc_status st = tu_tune(&w->ctx, &w->run, &w->to);
  if (st) {
    msg *m = vkocc_xcalloc(1, sizeof *m);
    m->kind = MSG_FAILED, m->worker = w->gid;
    snprintf(m->error, sizeof m->error, "%s", vkocc_last_error());
    post(f, m);
  }
  return NULL;
}

/* commands to a worker of this rank */
static void worker_command(fleet *f, worker *w, const cmd *c) {
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

/* ---- the coordinator */

static vkocc_status send_command(fleet *f, const cmd *c) {
  if (f->slots[c->worker].rank == f->rank) {
    /* this rank's workers come first, in order */
    worker_command(f, &f->w[c->worker], c);
    return VKOCC_OK;
  }
  return fleet_mpi_send(f->slots[c->worker].rank, TAG_CMD, c, sizeof *c, f->silent_ms);
}

static vkocc_status send_cmd(fleet *f, uint32_t sl, int kind, uint32_t config, const char *reference) {
  cmd c = {.kind = kind, .worker = sl, .config = config};
  if (reference) snprintf(c.reference, sizeof c.reference, "%s", reference);
  return send_command(f, &c);
}

static bool needs_reference_run(const tu_run *run, const vkocc_tune_options *o) {
  if (run->spec.nrefs || (o->reference && o->reference[0])) return false;
  for (uint32_t i = 0; i < run->spec.nargs; i++)
    if (run->spec.args[i].output) return true;
  return false;
}

/* a device entry of a document: the same device (key and UUID: two GPUs of one model share the key), rank and host */
static bool same_device_entry(json_t *p, const char *key, const char *uuid, int64_t rank, const char *host) {
  const char *pk = json_string_value(json_object_get(p, "key")), *pu = json_string_value(json_object_get(p, "uuid"));
  const char *ph = json_string_value(json_object_get(p, "host"));
  return pk && pu && ph && !strcmp(pk, key) && !strcmp(pu, uuid) && !strcmp(ph, host) &&
         json_integer_value(json_object_get(p, "rank")) == rank;
}

static json_t *norm_json(const fleet *f, uint32_t gi, const int32_t *index);
static int64_t fleet_best(const fleet *f, uint32_t gi, double *ns, int32_t *slot);
static double result_norm_ns(const fleet *f, uint32_t gi, uint32_t c);
static json_t *fleet_document(fleet *f, group *g) {
  char when[32];
  vkocc_utc_now(when, sizeof when);
  json_t *doc = tu_results_json(&g->run, &g->dev, when);
  /* every device that measured in this cluster, the resumed document's first */
  json_t *devs = json_array();
  size_t nprev = g->prev_devices ? json_array_size(g->prev_devices) : 0;
  for (size_t i = 0; i < nprev; i++) json_array_append_new(devs, json_deep_copy(json_array_get(g->prev_devices, i)));
  uint8_t *claimed = vkocc_xcalloc(nprev + 1, 1);
  int32_t *index = vkocc_xcalloc(f->nslots + 1, sizeof *index);
  for (uint32_t s = 0; s < f->nslots; s++) {
    slot *sl = &f->slots[s];
    index[s] = -1;
    if (sl->group != (uint32_t)(g - f->g)) continue;
    json_t *d = vkocc_device_identity_json(&sl->dev.id);
    char uuid[37];
    vkocc_format_uuid(sl->dev.id.uuid, uuid);
    json_object_set_new(d, "uuid", json_string(uuid));
    json_object_set_new(d, "rank", json_integer(sl->rank));
    json_object_set_new(d, "host", json_string(sl->host));
    json_object_set_new(d, "measured", json_integer(sl->measured));
    /* where this run's time went on it: told to start, its first result, its last (ms since the fleet began) */
    if (sl->measured)
      json_object_set_new(d, "timeline", json_pack("{s:f, s:f, s:f, s:I, s:f, s:I}", "go_ms", sl->go_ms, "first_result_ms",
                                                   sl->first_ms, "last_result_ms", sl->last_ms, "compiles",
                                                   (json_int_t)sl->compiles, "setup_ms", sl->setup_ms, "stolen",
                                                   (json_int_t)sl->stolen));
    if (sl->error[0]) json_object_set_new(d, "error", json_string(sl->error));
    /* the same device, rank and host in the resumed document: one entry, its counts added */
    for (size_t i = 0; i < nprev && index[s] < 0; i++) {
      json_t *p = json_array_get(devs, i);
      if (claimed[i] || !same_device_entry(p, sl->dev.id.key, uuid, sl->rank, sl->host)) continue;
      claimed[i] = 1, index[s] = (int32_t)i;
      json_object_set_new(d, "measured", json_integer(sl->measured + json_integer_value(json_object_get(p, "measured"))));
      json_array_set_new(devs, i, d);
    }
    if (index[s] >= 0) continue;
    index[s] = (int32_t)json_array_size(devs);
    json_array_append_new(devs, d);
  }
  free(claimed);
  json_object_set_new(doc, "devices", devs);
  /* each result names its device: the results are in the record's evaluation order, then resumed ones */
  json_t *res = json_object_get(doc, "results");
  json_t *keys = json_object(), *norms = json_object();
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    int32_t d = g->who[c] >= 0 ? index[g->who[c]] : g->prev_who ? g->prev_who[c] : -1;
    if (d < 0 || !g->run.r[c].measured) continue;
    char key[1024];
    t1_config_key(&g->run.spec, g->run.space.coord + (size_t)c * g->run.spec.nparams, key, sizeof key);
    json_object_set_new(keys, key, json_integer(d));
    if (g->norm) json_object_set_new(norms, key, json_real(result_norm_ns(f, (uint32_t)(g - f->g), c)));
  }
  size_t i;
  json_t *e;
  json_array_foreach(res, i, e) {
    char *k = json_dumps(json_object_get(e, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    json_t *d = k ? json_object_get(keys, k) : NULL;
    if (d) json_object_set(e, "device", d);
    /* the time the search ranked it by: its median in the base device's speed */
    json_t *nv = k ? json_object_get(norms, k) : NULL;
    if (nv) json_object_set(e, "normalized_ns", nv);
    free(k);
  }
  json_decref(keys), json_decref(norms);
  json_t *fl = json_pack("{s:i, s:I, s:s?}", "ranks", f->nranks, "devices", (json_int_t)g->nslots, "stopped",
                         g->stopped[0] ? g->stopped : NULL);
  /* before the search (the spec, the groups, the workers' threads started) and after it (the workers' harnesses
   * closed), ms: the library's own part of a run outside elapsed_ms */
  if (f->joined_ms > 0)
    json_object_set_new(fl, "outside_ms", json_pack("{s:f, s:f}", "before", f->loop_ms, "after", f->joined_ms - f->loop_end_ms));
  if (g->norm) {
    uint32_t gi = (uint32_t)(g - f->g);
    json_object_set_new(fl, "normalization", norm_json(f, gi, index));
    /* the best: a raw time one device measured (the final round's, else the normalized best's own median) */
    double ns;
    int32_t who;
    int64_t b = fleet_best(f, gi, &ns, &who);
    if (b >= 0) {
      const t1_spec *sp = &g->run.spec;
      json_t *best = json_pack("{s:o, s:f, s:I, s:s}", "config", t1_config_json(sp, g->run.space.coord + (size_t)b * sp->nparams),
                               "median_ns", ns, "P", (json_int_t)g->run.r[b].P, "ranked_by",
                               g->final_slot >= 0 && g->run.r[b].confirm_runs ? "final_round" : "normalized");
      json_object_set_new(best, "normalized_ns", json_real(result_norm_ns(f, gi, (uint32_t)b)));
      json_object_set_new(best, "device", who >= 0 && index[who] >= 0 ? json_integer(index[who]) : json_null());
      json_object_set_new(doc, "best", best);
    }
  }
  free(index);
  json_object_set_new(doc, "fleet", fl);
  return doc;
}

static void journal_restart(group *g);
static vkocc_status checkpoint(fleet *f, group *g) {
  bool worth = false;
  for (uint32_t c = 0; c < g->run.space.count && !worth; c++) worth = g->run.r[c].measured && g->run.r[c].inv != TU_COMPILE;
  g->last_cp = vkocc_now_ms();
  if (!worth) return VKOCC_OK; /* a kernel that compiles for nothing leaves the previous file as it was */
  json_t *doc = fleet_document(f, g);
  vkocc_status st = vkocc_json_write(doc, g->output);
  json_decref(doc);
  if (!st) journal_restart(g); /* everything it held is in the document now */
  return st;
}

/* The journal: each result as it arrives (the configuration's key, the device's key, the result's bytes and its
 * times), so a run killed between two checkpoints loses only what was in flight. A checkpoint empties it. Its
 * header pins the layout, the vkocc version and the spec; a journal that does not match is set aside. */
typedef struct jhead { char magic[8]; uint32_t layout; char version[32]; char hash[40]; } jhead;
_Static_assert(sizeof(jhead) == FLEET_JOURNAL_HEADER, "the journal's header");

static void journal_header(const tu_run *run, jhead *h);
void fleet_journal_header(const tu_run *run, void *out) { journal_header(run, out); }

static void journal_header(const tu_run *run, jhead *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, "vkoccFJ1", 8);
  h->layout = (uint32_t)sizeof(tu_result);
  snprintf(h->version, sizeof h->version, "%s", vkocc_version());
  snprintf(h->hash, sizeof h->hash, "%s", run->spec.hash);
}

/* through the door for the files vkocc makes itself: a link (to a file or to nothing), a FIFO or a device put at
 * OUTPUT.journal is refused naming it, never followed, written or waited on */
static vkocc_status journal_open(group *g) {
  int fd;
  vkocc_status st = vkocc_door_open(g->journal, O_WRONLY | O_CREAT | O_TRUNC, 0644, &fd);
  if (st) return st;
  g->jf = fdopen(fd, "wb");
  if (!g->jf) {
    int e = errno;
    close(fd);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot write the journal: %s", g->journal, strerror(e));
  }
  jhead h;
  journal_header(&g->run, &h);
  fwrite(&h, sizeof h, 1, g->jf);
  fflush(g->jf);
  return VKOCC_OK;
}

void fleet_journal_record(FILE *f, const tu_run *run, uint32_t c, const char *device_key, const char *uuid, int32_t rank,
                          const char *host) {
  char key[1024], h[64] = "", u[40] = "";
  snprintf(u, sizeof u, "%s", uuid);
  t1_config_key(&run->spec, run->space.coord + (size_t)c * run->spec.nparams, key, sizeof key);
  snprintf(h, sizeof h, "%s", host);
  const tu_result *r = &run->r[c];
  uint32_t kl = (uint32_t)strlen(key), dl = (uint32_t)strlen(device_key);
  fwrite(&kl, 4, 1, f), fwrite(key, 1, kl, f);
  fwrite(&dl, 4, 1, f), fwrite(device_key, 1, dl, f);
  fwrite(u, 1, sizeof u, f), fwrite(&rank, 4, 1, f), fwrite(h, 1, sizeof h, f);
  fwrite(r, sizeof *r, 1, f);
  if (r->runs) fwrite(r->times_ns, sizeof *r->times_ns, r->runs, f);
  fflush(f);
}

static void journal_append(group *g, uint32_t c, const slot *sl) {
  char uuid[37];
  vkocc_format_uuid(sl->dev.id.uuid, uuid);
  if (g->jf) fleet_journal_record(g->jf, &g->run, c, sl->dev.id.key, uuid, sl->rank, sl->host);
}

static void journal_restart(group *g) {
  if (g->jf) fclose(g->jf), g->jf = NULL;
  if (journal_open(g)) /* something put in its place since the start: the document holds what was measured */
    fprintf(stderr, "vkocc tune: note: no journal from now on: %s\n", vkocc_last_error());
}

static void record(fleet *f, group *g, uint32_t sl, uint32_t c, tu_result *r) {
  tu_run *run = &g->run;
  free(run->r[c].times_ns);
  run->r[c] = *r;
  r->times_ns = NULL;
  run->order = vkocc_xrealloc(run->order, ((size_t)run->nevals + 1) * sizeof *run->order);
  run->order[run->nevals++] = c;
  g->who[c] = (int32_t)sl;
  f->slots[sl].measured++;
  f->slots[sl].last_ms = vkocc_now_ms() - f->t0;
  if (f->slots[sl].measured == 1) f->slots[sl].first_ms = f->slots[sl].last_ms;
  run->measure_ms += r->measure_ms, run->pipelines_ms += r->pipeline_ms, run->compile_ms += r->compile_ms;
  run->occupancy_ms += r->occupancy_ms;
  run->device_ms += r->device_ms; /* the configurations' device time: each worker's setup stays its own */
  journal_append(g, c, &f->slots[sl]);
}

/* ---- resume: the document, then the journal's results it does not hold yet */

static json_t *key_index(const tu_run *run) {
  json_t *index = json_object();
  for (uint32_t c = 0; c < run->space.count; c++) {
    char key[1024];
    t1_config_key(&run->spec, run->space.coord + (size_t)c * run->spec.nparams, key, sizeof key);
    json_object_set_new(index, key, json_integer(c));
  }
  return index;
}

static vkocc_status resume_group(group *g) {
  vkocc_status st;
  g->prev_devices = json_array(), g->attrib = json_object();
  if (access(g->output, F_OK) == 0) {
    if ((st = tu_results_resume(g->output, &g->run, g->dev.id.key))) return st;
    json_t *doc;
    if ((st = vkocc_doc_load(g->output, VKOCC_DOC_TUNE_RESULTS, &doc))) return st;
    json_t *devs = json_object_get(doc, "devices");
    if (json_is_array(devs)) json_array_extend(g->prev_devices, devs);
    else json_array_append(g->prev_devices, json_object_get(doc, "device")); /* one device measured it all */
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, "results"), i, e) {
      char *k = json_dumps(json_object_get(e, "config"), JSON_COMPACT | JSON_SORT_KEYS);
      json_t *d = json_object_get(e, "device");
      if (k) json_object_set_new(g->attrib, k, json_integer(json_is_integer(d) ? json_integer_value(d) : 0));
      free(k);
    }
    json_decref(doc);
  }
  g->resumed = g->run.resumed;
  uint32_t applied = 0;
  st = fleet_journal_read(g->journal, &g->run, g->prev_devices, g->attrib, &applied);
  g->resumed += applied;
  return st;
}

/* a bool holding another byte is undefined behaviour once loaded: tu_result's bools checked as bytes first */
static bool bools_ok(const unsigned char *b) {
  return b[offsetof(tu_result, measured)] <= 1 && b[offsetof(tu_result, P_model)] <= 1;
}

static bool result_shape(tu_result *r);
bool fleet_result_from_bytes(const void *bytes, tu_result *r) {
  if (!bools_ok(bytes)) return false;
  memcpy(r, bytes, sizeof *r);
  return result_shape(r); /* its numbers: tu_record_check, where the journal is read */
}

bool fleet_result_sane(tu_result *r) {
  /* a valid result is ranked by its median: it needs runs and a positive, finite one */
  return result_shape(r) && (r->inv != TU_CORRECT || (r->runs && r->median_ns > 0 && isfinite(r->median_ns)));
}

static bool result_shape(tu_result *r) {
  r->error[sizeof r->error - 1] = 0, r->when[sizeof r->when - 1] = 0;
  r->times_ns = NULL;
  /* the clock evidence goes into the document as numbers: nothing a corrupt journal makes non-finite */
  if (!isfinite(r->clock_min) || !isfinite(r->clock_max) || !isfinite(r->clock_steady))
    r->clock_min = r->clock_max = r->clock_steady = 0;
  if (!isfinite(r->device_ms) || !isfinite(r->wait_ms)) r->device_ms = r->wait_ms = 0;
  /* P from another configuration: a known kind, and an index the reader bounds (or none) */
  if (r->P_memo > TU_P_SAME_RESOURCES) r->P_memo = TU_P_OWN;
  if (r->P_from < -1) r->P_from = -1;
  return r->measured && (unsigned)r->inv <= TU_CONSTRAINTS && r->runs <= 1000000;
}

vkocc_status fleet_journal_read(const char *path, tu_run *run, json_t *devices, json_t *attrib, uint32_t *applied) {
  *applied = 0;
  int fd;
  vkocc_status ost = vkocc_door_open(path, O_RDONLY, 0, &fd);
  if (ost && errno == ENOENT) { vkocc_clear_error(); return VKOCC_OK; } /* no journal: the run before ended normally */
  if (ost) return ost; /* a link, a FIFO, a device: named, never followed or waited on */
  FILE *jf = fdopen(fd, "rb");
  if (!jf) {
    close(fd);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot read %s: %s", path, strerror(errno));
  }
  jhead h, want;
  journal_header(run, &want);
  if (fread(&h, sizeof h, 1, jf) != 1 || memcmp(&h, &want, sizeof h)) {
    fclose(jf);
    fprintf(stderr, "vkocc tune: note: %s is the journal of another spec or vkocc build; set aside\n", path);
    return VKOCC_OK;
  }
  json_t *index = key_index(run);
  /* each configuration at most once in a journal (the coordinator records a configuration once per run) */
  int64_t *first = vkocc_xmalloc(((size_t)run->space.count + 1) * sizeof *first);
  for (uint32_t c = 0; c <= run->space.count; c++) first[c] = -1;
  vkocc_status st = VKOCC_OK;
  /* A record cut short is the end (a kill while it was written); a whole record that is not one vkocc writes is
   * refused, never resumed: its numbers would be ranked */
  for (uint32_t rec = 1;; rec++) {
    uint32_t kl, dl;
    char key[1024], dkey[700];
    tu_result r;
    if (fread(&kl, 4, 1, jf) != 1) break;
    if (kl >= sizeof key) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u: a key of %u bytes: not a journal vkocc writes "
                                            "(remove it to resume from the document alone)", path, rec, kl); break; }
    if (fread(key, 1, kl, jf) != kl || fread(&dl, 4, 1, jf) != 1) break;
    key[kl] = 0;
    if (dl >= sizeof dkey) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u (%s): a device key of %u bytes: not a journal "
                                             "vkocc writes (remove it to resume from the document alone)", path, rec, key, dl); break; }
    if (fread(dkey, 1, dl, jf) != dl) break;
    int32_t rank;
    char host[64], uuid[40];
    if (fread(uuid, 1, sizeof uuid, jf) != sizeof uuid || fread(&rank, 4, 1, jf) != 1 || fread(host, 1, sizeof host, jf) != sizeof host)
      break;
    dkey[dl] = 0, host[sizeof host - 1] = 0, uuid[sizeof uuid - 1] = 0;
    unsigned char raw[sizeof r];
    if (fread(raw, sizeof raw, 1, jf) != 1) break;
    if (!fleet_result_from_bytes(raw, &r)) {
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u (%s): not a result vkocc writes (a flag, an invalidity or a count of "
                      "runs out of range): refused (remove the journal to resume from the document alone)", path, rec, key);
      break;
    }
    r.times_ns = vkocc_xmalloc(((size_t)r.runs + 1) * sizeof *r.times_ns);
    if (r.runs && fread(r.times_ns, sizeof *r.times_ns, r.runs, jf) != r.runs) { free(r.times_ns); break; }
    json_t *ci = json_object_get(index, key);
    int64_t c = ci ? json_integer_value(ci) : -1;
    /* the one check of a recorded result (tune/user_results.h), as --resume from a document and --replay do */
    tu_record rv = {.config = c, .empty = !strcmp(key, "{}"), .valid = r.inv == TU_CORRECT, .times = r.times_ns,
                    .ntimes = r.runs, .time = r.median_ns, .time_is_median = true, .times_name = "its times",
                    .time_name = "median_ns"};
    char why[300];
    bool ok = tu_record_check(&rv, first, rec, "record %lld", why, sizeof why);
    if (ok && rv.valid && !r.runs) ok = false, snprintf(why, sizeof why, "a valid result without runs");
    if (!ok) {
      free(r.times_ns);
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u (%s): %s: refused, nothing resumed (remove the journal to resume "
                      "from the document alone)", path, rec, key, why);
      break;
    }
    /* the device: one the resumed document names, else a new entry (a name that is no text: the record is not) */
    int32_t d = -1;
    for (size_t k = 0; k < json_array_size(devices) && d < 0; k++) {
      json_t *p = json_array_get(devices, k);
      if (same_device_entry(p, dkey, uuid, rank, host)) d = (int32_t)k;
    }
    json_t *entry = d < 0 ? json_pack("{s:s, s:s, s:i, s:s, s:i}", "key", dkey, "uuid", uuid, "rank", rank, "host", host,
                                      "measured", 0) : NULL;
    if (run->r[c].measured || (d < 0 && !entry)) { /* the document holds it already (a kill after a checkpoint) */
      json_decref(entry);
      free(r.times_ns);
      continue;
    }
    if (d < 0) d = (int32_t)json_array_size(devices), json_array_append_new(devices, entry);
    free(run->r[c].times_ns);
    r.P_from = -1; /* an index into the space of the run that wrote it (another --only, another order) */
    run->r[c] = r;
    json_t *p = json_array_get(devices, (size_t)d);
    json_object_set_new(p, "measured", json_integer(json_integer_value(json_object_get(p, "measured")) + 1));
    json_object_set_new(attrib, key, json_integer(d));
    run->resumed++, (*applied)++;
  }
  free(first);
  json_decref(index);
  fclose(jf);
  return st;
}

/* after --only: each resumed configuration's device, by its key */
static void attribute_resumed(group *g) {
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    g->prev_who[c] = -1;
    if (!g->attrib || !g->run.r[c].measured) continue;
    char key[1024];
    t1_config_key(&g->run.spec, g->run.space.coord + (size_t)c * g->run.spec.nparams, key, sizeof key);
    json_t *d = json_object_get(g->attrib, key);
    if (d) g->prev_who[c] = (int32_t)json_integer_value(d);
  }
}

/* ---- the coordinator's loop */

static void slot_failed(fleet *f, uint32_t s, const char *why) {
  slot *sl = &f->slots[s];
  group *g = &f->g[sl->group];
  if (sl->dead) return;
  sl->dead = true;
  snprintf(sl->error, sizeof sl->error, "%s", why);
  for (uint32_t i = 0; i < sl->ninflight; i++) tune_search_requeue(g->ts, sl->inflight[i]); /* another device measures them */
  sl->ninflight = 0, sl->again_inflight = 0;
  bool alive = false;
  for (uint32_t k = 0; k < f->nslots; k++) alive |= f->slots[k].group == sl->group && !f->slots[k].dead;
  if (!alive && !g->finished) {
    snprintf(g->stopped, sizeof g->stopped, "every device of the cluster failed; the last: %s", why);
    tune_search_stop(g->ts);
  }
  fprintf(stderr, "vkocc tune: device %s (rank %d) left the search: %s\n", sl->dev.id.name, sl->rank, why);
}

/* ---- a shared search: times normalized to common references, the final round */

bool fleet_reference_of(const fleet_point *p, uint32_t n, double *ref_ns, double *spread) {
  *ref_ns = 0, *spread = 0;
  if (!n) return false;
  double *v = vkocc_xmalloc(n * sizeof *v), *d = vkocc_xmalloc(n * sizeof *d);
  for (uint32_t i = 0; i < n; i++) v[i] = p[i].median_ns, d[i] = p[i].spread;
  double ref = vkocc_median(v, n), sp = vkocc_median(d, n) / sqrt((double)n);
  if (n >= 2 && ref > 0) {
    for (uint32_t i = 0; i < n; i++) v[i] = fabs(p[i].median_ns - ref);
    double mad = vkocc_median(v, n) / ref;
    if (mad > sp) sp = mad;
  }
  free(v), free(d);
  if (!(ref > 0) || !isfinite(ref) || !isfinite(sp)) return false;
  *ref_ns = ref, *spread = sp;
  return true;
}

bool fleet_factor_of(const double *ratio, const double *noise, uint32_t n, double *factor, double *spread) {
  *factor = 0, *spread = 0;
  if (!n) return false;
  double *v = vkocc_xmalloc(n * sizeof *v);
  memcpy(v, ratio, n * sizeof *v);
  double fa = vkocc_median(v, n);
  for (uint32_t i = 0; i < n; i++) v[i] = fabs(ratio[i] - fa);
  double mad = n >= 2 && fa > 0 ? vkocc_median(v, n) / fa : 0;
  memcpy(v, noise, n * sizeof *v);
  double nz = vkocc_median(v, n);
  free(v);
  if (!(fa > 0) || !isfinite(fa) || !isfinite(mad) || !isfinite(nz)) return false;
  *factor = fa, *spread = mad > nz ? mad : nz;
  return true;
}

/* the device whose speed normalized times are in: the group's first with a reference point (-1: none yet) */
static int32_t base_slot(const fleet *f, uint32_t gi) {
  for (uint32_t s = 0; s < f->nslots; s++)
    if (f->slots[s].group == gi && f->slots[s].npts) return (int32_t)s;
  return -1;
}

/* device s's time of reference j: its points of j (fleet_reference_of) */
static bool ref_time(const fleet *f, uint32_t s, uint32_t j, double *t, double *u) {
  const slot *sl = &f->slots[s];
  fleet_point *p = vkocc_xmalloc((sl->npts + 1) * sizeof *p);
  uint32_t n = 0;
  for (uint32_t i = 0; i < sl->npts; i++)
    if (sl->pts[i].ref == j) p[n++] = sl->pts[i];
  bool ok = fleet_reference_of(p, n, t, u);
  free(p);
  return ok;
}

/* Device s's factor against the base device (1 for the base itself, spread 0) from the references both measured:
 * fleet_factor_of over their ratios. *nratios: how many. False without a common reference. */
static bool slot_factor(const fleet *f, uint32_t gi, uint32_t s, double *factor, double *spread, uint32_t *nratios) {
  const group *g = &f->g[gi];
  int32_t b = g->norm ? base_slot(f, gi) : -1;
  double ratio[NREF], noise[NREF], ts, us, tb, ub;
  uint32_t n = 0;
  for (uint32_t j = 0; b >= 0 && j < g->nrefs; j++)
    if (ref_time(f, s, j, &ts, &us) && ref_time(f, (uint32_t)b, j, &tb, &ub)) {
      ratio[n] = ts / tb, noise[n] = (uint32_t)b == s ? 0 : sqrt(us * us + ub * ub);
      n++;
    }
  if (nratios) *nratios = n;
  if (b >= 0 && (uint32_t)b == s && n) return *factor = 1, *spread = 0, true;
  return fleet_factor_of(ratio, noise, n, factor, spread);
}

/* how far the factors of devices a and c may put one configuration's normalized time (INFINITY: unknown) */
static double pair_spread(const fleet *f, uint32_t gi, uint32_t a, uint32_t c) {
  double fa, ua, fc, uc;
  if (a == c) return 0;
  if (!slot_factor(f, gi, a, &fa, &ua, NULL) || !slot_factor(f, gi, c, &fc, &uc, NULL)) return INFINITY;
  return sqrt(ua * ua + uc * uc);
}

/* Whether device s's factor is applied: only where the boards' offset exceeds the factor's spread. Within it, the
 * references' own configuration-dependence decides the factor more than the boards do, and dividing by it adds
 * noise: on two H200s (docs/results/h100x2/fleet, run 5) a factor of 1.0079 +- 1.03% from 4 references put 61 of
 * 117 configurations within their spreads of the other board, raw times 75, the best constant possible 73. */
static bool factor_applies(const fleet *f, uint32_t gi, uint32_t s, double *factor) {
  double u;
  bool known = slot_factor(f, gi, s, factor, &u, NULL);
  return fleet_factor_applies(known, *factor, u);
}

bool fleet_drift_of(const fleet_point *p, uint32_t n, uint32_t *ref, uint32_t *npoints, double *range, double *spread) {
  bool any = false;
  *ref = 0, *npoints = 0, *range = 0, *spread = 0;
  for (uint32_t j = 0; j < NREF; j++) {
    double lo = INFINITY, hi = 0, u = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
      if (p[i].ref == j) k++, lo = fmin(lo, p[i].median_ns), hi = fmax(hi, p[i].median_ns), u = fmax(u, p[i].spread);
    if (k < 2 || !(lo > 0)) continue;
    double r = (hi - lo) / lo;
    if (!any || r > *range) *ref = j, *npoints = k, *range = r, *spread = u, any = true;
  }
  return any;
}

bool fleet_factor_applies(bool known, double factor, double spread) { return known && fabs(factor - 1) > spread; }

/* a time device s measured, in the base device's speed (raw where its factor does not apply) */
static double norm_ns(const fleet *f, uint32_t gi, uint32_t s, double raw) {
  double fa;
  return factor_applies(f, gi, s, &fa) ? raw / fa : raw;
}

static double result_norm_ns(const fleet *f, uint32_t gi, uint32_t c) {
  const group *g = &f->g[gi];
  double raw = g->run.r[c].median_ns;
  return g->who[c] >= 0 ? norm_ns(f, gi, (uint32_t)g->who[c], raw) : raw;
}

static bool result_valid(const tu_result *r) { return r->measured && r->inv == TU_CORRECT && r->runs > 0 && r->median_ns > 0; }

/* configuration c measured again on device s (a reference, or the final round); it goes first on the worker */
static void ask_again(fleet *f, uint32_t s, uint32_t c, int32_t purpose) {
  slot *sl = &f->slots[s];
  if (sl->dead || !sl->started) return;
  cmd x = {.kind = CMD_AGAIN, .purpose = purpose, .worker = s, .config = c};
  vkocc_status st = VKOCC_OK;
  if (sl->rank == f->rank) worker_command(f, &f->w[s], &x);
  else st = fleet_mpi_send(sl->rank, TAG_CMD, &x, sizeof x, f->silent_ms);
  if (st) {
    slot_failed(f, s, vkocc_last_error());
    return;
  }
  sl->again_inflight++;
  if (purpose == FOR_REFERENCE) sl->since_ref = 0;
}

/* every reference known so far, on device s (its start, the end) */
static void ask_references(fleet *f, uint32_t s) {
  const group *g = &f->g[f->slots[s].group];
  for (uint32_t j = 0; j < g->nrefs; j++) ask_again(f, s, g->refs[j], FOR_REFERENCE);
}

/* a point of reference j on device sl: its time as r measured it, after sl's search results so far */
static void add_point(slot *sl, uint32_t j, const tu_result *r) {
  sl->pts = vkocc_xrealloc(sl->pts, (sl->npts + 1) * sizeof *sl->pts);
  sl->pts[sl->npts++] = (fleet_point){.ref = j, .after = sl->measured, .median_ns = r->median_ns, .spread = r->spread,
                                      .runs = r->runs};
}

static void again_result(fleet *f, uint32_t s, const msg *m) {
  slot *sl = &f->slots[s];
  group *g = &f->g[sl->group];
  if (sl->again_inflight) sl->again_inflight--;
  if (sl->dead || !result_valid(&m->r)) return;
  for (uint32_t j = 0; m->purpose == FOR_REFERENCE && j < g->nrefs; j++) {
    if (g->refs[j] != m->config) continue;
    add_point(sl, j, &m->r);
    return;
  }
  for (uint32_t k = 0; m->purpose == FOR_FINAL && k < g->ncand; k++) {
    if (g->cand[k] != m->config) continue;
    sl->fin[k] = vkocc_xrealloc(sl->fin[k], (sl->nfin[k] + m->r.runs) * sizeof *sl->fin[k]);
    memcpy(sl->fin[k] + sl->nfin[k], m->r.times_ns, m->r.runs * sizeof *m->r.times_ns);
    sl->nfin[k] += m->r.runs;
  }
}

/* A reference is the fastest valid result of a window of results (by raw median, among those measured for this
 * search): re-timing it on every other device costs each of them one measurement, which on a slow kernel is most of
 * what normalizing costs (matmul 8192 on two H200s, docs/results/h100x2/fleet run 8: the references the first valid
 * results happened to be, 48-112 ms a run, 0.3-0.7 s a measurement, against the best's 29 ms). Windows of count /
 * (2 NREF) valid results (at least 2), one after the other, so that the references are of different kinds (their
 * ratios show how much the boards' difference depends on the configuration). */

/* The window's fastest becomes reference nrefs: its own result is the first point of the device that measured it,
 * and every other device of the cluster measures it once known. */
static void close_window(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  if (g->win_best < 0 || g->nrefs >= NREF) return;
  uint32_t c = (uint32_t)g->win_best, s = (uint32_t)g->who[c];
  slot *sl = &f->slots[s];
  const tu_result *r = &g->run.r[c];
  g->win_best = -1, g->win_n = 0;
  if (sl->dead) return;
  add_point(sl, g->nrefs, r);
  g->refs[g->nrefs++] = c;
  for (uint32_t k = 0; k < f->nslots; k++)
    if (k != s && f->slots[k].group == gi) ask_again(f, k, c, FOR_REFERENCE);
}

/* The reference a device times at its end: the cheapest (the fastest as first measured). Every device has an earlier
 * point of every reference, so any of them shows a drift there; on Kernel Tuner's matmul at 8192 they cost 29 to 49 ms
 * a run. */
static uint32_t end_reference(const group *g) {
  uint32_t best = g->refs[0];
  for (uint32_t j = 1; j < g->nrefs; j++)
    if (g->run.r[g->refs[j]].median_ns < g->run.r[best].median_ns) best = g->refs[j];
  return best;
}

/* After a result for the search (recorded). The references: the fastest of each window of valid results
 * (close_window), each measured on every other device once known. Then one of them, in turn, every `every`
 * configurations of a device and at its end, so that a drift shows. */
static void reference_due(fleet *f, uint32_t s, uint32_t c) {
  slot *sl = &f->slots[s];
  group *g = &f->g[sl->group];
  if (!g->norm) return;
  sl->since_ref++;
  const tu_result *r = &g->run.r[c];
  if (result_valid(r) && !r->stopped && g->nrefs < NREF) { /* a result the race stopped is no reference: 2 runs */
    if (g->win_best < 0 || r->median_ns < g->run.r[g->win_best].median_ns) g->win_best = c;
    uint32_t window = g->run.space.count / (2 * NREF);
    if (++g->win_n >= (window > 2 ? window : 2)) close_window(f, sl->group);
  }
  if (g->nrefs && g->every && sl->since_ref >= g->every) ask_again(f, s, g->refs[sl->ref_turn++ % g->nrefs], FOR_REFERENCE);
}

/* The final round's candidates. The best by normalized time, and each configuration another device measured whose
 * normalized time lies within the normalization's uncertainty of it (the two devices' reference spreads
 * combined): only there can the factors' error change the ranking, so only then is there a final round (no
 * candidate beside the best: its own raw median is the answer). With options->confirm K: the K best, always. The
 * note says which. */
static void pick_candidates(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  uint32_t want = f->o->confirm > 0 ? (uint32_t)f->o->confirm : FINAL_MAX;
  if (want > FINAL_MAX) want = FINAL_MAX;
  g->ncand = 0;
  int64_t first = -1;
  double t0 = INFINITY, dmin = INFINITY, umax = 0;
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    double t = result_valid(&g->run.r[c]) ? result_norm_ns(f, gi, c) : INFINITY;
    if (t < t0) t0 = t, first = c;
  }
  if (first < 0) return;
  g->cand[g->ncand++] = (uint32_t)first;
  int32_t sb = g->who[first];
  uint32_t close = 0;
  while (g->ncand < want) {
    int64_t next = -1;
    double bt = INFINITY, bu = 0;
    for (uint32_t c = 0; c < g->run.space.count; c++) {
      bool taken = false;
      for (uint32_t k = 0; k < g->ncand && !taken; k++) taken = g->cand[k] == c;
      if (taken || !result_valid(&g->run.r[c])) continue;
      double t = result_norm_ns(f, gi, c), u = 0;
      int32_t sk = g->who[c];
      if (f->o->confirm <= 0) { /* only where the factors could be what ranks it below the best */
        if (sb < 0 || sk < 0 || sk == sb) continue;
        u = pair_spread(f, gi, (uint32_t)sb, (uint32_t)sk);
        if (t / t0 - 1 >= u) continue; /* (an unknown factor: INFINITY, a candidate) */
      }
      if (t < bt) bt = t, next = c, bu = u;
    }
    if (next < 0) break;
    g->cand[g->ncand++] = (uint32_t)next;
    if (f->o->confirm <= 0) close++, dmin = fmin(dmin, bt / t0 - 1), umax = fmax(umax, bu);
  }
  if (close && isinf(umax))
    snprintf(g->note, sizeof g->note, "a device measured no reference: %u configuration%s it measured within %.2f%% of the best "
             "by normalized time go to a final round", close, close == 1 ? "" : "s", 100 * dmin);
  else if (close)
    snprintf(g->note, sizeof g->note, "the normalization's uncertainty (up to %.2f%%) exceeds the difference between the best "
             "by normalized time and %u configuration%s another device measured (from %.2f%%): a final round decides", 100 * umax,
             close, close == 1 ? "" : "s", 100 * dmin);
  else if (f->o->confirm <= 0)
    snprintf(g->note, sizeof g->note, "the best by normalized time leads what other devices measured by more than the "
             "normalization's uncertainty: no final round");
  if (g->ncand < 2) g->ncand = 0; /* nothing to decide: the best's own raw median */
}

/* The final round's answer: the raw times of one device (the base device when it timed them all), as the
 * record's final round, so that tu_best ranks by them. */
static void final_record(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  int32_t pick = -1;
  uint32_t most = 0, b = (uint32_t)base_slot(f, gi);
  for (uint32_t s = 0; s < f->nslots; s++) {
    const slot *sl = &f->slots[s];
    if (sl->group != gi || sl->dead) continue;
    uint32_t n = 0;
    for (uint32_t k = 0; k < g->ncand; k++) n += sl->nfin[k] > 0;
    if (n > most || (n == most && n && s == b)) most = n, pick = (int32_t)s;
  }
  g->final_slot = pick;
  if (pick < 0) return;
  slot *sl = &f->slots[pick];
  for (uint32_t k = 0; k < g->ncand; k++) {
    tu_result *r = &g->run.r[g->cand[k]];
    uint32_t n = sl->nfin[k];
    if (!n) continue;
    double *v = vkocc_xmalloc(n * sizeof *v);
    memcpy(v, sl->fin[k], n * sizeof *v);
    double med = vkocc_median(v, n);
    for (uint32_t i = 0; i < n; i++) v[i] = fabs(sl->fin[k][i] - med);
    r->confirm_ns = med, r->confirm_spread = med > 0 ? vkocc_median(v, n) / med : 0, r->confirm_runs = n;
    free(v);
  }
}

/* The cluster's best: in a shared search the final round's lowest raw time on its device, else (interrupted, no
 * final round) the lowest normalized time, given as its raw median; -1 none. *ns: that raw time, *slot: whose. */
static int64_t fleet_best(const fleet *f, uint32_t gi, double *ns, int32_t *slot) {
  const group *g = &f->g[gi];
  int64_t b = -1;
  *ns = INFINITY, *slot = -1;
  if (!g->who) return -1; /* the group was refused before its search was made (a resumed file refused) */
  if (!g->norm) {
    b = tu_best(&g->run);
    if (b >= 0) *ns = tu_rank_ns(&g->run.r[b]), *slot = g->who[b];
    return b;
  }
  for (uint32_t k = 0; g->final_slot >= 0 && k < g->ncand; k++) {
    const tu_result *r = &g->run.r[g->cand[k]];
    if (r->confirm_runs && r->confirm_ns < *ns) *ns = r->confirm_ns, b = g->cand[k];
  }
  if (b >= 0) {
    *slot = g->final_slot;
    return b;
  }
  double bt = INFINITY;
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    if (!result_valid(&g->run.r[c])) continue;
    double t = result_norm_ns(f, gi, c);
    if (t < bt) bt = t, b = c;
  }
  if (b >= 0) *ns = g->run.r[b].median_ns, *slot = g->who[b];
  return b;
}

/* $.fleet.normalization: the references, each device's points and factor, the final round's candidates on each */
static json_t *norm_json(const fleet *f, uint32_t gi, const int32_t *index) {
  const group *g = &f->g[gi];
  const t1_spec *sp = &g->run.spec;
  int32_t b = base_slot(f, gi);
  json_t *n = json_object(), *devs = json_array(), *cands = json_array(), *refs = json_array();
  for (uint32_t j = 0; j < g->nrefs; j++) json_array_append_new(refs, t1_config_json(sp, g->run.space.coord + (size_t)g->refs[j] * sp->nparams));
  json_object_set_new(n, "references", refs);
  json_object_set_new(n, "every", json_integer(g->every));
  json_object_set_new(n, "base_device", b >= 0 && index[b] >= 0 ? json_integer(index[b]) : json_null());
  for (uint32_t s = 0; s < f->nslots; s++) {
    const slot *sl = &f->slots[s];
    if (sl->group != gi || index[s] < 0) continue;
    json_t *d = json_pack("{s:i}", "device", index[s]), *pts = json_array(), *times = json_array(), *ratios = json_array();
    for (uint32_t i = 0; i < sl->npts; i++)
      json_array_append_new(pts, json_pack("{s:i, s:i, s:f, s:f, s:i}", "reference", (int)sl->pts[i].ref, "after",
                                           (int)sl->pts[i].after, "median_ns", sl->pts[i].median_ns, "spread",
                                           sl->pts[i].spread, "runs", (int)sl->pts[i].runs));
    json_object_set_new(d, "points", pts);
    for (uint32_t j = 0; j < g->nrefs; j++) {
      double t, u, tb, ub;
      bool mine = ref_time(f, s, j, &t, &u), base = b >= 0 && ref_time(f, (uint32_t)b, j, &tb, &ub);
      json_array_append_new(times, mine ? json_real(t) : json_null());
      json_array_append_new(ratios, mine && base ? json_real(t / tb) : json_null());
    }
    json_object_set_new(d, "reference_ns", times);
    json_object_set_new(d, "ratios", ratios);
    double fa, u;
    uint32_t nr;
    bool ok = slot_factor(f, gi, s, &fa, &u, &nr);
    json_object_set_new(d, "factor", ok ? json_real(fa) : json_null());
    json_object_set_new(d, "factor_spread", ok ? json_real(u) : json_null());
    json_object_set_new(d, "applied", json_boolean(fleet_factor_applies(ok, fa, u)));
    uint32_t dref, dn;
    double range, dspread;
    if (fleet_drift_of(sl->pts, sl->npts, &dref, &dn, &range, &dspread))
      json_object_set_new(d, "drift", json_pack("{s:i, s:i, s:f, s:f, s:b}", "reference", (int)dref, "points", (int)dn, "range",
                                                range, "largest_spread", dspread, "drifted", tu_drifted(range, dspread)));
    else json_object_set_new(d, "drift", json_null());
    json_array_append_new(devs, d);
  }
  json_object_set_new(n, "devices", devs);
  for (uint32_t k = 0; k < g->ncand; k++) {
    uint32_t c = g->cand[k];
    const tu_result *r = &g->run.r[c];
    json_t *e = json_pack("{s:o, s:f, s:f}", "config", t1_config_json(sp, g->run.space.coord + (size_t)c * sp->nparams),
                          "median_ns", r->median_ns, "normalized_ns", result_norm_ns(f, gi, c));
    json_object_set_new(e, "device", g->who[c] >= 0 && index[g->who[c]] >= 0 ? json_integer(index[g->who[c]]) : json_null());
    json_t *times = json_array();
    for (uint32_t s = 0; s < f->nslots; s++) {
      const slot *sl = &f->slots[s];
      if (sl->group != gi || index[s] < 0 || !sl->nfin[k]) continue;
      double *v = vkocc_xmalloc(sl->nfin[k] * sizeof *v);
      memcpy(v, sl->fin[k], sl->nfin[k] * sizeof *v);
      double med = vkocc_median(v, sl->nfin[k]);
      for (uint32_t i = 0; i < sl->nfin[k]; i++) v[i] = fabs(sl->fin[k][i] - med);
      json_array_append_new(times, json_pack("{s:i, s:f, s:f, s:i}", "device", index[s], "median_ns", med, "spread",
                                             med > 0 ? vkocc_median(v, sl->nfin[k]) / med : 0.0, "runs", (int)sl->nfin[k]));
      free(v);
    }
    json_object_set_new(e, "final_round", times);
    json_array_append_new(cands, e);
  }
  json_object_set_new(n, "final_round", json_pack("{s:o, s:i, s:o}", "device",
                                                  g->final_slot >= 0 && index[g->final_slot] >= 0 ? json_integer(index[g->final_slot])
                                                                                                   : json_null(),
                                                  "rounds", FINAL_ROUNDS, "candidates", cands));
  json_object_set_new(n, "note", g->note[0] ? json_string(g->note) : json_null());
  return n;
}

/* The search handed out everything: last reference points, then the final round on every device; true when the
 * cluster is done. */
static bool after_search(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  if (!g->norm || g->phase == PH_DONE || (f->o->stop && *f->o->stop) || g->stopped[0]) return true;
  for (uint32_t s = 0; s < f->nslots; s++)
    if (f->slots[s].group == gi && !f->slots[s].dead && f->slots[s].again_inflight) return false;
  if (g->phase == PH_SEARCH && !g->nrefs && g->win_best >= 0) {
    close_window(f, gi); /* a search shorter than one window: its fastest is the only reference */
    return false;
  }
  if (g->phase == PH_SEARCH) {
    g->phase = PH_LAST_REF;
    bool asked = false;
    for (uint32_t s = 0; s < f->nslots && g->nrefs; s++)
      if (f->slots[s].group == gi && !f->slots[s].end_ref && f->slots[s].started && !f->slots[s].dead)
        ask_again(f, s, end_reference(g), FOR_REFERENCE), asked = true;
    if (asked) return false;
  }
  if (g->phase == PH_LAST_REF) {
    g->phase = PH_FINAL;
    pick_candidates(f, gi);
    for (uint32_t s = 0; s < f->nslots; s++)
      for (uint32_t round = 0; f->slots[s].group == gi && round < FINAL_ROUNDS; round++)
        for (uint32_t k = 0; k < g->ncand; k++) ask_again(f, s, g->cand[k], FOR_FINAL);
    return false;
  }
  final_record(f, gi);
  g->phase = PH_DONE;
  return true;
}

static void handle(fleet *f, msg *m) {
  if (m->worker >= f->nslots) return;
  slot *sl = &f->slots[m->worker];
  group *g = &f->g[sl->group];
  if (m->kind == MSG_RESULT) sl->compiles = m->compiles, sl->setup_ms = m->setup_ms;
  if (m->kind == MSG_FAILED) {
    slot_failed(f, m->worker, m->error);
    return;
  }
  if (m->purpose != FOR_SEARCH) {
    again_result(f, m->worker, m);
    return;
  }
  uint32_t k = 0;
  while (k < sl->ninflight && sl->inflight[k] != m->config) k++;
  if (k == sl->ninflight) return; /* a late result of a worker given up on */
  sl->inflight[k] = sl->inflight[--sl->ninflight];
  tune_eval e = {.valid = m->r.inv == TU_CORRECT && m->r.runs > 0, .time_ns = m->r.median_ns};
  if (e.valid) e.time_ns = norm_ns(f, sl->group, m->worker, m->r.median_ns);
  if (tune_search_tell(g->ts, m->config, e)) return;
  record(f, g, m->worker, m->config, &m->r);
  reference_due(f, m->worker, m->config);
  /* the reference as the workers name it ("ReferenceArguments", a configuration's key) goes into the document */
  if (!g->run.reference[0] && m->reference[0]) snprintf(g->run.reference, sizeof g->run.reference, "%s", m->reference);
  if (!g->ref_known && m->reference[0]) {
    g->ref_known = true;
    snprintf(g->reference, sizeof g->reference, "%s", m->reference);
  }
}

/* How many configurations a worker of group gi holds at once: the group's chunk, but at most half of an even share
 * of those not handed out yet (guided self-scheduling), so that the last ones are shared out among its devices in
 * ever smaller parts rather than left queued on one while another idles. */
static uint32_t hold_limit(const fleet *f, uint32_t gi) {
  const group *g = &f->g[gi];
  if (g->chunk <= 1) return g->chunk;
  uint32_t held = 0, live = 0;
  for (uint32_t s = 0; s < f->nslots; s++)
    if (f->slots[s].group == gi && !f->slots[s].dead) held += f->slots[s].ninflight, live++;
  uint64_t done = (uint64_t)g->run.nevals + held, left = g->run.space.count > done ? g->run.space.count - done : 0;
  uint64_t share = live ? (left + 2 * live - 1) / (2 * live) : g->chunk;
  return share >= g->chunk ? g->chunk : share < 1 ? 1 : (uint32_t)share;
}

/* What the search of a shared group will hand out next, told once to every live worker of the group (CMD_AHEAD). */
static void tell_ahead(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  if (g->nslots < 2 || g->chunk <= 1) return;
  uint32_t next[AHEAD], n = tune_search_peek(g->ts, AHEAD, next);
  for (uint32_t i = 0; i < n; i++) {
    if (next[i] >= g->run.space.count || g->told[next[i]]) continue;
    g->told[next[i]] = 1;
    for (uint32_t s = 0; s < f->nslots; s++)
      if (f->slots[s].group == gi && f->slots[s].started && !f->slots[s].dead) {
        cmd c = {.kind = CMD_AHEAD, .worker = s, .config = next[i]};
        if (f->slots[s].rank == f->rank) worker_command(f, &f->w[s], &c);
        else if (fleet_mpi_send(f->slots[s].rank, TAG_CMD, &c, sizeof c, f->silent_ms)) slot_failed(f, s, vkocc_last_error());
      }
  }
}

/* Device s of group gi has nothing and the search nothing more to hand out: it takes half of what another device of
 * this rank holds but has not started (the end of its queue; the one it measures stays), so that no device idles at
 * the end while another works through a queue (configurations of up to 1 s on matmul 8192 left one H200 idle for
 * 0.6 s of an 11 s run). A worker of another rank is not stolen from (its queue is on that rank). */
static void steal(fleet *f, uint32_t gi, uint32_t s) {
  slot *sl = &f->slots[s];
  if (sl->rank != f->rank || sl->dead || !sl->started || sl->ninflight) return;
  int32_t v = -1;
  uint32_t most = 0;
  pthread_mutex_lock(&f->mu);
  for (uint32_t k = 0; k < f->nslots; k++)
    if (k != s && f->slots[k].group == gi && f->slots[k].rank == f->rank && !f->slots[k].dead && f->w[k].ntodo > most)
      most = f->w[k].ntodo, v = (int32_t)k;
  uint32_t c[CHUNK], n = 0;
  if (v >= 0) {
    worker *w = &f->w[v];
    for (uint32_t take = (w->ntodo + 1) / 2; n < take; n++) c[n] = w->todo[(w->head + --w->ntodo) % CHUNK];
  }
  pthread_mutex_unlock(&f->mu);
  for (uint32_t i = n; i-- > 0;) {
    slot *vs = &f->slots[v];
    for (uint32_t k = 0; k < vs->ninflight; k++)
      if (vs->inflight[k] == c[i]) {
        vs->inflight[k] = vs->inflight[--vs->ninflight];
        break;
      }
    sl->inflight[sl->ninflight++] = c[i], sl->stolen++, sl->end_ref = false;
    if (send_cmd(f, s, CMD_MEASURE, c[i], NULL)) slot_failed(f, s, vkocc_last_error());
  }
}

/* Hands work to every free worker; false when every group is finished. */
static bool dispatch(fleet *f) {
  bool any = false;
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    if (g->finished) continue;
    bool handed = true;
    for (uint32_t s = 0; s < f->nslots && handed; s++) {
      slot *sl = &f->slots[s];
      /* a worker is topped up whenever it holds less than it may: it never waits for the coordinator, and its pool
       * builds what it holds while the device measures (tu_prefetch) */
      if (sl->group != gi || sl->dead || sl->ninflight >= hold_limit(f, gi)) continue;
      if (!sl->started) {
        /* until the reference configuration is known, one worker measures */
        bool other = false;
        for (uint32_t k = 0; k < f->nslots; k++) other |= k != s && f->slots[k].group == gi && f->slots[k].started && !f->slots[k].dead;
        if (!g->ref_known && other) continue;
        cmd go = {.kind = CMD_GO, .purpose = g->norm, .worker = s};
        snprintf(go.reference, sizeof go.reference, "%s", g->ref_known ? g->reference : "");
        if (send_command(f, &go)) { slot_failed(f, s, vkocc_last_error()); continue; }
        sl->started = true, sl->go_ms = vkocc_now_ms() - f->t0;
        ask_references(f, s);
      }
      if (g->chunk == 1 && sl->ninflight) continue;
      uint32_t c[CHUNK], want = hold_limit(f, gi) > sl->ninflight ? hold_limit(f, gi) - sl->ninflight : 0, n;
      handed = false;
      while (want && !sl->dead && (n = tune_search_ask(g->ts, want, c))) {
        for (uint32_t i = 0; i < n; i++) {
          if (g->run.r[c[i]].measured) { /* resumed: its recorded result, nothing measured */
            tu_result *r = &g->run.r[c[i]];
            tune_search_tell(g->ts, c[i], (tune_eval){.valid = r->inv == TU_CORRECT && r->runs > 0, .time_ns = r->median_ns});
            g->run.order = vkocc_xrealloc(g->run.order, ((size_t)g->run.nevals + 1) * sizeof *g->run.order);
            g->run.order[g->run.nevals++] = c[i];
            continue;
          }
          if (sl->dead) { tune_search_requeue(g->ts, c[i]); continue; }
          sl->inflight[sl->ninflight++] = c[i], want--, handed = true, sl->end_ref = false;
          if (send_cmd(f, s, CMD_MEASURE, c[i], NULL)) slot_failed(f, s, vkocc_last_error());
        }
      }
    }
    for (uint32_t s = 0; g->chunk > 1 && s < f->nslots; s++) {
      slot *sl = &f->slots[s];
      if (sl->group != gi) continue;
      steal(f, gi, s);
      /* still nothing: it times its end-of-search reference now rather than after the others' last results */
      if (g->norm && g->nrefs && g->phase == PH_SEARCH && sl->started && !sl->dead && !sl->ninflight && !sl->again_inflight &&
          !sl->end_ref) {
        ask_again(f, s, end_reference(g), FOR_REFERENCE);
        sl->end_ref = true;
      }
    }
    tell_ahead(f, gi);
    if (!tune_search_inflight(g->ts)) {
      uint32_t c;
      /* nothing in flight and nothing to hand out: the search is over */
      if (!tune_search_ask(g->ts, 1, &c)) g->finished = after_search(f, gi);
      else tune_search_requeue(g->ts, c);
    }
    any |= !g->finished;
  }
  return any;
}

/* ---- set-up */

typedef struct hello {
  char version[64];
  char hash[40];
  uint32_t layout, n;
  char host[64];
  char refused[700];         /* not "": this rank cannot take part, and why (then n is 0) */
} hello; /* followed by n tune_device_id, then n arrays of TEXPR_NDEVICE limits (int64_t) */
typedef int64_t limits_t[TEXPR_NDEVICE];

typedef struct welcome {
  int32_t ok;
  char error[900];
  uint32_t base;             /* the global index of the rank's first worker */
} welcome; /* followed, per member, by its group's configuration count and coordinates */

static void host_name(char *out, size_t len) {
  if (gethostname(out, len)) snprintf(out, len, "?");
  out[len - 1] = 0;
}

static void output_of(const char *output, const char *cluster, uint32_t ng, char *out, size_t len) {
  size_t l = strlen(output);
  if (ng == 1) snprintf(out, len, "%s", output);
  else if (l > 5 && !strcmp(output + l - 5, ".json")) snprintf(out, len, "%.*s-%s.json", (int)(l - 5), output, cluster);
  else snprintf(out, len, "%s-%s", output, cluster);
}

static void fleet_free(fleet *f) {
  for (uint32_t i = 0; i < f->nw; i++) tu_run_free(&f->w[i].run), pthread_cond_destroy(&f->w[i].cond);
  free(f->w);
  for (uint32_t i = 0; i < f->ng; i++) {
    group *g = &f->g[i];
    tune_search_close(g->ts);
    tu_run_free(&g->run);
    if (g->jf) fclose(g->jf);
    free(g->who), free(g->prev_who), free(g->told);
    json_decref(g->prev_devices), json_decref(g->attrib);
  }
  for (uint32_t s = 0; s < f->nslots; s++) {
    free(f->slots[s].pts);
    for (uint32_t k = 0; k < FINAL_MAX; k++) free(f->slots[s].fin[k]);
  }
  free(f->g), free(f->slots), free(f->heard), free(f->lost);
  for (msg *m; (m = take(f, 0));) msg_free(m);
  pthread_mutex_destroy(&f->mu), pthread_cond_destroy(&f->out_cond);
}

/* A spec whose conditions name the device's limits: a group's search takes the smallest of its members' (each
 * member must run every configuration it proposes), before anything is resumed into it. */
static vkocc_status bind_group_limits(fleet *f, uint32_t gi) {
  limits_t lim;
  bool have = false;
  for (uint32_t s = 0; s < f->nslots; s++) {
    if (f->slots[s].group != gi) continue;
    for (int k = 0; k < TEXPR_NDEVICE; k++) lim[k] = have && lim[k] < f->slots[s].limits[k] ? lim[k] : f->slots[s].limits[k];
    have = true;
  }
  return have ? tu_bind_device(&f->g[gi].run, lim) : VKOCC_OK;
}

/* The groups of the slots (by cluster ID, in the order they first appear), their records, resumed, and searches. */
static vkocc_status make_groups(fleet *f) {
  const vkocc_tune_options *o = f->o;
  f->g = vkocc_xcalloc(f->nslots, sizeof *f->g);
  for (uint32_t s = 0; s < f->nslots; s++) {
    uint32_t gi = 0;
    while (gi < f->ng && strcmp(f->g[gi].cluster_id, f->slots[s].dev.cluster_id)) gi++;
    if (gi == f->ng) {
      snprintf(f->g[gi].cluster_id, sizeof f->g[gi].cluster_id, "%s", f->slots[s].dev.cluster_id);
      f->g[gi].dev = f->slots[s].dev;
      f->ng++;
    }
    f->slots[s].group = gi, f->g[gi].nslots++;
  }
  vkocc_status st;
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    output_of(o->output, g->cluster_id, f->ng, g->output, sizeof g->output);
    snprintf(g->journal, sizeof g->journal, "%s.journal", g->output);
    if ((st = tu_prepare(f->spec_path, f->name, &g->run))) return st;
    if ((st = bind_group_limits(f, gi))) return st;
    if (f->resume && (st = resume_group(g))) return st;
    if (!g->prev_devices) g->prev_devices = json_array();
    /* --only after the resumed results, as one device does: those are kept whatever it says */
    for (uint32_t i = 0; i < o->nonly; i++)
      if ((st = tu_restrict(&g->run, o->only[i]))) return st;
    g->who = vkocc_xmalloc(((size_t)g->run.space.count + 1) * sizeof *g->who);
    g->told = vkocc_xcalloc((size_t)g->run.space.count + 1, 1);
    g->prev_who = vkocc_xmalloc(((size_t)g->run.space.count + 1) * sizeof *g->prev_who);
    for (uint32_t c = 0; c < g->run.space.count; c++) g->who[c] = -1;
    attribute_resumed(g);
    if (o->strategy) snprintf(g->run.strategy, sizeof g->run.strategy, "%s", o->strategy);
    g->run.seed = o->seed;
    if (o->budget_evals || o->budget_fraction > 0 || o->budget_seconds > 0)
      g->run.budget = (tune_budget){.max_evals = o->budget_evals, .max_fraction = o->budget_fraction,
                                    .max_seconds = o->budget_seconds};
    const tune_strategy_def *def = tune_strategy_find(g->run.strategy);
    if (!def) return vkocc_fail(VKOCC_ERROR_USAGE, "unknown search strategy '%s'", g->run.strategy);
    g->chunk = !strcmp(def->name, "brute_force") ? CHUNK : 1;
    const t1_spec *s = &g->run.spec;
    for (uint32_t i = 0; i < s->nparams && i < 32; i++) g->names[i] = s->params[i].name, g->nvals[i] = s->params[i].nvalues;
    g->sp = (tune_space){.nparams = s->nparams, .nconfigs = g->run.space.count, .coord = g->run.space.coord,
                         .param_names = g->names, .nvalues = g->nvals};
    if ((st = tune_search_open(&g->sp, def, g->run.seed, s->search_attrs, &g->run.budget, &g->ts))) {
      if (st == VKOCC_ERROR_USAGE) {
        char m[600];
        snprintf(m, sizeof m, "%s", vkocc_last_error());
        st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.Search.Attributes: %s", s->file, m);
      }
      return st;
    }
    g->norm = g->nslots >= 2, g->phase = PH_SEARCH, g->final_slot = -1, g->win_best = -1;
    g->every = o->sentinel_every > 0 ? (uint32_t)o->sentinel_every : o->sentinel_every < 0 ? 0 : 64;
    g->ref_known = !needs_reference_run(&g->run, o) || g->run.reference[0];
    snprintf(g->reference, sizeof g->reference, "%s", g->run.reference);
    /* what the journal held goes into the document before a fresh journal starts */
    if (g->resumed && (st = checkpoint(f, g))) return st;
    if (!g->jf && (st = journal_open(g))) return st;
    g->last_cp = vkocc_now_ms();
  }
  return VKOCC_OK;
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
static vkocc_status make_worker(fleet *f, worker *w, const vkocc_tune_fleet_member *m, uint32_t gid, uint32_t count,
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
  return VKOCC_OK;
}

static vkocc_status start_workers(fleet *f) {
  for (uint32_t i = 0; i < f->nw; i++) {
    if (pthread_create(&f->w[i].thread, NULL, worker_main, &f->w[i]))
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot start the thread of device %s", f->w[i].device);
    f->w[i].started = true;
  }
  return VKOCC_OK;
}

static void stop_workers(fleet *f) {
  for (uint32_t i = 0; i < f->nw; i++) worker_command(f, &f->w[i], &(cmd){.kind = CMD_STOP});
  for (uint32_t i = 0; i < f->nw; i++)
    if (f->w[i].started) pthread_join(f->w[i].thread, NULL), f->w[i].started = false;
}

/* A device alone in its cluster has no references to show a drift: it times its own sentinel, as one device does,
 * and its points go into the cluster's document ($.measurement.sentinel). This rank's workers only (the slots
 * before the other ranks'): another rank's sentinel stays there. */
static void adopt_sentinels(fleet *f) {
  for (uint32_t s = 0; f->g && s < f->nw && s < f->nslots; s++) {
    if (f->slots[s].group >= f->ng) continue; /* refused before its group was made */
    group *g = &f->g[f->slots[s].group];
    const tu_run *wr = &f->w[s].run;
    if (g->norm || f->slots[s].rank != f->rank || !wr->nsentinel) continue;
    free(g->run.sentinel);
    g->run.sentinel = vkocc_xmalloc(wr->nsentinel * sizeof *wr->sentinel);
    memcpy(g->run.sentinel, wr->sentinel, wr->nsentinel * sizeof *wr->sentinel);
    g->run.nsentinel = wr->nsentinel, g->run.sentinel_config = wr->sentinel_config, g->run.sentinel_ms = wr->sentinel_ms;
  }
}

static bool same_device_allowed(void) {
  const char *e = getenv("VKOCC_TEST_SAME_DEVICE");
  return e && !strcmp(e, "1");
}

/* ---- MPI: what ranks other than 0 send and receive */

static vkocc_status send_msg(fleet *f, const msg *m) {
  size_t nt = m->kind == MSG_RESULT ? m->r.runs : 0, len = sizeof *m + nt * sizeof(double);
  char *buf = vkocc_xmalloc(len);
  memcpy(buf, m, sizeof *m);
  if (nt) memcpy(buf + sizeof *m, m->r.times_ns, nt * sizeof(double));
  vkocc_status st = fleet_mpi_send(0, TAG_MSG, buf, len, f->silent_ms);
  free(buf);
  return st;
}

static msg *recv_msg(const void *buf, size_t len) {
  if (len < sizeof(msg) || !bools_ok((const unsigned char *)buf + offsetof(msg, r))) return NULL;
  msg *m = vkocc_xmalloc(sizeof *m);
  memcpy(m, buf, sizeof *m);
  m->next = NULL, m->r.times_ns = NULL;
  m->reference[sizeof m->reference - 1] = 0, m->error[sizeof m->error - 1] = 0;
  if (m->kind == MSG_RESULT && !fleet_result_sane(&m->r)) { free(m); return NULL; }
  size_t nt = m->kind == MSG_RESULT ? m->r.runs : 0;
  if (len != sizeof *m + nt * sizeof(double)) { free(m); return NULL; }
  m->r.times_ns = vkocc_xmalloc((nt + 1) * sizeof(double));
  if (nt) memcpy(m->r.times_ns, (const char *)buf + sizeof *m, nt * sizeof(double));
  return m;
}

/* A rank other than 0: says who it is, waits to be admitted, then forwards. */
/* A rank other than 0 that cannot take part (its spec, its devices): the coordinator is told why, in place of
 * the hello it waits for, so that it stops every rank at once naming this one; this rank waits for its word
 * (bounded) so that all ranks end together. */
static void refuse_to_coordinator(fleet *f, const char *why) {
  hello h;
  memset(&h, 0, sizeof h);
  snprintf(h.version, sizeof h.version, "%s", vkocc_version());
  h.layout = (uint32_t)sizeof(tu_result);
  host_name(h.host, sizeof h.host);
  snprintf(h.refused, sizeof h.refused, "%.690s", why[0] ? why : "(no reason given)");
  if (fleet_mpi_send(0, TAG_HELLO, &h, sizeof h, f->silent_ms)) return;
  void *buf = NULL;
  size_t len;
  int from, tag;
  for (double t0 = vkocc_now_ms(); vkocc_now_ms() - t0 < f->silent_ms; usleep(1000))
    if (fleet_mpi_poll(&from, &tag, &buf, &len)) {
      free(buf);
      if (tag == TAG_WELCOME) break;
    }
}

static vkocc_status agent(fleet *f, const vkocc_tune_fleet_member *members, const tune_device_id *ids,
                          const limits_t *lims, const char *hash) {
  size_t hl = sizeof(hello) + f->nw * (sizeof(tune_device_id) + sizeof(limits_t));
  char *hb = vkocc_xcalloc(1, hl);
  hello *h = (hello *)hb;
  snprintf(h->version, sizeof h->version, "%s", vkocc_version());
  snprintf(h->hash, sizeof h->hash, "%s", hash);
  h->layout = (uint32_t)sizeof(tu_result), h->n = f->nw;
  host_name(h->host, sizeof h->host);
  memcpy(hb + sizeof(hello), ids, f->nw * sizeof *ids);
  memcpy(hb + sizeof(hello) + f->nw * sizeof *ids, lims, f->nw * sizeof *lims);
  vkocc_status st = fleet_mpi_send(0, TAG_HELLO, hb, hl, f->silent_ms);
  free(hb);
  if (st) return st;
  void *buf = NULL;
  size_t len;
  int from, tag;
  for (double t0 = vkocc_now_ms(); !fleet_mpi_poll(&from, &tag, &buf, &len); usleep(1000))
    if (vkocc_now_ms() - t0 > f->silent_ms)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: no word from the coordinator (rank 0) for %.0f s", f->rank,
                        f->silent_ms / 1e3);
  if (tag != TAG_WELCOME || len < sizeof(welcome)) {
    free(buf);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: an unexpected first message from the coordinator", f->rank);
  }
  welcome wc;
  memcpy(&wc, buf, sizeof wc);
  if (!wc.ok) {
    free(buf);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s", wc.error);
  }
  const char *p = (const char *)buf + sizeof wc;
  for (uint32_t i = 0; i < f->nw && !st; i++) {
    uint32_t count, np;
    memcpy(&count, p, 4), memcpy(&np, p + 4, 4), p += 8;
    st = make_worker(f, &f->w[i], &members[i], wc.base + i, count, (const uint32_t *)p);
    p += (size_t)count * np * sizeof(uint32_t);
  }
  free(buf);
  if (!st) st = start_workers(f);
  if (st) return st;
  /* forward: commands to the workers, their messages to the coordinator, until it says goodbye */
  double heard = vkocc_now_ms(), beat = 0;
  for (bool bye = false; !bye;) {
    bool idle = true;
    if (f->o->stop && *f->o->stop) break; /* mpirun ends every rank when one is lost */
    double now = vkocc_now_ms();
    if (now - heard > f->silent_ms) {
      st = vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: the coordinator (rank 0) silent for %.0f s: stopped (the coordinator's "
                      "journal holds what was measured: --resume continues)", f->rank, (now - heard) / 1e3);
      break;
    }
    if (now - beat > BEAT_MS) {
      beat = now;
      if (fleet_mpi_send(0, TAG_BEAT, "", 0, f->silent_ms)) heard = -INFINITY; /* MPI says rank 0 is gone */
    }
    while (fleet_mpi_poll(&from, &tag, &buf, &len)) {
      idle = false;
      if (from == 0) heard = vkocc_now_ms();
      if (tag == TAG_BYE) bye = true, f->peer_lost |= len > 0 && ((const char *)buf)[0] == 1;
      else if (tag == TAG_CMD && len == sizeof(cmd)) {
        cmd c;
        memcpy(&c, buf, sizeof c);
        if (c.worker >= wc.base && c.worker - wc.base < f->nw) worker_command(f, &f->w[c.worker - wc.base], &c);
      }
      free(buf);
    }
    for (msg *m; (m = take(f, idle ? 2 : 0));) {
      vkocc_status sst = st ? VKOCC_OK : send_msg(f, m);
      if (sst) st = vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: the coordinator (rank 0) is gone (%s): stopped (its journal holds "
                               "what was measured: --resume continues)", f->rank, vkocc_last_error());
      msg_free(m);
    }
    if (st) break;
  }
  if (st) f->peer_lost = true;
  stop_workers(f);
  return st;
}

/* Rank 0: every other rank's hello, checked against its own; the slots of all ranks. own: not NULL when the
 * coordinator itself cannot go on (why): every rank is still heard, then told so. */
static vkocc_status admit(fleet *f, const char *hash, char **hellos, size_t *lens, const char *own) {
  char refuse[1100] = "";
  if (own) snprintf(refuse, sizeof refuse, "the coordinator (rank 0) stopped before measuring: %.900s", own);
  int got = 0;
  double t0 = vkocc_now_ms();
  bool said = false;
  while (got < f->nranks - 1) {
    void *buf;
    size_t len;
    int from, tag;
    if (!fleet_mpi_poll(&from, &tag, &buf, &len)) {
      if (!said && vkocc_now_ms() - t0 > 10e3) { /* a wait that speaks: each rank fingerprints and opens its devices first */
        said = true;
        fprintf(stderr, "vkocc tune: rank 0 waits for %d of %d other ranks to report (each fingerprints and opens its devices "
                "first)\n", f->nranks - 1 - got, f->nranks - 1);
      }
      usleep(1000);
      continue;
    }
    if (tag != TAG_HELLO || from <= 0 || from >= f->nranks || hellos[from] || len < sizeof(hello)) { free(buf); continue; }
    hellos[from] = buf, lens[from] = len, got++;
    hello h;
    memcpy(&h, buf, sizeof h);
    h.host[sizeof h.host - 1] = 0, h.refused[sizeof h.refused - 1] = 0, h.version[sizeof h.version - 1] = 0;
    h.hash[sizeof h.hash - 1] = 0;
    if (refuse[0]) continue; /* the first reason is said (each rank prints its own as well) */
    if (h.refused[0]) snprintf(refuse, sizeof refuse, "rank %d (%s) cannot take part: %.700s", from, h.host, h.refused);
    else if (strcmp(h.version, vkocc_version()) || h.layout != sizeof(tu_result))
      snprintf(refuse, sizeof refuse, "rank %d (%s) runs vkocc %s (result layout %u bytes), the coordinator vkocc %s (%u "
               "bytes): every rank needs the same vkocc", from, h.host, h.version, h.layout, vkocc_version(),
               (unsigned)sizeof(tu_result));
    else if (strcmp(h.hash, hash))
      snprintf(refuse, sizeof refuse, "rank %d (%s) read a spec of hash %s, the coordinator %s (%s): every rank needs the "
               "same spec file", from, h.host, h.hash, hash, f->spec_path);
    else if (len != sizeof(hello) + h.n * (sizeof(tune_device_id) + sizeof(limits_t)))
      snprintf(refuse, sizeof refuse, "rank %d (%s): a malformed hello", from, h.host);
  }
  if (refuse[0]) {
    welcome wc = {.ok = 0};
    snprintf(wc.error, sizeof wc.error, "%.870s; nothing was measured", refuse);
    for (int r = 1; r < f->nranks; r++) fleet_mpi_send(r, TAG_WELCOME, &wc, sizeof wc, f->silent_ms);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s", wc.error);
  }
  return VKOCC_OK;
}

static vkocc_status welcome_ranks(fleet *f, char **hellos) {
  uint32_t base = f->nw;
  for (int r = 1; r < f->nranks; r++) {
    hello h;
    memcpy(&h, hellos[r], sizeof h);
    size_t len = sizeof(welcome);
    for (uint32_t i = 0; i < h.n; i++) {
      const group *g = &f->g[f->slots[base + i].group];
      len += 8 + (size_t)g->run.space.count * g->run.spec.nparams * sizeof(uint32_t);
    }
    char *buf = vkocc_xcalloc(1, len), *p = buf + sizeof(welcome);
    welcome wc = {.ok = 1, .base = base};
    memcpy(buf, &wc, sizeof wc);
    for (uint32_t i = 0; i < h.n; i++) {
      const group *g = &f->g[f->slots[base + i].group];
      uint32_t count = g->run.space.count, np = g->run.spec.nparams;
      memcpy(p, &count, 4), memcpy(p + 4, &np, 4), p += 8;
      memcpy(p, g->run.space.coord, (size_t)count * np * sizeof(uint32_t)), p += (size_t)count * np * sizeof(uint32_t);
    }
    vkocc_status st = fleet_mpi_send(r, TAG_WELCOME, buf, len, f->silent_ms);
    free(buf);
    if (st) return st;
    base += h.n;
  }
  return VKOCC_OK;
}

/* ---- the run */

/* the summary's line: each device's factor, and what the final round said */
static void normalization_line(const fleet *f, uint32_t gi, char *out, size_t len) {
  const group *g = &f->g[gi];
  size_t at = 0;
  out[0] = 0;
  if (base_slot(f, gi) < 0) {
    snprintf(out, len, "no reference measured on any device: times are raw");
    return;
  }
  uint32_t i = 0;
  for (uint32_t s = 0; s < f->nslots && at < len; s++) {
    if (f->slots[s].group != gi) continue;
    double fa, u;
    uint32_t nr;
    if (!slot_factor(f, gi, s, &fa, &u, &nr)) at += (size_t)snprintf(out + at, len - at, "%sworker %u: no reference", i ? "; " : "", s);
    else at += (size_t)snprintf(out + at, len - at, "%sworker %u x%.4f (+-%.2f%%, %u reference%s, %u points%s)", i ? "; " : "", s,
                                fa, 100 * u, nr, nr == 1 ? "" : "s", f->slots[s].npts,
                                (int32_t)s == base_slot(f, gi) || fleet_factor_applies(true, fa, u) ? "" : ", within its spread of 1: not applied");
    i++;
  }
  if (at < len && g->note[0]) at += (size_t)snprintf(out + at, len - at, "; %s", g->note);
  double bns;
  int32_t bwho;
  int64_t best = fleet_best(f, gi, &bns, &bwho);
  if (at < len && best >= 0 && bwho >= 0 && g->final_slot < 0)
    at += (size_t)snprintf(out + at, len - at, "; the best's time is worker %d's raw median (normalized: %.2f us)", bwho,
                           result_norm_ns(f, gi, (uint32_t)best) / 1e3);
  if (at < len && g->final_slot >= 0) {
    double ns;
    int32_t who;
    bool kept = g->ncand && fleet_best(f, gi, &ns, &who) == (int64_t)g->cand[0];
    snprintf(out + at, len - at, "; the final round on %s %s the normalized ranking's first", f->slots[g->final_slot].dev.id.name,
             kept ? "kept" : "overturned");
  }
}

/* The clocks as the references timed again on each device show them */
static void clocks_line(const fleet *f, uint32_t gi, char *out, size_t len, bool *drifted) {
  size_t at = 0;
  out[0] = 0, *drifted = false;
  for (uint32_t s = 0; s < f->nslots && at < len; s++) {
    const slot *sl = &f->slots[s];
    uint32_t ref, n;
    double range, spread;
    if (sl->group != gi || !fleet_drift_of(sl->pts, sl->npts, &ref, &n, &range, &spread)) continue;
    bool d = tu_drifted(range, spread);
    *drifted |= d;
    at += (size_t)snprintf(out + at, len - at, "%sworker %u: reference %u timed %u times, range %.2f%% (largest spread %.2f%%)%s",
                           at ? "; " : "", s, ref, n, 100 * range, 100 * spread, d ? ": drifted" : "");
  }
}

static void report_of(fleet *f, vkocc_tune_fleet_report *out) {
  out->nclusters = f->ng;
  out->clusters = vkocc_xcalloc(f->ng + 1, sizeof *out->clusters);
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    vkocc_tune_fleet_cluster *c = &out->clusters[gi];
    snprintf(c->cluster_id, sizeof c->cluster_id, "%s", g->cluster_id);
    snprintf(c->output, sizeof c->output, "%s", g->output);
    snprintf(c->stopped, sizeof c->stopped, "%s", g->stopped);
    c->devices = g->nslots, c->resumed = g->resumed, c->best_ns = INFINITY;
    for (uint32_t i = 0; i < g->run.space.count; i++)
      if (g->run.r[i].measured) c->measured++, c->valid += g->run.r[i].inv == TU_CORRECT;
    if (g->norm) normalization_line(f, gi, c->normalization, sizeof c->normalization);
    if (g->norm) clocks_line(f, gi, c->clocks, sizeof c->clocks, &c->drifted);
    else if ((c->has_sentinel = tu_sentinel_of(&g->run, &c->sentinel))) c->drifted = c->sentinel.drifted;
    int32_t who;
    int64_t b = fleet_best(f, gi, &c->best_ns, &who);
    if (b >= 0) {
      t1_config_key(&g->run.spec, g->run.space.coord + (size_t)b * g->run.spec.nparams, c->best_key, sizeof c->best_key);
    }
  }
}

/* The coordinator's heartbeat to every rank, and ranks silent for too long given up: their devices leave the
 * search, their configurations in flight go back to it */
static void watch_ranks(fleet *f) {
  double now = vkocc_now_ms();
  if (now - f->last_beat < BEAT_MS) return;
  f->last_beat = now;
  for (int r = 1; r < f->nranks; r++) {
    if (f->lost[r]) continue;
    bool silent = now - f->heard[r] > f->silent_ms;
    if (!silent && !fleet_mpi_send(r, TAG_BEAT, "", 0, f->silent_ms)) continue;
    f->lost[r] = f->peer_lost = true;
    char why[300];
    const char *host = "?";
    for (uint32_t s = 0; s < f->nslots; s++)
      if (f->slots[s].rank == r) host = f->slots[s].host;
    if (silent) snprintf(why, sizeof why, "rank %d (%s) silent for %.0f s: lost", r, host, (now - f->heard[r]) / 1e3);
    else snprintf(why, sizeof why, "rank %d (%s) lost: %.200s", r, host, vkocc_last_error());
    for (uint32_t s = 0; s < f->nslots; s++)
      if (f->slots[s].rank == r) slot_failed(f, s, why);
  }
}

static vkocc_status coordinate(fleet *f) {
  const vkocc_tune_options *o = f->o;
  double t0 = vkocc_now_ms();
  f->loop_ms = t0 - f->t0;
  bool stopped = false;
  double stop_ms = 0;
  for (int r = 0; f->mpi && r < f->nranks; r++) f->heard[r] = t0;
  while (dispatch(f)) {
    /* interrupted: what is in flight may still come, but not from a rank that was ended with this one */
    if (stopped && vkocc_now_ms() - stop_ms > 3000) break;
    if (o->stop && *o->stop && !stopped) {
      stopped = true, stop_ms = vkocc_now_ms();
      for (uint32_t gi = 0; gi < f->ng; gi++) {
        tune_search_stop(f->g[gi].ts);
        if (!f->g[gi].stopped[0]) snprintf(f->g[gi].stopped, sizeof f->g[gi].stopped, "interrupted");
      }
    }
    bool got = false;
    void *buf;
    size_t len;
    int from, tag;
    while (f->mpi && fleet_mpi_poll(&from, &tag, &buf, &len)) {
      if (from > 0 && from < f->nranks) f->heard[from] = vkocc_now_ms();
      msg *m = tag == TAG_MSG && from > 0 && from < f->nranks && !f->lost[from] ? recv_msg(buf, len) : NULL;
      free(buf);
      if (m) handle(f, m), msg_free(m), got = true;
    }
    if (f->mpi) watch_ranks(f);
    for (msg *m; (m = take(f, got ? 0 : f->mpi ? 2 : 50));) handle(f, m), msg_free(m), got = true;
    for (uint32_t gi = 0; gi < f->ng; gi++)
      if (vkocc_now_ms() - f->g[gi].last_cp > 10e3) checkpoint(f, &f->g[gi]);
  }
  for (uint32_t gi = 0; gi < f->ng; gi++) f->g[gi].run.elapsed_ms += vkocc_now_ms() - t0;
  f->loop_end_ms = vkocc_now_ms() - f->t0;
  return stopped ? vkocc_fail(VKOCC_ERROR_RUNTIME, "interrupted") : VKOCC_OK;
}

static vkocc_status finish(fleet *f, vkocc_status st) {
  char msgbuf[1024];
  snprintf(msgbuf, sizeof msgbuf, "%s", st ? vkocc_last_error() : "");
  vkocc_status out = st;
  bool all_failed = f->ng > 0;
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    all_failed &= g->stopped[0] && strcmp(g->stopped, "interrupted");
    /* a kernel that compiles for no configuration is bad input: nothing written */
    uint32_t measured = 0, compile = 0;
    const char *first = NULL;
    for (uint32_t i = 0; i < g->run.space.count; i++)
      if (g->run.r[i].measured) {
        measured++;
        if (g->run.r[i].inv == TU_COMPILE) { compile++; if (!first) first = g->run.r[i].error; }
      }
    if (!out && measured && compile == measured) {
      out = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s compiles for none of the %u configurations "
                       "tried; the first: %.400s", g->run.spec.file, g->run.spec.kernel_file, measured, first);
      snprintf(msgbuf, sizeof msgbuf, "%s", vkocc_last_error());
    }
    if (out == VKOCC_ERROR_USAGE) continue;
    vkocc_status w = checkpoint(f, g);
    if (!w && g->jf) fclose(g->jf), g->jf = NULL, remove(g->journal);
    if (w && !out) out = w, snprintf(msgbuf, sizeof msgbuf, "%s", vkocc_last_error());
  }
  if (!out && all_failed) {
    out = VKOCC_ERROR_RUNTIME;
    snprintf(msgbuf, sizeof msgbuf, "%s", f->g[0].stopped);
  }
  return out ? vkocc_fail(out, "%s", msgbuf) : VKOCC_OK;
}

/* This rank cannot take part (why): rank 0 hears every other rank and tells them; another rank tells rank 0. The
 * error message (why) is kept. */
static void fleet_refuse(fleet *f, vkocc_status st, const char *why) {
  char keep[1024];
  snprintf(keep, sizeof keep, "%s", why);
  if (f->rank != 0) refuse_to_coordinator(f, keep);
  else {
    char **hellos = vkocc_xcalloc((size_t)f->nranks + 1, sizeof *hellos);
    size_t *lens = vkocc_xcalloc((size_t)f->nranks + 1, sizeof *lens);
    admit(f, "", hellos, lens, keep);
    for (int r = 0; r <= f->nranks; r++) free(hellos[r]);
    free(hellos), free(lens);
  }
  vkocc_fail(st ? st : VKOCC_ERROR_USAGE, "%s", keep);
}

vkocc_status vkocc_tune_fleet(const char *spec_path, const char *name, const vkocc_tune_fleet_member *members, uint32_t n,
                              bool resume, const vkocc_tune_options *o, vkocc_tune_fleet_report *out) {
  vkocc_clear_error();
  static const vkocc_tune_options none = {0};
  if (!o) o = &none;
  if (out) memset(out, 0, sizeof *out);
  if (!spec_path || !members || !n) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_fleet: no spec or no device");
  double t0 = vkocc_now_ms();
  fleet F = {.o = o, .spec_path = spec_path, .name = name, .resume = resume, .nranks = 1, .t0 = t0, .shared = tu_shared_new()};
  fleet *f = &F;
  const char *silent = getenv("VKOCC_FLEET_SILENT_S");
  f->silent_ms = 1e3 * (silent && strtod(silent, NULL) > 0 ? strtod(silent, NULL) : 30);
  pthread_mutex_init(&f->mu, NULL), pthread_cond_init(&f->out_cond, NULL);
  vkocc_status st = VKOCC_OK;
  bool mpi_inited = false;
  if (fleet_mpi_built() && vkocc_mpi_launched(NULL, NULL)) {
    if ((st = fleet_mpi_init(&f->rank, &f->nranks))) return st;
    f->mpi = f->nranks > 1, mpi_inited = true;
    f->heard = vkocc_xcalloc((size_t)f->nranks + 1, sizeof *f->heard);
    f->lost = vkocc_xcalloc((size_t)f->nranks + 1, sizeof *f->lost);
  }
  /* who this rank's members are; a device named twice would time two searches against each other */
  tune_device_id *ids = vkocc_xcalloc(n, sizeof *ids);
  limits_t *lims = vkocc_xcalloc(n, sizeof *lims);
  for (uint32_t i = 0; i < n && !st; i++) {
    json_t *det = members[i].details ? vkocc_fingerprint_details_json(members[i].details) : NULL;
    tune_device_id_fill(&ids[i], vkocc_context_device(members[i].ctx), det, members[i].fp);
    tu_device_limits(members[i].ctx, lims[i]);
    if (!members[i].fp) snprintf(ids[i].cluster_id, sizeof ids[i].cluster_id, "unknown");
    for (uint32_t k = 0; k < i && !st; k++)
      if (!memcmp(ids[k].id.uuid, ids[i].id.uuid, 16) && !strcmp(ids[k].id.key, ids[i].id.key) && !same_device_allowed())
        st = vkocc_fail(VKOCC_ERROR_USAGE, "--device: %s is named twice (two searches would time each other)",
                        ids[i].id.name);
  }
  tu_run probe;
  char hash[40] = "";
  if (!st && !(st = tu_prepare(spec_path, name, &probe))) {
    snprintf(hash, sizeof hash, "%s", probe.spec.hash);
    tu_run_free(&probe);
    if (!o->output && f->rank == 0) st = vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_fleet: options->output is required");
  }
  /* under MPI a rank that cannot go on (its spec, its devices) says so in place of its hello: the coordinator then
   * stops every rank at once, naming it, instead of waiting for a hello that never comes */
  if (st && f->mpi) fleet_refuse(f, st, vkocc_last_error());
  if (!st) {
    f->nw = n;
    f->w = vkocc_xcalloc(n, sizeof *f->w);
    if (f->rank != 0) {
      st = agent(f, members, ids, lims, hash);
    } else {
      char **hellos = vkocc_xcalloc((size_t)f->nranks + 1, sizeof *hellos);
      size_t *lens = vkocc_xcalloc((size_t)f->nranks + 1, sizeof *lens);
      if (f->mpi) st = admit(f, hash, hellos, lens, NULL);
      if (!st) {
        /* the slots: this rank's members, then every other rank's in rank order */
        f->nslots = n;
        for (int r = 1; r < f->nranks; r++) f->nslots += ((hello *)hellos[r])->n;
        f->slots = vkocc_xcalloc(f->nslots, sizeof *f->slots);
        uint32_t s = 0;
        for (uint32_t i = 0; i < n; i++, s++) {
          f->slots[s].rank = 0, f->slots[s].dev = ids[i];
          memcpy(f->slots[s].limits, lims[i], sizeof lims[i]);
          host_name(f->slots[s].host, sizeof f->slots[s].host);
        }
        for (int r = 1; r < f->nranks; r++) {
          hello *h = (hello *)hellos[r];
          for (uint32_t i = 0; i < h->n; i++, s++) {
            f->slots[s].rank = r;
            memcpy(&f->slots[s].dev, hellos[r] + sizeof(hello) + i * sizeof(tune_device_id), sizeof(tune_device_id));
            memcpy(f->slots[s].limits, hellos[r] + sizeof(hello) + h->n * sizeof(tune_device_id) + i * sizeof(limits_t),
                   sizeof(limits_t));
            snprintf(f->slots[s].host, sizeof f->slots[s].host, "%s", h->host);
          }
        }
        /* two ranks on one GPU would time each other (each search its own measurements beside the other's): refused,
         * naming every rank on that GPU */
        for (uint32_t a = 0; a < f->nslots && !st; a++) {
          char ranks[400] = "";
          size_t at = 0;
          uint32_t shared = 0;
          for (uint32_t b = 0; b < f->nslots; b++)
            if (b == a || (!memcmp(f->slots[a].dev.id.uuid, f->slots[b].dev.id.uuid, 16) &&
                           !strcmp(f->slots[a].dev.id.key, f->slots[b].dev.id.key) && !strcmp(f->slots[a].host, f->slots[b].host))) {
              bool named = false; /* a rank once (one rank's device named twice is that rank's refusal) */
              for (uint32_t k = 0; k < b && !named; k++)
                named = f->slots[k].rank == f->slots[b].rank && (k == a || (!memcmp(f->slots[a].dev.id.uuid, f->slots[k].dev.id.uuid, 16) &&
                        !strcmp(f->slots[a].dev.id.key, f->slots[k].dev.id.key) && !strcmp(f->slots[a].host, f->slots[k].host)));
              if (named) continue;
              shared++;
              if (at < sizeof ranks) at += (size_t)snprintf(ranks + at, sizeof ranks - at, "%s%d", at ? ", " : "", f->slots[b].rank);
            }
          char *last = strrchr(ranks, ',');
          if (last && (size_t)(last - ranks) + 5 < sizeof ranks) { /* "0, 1 and 2" */
            char tail[400];
            snprintf(tail, sizeof tail, " and%s", last + 1);
            snprintf(last, sizeof ranks - (size_t)(last - ranks), "%s", tail);
          }
          if (shared > 1 && !same_device_allowed())
            st = vkocc_fail(VKOCC_ERROR_USAGE, "ranks %s %s measure on %s of %s: two searches on one GPU would time each other; "
                            "start one rank per GPU of a host (srun --gpus-per-task=1, mpirun -n GPUS), or one rank per host "
                            "with --device all", ranks, shared == 2 ? "both" : "all", f->slots[a].dev.id.name, f->slots[a].host);
        }
        if (!st) st = make_groups(f);
        if (st && f->mpi) { /* the others wait to be admitted: tell them why not */
          welcome wc = {.ok = 0};
          snprintf(wc.error, sizeof wc.error, "the coordinator stopped before measuring: %s", vkocc_last_error());
          for (int r = 1; r < f->nranks; r++) fleet_mpi_send(r, TAG_WELCOME, &wc, sizeof wc, f->silent_ms);
        }
        if (!st && f->mpi) st = welcome_ranks(f, hellos);
        for (uint32_t i = 0; i < n && !st; i++) {
          const group *g = &f->g[f->slots[i].group];
          st = make_worker(f, &f->w[i], &members[i], i, g->run.space.count, g->run.space.coord);
        }
        if (!st) st = start_workers(f);
        if (!st) st = coordinate(f);
        else if (f->ng) stop_workers(f);
        stop_workers(f);
        if (f->loop_end_ms > 0) f->joined_ms = vkocc_now_ms() - f->t0;
        adopt_sentinels(f);
        /* the goodbye says whether a rank was lost, so no rank waits for it in MPI_Finalize */
        const char lost = f->peer_lost ? 1 : 0;
        for (int r = 1; f->mpi && r < f->nranks; r++)
          if (!f->lost || !f->lost[r]) fleet_mpi_send(r, TAG_BYE, &lost, 1, f->silent_ms);
        if (f->ng && st != VKOCC_ERROR_USAGE) st = finish(f, st);
        if (out) {
          report_of(f, out);
          out->coordinator = true;
        }
      }
      for (int r = 0; r <= f->nranks; r++) free(hellos[r]);
      free(hellos), free(lens);
    }
  }
  if (out) out->ranks = (uint32_t)f->nranks, out->workers = f->nslots ? f->nslots : n, out->wall_ms = vkocc_now_ms() - t0;
  char keep[1024];
  snprintf(keep, sizeof keep, "%s", vkocc_last_error());
  stop_workers(f);
  bool lost = f->peer_lost;
  double silent_ms = f->silent_ms;
  fleet_free(f);
  tu_shared_free(F.shared);
  free(ids);
  free(lims);
  if (mpi_inited) fleet_mpi_finalize(lost, silent_ms, st ? 1 : 0);
  return st ? vkocc_fail(st, "%s", keep) : VKOCC_OK;
}

void vkocc_tune_fleet_report_free(vkocc_tune_fleet_report *r) {
  if (!r) return;
  free(r->clusters);
  memset(r, 0, sizeof *r);
}

void vkocc_tune_fleet_refuse(const char *why) {
  vkocc_clear_error();
  if (!fleet_mpi_built() || !vkocc_mpi_launched(NULL, NULL)) return;
  fleet F = {.nranks = 1};
  const char *silent = getenv("VKOCC_FLEET_SILENT_S");
  F.silent_ms = 1e3 * (silent && strtod(silent, NULL) > 0 ? strtod(silent, NULL) : 30);
  if (fleet_mpi_init(&F.rank, &F.nranks)) return;
  F.mpi = F.nranks > 1;
  if (F.mpi) fleet_refuse(&F, VKOCC_ERROR_USAGE, why && why[0] ? why : "(no reason given)");
  fleet_mpi_finalize(false, F.silent_ms, 2);
}

bool vkocc_mpi_built(void) { return fleet_mpi_built(); }

bool vkocc_mpi_launched(int *rank, int *local_rank) {
  /* Open MPI's mpirun, MPICH/Hydra (PMI), Slurm's srun (PMIx or PMI2) */
  static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS", NULL};
  static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
  static const char *const locals[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", NULL};
  long size = 0;
  for (const char *const *e = sizes; *e && size <= 0; e++)
    if (getenv(*e)) size = strtol(getenv(*e), NULL, 10);
  /* srun without an MPI step still sets SLURM_NTASKS: it counts only with a rank variable beside it */
  long r = -1, l = -1;
  for (const char *const *e = ranks; *e && r < 0; e++)
    if (getenv(*e)) r = strtol(getenv(*e), NULL, 10);
  for (const char *const *e = locals; *e && l < 0; e++)
    if (getenv(*e)) l = strtol(getenv(*e), NULL, 10);
  if (rank) *rank = r > 0 ? (int)r : 0;
  if (local_rank) *local_rank = l > 0 ? (int)l : 0;
  return size > 1 && r >= 0;
}

#ifndef VKOCC_HAVE_MPI
bool fleet_mpi_built(void) { return false; }
vkocc_status fleet_mpi_init(int *rank, int *size) {
  *rank = 0, *size = 1;
  return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "this vkocc was built without MPI (libopenmpi-dev when it was configured)");
}
void fleet_mpi_finalize(bool lost, double limit_ms, int code) { (void)lost, (void)limit_ms, (void)code; }
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
