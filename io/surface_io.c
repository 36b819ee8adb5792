/* Surface files: the JSON vkocc writes (a surface, or a fingerprint holding one) and a plain CSV
 * "wg_size,shared_bytes,P" that anyone can produce. */
#include "array.h"
#include "internal.h"
#include "io.h"
#include "model.h" /* fingerprint_derive_fixed, the cluster recipes */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *field_name[3] = {"wg_size", "shared_bytes", "P"};
static const uint32_t field_max[3] = {VKOCC_MAX_WG_SIZE, VKOCC_MAX_SHARED_BYTES, VKOCC_MAX_P};

/* ---- the surface object (a surface document, or a fingerprint's "surface") and the derived limits */

/* A surface's points, whoever filled them (a measurement or a reader). */
void vkocc_surface_free(vkocc_surface *s) {
  free(s->points);
  s->points = NULL;
  s->count = 0;
}

json_t *io_surface_json(const vkocc_surface *s) {
  json_t *o = json_object(), *pts = json_array();
  if (s->has_device) json_object_set_new(o, "device", vkocc_device_info_json(&s->device));
  json_object_set_new(o, "subgroup_size", s->subgroup_size ? json_integer(s->subgroup_size) : json_null());
  json_object_set_new(o, "method", json_string(vkocc_method_name(s->method)));
  json_object_set_new(o, "repeat", json_integer(s->repeat));
  json_object_set_new(o, "timing", json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:f, s:b}", "pipelines",
                                             (json_int_t)s->pipelines, "pipelines_ms", s->pipelines_ms, "measure_ms",
                                             s->measure_ms, "warmup_ms", s->warmup_ms, "comb_ms", s->comb_ms,
                                             "comb_gpu_ms", s->comb_gpu_ms, "comb_dispatches",
                                             (json_int_t)s->comb_dispatches, "bisect_ms", s->bisect_ms,
                                             "pipeline_cache_warm", s->cache_warm));
  for (uint32_t i = 0; i < s->count; i++) {
    const vkocc_surface_point *p = &s->points[i];
    json_t *e = json_object();
    json_object_set_new(e, "wg_size", json_integer(p->wg_size));
    json_object_set_new(e, "shared_bytes", json_integer(p->shared_bytes));
    json_object_set_new(e, "P", json_integer(p->P));
    if (p->comb_P) json_object_set_new(e, "comb_P", json_integer(p->comb_P));
    if (p->bisect_P) json_object_set_new(e, "bisect_P", json_integer(p->bisect_P));
    json_object_set_new(e, "agree", json_boolean(p->agree));
    if (p->refined) json_object_set_new(e, "refined", json_true());
    if (p->predicted) json_object_set_new(e, "predicted", json_true()); /* adaptive surface: not measured */
    json_array_append_new(pts, e);
  }
  json_object_set_new(o, "points", pts);
  if (s->measured) /* how the points came about: measured (the rest predicted), measurements, rounds */
    json_object_set_new(o, "measured", json_pack("{s:I, s:I, s:I, s:I, s:f}", "points", (json_int_t)s->measured,
                                                 "measurements", (json_int_t)s->measurements, "batches",
                                                 (json_int_t)s->batches, "measured_alone", (json_int_t)s->remeasured,
                                                 "floor_ms", s->floor_ms));
  return o;
}

vkocc_status io_surface_from_json(json_t *o, const char *file, const char *path, vkocc_surface *s) {
  memset(s, 0, sizeof *s);
  char sub[256];
  vkocc_status st;
  json_t *dev = json_object_get(o, "device");
  if (dev && !json_is_null(dev)) {
    snprintf(sub, sizeof sub, "%s.device", path);
    if ((st = io_device_info_from_json(dev, file, sub, &s->device))) return st;
    s->has_device = true;
  }
  if ((st = util_json_u32(o, "subgroup_size", file, path, false, &s->subgroup_size))) return st;
  if (!s->subgroup_size) s->subgroup_size = s->device.subgroup_size;
  if (s->subgroup_size > VKOCC_MAX_WG_SIZE)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.subgroup_size: %u is out of range (at most %u)", file, path,
                      s->subgroup_size, VKOCC_MAX_WG_SIZE);
  if ((st = util_json_u32(o, "repeat", file, path, false, &s->repeat))) return st;
  char method[16] = "";
  if ((st = util_json_str(o, "method", file, path, false, method, sizeof method))) return st;
  if (method[0] && vkocc_method_parse(method, NULL, &s->method))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.method: expected \"comb\", \"bisect\" or \"both\", found \"%s\"",
                      file, path, method);
  json_t *pts = json_object_get(o, "points");
  if (!json_is_array(pts)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.points: expected an array", file, path);
  s->count = (uint32_t)json_array_size(pts);
  if (s->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.points: the surface is empty", file, path);
  s->points = util_xcalloc(s->count, sizeof *s->points);
  for (uint32_t i = 0; i < s->count; i++) {
    json_t *e = json_array_get(pts, i);
    vkocc_surface_point *p = &s->points[i];
    snprintf(sub, sizeof sub, "%s.points[%u]", path, i);
    if (!json_is_object(e)) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub); break; }
    p->agree = true;
    if ((st = util_json_u32(e, "wg_size", file, sub, true, &p->wg_size)) ||
        (st = util_json_u32(e, "shared_bytes", file, sub, true, &p->shared_bytes)) ||
        (st = util_json_u32(e, "P", file, sub, true, &p->P)) ||
        (st = util_json_u32(e, "comb_P", file, sub, false, &p->comb_P)) ||
        (st = util_json_u32(e, "bisect_P", file, sub, false, &p->bisect_P)) ||
        (st = util_json_bool(e, "agree", file, sub, false, &p->agree)) ||
        (st = util_json_bool(e, "refined", file, sub, false, &p->refined)) ||
        (st = util_json_bool(e, "predicted", file, sub, false, &p->predicted)))
      break;
    if (p->wg_size == 0) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.wg_size: must be positive", file, sub); break; }
    /* bounded like a CSV's values (vkocc.h): nothing downstream has to fear overflow */
    const struct { const char *key; uint32_t v, max; } r[] = {{"wg_size", p->wg_size, VKOCC_MAX_WG_SIZE},
        {"shared_bytes", p->shared_bytes, VKOCC_MAX_SHARED_BYTES}, {"P", p->P, VKOCC_MAX_P},
        {"comb_P", p->comb_P, VKOCC_MAX_P}, {"bisect_P", p->bisect_P, VKOCC_MAX_P}};
    for (size_t k = 0; k < sizeof r / sizeof r[0] && !st; k++)
      if (r[k].v > r[k].max)
        st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: %u is out of range (at most %u)", file, sub, r[k].key, r[k].v, r[k].max);
    if (st) break;
    /* P 0 says the device cannot run the point; where the document's device runs it (within its limits), the
     * document contradicts itself: a pipeline that runs has at least one workgroup resident */
    if (p->P == 0 && s->has_device && s->device.max_invocations && p->wg_size <= s->device.max_invocations &&
        p->shared_bytes <= s->device.max_shared_bytes) {
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.P: 0 at workgroup %u threads, %u shared bytes, a point the document's "
                      "device (%s: at most %u invocations, %u shared bytes) runs; a pipeline that runs has at least one "
                      "workgroup resident (P >= 1)", file, sub, p->wg_size, p->shared_bytes, s->device.name,
                      s->device.max_invocations, s->device.max_shared_bytes);
      break;
    }
  }
  if (st) vkocc_surface_free(s);
  return st;
}

json_t *vkocc_derived_json(const vkocc_derived *d, const vkocc_surface *s) {
  json_t *o = json_object(), *un = json_array();
  json_object_set_new(o, "sm_count", json_integer(d->sm_count));
  json_object_set_new(o, "sm_count_ambiguous", json_boolean(d->sm_count_ambiguous));
  json_object_set_new(o, "workgroups_per_sm", json_integer(d->wg_per_sm));
  json_object_set_new(o, "subgroups_per_sm", json_integer(d->subgroups_per_sm));
  json_object_set_new(o, "subgroups_per_sm_max",
                      d->subgroups_per_sm_max == UINT32_MAX ? json_null() : json_integer(d->subgroups_per_sm_max));
  json_object_set_new(o, "subgroup_limit_seen", json_boolean(d->subgroups_bound_seen));
  json_object_set_new(o, "subgroup_size", json_integer(d->subgroup_size));
  json_object_set_new(o, "subgroup_size_inferred", json_boolean(d->subgroup_size_inferred));
  json_object_set_new(o, "threads_per_sm", json_integer(d->threads_per_sm));
  json_object_set_new(o, "shared_bytes_per_sm", json_integer(d->shared_per_sm));
  json_object_set_new(o, "shared_bytes_per_sm_max",
                      d->shared_per_sm_max == UINT32_MAX ? json_null() : json_integer(d->shared_per_sm_max));
  json_object_set_new(o, "shared_limit_seen", json_boolean(d->shared_bound_seen));
  json_object_set_new(o, "points_explained", json_integer(d->explained));
  json_object_set_new(o, "points", json_integer(d->total));
  for (uint32_t i = 0; i < d->n_unexplained; i++) {
    const vkocc_surface_point *p = &s->points[d->unexplained[i]];
    vkocc_occupancy oc;
    vkocc_occupancy_compute(d, p->wg_size, p->shared_bytes, &oc);
    json_array_append_new(un, json_pack("{s:I, s:I, s:I, s:I}", "wg_size", (json_int_t)p->wg_size, "shared_bytes",
                                        (json_int_t)p->shared_bytes, "P", (json_int_t)p->P, "model_P",
                                        (json_int_t)oc.wgs));
  }
  json_object_set_new(o, "unexplained", un);
  return o;
}

/* ---- surface files: JSON or CSV */

/* [s, e) without surrounding blanks */
static void trim(const char **s, const char **e) {
  while (*s < *e && isspace((unsigned char)**s)) (*s)++;
  while (*e > *s && isspace((unsigned char)(*e)[-1])) (*e)--;
}

/* One CSV value: decimal digits, optionally surrounded by blanks. */
static vkocc_status parse_value(const char *path, uint32_t line, int f, const char *s, const char *e, uint32_t *out) {
  trim(&s, &e);
  if (s == e) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: %s is empty (expected a non-negative integer)", path, line,
                                field_name[f]);
  uint64_t v = 0;
  for (const char *c = s; c < e; c++) {
    if (!isdigit((unsigned char)*c))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: %s '%.*s' is not a non-negative integer", path, line, field_name[f],
                        (int)(e - s > 40 ? 40 : e - s), s);
    if (v <= UINT32_MAX) v = v * 10 + (uint64_t)(*c - '0'); /* saturates above 2^32: only "too large" matters */
  }
  if (f == 0 && v == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: wg_size must be positive", path, line);
  if (v > field_max[f])
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: %s %.*s is out of range (at most %u)", path, line, field_name[f],
                      (int)(e - s > 40 ? 40 : e - s), s, field_max[f]);
  *out = (uint32_t)v;
  return VKOCC_OK;
}

/* Splits [s, e) at commas, keeping empty fields; returns the number of fields (up to max are stored). */
static int split(const char *s, const char *e, const char **fs, const char **fe, int max) {
  int n = 0;
  for (const char *a = s;; n++) {
    const char *c = memchr(a, ',', (size_t)(e - a));
    if (n < max) fs[n] = a, fe[n] = c ? c : e;
    if (!c) return n + 1;
    a = c + 1;
  }
}

#define CSV_MAX_COLUMNS 64

/* The columns a CSV surface is read from: wg_size, shared_bytes and the device-wide P ("P", or "workgroups"
 * as `vkocc calc --csv` writes it); "source" (calc's "measured", "predicted" or "model": the last two read as predicted).
 * Other columns are ignored, so calc's own CSV reads back. col[] holds the indices (-1: absent). */
typedef struct { int col[3], source, subgroups, n; } csv_header;

static bool name_is(const char *s, const char *e, const char *name) {
  return (size_t)(e - s) == strlen(name) && !strncmp(s, name, (size_t)(e - s));
}

static vkocc_status parse_header(const char *path, uint32_t line, const char *t, const char *te, csv_header *h) {
  const char *fs[CSV_MAX_COLUMNS], *fe[CSV_MAX_COLUMNS];
  int nf = split(t, te, fs, fe, CSV_MAX_COLUMNS);
  h->col[0] = h->col[1] = h->col[2] = h->source = h->subgroups = -1;
  h->n = nf;
  int workgroups = -1;
  bool per_sm = false, ok = nf <= CSV_MAX_COLUMNS;
  for (int i = 0; ok && i < nf; i++) {
    trim(&fs[i], &fe[i]);
    ok = fe[i] > fs[i]; /* an unnamed column: a stray comma */
    int *slot = name_is(fs[i], fe[i], "wg_size") ? &h->col[0] : name_is(fs[i], fe[i], "shared_bytes") ? &h->col[1]
                : name_is(fs[i], fe[i], "P") ? &h->col[2] : name_is(fs[i], fe[i], "workgroups") ? &workgroups
                : name_is(fs[i], fe[i], "source") ? &h->source
                : name_is(fs[i], fe[i], "subgroups") ? &h->subgroups : NULL;
    per_sm |= name_is(fs[i], fe[i], "workgroups_per_sm");
    if (slot && *slot >= 0) ok = false; /* a column twice */
    else if (slot) *slot = i;
  }
  if (ok && h->col[2] < 0) h->col[2] = workgroups;
  if (ok && h->col[0] >= 0 && h->col[1] >= 0 && h->col[2] < 0 && per_sm)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: per-SM counts only (calc --csv of a normalized fingerprint): the "
                      "device-wide P ('P' or 'workgroups' column) is unknown, so no surface can be read from it", path,
                      line);
  if (!ok || h->col[0] < 0 || h->col[1] < 0 || h->col[2] < 0)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: expected the header 'wg_size,shared_bytes,P' (or the columns of "
                      "vkocc calc --csv, with 'workgroups' for P)", path, line);
  return VKOCC_OK;
}

static vkocc_status load_csv(const char *path, const char *text, size_t len, vkocc_surface *out, uint32_t **lines) {
  uint32_t cap = 64, line = 0, sg_ok = 0x1FF; /* bit i: subgroup size 2^i agrees with every row so far */
  out->points = util_xmalloc(cap * sizeof *out->points);
  *lines = util_xmalloc(cap * sizeof **lines);
  bool header = false;
  csv_header h;
  char hdr[512] = "";
  const char *end = text + len;
  if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) text += 3; /* UTF-8 byte order mark */
  for (const char *ln = text; ln < end;) {
    const char *nl = memchr(ln, '\n', (size_t)(end - ln)), *le = nl ? nl : end, *next = nl ? nl + 1 : end;
    line++;
    if (le > ln && le[-1] == '\r') le--;
    const char *t = ln, *te = le;
    ln = next;
    trim(&t, &te);
    if (t == te || *t == '#') continue;
    const char *fs[CSV_MAX_COLUMNS], *fe[CSV_MAX_COLUMNS];
    if (!header) {
      vkocc_status s = parse_header(path, line, t, te, &h);
      if (s) return s;
      snprintf(hdr, sizeof hdr, "%.*s", (int)(te - t), t);
      header = true;
      continue;
    }
    int nf = split(t, te, fs, fe, CSV_MAX_COLUMNS);
    if (nf != h.n) /* the row itself, so "256,2" shows which value is missing */
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: '%.*s': expected %d comma-separated fields %s, found %d", path, line,
                        (int)(te - t > 60 ? 60 : te - t), t, h.n, hdr, nf);
    vkocc_surface_point p = {.agree = true};
    uint32_t *dst[3] = {&p.wg_size, &p.shared_bytes, &p.P};
    vkocc_status s;
    for (int i = 0; i < 3; i++)
      if ((s = parse_value(path, line, i, fs[h.col[i]], fe[h.col[i]], dst[i]))) return s;
    if (h.source >= 0) {
      const char *a = fs[h.source], *b = fe[h.source];
      trim(&a, &b);
      p.predicted = name_is(a, b, "model") || name_is(a, b, "predicted"); /* calc's rows that were not measured */
    }
    uint32_t sgs; /* calc's subgroups column: P x ceil(wg / subgroup size) tells the subgroup size */
    if (h.subgroups >= 0 && p.P && !parse_value(path, line, 2, fs[h.subgroups], fe[h.subgroups], &sgs))
      for (int i = 0; i < 9; i++)
        if ((uint64_t)(p.wg_size + (1u << i) - 1) / (1u << i) * p.P != sgs) sg_ok &= ~(1u << i);
    uint32_t cap_lines = cap; /* two arrays, one capacity */
    util_array_room(out->points, out->count, cap, 64);
    util_array_room(*lines, out->count, cap_lines, 64);
    (*lines)[out->count] = line;
    out->points[out->count++] = p;
  }
  if (!header) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: empty file (expected the header 'wg_size,shared_bytes,P')", path);
  if (out->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no data rows after the header", path);
  if (h.subgroups >= 0 && sg_ok) /* the smallest that fits (a table's sizes are multiples of it) */
    for (int i = 8; i >= 0; i--)
      if (sg_ok & (1u << i)) out->subgroup_size = 1u << i;
  return VKOCC_OK;
}

typedef struct { uint32_t wg, sh, idx; } point_key;
static int cmp_key(const void *a, const void *b) {
  const point_key *x = a, *y = b;
  if (x->wg != y->wg) return x->wg < y->wg ? -1 : 1;
  if (x->sh != y->sh) return x->sh < y->sh ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The same point twice: with the same P it is kept once, with another P the file contradicts itself.
 * Locations are CSV lines (lines != NULL) or JSON paths under jpath. Also: some point must have P > 0. */
static vkocc_status check_points(const char *path, vkocc_surface *s, const uint32_t *lines, const char *jpath) {
  point_key *k = util_xmalloc((s->count + 1) * sizeof *k);
  bool *drop = util_xcalloc(s->count + 1, sizeof *drop);
  for (uint32_t i = 0; i < s->count; i++) k[i] = (point_key){s->points[i].wg_size, s->points[i].shared_bytes, i};
  qsort(k, s->count, sizeof *k, cmp_key);
  vkocc_status st = VKOCC_OK;
  for (uint32_t i = 1, first = 0; i < s->count && !st; i++) {
    if (k[i].wg != k[first].wg || k[i].sh != k[first].sh) { first = i; continue; }
    const vkocc_surface_point *a = &s->points[k[first].idx], *b = &s->points[k[i].idx];
    if (a->P == b->P) { drop[k[i].idx] = true; continue; }
    if (lines)
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: wg_size %u, shared_bytes %u again, with P %u (line %u has P %u)", path,
                      lines[k[i].idx], b->wg_size, b->shared_bytes, b->P, lines[k[first].idx], a->P);
    else
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.points[%u]: wg_size %u, shared_bytes %u again, with P %u (%s.points[%u] "
                      "has P %u)", path, jpath, k[i].idx, b->wg_size, b->shared_bytes, b->P, jpath, k[first].idx, a->P);
  }
  free(k);
  uint32_t n = 0, usable = 0;
  for (uint32_t i = 0; i < s->count && !st; i++)
    if (!drop[i]) usable += s->points[i].P > 0, s->points[n++] = s->points[i];
  free(drop);
  if (st) return st;
  s->count = n;
  if (!usable)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: every point has P = 0: nothing to derive the limits from", path);
  return VKOCC_OK;
}

/* The "derived" object of a fingerprint (written by vkocc_derived_json). */
vkocc_status vkocc_derived_from_json(json_t *o, const char *file, const char *p, vkocc_derived *d) {
  memset(d, 0, sizeof *d);
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, p);
  d->subgroups_per_sm_max = d->shared_per_sm_max = UINT32_MAX;
  d->subgroups_bound_seen = d->shared_bound_seen = true;
  vkocc_status s;
  if ((s = util_json_u32(o, "sm_count", file, p, true, &d->sm_count)) ||
      (s = util_json_u32(o, "workgroups_per_sm", file, p, true, &d->wg_per_sm)) ||
      (s = util_json_u32(o, "subgroups_per_sm", file, p, true, &d->subgroups_per_sm)) ||
      (s = util_json_u32(o, "subgroup_size", file, p, true, &d->subgroup_size)) ||
      (s = util_json_u32(o, "shared_bytes_per_sm", file, p, true, &d->shared_per_sm)) ||
      (s = util_json_u32(o, "subgroups_per_sm_max", file, p, false, &d->subgroups_per_sm_max)) ||
      (s = util_json_u32(o, "shared_bytes_per_sm_max", file, p, false, &d->shared_per_sm_max)) ||
      (s = util_json_bool(o, "subgroup_limit_seen", file, p, false, &d->subgroups_bound_seen)) ||
      (s = util_json_bool(o, "shared_limit_seen", file, p, false, &d->shared_bound_seen)) ||
      (s = util_json_bool(o, "sm_count_ambiguous", file, p, false, &d->sm_count_ambiguous)) ||
      (s = util_json_bool(o, "subgroup_size_inferred", file, p, false, &d->subgroup_size_inferred)) ||
      (s = util_json_u32(o, "points_explained", file, p, false, &d->explained)) ||
      (s = util_json_u32(o, "points", file, p, false, &d->total)))
    return s;
  struct { const char *name; uint32_t v, lo, hi; } r[] = {
      {"sm_count", d->sm_count, 1, VKOCC_MAX_P}, {"workgroups_per_sm", d->wg_per_sm, 1, VKOCC_MAX_P},
      {"subgroups_per_sm", d->subgroups_per_sm, 1, VKOCC_MAX_P}, {"subgroup_size", d->subgroup_size, 1, VKOCC_MAX_WG_SIZE}};
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(r); i++)
    if (r[i].v < r[i].lo || r[i].v > r[i].hi)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.%s: %u is out of range (%u .. %u)", file, p, r[i].name, r[i].v,
                        r[i].lo, r[i].hi);
  uint64_t t = (uint64_t)d->subgroups_per_sm * d->subgroup_size;
  d->threads_per_sm = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
  return VKOCC_OK;
}

/* A fingerprint without its measured surface: the limits it stores, else those of its normalized surface
 * (values per SM, so derived with one SM; sm_count 0 = unknown). */
static vkocc_status model_from_fingerprint(const char *path, json_t *doc, vkocc_derived *d) {
  json_t *der = json_object_get(doc, "derived");
  if (der && !json_is_null(der)) return vkocc_derived_from_json(der, path, "$.derived", d);
  vkocc_fingerprint *fp = util_xmalloc(sizeof *fp);
  vkocc_status s = vkocc_fingerprint_load(path, fp);
  vkocc_surface_point pts[VKOCC_CANON_WG * VKOCC_CANON_SHARED];
  uint32_t n = 0;
  for (int a = 0; !s && a < VKOCC_CANON_WG; a++)
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      double v = fp->normalized[a][b];
      if (!isnan(v) && v == floor(v) && v <= VKOCC_MAX_P) /* a fraction is no count of workgroups */
        pts[n++] = (vkocc_surface_point){vkocc_canonical_wg[a], vkocc_canonical_shared[b], (uint32_t)v, .agree = true};
    }
  if (!s && fingerprint_derive_fixed(pts, n, fp->subgroup_size, 1, d))
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.normalized: no value above 0 to derive the limits from", path);
  free(fp);
  if (!s) d->sm_count = 0, d->n_unexplained = 0; /* its indices would point into pts, not the caller's surface */
  return s;
}

/* A vkocc.calc document's "rows" as points: P is the device-wide "workgroups", a "model" or "predicted" row reads
 * as predicted. */
static vkocc_status calc_rows(json_t *doc, const char *path, vkocc_surface *out) {
  json_t *rows = json_object_get(doc, "rows");
  if (!json_is_array(rows))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.rows: missing: this calc document holds %s, not a table of points",
                      path, json_object_get(doc, "suggestion") ? "a workgroup-size suggestion" : "no rows");
  if (json_array_size(rows) == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.rows: empty", path);
  json_t *dev = json_object_get(doc, "device");
  vkocc_status s;
  if (dev && !json_is_null(dev)) {
    if ((s = io_device_info_from_json(dev, path, "$.device", &out->device))) return s;
    out->has_device = true;
    out->subgroup_size = out->device.subgroup_size;
  }
  json_t *der = json_object_get(doc, "derived");
  if (json_is_integer(json_object_get(der, "subgroup_size")) &&
      json_integer_value(json_object_get(der, "subgroup_size")) > 0 &&
      json_integer_value(json_object_get(der, "subgroup_size")) <= VKOCC_MAX_WG_SIZE)
    out->subgroup_size = (uint32_t)json_integer_value(json_object_get(der, "subgroup_size"));
  out->count = (uint32_t)json_array_size(rows);
  out->points = util_xcalloc(out->count, sizeof *out->points);
  char sub[64];
  for (uint32_t i = 0; i < out->count; i++) {
    json_t *r = json_array_get(rows, i);
    vkocc_surface_point *p = &out->points[i];
    snprintf(sub, sizeof sub, "$.rows[%u]", i);
    if (!json_is_object(r)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", path, sub);
    if (!json_object_get(r, "workgroups"))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.workgroups: missing: the rows hold per-SM counts only (calc of a "
                        "normalized fingerprint), so the device-wide P is unknown", path, sub);
    char src[16] = "";
    p->agree = true;
    if ((s = util_json_u32(r, "wg_size", path, sub, true, &p->wg_size)) ||
        (s = util_json_u32(r, "shared_bytes", path, sub, true, &p->shared_bytes)) ||
        (s = util_json_u32(r, "workgroups", path, sub, true, &p->P)) ||
        (s = util_json_str(r, "source", path, sub, false, src, sizeof src)))
      return s;
    if (p->wg_size == 0 || p->wg_size > VKOCC_MAX_WG_SIZE || p->shared_bytes > VKOCC_MAX_SHARED_BYTES ||
        p->P > VKOCC_MAX_P)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: wg_size %u, shared_bytes %u, workgroups %u: out of range", path,
                        sub, p->wg_size, p->shared_bytes, p->P);
    p->predicted = !strcmp(src, "model") || !strcmp(src, "predicted");
  }
  return VKOCC_OK;
}

static vkocc_status load_json(const char *path, vkocc_surface *out, vkocc_derived *model, bool *model_only) {
  json_t *doc;
  json_error_t e;
  doc = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
  if (!doc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%d:%d: invalid JSON: %s", path, e.line, e.column, e.text);
  /* the kind by its schema name (the version is checked by io_doc_load); anything else reads as a surface,
   * whose reader then names what it expected */
  const char *schema = json_string_value(json_object_get(doc, "schema"));
  const char *kinds[] = {VKOCC_DOC_FINGERPRINT, VKOCC_DOC_SHADER_SURFACE, VKOCC_DOC_CALC};
  const char *kind = VKOCC_DOC_SURFACE;
  for (size_t i = 0; schema && i < VKOCC_ARRAY_LEN(kinds); i++)
    if (!strncmp(schema, kinds[i], strlen(kinds[i])) && schema[strlen(kinds[i])] == '/') kind = kinds[i];
  bool fp = kind == kinds[0], shader = kind == kinds[1];
  json_decref(doc);
  vkocc_status s;
  if ((s = io_doc_load(path, kind, &doc))) return s;
  json_t *obj = fp ? json_object_get(doc, "surface") : doc;
  if (kind == kinds[2]) {
    if (!(s = calc_rows(doc, path, out))) s = check_points(path, out, NULL, "$");
    json_decref(doc);
    return s;
  }
  if (fp && (!obj || json_is_null(obj)) && model) {
    *model_only = true;
    s = model_from_fingerprint(path, doc, model);
  } else if (fp && (!obj || json_is_null(obj))) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.surface: missing: this fingerprint holds no measured surface, only its "
                   "normalized one (per SM; 'vkocc plot compare' draws that)", path);
  } else if (fp && !json_is_object(obj)) {
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.surface: expected an object", path);
  } else if (!(s = io_surface_from_json(obj, path, fp ? "$.surface" : "$", out))) {
    s = check_points(path, out, NULL, fp ? "$.surface" : "$");
    if (s && shader) /* --vary over a constant that is neither the workgroup size nor the shared memory */
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s (a shader surface varies more than the workgroup size and shared memory; "
                     "one P per point is needed)", vkocc_last_error());
  }
  if (!s && fp && !out->has_device) {
    json_t *dev = json_object_get(doc, "device");
    if (dev && (s = io_device_info_from_json(dev, path, "$.device", &out->device)) == VKOCC_OK) {
      out->has_device = true;
      if (!out->subgroup_size) out->subgroup_size = out->device.subgroup_size;
    }
  }
  json_decref(doc);
  return s;
}

static vkocc_status load(const char *path, vkocc_surface *out, vkocc_derived *model, bool *model_only) {
  memset(out, 0, sizeof *out);
  if (model_only) *model_only = false;
  void *data;
  size_t len;
  vkocc_status s = util_read_file(path, &data, &len);
  if (s) return s;
  const char *t = data, *nul = memchr(t, 0, len);
  if (nul) { /* text after it would be silently ignored */
    uint32_t line = 1;
    for (const char *c = t; c < nul; c++) line += *c == '\n';
    free(data);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%u: a NUL byte (not a text file)", path, line);
  }
  if (len >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3)) t += 3;
  while (isspace((unsigned char)*t)) t++;
  if (*t != '{') {
    uint32_t *lines = NULL;
    s = load_csv(path, data, len, out, &lines);
    if (!s) s = check_points(path, out, lines, NULL);
    free(lines);
  } else {
    s = load_json(path, out, model, model_only);
  }
  free(data);
  if (s) vkocc_surface_free(out);
  return s;
}

vkocc_status vkocc_surface_load(const char *path, vkocc_surface *out) {
  vkocc_clear_error();
  return load(path, out, NULL, NULL);
}

vkocc_status vkocc_surface_load_model(const char *path, vkocc_surface *out, vkocc_derived *d, bool *model_only) {
  return load(path, out, d, model_only);
}

json_t *vkocc_surface_document(const vkocc_surface *s, const vkocc_calibration *cal, const vkocc_derived *d,
                               double startup_ms) {
  json_t *doc = vkocc_doc_stamp(io_surface_json(s), VKOCC_DOC_SURFACE);
  if (startup_ms >= 0) json_object_set_new(json_object_get(doc, "timing"), "startup_ms", json_real(startup_ms));
  json_object_set_new(doc, "calibration", io_calibration_json(cal));
  if (!d) return doc;
  json_object_set_new(doc, "derived", vkocc_derived_json(d, s));
  vkocc_vendor_check vc;
  vkocc_vendor_check_compute(&s->device.vendor, d, &vc);
  json_t *vcj = io_vendor_check_json(&vc, s->device.vendor.source); /* measured vs reported, if reported */
  if (vcj) json_object_set_new(doc, "vendor_reported", vcj);
  return doc;
}

vkocc_status vkocc_surface_save(const vkocc_surface *s, const char *path) {
  vkocc_clear_error();
  json_t *doc = io_surface_json(s);
  vkocc_doc_stamp(doc, VKOCC_DOC_SURFACE);
  vkocc_status st = util_json_write(doc, path);
  json_decref(doc);
  return st;
}

vkocc_status vkocc_raw_probe_load(const char *path, vkocc_interval **iv, uint32_t *n, vkocc_device_info *dev) {
  vkocc_clear_error();
  *iv = NULL;
  *n = 0;
  json_t *doc;
  vkocc_status s = io_doc_load(path, VKOCC_DOC_RAW_PROBE, &doc);
  if (s) return s;
  memset(dev, 0, sizeof *dev);
  json_t *d = json_object_get(doc, "device");
  if (d && (s = io_device_info_from_json(d, path, "$.device", dev))) { json_decref(doc); return s; }
  json_t *a = json_object_get(doc, "intervals_ns");
  if (!json_is_array(a) || json_array_size(a) == 0) {
    json_decref(doc);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.intervals_ns: expected a non-empty array", path);
  }
  *n = (uint32_t)json_array_size(a);
  *iv = util_xcalloc(*n, sizeof **iv);
  for (uint32_t i = 0; i < *n; i++) {
    json_t *e = json_array_get(a, i);
    if (json_is_null(e)) continue; /* a record the device never wrote */
    if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_number(json_array_get(e, 0)) ||
        !json_is_number(json_array_get(e, 1))) {
      free(*iv);
      *iv = NULL;
      json_decref(doc);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.intervals_ns[%u]: expected [start, end] or null", path, i);
    }
    (*iv)[i] = (vkocc_interval){json_number_value(json_array_get(e, 0)), json_number_value(json_array_get(e, 1)), true};
  }
  json_decref(doc);
  return VKOCC_OK;
}
