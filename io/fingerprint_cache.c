/* The fingerprint cache ($XDG_CACHE_HOME/vkocc) as documents: the name of a device's entry, its reader
 * (vkocc_fingerprint_from_cache; characterize/fingerprint.c measures and writes the entries), and the
 * details a measurement or a cache hit returns. Below the probes, which read the device's cached derived
 * limits (probes/written_apply.c), and the fingerprint writer, which records the other queue families'
 * shared capacity from it (io/fingerprint_v2.c). */
#include "internal.h"
#include "io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Keyed by device UUID, driver version and queue family (the shared memory per SM depends on it on NVIDIA);
 * also by LP_NUM_THREADS, which changes what lavapipe is without changing its UUID. */
void vkocc_fingerprint_cache_path(const vkocc_device_info *d, char *out, size_t len) {
  char dir[900], uuid[37];
  out[0] = 0;
  if (util_cache_dir(dir, sizeof dir)) { vkocc_clear_error(); return; }
  vkocc_format_uuid(d->uuid, uuid);
  const char *lp = getenv("LP_NUM_THREADS");
  snprintf(out, len, "%s/fingerprint-%s-%08x-q%u%s%s.json", dir, uuid, d->driver_version, d->compute_queue_family,
           lp ? "-lp" : "", lp ? lp : "");
  for (char *p = out + strlen(dir) + 1; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '.')) *p = '_';
}

void io_fingerprint_cache_key(const vkocc_device_info *d, char *out, size_t len) {
  util_cache_key(d, "fingerprint", out, len);
}

/* The cached document, when sealed with this device's key (util/cache.c: the device, driver, queue family,
 * driver environment and vkocc's version; an edited or foreign file is a miss), whole, and measured with the
 * method asked for (0: any). The verified document is what the readers below see (a memory file), never
 * the file again. */
bool io_fingerprint_cache_read(const vkocc_device_info *d, const char *path, vkocc_method method, vkocc_fingerprint *fp,
                                  vkocc_fingerprint_details *det) {
  char key[1024], mem[64];
  io_fingerprint_cache_key(d, key, sizeof key);
  json_t *sealed = util_cache_doc_read(path, vkocc_doc_schema_string(VKOCC_DOC_CACHE_SEAL), key); /* regular files only, never blocking */
  if (!sealed) return false;
  int fd = util_cache_doc_fd(sealed, mem);
  json_decref(sealed);
  if (fd < 0) return false;
  json_t *doc = NULL;
  bool loaded = vkocc_fingerprint_load(mem, fp) == VKOCC_OK && !io_doc_load(mem, VKOCC_DOC_FINGERPRINT, &doc);
  if (!loaded) { json_decref(doc); close(fd); return false; }
  const char *v = json_string_value(json_object_get(doc, "tool_version"));
  const char *m = json_string_value(json_object_get(json_object_get(doc, "measurement"), "method"));
  vkocc_method cached = 0;
  /* and only when whole: a file stripped of its device, surface or derived limits is measured again */
  vkocc_surface cs;
  /* the method, when the document names it (one asked for must match) */
  bool ok = v && !strcmp(v, vkocc_version()) && (!m || !vkocc_method_parse(m, NULL, &cached)) &&
            (!method || cached == method) &&
            !io_device_info_from_json(json_object_get(doc, "device"), path, "$.device", &det->device) &&
            !vkocc_derived_from_json(json_object_get(doc, "derived"), path, "$.derived", &det->derived) &&
            vkocc_surface_load(mem, &cs) == VKOCC_OK;
  close(fd);
  if (ok) ok = cs.has_device, vkocc_surface_free(&cs);
  if (!ok) { json_decref(doc); return false; }
  det->document = doc;
  det->from_cache = true;
  det->method = cached;
  return true;
}

bool vkocc_fingerprint_from_cache(const vkocc_device_info *d, vkocc_method method, vkocc_fingerprint *out,
                                  vkocc_fingerprint_details *details) {
  vkocc_fingerprint_details local, *det = details ? details : &local;
  memset(det, 0, sizeof *det);
  vkocc_fingerprint_cache_path(d, det->cache_path, sizeof det->cache_path);
  bool hit = det->cache_path[0] && (unsigned)method <= VKOCC_METHOD_BOTH && io_fingerprint_cache_read(d, det->cache_path, method, out, det);
  vkocc_clear_error();
  if (!details) vkocc_fingerprint_details_free(det);
  return hit;
}

json_t *vkocc_fingerprint_details_json(const vkocc_fingerprint_details *details) {
  return details ? (json_t *)details->document : NULL;
}

void vkocc_fingerprint_details_free(vkocc_fingerprint_details *d) {
  if (!d) return;
  json_decref((json_t *)d->document);
  d->document = NULL;
}
