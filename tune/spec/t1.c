/* T1 reader for Vulkan kernels and the space enumeration (docs/tune.md, "T1 subset"). Strict: a member
 * outside the subset, a wrong type or a bad expression is an error naming the file and the JSON path. */
#include "t1_internal.h"
#include "compile.h"
#include <ctype.h>
#include <float.h>
#include <stdarg.h>
#include <unistd.h>

vkocc_status t1_bad(rd *r, const char *path, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: %s", r->file, path, msg);
}

/* every member of o must be one of keys (NULL-terminated) */
static vkocc_status only_keys(rd *r, json_t *o, const char *path, const char *const *keys) {
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    bool known = false;
    for (const char *const *q = keys; *q && !known; q++) known = !strcmp(*q, k);
    if (!known) {
      char list[512] = "";
      for (const char *const *q = keys; *q; q++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", q == keys ? "" : ", ", *q);
      return t1_bad(r, path, "member '%s' is not part of the T1 subset vkocc reads (%s; docs/tune.md)", k, list);
    }
  }
  return VKOCC_OK;
}

static vkocc_status get_obj(rd *r, json_t *o, const char *key, const char *path, bool req, json_t **out) {
  *out = json_object_get(o, key);
  if (!*out) return req ? t1_bad(r, path, "missing required member '%s'", key) : VKOCC_OK;
  if (!json_is_object(*out)) return t1_bad(r, path, "'%s' must be an object", key);
  return VKOCC_OK;
}
static vkocc_status get_arr(rd *r, json_t *o, const char *key, const char *path, bool req, json_t **out) {
  *out = json_object_get(o, key);
  if (!*out) return req ? t1_bad(r, path, "missing required member '%s'", key) : VKOCC_OK;
  if (!json_is_array(*out)) return t1_bad(r, path, "'%s' must be an array", key);
  return VKOCC_OK;
}
static vkocc_status get_str(rd *r, json_t *o, const char *key, const char *path, bool req, const char **out) {
  json_t *v = json_object_get(o, key);
  *out = NULL;
  if (!v) return req ? t1_bad(r, path, "missing required member '%s'", key) : VKOCC_OK;
  if (!json_is_string(v)) return t1_bad(r, path, "'%s' must be a string", key);
  *out = json_string_value(v);
  return VKOCC_OK;
}
static vkocc_status get_num(rd *r, json_t *o, const char *key, const char *path, bool req, double *out, bool *have) {
  json_t *v = json_object_get(o, key);
  if (have) *have = v != NULL;
  if (!v) return req ? t1_bad(r, path, "missing required member '%s'", key) : VKOCC_OK;
  if (!json_is_number(v)) return t1_bad(r, path, "'%s' must be a number", key);
  *out = json_number_value(v);
  return VKOCC_OK;
}
static int pick(const char *v, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (!strcmp(v, names[i])) return i;
  return -1;
}
static void list_names(const char *const *names, char *out, size_t len) {
  out[0] = 0;
  for (int i = 0; names[i]; i++) snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? ", " : "", names[i]);
}
static vkocc_status get_enum(rd *r, json_t *o, const char *key, const char *path, bool req, const char *const *names,
                             int def, int *out) {
  const char *v;
  vkocc_status s = get_str(r, o, key, path, req, &v);
  if (s) return s;
  if (!v) { *out = def; return VKOCC_OK; }
  if ((*out = pick(v, names)) < 0) {
    char l[512];
    list_names(names, l, sizeof l);
    return t1_bad(r, path, "%s '%s' is not supported (expected one of: %s)", key, v, l);
  }
  return VKOCC_OK;
}

static texpr_scope scope_of(const t1_spec *s, bool P) {
  return (texpr_scope){.vars = s->vars, .nvars = s->nparams, .allow_P = P, .allow_problem_size = true, .allow_device = true};
}

static vkocc_status parse_expr(rd *r, const char *path, const char *text, const texpr_scope *sc, texpr **out) {
  char err[512];
  if (!texpr_parse(text, sc, out, err, sizeof err)) return t1_bad(r, path, "'%.200s': %s", text, err);
  return VKOCC_OK;
}

static const char *const ptype_names[] = {"int", "uint", "float", "bool", "string", NULL};

/* the values of one parameter are of one kind (strings, integers, or numbers made floats) */
static int cmp_value(const void *x, const void *y) {
  const texpr_value *a = *(const texpr_value *const *)x, *b = *(const texpr_value *const *)y;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  if (a->kind == TEXPR_STR) return strcmp(a->s ? a->s : "", b->s ? b->s : "");
  if (a->kind == TEXPR_INT) return (a->i > b->i) - (a->i < b->i);
  return (a->f > b->f) - (a->f < b->f);
}

static vkocc_status read_param(rd *r, json_t *p, uint32_t i, t1_param *out) {
  char path[96];
  snprintf(path, sizeof path, "$.ConfigurationSpace.TuningParameters[%u]", i);
  if (!json_is_object(p)) return t1_bad(r, path, "expected an object");
  static const char *const keys[] = {"Name", "Type", "Values", "Default", NULL};
  vkocc_status s;
  const char *name, *values;
  int type;
  if ((s = only_keys(r, p, path, keys)) || (s = get_str(r, p, "Name", path, true, &name)) ||
      (s = get_enum(r, p, "Type", path, true, ptype_names, 0, &type)))
    return s;
  json_t *vj = json_object_get(p, "Values");
  if (!vj) return t1_bad(r, path, "missing required member 'Values'");
  if (!json_is_string(vj)) return t1_bad(r, path, "'Values' must be a string holding a list (\"[1, 2, 4]\")");
  values = json_string_value(vj);
  bool ok = name[0] && (isalpha((unsigned char)name[0]) || name[0] == '_');
  for (const char *c = name; *c && ok; c++) ok = util_ident_char(*c);
  if (!ok || strlen(name) > 63) return t1_bad(r, path, "Name '%.80s': expected an identifier of at most 63 characters", name);
  if (!strcmp(name, "P") || !strcmp(name, "ProblemSize") || !strcmp(name, "min") || !strcmp(name, "max") ||
      !strcmp(name, "True") || !strcmp(name, "False") || !strcmp(name, "and") || !strcmp(name, "or") ||
      !strcmp(name, "not") || !strcmp(name, "for") || !strcmp(name, "in") || !strcmp(name, "range"))
    return t1_bad(r, path, "Name '%s' is reserved in expressions", name);
  for (uint32_t j = 0; j < i; j++)
    if (!strcmp(r->s->params[j].name, name)) return t1_bad(r, path, "Name '%s' appears twice", name);
  out->name = util_xstrdup(name), out->type = (t1_ptype)type, out->def = -1;
  char vpath[120], err[512];
  snprintf(vpath, sizeof vpath, "%s.Values", path);
  texpr_scope sc = {.allow_problem_size = true};
  texpr_env env = {.problem_size = r->s->problem, .nproblem = r->s->nproblem};
  if (!texpr_parse_list(values, &sc, &env, &out->values, &out->nvalues, err, sizeof err))
    return t1_bad(r, vpath, "'%.200s': %s", values, err);
  for (uint32_t k = 0; k < out->nvalues; k++) {
    texpr_value *v = &out->values[k];
    bool fits = type == T1_STRING ? v->kind == TEXPR_STR
                : type == T1_FLOAT ? v->kind != TEXPR_STR
                : type == T1_BOOL ? v->kind == TEXPR_INT && (v->i == 0 || v->i == 1)
                : type == T1_UINT ? v->kind == TEXPR_INT && v->i >= 0 && v->i <= UINT32_MAX
                : v->kind == TEXPR_INT && v->i >= INT32_MIN && v->i <= INT32_MAX;
    if (!fits) {
      char t[64];
      texpr_format(v, t, sizeof t);
      return t1_bad(r, vpath, "element %u (%s) is not a %s%s", k, t, ptype_names[type],
                 type == T1_INT || type == T1_UINT ? " of 32 bits" : "");
    }
    if (type == T1_FLOAT && v->kind == TEXPR_INT) v->kind = TEXPR_FLOAT, v->f = (double)v->i;
  }
  /* each value once: sorted, the duplicates are neighbours (a pairwise check was quadratic: 2^17 values took
   * 15 s, the documented 2^20 minutes) */
  if (out->nvalues > 1) {
    const texpr_value **sorted = util_xmalloc(out->nvalues * sizeof *sorted);
    for (uint32_t k = 0; k < out->nvalues; k++) sorted[k] = &out->values[k];
    qsort(sorted, out->nvalues, sizeof *sorted, cmp_value);
    for (uint32_t k = 1; k < out->nvalues; k++)
      if (texpr_equal(sorted[k - 1], sorted[k])) {
        char t[160];
        texpr_format(sorted[k], t, sizeof t);
        free(sorted);
        return t1_bad(r, vpath, "value %.120s appears twice", t);
      }
    free(sorted);
  }
  json_t *d = json_object_get(p, "Default");
  if (d) {
    texpr_value dv = {0};
    char buf[64];
    if (json_is_integer(d)) dv.kind = TEXPR_INT, dv.i = json_integer_value(d);
    else if (json_is_real(d)) dv.kind = TEXPR_FLOAT, dv.f = json_real_value(d);
    else if (json_is_boolean(d)) dv.kind = TEXPR_INT, dv.i = json_is_true(d);
    else if (json_is_string(d)) dv.kind = TEXPR_STR, dv.s = json_string_value(d);
    else return t1_bad(r, path, "'Default' must be a number, boolean or string");
    for (uint32_t k = 0; k < out->nvalues && out->def < 0; k++) {
      /* "16" for an int parameter: compare the text too (KTT writes defaults as strings) */
      texpr_format(&out->values[k], buf, sizeof buf);
      if (texpr_equal(&out->values[k], &dv) || (dv.kind == TEXPR_STR && !strcmp(buf, dv.s))) out->def = (int32_t)k;
    }
    if (out->def < 0) return t1_bad(r, path, "'Default' is not one of the Values");
  }
  return VKOCC_OK;
}

static const char *const etype_names[] = {"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                          "uint64", "float", "double", "custom", NULL};
const char *t1_etype_name(t1_etype t) { return etype_names[t]; }

/* "float4" -> T1E_F32, 4 */
static bool parse_type(const char *t, t1_etype *et, uint32_t *comps) {
  int e = pick(t, etype_names);
  if (e >= 0) { *et = (t1_etype)e, *comps = 1; return true; }
  static const char *const vec[] = {"float2", "float4", "float8", "float16", "double2", "double4", "double8", "double16", NULL};
  if ((e = pick(t, vec)) >= 0) {
    *et = e < 4 ? T1E_F32 : T1E_F64, *comps = 2u << (e % 4);
    return true;
  }
  return false;
}
static uint32_t etype_bytes(t1_etype t) {
  static const uint32_t b[] = {4, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1};
  return b[t];
}

static bool file_exists(const char *p) { return access(p, R_OK) == 0; }

/* Whether v is a value of element type t; why says the range when not (a uint32 FillValue of 2^40 was
 * stored as 0). */
static bool value_fits(double v, t1_etype t, char *why, size_t len) {
  static const double lo[] = {0, -128, 0, -32768, 0, -2147483648.0, 0, -9223372036854775808.0, 0, 0, 0, 0};
  static const double hi[] = {1, 127, 255, 32767, 65535, 2147483647.0, 4294967295.0, 9223372036854774784.0,
                              18446744073709549568.0, 0, 0, 255};
  if (t == T1E_F32 || t == T1E_F64) {
    double m = t == T1E_F32 ? FLT_MAX : DBL_MAX;
    if (isfinite(v) && fabs(v) <= m) return true;
    snprintf(why, len, "%g does not fit a %s (finite, at most %g in magnitude)", v, etype_names[t], m);
    return false;
  }
  if (isfinite(v) && v == floor(v) && v >= lo[t] && v <= hi[t]) return true;
  snprintf(why, len, "%.17g is not a %s (an integer from %.0f to %.0f)", v, etype_names[t], lo[t], hi[t]);
  return false;
}

/* false: the resolved path does not fit (never silently cut) */
static bool resolve(const t1_spec *s, const char *rel, char *out, size_t len) {
  int n = rel[0] == '/' || !s->dir[0] ? snprintf(out, len, "%s", rel) : snprintf(out, len, "%s/%s", s->dir, rel);
  return n >= 0 && (size_t)n < len;
}

static vkocc_status read_data(rd *r, json_t *o, const char *path, bool check_files, bool is_ref, t1_data *d) {
  vkocc_status s;
  int f;
  static const char *const fills[] = {"Constant", "Random", "BinaryRaw", "Generator", NULL};
  json_t *fj = json_object_get(o, "FillType"), *fv = json_object_get(o, "FillValue");
  /* a FillValue is a number whatever the FillType (Kernel Tuner's own T1 file gives Random ones a FillValue) */
  if (fv && !json_is_number(fv)) return t1_bad(r, path, "'FillValue' must be a number");
  if (!fj && fv) {
    /* the T1 schema requires no FillType: a FillValue alone is a constant (KTT's own examples write Scalars so) */
    double v = 0;
    if ((s = get_num(r, o, "FillValue", path, true, &v, NULL))) return s;
    d->fill = T1_FILL_CONSTANT, d->value = v;
    return VKOCC_OK;
  }
  if (!fj) {
    if (is_ref) return t1_bad(r, path, "missing required member 'FillType'");
    d->fill = T1_FILL_NONE; /* an output: poisoned before each validated run */
    return VKOCC_OK;
  }
  if (json_is_string(fj) && (!strcmp(json_string_value(fj), "Script") || !strcmp(json_string_value(fj), "BinaryHDF")))
    return t1_bad(r, path, "FillType '%s' is not supported (Constant, Random, BinaryRaw, Generator; docs/tune.md)",
               json_string_value(fj));
  if ((s = get_enum(r, o, "FillType", path, true, fills, 0, &f))) return s;
  d->fill = (t1_fill)(f + 1);
  const char *src;
  double v = 0, seed = 0;
  bool have;
  switch (d->fill) {
  case T1_FILL_CONSTANT:
    if ((s = get_num(r, o, "FillValue", path, false, &v, &have))) return s;
    d->value = have ? v : 0;
    break;
  case T1_FILL_RANDOM:
    if ((s = get_num(r, o, "RandomSeed", path, false, &seed, &have))) return s;
    if (have && !(seed >= 0 && seed <= 9007199254740992.0 && seed == floor(seed)))
      return t1_bad(r, path, "RandomSeed must be a non-negative integer");
    d->seed = have ? (uint64_t)seed : 0;
    break;
  case T1_FILL_BINARY: {
    if ((s = get_str(r, o, "DataSource", path, false, &src))) return s;
    if (!src || !src[0]) return t1_bad(r, path, "FillType BinaryRaw needs 'DataSource' (a file of raw little-endian values)");
    char full[1024];
    if (!resolve(r->s, src, full, sizeof full)) return t1_bad(r, path, "DataSource: the path is longer than %zu bytes", sizeof full - 1);
    if (check_files && !file_exists(full)) return t1_bad(r, path, "DataSource '%s': no such readable file (%s)", src, full);
    d->source = util_xstrdup(full);
    break;
  }
  case T1_FILL_GENERATOR: {
    if ((s = get_str(r, o, "DataSource", path, false, &src))) return s;
    if (!src || !src[0]) return t1_bad(r, path, "FillType Generator needs 'DataSource' (an expression of the element index i)");
    texpr_var iv = {.name = "i"};
    texpr_scope sc = {.vars = &iv, .nvars = 1, .allow_problem_size = true};
    char p2[96];
    snprintf(p2, sizeof p2, "%s.DataSource", path);
    if ((s = parse_expr(r, p2, src, &sc, &d->gen))) return s;
    d->source = util_xstrdup(src);
    break;
  }
  default: break;
  }
  return VKOCC_OK;
}

static vkocc_status read_arg(rd *r, json_t *a, uint32_t i, bool check_files, t1_arg *out) {
  snprintf(out->path, sizeof out->path, "$.KernelSpecification.Arguments[%u]", i);
  const char *path = out->path;
  if (!json_is_object(a)) return t1_bad(r, path, "expected an object");
  static const char *const keys[] = {"Name", "Type", "Size", "TypeSize", "FillType", "FillValue", "DataSource",
                                     "RandomSeed", "AccessType", "MemoryType", "Output", NULL};
  static const char *const mem[] = {"Scalar", "Vector", NULL}, *const acc[] = {"ReadOnly", "WriteOnly", "ReadWrite", NULL};
  vkocc_status s;
  const char *name, *type;
  int m, ac;
  json_t *mj = json_object_get(a, "MemoryType");
  if (json_is_string(mj) && (!strcmp(json_string_value(mj), "Local") || !strcmp(json_string_value(mj), "Symbol")))
    return t1_bad(r, path, "MemoryType '%s' is not supported (Vector: a storage buffer, Scalar: a push constant)",
               json_string_value(mj));
  if ((s = only_keys(r, a, path, keys)) || (s = get_str(r, a, "Name", path, false, &name)) ||
      (s = get_str(r, a, "Type", path, true, &type)) || (s = get_enum(r, a, "MemoryType", path, true, mem, 0, &m)) ||
      (s = get_enum(r, a, "AccessType", path, false, acc, 2, &ac)))
    return s;
  char nm[32];
  snprintf(nm, sizeof nm, "arg%u", i);
  out->name = util_xstrdup(name ? name : nm);
  out->vector = m == 1, out->access = (t1_access)ac, out->binding = -1;
  if (!parse_type(type, &out->type, &out->comps)) {
    if (strstr(type, "half")) return t1_bad(r, path, "Type '%s' is not supported (no 16-bit floats yet)", type);
    return t1_bad(r, path, "Type '%s' is not a T1 argument type", type);
  }
  out->comp_bytes = etype_bytes(out->type);
  double ts = 0;
  bool have;
  if ((s = get_num(r, a, "TypeSize", path, false, &ts, &have))) return s;
  if (have) {
    if (!(ts >= 1 && ts <= 4096 && ts == floor(ts))) return t1_bad(r, path, "TypeSize must be an integer from 1 to 4096");
    if (out->type == T1E_CUSTOM) out->comps = (uint32_t)ts, out->comp_bytes = 1;
    else if ((uint32_t)ts != out->comps * out->comp_bytes)
      return t1_bad(r, path, "TypeSize %u disagrees with Type '%s' (%u bytes)", (uint32_t)ts, type, out->comps * out->comp_bytes);
  } else if (out->type == T1E_CUSTOM) return t1_bad(r, path, "Type 'custom' needs 'TypeSize' (bytes per element)");
  json_t *o = json_object_get(a, "Output");
  if (o && !(json_is_boolean(o) || (json_is_integer(o) && (json_integer_value(o) == 0 || json_integer_value(o) == 1))))
    return t1_bad(r, path, "'Output' must be 0 or 1");
  out->output = o && (json_is_true(o) || (json_is_integer(o) && json_integer_value(o) != 0));
  if (out->output && !out->vector) return t1_bad(r, path, "'Output': a Scalar cannot be an output");
  /* Size: elements, a number or an expression of ProblemSize (and min/max of parameters) */
  json_t *sz = json_object_get(a, "Size");
  char spath[96];
  snprintf(spath, sizeof spath, "%s.Size", path);
  if (out->vector) {
    int64_t n;
    if (!sz) return t1_bad(r, path, "a Vector needs 'Size' (elements)");
    if (json_is_integer(sz)) n = json_integer_value(sz);
    else if (json_is_string(sz)) {
      texpr *e;
      texpr_scope sc = scope_of(r->s, false);
      if ((s = parse_expr(r, spath, json_string_value(sz), &sc, &e))) return s;
      texpr_env env = {.problem_size = r->s->problem, .nproblem = r->s->nproblem};
      char err[512];
      bool ok = texpr_eval_int(e, &env, &n, err, sizeof err);
      texpr_free(e);
      if (!ok) return t1_bad(r, spath, "'%.200s': %s", json_string_value(sz), err);
    } else return t1_bad(r, spath, "expected an integer or an expression string");
    uint64_t per = (uint64_t)out->comps * out->comp_bytes;
    if (n < 1 || (uint64_t)n > (1ull << 40) / per)
      return t1_bad(r, spath, "%lld elements of %llu bytes: expected 1 element to 1 TiB", (long long)n, (unsigned long long)per);
    out->count = (uint64_t)n, out->bytes = out->count * per;
  } else {
    if (sz && !(json_is_integer(sz) && json_integer_value(sz) == 1) && !(json_is_string(sz) && !strcmp(json_string_value(sz), "1")))
      return t1_bad(r, spath, "a Scalar has Size 1");
    out->count = 1, out->bytes = (uint64_t)out->comps * out->comp_bytes;
    if (out->type == T1E_CUSTOM || out->comps > 4) return t1_bad(r, path, "a Scalar must be a number or a short vector");
  }
  if ((s = read_data(r, a, path, check_files, false, &out->data))) return s;
  char why[160];
  if (out->data.fill == T1_FILL_CONSTANT && !value_fits(out->data.value, out->type, why, sizeof why))
    return t1_bad(r, path, "FillValue %s", why);
  if (!out->vector && out->data.fill != T1_FILL_CONSTANT && out->data.fill != T1_FILL_NONE)
    return t1_bad(r, path, "a Scalar takes FillType Constant (FillValue)");
  if (out->data.fill == T1_FILL_NONE && !(out->output || out->access == T1_WO))
    return t1_bad(r, path, "missing 'FillType' (only an output or a WriteOnly argument may go without)");
  if (out->type == T1E_CUSTOM && out->data.fill != T1_FILL_BINARY && out->data.fill != T1_FILL_NONE)
    return t1_bad(r, path, "Type 'custom' takes FillType BinaryRaw");
  return VKOCC_OK;
}

static vkocc_status read_ref(rd *r, json_t *a, uint32_t i, bool check_files, t1_ref *out) {
  snprintf(out->path, sizeof out->path, "$.KernelSpecification.ReferenceArguments[%u]", i);
  const char *path = out->path;
  if (!json_is_object(a)) return t1_bad(r, path, "expected an object");
  static const char *const keys[] = {"Name", "TargetName", "FillType", "FillValue", "DataSource", "RandomSeed",
                                     "ValidationMethod", "ValidationThreshold", NULL};
  static const char *const methods[] = {"AbsoluteDifference", "SideBySideComparison", "SideBySideRelativeComparison", NULL};
  vkocc_status s;
  const char *name, *target;
  int m;
  double th = 0;
  bool have;
  if ((s = only_keys(r, a, path, keys)) || (s = get_str(r, a, "Name", path, true, &name)) ||
      (s = get_str(r, a, "TargetName", path, true, &target)) ||
      (s = get_enum(r, a, "ValidationMethod", path, false, methods, T1_SIDE_BY_SIDE, &m)) ||
      (s = get_num(r, a, "ValidationThreshold", path, false, &th, &have)))
    return s;
  out->name = util_xstrdup(name), out->method = (t1_validation)m;
  uint32_t t = 0;
  while (t < r->s->nargs && strcmp(r->s->args[t].name, target)) t++;
  if (t == r->s->nargs) return t1_bad(r, path, "TargetName '%s' names no argument", target);
  out->target = t;
  t1_arg *ta = &r->s->args[t];
  if (!ta->vector) return t1_bad(r, path, "TargetName '%s' is a Scalar; only a Vector can be validated", target);
  if (have && !(th >= 0 && isfinite(th))) return t1_bad(r, path, "ValidationThreshold must be a non-negative number");
  bool is_float = ta->type == T1E_F32 || ta->type == T1E_F64;
  out->threshold = have ? th : is_float ? 1e-4 : 0;
  if ((s = read_data(r, a, path, check_files, true, &out->data))) return s;
  if (out->data.fill == T1_FILL_RANDOM) return t1_bad(r, path, "FillType Random cannot be a reference");
  char why[160];
  if (out->data.fill == T1_FILL_CONSTANT && !value_fits(out->data.value, ta->type, why, sizeof why))
    return t1_bad(r, path, "FillValue %s (the type of '%s')", why, target);
  if (out->data.fill == T1_FILL_BINARY && check_files) {
    FILE *f = fopen(out->data.source, "rb");
    long len = -1;
    if (f && !fseek(f, 0, SEEK_END)) len = ftell(f);
    if (f) fclose(f);
    if (len < 0 || (uint64_t)len != ta->bytes)
      return t1_bad(r, path, "DataSource %s holds %ld bytes, but its target '%s' has %llu (%llu elements of %u bytes)",
                 out->data.source, len, target, (unsigned long long)ta->bytes, (unsigned long long)ta->count,
                 ta->comps * ta->comp_bytes);
  }
  return VKOCC_OK;
}

static vkocc_status read_sizes(rd *r, json_t *ks, const char *key, texpr **e, char text[3][256]) {
  char path[80];
  snprintf(path, sizeof path, "$.KernelSpecification.%s", key);
  json_t *o;
  vkocc_status s = get_obj(r, ks, key, "$.KernelSpecification", true, &o);
  if (s) return s;
  static const char *const keys[] = {"X", "Y", "Z", NULL};
  if ((s = only_keys(r, o, path, keys))) return s;
  for (int d = 0; d < 3; d++) {
    const char *t;
    json_t *v = json_object_get(o, keys[d]);
    char p[96], num[32];
    snprintf(p, sizeof p, "%s.%s", path, keys[d]);
    if (!v) {
      if (!d) return t1_bad(r, path, "missing required member 'X'");
      t = "1";
    } else if (json_is_string(v)) t = json_string_value(v);
    else if (json_is_integer(v)) { snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v)); t = num; }
    else return t1_bad(r, p, "expected an integer or an expression string");
    if (strlen(t) >= 256) return t1_bad(r, p, "longer than 255 characters");
    snprintf(text[d], 256, "%s", t);
    texpr_scope sc = scope_of(r->s, true);
    if ((s = parse_expr(r, p, t, &sc, &e[d]))) return s;
    if (texpr_uses(e[d], NULL) & TEXPR_USES_P) r->s->uses_P = true;
    if (texpr_uses(e[d], NULL) & TEXPR_USES_DEVICE) r->s->uses_device = true;
  }
  return VKOCC_OK;
}

/* $.KernelSpecification's scalar parts: the language, the kernel's name and file, the global size's type, the
 * problem size (Values and sizes need it) and the compiler options */
static vkocc_status read_kernel(rd *r, json_t *ks, bool check_files) {
  t1_spec *S = r->s;
  vkocc_status s;
  static const char *const kkeys[] = {"Language", "CompilerOptions", "Profiling", "KernelName", "KernelFile",
                                      "GlobalSizeType", "GlobalSize", "LocalSize", "Arguments", "ReferenceArguments",
                                      "ProblemSize", "Device", "SharedMemory", "SimulationInput", NULL};
  if ((s = only_keys(r, ks, "$.KernelSpecification", kkeys))) return s;
  const char *lang, *kname, *kfile;
  if ((s = get_str(r, ks, "Language", "$.KernelSpecification", true, &lang))) return s;
  if (strcmp(lang, "Vulkan"))
    return t1_bad(r, "$.KernelSpecification.Language", "'%s': vkocc tunes Vulkan kernels (\"Language\": \"Vulkan\")", lang);
  if (json_object_get(ks, "SharedMemory"))
    return t1_bad(r, "$.KernelSpecification.SharedMemory", "not supported: a Vulkan kernel declares its shared memory itself");
  if (json_object_get(ks, "SimulationInput"))
    return t1_bad(r, "$.KernelSpecification.SimulationInput", "not supported (replay a results file instead)");
  if (json_object_get(ks, "Profiling") && !json_is_boolean(json_object_get(ks, "Profiling")))
    return t1_bad(r, "$.KernelSpecification.Profiling", "expected a boolean");
  if ((s = get_str(r, ks, "KernelName", "$.KernelSpecification", true, &kname)) ||
      (s = get_str(r, ks, "KernelFile", "$.KernelSpecification", true, &kfile)))
    return s;
  if (!kfile[0]) return t1_bad(r, "$.KernelSpecification.KernelFile", "empty");
  if (!kname[0]) return t1_bad(r, "$.KernelSpecification.KernelName", "empty (the kernel's entry point, \"main\" for GLSL)");
  if (strlen(kname) >= sizeof S->kernel_name)
    return t1_bad(r, "$.KernelSpecification.KernelName", "longer than %zu characters", sizeof S->kernel_name - 1);
  snprintf(S->kernel_name, sizeof S->kernel_name, "%s", kname);
  if (!resolve(S, kfile, S->kernel_file, sizeof S->kernel_file))
    return t1_bad(r, "$.KernelSpecification.KernelFile", "the path is longer than %zu bytes", sizeof S->kernel_file - 1);
  if (check_files && !file_exists(S->kernel_file))
    return t1_bad(r, "$.KernelSpecification.KernelFile", "'%s': no such readable file (%s)", kfile, S->kernel_file);
  S->lang = compile_shader_lang_of(S->kernel_file);
  if (S->lang == VKOCC_SHADER_AUTO)
    return t1_bad(r, "$.KernelSpecification.KernelFile", "'%s': expected a .comp/.glsl (GLSL), .hlsl or .spv file", kfile);
  static const char *const gst[] = {"Vulkan", "CUDA", "OpenCL", NULL};
  int g;
  if ((s = get_enum(r, ks, "GlobalSizeType", "$.KernelSpecification", false, gst, 0, &g))) return s;
  S->global_is_invocations = g == 2;
  json_t *ps = json_object_get(ks, "ProblemSize");
  if (ps) {
    if (!json_is_array(ps) || json_array_size(ps) < 1 || json_array_size(ps) > 3)
      return t1_bad(r, "$.KernelSpecification.ProblemSize", "expected an array of 1 to 3 integers");
    for (size_t i = 0; i < json_array_size(ps); i++) {
      json_t *v = json_array_get(ps, i);
      char p[80];
      snprintf(p, sizeof p, "$.KernelSpecification.ProblemSize[%zu]", i);
      int64_t n = 0;
      if (json_is_integer(v)) n = json_integer_value(v);
      else if (json_is_string(v)) {
        texpr *e;
        texpr_scope sc = {0};
        char err[256];
        if ((s = parse_expr(r, p, json_string_value(v), &sc, &e))) return s;
        bool ok = texpr_eval_int(e, NULL, &n, err, sizeof err);
        texpr_free(e);
        if (!ok) return t1_bad(r, p, "%s", err);
      } else return t1_bad(r, p, "expected an integer");
      if (n < 1 || n > (1ll << 40)) return t1_bad(r, p, "%lld: expected 1 to 2^40", (long long)n);
      S->problem[i] = n;
    }
    S->nproblem = (uint32_t)json_array_size(ps);
  }
  json_t *co;
  if ((s = get_arr(r, ks, "CompilerOptions", "$.KernelSpecification", false, &co))) return s;
  for (size_t i = 0; co && i < json_array_size(co); i++) {
    json_t *v = json_array_get(co, i);
    char p[80];
    snprintf(p, sizeof p, "$.KernelSpecification.CompilerOptions[%zu]", i);
    if (!json_is_string(v)) return t1_bad(r, p, "expected a string");
    const char *o = json_string_value(v);
    if (!strncmp(o, "-D", 2) && o[2] && o[2] != '=') {
      S->defines = util_xrealloc(S->defines, (S->ndefines + 1) * sizeof *S->defines);
      S->defines[S->ndefines++] = util_xstrdup(o + 2);
    } else if (!strcmp(o, "-O") || !strcmp(o, "-O0") || !strcmp(o, "-Os") || !strcmp(o, "-g")) {
      /* accepted: the run-time compiler's own optimization setting is used (docs/tune.md) */
    } else return t1_bad(r, p, "'%s': only -DNAME[=VALUE], -O, -O0, -Os and -g are supported", o);
  }
  return VKOCC_OK;
}

/* $.ConfigurationSpace's parameters, as expression variables with the range of their values */
static vkocc_status read_params(rd *r, json_t *tp) {
  t1_spec *S = r->s;
  vkocc_status s;
  if (json_array_size(tp) == 0) return t1_bad(r, "$.ConfigurationSpace.TuningParameters", "no parameters");
  if (json_array_size(tp) > 32) return t1_bad(r, "$.ConfigurationSpace.TuningParameters", "more than 32 parameters");
  S->params = util_xcalloc(json_array_size(tp), sizeof *S->params);
  for (size_t i = 0; i < json_array_size(tp); i++) {
    S->nparams++; /* counted first: t1_free frees what a failed read allocated */
    if ((s = read_param(r, json_array_get(tp, i), (uint32_t)i, &S->params[i]))) return s;
  }
  S->vars = util_xcalloc(S->nparams, sizeof *S->vars);
  for (uint32_t i = 0; i < S->nparams; i++) {
    t1_param *p = &S->params[i];
    texpr_var *v = &S->vars[i];
    v->name = p->name, v->has_range = true, v->min = v->max = p->values[0];
    for (uint32_t k = 1; k < p->nvalues; k++) {
      texpr_value *x = &p->values[k];
      if (x->kind == TEXPR_STR) continue;
      double a = x->kind == TEXPR_INT ? (double)x->i : x->f;
      double lo = v->min.kind == TEXPR_INT ? (double)v->min.i : v->min.f, hi = v->max.kind == TEXPR_INT ? (double)v->max.i : v->max.f;
      if (v->min.kind == TEXPR_STR) continue;
      if (a < lo) v->min = *x;
      if (a > hi) v->max = *x;
    }
    if (v->min.kind == TEXPR_STR) v->has_range = false;
  }
  return VKOCC_OK;
}

/* $.ConfigurationSpace.Conditions, parsed against the parameters (and P, and the device's limits) */
static vkocc_status read_conds(rd *r, json_t *conds) {
  t1_spec *S = r->s;
  vkocc_status s;
  if (conds && json_array_size(conds) > 256) return t1_bad(r, "$.ConfigurationSpace.Conditions", "more than 256 conditions");
  S->conds = util_xcalloc(json_array_size(conds) + 1, sizeof *S->conds);
  for (size_t i = 0; conds && i < json_array_size(conds); i++) {
    json_t *c = json_array_get(conds, i);
    t1_cond *C = &S->conds[S->nconds];
    char path[64];
    snprintf(path, sizeof path, "$.ConfigurationSpace.Conditions[%zu]", i);
    static const char *const ck[] = {"Parameters", "Expression", NULL};
    if (!json_is_object(c)) return t1_bad(r, path, "expected an object");
    const char *ex;
    json_t *pl;
    if ((s = only_keys(r, c, path, ck)) || (s = get_str(r, c, "Expression", path, true, &ex)) ||
        (s = get_arr(r, c, "Parameters", path, false, &pl)))
      return s;
    for (size_t k = 0; pl && k < json_array_size(pl); k++) {
      json_t *n = json_array_get(pl, k);
      char pp[128];
      snprintf(pp, sizeof pp, "%s.Parameters[%zu]", path, k);
      if (!json_is_string(n)) return t1_bad(r, pp, "expected a parameter name");
      uint32_t j = 0;
      while (j < S->nparams && strcmp(S->params[j].name, json_string_value(n))) j++;
      if (j == S->nparams && strcmp(json_string_value(n), "P"))
        return t1_bad(r, pp, "'%s' is not a tuning parameter", json_string_value(n));
    }
    snprintf(C->path, sizeof C->path, "%s.Expression", path);
    texpr_scope sc = scope_of(S, true);
    if ((s = parse_expr(r, C->path, ex, &sc, &C->e))) return s;
    C->text = util_xstrdup(ex);
    C->uses_P = texpr_uses(C->e, NULL) & TEXPR_USES_P;
    C->uses_device = texpr_uses(C->e, NULL) & TEXPR_USES_DEVICE;
    S->uses_device |= C->uses_device;
    S->uses_P |= C->uses_P;
    S->nconds++;
  }
  return VKOCC_OK;
}

/* the workgroup size and count, the arguments and the references */
static vkocc_status read_launch(rd *r, json_t *ks, bool check_files) {
  t1_spec *S = r->s;
  vkocc_status s;
  if ((s = read_sizes(r, ks, "LocalSize", S->local, S->local_text)) ||
      (s = read_sizes(r, ks, "GlobalSize", S->global, S->global_text)))
    return s;
  for (int d = 0; d < 3; d++)
    if (texpr_uses(S->local[d], NULL) & TEXPR_USES_P)
      return t1_bad(r, "$.KernelSpecification.LocalSize", "a workgroup size cannot depend on P (P depends on it)");
  /* arguments and references */
  json_t *args, *refs;
  if ((s = get_arr(r, ks, "Arguments", "$.KernelSpecification", false, &args)) ||
      (s = get_arr(r, ks, "ReferenceArguments", "$.KernelSpecification", false, &refs)))
    return s;
  if (args && json_array_size(args) > 64) return t1_bad(r, "$.KernelSpecification.Arguments", "more than 64 arguments");
  S->args = util_xcalloc(json_array_size(args) + 1, sizeof *S->args);
  for (size_t i = 0; args && i < json_array_size(args); i++) {
    S->nargs++;
    if ((s = read_arg(r, json_array_get(args, i), (uint32_t)i, check_files, &S->args[i]))) return s;
    for (uint32_t j = 0; j + 1 < S->nargs; j++)
      if (!strcmp(S->args[j].name, S->args[i].name))
        return t1_bad(r, S->args[i].path, "Name '%s' appears twice", S->args[i].name);
  }
  if (refs && json_array_size(refs) > 64) return t1_bad(r, "$.KernelSpecification.ReferenceArguments", "more than 64");
  S->refs = util_xcalloc(json_array_size(refs) + 1, sizeof *S->refs);
  for (size_t i = 0; refs && i < json_array_size(refs); i++) {
    S->nrefs++;
    if ((s = read_ref(r, json_array_get(refs, i), (uint32_t)i, check_files, &S->refs[i]))) return s;
  }
  return VKOCC_OK;
}

/* $.Budget: a duration, a count or a fraction of the space */
static vkocc_status read_budget(rd *r, json_t *doc) {
  t1_spec *S = r->s;
  vkocc_status s;
  json_t *budget;
  if ((s = get_arr(r, doc, "Budget", "$", false, &budget))) return s;
  for (size_t i = 0; budget && i < json_array_size(budget); i++) {
    json_t *b = json_array_get(budget, i);
    char path[48];
    snprintf(path, sizeof path, "$.Budget[%zu]", i);
    static const char *const bk[] = {"Type", "BudgetValue", NULL};
    static const char *const bt[] = {"TuningDuration", "ConfigurationCount", "ConfigurationFraction", NULL};
    int t;
    double v = 0;
    if (!json_is_object(b)) return t1_bad(r, path, "expected an object");
    if ((s = only_keys(r, b, path, bk)) || (s = get_enum(r, b, "Type", path, true, bt, 0, &t)) ||
        (s = get_num(r, b, "BudgetValue", path, true, &v, NULL)))
      return s;
    if (t == 0) {
      if (!(v > 0 && v < 1e9)) return t1_bad(r, path, "TuningDuration must be positive seconds");
      S->budget.max_seconds = v;
    } else if (t == 1) {
      if (!(v >= 1 && v <= 1e15 && v == floor(v))) return t1_bad(r, path, "ConfigurationCount must be a positive integer");
      S->budget.max_evals = (uint64_t)v;
    } else {
      if (!(v > 0 && v <= 1)) return t1_bad(r, path, "ConfigurationFraction must be in (0, 1]");
      S->budget.max_fraction = v;
    }
  }
  return VKOCC_OK;
}

/* $.Search: a strategy vkocc has (brute force without one) and its attributes */
static vkocc_status read_search(rd *r, json_t *doc) {
  t1_spec *S = r->s;
  vkocc_status s;
  json_t *search;
  if ((s = get_obj(r, doc, "Search", "$", false, &search))) return s;
  snprintf(S->search, sizeof S->search, "brute_force");
  if (search) {
    static const char *const sk[] = {"Name", "Attributes", NULL};
    const char *nm;
    json_t *at;
    if ((s = only_keys(r, search, "$.Search", sk)) || (s = get_str(r, search, "Name", "$.Search", true, &nm)) ||
        (s = get_arr(r, search, "Attributes", "$.Search", false, &at)))
      return s;
    if (!tune_strategy_find(nm)) {
      uint32_t n;
      const tune_strategy_def *const *all = tune_strategies(&n);
      char l[512] = "";
      for (uint32_t i = 0; i < n; i++) snprintf(l + strlen(l), sizeof l - strlen(l), "%s%s", i ? ", " : "", all[i]->name);
      return t1_bad(r, "$.Search.Name", "unknown search '%s' (%s, Deterministic)", nm, l);
    }
    snprintf(S->search, sizeof S->search, "%s", nm);
    if (at) {
      S->search_attrs = json_object();
      for (size_t i = 0; i < json_array_size(at); i++) {
        json_t *a = json_array_get(at, i);
        char p[64];
        snprintf(p, sizeof p, "$.Search.Attributes[%zu]", i);
        const char *an;
        static const char *const ak[] = {"Name", "Value", NULL};
        if (!json_is_object(a)) return t1_bad(r, p, "expected an object");
        if ((s = only_keys(r, a, p, ak)) || (s = get_str(r, a, "Name", p, true, &an))) return s;
        json_t *v = json_object_get(a, "Value");
        if (!v || json_is_null(v)) return t1_bad(r, p, "missing required member 'Value'");
        json_object_set(S->search_attrs, an, v);
      }
    }
  }
  return VKOCC_OK;
}

static vkocc_status parse_doc(rd *r, json_t *doc, bool check_files) {
  vkocc_status s;
  if (!json_is_object(doc)) return t1_bad(r, "$", "expected a T1 object");
  /* a kernel in another language is refused as such first, whatever else its spec uses (the published T1
   * files of Kernel Tuner and KTT: CUDA, OpenCL) */
  json_t *lang0 = json_object_get(json_object_get(doc, "KernelSpecification"), "Language");
  if (json_is_string(lang0) && strcmp(json_string_value(lang0), "Vulkan"))
    return t1_bad(r, "$.KernelSpecification.Language", "'%s': vkocc tunes Vulkan kernels (\"Language\": \"Vulkan\")",
               json_string_value(lang0));
  static const char *const root_keys[] = {"ConfigurationSpace", "KernelSpecification", "Search", "Budget", "General", NULL};
  if ((s = only_keys(r, doc, "$", root_keys))) return s;
  json_t *general, *cs, *ks, *tp, *conds;
  if ((s = get_obj(r, doc, "General", "$", false, &general))) return s;
  if (general) {
    static const char *const gk[] = {"FormatVersion", "LoggingLevel", "TimeUnit", "OutputFile", "OutputFormat", NULL};
    if ((s = only_keys(r, general, "$.General", gk))) return s;
  }
  if ((s = get_obj(r, doc, "KernelSpecification", "$", true, &ks)) ||
      (s = get_obj(r, doc, "ConfigurationSpace", "$", true, &cs)))
    return s;
  if ((s = read_kernel(r, ks, check_files))) return s;
  /* the parameters */
  static const char *const cskeys[] = {"TuningParameters", "Conditions", NULL};
  if ((s = only_keys(r, cs, "$.ConfigurationSpace", cskeys)) ||
      (s = get_arr(r, cs, "TuningParameters", "$.ConfigurationSpace", true, &tp)) ||
      (s = get_arr(r, cs, "Conditions", "$.ConfigurationSpace", false, &conds)))
    return s;
  if ((s = read_params(r, tp)) || (s = read_conds(r, conds)) || (s = read_launch(r, ks, check_files)) ||
      (s = read_budget(r, doc)) || (s = read_search(r, doc)))
    return s;
  return VKOCC_OK;
}

vkocc_status t1_parse(const char *text, size_t len, const char *file, const char *dir, bool check_files, t1_spec *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->file, sizeof out->file, "%s", file);
  snprintf(out->dir, sizeof out->dir, "%s", dir ? dir : "");
  snprintf(out->hash, sizeof out->hash, "fnv1a64:%016llx", (unsigned long long)util_fnv1a(VKOCC_FNV1A_OFFSET, text, len));
  json_error_t e;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  if (!doc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: line %d column %d: not JSON: %s", file, e.line, e.column, e.text);
  rd r = {.file = file, .s = out};
  vkocc_status s = parse_doc(&r, doc, check_files);
  json_decref(doc);
  if (s) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", vkocc_last_error());
    t1_free(out);
    vkocc_fail(s, "%s", msg);
  }
  return s;
}

vkocc_status t1_load(const char *path, t1_spec *out) {
  memset(out, 0, sizeof *out);
  void *data;
  size_t len;
  vkocc_status s = util_read_file(path, &data, &len);
  if (s) return vkocc_fail(VKOCC_ERROR_USAGE, "%s", vkocc_last_error());
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  s = t1_parse(data, len, path, dir, true, out);
  free(data);
  return s;
}

static void data_free(t1_data *d) {
  free(d->source);
  texpr_free(d->gen);
}

void t1_free(t1_spec *s) {
  for (uint32_t i = 0; i < s->nparams; i++) free(s->params[i].name), texpr_values_free(s->params[i].values, s->params[i].nvalues);
  free(s->params);
  free(s->vars);
  for (uint32_t i = 0; i < s->nconds; i++) free(s->conds[i].text), texpr_free(s->conds[i].e);
  free(s->conds);
  for (uint32_t i = 0; i < s->ndefines; i++) free(s->defines[i]);
  free(s->defines);
  for (int d = 0; d < 3; d++) texpr_free(s->local[d]), texpr_free(s->global[d]);
  for (uint32_t i = 0; i < s->nargs; i++) free(s->args[i].name), data_free(&s->args[i].data);
  free(s->args);
  for (uint32_t i = 0; i < s->nrefs; i++) free(s->refs[i].name), data_free(&s->refs[i].data);
  free(s->refs);
  json_decref(s->search_attrs);
  memset(s, 0, sizeof *s);
}
