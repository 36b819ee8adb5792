/* The register surface document and the register-model cache (registers_io.h). */
#include "registers_io.h"
#include "internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

json_t *vkocc_register_model_json(const vkocc_register_model *m) {
  if (!m->known) return json_pack("{s:b}", "known", 0);
  json_t *o = json_pack("{s:b, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:b, s:b, s:b, s:I, s:I}", "known", 1,
                        "subgroup_size", (json_int_t)m->subgroup_size, "regs_per_sm", (json_int_t)m->regs_per_sm,
                        "regs_per_sm_max", m->regs_per_sm_max == UINT32_MAX ? json_null() : json_integer(m->regs_per_sm_max),
                        "alloc_unit", (json_int_t)m->alloc_unit, "alloc_unit_per_invocation",
                        (json_int_t)m->alloc_unit_per_invocation, "partitions", (json_int_t)m->partitions,
                        "max_per_invocation", (json_int_t)m->max_per_invocation, "max_capped", m->max_capped,
                        "bound_seen", m->bound_seen, "ambiguous", m->ambiguous, "explained", (json_int_t)m->explained,
                        "total", (json_int_t)m->total);
  json_t *u = json_array();
  for (uint32_t i = 0; i < m->n_unexplained; i++) json_array_append_new(u, json_integer(m->unexplained[i]));
  json_object_set_new(o, "unexplained", u);
  return o;
}

vkocc_status vkocc_register_model_from_json(json_t *o, const char *file, const char *path, vkocc_register_model *m) {
  memset(m, 0, sizeof *m);
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, path);
  vkocc_status s = util_json_bool(o, "known", file, path, true, &m->known);
  if (s || !m->known) return s;
  m->regs_per_sm_max = UINT32_MAX;
  if ((s = util_json_u32(o, "subgroup_size", file, path, true, &m->subgroup_size)) ||
      (s = util_json_u32(o, "regs_per_sm", file, path, true, &m->regs_per_sm)) ||
      (s = util_json_u32(o, "regs_per_sm_max", file, path, false, &m->regs_per_sm_max)) ||
      (s = util_json_u32(o, "alloc_unit", file, path, true, &m->alloc_unit)) ||
      (s = util_json_u32(o, "partitions", file, path, true, &m->partitions)) ||
      (s = util_json_u32(o, "max_per_invocation", file, path, false, &m->max_per_invocation)) ||
      (s = util_json_bool(o, "max_capped", file, path, false, &m->max_capped)) ||
      (s = util_json_bool(o, "bound_seen", file, path, false, &m->bound_seen)) ||
      (s = util_json_bool(o, "ambiguous", file, path, false, &m->ambiguous)) ||
      (s = util_json_u32(o, "explained", file, path, false, &m->explained)) ||
      (s = util_json_u32(o, "total", file, path, false, &m->total)))
    return s;
  if (!m->subgroup_size || !m->regs_per_sm || !m->alloc_unit || !m->partitions || m->partitions > 64)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: subgroup_size, regs_per_sm, alloc_unit and partitions (1..64) must "
                      "be positive", file, path);
  m->alloc_unit_per_invocation = m->alloc_unit / m->subgroup_size;
  return VKOCC_OK;
}

json_t *io_register_points_json(const vkocc_register_point *p, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; i < n; i++)
    json_array_append_new(a, json_pack("{s:I, s:I, s:I, s:I, s:I}", "wg_size", (json_int_t)p[i].wg_size, "requested",
                                       (json_int_t)p[i].requested, "registers", (json_int_t)p[i].registers,
                                       "shared_bytes", (json_int_t)p[i].shared_bytes, "P", (json_int_t)p[i].P));
  return a;
}

json_t *vkocc_register_document(const vkocc_device_info *dev, const vkocc_register_point *p, uint32_t n,
                                const vkocc_derived *base, const char *base_source, const vkocc_register_model *m,
                                const vkocc_vendor_registers *vr) {
  json_t *doc = vkocc_doc_new(VKOCC_DOC_REGISTERS);
  if (dev) json_object_set_new(doc, "device", vkocc_device_info_json(dev));
  json_object_set_new(doc, "points", io_register_points_json(p, n));
  if (base) { /* the device's other limits (their unexplained points belong to another surface) */
    vkocc_derived b = *base;
    b.n_unexplained = 0;
    json_object_set_new(doc, "base", vkocc_derived_json(&b, NULL));
  }
  if (m) json_object_set_new(doc, "register_model", vkocc_register_model_json(m));
  if (base_source) json_object_set_new(doc, "base_source", json_string(base_source));
  if (!vr || !m) return doc;
  /* the vendor's own figures where it reports them (VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties) */
  if (dev && dev->vendor.source[0]) json_object_set_new(doc, "vendor_reported", io_vendor_reported_json(&dev->vendor));
  if (vr->source[0])
    json_object_set_new(doc, "vendor_registers", json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:b}",
        "source", vr->source, "vgprs_per_simd", (json_int_t)vr->vgprs_per_simd, "vgpr_granularity",
        (json_int_t)vr->vgpr_granularity, "min_vgprs", (json_int_t)vr->min_vgprs, "max_vgprs", (json_int_t)vr->max_vgprs,
        "sgprs_per_simd", (json_int_t)vr->sgprs_per_simd, "simds_per_cu", (json_int_t)vr->simds_per_cu, "wavefront_size",
        (json_int_t)vr->wavefront_size, "regs_per_sm", (json_int_t)vr->regs_per_sm, "regs_agree",
        m->regs_per_sm <= vr->regs_per_sm && vr->regs_per_sm <= m->regs_per_sm_max, "unit_agree",
        m->alloc_unit_per_invocation == vr->vgpr_granularity));
  return doc;
}

void vkocc_register_doc_free(vkocc_register_doc *d) {
  free(d->points);
  d->points = NULL;
  d->count = 0;
}

vkocc_status vkocc_register_doc_load(const char *path, vkocc_register_doc *out) {
  memset(out, 0, sizeof *out);
  json_t *doc;
  vkocc_status s = io_doc_load(path, VKOCC_DOC_REGISTERS, &doc);
  if (s) return s;
  json_t *dev = json_object_get(doc, "device"), *pts = json_object_get(doc, "points");
  if (dev && !(s = io_device_info_from_json(dev, path, "$.device", &out->device))) out->has_device = true;
  if (!s && !json_is_array(pts)) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.points: expected an array", path);
  if (!s && json_array_size(pts) == 0) s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.points: no points", path);
  if (!s && json_array_size(pts) > (1u << 20))
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.points: more than 2^20 points", path);
  uint32_t n = s ? 0 : (uint32_t)json_array_size(pts);
  out->points = util_xcalloc(n + 1, sizeof *out->points);
  for (uint32_t i = 0; i < n && !s; i++) {
    char at[48];
    snprintf(at, sizeof at, "$.points[%u]", i);
    json_t *o = json_array_get(pts, i);
    vkocc_register_point *p = &out->points[i];
    if (!json_is_object(o)) { s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", path, at); break; }
    if ((s = util_json_u32(o, "wg_size", path, at, true, &p->wg_size)) ||
        (s = util_json_u32(o, "registers", path, at, true, &p->registers)) ||
        (s = util_json_u32(o, "shared_bytes", path, at, false, &p->shared_bytes)) ||
        (s = util_json_u32(o, "requested", path, at, false, &p->requested)) ||
        (s = util_json_u32(o, "P", path, at, true, &p->P)))
      break;
    if (p->wg_size == 0 || p->wg_size > VKOCC_MAX_WG_SIZE || p->P > VKOCC_MAX_P || p->registers > 65536 ||
        p->shared_bytes > VKOCC_MAX_SHARED_BYTES)
      s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: wg_size 1..%u, registers 0..65536, P 0..%u expected", path, at,
                     VKOCC_MAX_WG_SIZE, VKOCC_MAX_P);
    out->count++;
  }
  /* the same pipeline statistics at the same workgroup size twice with different P: a conflict */
  for (uint32_t i = 0; i < out->count && !s; i++)
    for (uint32_t j = i + 1; j < out->count; j++) {
      const vkocc_register_point *a = &out->points[i], *b = &out->points[j];
      if (a->wg_size == b->wg_size && a->registers == b->registers && a->shared_bytes == b->shared_bytes &&
          a->P != b->P) {
        s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.points[%u] and $.points[%u]: wg %u with %u registers and %u shared "
                       "bytes give P = %u and %u (conflicting points)", path, i, j, a->wg_size, a->registers,
                       a->shared_bytes, a->P, b->P);
        break;
      }
    }
  json_t *base = json_object_get(doc, "base"), *model = json_object_get(doc, "register_model");
  if (!s && base && !(s = vkocc_derived_from_json(base, path, "$.base", &out->base))) out->has_base = true;
  if (!s && model) s = vkocc_register_model_from_json(model, path, "$.register_model", &out->model);
  json_decref(doc);
  if (s) vkocc_register_doc_free(out);
  return s;
}

void vkocc_register_cache_path(const vkocc_device_info *d, char *out, size_t len) {
  char dir[900], uuid[37];
  out[0] = 0;
  if (util_cache_dir(dir, sizeof dir)) { vkocc_clear_error(); return; }
  vkocc_format_uuid(d->uuid, uuid);
  snprintf(out, len, "%s/registers-%s-%08x.json", dir, uuid, d->driver_version);
}

vkocc_status vkocc_register_cache_store(const vkocc_device_info *d, json_t *doc) {
  char path[1024], key[1024];
  vkocc_register_cache_path(d, path, sizeof path);
  if (!path[0]) return vkocc_fail(VKOCC_ERROR_RUNTIME, "no cache directory");
  util_cache_key_any_family(d, "registers", key, sizeof key); /* the register file serves every queue family */
  return util_cache_doc_write(path, vkocc_doc_schema_string(VKOCC_DOC_CACHE_SEAL), doc, key);
}

bool vkocc_register_doc_from_cache(const vkocc_device_info *d, vkocc_register_doc *out) {
  char path[1024], key[1024], mem[64];
  memset(out, 0, sizeof *out);
  vkocc_register_cache_path(d, path, sizeof path);
  if (!path[0]) return false;
  util_cache_key_any_family(d, "registers", key, sizeof key); /* the register file serves every queue family */
  json_t *doc = util_cache_doc_read(path, vkocc_doc_schema_string(VKOCC_DOC_CACHE_SEAL), key); /* a regular file only (a FIFO in its place never blocks) */
  int fd = doc ? util_cache_doc_fd(doc, mem) : -1;
  json_decref(doc);
  bool ok = fd >= 0 && vkocc_register_doc_load(mem, out) == VKOCC_OK; /* the verified bytes, not the file again */
  if (fd >= 0) close(fd);
  vkocc_clear_error();
  return ok;
}

bool vkocc_register_model_from_cache(const vkocc_device_info *d, vkocc_register_model *m) {
  memset(m, 0, sizeof *m);
  vkocc_register_doc doc;
  bool ok = vkocc_register_doc_from_cache(d, &doc);
  if (ok) {
    *m = doc.model;
    vkocc_register_doc_free(&doc);
  }
  vkocc_clear_error();
  return ok && m->known;
}
