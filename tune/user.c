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
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <spirv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_BATCH 16
#define POISON 0xffffffffu /* -1 for integers, NaN for floats: a value no correct output keeps everywhere */
#define POISON2 0x5a5a5a5au /* the reference's second run: an element that keeps both poisons was never written */

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
  char *key;                 /* the defines, joined */
  uint32_t *spv;
  size_t words;
  char error[560];
  bool failed;
  spv_consts consts;
  vkocc_reflection refl;
  bool checked;              /* interface checked against the arguments */
} module;

typedef struct harness {
  vkocc_context **ctxp;
  tu_run *run;
  const tu_options *o;
  t1_spec *s;
  module *mods;
  uint32_t nmods, capmods;
  char *source;              /* the kernel's text (source kernels) for the define and constant checks */
  /* device resources */
  vkocc_buffer *dev, *pristine, *readback; /* per argument */
  uint8_t push[256];
  uint32_t push_bytes;
  bool buffers_ready;
  /* validation */
  void **expect;             /* per argument: the reference output (NULL: not validated) */
  const t1_ref **ref_of;     /* per argument: the reference entry giving the method (NULL: exact / default) */
  bool have_reference;
  int64_t reference_config;  /* forced by --reference: evaluated first */
  vkocc_calibration cal;
  bool have_cal;
  double last_cp;
  uint32_t done;
  double t0;
  int64_t *P_cache_key;      /* not used as a map: P per (module, spec values) is cached by the library */
  int64_t last_P;
  uint32_t lose_at, batches; /* VKOCC_TEST_DEVICE_LOSS */
  int32_t spec_id[32];       /* per parameter: its SpecId (param_spec), from the source or the module's names */
  double gpu_end_ms;         /* when the last batch of dispatches ended (0: none yet: the GPU is cold) */
  double idle_ms;            /* host time the GPU sat idle since the last warm-up (-1: cold, nothing run yet) */
  int64_t sentinel;          /* the configuration re-timed to watch the clocks (-1: none yet) */
  uint32_t since_sentinel;
  bool in_sentinel;
  uint32_t poison;           /* the poison of the next run's outputs (0: POISON) */
} harness;

static vkocc_context *CTX(harness *h) { return *h->ctxp; }

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
  size_t l = strlen(w);
  for (const char *p = text; (p = strstr(p, w)); p += l) {
    bool a = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool b = !(isalnum((unsigned char)p[l]) || p[l] == '_');
    if (a && b) return true;
  }
  return false;
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
    if (!c || c - q > 80 || isalnum((unsigned char)c[5]) || c[5] == '_') continue;
    q = c + 5;
    while (isspace((unsigned char)*q)) q++;
    while (isalnum((unsigned char)*q) || *q == '_') q++; /* the type */
    while (isspace((unsigned char)*q)) q++;
    size_t l = strlen(name);
    if (!strncmp(q, name, l) && !(isalnum((unsigned char)q[l]) || q[l] == '_') && id >= 0 && id < INT32_MAX) return (int32_t)id;
  }
  return -1;
}

static void defines_of(harness *h, const uint32_t *coord, const uint32_t local[3], char ***defs, uint32_t *n) {
  t1_spec *s = h->s;
  *defs = vkocc_xcalloc(s->ndefines + s->nparams + 3, sizeof **defs);
  *n = 0;
  for (uint32_t i = 0; i < s->ndefines; i++) (*defs)[(*n)++] = vkocc_xstrdup(s->defines[i]);
  if (s->lang != VKOCC_SHADER_SPIRV) {
    /* KTT's convention, only where the source uses them, so a kernel sized by local_size_*_id keeps one compile */
    static const char *const ln[] = {"LOCAL_SIZE_X", "LOCAL_SIZE_Y", "LOCAL_SIZE_Z"};
    for (int d = 0; d < 3; d++)
      if (h->source && word_in(h->source, ln[d])) {
        char b[64];
        snprintf(b, sizeof b, "%s=%u", ln[d], local[d]);
        (*defs)[(*n)++] = vkocc_xstrdup(b);
      }
    for (uint32_t i = 0; i < s->nparams; i++) {
      if (h->run->param_spec[i] || h->run->param_launch[i]) continue;
      char v[64];
      texpr_value pv = s->params[i].values[coord[i]];
      if (s->params[i].type == T1_BOOL) snprintf(v, sizeof v, "%d", (int)pv.i);
      else if (pv.kind != TEXPR_STR) texpr_format(&pv, v, sizeof v);
      const char *text = pv.kind == TEXPR_STR && s->params[i].type != T1_BOOL ? (pv.s ? pv.s : "") : v;
      size_t len = strlen(s->params[i].name) + strlen(text) + 2;
      char *b = vkocc_xmalloc(len);
      snprintf(b, len, "%s=%s", s->params[i].name, text);
      (*defs)[(*n)++] = b;
    }
  }
}

static void free_defs(char **d, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) free(d[i]);
  free(d);
}

/* the module of a define set: compiled on first use; *compile_ms the time when compiled now */
static module *get_module(harness *h, char **defs, uint32_t nd, double *compile_ms) {
  size_t kl = 1;
  for (uint32_t i = 0; i < nd; i++) kl += strlen(defs[i]) + 1;
  char *key = vkocc_xmalloc(kl);
  key[0] = 0;
  for (uint32_t i = 0; i < nd; i++) strcat(strcat(key, defs[i]), ";");
  for (uint32_t i = 0; i < h->nmods; i++)
    if (!strcmp(h->mods[i].key, key)) { free(key); *compile_ms = 0; return &h->mods[i]; }
  if (h->nmods == h->capmods) {
    h->capmods = h->capmods ? 2 * h->capmods : 8;
    h->mods = vkocc_xrealloc(h->mods, h->capmods * sizeof *h->mods);
  }
  module *m = &h->mods[h->nmods++];
  memset(m, 0, sizeof *m);
  m->key = key;
  double t0 = vkocc_now_ms();
  vkocc_status st = vkocc_shader_load_file(h->s->kernel_file, h->s->lang, h->s->kernel_name, (const char *const *)defs,
                                           nd, &m->spv, &m->words);
  if (!st) st = vkocc_reflect(m->spv, m->words, h->s->kernel_name, &m->refl);
  if (st) {
    m->failed = true;
    snprintf(m->error, sizeof m->error, "%s", vkocc_last_error());
    for (char *c = m->error; *c; c++)
      if (*c == '\n') *c = ' ';
  } else spv_walk(m->spv, m->words, &m->consts);
  *compile_ms = vkocc_now_ms() - t0;
  h->run->compiles++;
  h->run->compile_ms += *compile_ms;
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
      if (nvec < nb) a->binding = (int32_t)binds[nvec];
      nvec++;
    } else {
      uint32_t al = a->comp_bytes * (a->comps == 3 ? 4 : a->comps);
      if (al > 16) al = 16;
      off = (off + al - 1) / al * al;
      a->push_offset = off;
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
  h->push_bytes = rf->push_bytes;
  return VKOCC_OK;
}

/* A parameter declared as a specialization constant must be one in the compiled module (unless the compiler
 * removed it as unused, which only a variant can do: then it has no effect there and is not set). */
static vkocc_status map_params(harness *h, module *m) {
  (void)h, (void)m;
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

static void free_buffers(harness *h) {
  vkocc_context *ctx = CTX(h);
  if (!h->dev) return;
  for (uint32_t i = 0; i < h->s->nargs; i++) {
    vkocc_buffer_destroy(ctx, &h->dev[i]);
    vkocc_buffer_destroy(ctx, &h->pristine[i]);
    vkocc_buffer_destroy(ctx, &h->readback[i]);
  }
  free(h->dev), free(h->pristine), free(h->readback);
  h->dev = h->pristine = h->readback = NULL;
  h->buffers_ready = false;
}

/* Device buffers for every Vector (inputs uploaded; a pristine copy of what a run may change), readbacks of
 * the validated outputs, the push constants. USAGE for a size beyond the device's limits. */
static vkocc_status make_buffers(harness *h) {
  vkocc_context *ctx = CTX(h);
  t1_spec *s = h->s;
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(ctx, &lim);
  h->dev = vkocc_xcalloc(s->nargs + 1, sizeof *h->dev);
  h->pristine = vkocc_xcalloc(s->nargs + 1, sizeof *h->pristine);
  h->readback = vkocc_xcalloc(s->nargs + 1, sizeof *h->readback);
  memset(h->push, 0, sizeof h->push);
  vkocc_status st = VKOCC_OK;
  for (uint32_t i = 0; i < s->nargs && !st; i++) {
    t1_arg *a = &s->args[i];
    uint64_t bytes = (a->bytes + 3) / 4 * 4;
    if (!a->vector) {
      uint8_t tmp[64];
      if ((st = t1_fill_data(s, &a->data, a->path, a, tmp))) break;
      memcpy(h->push + a->push_offset, tmp, a->bytes);
      continue;
    }
    if (bytes > lim.max_storage_buffer_range) {
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.Size: %llu bytes exceed maxStorageBufferRange (%u) of %s", s->file, a->path,
                      (unsigned long long)bytes, lim.max_storage_buffer_range, ctx->info.name);
      break;
    }
    if ((st = vkocc_buffer_create(ctx, bytes, false, &h->dev[i]))) break;
    if (a->data.fill != T1_FILL_NONE) {
      void *host = vkocc_xcalloc(1, bytes);
      st = t1_fill_data(s, &a->data, a->path, a, host);
      if (!st) st = vkocc_buffer_upload(ctx, &h->dev[i], host, bytes);
      if (!st && restored(a)) {
        if (!(st = vkocc_buffer_create(ctx, bytes, false, &h->pristine[i]))) st = vkocc_buffer_upload(ctx, &h->pristine[i], host, bytes);
      }
      free(host);
    }
    if (!st && (a->output || validated(h, i))) st = vkocc_buffer_create(ctx, bytes, true, &h->readback[i]);
  }
  if (st) free_buffers(h);
  else h->buffers_ready = true;
  return st;
}

/* restore what a run changes (RW inputs, outputs with initial data), poison the outputs without any */
static void record_reset(harness *h, vkocc_batch *b, bool poison) {
  t1_spec *s = h->s;
  for (uint32_t i = 0; i < s->nargs; i++) {
    t1_arg *a = &s->args[i];
    if (!a->vector) continue;
    if (restored(a)) vkocc_batch_copy(b, &h->pristine[i], &h->dev[i], 0, 0, h->dev[i].size);
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
  vkocc_status st = vkocc_batch_begin(b);
  if (st) { *lost = vkocc_context_lost(ctx); return st; }
  uint32_t first = 0;
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
  if (readback) {
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
  for (uint32_t i = 0; i < count; i++) {
    const vkocc_batch_record *r = vkocc_batch_record_of(b, first + i);
    if (r->tick == VKOCC_TICKS_BACKWARDS)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "queue timestamps went backwards around a tuning dispatch");
    ns[i] = r->ns;
  }
  return VKOCC_OK;
}

/* ------------------------------------------------------------------ validation */

static double comp_value(const void *p, uint64_t i, t1_etype t) {
  const uint8_t *b = p;
  switch (t) {
  case T1E_BOOL: { uint32_t x; memcpy(&x, b + 4 * i, 4); return x != 0; }
  case T1E_I8: return (int8_t)b[i];
  case T1E_U8: return b[i];
  case T1E_I16: { int16_t x; memcpy(&x, b + 2 * i, 2); return x; }
  case T1E_U16: { uint16_t x; memcpy(&x, b + 2 * i, 2); return x; }
  case T1E_I32: { int32_t x; memcpy(&x, b + 4 * i, 4); return x; }
  case T1E_U32: { uint32_t x; memcpy(&x, b + 4 * i, 4); return x; }
  case T1E_I64: { int64_t x; memcpy(&x, b + 8 * i, 8); return (double)x; }
  case T1E_U64: { uint64_t x; memcpy(&x, b + 8 * i, 8); return (double)x; }
  case T1E_F32: { float x; memcpy(&x, b + 4 * i, 4); return x; }
  case T1E_F64: { double x; memcpy(&x, b + 8 * i, 8); return x; }
  default: return b[i];
  }
}

/* true when out matches the reference of argument i; why names the first difference */
static bool compare(harness *h, uint32_t i, const void *out, char *why, size_t len) {
  const t1_arg *a = &h->s->args[i];
  const t1_ref *ref = h->ref_of[i];
  t1_validation m = ref ? ref->method : T1_SIDE_BY_SIDE;
  double th = ref ? ref->threshold : 0;
  uint64_t n = a->count * a->comps;
  if (a->type == T1E_CUSTOM || (a->type != T1E_F32 && a->type != T1E_F64 && th == 0 && m != T1_ABS_DIFF)) {
    /* exact: compare the bytes, report the first element that differs */
    if (!memcmp(out, h->expect[i], a->bytes)) return true;
    for (uint64_t k = 0; k < n; k++)
      if (comp_value(out, k, a->type) != comp_value(h->expect[i], k, a->type)) {
        snprintf(why, len, "%s[%llu] = %.17g, expected %.17g", a->name, (unsigned long long)k, comp_value(out, k, a->type),
                 comp_value(h->expect[i], k, a->type));
        return false;
      }
    snprintf(why, len, "%s differs from the reference", a->name);
    return false;
  }
  double sum = 0;
  for (uint64_t k = 0; k < n; k++) {
    double x = comp_value(out, k, a->type), y = comp_value(h->expect[i], k, a->type), d = fabs(x - y);
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

/* ------------------------------------------------------------------ one configuration */

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
  lost = vkocc_context_lost(ctx);
  if (lost) {
    /* a lost device runs nothing more: its objects can be destroyed */
    vkocc_kernel_destroy(ctx, k);
    free_buffers(h);
  } else {
    /* still running: keep its objects alive, and the device too (never destroyed under running work) */
    memset(k, 0, sizeof *k);
    free(h->dev), free(h->pristine), free(h->readback);
    h->dev = h->pristine = h->readback = NULL;
    h->buffers_ready = false;
    *h->ctxp = NULL;
  }
  vkocc_status st = h->o->reopen(h->o->user, h->ctxp);
  h->run->device_losses++;
  if (!st) st = make_buffers(h);
  return st;
}

static vkocc_status measure_config(harness *h, uint32_t c, tu_result *r) {
  t1_spec *s = h->s;
  const tu_options *o = h->o;
  const uint32_t *coord = h->run->space.coord + (size_t)c * s->nparams;
  double t_start = vkocc_now_ms();
  memset(r, 0, sizeof *r);
  r->P = -1, r->measured = true;
  vkocc_utc_now(r->when, sizeof r->when);
  vkocc_context *ctx = CTX(h);
  vkocc_kernel k = {0};
  double setup = 0;
  char **defs = NULL;
  uint32_t nd = 0;
  vkocc_status st = VKOCC_OK;
  /* sizes (P-dependent global sizes after P) */
  bool global_P = false;
  for (int d = 0; d < 3; d++) global_P |= (texpr_uses(s->global[d], NULL) & TEXPR_USES_P) != 0;
  uint32_t groups[3];
  if ((st = t1_sizes(s, coord, global_P ? 1 : -1, r->local, groups))) goto usage;
  if (!global_P) memcpy(r->groups, groups, sizeof groups);
  uint64_t inv = (uint64_t)r->local[0] * r->local[1] * r->local[2];
  vkocc_exec_limits lim;
  vkocc_exec_limits_get(ctx, &lim);
  if (inv > lim.max_invocations || r->local[0] > lim.max_wg_size[0] || r->local[1] > lim.max_wg_size[1] ||
      r->local[2] > lim.max_wg_size[2]) {
    r->inv = TU_CONSTRAINTS;
    snprintf(r->error, sizeof r->error, "workgroup %ux%ux%u exceeds the device's limits (%u invocations, %ux%ux%u)", r->local[0],
             r->local[1], r->local[2], lim.max_invocations, lim.max_wg_size[0], lim.max_wg_size[1], lim.max_wg_size[2]);
    goto done;
  }
  /* compile */
  defines_of(h, coord, r->local, &defs, &nd);
  module *m = get_module(h, defs, nd, &r->compile_ms);
  if (m->failed) {
    if (strstr(m->error, "entry point")) { /* every configuration would fail alike: the spec names no entry */
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelName: '%.200s': %s", s->file, s->kernel_name,
                      m->error);
      goto usage;
    }
    r->inv = TU_COMPILE;
    snprintf(r->error, sizeof r->error, "compile: %s", m->error);
    goto done;
  }
  if (!m->checked) {
    if ((st = check_interface(h, m)) || (st = map_params(h, m))) goto usage;
    m->checked = true;
  }
  if (!h->buffers_ready) {
    double tb0 = vkocc_now_ms();
    st = make_buffers(h);
    setup = vkocc_now_ms() - tb0;
    h->run->setup_ms += setup;
    if (st) goto usage_or_fail;
  }
  specs sp;
  char err[512];
  if (!specs_of(h, m, coord, r->local, &sp, err, sizeof err)) { r->inv = TU_COMPILE; snprintf(r->error, sizeof r->error, "%s", err); goto done; }
  /* the workgroup size of the module as specialized must be LocalSize (a literal that disagrees is bad input) */
  vkocc_spirv_info info;
  if ((st = vkocc_spirv_inspect(m->spv, m->words, s->kernel_file, s->kernel_name, sp.v, sp.n, &info))) {
    r->inv = TU_COMPILE;
    snprintf(r->error, sizeof r->error, "%s", vkocc_last_error());
    st = VKOCC_OK;
    goto done;
  }
  if (info.wg[0] != r->local[0] || info.wg[1] != r->local[1] || info.wg[2] != r->local[2]) {
    st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.LocalSize: %ux%ux%u, but %s's workgroup size is %ux%ux%u "
                    "(a literal local_size; use local_size_x_id or LOCAL_SIZE_X)", s->file, r->local[0], r->local[1],
                    r->local[2], s->kernel_file, info.wg[0], info.wg[1], info.wg[2]);
    goto usage;
  }
  if (info.shared_bytes > lim.max_shared_bytes) {
    r->inv = TU_COMPILE;
    snprintf(r->error, sizeof r->error, "%u bytes of shared memory exceed the device's %u", info.shared_bytes,
             lim.max_shared_bytes);
    goto done;
  }
  /* pipeline: the caller's buffers at their set 0 bindings, the constants in their declared types */
  double t0 = vkocc_now_ms();
  vkocc_kernel_resource res[64];
  uint32_t nres = 0;
  for (uint32_t i = 0; i < s->nargs && nres < 64; i++)
    if (s->args[i].vector) res[nres++] = (vkocc_kernel_resource){.set = 0, .binding = (uint32_t)s->args[i].binding, .buffer = &h->dev[i]};
  vkocc_kernel_desc kd = {.spv = m->spv, .words = m->words, .name = s->kernel_file, .role = "user's", .entry = s->kernel_name,
                          .info = &info, .refl = &m->refl, .spec = sp.v, .nspec = sp.n, .res = res, .nres = nres};
  st = vkocc_kernel_build(ctx, &kd, &k);
  r->pipeline_ms = vkocc_now_ms() - t0;
  h->run->pipelines++, h->run->pipelines_ms += r->pipeline_ms;
  if (st) {
    char why[600];
    snprintf(why, sizeof why, "pipeline creation: %s", vkocc_last_error());
    if (vkocc_context_lost(ctx)) st = recover(h, r, TU_RUNTIME, why, &k);
    else { r->inv = TU_COMPILE, st = VKOCC_OK; snprintf(r->error, sizeof r->error, "%s", why); }
    goto done;
  }
  /* P of this pipeline (augmented, measured by the comb; cached by the library on disk) */
  if (s->uses_P || o->always_P) {
    t0 = vkocc_now_ms();
    if (!h->have_cal && !o->cal) {
      vkocc_calibrate_options co;
      vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
      if ((st = vkocc_calibrate(ctx, &co, &h->cal))) goto usage_or_fail;
      h->have_cal = true;
    }
    vkocc_shader_desc sd = {.spirv = m->spv, .spirv_words = m->words, .name = s->kernel_file, .lang = VKOCC_SHADER_SPIRV,
                            .entry = s->kernel_name, .spec = sp.v, .nspec = sp.n};
    vkocc_pipeline_result pr;
    /* the comb alone (one dispatch per estimate), its first dispatch sized by the last P measured */
    vkocc_probe_options po = {.method = vkocc_context_has_device_clock(ctx) ? VKOCC_METHOD_COMB : 0,
                              .hint = h->last_P > 0 ? (uint32_t)h->last_P : 0};
    st = vkocc_pipeline_occupancy(ctx, o->cal ? o->cal : &h->cal, &sd, &po, true, &pr);
    if (!st) h->last_P = pr.P;
    r->occupancy_ms = vkocc_now_ms() - t0;
    h->run->occupancy_ms += r->occupancy_ms;
    if (st) {
      if (st == VKOCC_ERROR_UNSUPPORTED && s->uses_P) goto usage_or_fail; /* no shader clock: P cannot be had */
      char why[600];
      snprintf(why, sizeof why, "occupancy: %s", vkocc_last_error());
      if (vkocc_context_lost(ctx)) { st = recover(h, r, TU_RUNTIME, why, &k); goto done; }
      r->inv = TU_RUNTIME;
      snprintf(r->error, sizeof r->error, "%s", why);
      st = VKOCC_OK;
      goto done;
    }
    r->P = pr.P;
    vkocc_pipeline_result_free(&pr);
    bool ok;
    char why[400];
    if ((st = t1_check_P(s, coord, r->P, &ok, why, sizeof why))) goto usage;
    if (!ok) { r->inv = TU_CONSTRAINTS; snprintf(r->error, sizeof r->error, "%s", why); goto done; }
    if (global_P && (st = t1_sizes(s, coord, r->P, r->local, r->groups))) goto usage;
  }
  if (r->groups[0] > lim.max_wg_count[0] || r->groups[1] > lim.max_wg_count[1] || r->groups[2] > lim.max_wg_count[2]) {
    r->inv = TU_CONSTRAINTS;
    snprintf(r->error, sizeof r->error, "%ux%ux%u workgroups exceed maxComputeWorkGroupCount", r->groups[0], r->groups[1], r->groups[2]);
    goto done;
  }
  /* the first run: poisoned outputs, restored inputs, a bounded wait, validated */
  double timeout_s = o->timeout_s > 0 ? o->timeout_s : 5;
  double first;
  t0 = vkocc_now_ms();
  bool need_ref = !h->have_reference && h->expect, lost, timed_out;
  st = run_batch(h, &k, r->groups, 1, true, true, timeout_s, &first, &lost, &timed_out);
  if (st) {
    char why[600];
    if (timed_out) snprintf(why, sizeof why, "the first run did not end within the bound of %.3g s (--timeout)", timeout_s);
    else snprintf(why, sizeof why, "%s", vkocc_last_error());
    r->measure_ms = vkocc_now_ms() - t0;
    if (lost || timed_out) st = recover(h, r, timed_out ? TU_TIMEOUT : TU_RUNTIME, why, &k);
    else { r->inv = TU_RUNTIME, st = VKOCC_OK; snprintf(r->error, sizeof r->error, "%s", why); }
    goto done;
  }
  if (first > timeout_s * 1e9) {
    r->inv = TU_TIMEOUT;
    snprintf(r->error, sizeof r->error, "one dispatch took %.3f s, more than the bound of %.1f s", first / 1e9, timeout_s);
    r->measure_ms = vkocc_now_ms() - t0;
    goto done;
  }
  if (h->expect) {
    if (need_ref) {
      /* the reference must write every element of its outputs: run again under another poison, an element that
       * kept both poisons was never written (with no reference, a kernel that wrote nothing was judged right
       * against its own poisoned output) */
      uint8_t **keep = vkocc_xcalloc(s->nargs + 1, sizeof *keep);
      for (uint32_t i = 0; i < s->nargs; i++)
        if (s->args[i].output && h->readback[i].map) {
          keep[i] = vkocc_xmalloc(s->args[i].bytes + 1);
          memcpy(keep[i], h->readback[i].map, s->args[i].bytes);
        }
      double again;
      h->poison = POISON2;
      st = run_batch(h, &k, r->groups, 1, true, true, timeout_s, &again, &lost, &timed_out);
      h->poison = 0;
      char unwritten[300] = "";
      for (uint32_t i = 0; i < s->nargs && !st && !unwritten[0]; i++) {
        if (!keep[i] || s->args[i].data.fill != T1_FILL_NONE) continue;
        for (uint64_t w = 0; w < s->args[i].bytes / 4 && !unwritten[0]; w++) {
          uint32_t a, b;
          memcpy(&a, keep[i] + 4 * w, 4), memcpy(&b, (uint8_t *)h->readback[i].map + 4 * w, 4);
          if (a == POISON && b == POISON2)
            snprintf(unwritten, sizeof unwritten, "leaves %s unwritten from byte %llu (it kept the poison of two runs), so "
                     "its output cannot be the reference", s->args[i].name, (unsigned long long)(4 * w));
        }
      }
      for (uint32_t i = 0; i < s->nargs; i++) free(keep[i]);
      free(keep);
      if (st) {
        char why[600];
        snprintf(why, sizeof why, "%s", vkocc_last_error());
        r->measure_ms = vkocc_now_ms() - t0;
        if (lost || timed_out) st = recover(h, r, timed_out ? TU_TIMEOUT : TU_RUNTIME, why, &k);
        else { r->inv = TU_RUNTIME, st = VKOCC_OK; snprintf(r->error, sizeof r->error, "%s", why); }
        goto done;
      }
      if (unwritten[0]) {
        r->inv = TU_CORRECTNESS;
        snprintf(r->error, sizeof r->error, "%s", unwritten);
        r->measure_ms = vkocc_now_ms() - t0;
        goto done;
      }
      /* the first configuration that runs (or --reference) gives the reference outputs */
      for (uint32_t i = 0; i < s->nargs; i++)
        if (h->expect[i] == (void *)1) h->expect[i] = NULL;
      for (uint32_t i = 0; i < s->nargs; i++)
        if (s->args[i].output) {
          h->expect[i] = vkocc_xmalloc(s->args[i].bytes);
          memcpy(h->expect[i], h->readback[i].map, s->args[i].bytes);
        }
      h->have_reference = true;
      t1_config_key(s, coord, h->run->reference, sizeof h->run->reference);
    } else {
      for (uint32_t i = 0; i < s->nargs; i++) {
        char why[400];
        if (validated(h, i) && !compare(h, i, h->readback[i].map, why, sizeof why)) {
          r->inv = TU_CORRECTNESS;
          snprintf(r->error, sizeof r->error, "wrong output: %s", why);
          r->measure_ms = vkocc_now_ms() - t0;
          goto done;
        }
      }
    }
  }
  /* warm-up: untimed dispatches before anything is timed, so that clocks that dropped while the host worked come
   * back up. A GPU's clock governor follows its recent utilization: the GPU is kept busy for warmup_ratio times
   * the host time it was idle since the last batch (its duty cycle stays >= ratio / (1 + ratio)), at least 20 ms
   * and at most warmup_ms; a cold GPU (nothing run yet) gets warmup_ms. The sentinel (tu_tune) checks the result.
   * A CPU device gets the cold warm-up too (on lavapipe the configurations timed in the first second of a process
   * took up to 1.6x as long as the same ones re-timed at its end, docs/tune.md), then the least: the host's work
   * between configurations runs on the same CPU, which it leaves busy, not idle. */
  double cap_ms = o->warmup_ms < 0 ? 0 : o->warmup_ms > 0 ? o->warmup_ms : 500;
  double ratio = o->warmup_ratio < 0 ? 0 : o->warmup_ratio > 0 ? o->warmup_ratio : 2;
  double warm_ms = cap_ms;
  bool cpu = vkocc_context_device(ctx)->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  if (ratio > 0 && h->idle_ms >= 0) {
    warm_ms = cpu ? 0 : ratio * h->idle_ms;
    if (warm_ms < 20) warm_ms = 20;
    if (warm_ms > cap_ms) warm_ms = cap_ms;
  }
  r->warmup_ms = warm_ms;
  h->idle_ms = 0;
  for (double busy = 0; busy < warm_ms * 1e6;) {
    double wt[MAX_BATCH];
    uint32_t batch = (uint32_t)((warm_ms * 1e6 - busy) / (first > 1 ? first : 1)) + 1;
    if (batch > MAX_BATCH) batch = MAX_BATCH;
    st = run_batch(h, &k, r->groups, batch, false, false, timeout_s * batch, wt, &lost, &timed_out);
    if (st) {
      char why[600];
      snprintf(why, sizeof why, "%s", vkocc_last_error());
      if (lost || timed_out) st = recover(h, r, timed_out ? TU_TIMEOUT : TU_RUNTIME, why, &k);
      else { r->inv = TU_RUNTIME, st = VKOCC_OK; snprintf(r->error, sizeof r->error, "%s", why); }
      r->measure_ms = vkocc_now_ms() - t0;
      goto done;
    }
    for (uint32_t i = 0; i < batch; i++) busy += wt[i] > 0 ? wt[i] : 1;
  }
  /* timed batches: about 20 ms of GPU time per submission, until the spread is small or a cap */
  double target = o->target_spread > 0 ? o->target_spread : 0.02;
  uint32_t min_runs = o->min_runs ? o->min_runs : 5, max_runs = o->max_runs ? o->max_runs : 50;
  double max_s = o->max_config_s > 0 ? o->max_config_s : 2.0;
  r->times_ns = vkocc_xmalloc(max_runs * sizeof *r->times_ns);
  double tb = vkocc_now_ms();
  while (r->runs < max_runs) {
    double per = first > 1 ? first : 1;
    uint32_t batch = (uint32_t)(20e6 / per);
    if (batch < 1) batch = 1;
    if (batch > MAX_BATCH) batch = MAX_BATCH;
    if (batch > max_runs - r->runs) batch = max_runs - r->runs;
    bool last_check = false;
    st = run_batch(h, &k, r->groups, batch, false, true, timeout_s * batch, r->times_ns + r->runs, &lost, &timed_out);
    if (st) {
      char why[600];
      snprintf(why, sizeof why, "%s", vkocc_last_error());
      if (lost || timed_out) st = recover(h, r, timed_out ? TU_TIMEOUT : TU_RUNTIME, why, &k);
      else { r->inv = TU_RUNTIME, st = VKOCC_OK; snprintf(r->error, sizeof r->error, "%s", why); }
      r->measure_ms = vkocc_now_ms() - t0;
      goto done;
    }
    r->runs += batch;
    vkocc_summary sum;
    vkocc_summarize(r->times_ns, r->runs, &sum);
    if (r->runs >= min_runs && sum.median > 0 && sum.mad / sum.median <= target) last_check = true;
    if (r->runs >= 3 && vkocc_now_ms() - tb > max_s * 1e3) last_check = true;
    if (last_check || r->runs >= max_runs) {
      /* the outputs of the last run must still be right (a race shows here) */
      for (uint32_t i = 0; i < s->nargs && h->have_reference; i++) {
        char why[400];
        if (validated(h, i) && !compare(h, i, h->readback[i].map, why, sizeof why)) {
          r->inv = TU_CORRECTNESS;
          snprintf(r->error, sizeof r->error, "wrong output after %u runs: %s", r->runs, why);
        }
      }
      break;
    }
  }
  r->measure_ms = vkocc_now_ms() - t0;
  if (r->runs) {
    vkocc_summary sum;
    vkocc_summarize(r->times_ns, r->runs, &sum);
    r->median_ns = sum.median, r->min_ns = sum.min, r->max_ns = sum.max;
    r->spread = sum.median > 0 ? sum.mad / sum.median : 0;
  }
  h->run->measure_ms += r->measure_ms;
  goto done;
usage_or_fail:
usage:
  vkocc_kernel_destroy(CTX(h), &k);
  free_defs(defs, nd);
  r->measured = false;
  return st;
done:
  vkocc_kernel_destroy(CTX(h), &k);
  free_defs(defs, nd);
  r->total_ms = vkocc_now_ms() - t_start - setup; /* the buffers are the run's, not this configuration's */
  r->other_ms = r->total_ms - r->compile_ms - r->pipeline_ms - r->occupancy_ms - r->measure_ms;
  if (r->other_ms < 0) r->other_ms = 0;
  if (r->inv != TU_CORRECT) r->median_ns = NAN;
  return st;
}

/* ------------------------------------------------------------------ the search */

int64_t tu_find(const tu_run *run, const char *key) {
  char k[1024];
  for (uint32_t i = 0; i < run->space.count; i++) {
    t1_config_key(&run->spec, run->space.coord + (size_t)i * run->spec.nparams, k, sizeof k);
    if (!strcmp(k, key)) return i;
  }
  return -1;
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

/* The pipeline of configuration c, as measure_config builds it (its module, interface, buffers, constants). */
static vkocc_status build_again(harness *h, uint32_t c, vkocc_kernel *k) {
  t1_spec *s = h->s;
  tu_result *r = &h->run->r[c];
  const uint32_t *coord = h->run->space.coord + (size_t)c * s->nparams;
  char **defs, err[512];
  uint32_t nd;
  double cms;
  vkocc_status st;
  defines_of(h, coord, r->local, &defs, &nd);
  module *m = get_module(h, defs, nd, &cms);
  free_defs(defs, nd);
  if (!m->failed && !m->checked) { /* every result was resumed: nothing was built in this run yet */
    if ((st = check_interface(h, m)) || (st = map_params(h, m))) return st;
    m->checked = true;
  }
  if (!m->failed && !h->buffers_ready && (st = make_buffers(h))) return st;
  specs sp;
  vkocc_spirv_info info;
  if (m->failed || !specs_of(h, m, coord, r->local, &sp, err, sizeof err) ||
      vkocc_spirv_inspect(m->spv, m->words, s->kernel_file, s->kernel_name, sp.v, sp.n, &info))
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "the final round: configuration %u no longer builds", c);
  vkocc_kernel_resource res[64];
  uint32_t nres = 0;
  for (uint32_t i = 0; i < s->nargs && nres < 64; i++)
    if (s->args[i].vector) res[nres++] = (vkocc_kernel_resource){.set = 0, .binding = (uint32_t)s->args[i].binding, .buffer = &h->dev[i]};
  vkocc_kernel_desc kd = {.spv = m->spv, .words = m->words, .name = s->kernel_file, .role = "user's", .entry = s->kernel_name,
                          .info = &info, .refl = &m->refl, .spec = sp.v, .nspec = sp.n, .res = res, .nres = nres};
  return vkocc_kernel_build(CTX(h), &kd, k);
}

/* The final round: the k best configurations by median, their pipelines rebuilt, each run once first as in
 * the search (poisoned outputs, a bounded wait, the outputs validated; this also warms the device, which in a
 * resumed run has run nothing yet), then one untimed warm-up round and 3 timed rounds of one batch each, in
 * turn, so that whatever else runs on the host falls on all of them alike; the outputs of each candidate's
 * last batch are validated again. A candidate with a wrong output becomes invalid (correctness, never chosen;
 * after a wrong first run the next by median takes its place). The best is then the lowest median of these
 * interleaved runs among the candidates whose outputs stayed right. */
static vkocc_status confirm_best(harness *h, uint32_t k) {
  tu_run *run = h->run;
  enum { ROUNDS = 3 };
  /* when this run measured no configuration (every result resumed) the device has been idle, its clocks
   * low: the untimed warm-up rounds then last 0.2 s at least, as a search would have kept it busy */
  bool cold = h->done == 0;
  /* the valid configurations by median: the first k whose first run here is right are the candidates */
  ranked *order = vkocc_xcalloc(run->space.count + 1, sizeof *order);
  uint32_t norder = 0;
  for (uint32_t i = 0; i < run->space.count; i++) {
    tu_result *r = &run->r[i];
    r->confirm_runs = 0;
    if (r->measured && r->inv == TU_CORRECT && r->runs) order[norder++] = (ranked){r->median_ns, i};
  }
  qsort(order, norder, sizeof *order, by_median);
  vkocc_status st = VKOCC_OK;
  if (norder < 2) { free(order); return VKOCC_OK; }
  uint32_t *cand = vkocc_xcalloc(k + 1, sizeof *cand), n = 0;
  vkocc_kernel *kern = vkocc_xcalloc(k + 1, sizeof *kern);
  double **t = vkocc_xcalloc(k + 1, sizeof *t);
  uint32_t *nt = vkocc_xcalloc(k + 1, sizeof *nt);
  bool *wrong = vkocc_xcalloc(k + 1, sizeof *wrong);
  double timeout_s = h->o->timeout_s > 0 ? h->o->timeout_s : 5;
  bool lost, timed_out;
  /* each built again and run once, as in the search: poisoned outputs, restored inputs, a bounded wait, the
   * outputs validated (a wrong one: invalid, the next by median takes its place) */
  for (uint32_t o = 0; o < norder && n < k && !st; o++) {
    tu_result *r = &run->r[order[o].i];
    if ((st = build_again(h, order[o].i, &kern[n]))) break;
    double first;
    char why[400];
    st = run_batch(h, &kern[n], r->groups, 1, true, true, timeout_s, &first, &lost, &timed_out);
    if (st) { vkocc_kernel_destroy(CTX(h), &kern[n]); break; }
    if (!outputs_right(h, why, sizeof why)) {
      final_wrong(r, "first run", why);
      vkocc_kernel_destroy(CTX(h), &kern[n]);
      continue;
    }
    cand[n] = order[o].i;
    t[n] = vkocc_xmalloc(ROUNDS * MAX_BATCH * sizeof **t);
    n++;
  }
  /* untimed warm-up rounds (one; 0.2 s at least on a cold device), then the timed rounds; the last batch of
   * each validated again */
  uint32_t warmup = 1;
  double tw = vkocc_now_ms();
  for (uint32_t round = 0; round < warmup + ROUNDS && !st && n >= 2; round++) {
    for (uint32_t c = 0; c < n && !st; c++) {
      if (wrong[c]) continue;
      tu_result *r = &run->r[cand[c]];
      uint32_t batch = (uint32_t)(20e6 / (r->median_ns > 1 ? r->median_ns : 1));
      if (batch < 3) batch = 3;
      if (batch > MAX_BATCH) batch = MAX_BATCH;
      bool warm = round < warmup, last = round == warmup + ROUNDS - 1;
      double scratch[MAX_BATCH];
      st = run_batch(h, &kern[c], r->groups, batch, false, last, timeout_s * batch, warm ? scratch : t[c] + nt[c], &lost,
                     &timed_out);
      if (st) break;
      if (!warm) nt[c] += batch;
      char why[400];
      if (last && !outputs_right(h, why, sizeof why)) wrong[c] = true, final_wrong(r, "last batch", why);
    }
    if (round + 1 == warmup && cold && vkocc_now_ms() - tw < 200 && warmup < 1000) warmup++;
  }
  for (uint32_t c = 0; c < n; c++) {
    if (!st && nt[c] && !wrong[c]) {
      vkocc_summary sum;
      vkocc_summarize(t[c], nt[c], &sum);
      tu_result *r = &run->r[cand[c]];
      r->confirm_ns = sum.median, r->confirm_spread = sum.median > 0 ? sum.mad / sum.median : 0, r->confirm_runs = nt[c];
    }
    vkocc_kernel_destroy(CTX(h), &kern[c]);
    free(t[c]);
  }
  /* a failed final round, or one left with fewer than 2 right candidates, leaves the ranking by medians (of
   * the configurations not found wrong) */
  uint32_t confirmed = 0;
  for (uint32_t c = 0; c < n; c++) confirmed += run->r[cand[c]].confirm_runs > 0;
  if (st || confirmed < 2)
    for (uint32_t c = 0; c < n; c++) run->r[cand[c]].confirm_runs = 0;
  free(kern), free(t), free(nt), free(cand), free(wrong), free(order);
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
  double range = (*hi - *lo) / *lo;
  *drifted = range > 0.05 && range > 4 * *max_spread;
  return true;
}

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

static vkocc_status eval_cb(void *user, uint32_t c, tune_eval *e) {
  harness *h = user;
  tu_run *run = h->run;
  tu_result *r = &run->r[c];
  if (!r->measured) {
    if (h->o->stop && *h->o->stop) return vkocc_fail(VKOCC_ERROR_RUNTIME, "interrupted");
    vkocc_status st = measure_config(h, c, r);
    if (st) return st;
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
    uint64_t limit = run->space.count;
    if (run->budget.max_evals && run->budget.max_evals < limit) limit = run->budget.max_evals;
    if (run->budget.max_fraction > 0) {
      uint64_t f = (uint64_t)ceil(run->budget.max_fraction * run->space.count);
      if (f < limit) limit = f ? f : 1;
    }
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

vkocc_status tu_prepare(const char *spec_path, const char *name, tu_run *run) {
  memset(run, 0, sizeof *run);
  vkocc_status st = t1_load(spec_path, &run->spec);
  if (st) return st;
  if ((st = t1_enumerate(&run->spec, &run->space))) { t1_free(&run->spec); return st; }
  run->r = vkocc_xcalloc(run->space.count, sizeof *run->r);
  run->sentinel_config = -1;
  for (uint32_t i = 0; i < run->space.count; i++) run->r[i].P = -1;
  if (name && (!name[0] || strlen(name) >= sizeof run->name)) {
    tu_run_free(run);
    return vkocc_fail(VKOCC_ERROR_USAGE, "--name: %zu characters; expected 1 to %zu (a longer name was cut, and two "
                      "kernels then merged in a policy)", strlen(name), sizeof run->name - 1);
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
  snprintf(run->strategy, sizeof run->strategy, "%s", run->spec.search);
  run->budget = run->spec.budget;
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
  uint32_t n = 0;
  for (uint32_t c = 0; c < run->space.count; c++) {
    const uint32_t *coord = run->space.coord + (size_t)c * s->nparams;
    if (!keep_value[coord[p]] && !run->r[c].measured) continue; /* a resumed result is kept, whatever --only says */
    if (n != c) {
      memmove(run->space.coord + (size_t)n * s->nparams, coord, s->nparams * sizeof *coord);
      run->r[n] = run->r[c];
    }
    n++;
  }
  if (!n) return vkocc_fail(VKOCC_ERROR_USAGE, "--only %s: no allowed configuration is left", only);
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

vkocc_status tu_tune(vkocc_context **ctx, tu_run *run, const tu_options *o) {
  static const tu_options none = {0};
  if (!o) o = &none;
  harness h = {.ctxp = ctx, .run = run, .o = o, .s = &run->spec, .reference_config = -1, .idle_ms = -1, .sentinel = -1};
  t1_spec *s = &run->spec;
  vkocc_status st = VKOCC_OK;
  h.t0 = h.last_cp = vkocc_now_ms();
  const char *lose = getenv("VKOCC_TEST_DEVICE_LOSS");
  if (lose) h.lose_at = (uint32_t)strtoul(lose, NULL, 10);
  if (o->strategy) snprintf(run->strategy, sizeof run->strategy, "%s", o->strategy);
  const tune_strategy_def *def = tune_strategy_find(run->strategy);
  if (!def) return vkocc_fail(VKOCC_ERROR_USAGE, "unknown search strategy '%s'", run->strategy);
  run->seed = o->seed;
  /* a budget given here replaces the spec's Budget as a whole (--fraction 1 under a spec's ConfigurationCount 1
   * measured one configuration) */
  if (o->budget.max_evals || o->budget.max_fraction > 0 || o->budget.max_seconds > 0) run->budget = o->budget;
  if (o->reference && s->nrefs)
    return vkocc_fail(VKOCC_ERROR_USAGE, "--reference %s: %s has ReferenceArguments, which are the reference; leave out "
                      "one of the two", o->reference, s->file);
  /* every buffer against the device's limits and the host's memory before anything is allocated or filled (a
   * 64 GiB reference was allocated, an 8 GiB generator run element by element, before any check) */
  if ((st = check_sizes(&h))) return st;
  /* which parameters are specialization constants: declared as such (source), or named so (SPIR-V) */
  bool launch[32] = {0};
  for (int d = 0; d < 3; d++) texpr_uses(s->local[d], launch), texpr_uses(s->global[d], launch);
  if (s->lang != VKOCC_SHADER_SPIRV) {
    void *text;
    size_t len;
    if ((st = vkocc_read_file(s->kernel_file, &text, &len)))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s", s->file, vkocc_last_error());
    h.source = text;
    strip_comments(h.source);
    for (uint32_t i = 0; i < s->nparams; i++) {
      h.spec_id[i] = declared_spec(h.source, s->params[i].name);
      run->param_spec[i] = h.spec_id[i] >= 0;
      if (!run->param_spec[i] && !word_in(h.source, s->params[i].name)) {
        /* not in the source: it may still shape the launch (LocalSize, GlobalSize), then it is no define */
        if (launch[i]) { run->param_launch[i] = true; continue; }
        st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.TuningParameters[%u]: '%s' reaches the kernel neither as "
                        "a specialization constant nor as a -D define (%s never names it) nor through LocalSize or "
                        "GlobalSize", s->file, i, s->params[i].name, s->kernel_file);
        goto out;
      }
    }
  } else {
    uint32_t *spv;
    size_t words;
    if ((st = vkocc_shader_load_file(s->kernel_file, VKOCC_SHADER_SPIRV, s->kernel_name, NULL, 0, &spv, &words)))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s", s->file, vkocc_last_error());
    spv_consts sc;
    spv_walk(spv, words, &sc);
    free(spv);
    for (uint32_t i = 0; i < s->nparams; i++) {
      bool found = false;
      for (uint32_t k = 0; k < sc.n; k++)
        if (!strcmp(sc.c[k].name, s->params[i].name)) found = true, h.spec_id[i] = (int32_t)sc.c[k].spec_id;
      if (!found && launch[i]) { run->param_launch[i] = true; continue; }
      if (!found) {
        st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.TuningParameters[%u]: '%s' is no specialization constant "
                        "of the SPIR-V kernel %s (a SPIR-V kernel takes no -D defines)", s->file, i, s->params[i].name,
                        s->kernel_file);
        goto out;
      }
      run->param_spec[i] = true;
    }
  }
  /* the reference: ReferenceArguments, or the first configuration that runs (--reference: that one first) */
  h.expect = vkocc_xcalloc(s->nargs + 1, sizeof *h.expect);
  h.ref_of = vkocc_xcalloc(s->nargs + 1, sizeof *h.ref_of);
  bool any_output = false;
  for (uint32_t i = 0; i < s->nargs; i++) any_output |= s->args[i].output;
  if (s->nrefs) {
    for (uint32_t k = 0; k < s->nrefs; k++) {
      const t1_ref *ref = &s->refs[k];
      const t1_arg *a = &s->args[ref->target];
      free(h.expect[ref->target]);
      h.expect[ref->target] = vkocc_xmalloc(a->bytes);
      h.ref_of[ref->target] = ref;
      if ((st = t1_fill_data(s, &ref->data, ref->path, a, h.expect[ref->target]))) goto out;
    }
    h.have_reference = true;
    snprintf(run->reference, sizeof run->reference, "ReferenceArguments");
  } else if (any_output) {
    for (uint32_t i = 0; i < s->nargs; i++)
      if (s->args[i].output) h.expect[i] = (void *)1; /* placeholder until the reference run */
    if (o->reference && (st = parse_reference(&h, o->reference, &h.reference_config))) goto out;
  } else {
    free(h.expect), h.expect = NULL;
    snprintf(run->reference, sizeof run->reference, "none (no Output argument)");
  }
  /* a resumed run answers from its records; the reference outputs of a resumed run without
   * ReferenceArguments come from running the reference configuration again */
  if (h.expect && !h.have_reference) {
    int64_t rc = h.reference_config;
    if (rc < 0 && run->reference[0]) rc = tu_find(run, run->reference);
    if (rc >= 0) {
      tu_result tmp;
      bool was = run->r[rc].measured;
      tu_result keep = run->r[rc];
      if ((st = measure_config(&h, (uint32_t)rc, &tmp))) goto out;
      if (was) { free(tmp.times_ns); run->r[rc] = keep; }
      else { run->r[rc] = tmp; h.done++; }
      if (!h.have_reference) {
        st = vkocc_fail(VKOCC_ERROR_USAGE, "--reference: configuration %s does not run: %s", run->reference[0] ? run->reference : o->reference,
                        tmp.error);
        goto out;
      }
    }
  }
  tune_space sp = {.nparams = s->nparams, .nconfigs = run->space.count, .coord = run->space.coord};
  const char *names[32];
  uint32_t nvals[32];
  for (uint32_t i = 0; i < s->nparams; i++) names[i] = s->params[i].name, nvals[i] = s->params[i].nvalues;
  sp.param_names = names, sp.nvalues = nvals;
  if (o->drive) {
    st = o->drive(o->drive_user, &sp, eval_cb, &h);
  } else {
    tune_search_result sr;
    st = tune_search_run(&sp, def, run->seed, s->search_attrs, &run->budget, eval_cb, &h, &sr);
    tune_search_result_free(&sr);
  }
  if (!st && h.sentinel >= 0 && sentinel_every(o) > 0) st = sentinel_again(&h);
  if (!st && o->confirm >= 0) {
    vkocc_status cs = confirm_best(&h, o->confirm ? (uint32_t)o->confirm : 5);
    if (cs) fprintf(stderr, "vkocc tune: note: %s; the best is ranked by the search's medians\n", vkocc_last_error());
  }
  if (st == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), "attribute")) {
    char m[600];
    snprintf(m, sizeof m, "%s", vkocc_last_error());
    st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.Search.Attributes: %s", s->file, m);
  }
  /* a kernel that compiles for no configuration is bad input */
  if (!st) {
    uint32_t measured = 0, compile = 0;
    const char *first = NULL;
    for (uint32_t i = 0; i < run->space.count; i++)
      if (run->r[i].measured) {
        measured++;
        if (run->r[i].inv == TU_COMPILE) { compile++; if (!first) first = run->r[i].error; }
      }
    if (measured && compile == measured)
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s compiles for none of the %u configurations "
                      "tried; the first: %.400s", s->file, s->kernel_file, measured, first);
  }
out:
  run->elapsed_ms += vkocc_now_ms() - h.t0;
  for (uint32_t i = 0; i < h.nmods; i++) {
    free(h.mods[i].key), free(h.mods[i].spv), vkocc_reflection_free(&h.mods[i].refl);
  }
  free(h.mods);
  free_buffers(&h);
  if (h.expect)
    for (uint32_t i = 0; i < s->nargs; i++)
      if (h.expect[i] != (void *)1) free(h.expect[i]);
  free(h.expect);
  free(h.ref_of);
  free(h.source);
  return st;
}

void tu_run_free(tu_run *run) {
  if (run->r)
    for (uint32_t i = 0; i < run->space.count; i++) free(run->r[i].times_ns);
  free(run->r);
  free(run->order);
  free(run->sentinel);
  t1_space_free(&run->space);
  t1_free(&run->spec);
  memset(run, 0, sizeof *run);
}
