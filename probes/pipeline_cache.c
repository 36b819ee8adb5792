/* The cache of a user's pipeline's P ($XDG_CACHE_HOME/vkocc/pipeline-<key>.json). The key hashes everything
 * that changes the answer: the device (UUID), its driver (version and info), the queue family, the
 * environment the driver reads (LP_NUM_THREADS is lavapipe's P), vkocc's version, the module after
 * compilation, the entry point, the constants, the method, the unmodified flag and the rule that decides P of
 * the pipeline as written. An entry carries a checksum over the key and its value (util/cache.c), so an
 * edited, foreign or torn file is a miss, and it holds the whole summary the measurement gave (P, agreement,
 * method, medians, descriptors, statistics, the decision on the pipeline as written): a hit answers as the
 * measurement did. Its schema is io/document.c's VKOCC_DOC_PIPELINE_CACHE. */
#include "user_pipeline.h"
#include "io.h"
#include "jsonio.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "vkocc.pipeline-cache/N" as the schema table has it (a copy: the table's string is per thread) */
static const char *schema_string(char buf[96]) {
  snprintf(buf, 96, "%s", vkocc_doc_schema_string(VKOCC_DOC_PIPELINE_CACHE));
  return buf;
}


static int cmp_spec(const void *a, const void *b) {
  const vkocc_spec_value *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

uint64_t pipeline_cache_key(const vkocc_device_info *d, const uint32_t *spv, size_t words, const vkocc_shader_desc *sh,
                            const vkocc_probe_options *o, uint32_t variant) {
  uint64_t h = VKOCC_FNV1A_OFFSET;
  char schema[96];
  schema_string(schema);
  h = util_fnv1a(h, schema, strlen(schema) + 1);
  h = util_fnv1a(h, d->uuid, 16);
  h = util_fnv1a(h, &d->driver_version, 4);
  h = util_fnv1a(h, &d->compute_queue_family, 4); /* NVIDIA grants shared memory per queue family */
  h = util_fnv1a(h, d->driver_name, strlen(d->driver_name) + 1);
  h = util_fnv1a(h, d->driver_info, strlen(d->driver_info) + 1);
  h = util_fnv1a(h, vkocc_version(), strlen(vkocc_version()) + 1);
  h = util_driver_env_hash(h); /* util/cache.c */
  h = util_fnv1a(h, spv, words * 4);
  h = util_fnv1a(h, sh->entry ? sh->entry : "", sh->entry ? strlen(sh->entry) + 1 : 1);
  /* constants by ID (the order they were given in does not change the answer) */
  vkocc_spec_value *sp = util_xcalloc(sh->nspec + 1, sizeof *sp);
  if (sh->nspec) memcpy(sp, sh->spec, sh->nspec * sizeof *sp);
  qsort(sp, sh->nspec, sizeof *sp, cmp_spec);
  for (uint32_t i = 0; i < sh->nspec; i++) {
    h = util_fnv1a(h, &sp[i].id, 4);
    h = util_fnv1a(h, &sp[i].value, 8);
  }
  free(sp);
  uint32_t m = o->method, rep = o->repeat;
  h = util_fnv1a(h, &m, 4);
  h = util_fnv1a(h, &rep, 4);
  h = util_fnv1a(h, sh->unmodified ? "unmodified" : "augmented", 10);
  h = util_fnv1a(h, "written-rule", 12); /* answers cached before the written-pipeline rule may hold an augmented P */
  /* the augmentation measured with (compact since the variants; unrolled before) */
  const char *aug = sh->unmodified ? "" : compile_aug_variant_name(compile_aug_resolve(variant, d->device_type));
  h = util_fnv1a(h, aug, strlen(aug));
  return h;
}

static bool entry_path(uint64_t key, char *out, size_t n, char hex[17]) {
  char dir[1024];
  if (util_cache_dir(dir, sizeof dir)) { vkocc_clear_error(); return false; }
  snprintf(hex, 17, "%016llx", (unsigned long long)key);
  return snprintf(out, n, "%s/pipeline-%s.json", dir, hex) < (int)n;
}

static json_t *trio(uint32_t med, uint32_t lo, uint32_t hi) {
  return json_pack("{s:I, s:I, s:I}", "median", (json_int_t)med, "min", (json_int_t)lo, "max", (json_int_t)hi);
}

void pipeline_cache_write(uint64_t key, const vkocc_pipeline_result *r) {
  char path[1100], hex[17];
  if (!entry_path(key, path, sizeof path, hex)) return;
  const vkocc_probe_result *p = &r->probe;
  json_t *stats = json_array();
  for (uint32_t i = 0; i < r->nstats && i < VKOCC_ARRAY_LEN(r->stats); i++)
    json_array_append_new(stats, json_pack("{s:s, s:o, s:o}", "name", r->stats[i].name, "value",
                                           util_json_number(r->stats[i].value), "augmented",
                                           util_json_number(r->stats[i].augmented)));
  json_t *v = json_pack("{s:I, s:b, s:I, s:[I,I,I], s:I, s:b, s:s, s:I, s:I, s:I, s:b, s:o}", "P", (json_int_t)r->P,
                        "agree", p->agree, "method", (json_int_t)p->method, "wg", (json_int_t)r->wg[0],
                        (json_int_t)r->wg[1], (json_int_t)r->wg[2], "shared_bytes", (json_int_t)r->shared_bytes,
                        "shared_exact", r->shared_exact, "entry", r->entry, "aug_set", (json_int_t)r->aug_set,
                        "descriptors", (json_int_t)r->descriptors, "push_bytes", (json_int_t)r->push_bytes,
                        "bisect_by_chase", p->bisect_by_chase, "statistics", stats);
  if (!v) return;
  json_object_set_new(v, "comb", trio(p->comb_median, p->comb_min, p->comb_max));
  json_object_set_new(v, "bisect", trio(p->bisect_median, p->bisect_min, p->bisect_max));
  json_object_set_new(v, "sleep_ns", util_json_number(p->sleep_ns));
  json_object_set_new(v, "bisect_wave_ns", util_json_number(p->bisect_wave_ns));
  json_object_set_new(v, "floor_ns", util_json_number(p->floor_ns));
  const vkocc_written_answer *w = r->written;
  if (w) /* the decision on the pipeline as written, as the measurement made it */
    json_object_set_new(v, "written", json_pack("{s:I, s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s}",
        "P", (json_int_t)w->P, "augmented_P", (json_int_t)w->augmented_P, "predicted_P", (json_int_t)w->predicted_P,
        "predicted_augmented_P", (json_int_t)w->predicted_augmented_P, "confirmed", w->confirmed, "evidence",
        (json_int_t)w->evidence, "binding", (json_int_t)w->binding, "written_registers",
        (json_int_t)w->written_registers, "augmented_registers", (json_int_t)w->augmented_registers,
        "written_shared", (json_int_t)w->written_shared, "augmented_shared", (json_int_t)w->augmented_shared,
        "differs", w->differs, "reason", w->reason));
  char schema[96];
  if (util_cache_entry_write(path, schema_string(schema), hex, v)) vkocc_clear_error(); /* only slower */
  json_decref(v);
}

static bool u32_of(json_t *o, const char *k, uint32_t *out) {
  json_t *v = json_object_get(o, k);
  if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX) return false;
  *out = (uint32_t)json_integer_value(v);
  return true;
}

static bool trio_of(json_t *o, const char *k, uint32_t *med, uint32_t *lo, uint32_t *hi) {
  json_t *t = json_object_get(o, k);
  return u32_of(t, "median", med) && u32_of(t, "min", lo) && u32_of(t, "max", hi);
}

static double num_of(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

bool pipeline_cache_read(uint64_t key, vkocc_pipeline_result *out) {
  char path[1100], hex[17];
  if (!entry_path(key, path, sizeof path, hex)) return false;
  char schema[96];
  json_t *v = util_cache_entry_read(path, schema_string(schema), hex);
  if (!v) return false;
  vkocc_pipeline_result r = *out;
  vkocc_probe_result *p = &r.probe;
  uint32_t method = 0;
  json_t *w = json_object_get(v, "wg"), *stats = json_object_get(v, "statistics");
  bool ok = u32_of(v, "P", &r.P) && r.P > 0 && json_is_boolean(json_object_get(v, "agree")) &&
            u32_of(v, "method", &method) && method >= 1 && method <= VKOCC_METHOD_BOTH && json_array_size(w) == 3 &&
            u32_of(v, "descriptors", &r.descriptors) && u32_of(v, "push_bytes", &r.push_bytes) &&
            trio_of(v, "comb", &p->comb_median, &p->comb_min, &p->comb_max) &&
            trio_of(v, "bisect", &p->bisect_median, &p->bisect_min, &p->bisect_max) && json_is_array(stats) &&
            json_array_size(stats) <= VKOCC_ARRAY_LEN(r.stats);
  for (int k = 0; ok && k < 3; k++) {
    json_t *e = json_array_get(w, k);
    ok = json_is_integer(e) && json_integer_value(e) == (json_int_t)out->wg[k];
  }
  /* the module's own figures were computed again from the module: the entry must agree with them */
  uint32_t shared;
  ok = ok && u32_of(v, "shared_bytes", &shared) && shared == out->shared_bytes;
  for (size_t i = 0; ok && i < json_array_size(stats); i++) {
    json_t *e = json_array_get(stats, i);
    const char *nm = json_string_value(json_object_get(e, "name"));
    if (!nm) { ok = false; break; }
    snprintf(r.stats[i].name, sizeof r.stats[i].name, "%s", nm);
    r.stats[i].value = num_of(e, "value");
    r.stats[i].augmented = num_of(e, "augmented");
  }
  /* the decision on the pipeline as written: an entry without it is not one this version wrote */
  json_t *wj = json_object_get(v, "written");
  vkocc_written_answer wa = {0};
  uint32_t evidence = 0;
  const char *differs = json_string_value(json_object_get(wj, "differs"));
  const char *reason = json_string_value(json_object_get(wj, "reason"));
  ok = ok && u32_of(wj, "P", &wa.P) && wa.P == r.P && u32_of(wj, "augmented_P", &wa.augmented_P) &&
       u32_of(wj, "predicted_P", &wa.predicted_P) && u32_of(wj, "predicted_augmented_P", &wa.predicted_augmented_P) &&
       json_is_boolean(json_object_get(wj, "confirmed")) && u32_of(wj, "evidence", &evidence) &&
       evidence > VKOCC_WRITTEN_NONE && evidence < VKOCC_WRITTEN_CACHED && u32_of(wj, "binding", &wa.binding) &&
       u32_of(wj, "written_registers", &wa.written_registers) &&
       u32_of(wj, "augmented_registers", &wa.augmented_registers) && u32_of(wj, "written_shared", &wa.written_shared) &&
       u32_of(wj, "augmented_shared", &wa.augmented_shared) && differs && reason;
  if (ok) {
    wa.confirmed = json_is_true(json_object_get(wj, "confirmed"));
    wa.evidence = (vkocc_written_evidence)evidence;
    snprintf(wa.differs, sizeof wa.differs, "%s", differs);
    snprintf(wa.reason, sizeof wa.reason, "%s", reason);
    r.written = util_xmalloc(sizeof *r.written);
    *r.written = wa;
    r.nstats = (uint32_t)json_array_size(stats);
    p->P = r.P;
    p->agree = json_is_true(json_object_get(v, "agree"));
    p->method = (vkocc_method)method;
    p->wg_size = out->wg_size;
    p->shared_bytes = out->shared_bytes;
    p->repeat = 0; /* no repetitions were run: the evidence stays with the measurement */
    p->sleep_ns = num_of(v, "sleep_ns");
    p->bisect_wave_ns = num_of(v, "bisect_wave_ns");
    p->floor_ns = num_of(v, "floor_ns");
    p->bisect_by_chase = json_is_true(json_object_get(v, "bisect_by_chase"));
    r.from_cache = true;
    *out = r;
  }
  json_decref(v);
  return ok;
}
