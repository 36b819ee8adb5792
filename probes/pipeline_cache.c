/* The result cache of vkocc_pipeline_occupancy: P of a pipeline keyed by device, driver, queue family,
 * vkocc version, module, entry point, specialization and method, one small document per key. */
#include "user_pipeline.h"
#include "io.h"
#include "jsonio.h"
#include <stdio.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

uint64_t pipeline_cache_key(const vkocc_device_info *d, const uint32_t *spv, size_t words, const vkocc_shader_desc *sh,
                            const vkocc_probe_options *o) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv(h, d->uuid, 16);
  h = fnv(h, &d->driver_version, 4);
  h = fnv(h, &d->compute_queue_family, 4); /* NVIDIA grants shared memory per queue family */
  h = fnv(h, d->driver_info, strlen(d->driver_info));
  h = fnv(h, vkocc_version(), strlen(vkocc_version()));
  h = fnv(h, spv, words * 4);
  h = fnv(h, sh->entry ? sh->entry : "", sh->entry ? strlen(sh->entry) : 0);
  for (uint32_t i = 0; i < sh->nspec; i++) {
    h = fnv(h, &sh->spec[i].id, 4);
    h = fnv(h, &sh->spec[i].value, 8);
  }
  uint32_t m = o->method;
  h = fnv(h, &m, 4);
  if (sh->unmodified) h = fnv(h, "unmodified", 10); /* only then: the augmented keys stay what they were */
  return h;
}

static bool cache_path(uint64_t key, char *out, size_t n) {
  char dir[1024];
  if (vkocc_cache_dir(dir, sizeof dir)) { vkocc_clear_error(); return false; }
  snprintf(out, n, "%s/pipeline-%016llx.json", dir, (unsigned long long)key);
  return true;
}

bool pipeline_cache_read(uint64_t key, vkocc_pipeline_result *out) {
  char path[1100];
  json_t *doc;
  if (!cache_path(key, path, sizeof path)) return false;
  if (vkocc_doc_load(path, VKOCC_DOC_PIPELINE_CACHE, &doc)) { vkocc_clear_error(); return false; }
  json_t *P = json_object_get(doc, "P");
  bool ok = json_is_integer(P) && json_integer_value(P) > 0;
  if (ok) {
    out->P = out->probe.P = (uint32_t)json_integer_value(P);
    out->from_cache = true;
  }
  json_decref(doc);
  return ok;
}

void pipeline_cache_write(uint64_t key, const vkocc_pipeline_result *r) {
  char path[1100];
  if (!cache_path(key, path, sizeof path)) return;
  json_t *doc = json_pack("{s:s, s:s, s:I, s:I, s:I, s:s}", "schema", vkocc_doc_schema_string(VKOCC_DOC_PIPELINE_CACHE), "tool_version",
                          vkocc_version(), "P", (json_int_t)r->P, "wg_size", (json_int_t)r->wg_size, "shared_bytes",
                          (json_int_t)r->shared_bytes, "entry", r->entry);
  if (vkocc_json_write(doc, path)) vkocc_clear_error(); /* a cache that cannot be written is only slower */
  json_decref(doc);
}

