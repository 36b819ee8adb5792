/* Building a configuration (tune/harness/harness.h): the -D defines that name its module, the module compiled once
 * per define set (and once per process where the devices' harnesses share it, tu_options.shared), its interface
 * checked against the spec's arguments, the specialization constants' values. */
#include "harness.h"
#include <ctype.h>
#include <spirv.h>

void tu_spv_walk(const uint32_t *w, size_t words, spv_consts *out) {
  memset(out, 0, sizeof *out);
  out->wg_spec[0] = out->wg_spec[1] = out->wg_spec[2] = -1;
  enum { MAXID = 1 << 20 };
  uint32_t bound = words > 3 ? w[3] : 0;
  if (bound > MAXID) bound = MAXID;
  int64_t *spec_of = util_xmalloc((bound + 1) * sizeof *spec_of);
  for (uint32_t i = 0; i <= bound; i++) spec_of[i] = -1;
  uint32_t wg_id = 0, comp[3] = {0};
  const char **names = util_xcalloc(bound + 1, sizeof *names);
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
  tu_shared *s = util_xcalloc(1, sizeof *s);
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
    if (s->n == s->cap) s->cap = s->cap ? 2 * s->cap : 16, s->e = util_xrealloc(s->e, s->cap * sizeof *s->e);
    e = s->e[s->n] = util_xcalloc(1, sizeof *e); /* pointers: an entry never moves */
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
vkocc_status tu_fill_data(harness *h, const char *what, uint32_t i, const t1_data *d, const char *path, const t1_arg *a,
                              size_t bytes, void **out, bool *shared) {
  *out = NULL, *shared = false;
  if (!h->o->shared) {
    *out = util_xcalloc(1, bytes);
    vkocc_status st = t1_fill_data(h->s, d, path, a, *out);
    if (st) free(*out), *out = NULL;
    return st;
  }
  char key[64];
  snprintf(key, sizeof key, "%s:%u", what, i);
  bool mine;
  shared_entry *e = shared_get(h->o->shared, key, &mine);
  if (mine) {
    e->data = util_xcalloc(1, bytes), e->bytes = bytes;
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
  return text ? compile_shader_compile(text, strlen(text), s->kernel_file, s->lang, s->kernel_name, defs, ndefs, spv, words)
              : compile_shader_load_file(s->kernel_file, s->lang, s->kernel_name, defs, ndefs, spv, words);
}

static vkocc_status compile_spv(harness *h, const char *text, const char *defs_key, const char *const *defs, uint32_t ndefs,
                                uint32_t **spv, size_t *words, bool *compiled) {
  *compiled = true;
  if (!h->o->shared) return compile_text_or_file(h->s, text, defs, ndefs, spv, words);
  size_t kl = strlen(defs_key) + 8;
  char *key = util_xmalloc(kl);
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
  *spv = memcpy(util_xmalloc(e->bytes + 4), e->data, e->bytes);
  return VKOCC_OK;
}

/* comments blanked (kept line structure), so a name in a comment does not count as used */
void tu_strip_comments(char *t) {
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

bool tu_word_in(const char *text, const char *w) {
  size_t n = strlen(text);
  return util_word_in(text, n, 0, n, w, strlen(w));
}

/* The SpecId of a specialization constant declared in the source as "constant_id = N) const TYPE NAME"
 * (GLSL) or "constant_id(N)]] const TYPE NAME" (HLSL), -1 when name is not one. Read from the text because
 * the run-time compiler's optimizer drops the names from the module. */
int32_t tu_declared_spec(const char *text, const char *name) {
  for (const char *p = text; (p = strstr(p, "constant_id")); p += 11) {
    const char *q = p + 11;
    while (*q == ' ' || *q == '\t' || *q == '=' || *q == '(') q++;
    if (!isdigit((unsigned char)*q)) continue;
    long id = strtol(q, NULL, 10);
    const char *c = strstr(q, "const");
    if (!c || c - q > 80 || util_ident_char(c[5])) continue;
    q = c + 5;
    while (isspace((unsigned char)*q)) q++;
    while (util_ident_char(*q)) q++; /* the type */
    while (isspace((unsigned char)*q)) q++;
    size_t l = strlen(name);
    if (!strncmp(q, name, l) && !util_ident_char(q[l]) && id >= 0 && id < INT32_MAX) return (int32_t)id;
  }
  return -1;
}

config *tu_config_of(harness *h, uint32_t c) {
  if (!h->cfg) h->cfg = util_xcalloc(h->run->space.count + 1, sizeof *h->cfg);
  if (h->cfg[c]) return h->cfg[c];
  config *x = h->cfg[c] = util_xcalloc(1, sizeof *x);
  x->index = c;
  x->coord = h->run->space.coord + (size_t)c * h->s->nparams;
  x->module = -1;
  char key[1024];
  t1_config_key(h->s, x->coord, key, sizeof key);
  x->key = util_xstrdup(key);
  return x;
}

void tu_config_free(config *x) {
  if (!x) return;
  for (uint32_t i = 0; i < x->ndefs; i++) free(x->defs[i]);
  free(x->defs), free(x->defs_key), free(x->key), free(x);
}

static char *define_text(const char *name, const char *value) {
  size_t len = strlen(name) + strlen(value) + 2;
  char *b = util_xmalloc(len);
  snprintf(b, len, "%s=%s", name, value);
  return b;
}

/* the spec's -D defines, then LOCAL_SIZE_* and the parameters that are neither constants nor launch sizes */
static void defines_of(harness *h, config *x) {
  t1_spec *s = h->s;
  char **defs = x->defs = util_xcalloc(s->ndefines + s->nparams + 3, sizeof *x->defs);
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->ndefines; i++) defs[n++] = util_xstrdup(s->defines[i]);
  /* KTT's convention, only where the source uses them, so a kernel sized by local_size_*_id keeps one compile */
  static const char *const ln[] = {"LOCAL_SIZE_X", "LOCAL_SIZE_Y", "LOCAL_SIZE_Z"};
  for (int d = 0; d < 3 && s->lang != VKOCC_SHADER_SPIRV; d++)
    if (h->source && tu_word_in(h->source, ln[d])) {
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
  x->defs_key = util_xmalloc(kl);
  x->defs_key[0] = 0;
  for (uint32_t i = 0; i < n; i++) strcat(strcat(x->defs_key, defs[i]), ";");
  x->ndefs = n;
}

/* The module of x's define set, found by its key, compiled on first use, by the first thread that needs it and
 * outside the table's lock (the pool compiles several at once; a thread that needs a module being compiled waits
 * for it); *compile_ms the time when compiled now. */
module *tu_get_module(harness *h, config *x, double *compile_ms) {
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
    h->mods = util_xrealloc(h->mods, h->capmods * sizeof *h->mods); /* pointers: a module never moves */
  }
  x->module = (int32_t)h->nmods;
  json_object_set_new(h->mod_index, x->defs_key, json_integer(h->nmods));
  module *m = h->mods[h->nmods++] = util_xcalloc(1, sizeof *m);
  pthread_mutex_unlock(&b->modules);
  double t0 = vkocc_now_ms();
  const char *text = h->s->kernel_text; /* a built-in spec's source is in the library */
  bool compiled;
  vkocc_status st = compile_spv(h, text, x->defs_key, (const char *const *)x->defs, x->ndefs, &m->spv, &m->words, &compiled);
  if (!st) st = compile_reflect(m->spv, m->words, h->s->kernel_name, &m->refl);
  if (st) {
    m->failed = true;
    snprintf(m->error, sizeof m->error, "%s", vkocc_last_error());
    for (char *c = m->error; *c; c++)
      if (*c == '\n') *c = ' ';
  } else tu_spv_walk(m->spv, m->words, &m->consts);
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
vkocc_status tu_check_interface(harness *h, module *m) {
  t1_spec *s = h->s;
  uint64_t w = core_spirv_written_bindings(m->spv, m->words, 0);
  /* the first module checked sets the arguments' bindings and offsets, which the measuring thread then reads without
   * this lock; a later module (on a pool thread) must agree with them, not write them again */
  const bool first = h->nchecked++ == 0;
  h->written = first ? w : h->written | w;
  const compile_reflection *rf = &m->refl;
  uint32_t nvec = 0, nb = 0;
  uint32_t binds[64];
  for (uint32_t i = 0; i < rf->nbindings; i++) {
    const compile_reflect_binding *b = &rf->bindings[i];
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

bool tu_specs_of(harness *h, module *m, const uint32_t *coord, const uint32_t local[3], specs *sp, char *err, size_t len) {
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
