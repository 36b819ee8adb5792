/* The space of a T1 spec (tune/spec/t1.h): a configuration's environment, key and JSON, its workgroup size and
 * count, the enumeration under the conditions that do not name P, and the check of those that do. */
#include "t1_internal.h"

void t1_env(const t1_spec *s, const uint32_t *coord, texpr_value *slots, int64_t P, texpr_env *env) {
  for (uint32_t i = 0; i < s->nparams; i++) slots[i] = s->params[i].values[coord[i]];
  *env = (texpr_env){.vars = slots, .problem_size = s->problem, .nproblem = s->nproblem, .has_P = P >= 0, .P = P,
                     .device = s->has_device ? s->device : NULL};
}

void t1_config_key(const t1_spec *s, const uint32_t *coord, char *out, size_t len) {
  json_t *o = t1_config_json(s, coord);
  char *t = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
  snprintf(out, len, "%s", t ? t : "");
  free(t);
  json_decref(o);
}

json_t *t1_config_json(const t1_spec *s, const uint32_t *coord) {
  json_t *o = json_object();
  for (uint32_t i = 0; i < s->nparams; i++) {
    const texpr_value *v = &s->params[i].values[coord[i]];
    json_t *j = s->params[i].type == T1_BOOL ? json_boolean(v->i)
                : v->kind == TEXPR_INT ? json_integer(v->i) : v->kind == TEXPR_FLOAT ? json_real(v->f) : json_string(v->s);
    json_object_set_new(o, s->params[i].name, j);
  }
  return o;
}

static void config_text(const t1_spec *s, const uint32_t *coord, char *out, size_t len) {
  out[0] = 0;
  for (uint32_t i = 0; i < s->nparams; i++) {
    char v[64];
    texpr_format(&s->params[i].values[coord[i]], v, sizeof v);
    snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", i ? ", " : "", s->params[i].name, v);
  }
}

static vkocc_status cond_fail(const t1_spec *s, const t1_cond *c, const uint32_t *coord, const char *err) {
  char cfg[512];
  config_text(s, coord, cfg, sizeof cfg);
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: '%.200s': %s (at %s)", s->file, c->path, c->text, err, cfg);
}

vkocc_status t1_sizes(const t1_spec *s, const uint32_t *coord, int64_t P, uint32_t local[3], uint32_t groups[3]) {
  texpr_value slots[32];
  texpr_env env;
  t1_env(s, coord, slots, P, &env);
  for (int d = 0; d < 3; d++) {
    int64_t l, g;
    char err[512];
    static const char xyz[] = "XYZ";
    bool ok = texpr_eval_int(s->local[d], &env, &l, err, sizeof err);
    if (!ok || l < 1 || l > 65536) {
      char cfg[512];
      config_text(s, coord, cfg, sizeof cfg);
      if (ok) snprintf(err, sizeof err, "%lld is not a workgroup size (1 to 65536)", (long long)l);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.LocalSize.%c: '%s': %s (at %s)", s->file, xyz[d],
                        s->local_text[d], err, cfg);
    }
    ok = texpr_eval_int(s->global[d], &env, &g, err, sizeof err);
    if (!ok || g < 1 || g > (1ll << 40)) {
      char cfg[512];
      config_text(s, coord, cfg, sizeof cfg);
      if (ok) snprintf(err, sizeof err, "%lld is out of range (1 to 2^40)", (long long)g);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.GlobalSize.%c: '%s': %s (at %s)", s->file, xyz[d],
                        s->global_text[d], err, cfg);
    }
    if (s->global_is_invocations) g = (g + l - 1) / l; /* OpenCL: invocations, rounded up to whole workgroups */
    if (g > UINT32_MAX) {
      char cfg[512];
      config_text(s, coord, cfg, sizeof cfg);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.GlobalSize.%c: %lld workgroups overflow 32 bits (at %s)",
                        s->file, xyz[d], (long long)g, cfg);
    }
    local[d] = (uint32_t)l, groups[d] = (uint32_t)g;
  }
  return VKOCC_OK;
}

vkocc_status t1_enumerate(const t1_spec *s, t1_space *out) {
  memset(out, 0, sizeof *out);
  uint64_t total = 1;
  for (uint32_t i = 0; i < s->nparams; i++) {
    if (__builtin_mul_overflow(total, (uint64_t)s->params[i].nvalues, &total) || total > T1_MAX_SPACE)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.TuningParameters: the space has more than %llu "
                        "configurations", s->file, (unsigned long long)T1_MAX_SPACE);
  }
  out->total = total;
  out->by_cond = util_xcalloc(s->nconds + 1, sizeof *out->by_cond);
  uint32_t cap = 0;
  uint32_t coord[32] = {0};
  texpr_value slots[32];
  texpr_env env;
  for (uint64_t n = 0; n < total; n++) {
    t1_env(s, coord, slots, -1, &env);
    bool keep = true;
    for (uint32_t c = 0; c < s->nconds && keep; c++) {
      if (s->conds[c].uses_P || (s->conds[c].uses_device && !s->has_device)) continue;
      texpr_value v;
      char err[512];
      if (!texpr_eval(s->conds[c].e, &env, &v, err, sizeof err)) {
        vkocc_status st = cond_fail(s, &s->conds[c], coord, err);
        t1_space_free(out);
        return st;
      }
      keep = texpr_truthy(&v);
      if (!keep) out->by_cond[c]++;
    }
    if (keep) {
      /* the sizes of every kept configuration must evaluate (P-dependent ones are checked once P is known) */
      bool sizes_P = false;
      for (int d = 0; d < 3; d++)
        sizes_P |= (texpr_uses(s->global[d], NULL) & TEXPR_USES_P) ||
                   (!s->has_device && (texpr_uses(s->global[d], NULL) | texpr_uses(s->local[d], NULL)) & TEXPR_USES_DEVICE);
      uint32_t l[3], g[3];
      vkocc_status st = sizes_P ? VKOCC_OK : t1_sizes(s, coord, -1, l, g);
      if (st) { t1_space_free(out); return st; }
      if (out->count == T1_MAX_KEPT) {
        t1_space_free(out);
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace: more than %u configurations satisfy the conditions",
                          s->file, T1_MAX_KEPT);
      }
      if (out->count == cap) {
        cap = cap ? 2 * cap : 256;
        out->coord = util_xrealloc(out->coord, (size_t)cap * s->nparams * sizeof *out->coord);
      }
      memcpy(out->coord + (size_t)out->count * s->nparams, coord, s->nparams * sizeof *coord);
      out->count++;
    } else out->constrained++;
    for (int32_t i = (int32_t)s->nparams - 1; i >= 0; i--) {
      if (++coord[i] < s->params[i].nvalues) break;
      coord[i] = 0;
    }
  }
  if (!out->count) {
    t1_space_free(out);
    out->none = true;
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.ConfigurationSpace.Conditions: no configuration of %llu satisfies the "
                      "conditions", s->file, (unsigned long long)total);
  }
  return VKOCC_OK;
}

void t1_space_free(t1_space *sp) {
  free(sp->coord);
  free(sp->by_cond);
  memset(sp, 0, sizeof *sp);
}

vkocc_status t1_check_P(const t1_spec *s, const uint32_t *coord, int64_t P, bool *ok, char *why, size_t len) {
  texpr_value slots[32];
  texpr_env env;
  t1_env(s, coord, slots, P, &env);
  *ok = true;
  for (uint32_t c = 0; c < s->nconds; c++) {
    if (!s->conds[c].uses_P) continue;
    texpr_value v;
    char err[512];
    if (!texpr_eval(s->conds[c].e, &env, &v, err, sizeof err)) return cond_fail(s, &s->conds[c], coord, err);
    if (!texpr_truthy(&v)) {
      *ok = false;
      snprintf(why, len, "%s: '%s' is false with P = %lld", s->conds[c].path, s->conds[c].text, (long long)P);
      return VKOCC_OK;
    }
  }
  return VKOCC_OK;
}
