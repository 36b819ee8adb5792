/* The harness for the user's own kernels (tune/user.h, docs/tune.md). Phases per configuration, each timed:
 * compile (only for a define set not seen before), pipeline creation, occupancy (P, when needed, cached),
 * the first run (outputs poisoned, inputs restored, bounded wait, validated), then batches of timestamped
 * dispatches until the spread of the runs is small or a cap is reached.
 *
 * Written over core's helpers (buffers, vkocc_read_file, the pipeline cache of the context) and the
 * occupancy C API (vkocc_pipeline_occupancy); its own small pipeline builder, since the user's layout
 * (set 0 storage buffers, a push-constant block, typed specialization constants) is not core's. */
#include "user.h"
#include "compile.h"
#include "exec.h"
#include "gpu_validate.h"
#include "clock_rule.h"
#include "race.h"
#include "written_internal.h" /* the statistics' kinds, for P from the model */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <unistd.h>
#include <spirv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_BATCH 16
#define POISON 0xffffffffu /* -1 for integers, NaN for floats: a value no correct output keeps everywhere */
#define POISON2 0x5a5a5a5au /* the reference's second run: an element that keeps both poisons was never written */

static const char *const phase_names[] = {"prepare", "validate", "warm", "trials", "summary"};
const char *tu_phase_name(tu_phase p) { return phase_names[p]; }

static const char *const inv_names[] = {"correct", "compile", "runtime", "timeout", "correctness", "constraints"};
const char *tu_invalidity_name(tu_invalidity v) { return inv_names[v]; }
bool tu_invalidity_parse(const char *name, tu_invalidity *out) {
  for (int i = 0; i < 6; i++)
    if (!strcmp(name, inv_names[i])) { *out = (tu_invalidity)i; return true; }
  return false;
}

/* ------------------------------------------------------------------ SPIR-V: names of constants, workgroup size */

typedef struct spv_consts {
  struct { uint32_t spec_id; char name[64]; } c[64];
  uint32_t n;
  int32_t wg_spec[3];        /* the SpecId of each workgroup-size component, -1 when a literal */
} spv_consts;

static void spv_walk(const uint32_t *w, size_t words, spv_consts *out) {
  memset(out, 0, sizeof *out);
  out->wg_spec[0] = out->wg_spec[1] = out->wg_spec[2] = -1;
  enum { MAXID = 1 << 20 };
  uint32_t bound = words > 3 ? w[3] : 0;
  if (bound > MAXID) bound = MAXID;
  int64_t *spec_of = vkocc_xmalloc((bound + 1) * sizeof *spec_of);
  for (uint32_t i = 0; i <= bound; i++) spec_of[i] = -1;
  uint32_t wg_id = 0, comp[3] = {0};
  const char **names = vkocc_xcalloc(bound + 1, sizeof *names);
  for (size_t i = 5; i < words;) {
    uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
    if (!len || i + len > words) break;
    if (op == SpvOpName && len >= 3 && w[i + 1] <= bound) names[w[i + 1]] = (const char *)&w[i + 2];
    if (op == SpvOpDecorate && len >= 4 && w[i + 1] <= bound) {
      if (w[i + 2] == SpvDecorationSpecId) spec_of[w[i + 1]] = w[i + 3];
      if (w[i + 2] == SpvDecorationBuiltIn && w[i + 3] == SpvBuiltInWorkgroupSize) wg_id = w[i + 1];
    }
    if (op == SpvOpSpecConstantComposite && len >= 6 && wg_id && w[i + 2] == wg_id)
      for (int d = 0; d < 3; d++) comp[d] = w[i + 3 + d];
    if (op == SpvOpExecutionModeId && len >= 6 && w[i + 2] == SpvExecutionModeLocalSizeId)
      for (int d = 0; d < 3; d++) comp[d] = w[i + 3 + d];
    i += len;
  }
  for (uint32_t id = 0; id <= bound; id++)
    if (spec_of[id] >= 0 && out->n < 64) {
      out->c[out->n].spec_id = (uint32_t)spec_of[id];
      /* OpName's string is NUL-terminated inside its words; copied with a bound */
      snprintf(out->c[out->n].name, sizeof out->c[0].name, "%s", names[id] ? names[id] : "");
      out->n++;
    }
  for (int d = 0; d < 3; d++)
    if (comp[d] && comp[d] <= bound && spec_of[comp[d]] >= 0) out->wg_spec[d] = (int32_t)spec_of[comp[d]];
  free(spec_of);
  free(names);
}

/* ------------------------------------------------------------------ modules (one per define set) */

typedef struct module {
  uint32_t *spv;
  size_t words;
  char error[560];
  bool failed;
  spv_consts consts;
  vkocc_reflection refl;
  bool checked;              /* interface checked against the arguments */
  bool ready;                /* compiled (or failed); until then the thread compiling it owns it */
} module;

typedef struct config config;

/* The prebuilding threads (prebuild_queue): the configurations the strategy will propose next, whose modules and
 * pipelines a pool of host threads makes while the device measures another. A configuration's build is two jobs,
 * its compile and then its pipeline (once the buffers exist); a free thread starts the runnable job of the
 * configuration the measuring thread needs soonest, so the next one is never queued behind those further ahead,
 * and the measuring thread builds the one it needs itself rather than wait for a job not yet started. */
typedef struct prebuilder {
  pthread_t *thread;
  uint32_t nthreads, started, busy;
  uint32_t compiling, building;     /* the pool's jobs of each kind running now */
  uint32_t max_compiling, max_building; /* at most so many of each kind at once */
  bool quit;
  bool hold;                 /* a CPU device times: the pool starts nothing (pool_hold) */
  bool pipelines_ok;         /* the buffers exist: pipelines can be built (set under lock by make_buffers) */
  bool wait_only;            /* VKOCC_TEST_POOL_WAIT=1: the measuring thread waits for the pool (its tests) */
  bool uncached;             /* VKOCC_TEST_POOL_UNCACHED=1: the pool's pipelines without the context's cache */
  FILE *trace;               /* VKOCC_TEST_POOL_TRACE: each job's start, in order (its tests) */
  uint32_t slow_ms;          /* VKOCC_TEST_POOL_SLOW: each job's work starts so many ms late (its tests) */
  pthread_mutex_t lock;      /* the jobs, busy, each config's prebuilt state */
  pthread_cond_t wake, done;
  pthread_mutex_t modules;   /* the module table (get_module) */
  pthread_cond_t compiled;   /* a module's compile ended */
  config **job;              /* the configurations handed to the pool and not yet taken, cap at most */
  uint32_t njobs, cap;
} prebuilder;

typedef struct harness {
  vkocc_context **ctxp;
  tu_run *run;
  const tu_options *o;
  t1_spec *s;
  module **mods;
  uint32_t nmods, capmods;
  json_t *mod_index;         /* a define set's key -> its index in mods */
  config **cfg;              /* per configuration of the space: materialized on its first evaluation (config_of) */
  prebuilder pb;
  char *source;              /* the kernel's text (source kernels) for the define and constant checks */
  /* device resources */
  vkocc_buffer *dev, *pristine, *readback; /* per argument */
  vkocc_copy *restore;       /* per restored argument: pristine -> dev by a compute copy (NULL, the default:
                              * vkCmdCopyBuffer) */
  uint8_t push[256];
  uint32_t push_bytes;
  bool buffers_ready;
  bool push_filled;          /* fill_push done (after the first module's check, under pb.modules) */
  bool readback_made;        /* make_readback done for these buffers */
  bool trace_setup;          /* VKOCC_TRACE_SETUP=1: each argument's set-up costs on stderr */
  /* validation */
  void **expect;             /* per argument: the reference output (NULL: not validated) */
  bool *expect_borrowed;     /* per argument: expect[i] is tu_options.shared's, not freed here */
  const t1_ref **ref_of;     /* per argument: the reference entry giving the method (NULL: exact / default) */
  bool have_reference;
  /* validation on the device (tune/gpu_validate.h): per validated output its expected values on the device and
   * a compare dispatch after the last run of a batch; only the compare's answer comes back. gpu_check 0: not set
   * up yet, 1: on, -1: off (a CPU device, the device lacks what a compare needs, or VKOCC_TEST_CPU_COMPARE=1): the outputs are
   * then read back and compared on the host */
  vkocc_buffer *want;
  vkocc_compare *cmp;
  int gpu_check;
  int64_t reference_config;  /* forced by --reference: evaluated first */
  vkocc_calibration cal;
  bool have_cal;
  double last_cp;
  uint32_t done;
  double t0;
  json_t *P_memo;            /* P_keys -> [P, the configuration measured]: P measured once per pipeline, resources */
  int64_t last_P;
  bool global_P;             /* a global size names P: a configuration's workgroup count is known once P is */
  bool model_read, have_derived, have_registers; /* the device's model (model_known) */
  vkocc_derived derived;
  vkocc_register_model registers;
  uint32_t lose_at, batches; /* VKOCC_TEST_DEVICE_LOSS */
  int32_t spec_id[32];       /* per parameter: its SpecId (param_spec), from the source or the module's names */
  double gpu_end_ms;         /* when the last batch of dispatches ended (0: none yet: the GPU is cold) */
  double idle_ms;            /* host time the GPU sat idle since the last warm-up (-1: cold, nothing run yet) */
  int64_t sentinel;          /* the configuration re-timed to watch the clocks (-1: none yet) */
  uint32_t since_sentinel;
  bool in_sentinel;
  uint32_t poison;           /* the poison of the next run's outputs (0: POISON) */
  /* inputs restored only where a module may write them; the SM clock read beside every batch (core/gpucheck.h) */
  uint64_t written;          /* set 0 bindings some module checked so far may write (bit b: binding b) */
  uint32_t nchecked;         /* modules whose interface was checked */
  vkocc_clock_probe probe;   /* 2 slots: before the batch's first dispatch, after its last */
  bool probe_on, probe_tried;
  tu_clock_state clk;
  double clock_before, clock_after; /* the last batch's readings (0: none) */
  double last_span_ms;       /* the device's whole span of the last batch run_batch waited for (vkocc_batch.span_ns) */
  double late_setup_ms;      /* the run's setup done by run_batch (expected outputs uploaded, compares and the probe
                              * made) and not yet taken off a configuration's costs */
  /* racing (tune/race.h): the incumbent and the noise of the configurations measured to the full rule; racing_now
   * while a configuration of the search is measured (never the reference run first, the sentinel or the final round) */
  tu_race race;
  bool racing_now;
} harness;

static vkocc_context *CTX(harness *h) { return *h->ctxp; }

/* ------------------------------------------------------------------ made once per process (tu_options.shared) */

/* One thing a process makes once for every device's harness: made by the first that asks (state 1 while it
 * does), the others wait for it. */
typedef struct shared_entry {
  int state;                 /* 1: being made, 2: made (or failed: st) */
  vkocc_status st;
  char error[700];
  void *data;
  size_t bytes;
} shared_entry;

struct tu_shared {
  pthread_mutex_t mu;
  pthread_cond_t made;
  json_t *index;             /* key -> index in e */
  shared_entry **e;
  uint32_t n, cap;
};

tu_shared *tu_shared_new(void) {
  tu_shared *s = vkocc_xcalloc(1, sizeof *s);
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->made, NULL);
  s->index = json_object();
  return s;
}

void tu_shared_free(tu_shared *s) {
  if (!s) return;
  for (uint32_t i = 0; i < s->n; i++) free(s->e[i]->data), free(s->e[i]);
  free(s->e);
  json_decref(s->index);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->made);
  free(s);
}

/* key's entry, made or failed (*mine false), or new and now the caller's to make (*mine true: shared_made after) */
static shared_entry *shared_get(tu_shared *s, const char *key, bool *mine) {
  pthread_mutex_lock(&s->mu);
  json_t *at = json_object_get(s->index, key);
  shared_entry *e;
  if (at) {
    e = s->e[json_integer_value(at)];
    while (e->state == 1) pthread_cond_wait(&s->made, &s->mu);
    *mine = false;
  } else {
    if (s->n == s->cap) s->cap = s->cap ? 2 * s->cap : 16, s->e = vkocc_xrealloc(s->e, s->cap * sizeof *s->e);
    e = s->e[s->n] = vkocc_xcalloc(1, sizeof *e); /* pointers: an entry never moves */
    json_object_set_new(s->index, key, json_integer(s->n++));
    e->state = 1, *mine = true;
  }
  pthread_mutex_unlock(&s->mu);
  return e;
}

static void shared_made(tu_shared *s, shared_entry *e, vkocc_status st) {
  pthread_mutex_lock(&s->mu);
  e->st = st, e->state = 2;
  if (st) snprintf(e->error, sizeof e->error, "%s", vkocc_last_error());
  pthread_cond_broadcast(&s->made);
  pthread_mutex_unlock(&s->mu);
}

/* An argument's data (what "arg", i an argument) or a reference's (what "ref", i its index in spec.refs), bytes
 * (at least the argument's) zero-padded: made here into a buffer of the caller's (*shared false: free it), or
 * tu_options.shared's, made once per process (*shared true: read only, never freed here). */
static vkocc_status fill_data(harness *h, const char *what, uint32_t i, const t1_data *d, const char *path, const t1_arg *a,
                              size_t bytes, void **out, bool *shared) {
  *out = NULL, *shared = false;
  if (!h->o->shared) {
    *out = vkocc_xcalloc(1, bytes);
    vkocc_status st = t1_fill_data(h->s, d, path, a, *out);
    if (st) free(*out), *out = NULL;
    return st;
  }
  char key[64];
  snprintf(key, sizeof key, "%s:%u", what, i);
  bool mine;
  shared_entry *e = shared_get(h->o->shared, key, &mine);
  if (mine) {
    e->data = vkocc_xcalloc(1, bytes), e->bytes = bytes;
    vkocc_status st = t1_fill_data(h->s, d, path, a, e->data);
    shared_made(h->o->shared, e, st);
  }
  if (e->st) return vkocc_fail(e->st, "%s", e->error);
  if (e->bytes < bytes) return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: %s of %zu bytes shared, %zu wanted", h->s->file, path, e->bytes, bytes);
  *out = e->data, *shared = true;
  return VKOCC_OK;
}

/* A define set's SPIR-V (text: the kernel's source, NULL: its file), compiled here, or once per process through
 * tu_options.shared (*compiled: by this call); *spv the caller's copy either way. */
static vkocc_status compile_text_or_file(const t1_spec *s, const char *text, const char *const *defs, uint32_t ndefs,
                                         uint32_t **spv, size_t *words) {
  return text ? vkocc_shader_compile(text, strlen(text), s->kernel_file, s->lang, s->kernel_name, defs, ndefs, spv, words)
              : vkocc_shader_load_file(s->kernel_file, s->lang, s->kernel_name, defs, ndefs, spv, words);
}

static vkocc_status compile_spv(harness *h, const char *text, const char *defs_key, const char *const *defs, uint32_t ndefs,
                                uint32_t **spv, size_t *words, bool *compiled) {
  *compiled = true;
  if (!h->o->shared) return compile_text_or_file(h->s, text, defs, ndefs, spv, words);
  size_t kl = strlen(defs_key) + 8;
  char *key = vkocc_xmalloc(kl);
  snprintf(key, kl, "spv:%s", defs_key);
  bool mine;
  shared_entry *e = shared_get(h->o->shared, key, &mine);
  free(key);
  if (mine) {
    uint32_t *w = NULL;
    size_t n = 0;
    vkocc_status st = compile_text_or_file(h->s, text, defs, ndefs, &w, &n);
    e->data = w, e->bytes = st ? 0 : n * sizeof *w;
    shared_made(h->o->shared, e, st);
  }
  *compiled = mine;
  if (e->st) return vkocc_fail(e->st, "%s", e->error);
  *words = e->bytes / sizeof **spv;
  *spv = memcpy(vkocc_xmalloc(e->bytes + 4), e->data, e->bytes);
  return VKOCC_OK;
}

/* comments blanked (kept line structure), so a name in a comment does not count as used */
static void strip_comments(char *t) {
  for (char *p = t; *p; p++) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n') *p++ = ' ';
      if (!*p) break;
    } else if (p[0] == '/' && p[1] == '*') {
      *p++ = ' ', *p++ = ' ';
      while (*p && !(p[0] == '*' && p[1] == '/')) { if (*p != '\n') *p = ' '; p++; }
      if (!*p) break;
      *p++ = ' ', *p = ' ';
    } else if (*p == '"') { /* strings (#include "x"): skipped as they are */
      p++;
      while (*p && *p != '"' && *p != '\n') p++;
      if (!*p) break;
    }
  }
}

static bool word_in(const char *text, const char *w) {
  size_t n = strlen(text);
  return vkocc_word_in(text, n, 0, n, w, strlen(w));
}

/* The SpecId of a specialization constant declared in the source as "constant_id = N) const TYPE NAME"
 * (GLSL) or "constant_id(N)]] const TYPE NAME" (HLSL), -1 when name is not one. Read from the text because
 * the run-time compiler's optimizer drops the names from the module. */
static int32_t declared_spec(const char *text, const char *name) {
  for (const char *p = text; (p = strstr(p, "constant_id")); p += 11) {
    const char *q = p + 11;
    while (*q == ' ' || *q == '\t' || *q == '=' || *q == '(') q++;
    if (!isdigit((unsigned char)*q)) continue;
    long id = strtol(q, NULL, 10);
    const char *c = strstr(q, "const");
    if (!c || c - q > 80 || vkocc_ident_char(c[5])) continue;
    q = c + 5;
    while (isspace((unsigned char)*q)) q++;
    while (vkocc_ident_char(*q)) q++; /* the type */
    while (isspace((unsigned char)*q)) q++;
    size_t l = strlen(name);
    if (!strncmp(q, name, l) && !vkocc_ident_char(q[l]) && id >= 0 && id < INT32_MAX) return (int32_t)id;
  }
  return -1;
}

/* A configuration materialized once, on its first evaluation: its values, its key, its workgroup size and the
 * -D defines that name its module; the sentinel and the final round measure or build it again from here. */
struct config {
  uint32_t index;            /* in the space */
  const uint32_t *coord;     /* nparams value indices */
  char *key;                 /* t1_config_key: its identity in documents */
  bool sized;                /* local (and groups unless they name P) known */
  uint32_t local[3], groups[3];
  char **defs;               /* NULL until first compiled */
  uint32_t ndefs;
  char *defs_key;            /* the defines joined: the key of its module */
  int32_t module;            /* index into the harness's modules, -1 before its module is found */
  struct prebuilt *pre;      /* its module and pipeline made ahead (prebuild_ahead), until measure_config takes them */
};

static config *config_of(harness *h, uint32_t c) {
  if (!h->cfg) h->cfg = vkocc_xcalloc(h->run->space.count + 1, sizeof *h->cfg);
  if (h->cfg[c]) return h->cfg[c];
  config *x = h->cfg[c] = vkocc_xcalloc(1, sizeof *x);
  x->index = c;
  x->coord = h->run->space.coord + (size_t)c * h->s->nparams;
  x->module = -1;
  char key[1024];
  t1_config_key(h->s, x->coord, key, sizeof key);
  x->key = vkocc_xstrdup(key);
  return x;
}

static void config_free(config *x) {
  if (!x) return;
  for (uint32_t i = 0; i < x->ndefs; i++) free(x->defs[i]);
  free(x->defs), free(x->defs_key), free(x->key), free(x);
}

static char *define_text(const char *name, const char *value) {
  size_t len = strlen(name) + strlen(value) + 2;
  char *b = vkocc_xmalloc(len);
  snprintf(b, len, "%s=%s", name, value);
  return b;
}

/* the spec's -D defines, then LOCAL_SIZE_* and the parameters that are neither constants nor launch sizes */
static void defines_of(harness *h, config *x) {
  t1_spec *s = h->s;
  char **defs = x->defs = vkocc_xcalloc(s->ndefines + s->nparams + 3, sizeof *x->defs);
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->ndefines; i++) defs[n++] = vkocc_xstrdup(s->defines[i]);
  /* KTT's convention, only where the source uses them, so a kernel sized by local_size_*_id keeps one compile */
  static const char *const ln[] = {"LOCAL_SIZE_X", "LOCAL_SIZE_Y", "LOCAL_SIZE_Z"};
  for (int d = 0; d < 3 && s->lang != VKOCC_SHADER_SPIRV; d++)
    if (h->source && word_in(h->source, ln[d])) {
      char v[16];
      snprintf(v, sizeof v, "%u", x->local[d]);
      defs[n++] = define_text(ln[d], v);
    }
  for (uint32_t i = 0; i < s->nparams && s->lang != VKOCC_SHADER_SPIRV; i++) {
    if (h->run->param_spec[i] || h->run->param_launch[i]) continue;
    char v[64];
    texpr_value pv = s->params[i].values[x->coord[i]];
    if (s->params[i].type == T1_BOOL) snprintf(v, sizeof v, "%d", (int)pv.i);
    else if (pv.kind != TEXPR_STR) texpr_format(&pv, v, sizeof v);
    defs[n++] = define_text(s->params[i].name, pv.kind == TEXPR_STR && s->params[i].type != T1_BOOL ? (pv.s ? pv.s : "") : v);
  }
  size_t kl = 1;
  for (uint32_t i = 0; i < n; i++) kl += strlen(defs[i]) + 1;
  x->defs_key = vkocc_xmalloc(kl);
  x->defs_key[0] = 0;
  for (uint32_t i = 0; i < n; i++) strcat(strcat(x->defs_key, defs[i]), ";");
  x->ndefs = n;
}

/* The module of x's define set, found by its key, compiled on first use, by the first thread that needs it and
 * outside the table's lock (the pool compiles several at once; a thread that needs a module being compiled waits
 * for it); *compile_ms the time when compiled now. */
static module *get_module(harness *h, config *x, double *compile_ms) {
  prebuilder *b = &h->pb;
  *compile_ms = 0;
  pthread_mutex_lock(&b->modules);
  if (!x->defs_key) defines_of(h, x);
  if (!h->mod_index) h->mod_index = json_object();
  json_t *known = json_object_get(h->mod_index, x->defs_key);
  if (known) x->module = (int32_t)json_integer_value(known);
  if (x->module >= 0) {
    module *m = h->mods[x->module];
    while (!m->ready) pthread_cond_wait(&b->compiled, &b->modules);
    pthread_mutex_unlock(&b->modules);
    return m;
  }
  if (h->nmods == h->capmods) {
    h->capmods = h->capmods ? 2 * h->capmods : 8;
    h->mods = vkocc_xrealloc(h->mods, h->capmods * sizeof *h->mods); /* pointers: a module never moves */
  }
  x->module = (int32_t)h->nmods;
  json_object_set_new(h->mod_index, x->defs_key, json_integer(h->nmods));
  module *m = h->mods[h->nmods++] = vkocc_xcalloc(1, sizeof *m);
  pthread_mutex_unlock(&b->modules);
  double t0 = vkocc_now_ms();
  const char *text = h->s->kernel_text; /* a built-in spec's source is in the library */
  bool compiled;
  vkocc_status st = compile_spv(h, text, x->defs_key, (const char *const *)x->defs, x->ndefs, &m->spv, &m->words, &compiled);
  if (!st) st = vkocc_reflect(m->spv, m->words, h->s->kernel_name, &m->refl);
  if (st) {
    m->failed = true;
    snprintf(m->error, sizeof m->error, "%s", vkocc_last_error());
    for (char *c = m->error; *c; c++)
      if (*c == '\n') *c = ' ';
  } else spv_walk(m->spv, m->words, &m->consts);
  *compile_ms = vkocc_now_ms() - t0;
  pthread_mutex_lock(&b->modules);
  m->ready = true;
  h->run->compiles += compiled; /* another device's harness compiled it: its copy */
  h->run->compile_ms += *compile_ms;
  pthread_cond_broadcast(&b->compiled);
  pthread_mutex_unlock(&b->modules);
  return m;
}

static bool module_has_spec(const module *m, uint32_t id) {
  for (uint32_t k = 0; k < m->refl.nspecs; k++)
    if (m->refl.specs[k].id == id) return true;
  return false;
}

/* The arguments against the module's interface: Vectors = set 0 storage buffers in ascending bindings,
 * Scalars = the push-constant block, packed with natural alignment. USAGE naming the spec's path. */
static vkocc_status check_interface(harness *h, module *m) {
  t1_spec *s = h->s;
  uint64_t w = vkocc_spirv_written_bindings(m->spv, m->words, 0);
  /* the first module checked sets the arguments' bindings and offsets, which the measuring thread then reads without
   * this lock; a later module (on a pool thread) must agree with them, not write them again */
  const bool first = h->nchecked++ == 0;
  h->written = first ? w : h->written | w;
  const vkocc_reflection *rf = &m->refl;
  uint32_t nvec = 0, nb = 0;
  uint32_t binds[64];
  for (uint32_t i = 0; i < rf->nbindings; i++) {
    const vkocc_reflect_binding *b = &rf->bindings[i];
    if (b->set != 0 || b->type != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || b->count != 1)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s has a descriptor at set %u binding %u "
                        "(VkDescriptorType %u, %u elements) that is not a single storage buffer in set 0; Arguments map "
                        "Vectors to set 0 storage buffers", s->file, s->kernel_file, b->set, b->binding, b->type, b->count);
    if (nb < 64) binds[nb++] = b->binding;
  }
  for (uint32_t i = 1; i < nb; i++) /* ascending */
    for (uint32_t j = i; j > 0 && binds[j - 1] > binds[j]; j--) { uint32_t t = binds[j]; binds[j] = binds[j - 1], binds[j - 1] = t; }
  uint32_t off = 0;
  for (uint32_t i = 0; i < s->nargs; i++) {
    t1_arg *a = &s->args[i];
    if (a->vector) {
      int32_t bind = nvec < nb ? (int32_t)binds[nvec] : a->binding;
      if (!first && bind != a->binding)
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: %s takes binding %d in one configuration's module and %d in another's: "
                          "every define set must keep the Vectors' bindings", s->file, a->path, s->kernel_file, bind,
                          a->binding);
      if (first) a->binding = bind;
      nvec++;
    } else {
      uint32_t al = a->comp_bytes * (a->comps == 3 ? 4 : a->comps);
      if (al > 16) al = 16;
      off = (off + al - 1) / al * al;
      if (first) a->push_offset = off;
      off += (uint32_t)a->bytes;
    }
  }
  if (nvec != nb)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.Arguments: %u Vector arguments, but %s has %u storage "
                      "buffers in set 0", s->file, nvec, s->kernel_file, nb);
  /* exactly the block: a Scalar left out would run as 0 */
  if (off != rf->push_bytes)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.Arguments: the Scalar arguments take %u bytes of push "
                      "constants, but %s's push-constant block has %u (every member of the block is a Scalar argument, in order)",
                      s->file, off, s->kernel_file, rf->push_bytes);
  if (off > sizeof h->push)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.Arguments: more than %zu bytes of Scalars", s->file, sizeof h->push);
  if (first) h->push_bytes = rf->push_bytes;
  return VKOCC_OK;
}

/* ------------------------------------------------------------------ specialization */

typedef struct specs {
  vkocc_spec_value v[64];
  uint32_t n;
} specs;

static bool spec_set(specs *sp, uint32_t id, double value, char *err, size_t len, const char *what) {
  for (uint32_t i = 0; i < sp->n; i++)
    if (sp->v[i].id == id) {
      if (sp->v[i].value != value) {
        snprintf(err, len, "specialization constant %u gets %g from %s and %g before", id, value, what, sp->v[i].value);
        return false;
      }
      return true;
    }
  if (sp->n < 64) sp->v[sp->n++] = (vkocc_spec_value){id, value};
  return true;
}

static bool specs_of(harness *h, module *m, const uint32_t *coord, const uint32_t local[3], specs *sp, char *err, size_t len) {
  sp->n = 0;
  static const char *const ln[] = {"LocalSize.X", "LocalSize.Y", "LocalSize.Z"};
  for (int d = 0; d < 3; d++)
    if (m->consts.wg_spec[d] >= 0 && module_has_spec(m, (uint32_t)m->consts.wg_spec[d]) && !spec_set(sp, (uint32_t)m->consts.wg_spec[d], local[d], err, len, ln[d])) return false;
  for (uint32_t i = 0; i < h->s->nparams; i++) {
    if (!h->run->param_spec[i]) continue;
    int32_t id = h->spec_id[i];
    if (id < 0 || !module_has_spec(m, (uint32_t)id)) continue; /* optimized away in this variant */
    texpr_value v = h->s->params[i].values[coord[i]];
    if (v.kind == TEXPR_STR) { snprintf(err, len, "string parameter '%s' cannot be a specialization constant", h->s->params[i].name); return false; }
    double x = v.kind == TEXPR_INT ? (double)v.i : v.f;
    for (uint32_t k = 0; k < m->refl.nspecs; k++)
      if (m->refl.specs[k].id == (uint32_t)id && !m->refl.specs[k].is_float && x != floor(x)) {
        snprintf(err, len, "'%s' = %g: the specialization constant is an integer", h->s->params[i].name, x);
        return false;
      }
    if (!spec_set(sp, (uint32_t)id, x, err, len, h->s->params[i].name)) return false;
  }
  return true;
}

/* ------------------------------------------------------------------ buffers and submissions */

static bool validated(const harness *h, uint32_t i) { return h->expect && h->expect[i]; }
static bool restored(const t1_arg *a) { return a->vector && a->data.fill != T1_FILL_NONE && (a->access != T1_RO || a->output); }

/* the device compares freed, or abandoned with the buffers of a device whose work may still run */
static void gpu_check_free(harness *h, bool abandon) {
  for (uint32_t i = 0; h->cmp && !abandon && i < h->s->nargs; i++) {
    vkocc_compare_destroy(CTX(h), &h->cmp[i]);
    vkocc_buffer_destroy(CTX(h), &h->want[i]);
  }
  free(h->cmp), free(h->want);
  h->cmp = NULL, h->want = NULL, h->gpu_check = 0;
}

static vkocc_status gpu_check_add(harness *h, uint32_t i) {
  const t1_arg *a = &h->s->args[i];
  vkocc_status st = vkocc_buffer_create(CTX(h), h->dev[i].size, false, &h->want[i]);
  uint8_t *data = vkocc_xcalloc(1, h->dev[i].size);
  memcpy(data, h->expect[i], a->bytes);
  if (!st) st = vkocc_buffer_upload(CTX(h), &h->want[i], data, h->dev[i].size);
  free(data);
  vkocc_compare_desc d;
  tu_gpu_compare_desc(a, h->ref_of[i], &h->dev[i], &h->want[i], &d);
  return st ? st : vkocc_compare_create(CTX(h), &d, &h->cmp[i]);
}

/* Once the reference is known: the expected outputs uploaded, a compare per validated output; where any cannot
 * be had, every output is compared on the host as before. */
static void gpu_check_setup(harness *h) {
  if (h->gpu_check || !h->expect || !h->have_reference) return;
  const char *cpu = getenv("VKOCC_TEST_CPU_COMPARE");
  h->gpu_check = -1;
  if (cpu && !strcmp(cpu, "1")) return;
  /* a CPU device compares slower than the host (lavapipe, 4 Mi floats: 172 ms against 51 ms read back and
   * compared here); VKOCC_TEST_CPU_COMPARE=0 keeps the device's compare there (its tests) */
  bool device_is_cpu = vkocc_context_device(CTX(h))->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (device_is_cpu && !(cpu && !strcmp(cpu, "0"))) return;
  h->want = vkocc_xcalloc(h->s->nargs + 1, sizeof *h->want);
  h->cmp = vkocc_xcalloc(h->s->nargs + 1, sizeof *h->cmp);
  vkocc_status st = VKOCC_OK;
  for (uint32_t i = 0; i < h->s->nargs && !st; i++)
    if (validated(h, i)) st = gpu_check_add(h, i);
  if (st) gpu_check_free(h, false), vkocc_clear_error();
  h->gpu_check = st ? -1 : 1;
}

/* The probe, and the steady clock the device's cached fingerprint measured under load (its calibration: SM cycles
 * per realtime tick) as the rule's start: without it, a run that never left an intermediate clock state (an H100
 * at 0.64 GHz of 1.98) took that state for steady. */
static void clock_setup(harness *h) {
  if (h->probe_tried) return;
  h->probe_tried = true;
  if (!(h->probe_on = !vkocc_clock_probe_create(CTX(h), 2, &h->probe))) return;
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  if (!vkocc_fingerprint_from_cache(&CTX(h)->info, 0, &fp, &det)) return;
  json_t *cal = json_object_get((json_t *)det.document, "calibration");
  double mhz = json_number_value(json_object_get(cal, "shader_clock_mhz"));
  double tick = json_number_value(json_object_get(cal, "ns_per_realtime_tick"));
  if (mhz > 0 && tick > 0) tu_clock_seed(&h->clk, mhz / 1e3 * tick);
  vkocc_fingerprint_details_free(&det);
}

static void free_buffers(harness *h) {
  vkocc_context *ctx = CTX(h);
  gpu_check_free(h, false);
  vkocc_clock_probe_destroy(ctx, &h->probe);
  h->probe_on = h->probe_tried = false;
  if (!h->dev) return;
  for (uint32_t i = 0; i < h->s->nargs; i++) {
    if (h->restore) vkocc_copy_destroy(ctx, &h->restore[i]);
    vkocc_buffer_destroy(ctx, &h->dev[i]);
    vkocc_buffer_destroy(ctx, &h->pristine[i]);
    vkocc_buffer_destroy(ctx, &h->readback[i]);
  }
  free(h->dev), free(h->pristine), free(h->readback), free(h->restore);
  h->dev = h->pristine = h->readback = NULL, h->restore = NULL;
  h->buffers_ready = h->readback_made = false;
}

/* The host's copies of the outputs (and of what is validated), made when a batch first reads back to the host: a
 * device that compares on itself never needs them (256 MiB of host-visible memory took 67-111 ms to allocate on
 * the H100). */
static vkocc_status make_readback(harness *h) {
  vkocc_status st = VKOCC_OK;
  double t0 = vkocc_now_ms();
  for (uint32_t i = 0; i < h->s->nargs && !st; i++) {
    const t1_arg *a = &h->s->args[i];
    if (a->vector && !h->readback[i].buffer && (a->output || validated(h, i)))
      st = vkocc_buffer_create(CTX(h), (a->bytes + 3) / 4 * 4, true, &h->readback[i]);
  }
  h->readback_made = !st;
  if (h->trace_setup) fprintf(stderr, "vkocc tune: setup the read-back buffers: %.1f ms\n", vkocc_now_ms() - t0);
  return st;
}

/* Device buffers for every Vector (inputs uploaded; a pristine copy of what a run may change); the read-back
 * buffers come later (make_readback), the push constants with the first module (fill_push). USAGE for a size
 * beyond the device's limits. */
static vkocc_status make_buffers(harness *h) {
  vkocc_context *ctx = CTX(h);
  t1_spec *s = h->s;
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(ctx, &lim);
  h->dev = vkocc_xcalloc(s->nargs + 1, sizeof *h->dev);
  h->pristine = vkocc_xcalloc(s->nargs + 1, sizeof *h->pristine);
  h->readback = vkocc_xcalloc(s->nargs + 1, sizeof *h->readback);
  h->readback_made = false;
  /* inputs restored by vkCmdCopyBuffer. A compute copy (vkocc_copy) restored 256 MiB in 0.19 ms on an H100
   * against 0.64, but every SAXPY it restored for timed 0.5% slower than after vkCmdCopyBuffer (the same binary,
   * board and call: best 280.22 against 278.69 us, the old harness 278.46): what a restore leaves behind must not
   * move the time. VKOCC_TEST_COMPUTE_RESTORE=1 takes the compute copy (its tests; the benchmark's comparison). */
  const char *cr = getenv("VKOCC_TEST_COMPUTE_RESTORE");
  if (cr && !strcmp(cr, "1")) h->restore = vkocc_xcalloc(s->nargs + 1, sizeof *h->restore);
  vkocc_status st = VKOCC_OK;
  for (uint32_t i = 0; i < s->nargs && !st; i++) {
    t1_arg *a = &s->args[i];
    uint64_t bytes = (a->bytes + 3) / 4 * 4;
    if (!a->vector) continue; /* the Scalars: fill_push, once a module has placed them */
    if (bytes > lim.max_storage_buffer_range) {
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.Size: %llu bytes exceed maxStorageBufferRange (%u) of %s", s->file, a->path,
                      (unsigned long long)bytes, lim.max_storage_buffer_range, ctx->info.name);
      break;
    }
    double t[5] = {vkocc_now_ms()};
    if ((st = vkocc_buffer_create(ctx, bytes, false, &h->dev[i]))) break;
    t[1] = t[2] = t[3] = t[4] = vkocc_now_ms();
    if (a->data.fill != T1_FILL_NONE) {
      void *host;
      bool shared;
      st = fill_data(h, "arg", i, &a->data, a->path, a, bytes, &host, &shared);
      t[2] = vkocc_now_ms();
      /* the pristine copy of what a run changes, from the same staging buffer in the same submission */
      if (!st && restored(a)) st = vkocc_buffer_create(ctx, bytes, false, &h->pristine[i]);
      t[3] = vkocc_now_ms();
      vkocc_buffer *to[2] = {&h->dev[i], &h->pristine[i]};
      if (!st) st = vkocc_buffer_upload_to(ctx, to, restored(a) ? 2 : 1, host, bytes);
      if (!st && restored(a) && h->restore) st = vkocc_copy_create(ctx, &h->pristine[i], &h->dev[i], bytes, &h->restore[i]);
      t[4] = vkocc_now_ms();
      if (!shared) free(host);
    }
    if (h->trace_setup)
      fprintf(stderr, "vkocc tune: setup %s (%llu bytes): buffer %.1f ms, data %.1f, pristine buffer %.1f, upload %.1f\n",
              a->name, (unsigned long long)bytes, t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3]);
  }
  if (st) free_buffers(h);
  pthread_mutex_lock(&h->pb.modules); /* the pool reads it there (prepare_module) */
  h->buffers_ready = !st;
  pthread_mutex_unlock(&h->pb.modules);
  pthread_mutex_lock(&h->pb.lock); /* the compiled configurations' pipelines can be built now */
  h->pb.pipelines_ok = !st;
  pthread_cond_broadcast(&h->pb.wake);
  pthread_mutex_unlock(&h->pb.lock);
  return st;
}

/* The Scalars' push constants, at the offsets the first module's check gave them (host memory: kept through a
 * device reopened). */
static vkocc_status fill_push(harness *h) {
  t1_spec *s = h->s;
  memset(h->push, 0, sizeof h->push);
  for (uint32_t i = 0; i < s->nargs; i++) {
    t1_arg *a = &s->args[i];
    if (a->vector) continue;
    uint8_t tmp[64];
    vkocc_status st = t1_fill_data(s, &a->data, a->path, a, tmp);
    if (st) return st;
    memcpy(h->push + a->push_offset, tmp, a->bytes);
  }
  h->push_filled = true;
  return VKOCC_OK;
}

/* restore what a run changes (RW inputs, outputs with initial data), poison the outputs without any */
static void record_reset(harness *h, vkocc_batch *b, bool poison) {
  t1_spec *s = h->s;
  pthread_mutex_lock(&h->pb.modules); /* the pool's threads add the bindings of modules they check */
  const uint64_t written = h->written;
  pthread_mutex_unlock(&h->pb.modules);
  for (uint32_t i = 0; i < s->nargs; i++) {
    t1_arg *a = &s->args[i];
    if (!a->vector) continue;
    /* a buffer no module writes (NonWritable, whatever its T1 access says) keeps its data: no copy */
    bool may_write = a->binding < 0 || a->binding >= 64 || (written >> a->binding & 1);
    if (restored(a) && may_write) {
      if (h->restore) vkocc_copy_record(b, &h->restore[i]);
      else vkocc_batch_copy(b, &h->pristine[i], &h->dev[i], 0, 0, h->dev[i].size);
    }
    else if (poison && a->data.fill == T1_FILL_NONE)
      vkocc_batch_fill(b, &h->dev[i], 0, h->dev[i].size, h->poison ? h->poison : POISON);
  }
  vkocc_batch_barrier(b, VKOCC_SYNC_ALL);
}

/* count dispatches, timed one by one; readback copies the outputs after the last. *lost / *timed_out say
 * why a failed wait failed (the device is gone, or it did not finish within timeout_s). */
static vkocc_status run_batch(harness *h, vkocc_kernel *k, const uint32_t groups[3], uint32_t count, bool poison,
                              bool readback, double timeout_s, double *ns, bool *lost, bool *timed_out) {
  vkocc_context *ctx = CTX(h);
  vkocc_batch *b = vkocc_context_batch(ctx);
  *lost = *timed_out = false;
  /* the run's own setup, once: uploads before the batch is begun; counted as setup (the arguments' data), not as
   * the configuration's (the first one's validation took 450 ms on an H100 with 256 MiB of expected outputs) */
  if ((readback && !h->gpu_check && h->expect && h->have_reference) || !h->probe_tried) {
    double s0 = vkocc_now_ms();
    if (readback) gpu_check_setup(h);
    clock_setup(h);
    double s = vkocc_now_ms() - s0;
    h->run->setup_ms += s, h->late_setup_ms += s;
  }
  if (readback && h->gpu_check != 1 && !h->readback_made) {
    double s0 = vkocc_now_ms();
    vkocc_status rs = make_readback(h);
    double s = vkocc_now_ms() - s0;
    h->run->setup_ms += s, h->late_setup_ms += s;
    if (rs) return rs;
  }
  vkocc_status st = vkocc_batch_begin(b);
  if (st) { *lost = vkocc_context_lost(ctx); return st; }
  uint32_t first = 0;
  if (h->probe_on) vkocc_clock_probe_record(b, &h->probe, 0);
  for (uint32_t i = 0; i < count; i++) {
    record_reset(h, b, poison && i == 0);
    vkocc_batch_bind(b, k);
    if (h->push_bytes) vkocc_batch_push(b, k, h->push, h->push_bytes);
    uint32_t t = vkocc_batch_timer_start_after(b); /* after the restoring copies, not during their tail */
    if (!i) first = t;
    vkocc_batch_dispatch3(b, groups[0], groups[1], groups[2]);
    vkocc_batch_timer_stop(b, t);
    vkocc_batch_barrier(b, VKOCC_SYNC_ALL);
  }
  if (h->probe_on) vkocc_clock_probe_record(b, &h->probe, 1);
  if (readback && h->gpu_check == 1) {
    for (uint32_t i = 0; i < h->s->nargs; i++)
      if (validated(h, i)) vkocc_compare_record(b, &h->cmp[i]);
  } else if (readback) {
    for (uint32_t i = 0; i < h->s->nargs; i++)
      if (h->readback[i].buffer) vkocc_batch_copy(b, &h->dev[i], &h->readback[i], 0, 0, h->dev[i].size);
    vkocc_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_HOST);
  }
  if (h->gpu_end_ms > 0 && h->idle_ms >= 0) h->idle_ms += vkocc_now_ms() - h->gpu_end_ms;
  uint64_t t = (uint64_t)(timeout_s * 1e9);
  st = vkocc_batch_run(b, t ? t : 1, "a tuning dispatch");
  if (st) {
    *lost = vkocc_context_lost(ctx);
    *timed_out = !*lost && vkocc_last_reason() == VKOCC_REASON_TIMEOUT;
    return st;
  }
  /* VKOCC_TEST_DEVICE_LOSS=N: the Nth batch of the run acts as if the device were lost (tests the reopening;
   * a real loss cannot be provoked on lavapipe) */
  if (h->lose_at && ++h->batches == h->lose_at) {
    ctx->lost = true;
    *lost = true;
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_DEVICE_LOST, "a tuning dispatch: VK_ERROR_DEVICE_LOST "
                             "(simulated: VKOCC_TEST_DEVICE_LOSS)");
  }
  h->gpu_end_ms = vkocc_now_ms();
  /* the device busy with this batch, restores, compares and probes included: the tuning's device time */
  h->last_span_ms = b->span_ns * 1e-6;
  h->run->device_ms += h->last_span_ms;
  if (h->probe_on) h->clock_before = vkocc_clock_probe_read(&h->probe, 0), h->clock_after = vkocc_clock_probe_read(&h->probe, 1);
  for (uint32_t i = 0; i < count; i++) {
    const vkocc_batch_record *r = vkocc_batch_record_of(b, first + i);
    if (r->tick == VKOCC_TICKS_BACKWARDS)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "queue timestamps went backwards around a tuning dispatch");
    ns[i] = r->ns;
  }
  return VKOCC_OK;
}

/* ------------------------------------------------------------------ validation */

/* true when out matches the reference of argument i; why names the first difference */
static bool compare(harness *h, uint32_t i, const void *out, char *why, size_t len) {
  const t1_arg *a = &h->s->args[i];
  const t1_ref *ref = h->ref_of[i];
  t1_validation m = ref ? ref->method : T1_SIDE_BY_SIDE;
  double th = ref ? ref->threshold : 0;
  uint64_t n = a->count * a->comps;
  if (tu_host_bytes_pass(a, ref, out, h->expect[i])) return true; /* equal bytes: the loop below would pass them */
  vkocc_compare_desc cd; /* the element type and the kind of compare as the device compare takes them */
  tu_gpu_compare_desc(a, ref, NULL, NULL, &cd);
  if (cd.mode == VKOCC_CMP_EXACT) { /* compare the bytes, report the first element that differs */
    if (!memcmp(out, h->expect[i], a->bytes)) return true;
    for (uint64_t k = 0; k < n; k++)
      if (vkocc_elem_value(out, k, cd.elem) != vkocc_elem_value(h->expect[i], k, cd.elem)) {
        snprintf(why, len, "%s[%llu] = %.17g, expected %.17g", a->name, (unsigned long long)k, vkocc_elem_value(out, k, cd.elem),
                 vkocc_elem_value(h->expect[i], k, cd.elem));
        return false;
      }
    snprintf(why, len, "%s differs from the reference", a->name);
    return false;
  }
  double sum = 0;
  for (uint64_t k = 0; k < n; k++) {
    double x = vkocc_elem_value(out, k, cd.elem), y = vkocc_elem_value(h->expect[i], k, cd.elem), d = fabs(x - y);
    if (isnan(x) != isnan(y) || (isnan(d) && !isnan(x))) d = INFINITY;
    else if (isnan(d)) d = 0;
    if (m == T1_ABS_DIFF) { sum += d; continue; }
    double lim = m == T1_SIDE_BY_SIDE_REL ? th * fabs(y) : th;
    if (m == T1_SIDE_BY_SIDE_REL && y == 0) lim = th;
    if (!(d <= lim)) {
      snprintf(why, len, "%s[%llu] = %.9g, expected %.9g (%s, threshold %g)", a->name, (unsigned long long)k, x, y,
               m == T1_SIDE_BY_SIDE_REL ? "relative" : "side by side", th);
      return false;
    }
  }
  if (m == T1_ABS_DIFF && !(sum <= th)) {
    snprintf(why, len, "%s: the absolute differences sum to %.9g, threshold %g", a->name, sum, th);
    return false;
  }
  return true;
}

/* ------------------------------------------------------------------ one configuration: a recipe of phases */

static void prebuild_drain(harness *h);
static void prebuild_drop(harness *h, config *x);

static bool outputs_right(harness *h, char *why, size_t len);

/* After a dispatch that timed out or lost the device. A timed-out dispatch that ends within the context's
 * limit leaves the device usable: nothing is reopened. Otherwise the context is reopened; what was made on
 * a device whose work may still run is abandoned (its memory leaks) rather than freed under it. */
static vkocc_status recover(harness *h, tu_result *r, tu_invalidity inv, const char *why, vkocc_kernel *k) {
  vkocc_context *ctx = CTX(h);
  r->inv = inv;
  snprintf(r->error, sizeof r->error, "%s", why);
  bool lost = vkocc_context_lost(ctx);
  if (!lost && vkocc_batch_wait(vkocc_context_batch(ctx), 0) == VKOCC_OK) {
    vkocc_kernel_destroy(ctx, k);
    return VKOCC_OK; /* it finished late: recorded as timeout, the device goes on */
  }
  if (!h->o->reopen) return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s (no way to reopen the device)", why);
  prebuild_drain(h); /* nothing made on this device survives it */
  lost = vkocc_context_lost(ctx);
  if (lost) {
    /* a lost device runs nothing more: its objects can be destroyed */
    vkocc_kernel_destroy(ctx, k);
    free_buffers(h);
  } else {
    /* still running: keep its objects alive, and the device too (never destroyed under running work) */
    memset(k, 0, sizeof *k);
    gpu_check_free(h, true);
    memset(&h->probe, 0, sizeof h->probe), h->probe_on = h->probe_tried = false; /* abandoned with the device */
    free(h->dev), free(h->pristine), free(h->readback), free(h->restore);
    h->dev = h->pristine = h->readback = NULL, h->restore = NULL;
    h->buffers_ready = h->readback_made = false;
    *h->ctxp = NULL;
  }
  vkocc_status st = h->o->reopen(h->o->user, h->ctxp);
  h->run->device_losses++;
  if (!st) st = make_buffers(h);
  return st;
}

/* What a phase says: go on to the next phase; the configuration is invalid (r->inv and r->error say why; the
 * tuning goes on unless t->st says it cannot, after a device that did not come back); or the tuning stops with
 * nothing recorded (t->st: a spec that does not fit the kernel, or a failure no configuration survives). */
typedef enum { TU_GO, TU_INVALID, TU_STOP } tu_outcome;

/* One configuration under measurement: what its phases hand on to each other. */
typedef struct trial {
  uint32_t c;                /* its index in the space */
  config *x;
  const uint32_t *coord;     /* x's */
  tu_result *r;
  module *m;
  specs sp;
  vkocc_spirv_info info;
  vkocc_kernel k;
  double first_ns;           /* the validated run: it sizes the batches */
  bool first_counts;         /* ... and counts as the first timed run (racing, tu_race_validation_counts) */
  double timeout_s;          /* the bound on one dispatch */
  double late_setup_ms;      /* the run's set-up made by its dispatches (run_batch): taken off the phase that ran them */
  bool ahead;                /* prepared on the prebuilding thread: nothing shared is touched but the modules */
  double compiled_ahead_ms;  /* its module compiled on the prebuilding thread */
  vkocc_status st;
} trial;

static tu_outcome invalid(trial *t, tu_invalidity inv, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static tu_outcome invalid(trial *t, tu_invalidity inv, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->r->error, sizeof t->r->error, fmt, ap);
  va_end(ap);
  t->r->inv = inv;
  return TU_INVALID;
}

static tu_outcome stop(trial *t, vkocc_status st) {
  t->st = st;
  return TU_STOP;
}

/* A pipeline, P or dispatch that failed: a lost device or a dispatch past its bound is recovered from (the
 * configuration is recorded; the run goes on when the device does); any other failure is the configuration's. */
static tu_outcome failed(harness *h, trial *t, tu_invalidity inv, bool lost, bool timed_out, const char *why) {
  if (!lost && !timed_out) return invalid(t, inv, "%s", why);
  t->st = recover(h, t->r, timed_out ? TU_TIMEOUT : TU_RUNTIME, why, &t->k);
  return TU_INVALID;
}

/* count dispatches of the trial's pipeline (run_batch), each bounded by timeout_s */
static tu_outcome dispatch(harness *h, trial *t, uint32_t count, bool poison, bool readback, double *ns) {
  bool lost, timed_out;
  if (!run_batch(h, &t->k, t->r->groups, count, poison, readback, t->timeout_s * count, ns, &lost, &timed_out)) {
    for (uint32_t i = 0; i < count; i++) t->r->gpu_ms += ns[i] * 1e-6;
    t->r->device_ms += h->last_span_ms;
    t->r->submissions++;
    t->late_setup_ms += h->late_setup_ms, h->late_setup_ms = 0;
    return TU_GO;
  }
  char why[600];
  if (timed_out) snprintf(why, sizeof why, "%u dispatches did not end within the bound of %.3g s each (--timeout)", count,
                          t->timeout_s);
  else snprintf(why, sizeof why, "%s", vkocc_last_error());
  return failed(h, t, TU_RUNTIME, lost, timed_out, why);
}

/* ---- prepare: everything before the configuration's first dispatch */

static tu_outcome prepare_sizes(harness *h, trial *t) {
  t1_spec *s = h->s;
  tu_result *r = t->r;
  config *x = t->x;
  if (!x->sized && (t->st = t1_sizes(s, x->coord, h->global_P ? 1 : -1, x->local, x->groups))) return TU_STOP;
  x->sized = true;
  memcpy(r->local, x->local, sizeof r->local);
  if (!h->global_P) memcpy(r->groups, x->groups, sizeof r->groups);
  uint64_t inv = (uint64_t)r->local[0] * r->local[1] * r->local[2];
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(CTX(h), &lim);
  if (inv > lim.max_invocations || r->local[0] > lim.max_wg_size[0] || r->local[1] > lim.max_wg_size[1] ||
      r->local[2] > lim.max_wg_size[2])
    return invalid(t, TU_CONSTRAINTS, "workgroup %ux%ux%u exceeds the device's limits (%u invocations, %ux%ux%u)",
                   r->local[0], r->local[1], r->local[2], lim.max_invocations, lim.max_wg_size[0], lim.max_wg_size[1],
                   lim.max_wg_size[2]);
  return TU_GO;
}

/* the module (compiled on the first use of its define set), its interface checked and the push constants filled on
 * the first module that fits, the specialization constants, and the workgroup size and shared memory of the specialized module */
static tu_outcome prepare_module(harness *h, trial *t) {
  t1_spec *s = h->s;
  char err[512];
  module *m = t->m = get_module(h, t->x, &t->r->compile_ms);
  if (m->failed && strstr(m->error, "entry point")) /* every configuration would fail alike: the spec names no entry */
    return stop(t, vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelName: '%.200s': %s", s->file,
                              s->kernel_name, m->error));
  if (m->failed) return invalid(t, TU_COMPILE, "compile: %s", m->error);
  pthread_mutex_lock(&h->pb.modules); /* a module's interface is checked once, by whichever thread needs it first */
  if (t->ahead && !h->buffers_ready) { /* tu_tune makes the buffers before the pool starts; this guards a reopen */
    pthread_mutex_unlock(&h->pb.modules);
    return TU_STOP;
  }
  if (!m->checked && !(t->st = check_interface(h, m))) m->checked = true;
  if (!t->st && !h->push_filled) t->st = fill_push(h); /* whichever thread checks first: a prebuilt pipeline's too */
  pthread_mutex_unlock(&h->pb.modules);
  if (t->st) return TU_STOP;
  if (!specs_of(h, m, t->coord, t->r->local, &t->sp, err, sizeof err)) return invalid(t, TU_COMPILE, "%s", err);
  const uint32_t *l = t->r->local, *wg = t->info.wg;
  if (vkocc_spirv_inspect(m->spv, m->words, s->kernel_file, s->kernel_name, t->sp.v, t->sp.n, &t->info))
    return invalid(t, TU_COMPILE, "%s", vkocc_last_error());
  if (wg[0] != l[0] || wg[1] != l[1] || wg[2] != l[2]) /* a literal size that disagrees with LocalSize: bad input */
    return stop(t, vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.LocalSize: %ux%ux%u, but %s's workgroup size "
                              "is %ux%ux%u (a literal local_size; use local_size_x_id or LOCAL_SIZE_X)", s->file, l[0],
                              l[1], l[2], s->kernel_file, wg[0], wg[1], wg[2]));
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(CTX(h), &lim);
  if (t->info.shared_bytes > lim.max_shared_bytes)
    return invalid(t, TU_COMPILE, "%u bytes of shared memory exceed the device's %u", t->info.shared_bytes,
                   lim.max_shared_bytes);
  return TU_GO;
}

/* the pipeline: the caller's buffers at their set 0 bindings, the constants in their declared types */
static tu_outcome prepare_pipeline(harness *h, trial *t) {
  t1_spec *s = h->s;
  vkocc_kernel_resource res[64];
  uint32_t nres = 0;
  for (uint32_t i = 0; i < s->nargs && nres < 64; i++)
    if (s->args[i].vector)
      res[nres++] = (vkocc_kernel_resource){.set = 0, .binding = (uint32_t)s->args[i].binding, .buffer = &h->dev[i]};
  vkocc_kernel_desc kd = {.spv = t->m->spv, .words = t->m->words, .name = s->kernel_file, .role = "user's",
                          .entry = s->kernel_name, .info = &t->info, .refl = &t->m->refl, .spec = t->sp.v,
                          .nspec = t->sp.n, .res = res, .nres = nres, .statistics = h->s->uses_P || h->o->always_P,
                          .uncached = t->ahead && h->pb.uncached};
  if (!vkocc_kernel_build(CTX(h), &kd, &t->k)) return TU_GO;
  if (t->ahead) return TU_STOP; /* the main thread builds it again, and recovers from what failed */
  char why[600];
  snprintf(why, sizeof why, "pipeline creation: %s", vkocc_last_error());
  return failed(h, t, TU_COMPILE, vkocc_context_lost(CTX(h)), false, why);
}

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
static void pool_hold(harness *h, const config *x, bool on) {
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
  module *m = get_module(h, x, &ms);
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
  tu_outcome out = prepare_module(h, &t);
  double t0 = vkocc_now_ms();
  if (out == TU_GO) out = prepare_pipeline(h, &t);
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
static void pool_test_hooks(prebuilder *b) {
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
static uint32_t prebuild_threads(const tu_options *o) {
  if (o->threads) return o->threads > 64 ? 64 : o->threads;
  return vkocc_cores(1, 16);
}

/* How many configurations ahead are handed to the pool: enough for every thread and a few in hand (the nearest
 * are started first, so a wider window only builds further ahead). */
static uint32_t prebuild_window(const harness *h) { return 2 * h->pb.nthreads + 1; }

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
static void prebuild_queue(harness *h, const uint32_t *next, uint32_t n) {
  prebuilder *b = &h->pb;
  if (!n) return;
  if (!b->thread) {
    b->cap = prebuild_window(h) + b->nthreads;
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
    config *x = config_of(h, next[i]);
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

void tu_prefetch(void *eval_user, const uint32_t *next, uint32_t n) { prebuild_queue(eval_user, next, n); }

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
static bool prebuilt_take(harness *h, trial *t) {
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
static void prebuild_drop(harness *h, config *x) {
  prebuilt *p = prebuilt_wait(h, x, false);
  if (p && p->state == PB_READY && p->out == TU_GO) vkocc_kernel_destroy(CTX(h), &p->k);
  free(p);
}

/* Every prebuilt pipeline destroyed, the jobs given up (before the device is reopened, and at the end); no
 * pipeline is built until the buffers are made again. */
static void prebuild_drain(harness *h) {
  prebuilder *b = &h->pb;
  pthread_mutex_lock(&b->lock);
  b->pipelines_ok = false;
  for (uint32_t i = 0; i < b->njobs; i++) { /* not started: given up */
    prebuilt *p = b->job[i]->pre;
    if (p->state == PB_QUEUED || p->state == PB_COMPILED) p->state = PB_READY, p->out = TU_STOP;
  }
  while (b->busy) pthread_cond_wait(&b->done, &b->lock);
  pthread_mutex_unlock(&b->lock);
  while (b->njobs) prebuild_drop(h, b->job[0]);
}

static void prebuild_stop(harness *h) {
  prebuilder *b = &h->pb;
  prebuild_drain(h);
  pthread_mutex_lock(&b->lock);
  b->quit = true;
  pthread_cond_broadcast(&b->wake);
  pthread_mutex_unlock(&b->lock);
  for (uint32_t i = 0; i < b->started; i++) pthread_join(b->thread[i], NULL);
  free(b->thread), free(b->job);
  if (b->trace) fclose(b->trace);
  b->thread = NULL, b->job = NULL, b->trace = NULL, b->started = 0;
}

bool tu_fingerprint_derived(const json_t *doc, const vkocc_device_info *dev, vkocc_derived *out) {
  json_t *d = json_object_get(doc, "device");
  char uuid[37];
  vkocc_format_uuid(dev->uuid, uuid);
  const char *u = json_string_value(json_object_get(d, "uuid"));
  json_t *drv = json_object_get(d, "driver_version_raw"), *q = json_object_get(d, "compute_queue_family");
  if (!u || strcmp(u, uuid) || !json_is_integer(drv) || json_integer_value(drv) != (json_int_t)dev->driver_version ||
      !json_is_integer(q) || json_integer_value(q) != (json_int_t)dev->compute_queue_family)
    return false;
  bool ok = !vkocc_derived_from_json(json_object_get(doc, "derived"), "the fingerprint", "$.derived", out);
  vkocc_clear_error();
  return ok;
}

/* The device's model, read once: its fingerprint's per-SM limits (the cache's, else the fingerprint given for this
 * device: a fresh cache and --fingerprint left P of the pipeline as written unestablished for every configuration
 * of SAXPY on an H100) and its register model (the cache's): what P_of_model and the written-pipeline rule need. */
static bool model_known(harness *h) {
  if (!h->model_read) {
    vkocc_fingerprint fp;
    vkocc_fingerprint_details det;
    h->model_read = true;
    if (vkocc_fingerprint_from_cache(&CTX(h)->info, 0, &fp, &det)) {
      h->derived = det.derived, h->have_derived = true;
      vkocc_fingerprint_details_free(&det);
    } else if (h->o->fp_doc && tu_fingerprint_derived(h->o->fp_doc, &CTX(h)->info, &h->derived)) {
      h->have_derived = true;
    }
    h->have_registers = vkocc_register_model_from_cache(&CTX(h)->info, &h->registers);
  }
  return h->have_derived && h->have_registers;
}

/* P from the model where it is exact (tu_P_model) under the pipeline's own statistics: a register count, the
 * shared memory, and no other statistic that could bound occupancy (an unknown one: measured). */
static bool P_of_model(harness *h, trial *t, uint32_t *P) {
  char names[24][64];
  double v[24];
  uint32_t n = model_known(h) ? vkocc_kernel_statistics(CTX(h), &t->k, names, v, 24) : 0;
  uint32_t regs = 0, shared = t->info.shared_bytes;
  for (uint32_t i = 0; i < n; i++) {
    int kind = vkocc_stat_kind(names[i]);
    if (kind == VKOCC_STAT_REGISTERS) regs = v[i] > 0 ? (uint32_t)v[i] : 0;
    else if (kind == VKOCC_STAT_SHARED) shared = v[i] > 0 ? (uint32_t)v[i] : 0;
    else if (kind != VKOCC_STAT_NEUTRAL) return false;
  }
  return n && tu_P_model(&h->derived, &h->registers, t->info.wg[0] * t->info.wg[1] * t->info.wg[2], shared, regs, P);
}

/* P measured (the pipeline augmented, the comb alone, one dispatch per estimate, its first sized by the last P
 * measured; cached by the library on disk) */
static tu_outcome P_measured(harness *h, trial *t) {
  t1_spec *s = h->s;
  const tu_options *o = h->o;
  vkocc_context *ctx = CTX(h);
  if (!h->have_cal && !o->cal) {
    vkocc_calibrate_options co;
    vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
    if ((t->st = vkocc_calibrate(ctx, &co, &h->cal))) return TU_STOP;
    h->have_cal = true;
  }
  vkocc_shader_desc sd = {.spirv = t->m->spv, .spirv_words = t->m->words, .name = s->kernel_file,
                          .lang = VKOCC_SHADER_SPIRV, .entry = s->kernel_name, .spec = t->sp.v, .nspec = t->sp.n};
  vkocc_pipeline_result pr;
  vkocc_probe_options po = {.method = vkocc_context_has_device_clock(ctx) ? VKOCC_METHOD_COMB : 0,
                            .hint = h->last_P > 0 ? (uint32_t)h->last_P : 0};
  model_known(h);
  vkocc_status st = vkocc_pipeline_occupancy_model(ctx, o->cal ? o->cal : &h->cal, &sd, &po, h->have_derived ? &h->derived : NULL,
                                                   h->have_registers ? &h->registers : NULL, true, &pr);
  if (st == VKOCC_ERROR_UNSUPPORTED && s->uses_P) return stop(t, st); /* no shader clock: P cannot be had */
  if (st) {
    char why[600];
    snprintf(why, sizeof why, "occupancy: %s", vkocc_last_error());
    return failed(h, t, TU_RUNTIME, vkocc_context_lost(ctx), false, why);
  }
  h->last_P = t->r->P = pr.P;
  vkocc_pipeline_result_free(&pr);
  return TU_GO;
}

/* The keys under which a measured P serves the rest of the run: the pipeline (its module, its specialization,
 * its workgroup size: the same pipeline has the same P), and where the driver gives a register count among the
 * pipeline's statistics, its resources (workgroup size, shared memory and every statistic that bounds
 * occupancy: what decides how many workgroups are resident; "" without). */
static void P_keys(harness *h, trial *t, char *pipe, size_t plen, char *res, size_t rlen) {
  const uint32_t *wg = t->info.wg;
  size_t n = (size_t)snprintf(pipe, plen, "pipeline %d wg %ux%ux%u", t->x->module, wg[0], wg[1], wg[2]);
  for (uint32_t i = 0; i < t->sp.n && n < plen; i++)
    n += (size_t)snprintf(pipe + n, plen - n, " %u=%.17g", t->sp.v[i].id, t->sp.v[i].value);
  res[0] = 0;
  char names[24][64];
  double v[24];
  uint32_t ns = vkocc_kernel_statistics(CTX(h), &t->k, names, v, 24);
  bool regs = false;
  for (uint32_t i = 0; i < ns; i++) regs |= vkocc_stat_kind(names[i]) == VKOCC_STAT_REGISTERS;
  if (!regs) return;
  n = (size_t)snprintf(res, rlen, "resources wg %u shared %u", wg[0] * wg[1] * wg[2], t->info.shared_bytes);
  for (uint32_t i = 0; i < ns && n < rlen; i++)
    if (vkocc_stat_kind(names[i]) != VKOCC_STAT_NEUTRAL) n += (size_t)snprintf(res + n, rlen - n, " %s=%.17g", names[i], v[i]);
}

/* P of the pipeline, when a condition or size names it or --occupancy asks: from the model where it is exact,
 * else measured; then the conditions that name P, and the workgroup count where it names P */
static tu_outcome prepare_P(harness *h, trial *t) {
  t1_spec *s = h->s;
  if (!s->uses_P && !h->o->always_P) return TU_GO;
  uint32_t P;
  tu_outcome out = TU_GO;
  if (P_of_model(h, t, &P)) t->r->P = P, t->r->P_model = true;
  else { /* the memo's keys read the pipeline's statistics: only where the model does not give P */
    char pipe[1400], res[1400];
    json_t *hit = NULL;
    P_keys(h, t, pipe, sizeof pipe, res, sizeof res);
    if (!h->P_memo) h->P_memo = json_object();
    if ((hit = json_object_get(h->P_memo, pipe))) t->r->P_memo = TU_P_SAME_PIPELINE;
    else if (res[0] && (hit = json_object_get(h->P_memo, res))) t->r->P_memo = TU_P_SAME_RESOURCES;
    else if ((out = P_measured(h, t)) == TU_GO) {
      json_t *v = json_pack("[I, I]", (json_int_t)t->r->P, (json_int_t)t->c);
      json_object_set(h->P_memo, pipe, v);
      if (res[0]) json_object_set(h->P_memo, res, v);
      json_decref(v);
    }
    if (hit) t->r->P = json_integer_value(json_array_get(hit, 0)), t->r->P_from = json_integer_value(json_array_get(hit, 1));
  }
  if (out != TU_GO) return out;
  bool ok;
  char why[400];
  if ((t->st = t1_check_P(s, t->coord, t->r->P, &ok, why, sizeof why))) return TU_STOP;
  if (!ok) return invalid(t, TU_CONSTRAINTS, "%s", why);
  if (h->global_P && (t->st = t1_sizes(s, t->coord, t->r->P, t->r->local, t->r->groups))) return TU_STOP;
  return TU_GO;
}

static tu_outcome prepare_groups(harness *h, trial *t) {
  const uint32_t *g = t->r->groups;
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(CTX(h), &lim);
  if (g[0] > lim.max_wg_count[0] || g[1] > lim.max_wg_count[1] || g[2] > lim.max_wg_count[2])
    return invalid(t, TU_CONSTRAINTS, "%ux%ux%u workgroups exceed maxComputeWorkGroupCount", g[0], g[1], g[2]);
  return TU_GO;
}

static tu_outcome phase_prepare(harness *h, trial *t) {
  tu_result *r = t->r;
  tu_run *run = h->run;
  tu_outcome out = prepare_sizes(h, t);
  double w0 = vkocc_now_ms();
  bool made = out == TU_GO && prebuilt_take(h, t);
  if (out == TU_GO && !made) out = prepare_module(h, t);
  if (t->compiled_ahead_ms > r->compile_ms) r->compile_ms = t->compiled_ahead_ms;
  if (out == TU_GO && !made) {
    double t0 = vkocc_now_ms();
    out = prepare_pipeline(h, t);
    r->pipeline_ms = vkocc_now_ms() - t0;
  }
  /* what the device waited for: the module and pipeline, built here or by the pool */
  r->wait_ms = fmax(0, vkocc_now_ms() - w0);
  if (r->pipeline_ms > 0) run->pipelines++, run->pipelines_ms += r->pipeline_ms;
  if (out == TU_GO) {
    double t0 = vkocc_now_ms();
    out = prepare_P(h, t);
    r->occupancy_ms = vkocc_now_ms() - t0;
    run->occupancy_ms += r->occupancy_ms;
  }
  return out == TU_GO ? prepare_groups(h, t) : out;
}

/* ---- validate: the first run, on poisoned outputs and restored inputs, within the bound */

/* The reference must write every element of its outputs: it runs again under another poison, and an element
 * that kept both poisons was never written (with no reference, a kernel that wrote nothing was judged right
 * against its own poisoned output). Then its outputs are the reference. */
static tu_outcome validate_as_reference(harness *h, trial *t) {
  t1_spec *s = h->s;
  uint8_t **keep = vkocc_xcalloc(s->nargs + 1, sizeof *keep);
  for (uint32_t i = 0; i < s->nargs; i++)
    if (s->args[i].output && h->readback[i].map) {
      keep[i] = vkocc_xmalloc(s->args[i].bytes + 1);
      memcpy(keep[i], h->readback[i].map, s->args[i].bytes);
    }
  double again;
  h->poison = POISON2;
  tu_outcome out = dispatch(h, t, 1, true, true, &again);
  h->poison = 0;
  for (uint32_t i = 0; i < s->nargs && out == TU_GO; i++) {
    if (!keep[i] || s->args[i].data.fill != T1_FILL_NONE) continue;
    for (uint64_t w = 0; w < s->args[i].bytes / 4 && out == TU_GO; w++) {
      uint32_t a, b;
      memcpy(&a, keep[i] + 4 * w, 4), memcpy(&b, (uint8_t *)h->readback[i].map + 4 * w, 4);
      if (a == POISON && b == POISON2)
        out = invalid(t, TU_CORRECTNESS, "leaves %s unwritten from byte %llu (it kept the poison of two runs), so its "
                      "output cannot be the reference", s->args[i].name, (unsigned long long)(4 * w));
    }
  }
  for (uint32_t i = 0; i < s->nargs; i++) free(keep[i]);
  free(keep);
  if (out != TU_GO) return out;
  for (uint32_t i = 0; i < s->nargs; i++) {
    if (h->expect[i] == (void *)1) h->expect[i] = NULL;
    if (s->args[i].output) h->expect[i] = memcpy(vkocc_xmalloc(s->args[i].bytes), h->readback[i].map, s->args[i].bytes);
  }
  h->have_reference = true;
  snprintf(h->run->reference, sizeof h->run->reference, "%s", t->x->key);
  return TU_GO;
}

static tu_outcome phase_validate(harness *h, trial *t) {
  tu_outcome out = dispatch(h, t, 1, true, true, &t->first_ns);
  if (out != TU_GO) return out;
  if (h->racing_now && h->probe_on) {
    bool cpu = vkocc_context_device(CTX(h))->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    bool steady = tu_clock_judge(&h->clk, NULL, h->clock_before, h->clock_after, 0) == TU_CLOCK_OK;
    t->first_counts = tu_race_validation_counts(cpu, steady) && t->first_ns > 0;
  }
  if (t->first_ns > t->timeout_s * 1e9)
    return invalid(t, TU_TIMEOUT, "one dispatch took %.3f s, more than the bound of %.1f s", t->first_ns / 1e9,
                   t->timeout_s);
  if (h->expect && !h->have_reference) return validate_as_reference(h, t);
  char why[400];
  return outputs_right(h, why, sizeof why) ? TU_GO : invalid(t, TU_CORRECTNESS, "wrong output: %s", why);
}

/* ---- warm: untimed dispatches before anything is timed */

/* How long to warm, in device time, so that clocks that dropped while the host worked come back up. A GPU's
 * clock governor follows its recent utilization: the GPU is kept busy for warmup_ratio times the host time it
 * was idle since the last batch (its duty cycle stays >= ratio / (1 + ratio)), at least 20 ms and at most
 * warmup_ms; a cold GPU (nothing run yet) gets warmup_ms. The sentinel (tu_tune) checks the result. A CPU device
 * gets the cold warm-up too (on lavapipe the configurations timed in the first second of a process took up to
 * 1.6x as long as the same ones re-timed at its end, docs/tune.md), then the least: the host's work between
 * configurations runs on the same CPU, which it leaves busy, not idle. */
static double warm_wanted_ms(const harness *h) {
  const tu_options *o = h->o;
  double cap_ms = o->warmup_ms < 0 ? 0 : o->warmup_ms > 0 ? o->warmup_ms : 500;
  double ratio = o->warmup_ratio < 0 ? 0 : o->warmup_ratio > 0 ? o->warmup_ratio : 2;
  if (ratio <= 0 || h->idle_ms < 0) return cap_ms;
  bool cpu = vkocc_context_device(*h->ctxp)->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  double ms = cpu ? 0 : ratio * h->idle_ms;
  return ms < 20 ? (cap_ms < 20 ? cap_ms : 20) : ms > cap_ms ? cap_ms : ms;
}

/* dispatches in a batch of about 20 ms of device time at per_ns each, at least lo, at most MAX_BATCH and left */
static uint32_t batch_size(double per_ns, uint32_t lo, uint32_t left) {
  double n = 20e6 / (per_ns > 1 ? per_ns : 1);
  uint32_t b = n > MAX_BATCH ? MAX_BATCH : n < lo ? lo : (uint32_t)n;
  return b > left ? left : b;
}

/* The first timed batch: the fewest runs the stopping rule can stop at (min_runs), more where they are cheap
 * (about 2 ms of device time at per_ns each, at most MAX_BATCH), at most left. A batch of 20 ms (batch_size) ran
 * 16 SAXPY runs of 0.28 ms, each after a 0.64 ms restore, where the rule held after 5 (spread 0.05%). */
static uint32_t first_batch_size(double per_ns, uint32_t min_runs, uint32_t left) {
  double n = 2e6 / (per_ns > 1 ? per_ns : 1);
  uint32_t lo = min_runs > MAX_BATCH ? MAX_BATCH : min_runs;
  uint32_t b = n > MAX_BATCH ? MAX_BATCH : n < lo ? lo : (uint32_t)n;
  return b > left ? left : b;
}

/* With the clock probe a warm-up runs only while the evidence asks for it (tune/clock_rule.h): the clock read
 * after the last batch is below the steady clock, or no steady clock is known yet; in batches of about 10 ms, up
 * to warmup_ms (default 500). Without the probe (a device without both clocks), warm_wanted_ms's blind rule. */
static tu_outcome phase_warm(harness *h, trial *t) {
  bool evidence = h->probe_on && h->o->warmup_ms >= 0;
  double warm_ms = warm_wanted_ms(h);
  if (evidence) warm_ms = tu_clock_needs_warmup(&h->clk, NULL, h->clock_after) ? (h->o->warmup_ms > 0 ? h->o->warmup_ms : 500) : 0;
  h->idle_ms = 0;
  double busy = 0;
  while (busy < warm_ms * 1e6) {
    double wt[MAX_BATCH];
    double per = t->first_ns > 1 ? t->first_ns : 1, left = warm_ms * 1e6 - busy;
    uint32_t batch = (uint32_t)fmin((evidence ? fmin(10e6, left) : left) / per + 1, MAX_BATCH);
    tu_outcome out = dispatch(h, t, batch, false, false, wt);
    if (out != TU_GO) return out;
    for (uint32_t i = 0; i < batch; i++) busy += wt[i] > 0 ? wt[i] : 1;
    if (evidence) {
      tu_clock_observe(&h->clk, h->clock_before), tu_clock_observe(&h->clk, h->clock_after);
      if (!tu_clock_needs_warmup(&h->clk, NULL, h->clock_after)) break;
    }
  }
  t->r->warmup_ms = evidence ? busy / 1e6 : warm_ms;
  return TU_GO;
}

/* ---- trials: timed batches until the stopping rule holds, then the last outputs validated again */

/* The stopping rule: enough runs whose spread (MAD / median) is small, or at least 3 runs and the time spent.
 * (The run cap, max_runs, is the trials loop's.) */
bool tu_enough_runs(const tu_options *o, const double *ns, uint32_t runs, double elapsed_ms) {
  double target = o->target_spread > 0 ? o->target_spread : 0.02;
  uint32_t min_runs = o->min_runs ? o->min_runs : 5;
  double max_s = o->max_config_s > 0 ? o->max_config_s : 2.0;
  vkocc_summary sum;
  vkocc_summarize(ns, runs, &sum);
  if (runs >= min_runs && sum.median > 0 && sum.mad / sum.median <= target) return true;
  return runs >= 3 && elapsed_ms > max_s * 1e3;
}

/* Racing (tune/race.h): whether the runs so far put the configuration behind the best; if so it is marked stopped,
 * with the incumbent's median and the margin it was held against. */
static bool race_stops(harness *h, tu_result *r) {
  tu_race_verdict v = tu_race_judge(&h->race, !h->racing_now, r->times_ns, r->runs);
  if (!v.behind) return false;
  r->stopped = 1, r->race_best_ns = v.best_ns, r->race_margin = v.bias * (1 + v.margin) - 1; /* the whole margin */
  return true;
}

static tu_outcome phase_trials(harness *h, trial *t) {
  tu_result *r = t->r;
  uint32_t max_runs = h->o->max_runs ? h->o->max_runs : 50;
  uint32_t min_runs = h->o->min_runs ? h->o->min_runs : 5;
  r->times_ns = vkocc_xmalloc((max_runs + 1) * sizeof *r->times_ns);
  double since = vkocc_now_ms();
  uint32_t retry = 0;
  /* racing with an incumbent: the first batch holds the fewest runs that may stop a configuration behind the best
   * (the validation run counts as the first where the device allows), and the race is judged after every batch;
   * a contender then goes on to the full rule, its next batch bringing it to min_runs at least */
  bool race = h->racing_now && h->race.best >= 0;
  uint32_t first = tu_race_first_runs(&h->race, !h->racing_now, t->first_counts, min_runs);
  if (race && t->first_counts) r->times_ns[r->runs++] = t->first_ns;
  /* each batch ends with the outputs' check (a compare dispatch, 64 Mi floats in 0.22 ms on an H100; or their copy
   * back to the host), so the last batch's outputs are there without a submission of their own */
  bool timed = false;
  while (r->runs < max_runs) {
    uint32_t left = max_runs - r->runs;
    /* a contender short of min_runs after the race's first batch gets what the full rule's first batch would
     * have given it (about 2 ms of runs), not a 20 ms batch: on an H100 that was 13-20 runs where 5 decide */
    uint32_t batch = !timed ? first_batch_size(t->first_ns, first, left)
                     : r->runs < min_runs ? first_batch_size(t->first_ns, min_runs - r->runs, left)
                                          : batch_size(t->first_ns, 1, left);
    tu_outcome out = dispatch(h, t, batch, false, true, r->times_ns + r->runs);
    if (out != TU_GO) return out;
    if (h->probe_on) {
      /* clock-verified: a batch bracketed by a reading below the steady clock is measured again (bounded) */
      tu_clock_verdict v = tu_clock_judge(&h->clk, NULL, h->clock_before, h->clock_after, retry);
      tu_clock_observe(&h->clk, h->clock_before), tu_clock_observe(&h->clk, h->clock_after);
      double lo = fmin(h->clock_before, h->clock_after), hi = fmax(h->clock_before, h->clock_after);
      if (lo > 0 && (!(r->clock_min > 0) || lo < r->clock_min)) r->clock_min = lo;
      if (hi > r->clock_max) r->clock_max = hi;
      r->clock_steady = h->clk.steady;
      if (v == TU_CLOCK_AGAIN) {
        retry++, r->clock_again++;
        continue;
      }
      if (v == TU_CLOCK_KEPT) r->clock_kept++;
      retry = 0;
    }
    r->runs += batch, timed = true;
    if (race && race_stops(h, r)) break;
    if (tu_enough_runs(h->o, r->times_ns, r->runs, vkocc_now_ms() - since)) break;
  }
  char why[400]; /* the outputs of the last run must still be right (a race shows here) */
  if (!outputs_right(h, why, sizeof why)) return invalid(t, TU_CORRECTNESS, "wrong output after %u runs: %s", r->runs, why);
  return TU_GO;
}

/* ---- summary: the runs' statistics and the configuration's costs */

static void phase_summary(harness *h, trial *t, double t_start) {
  tu_result *r = t->r;
  if (r->runs) {
    vkocc_summary sum;
    vkocc_summarize(r->times_ns, r->runs, &sum);
    r->median_ns = sum.median, r->min_ns = sum.min, r->max_ns = sum.max;
    r->spread = sum.median > 0 ? sum.mad / sum.median : 0;
  }
  if (r->inv != TU_CORRECT) r->median_ns = NAN;
  r->measure_ms = r->phase_ms[TU_PHASE_VALIDATE] + r->phase_ms[TU_PHASE_WARM] + r->phase_ms[TU_PHASE_TRIALS];
  h->run->measure_ms += r->measure_ms;
  r->total_ms = vkocc_now_ms() - t_start - t->late_setup_ms; /* the run's set-up, not this configuration's */
  r->other_ms = fmax(0, r->total_ms - r->compile_ms - r->pipeline_ms - r->occupancy_ms - r->measure_ms);
}

/* The measurement of one configuration: its phases in turn, each timed, until one does not say go on. */
static const struct phase {
  tu_phase id;
  tu_outcome (*run)(harness *h, trial *t);
} recipe[] = {{TU_PHASE_PREPARE, phase_prepare}, {TU_PHASE_VALIDATE, phase_validate}, {TU_PHASE_WARM, phase_warm},
              {TU_PHASE_TRIALS, phase_trials}};

static vkocc_status measure_config(harness *h, uint32_t c, tu_result *r) {
  double t_start = vkocc_now_ms();
  memset(r, 0, sizeof *r);
  r->P = -1, r->P_from = -1, r->measured = true;
  vkocc_utc_now(r->when, sizeof r->when);
  config *x = config_of(h, c);
  trial t = {.c = c, .x = x, .coord = x->coord, .r = r, .timeout_s = h->o->timeout_s > 0 ? h->o->timeout_s : 5};
  tu_outcome out = TU_GO;
  h->late_setup_ms = 0; /* made outside a configuration (the final round): already the run's */
  const bool cpu = vkocc_context_device(CTX(h))->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  for (size_t i = 0; i < sizeof recipe / sizeof recipe[0] && out == TU_GO; i++) {
    double t0 = vkocc_now_ms(), late0 = t.late_setup_ms;
    bool timed = recipe[i].id == TU_PHASE_WARM || recipe[i].id == TU_PHASE_TRIALS;
    if (cpu && timed) pool_hold(h, x, true);
    out = recipe[i].run(h, &t);
    if (cpu && timed) pool_hold(h, x, false);
    r->phase_ms[recipe[i].id] = vkocc_now_ms() - t0 - (t.late_setup_ms - late0);
  }
  vkocc_kernel_destroy(CTX(h), &t.k);
  if (out == TU_STOP) {
    r->measured = false;
    return t.st;
  }
  double t0 = vkocc_now_ms();
  phase_summary(h, &t, t_start);
  r->phase_ms[TU_PHASE_SUMMARY] = vkocc_now_ms() - t0;
  return t.st;
}

/* ------------------------------------------------------------------ the search */

/* the space's configurations by key, built on the first lookup (a lookup was a scan of the space, each
 * configuration's key written again) and dropped when the space changes (tu_restrict) */
json_t *tu_key_index(tu_run *run) {
  if (run->by_key) return run->by_key;
  run->by_key = json_object();
  for (uint32_t c = 0; c < run->space.count; c++) {
    char key[1024];
    t1_config_key(&run->spec, run->space.coord + (size_t)c * run->spec.nparams, key, sizeof key);
    json_object_set_new(run->by_key, key, json_integer(c));
  }
  return run->by_key;
}

int64_t tu_find(tu_run *run, const char *key) {
  json_t *c = json_object_get(tu_key_index(run), key);
  return c ? json_integer_value(c) : -1;
}

/* The search's median ranks; a final round (--confirm) validates the best again and reports its re-timing
 * beside the median, but does not rank: on an H100 it re-timed the best of long sweeps 1.9-3.4x slower than
 * their medians (docs/tune.md), a difference this harness cannot explain yet, so it decides nothing. */
double tu_rank_ns(const tu_result *r) { return r->median_ns; }

int64_t tu_best(const tu_run *run) {
  int64_t b = -1;
  for (uint32_t i = 0; i < run->space.count; i++) {
    const tu_result *r = &run->r[i];
    if (!r->measured || r->inv != TU_CORRECT || !r->runs) continue;
    if (b < 0 || tu_rank_ns(r) < tu_rank_ns(&run->r[b])) b = i;
  }
  return b;
}

/* The outputs just read back against the reference (validated outputs only); false with the message in why.
 * True when nothing can be validated (no Output argument). */
static bool outputs_right(harness *h, char *why, size_t len) {
  if (!h->expect || !h->have_reference) return true;
  for (uint32_t i = 0; h->gpu_check == 1 && i < h->s->nargs; i++) {
    vkocc_compare_result res;
    if (!validated(h, i)) continue;
    vkocc_compare_read(&h->cmp[i], &res);
    if (!res.pass) return tu_gpu_compare_why(&h->s->args[i], h->ref_of[i], &res, why, len), false;
  }
  if (h->gpu_check == 1) return h->run->validated_on_device = true;
  for (uint32_t i = 0; i < h->s->nargs; i++)
    if (validated(h, i) && h->readback[i].map && !compare(h, i, h->readback[i].map, why, len)) return false;
  return true;
}

/* A final-round candidate whose output is wrong: invalid (correctness), never chosen. */
static void final_wrong(tu_result *r, const char *when, const char *why) {
  r->inv = TU_CORRECTNESS;
  r->median_ns = NAN;
  r->confirm_runs = 0;
  snprintf(r->error, sizeof r->error, "wrong output in the final round (%s): %s", when, why);
}

typedef struct ranked { double ns; uint32_t i; } ranked;
static int by_median(const void *x, const void *y) {
  const ranked *a = x, *b = y;
  return a->ns < b->ns ? -1 : a->ns > b->ns ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* The pipeline of configuration c, as measure_config's prepare phase builds it. */
static vkocc_status build_again(harness *h, uint32_t c, vkocc_kernel *k) {
  tu_result scratch = h->run->r[c];
  config *x = config_of(h, c);
  trial t = {.x = x, .coord = x->coord, .r = &scratch};
  prebuild_drop(h, x);
  if (!x->sized) memcpy(x->local, scratch.local, sizeof x->local); /* resumed: sized by its record */
  tu_outcome out = prepare_module(h, &t);
  if (out == TU_GO) out = prepare_pipeline(h, &t);
  if (out == TU_STOP || t.st) return t.st;
  if (out != TU_GO) return vkocc_fail(VKOCC_ERROR_RUNTIME, "the final round: configuration %u no longer builds: %s", c,
                                      scratch.error);
  *k = t.k;
  return VKOCC_OK;
}

/* The final round: the k best configurations by median, their pipelines rebuilt, each run once first as in
 * the search (poisoned outputs, a bounded wait, the outputs validated; this also warms the device, which in a
 * resumed run has run nothing yet), then one untimed warm-up round and 3 timed rounds of one batch each, in
 * turn, so that whatever else runs on the host falls on all of them alike; the outputs of each candidate's
 * last batch are validated again. A candidate with a wrong output becomes invalid (correctness, never chosen;
 * after a wrong first run the next by median takes its place). The best is then the lowest median of these
 * interleaved runs among the candidates whose outputs stayed right. */
enum { FINAL_ROUNDS = 3 };

/* The final round's candidates: their pipelines, their interleaved times, whether they turned out wrong. */
typedef struct final_round {
  uint32_t *cand, n;
  vkocc_kernel *kern;
  double **t;
  uint32_t *nt;
  bool *wrong;
} final_round;

/* The valid configurations by median, each built again and run once as in the search (poisoned outputs,
 * restored inputs, a bounded wait, the outputs validated): the first k that are right are the candidates (a
 * wrong one: invalid, the next by median takes its place). */
static vkocc_status final_candidates(harness *h, const ranked *order, uint32_t norder, uint32_t k, final_round *f) {
  double timeout_s = h->o->timeout_s > 0 ? h->o->timeout_s : 5;
  vkocc_status st = VKOCC_OK;
  for (uint32_t o = 0; o < norder && f->n < k && !st; o++) {
    tu_result *r = &h->run->r[order[o].i];
    vkocc_kernel *kk = &f->kern[f->n];
    double first;
    bool lost, timed_out;
    char why[400];
    if ((st = build_again(h, order[o].i, kk))) break;
    st = run_batch(h, kk, r->groups, 1, true, true, timeout_s, &first, &lost, &timed_out);
    bool right = !st && outputs_right(h, why, sizeof why);
    if (!st && !right) final_wrong(r, "first run", why);
    if (!right) {
      vkocc_kernel_destroy(CTX(h), kk);
      continue;
    }
    f->cand[f->n] = order[o].i;
    f->t[f->n++] = vkocc_xmalloc(FINAL_ROUNDS * MAX_BATCH * sizeof **f->t);
  }
  return st;
}

/* Untimed warm-up rounds (one; 0.2 s at least on a cold device), then the timed rounds, the candidates in turn;
 * the last batch of each validated again. */
static vkocc_status final_rounds(harness *h, final_round *f, bool cold) {
  double timeout_s = h->o->timeout_s > 0 ? h->o->timeout_s : 5;
  uint32_t warmup = 1;
  double tw = vkocc_now_ms();
  vkocc_status st = VKOCC_OK;
  for (uint32_t round = 0; round < warmup + FINAL_ROUNDS && !st && f->n >= 2; round++) {
    for (uint32_t c = 0; c < f->n && !st; c++) {
      if (f->wrong[c]) continue;
      tu_result *r = &h->run->r[f->cand[c]];
      uint32_t batch = batch_size(r->median_ns, 3, MAX_BATCH);
      bool warm = round < warmup, last = round == warmup + FINAL_ROUNDS - 1, lost, timed_out;
      double scratch[MAX_BATCH];
      char why[400];
      st = run_batch(h, &f->kern[c], r->groups, batch, false, last, timeout_s * batch, warm ? scratch : f->t[c] + f->nt[c],
                     &lost, &timed_out);
      if (!st && !warm) f->nt[c] += batch;
      if (!st && last && !outputs_right(h, why, sizeof why)) f->wrong[c] = true, final_wrong(r, "last batch", why);
    }
    if (round + 1 == warmup && cold && vkocc_now_ms() - tw < 200 && warmup < 1000) warmup++;
  }
  return st;
}

/* The interleaved medians recorded; a failed final round, or one left with fewer than 2 right candidates, leaves
 * the ranking by medians (of the configurations not found wrong). */
static void final_record(harness *h, final_round *f, vkocc_status st) {
  uint32_t confirmed = 0;
  for (uint32_t c = 0; c < f->n; c++) {
    tu_result *r = &h->run->r[f->cand[c]];
    if (!st && f->nt[c] && !f->wrong[c]) {
      vkocc_summary sum;
      vkocc_summarize(f->t[c], f->nt[c], &sum);
      r->confirm_ns = sum.median, r->confirm_spread = sum.median > 0 ? sum.mad / sum.median : 0, r->confirm_runs = f->nt[c];
    }
    confirmed += r->confirm_runs > 0;
    vkocc_kernel_destroy(CTX(h), &f->kern[c]);
    free(f->t[c]);
  }
  for (uint32_t c = 0; (st || confirmed < 2) && c < f->n; c++) h->run->r[f->cand[c]].confirm_runs = 0;
}

static vkocc_status confirm_best(harness *h, uint32_t k) {
  tu_run *run = h->run;
  /* when this run measured no configuration (every result resumed) the device has been idle, its clocks
   * low: the untimed warm-up rounds then last 0.2 s at least, as a search would have kept it busy */
  bool cold = h->done == 0;
  ranked *order = vkocc_xcalloc(run->space.count + 1, sizeof *order);
  uint32_t norder = 0;
  for (uint32_t i = 0; i < run->space.count; i++) {
    tu_result *r = &run->r[i];
    r->confirm_runs = 0;
    if (r->measured && r->inv == TU_CORRECT && r->runs) order[norder++] = (ranked){r->median_ns, i};
  }
  qsort(order, norder, sizeof *order, by_median);
  vkocc_status st = VKOCC_OK;
  final_round f = {.cand = vkocc_xcalloc(k + 1, sizeof *f.cand), .kern = vkocc_xcalloc(k + 1, sizeof *f.kern),
                   .t = vkocc_xcalloc(k + 1, sizeof *f.t), .nt = vkocc_xcalloc(k + 1, sizeof *f.nt),
                   .wrong = vkocc_xcalloc(k + 1, sizeof *f.wrong)};
  if (norder >= 2) {
    st = final_candidates(h, order, norder, k, &f);
    if (!st) st = final_rounds(h, &f, cold);
    final_record(h, &f, st);
  }
  free(f.kern), free(f.t), free(f.nt), free(f.cand), free(f.wrong), free(order);
  return st;
}

/* The sentinel: the first correct configuration, timed again every sentinel_every configurations and at the
 * end. A warm-up too short for the clocks shows as its medians drifting apart. Its costs are kept out of the
 * per-configuration figures. */
static int32_t sentinel_every(const tu_options *o) { return o->sentinel_every ? o->sentinel_every : 64; }

bool tu_sentinel_summary(const tu_run *run, double *lo, double *hi, double *max_spread, bool *drifted) {
  *lo = INFINITY, *hi = 0, *max_spread = 0, *drifted = false;
  for (uint32_t i = 0; i < run->nsentinel; i++) {
    if (run->sentinel[i].median_ns < *lo) *lo = run->sentinel[i].median_ns;
    if (run->sentinel[i].median_ns > *hi) *hi = run->sentinel[i].median_ns;
    if (run->sentinel[i].spread > *max_spread) *max_spread = run->sentinel[i].spread;
  }
  if (run->nsentinel < 2 || !(*lo > 0)) return false;
  *drifted = tu_drifted((*hi - *lo) / *lo, *max_spread);
  return true;
}

bool tu_drifted(double range, double max_spread) { return range > 0.05 && range > 4 * max_spread; }

static vkocc_status sentinel_record(harness *h, uint32_t c, const tu_result *r) {
  tu_run *run = h->run;
  run->sentinel = vkocc_xrealloc(run->sentinel, (run->nsentinel + 1) * sizeof *run->sentinel);
  run->sentinel[run->nsentinel++] = (struct tu_sentinel){.after = h->done, .median_ns = r->median_ns, .spread = r->spread};
  run->sentinel_config = c;
  h->since_sentinel = 0;
  return VKOCC_OK;
}

static vkocc_status sentinel_again(harness *h) {
  tu_run *run = h->run;
  if (h->sentinel < 0 || !h->since_sentinel) return VKOCC_OK;
  tu_run keep = *run;
  double t0 = vkocc_now_ms();
  tu_result tmp;
  vkocc_status st = measure_config(h, (uint32_t)h->sentinel, &tmp);
  /* the costs stay the sentinel's */
  run->compiles = keep.compiles, run->pipelines = keep.pipelines, run->compile_ms = keep.compile_ms;
  run->pipelines_ms = keep.pipelines_ms, run->occupancy_ms = keep.occupancy_ms, run->measure_ms = keep.measure_ms;
  run->sentinel_ms += vkocc_now_ms() - t0;
  if (!st && tmp.inv == TU_CORRECT && tmp.runs) sentinel_record(h, (uint32_t)h->sentinel, &tmp);
  else if (!st) h->since_sentinel = 0; /* it failed this time: recorded as no point, the run goes on */
  free(tmp.times_ns);
  return st;
}

/* The most evaluations the budget's count and fraction allow. */
static uint64_t eval_limit(const tu_run *run) {
  uint64_t limit = run->space.count;
  if (run->budget.max_evals && run->budget.max_evals < limit) limit = run->budget.max_evals;
  if (run->budget.max_fraction > 0) {
    uint64_t f = (uint64_t)ceil(run->budget.max_fraction * run->space.count);
    if (f < limit) limit = f ? f : 1;
  }
  return limit;
}

/* A configuration measured to the full rule (valid, not stopped) joins the race's noise and may be the incumbent. */
static void race_note(harness *h, uint32_t c, const tu_result *r) {
  if (!r->measured || r->inv != TU_CORRECT || !r->runs || r->stopped) return;
  double early = r->times_ns && r->runs >= TU_RACE_MIN_RUNS ? fmin(r->times_ns[0], r->times_ns[1]) : 0;
  tu_race_note(&h->race, c, r->median_ns, r->spread, early);
}

static vkocc_status eval_cb(void *user, uint32_t c, tune_eval *e) {
  harness *h = user;
  tu_run *run = h->run;
  tu_result *r = &run->r[c];
  if (!r->measured) {
    if (h->o->stop && *h->o->stop) return vkocc_fail(VKOCC_ERROR_RUNTIME, "interrupted");
    h->racing_now = !h->o->full_rule;
    vkocc_status st = measure_config(h, c, r);
    h->racing_now = false;
    if (st) return st;
    race_note(h, c, r);
    h->done++;
    int32_t every = sentinel_every(h->o);
    if (every > 0) {
      h->since_sentinel++;
      if (h->sentinel < 0 && r->inv == TU_CORRECT && r->runs) h->sentinel = c, sentinel_record(h, c, r);
      else if (h->sentinel >= 0 && h->since_sentinel >= (uint32_t)every && (st = sentinel_again(h))) return st;
    }
  }
  run->order = vkocc_xrealloc(run->order, (run->nevals + 1) * sizeof *run->order);
  run->order[run->nevals++] = c;
  e->valid = r->inv == TU_CORRECT && r->runs > 0;
  e->time_ns = e->valid ? r->median_ns : 0;
  if (h->o->progress) {
    uint64_t limit = eval_limit(run);
    double el = (vkocc_now_ms() - h->t0) / 1e3;
    double eta = h->done ? el / h->done * (double)(limit > run->nevals ? limit - run->nevals : 0) : NAN;
    if (run->budget.max_seconds > 0 && eta > run->budget.max_seconds - el) eta = run->budget.max_seconds - el;
    int64_t b = tu_best(run);
    h->o->progress(h->o->user, run->nevals, (uint32_t)limit, b >= 0 ? run->r[b].median_ns : NAN, eta);
  }
  if (h->o->checkpoint && vkocc_now_ms() - h->last_cp > (h->o->checkpoint_s > 0 ? h->o->checkpoint_s : 10) * 1e3) {
    h->last_cp = vkocc_now_ms();
    vkocc_status st = h->o->checkpoint(h->o->user, run);
    if (st) return st;
  }
  return VKOCC_OK;
}

/* the space of run->spec and its results, none measured */
static vkocc_status space_of(tu_run *run) {
  vkocc_status st = t1_enumerate(&run->spec, &run->space);
  if (st) return st;
  run->r = vkocc_xcalloc(run->space.count + 1, sizeof *run->r);
  run->sentinel_config = -1;
  for (uint32_t i = 0; i < run->space.count; i++) run->r[i].P = -1;
  return VKOCC_OK;
}

vkocc_status tu_bind_device(tu_run *run, const int64_t device[TEXPR_NDEVICE]) {
  t1_spec *s = &run->spec;
  bool again = s->uses_device && !s->has_device;
  memcpy(s->device, device, sizeof s->device);
  s->has_device = true;
  if (!again) return VKOCC_OK;
  /* the conditions naming the device's limits were left out: the space again, before anything is taken into it */
  for (uint32_t i = 0; i < run->space.count; i++)
    if (run->r[i].measured) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the device is given after results", s->file);
  free(run->r), run->r = NULL;
  json_decref(run->by_key), run->by_key = NULL;
  t1_space_free(&run->space);
  return space_of(run);
}

vkocc_status tu_begin(tu_run *run) {
  vkocc_status st = space_of(run);
  if (st) { t1_free(&run->spec); return st; }
  snprintf(run->strategy, sizeof run->strategy, "%s", run->spec.search);
  run->budget = run->spec.budget;
  return VKOCC_OK;
}

vkocc_status tu_prepare(const char *spec_path, const char *name, tu_run *run) {
  memset(run, 0, sizeof *run);
  vkocc_status st = t1_load(spec_path, &run->spec);
  if (st || (st = tu_begin(run))) return st;
  if (name && (!name[0] || strlen(name) >= sizeof run->name)) {
    tu_run_free(run);
    return vkocc_fail(VKOCC_ERROR_USAGE, "--name: %zu characters; expected 1 to %zu (a longer name was cut, and two "
                      "kernels then merged in a policy)", strlen(name), sizeof run->name - 1);
  }
  /* glslang's tables built while the caller opens the device and the arguments are filled */
  if (run->spec.lang == VKOCC_SHADER_GLSL || run->spec.lang == VKOCC_SHADER_HLSL) {
    void *text = NULL;
    size_t len = 0;
    if (run->spec.kernel_text) vkocc_shader_warm(run->spec.kernel_text, strlen(run->spec.kernel_text), run->spec.lang);
    else if (!vkocc_read_file(run->spec.kernel_file, &text, &len)) vkocc_shader_warm(text, len, run->spec.lang);
    free(text);
  }
  if (name) snprintf(run->name, sizeof run->name, "%s", name);
  else {
    const char *b = strrchr(spec_path, '/');
    const char *stem = b ? b + 1 : spec_path, *dot = strrchr(stem, '.');
    size_t len = dot && dot != stem ? (size_t)(dot - stem) : strlen(stem);
    if (len >= sizeof run->name) {
      tu_run_free(run);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the file's stem is longer than %zu characters: name the kernel with --name",
                        spec_path, sizeof run->name - 1);
    }
    snprintf(run->name, sizeof run->name, "%.*s", (int)len, stem);
  }
  return VKOCC_OK;
}

/* after tu_results_resume: configurations measured already stay (they cost nothing, and are not lost) */
vkocc_status tu_restrict(tu_run *run, const char *only) {
  t1_spec *s = &run->spec;
  const char *eq = strchr(only, '=');
  uint32_t p = 0;
  while (eq && p < s->nparams && (strlen(s->params[p].name) != (size_t)(eq - only) || strncmp(s->params[p].name, only, eq - only))) p++;
  if (!eq || p == s->nparams)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--only '%s': expected PARAM=V1,V2,... with PARAM a parameter of %s", only, s->file);
  bool keep_value[4096] = {0};
  if (s->params[p].nvalues > 4096) return vkocc_fail(VKOCC_ERROR_USAGE, "--only: '%s' has too many values", s->params[p].name);
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", eq + 1);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    bool found = false;
    for (uint32_t k = 0; k < s->params[p].nvalues; k++) {
      char v[80];
      texpr_value pv = s->params[p].values[k];
      if (s->params[p].type == T1_BOOL) snprintf(v, sizeof v, "%s", pv.i ? "True" : "False");
      else texpr_format(&pv, v, sizeof v);
      bool num = pv.kind != TEXPR_STR && *tok && strtod(tok, NULL) == (pv.kind == TEXPR_INT ? (double)pv.i : pv.f);
      if (!strcmp(v, tok) || num) keep_value[k] = found = true;
    }
    if (!found) return vkocc_fail(VKOCC_ERROR_USAGE, "--only: %s=%s is not one of its values", s->params[p].name, tok);
  }
  bool *keep = vkocc_xcalloc(run->space.count + 1, sizeof *keep);
  for (uint32_t c = 0; c < run->space.count; c++) keep[c] = keep_value[run->space.coord[(size_t)c * s->nparams + p]];
  vkocc_status st = tu_keep(run, keep);
  free(keep);
  return st ? vkocc_fail(st, "--only %s: no allowed configuration is left", only) : VKOCC_OK;
}

vkocc_status tu_keep(tu_run *run, const bool *keep) {
  t1_spec *s = &run->spec;
  uint32_t n = 0;
  for (uint32_t c = 0; c < run->space.count; c++) {
    const uint32_t *coord = run->space.coord + (size_t)c * s->nparams;
    if (!keep[c] && !run->r[c].measured) continue; /* a resumed result is kept, whatever --only says */
    if (n != c) {
      memmove(run->space.coord + (size_t)n * s->nparams, coord, s->nparams * sizeof *coord);
      run->r[n] = run->r[c];
    }
    n++;
  }
  if (!n) return VKOCC_ERROR_USAGE;
  json_decref(run->by_key), run->by_key = NULL;
  run->filtered += run->space.count - n;
  run->space.count = n;
  return VKOCC_OK;
}

static vkocc_status parse_reference(harness *h, const char *text, int64_t *config) {
  t1_spec *s = h->s;
  uint32_t want[32];
  bool set[32] = {0};
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    if (!eq) return vkocc_fail(VKOCC_ERROR_USAGE, "--reference '%s': expected NAME=VALUE,...", text);
    *eq = 0;
    uint32_t p = 0;
    while (p < s->nparams && strcmp(s->params[p].name, tok)) p++;
    if (p == s->nparams) return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: '%s' is not a parameter of %s", tok, s->file);
    uint32_t k = 0;
    for (; k < s->params[p].nvalues; k++) {
      char v[80];
      texpr_value pv = s->params[p].values[k];
      if (s->params[p].type == T1_BOOL) snprintf(v, sizeof v, "%s", pv.i ? "True" : "False");
      else texpr_format(&pv, v, sizeof v);
      if (!strcmp(v, eq + 1) || (s->params[p].type == T1_BOOL && !strcmp(eq + 1, pv.i ? "1" : "0"))) break;
      if (pv.kind != TEXPR_STR && strtod(eq + 1, NULL) == (pv.kind == TEXPR_INT ? (double)pv.i : pv.f) && eq[1]) break;
    }
    if (k == s->params[p].nvalues) return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: %s=%s is not one of its values", tok, eq + 1);
    want[p] = k, set[p] = true;
  }
  for (uint32_t p = 0; p < s->nparams; p++) {
    if (set[p]) continue;
    if (s->params[p].def < 0)
      return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: no value for '%s' (and it has no Default)", s->params[p].name);
    want[p] = (uint32_t)s->params[p].def;
  }
  for (uint32_t c = 0; c < h->run->space.count; c++)
    if (!memcmp(h->run->space.coord + (size_t)c * s->nparams, want, s->nparams * sizeof *want)) { *config = c; return VKOCC_OK; }
  return vkocc_fail(VKOCC_ERROR_USAGE, "--reference %s: that configuration is ruled out by the conditions", text);
}

/* The arguments' buffers against maxStorageBufferRange and, with their host copies (data, references,
 * readbacks), against the host's physical memory. USAGE naming the argument. */
static vkocc_status check_sizes(harness *h) {
  t1_spec *s = h->s;
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(CTX(h), &lim);
  uint64_t host = 0;
  for (uint32_t i = 0; i < s->nargs; i++) {
    const t1_arg *a = &s->args[i];
    if (!a->vector) continue;
    uint64_t bytes = (a->bytes + 3) / 4 * 4;
    if (bytes > lim.max_storage_buffer_range)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.Size: %llu elements of %u bytes (%llu bytes) exceed maxStorageBufferRange "
                        "(%u) of %s", s->file, a->path, (unsigned long long)a->count, a->comps * a->comp_bytes,
                        (unsigned long long)bytes, lim.max_storage_buffer_range, CTX(h)->info.name);
    host += 3 * bytes; /* its data, a readback, a reference */
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  if (mem && host > mem / 2)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.Arguments: the arguments need up to %.1f GiB of host "
                      "memory (data, readbacks, references), more than half of this host's %.1f GiB", s->file,
                      host / 1073741824.0, mem / 1073741824.0);
  return VKOCC_OK;
}

/* How each parameter reaches the kernel: a specialization constant declared as such (source) or named so
 * (SPIR-V), a -D define (named in the source), or only the launch sizes (LocalSize, GlobalSize). USAGE for a
 * parameter that reaches it no way. */
static vkocc_status classify_params(harness *h) {
  t1_spec *s = h->s;
  tu_run *run = h->run;
  bool launch[32] = {0};
  for (int d = 0; d < 3; d++) texpr_uses(s->local[d], launch), texpr_uses(s->global[d], launch);
  spv_consts sc = {0};
  if (s->lang == VKOCC_SHADER_SPIRV) {
    uint32_t *spv;
    size_t words;
    if (vkocc_shader_load_file(s->kernel_file, VKOCC_SHADER_SPIRV, s->kernel_name, NULL, 0, &spv, &words))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s", s->file, vkocc_last_error());
    spv_walk(spv, words, &sc);
    free(spv);
  } else {
    void *text;
    size_t len;
    if (s->kernel_text) text = vkocc_xstrdup(s->kernel_text);
    else if (vkocc_read_file(s->kernel_file, &text, &len))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s", s->file, vkocc_last_error());
    strip_comments(h->source = text);
  }
  for (uint32_t i = 0; i < s->nparams; i++) {
    const char *name = s->params[i].name;
    h->spec_id[i] = h->source ? declared_spec(h->source, name) : -1;
    for (uint32_t k = 0; k < sc.n; k++)
      if (!strcmp(sc.c[k].name, name)) h->spec_id[i] = (int32_t)sc.c[k].spec_id;
    run->param_spec[i] = h->spec_id[i] >= 0;
    bool define = h->source && word_in(h->source, name);
    /* not in the source: it may still shape the launch, then it is no define */
    run->param_launch[i] = !run->param_spec[i] && !define && launch[i];
    if (run->param_spec[i] || define || launch[i]) continue;
    if (!h->source)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.TuningParameters[%u]: '%s' is no specialization constant "
                        "of the SPIR-V kernel %s (a SPIR-V kernel takes no -D defines)", s->file, i, name, s->kernel_file);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.TuningParameters[%u]: '%s' reaches the kernel neither as "
                      "a specialization constant nor as a -D define (%s never names it) nor through LocalSize or "
                      "GlobalSize", s->file, i, name, s->kernel_file);
  }
  return VKOCC_OK;
}

/* The reference: ReferenceArguments, or the first configuration that runs (--reference: that one first), or
 * none without an Output argument. */
static vkocc_status setup_reference(harness *h) {
  t1_spec *s = h->s;
  tu_run *run = h->run;
  h->expect = vkocc_xcalloc(s->nargs + 1, sizeof *h->expect);
  h->ref_of = vkocc_xcalloc(s->nargs + 1, sizeof *h->ref_of);
  h->expect_borrowed = vkocc_xcalloc(s->nargs + 1, sizeof *h->expect_borrowed);
  bool any_output = false;
  for (uint32_t i = 0; i < s->nargs; i++) any_output |= s->args[i].output;
  if (s->nrefs) {
    for (uint32_t k = 0; k < s->nrefs; k++) {
      const t1_ref *ref = &s->refs[k];
      const t1_arg *a = &s->args[ref->target];
      if (!h->expect_borrowed[ref->target]) free(h->expect[ref->target]);
      h->expect[ref->target] = NULL;
      h->ref_of[ref->target] = ref;
      double t0 = vkocc_now_ms();
      vkocc_status st = fill_data(h, "ref", k, &ref->data, ref->path, a, a->bytes, &h->expect[ref->target],
                                  &h->expect_borrowed[ref->target]);
      if (st) return st;
      if (h->trace_setup)
        fprintf(stderr, "vkocc tune: setup the reference %s (%llu bytes): data %.1f ms\n", ref->name,
                (unsigned long long)a->bytes, vkocc_now_ms() - t0);
    }
    h->have_reference = true;
    snprintf(run->reference, sizeof run->reference, "ReferenceArguments");
    return VKOCC_OK;
  }
  if (any_output) {
    for (uint32_t i = 0; i < s->nargs; i++)
      if (s->args[i].output) h->expect[i] = (void *)1; /* placeholder until the reference run */
    return h->o->reference ? parse_reference(h, h->o->reference, &h->reference_config) : VKOCC_OK;
  }
  free(h->expect), h->expect = NULL;
  snprintf(run->reference, sizeof run->reference, "none (no Output argument)");
  return VKOCC_OK;
}

/* A resumed run answers from its records; the reference outputs of a resumed run without ReferenceArguments
 * come from running the reference configuration again (--reference: it runs first). */
static vkocc_status reference_first(harness *h) {
  tu_run *run = h->run;
  if (!h->expect || h->have_reference) return VKOCC_OK;
  int64_t rc = h->reference_config;
  if (rc < 0 && run->reference[0]) rc = tu_find(run, run->reference);
  if (rc < 0) return VKOCC_OK;
  tu_result tmp, keep = run->r[rc];
  vkocc_status st = measure_config(h, (uint32_t)rc, &tmp);
  if (st) return st;
  if (keep.measured) free(tmp.times_ns), run->r[rc] = keep;
  else run->r[rc] = tmp, h->done++, race_note(h, (uint32_t)rc, &tmp);
  if (h->have_reference) return VKOCC_OK;
  return vkocc_fail(VKOCC_ERROR_USAGE, "--reference: configuration %s does not run: %s",
                    run->reference[0] ? run->reference : h->o->reference, tmp.error);
}

/* tune_search_run's loop, one configuration at a time, with what the strategy will propose next (where it can
 * say: tune_search_peek) handed to the pool before and after each measurement, so that their pipelines are
 * built while the device measures. Peeking changes nothing the strategy proposes. */
static vkocc_status search_ahead(harness *h, const tune_space *sp, const tune_strategy_def *def) {
  tu_run *run = h->run;
  tune_search *ts;
  vkocc_status st = tune_search_open(sp, def, run->seed, h->s->search_attrs, &run->budget, &ts);
  if (st) return st;
  uint32_t c, window = prebuild_window(h), *next = vkocc_xmalloc(window * sizeof *next);
  while (tune_search_ask(ts, 1, &c)) {
    prebuild_queue(h, next, tune_search_peek(ts, window, next));
    tune_eval e = {0};
    if ((st = eval_cb(h, c, &e))) break;
    tune_search_tell(ts, c, e);
    prebuild_queue(h, next, tune_search_peek(ts, window, next));
  }
  if (!st) st = tune_search_status(ts);
  tune_search_close(ts);
  free(next);
  return st;
}

static vkocc_status search(harness *h, const tune_strategy_def *def) {
  t1_spec *s = h->s;
  tu_run *run = h->run;
  tune_space sp = {.nparams = s->nparams, .nconfigs = run->space.count, .coord = run->space.coord};
  const char *names[32];
  uint32_t nvals[32];
  for (uint32_t i = 0; i < s->nparams; i++) names[i] = s->params[i].name, nvals[i] = s->params[i].nvalues;
  sp.param_names = names, sp.nvalues = nvals;
  /* the strategy's attributes first, so that a bad one is named in the spec (the strategy says which) */
  void *probe;
  vkocc_status st = def->create(&sp, run->seed, s->search_attrs, &probe);
  if (st == VKOCC_ERROR_USAGE) {
    char m[600];
    snprintf(m, sizeof m, "%s", vkocc_last_error());
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.Search.Attributes: %s", s->file, m);
  }
  if (st) return st;
  def->destroy(probe);
  /* a fleet's worker measures what its coordinator hands out (tu_options.drive) instead of searching */
  if (h->o->drive) {
    st = h->o->drive(h->o->drive_user, &sp, eval_cb, h);
  } else {
    st = search_ahead(h, &sp, def);
  }
  return st;
}

/* a kernel that compiles for no configuration is bad input */
static vkocc_status compiles_somewhere(const harness *h) {
  const tu_run *run = h->run;
  uint32_t measured = 0, compile = 0;
  const char *first = NULL;
  for (uint32_t i = 0; i < run->space.count; i++) {
    if (!run->r[i].measured) continue;
    measured++;
    if (run->r[i].inv == TU_COMPILE && !compile++) first = run->r[i].error;
  }
  if (!measured || compile < measured) return VKOCC_OK;
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s compiles for none of the %u configurations "
                    "tried; the first: %.400s", h->s->file, h->s->kernel_file, measured, first);
}

static void harness_free(harness *h) {
  for (uint32_t i = 0; i < h->nmods; i++) free(h->mods[i]->spv), vkocc_reflection_free(&h->mods[i]->refl), free(h->mods[i]);
  free(h->mods);
  json_decref(h->mod_index);
  json_decref(h->P_memo);
  for (uint32_t i = 0; h->cfg && i < h->run->space.count; i++) config_free(h->cfg[i]);
  free(h->cfg);
  free_buffers(h);
  for (uint32_t i = 0; h->expect && i < h->s->nargs; i++)
    if (h->expect[i] != (void *)1 && !h->expect_borrowed[i]) free(h->expect[i]);
  free(h->expect);
  free(h->expect_borrowed);
  free(h->ref_of);
  free(h->source);
}

/* The options that replace the spec's (strategy, budget), checked before anything is allocated. */
static vkocc_status take_options(tu_run *run, const tu_options *o, const tune_strategy_def **def) {
  if (o->strategy) snprintf(run->strategy, sizeof run->strategy, "%s", o->strategy);
  if (!(*def = tune_strategy_find(run->strategy)))
    return vkocc_fail(VKOCC_ERROR_USAGE, "unknown search strategy '%s'", run->strategy);
  run->seed = o->seed;
  /* a budget given here replaces the spec's Budget as a whole (--fraction 1 under a spec's ConfigurationCount 1
   * measured one configuration) */
  if (o->budget.max_evals || o->budget.max_fraction > 0 || o->budget.max_seconds > 0) run->budget = o->budget;
  if (o->reference && run->spec.nrefs)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--reference %s: %s has ReferenceArguments, which are the reference; leave out "
                      "one of the two", o->reference, run->spec.file);
  return VKOCC_OK;
}

vkocc_status tu_tune(vkocc_context **ctx, tu_run *run, const tu_options *o) {
  static const tu_options none = {0};
  if (!o) o = &none;
  harness h = {.ctxp = ctx, .run = run, .o = o, .s = &run->spec, .reference_config = -1, .idle_ms = -1, .sentinel = -1};
  tu_race_init(&h.race);
  h.pb = (prebuilder){.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
                      .done = PTHREAD_COND_INITIALIZER, .modules = PTHREAD_MUTEX_INITIALIZER,
                      .compiled = PTHREAD_COND_INITIALIZER, .nthreads = prebuild_threads(o)};
  pool_test_hooks(&h.pb);
  const char *ts = getenv("VKOCC_TRACE_SETUP");
  h.trace_setup = ts && !strcmp(ts, "1");
  h.t0 = h.last_cp = vkocc_now_ms();
  for (int d = 0; d < 3; d++) h.global_P |= (texpr_uses(run->spec.global[d], NULL) & TEXPR_USES_P) != 0;
  const char *lose = getenv("VKOCC_TEST_DEVICE_LOSS");
  if (lose) h.lose_at = (uint32_t)strtoul(lose, NULL, 10);
  const tune_strategy_def *def;
  if (run->spec.uses_device && !run->spec.has_device) /* a caller that did not tu_bind_device: never left out silently */
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: its conditions name the device's limits, which this way of tuning does "
                      "not give them (tune it on one device)", run->spec.file);
  /* every buffer against the device's limits and the host's memory before anything is allocated or filled (a
   * 64 GiB reference was allocated, an 8 GiB generator run element by element, before any check) */
  vkocc_status st = take_options(run, o, &def);
  if (!st) st = check_sizes(&h);
  if (!st) st = classify_params(&h);
  if (!st) st = setup_reference(&h);
  /* the arguments' data before the first module (glslang's tables meanwhile built by vkocc_shader_warm, started when
   * the spec was read): every pipeline can then be built as soon as its module is there */
  if (!st) {
    double t0 = vkocc_now_ms();
    st = make_buffers(&h);
    run->setup_ms += vkocc_now_ms() - t0;
  }
  /* the tuning's own wall: the reference, the search, the sentinel and the final round, less the arguments' data */
  double t_tune = vkocc_now_ms(), setup0 = run->setup_ms, device0 = run->device_ms;
  for (uint32_t c = 0; !st && c < run->space.count; c++) race_note(&h, c, &run->r[c]); /* resumed results */
  if (!st) st = reference_first(&h);
  if (!st) st = search(&h, def);
  /* the search's alone (the configurations, the waits between them), the device's part of it */
  run->search_ms += vkocc_now_ms() - t_tune - (run->setup_ms - setup0), run->search_device_ms += run->device_ms - device0;
  if (!st && h.sentinel >= 0 && sentinel_every(o) > 0) st = sentinel_again(&h);
  if (!st && o->confirm >= 0 && confirm_best(&h, o->confirm ? (uint32_t)o->confirm : 5))
    fprintf(stderr, "vkocc tune: note: %s; the best is ranked by the search's medians\n", vkocc_last_error());
  run->tuning_ms += vkocc_now_ms() - t_tune - (run->setup_ms - setup0);
  if (!st) st = compiles_somewhere(&h);
  run->elapsed_ms += vkocc_now_ms() - h.t0;
  prebuild_stop(&h);
  harness_free(&h);
  tu_race_free(&h.race);
  return st;
}

void tu_run_free(tu_run *run) {
  if (run->r)
    for (uint32_t i = 0; i < run->space.count; i++) free(run->r[i].times_ns);
  free(run->r);
  free(run->order);
  free(run->sentinel);
  json_decref(run->by_key);
  t1_space_free(&run->space);
  t1_free(&run->spec);
  memset(run, 0, sizeof *run);
}
