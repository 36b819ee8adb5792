/* The one schema table: every document vkocc writes, the version it writes, the oldest version it reads,
 * what reads it back and where it names the device it was measured on. Writers stamp "schema" through
 * vkocc_doc_stamp / vkocc_doc_schema_string, readers check it through io_doc_load / io_doc_check; no
 * schema string is written anywhere else. The device member is read by io_doc_device
 * (io/device_io.c). */
#include "internal.h"
#include "io.h"
#include <stdio.h>
#include <string.h>

static const io_doc_schema table[] = {
    /* name                      version oldest  reader (NULL: an output for people and scripts), device member */
    {VKOCC_DOC_SURFACE,            1, 1, "vkocc_surface_load (calc, plot, view --from)", "device"},
    /* version 2: cluster recipe c2, the shared capacity per queue family and the register axis as attributes;
     * version 1 (recipe c1) reads with its c1 ID */
    /* version 3: recipe c3, the architecture signature (raw values, spreads) beside the surface */
    {VKOCC_DOC_FINGERPRINT,        3, 1, "vkocc_fingerprint_load, io_fingerprint_from_json (cluster, plot)", "device"},
    {VKOCC_DOC_REGISTERS,          1, 1, "vkocc_register_doc_load (calc --regs, probe --shader, the register cache)", "device"},
    {VKOCC_DOC_PROBE,              1, 1, NULL, "device"},
    {VKOCC_DOC_RAW_PROBE,          1, 1, "vkocc_raw_probe_load (plot comb)", "device"},
    {VKOCC_DOC_CALIBRATION,        1, 1, NULL, "device"},
    {VKOCC_DOC_CALC,               1, 1, "vkocc_surface_load (calc --from, plot, view)", "device"},
    {VKOCC_DOC_DEVICES,            1, 1, NULL, NULL},
    {VKOCC_DOC_CLUSTERS,           1, 1, NULL, NULL},
    {VKOCC_DOC_SHADER_SURFACE,     1, 1, "vkocc_surface_load (calc --from, plot, view)", "device"},
    {VKOCC_DOC_TUNE_RESULTS,       1, 1, "tune_results_load (tune --resume, policy build/transfer)", "device"},
    /* version 1 held cluster entries only: it reads as version 2 without device entries */
    {VKOCC_DOC_POLICY_DB,          2, 1, "vkocc_policy_db_load (policy select)", NULL},
    {VKOCC_DOC_POLICY_TRANSFER,    1, 1, NULL, NULL},
    {VKOCC_DOC_TUNE_REPLAY,        1, 1, NULL, NULL},
    {VKOCC_DOC_POLICY_CHOICE,      1, 1, NULL, NULL},
    /* version 2: {schema, key, checksum, value} with the whole summary (util/cache.c); version 1 entries are misses */
    {VKOCC_DOC_PIPELINE_CACHE,     2, 2, "pipeline_cache_read (probes/pipeline_cache.c)", NULL},
    /* not a document of its own: the seal of a cached fingerprint or register document ("cache": {key, checksum}),
     * its string the salt of the checksum (util/cache.c); another version makes every sealed entry a miss */
    {VKOCC_DOC_CACHE_SEAL,         1, 1, "util_cache_doc_read (io/fingerprint_cache.c, io/registers_io.c)", NULL},
    {VKOCC_DOC_BARRIER_TEST,       1, 1, NULL, "device"},
    {VKOCC_DOC_DEVICES_SUMMARY,    1, 1, NULL, NULL},
    /* benchmarks (bench/): figures, not tests */
    {VKOCC_DOC_BENCH_PROBE,        1, 1, NULL, "device"},
    {VKOCC_DOC_BENCH_SURFACE,      2, 2, NULL, NULL},
    {VKOCC_DOC_BENCH_BARRIER,      1, 1, NULL, "device"},
};

const io_doc_schema *io_doc_schema_of(const char *name) {
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(table); i++)
    if (!strcmp(table[i].name, name)) return &table[i];
  return NULL;
}

const io_doc_schema *io_doc_schemas(size_t *n) {
  *n = VKOCC_ARRAY_LEN(table);
  return table;
}

const char *vkocc_doc_schema_string(const char *name) {
  static _Thread_local char buf[96];
  const io_doc_schema *d = io_doc_schema_of(name);
  snprintf(buf, sizeof buf, "%s/%d", name, d ? d->version : VKOCC_SCHEMA_VERSION);
  return buf;
}

json_t *vkocc_doc_stamp(json_t *doc, const char *name) {
  char schema[96];
  snprintf(schema, sizeof schema, "%s", vkocc_doc_schema_string(name));
  /* first in the file, where a reader looks: the members are set again behind the stamp (same object) */
  json_t *rest = json_copy(doc); /* shallow: the values are shared, not copied */
  json_object_del(rest, "schema");
  json_object_del(rest, "tool_version");
  json_object_clear(doc);
  json_object_set_new(doc, "schema", json_string(schema));
  json_object_set_new(doc, "tool_version", json_string(vkocc_version()));
  json_object_update(doc, rest);
  json_decref(rest);
  return doc;
}

json_t *vkocc_doc_new(const char *name) { return vkocc_doc_stamp(json_object(), name); }

vkocc_status io_doc_check(json_t *doc, const char *file, const char *name) {
  const io_doc_schema *d = io_doc_schema_of(name);
  if (!d) return util_json_check_schema(doc, file, name);
  return util_json_check_schema_versions(doc, file, name, d->oldest, d->version);
}

vkocc_status io_doc_load(const char *file, const char *name, json_t **doc) {
  const io_doc_schema *d = io_doc_schema_of(name);
  if (!d) return util_json_load(file, name, doc);
  return util_json_load_versions(file, name, d->oldest, d->version, doc);
}
