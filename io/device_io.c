/* The device object of every document (vkocc_device_info), with its queue families and vendor report. */
#include "io.h"
#include "internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define num util_json_number

/* {"flags": {"graphics", "compute", "transfer"}, "vk_queue_flags"}: the object a queue family starts from */
static json_t *queue_flags_json(uint32_t f) {
  return json_pack("{s:{s:b, s:b, s:b}, s:I}", "flags", "graphics", (f & VK_QUEUE_GRAPHICS_BIT) != 0, "compute",
                   (f & VK_QUEUE_COMPUTE_BIT) != 0, "transfer", (f & VK_QUEUE_TRANSFER_BIT) != 0,
                   "vk_queue_flags", (json_int_t)f);
}

/* The flags of a queue-family object: vk_queue_flags if present, else the booleans. */
static vkocc_status queue_flags_from_json(json_t *q, const char *file, const char *path, uint32_t *flags) {
  vkocc_status s = util_json_u32(q, "vk_queue_flags", file, path, false, flags);
  if (s || json_object_get(q, "vk_queue_flags")) return s;
  json_t *f = json_object_get(q, "flags");
  if (!f) return VKOCC_OK;
  char sub[300];
  snprintf(sub, sizeof sub, "%s.flags", path);
  if (!json_is_object(f)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
  bool g = false, c = false, t = false;
  if ((s = util_json_bool(f, "graphics", file, sub, false, &g)) ||
      (s = util_json_bool(f, "compute", file, sub, false, &c)) ||
      (s = util_json_bool(f, "transfer", file, sub, false, &t)))
    return s;
  *flags = (g ? VK_QUEUE_GRAPHICS_BIT : 0) | (c ? VK_QUEUE_COMPUTE_BIT : 0) | (t ? VK_QUEUE_TRANSFER_BIT : 0);
  return VKOCC_OK;
}

/* Optional (documents before vkocc recorded queue families have none): queue_family, queue_families and
 * compute_queue_family. Without them the family is unknown (UINT32_MAX, flags 0). */
static vkocc_status queues_from_json(json_t *o, const char *file, const char *path, vkocc_device_info *d) {
  char sub[300];
  vkocc_status s;
  d->compute_queue_family = UINT32_MAX;
  if ((s = util_json_u32(o, "compute_queue_family", file, path, false, &d->compute_queue_family))) return s;
  json_t *a = json_object_get(o, "queue_families");
  if (a && !json_is_null(a)) {
    snprintf(sub, sizeof sub, "%s.queue_families", path);
    if (!json_is_array(a)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an array", file, sub);
    if (json_array_size(a) > VKOCC_MAX_QUEUE_FAMILIES)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: more than %d queue families", file, sub, VKOCC_MAX_QUEUE_FAMILIES);
    d->queue_family_count = (uint32_t)json_array_size(a);
    for (uint32_t i = 0; i < d->queue_family_count; i++) {
      json_t *q = json_array_get(a, i);
      snprintf(sub, sizeof sub, "%s.queue_families[%u]", path, i);
      if (!json_is_object(q)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
      if ((s = queue_flags_from_json(q, file, sub, &d->queue_families[i].flags)) ||
          (s = util_json_u32(q, "queue_count", file, sub, false, &d->queue_families[i].queue_count)) ||
          (s = util_json_u32(q, "timestamp_valid_bits", file, sub, false, &d->queue_families[i].timestamp_valid_bits)))
        return s;
    }
  }
  json_t *q = json_object_get(o, "queue_family");
  if (q && !json_is_null(q)) {
    snprintf(sub, sizeof sub, "%s.queue_family", path);
    if (!json_is_object(q)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
    char kind[32] = "";
    if ((s = util_json_u32(q, "index", file, sub, true, &d->compute_queue_family)) ||
        (s = queue_flags_from_json(q, file, sub, &d->compute_queue_flags)) ||
        (s = util_json_str(q, "kind", file, sub, false, kind, sizeof kind)) ||
        (s = util_json_str(q, "choice", file, sub, false, d->queue_choice, sizeof d->queue_choice)))
      return s;
    if (kind[0] && strcmp(kind, "compute-only") && strcmp(kind, "graphics+compute") && strcmp(kind, "other") &&
        strcmp(kind, "unknown"))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.kind: expected \"compute-only\" or \"graphics+compute\", found "
                        "\"%s\"", file, sub, kind);
    if (!d->compute_queue_flags && !strcmp(kind, "compute-only")) d->compute_queue_flags = VK_QUEUE_COMPUTE_BIT;
    if (!d->compute_queue_flags && !strcmp(kind, "graphics+compute"))
      d->compute_queue_flags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  } else if (d->compute_queue_family < d->queue_family_count) {
    d->compute_queue_flags = d->queue_families[d->compute_queue_family].flags;
  }
  return VKOCC_OK;
}

json_t *vkocc_device_info_json(const vkocc_device_info *d) {
  char api[32], drv[32], uuid[37];
  vkocc_format_api_version(d->api_version, api);
  vkocc_format_driver_version(d->vendor_id, d->driver_version, drv);
  vkocc_format_uuid(d->uuid, uuid);
  json_t *o = json_object();
#define SET(k, v) json_object_set_new(o, k, v)
  SET("index", json_integer(d->index));
  SET("name", json_string(d->name));
  SET("vendor_id", json_integer(d->vendor_id));
  SET("device_id", json_integer(d->device_id));
  SET("device_type", json_string(vkocc_device_type_name(d->device_type)));
  SET("driver_name", json_string(d->driver_name));
  SET("driver_info", json_string(d->driver_info));
  SET("driver_version", json_string(drv));
  SET("driver_version_raw", json_integer(d->driver_version));
  SET("api_version", json_string(api));
  SET("uuid", json_string(uuid));
  SET("subgroup_size", json_integer(d->subgroup_size));
  SET("max_compute_shared_memory_size", json_integer(d->max_shared_bytes));
  SET("max_compute_work_group_invocations", json_integer(d->max_invocations));
  SET("max_compute_work_group_size_x", json_integer(d->max_wg_size_x));
  SET("max_compute_work_group_count_x", json_integer(d->max_wg_count_x));
  SET("compute_queue_family",
      d->compute_queue_family == UINT32_MAX ? json_null() : json_integer(d->compute_queue_family));
  SET("timestamp_valid_bits", json_integer(d->timestamp_valid_bits));
  /* the family measured on, and every family: on NVIDIA the shared memory per SM depends on it */
  if (d->compute_queue_family != UINT32_MAX && d->compute_queue_flags) {
    json_t *q = queue_flags_json(d->compute_queue_flags);
    json_object_set_new(q, "index", json_integer(d->compute_queue_family));
    json_object_set_new(q, "kind", json_string(vkocc_queue_kind_name(d->compute_queue_flags)));
    json_object_set_new(q, "timestamp_valid_bits", json_integer(d->timestamp_valid_bits));
    if (d->queue_choice[0]) json_object_set_new(q, "choice", json_string(d->queue_choice));
    SET("queue_family", q);
  }
  if (d->queue_family_count) {
    json_t *a = json_array();
    for (uint32_t i = 0; i < d->queue_family_count; i++) {
      json_t *q = queue_flags_json(d->queue_families[i].flags);
      json_object_set_new(q, "index", json_integer(i));
      json_object_set_new(q, "queue_count", json_integer(d->queue_families[i].queue_count));
      json_object_set_new(q, "timestamp_valid_bits", json_integer(d->queue_families[i].timestamp_valid_bits));
      json_array_append_new(a, q);
    }
    SET("queue_families", a);
  }
  SET("timestamp_period", json_real(d->timestamp_period));
  SET("timestamp_compute_and_graphics", json_boolean(d->timestamp_compute_and_graphics));
  SET("shader_clock", json_pack("{s:b, s:b, s:b}", "extension", d->has_shader_clock_ext, "subgroup",
                                d->shader_subgroup_clock, "device", d->shader_device_clock));
  if (d->vendor.source[0]) SET("vendor_reported", io_vendor_reported_json(&d->vendor));
#undef SET
  return o;
}

json_t *io_vendor_reported_json(const vkocc_vendor_reported *v) {
  json_t *o = json_pack("{s:s, s:I, s:I}", "source", v->source, "cores", (json_int_t)v->cores, "warps_per_core",
                        (json_int_t)v->warps_per_core);
  if (v->amd_shader_engines)
    json_object_set_new(o, "amd", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "shader_engines",
                                            (json_int_t)v->amd_shader_engines, "arrays_per_engine",
                                            (json_int_t)v->amd_arrays_per_engine, "cus_per_array",
                                            (json_int_t)v->amd_cus_per_array, "simds_per_cu",
                                            (json_int_t)v->amd_simds_per_cu, "wavefronts_per_simd",
                                            (json_int_t)v->amd_wavefronts_per_simd, "wavefront_size",
                                            (json_int_t)v->amd_wavefront_size, "active_cus",
                                            (json_int_t)v->amd_active_cus));
  return o;
}

vkocc_status io_vendor_reported_from_json(json_t *o, const char *file, const char *path, vkocc_vendor_reported *v) {
  memset(v, 0, sizeof *v);
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, path);
  vkocc_status s;
  if ((s = util_json_str(o, "source", file, path, true, v->source, sizeof v->source)) ||
      (s = util_json_u32(o, "cores", file, path, true, &v->cores)) ||
      (s = util_json_u32(o, "warps_per_core", file, path, true, &v->warps_per_core)))
    return s;
  json_t *amd = json_object_get(o, "amd");
  if (amd) {
    char sub[300];
    snprintf(sub, sizeof sub, "%s.amd", path);
    if (!json_is_object(amd)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
    if ((s = util_json_u32(amd, "shader_engines", file, sub, false, &v->amd_shader_engines)) ||
        (s = util_json_u32(amd, "arrays_per_engine", file, sub, false, &v->amd_arrays_per_engine)) ||
        (s = util_json_u32(amd, "cus_per_array", file, sub, false, &v->amd_cus_per_array)) ||
        (s = util_json_u32(amd, "simds_per_cu", file, sub, false, &v->amd_simds_per_cu)) ||
        (s = util_json_u32(amd, "wavefronts_per_simd", file, sub, false, &v->amd_wavefronts_per_simd)) ||
        (s = util_json_u32(amd, "wavefront_size", file, sub, false, &v->amd_wavefront_size)) ||
        (s = util_json_u32(amd, "active_cus", file, sub, false, &v->amd_active_cus)))
      return s;
  }
  return VKOCC_OK;
}


vkocc_status io_device_info_from_json(json_t *o, const char *file, const char *path, vkocc_device_info *d) {
  memset(d, 0, sizeof *d);
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, path);
  vkocc_status s;
  char uuid[64] = "";
  if ((s = util_json_str(o, "name", file, path, true, d->name, sizeof d->name)) ||
      (s = util_json_str(o, "driver_name", file, path, false, d->driver_name, sizeof d->driver_name)) ||
      (s = util_json_str(o, "driver_info", file, path, false, d->driver_info, sizeof d->driver_info)) ||
      (s = util_json_u32(o, "vendor_id", file, path, false, &d->vendor_id)) ||
      (s = util_json_u32(o, "device_id", file, path, false, &d->device_id)) ||
      (s = util_json_u32(o, "driver_version_raw", file, path, false, &d->driver_version)) ||
      (s = util_json_u32(o, "subgroup_size", file, path, false, &d->subgroup_size)) ||
      (s = util_json_u32(o, "max_compute_shared_memory_size", file, path, false, &d->max_shared_bytes)) ||
      (s = util_json_u32(o, "max_compute_work_group_invocations", file, path, false, &d->max_invocations)) ||
      (s = util_json_u32(o, "max_compute_work_group_size_x", file, path, false, &d->max_wg_size_x)) ||
      (s = util_json_u32(o, "max_compute_work_group_count_x", file, path, false, &d->max_wg_count_x)) ||
      (s = util_json_u32(o, "index", file, path, false, &d->index)) ||
      (s = util_json_u32(o, "timestamp_valid_bits", file, path, false, &d->timestamp_valid_bits)) ||
      (s = util_json_bool(o, "timestamp_compute_and_graphics", file, path, false, &d->timestamp_compute_and_graphics)) ||
      (s = util_json_str(o, "uuid", file, path, false, uuid, sizeof uuid)))
    return s;
  /* what `calc --from FILE --json` repeats: the type, API version, timestamps and clocks the file records */
  double period = 0;
  char type[32] = "", api[32] = "";
  if ((s = util_json_f64(o, "timestamp_period", file, path, false, &period)) ||
      (s = util_json_str(o, "device_type", file, path, false, type, sizeof type)) ||
      (s = util_json_str(o, "api_version", file, path, false, api, sizeof api)))
    return s;
  d->timestamp_period = (float)period;
  d->device_type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  for (uint32_t t = VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU; t <= VK_PHYSICAL_DEVICE_TYPE_CPU; t++)
    if (!strcmp(type, vkocc_device_type_name(t))) d->device_type = t;
  unsigned major = 0, minor = 0, patch = 0;
  if (api[0] && sscanf(api, "%u.%u.%u", &major, &minor, &patch) == 3 && major < 128 && minor < 1024 && patch < 4096)
    d->api_version = VK_MAKE_API_VERSION(0, major, minor, patch);
  json_t *clk = json_object_get(o, "shader_clock");
  if (clk && !json_is_null(clk)) {
    char sub[300];
    snprintf(sub, sizeof sub, "%s.shader_clock", path);
    if (!json_is_object(clk)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, sub);
    if ((s = util_json_bool(clk, "extension", file, sub, false, &d->has_shader_clock_ext)) ||
        (s = util_json_bool(clk, "subgroup", file, sub, false, &d->shader_subgroup_clock)) ||
        (s = util_json_bool(clk, "device", file, sub, false, &d->shader_device_clock)))
      return s;
  }
  if ((s = queues_from_json(o, file, path, d))) return s;
  json_t *vendor = json_object_get(o, "vendor_reported"); /* optional: only devices with a vendor extension */
  if (vendor) {
    char sub[300];
    snprintf(sub, sizeof sub, "%s.vendor_reported", path);
    if ((s = io_vendor_reported_from_json(vendor, file, sub, &d->vendor))) return s;
  }
  if (!d->max_wg_size_x) d->max_wg_size_x = d->max_invocations; /* documents before vkocc recorded it */
  uint32_t nib = 0;
  for (const char *c = uuid; *c && nib < 32; c++) {
    if (*c == '-') continue;
    int v = (*c >= '0' && *c <= '9') ? *c - '0' : (*c >= 'a' && *c <= 'f') ? *c - 'a' + 10 : -1;
    if (v < 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.uuid: expected 32 hex digits", file, path);
    d->uuid[nib / 2] |= (uint8_t)(nib % 2 ? v : v << 4);
    nib++;
  }
  return VKOCC_OK;
}

/* The "vendor_reported" object of surface and fingerprint documents. */
json_t *io_vendor_check_json(const vkocc_vendor_check *c, const char *source) {
  if (!c->available) return NULL;
  return json_pack("{s:s, s:{s:I, s:I, s:b}, s:{s:I, s:I, s:b, s:b}}", "source", source, "sm_count", "reported",
                   (json_int_t)c->sm_reported, "measured", (json_int_t)c->sm_measured, "agree", c->sm_agree,
                   "subgroups_per_sm", "reported", (json_int_t)c->subgroups_reported, "measured",
                   (json_int_t)c->subgroups_measured, "measured_is_lower_bound", c->subgroups_measured_is_lower_bound,
                   "agree", c->subgroups_agree);
}

/* The exact-device key documents and policy databases name a device by: the one format of it. */
static void format_key(uint32_t vendor_id, uint32_t device_id, const char *name, const char *driver_info,
                       const char *driver_name, uint32_t sm_count, char *out, size_t len) {
  snprintf(out, len, "%04x:%04x %s | %s | sm %u", vendor_id, device_id, name, driver_info[0] ? driver_info : driver_name,
           sm_count);
}

void vkocc_device_key(const vkocc_device_info *d, uint32_t sm_count, char *out, size_t len) {
  format_key(d->vendor_id, d->device_id, d->name, d->driver_info, d->driver_name, sm_count, out, len);
}

static void identity_key(vkocc_device_identity *id) {
  format_key(id->vendor_id, id->device_id, id->name, id->driver_info, id->driver_name, id->sm_count, id->key,
             sizeof id->key);
}

void vkocc_device_identity_of(const vkocc_device_info *d, uint32_t sm_count, vkocc_device_identity *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", d->name);
  out->vendor_id = d->vendor_id, out->device_id = d->device_id, out->device_type = d->device_type;
  snprintf(out->driver_name, sizeof out->driver_name, "%s", d->driver_name);
  snprintf(out->driver_info, sizeof out->driver_info, "%s", d->driver_info);
  out->driver_version = d->driver_version;
  memcpy(out->uuid, d->uuid, sizeof out->uuid);
  out->queue_family = d->compute_queue_family, out->queue_flags = d->compute_queue_flags;
  out->sm_count = sm_count;
  identity_key(out);
}

bool vkocc_device_identity_same(const vkocc_device_identity *id, const vkocc_device_info *d, char *why, size_t len) {
  static const uint8_t none[16];
  bool uuid = memcmp(id->uuid, none, 16) != 0 && memcmp(id->uuid, d->uuid, 16) != 0;
  bool driver = strcmp(id->driver_name, d->driver_name) || strcmp(id->driver_info, d->driver_info) ||
                id->driver_version != d->driver_version;
  if (!uuid && !driver) return true;
  if (why && len) {
    char a[37], b[37];
    vkocc_format_uuid(id->uuid, a), vkocc_format_uuid(d->uuid, b);
    snprintf(why, len, "measured on %s (UUID %s, driver %s %s, version 0x%x), not on this device %s (UUID %s, driver "
             "%s %s, version 0x%x)", id->name, a, id->driver_name, id->driver_info, id->driver_version, d->name, b,
             d->driver_name, d->driver_info, d->driver_version);
  }
  return false;
}

void io_device_identity_set_sm_count(vkocc_device_identity *id, uint32_t sm_count) {
  id->sm_count = sm_count;
  identity_key(id);
}

/* The short form: what tuning results record of the device (the key ties them to policy entries). */
json_t *io_device_identity_json(const vkocc_device_identity *id) {
  return json_pack("{s:s, s:I, s:I, s:s, s:s, s:I, s:I, s:s}", "name", id->name, "vendor_id", (json_int_t)id->vendor_id,
                   "device_id", (json_int_t)id->device_id, "driver_name", id->driver_name, "driver_info",
                   id->driver_info, "driver_version", (json_int_t)id->driver_version, "sm_count",
                   (json_int_t)id->sm_count, "key", id->key);
}

vkocc_status io_device_identity_from_json(json_t *o, const char *file, const char *path, bool need_key,
                                             vkocc_device_identity *id) {
  memset(id, 0, sizeof *id);
  id->queue_family = UINT32_MAX;
  if (!json_is_object(o)) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: expected an object", file, path);
  vkocc_status s;
  if (json_object_get(o, "driver_version_raw") || json_object_get(o, "uuid")) {
    /* the whole device object of a measurement */
    vkocc_device_info d;
    if ((s = io_device_info_from_json(o, file, path, &d))) return s;
    vkocc_device_identity_of(&d, 0, id);
    return VKOCC_OK;
  }
  /* the short form (tuning results; a normalized fingerprint's name and driver) */
  if ((s = util_json_str(o, "name", file, path, true, id->name, sizeof id->name)) ||
      (s = util_json_str(o, "key", file, path, need_key, id->key, sizeof id->key)) ||
      (s = util_json_str(o, "driver_name", file, path, false, id->driver_name, sizeof id->driver_name)) ||
      (s = util_json_str(o, "driver_info", file, path, false, id->driver_info, sizeof id->driver_info)) ||
      (s = util_json_u32(o, "vendor_id", file, path, false, &id->vendor_id)) ||
      (s = util_json_u32(o, "device_id", file, path, false, &id->device_id)) ||
      (s = util_json_u32(o, "driver_version", file, path, false, &id->driver_version)) ||
      (s = util_json_u32(o, "sm_count", file, path, false, &id->sm_count)))
    return s;
  if (!id->key[0]) identity_key(id);
  return VKOCC_OK;
}

/* The device identity of any stamped document, where the schema table says it lives. */
vkocc_status io_doc_device(json_t *doc, const char *file, vkocc_device_identity *id, bool *has) {
  memset(id, 0, sizeof *id);
  id->queue_family = UINT32_MAX;
  *has = false;
  const char *schema = json_string_value(json_object_get(doc, "schema")), *slash = schema ? strchr(schema, '/') : NULL;
  char name[64] = "";
  if (slash && (size_t)(slash - schema) < sizeof name) memcpy(name, schema, (size_t)(slash - schema));
  const io_doc_schema *d = io_doc_schema_of(name);
  if (!d) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.schema: not a document of vkocc (found %s%s%s)", file,
                            schema ? "\"" : "", schema ? schema : "none", schema ? "\"" : "");
  vkocc_status s = io_doc_check(doc, file, d->name);
  if (s || !d->device) return s;
  json_t *dev = json_object_get(doc, d->device);
  if (!dev) return VKOCC_OK; /* optional where the document allows it (a surface from a CSV, calc of one) */
  char path[80];
  snprintf(path, sizeof path, "$.%s", d->device);
  if ((s = io_device_identity_from_json(dev, file, path, !strcmp(d->name, VKOCC_DOC_TUNE_RESULTS), id))) return s;
  if (!strcmp(d->name, VKOCC_DOC_FINGERPRINT)) io_device_identity_set_sm_count(id, io_fingerprint_doc_sm_count(doc));
  *has = true;
  return VKOCC_OK;
}

vkocc_status vkocc_document_device(const char *path, vkocc_device_identity *out) {
  vkocc_clear_error();
  void *text;
  size_t len;
  json_error_t e;
  vkocc_status s = util_read_file(path, &text, &len);
  if (s) return s;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
  free(text);
  if (!doc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s:%d:%d: invalid JSON: %s", path, e.line, e.column, e.text);
  bool has = false;
  if (!(s = io_doc_device(doc, path, out, &has)) && !has) {
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.device: this %s document names no device", path, schema);
  }
  json_decref(doc);
  return s;
}
