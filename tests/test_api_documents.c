/* The public header's documents (JSON through jansson), used as a client does: vkocc.h and <jansson.h> only.
 * The stamp first in the object, the structs' JSON read back, the whole register document with the vendor's
 * figures, and its sealed cache entry read back through the public reader. No device. */
#include "check.h"
#include "vkocc.h"
#include <jansson.h>
#include <stdlib.h>

static const char *key_at(json_t *o, size_t i) {
  size_t k = 0;
  for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it), k++)
    if (k == i) return json_object_iter_key(it);
  return "";
}

int main(int argc, char **argv) {
  const char *data = argc > 1 ? argv[1] : "tests/data";
  char path[1024], tmp[] = "/tmp/vkocc-docs-XXXXXX";
  if (!mkdtemp(tmp)) { perror("mkdtemp"); return 1; }
  setenv("XDG_CACHE_HOME", tmp, 1);

  /* the stamp: "schema" and "tool_version" first, the members already there after them */
  CHECK(!strcmp(vkocc_doc_schema_string(VKOCC_DOC_CALC), "vkocc.calc/1"), "%s", vkocc_doc_schema_string(VKOCC_DOC_CALC));
  CHECK(!strcmp(vkocc_doc_schema_string(VKOCC_DOC_DEVICES_SUMMARY), "vkocc.devices-summary/1"), "devices summary");
  json_t *doc = vkocc_doc_stamp(json_pack("{s:i, s:s}", "a", 1, "schema", "old"), VKOCC_DOC_CLUSTERS);
  CHECK(!strcmp(key_at(doc, 0), "schema") && !strcmp(key_at(doc, 1), "tool_version") && !strcmp(key_at(doc, 2), "a"),
        "order %s %s %s", key_at(doc, 0), key_at(doc, 1), key_at(doc, 2));
  CHECK(!strcmp(json_string_value(json_object_get(doc, "schema")), "vkocc.clusters/1"), "stamp replaced");
  CHECK(!strcmp(json_string_value(json_object_get(doc, "tool_version")), vkocc_version()), "tool_version");
  CHECK_EQ_U(json_object_size(doc), 3);
  json_decref(doc);
  doc = vkocc_doc_new(VKOCC_DOC_PROBE);
  CHECK(json_object_size(doc) == 2 && !strcmp(json_string_value(json_object_get(doc, "schema")), "vkocc.probe/1"), "new");
  json_decref(doc);

  /* a surface with its device: the derived limits through JSON and back */
  snprintf(path, sizeof path, "%s/surface-h100.json", data);
  vkocc_surface s;
  vkocc_derived d, back;
  CHECK(vkocc_surface_load(path, &s) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(vkocc_derive(s.points, s.count, s.subgroup_size, &d) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(d.sm_count, 132);
  json_t *dj = vkocc_derived_json(&d, &s);
  CHECK(vkocc_derived_from_json(dj, "mem", "$.derived", &back) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(back.sm_count == 132 && back.wg_per_sm == d.wg_per_sm && back.subgroups_per_sm == d.subgroups_per_sm &&
            back.shared_per_sm == d.shared_per_sm && back.threads_per_sm == d.threads_per_sm,
        "derived back: %u SMs, %u wg, %u sg, %u B", back.sm_count, back.wg_per_sm, back.subgroups_per_sm,
        back.shared_per_sm);
  json_object_set_new(dj, "sm_count", json_string("many"));
  CHECK(vkocc_derived_from_json(dj, "t.json", "$.derived", &back) == VKOCC_ERROR_USAGE, "a string SM count read");
  CHECK_CONTAINS(vkocc_last_error(), "t.json");
  CHECK_CONTAINS(vkocc_last_error(), "$.derived");
  json_decref(dj);
  json_t *devj = vkocc_device_info_json(&s.device);
  CHECK(!strcmp(json_string_value(json_object_get(devj, "name")), s.device.name), "device name");
  json_decref(devj);

  /* the register document with the vendor's figures, and the model read back from it */
  snprintf(path, sizeof path, "%s/registers-synthetic-h100.json", data);
  vkocc_register_doc rd;
  vkocc_register_model m, m2;
  CHECK(vkocc_register_doc_load(path, &rd) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(vkocc_derive_registers(rd.points, rd.count, &rd.base, &m) == VKOCC_OK && m.known, "%s", vkocc_last_error());
  vkocc_device_info dev = s.device;
  snprintf(dev.vendor.source, sizeof dev.vendor.source, "VK_NV_shader_sm_builtins");
  dev.vendor.cores = 132, dev.vendor.warps_per_core = 64;
  vkocc_vendor_registers vr = {.regs_per_sm = m.regs_per_sm, .vgpr_granularity = m.alloc_unit_per_invocation};
  snprintf(vr.source, sizeof vr.source, "synthetic");
  doc = vkocc_register_document(&dev, rd.points, rd.count, &rd.base, "the test's base", &m, &vr);
  const char *order[] = {"schema", "tool_version", "device", "points", "base", "register_model", "base_source",
                         "vendor_reported", "vendor_registers"};
  CHECK_EQ_U(json_object_size(doc), 9);
  for (size_t i = 0; i < 9; i++) CHECK(!strcmp(key_at(doc, i), order[i]), "member %zu: %s, expected %s", i, key_at(doc, i), order[i]);
  CHECK(!strcmp(json_string_value(json_object_get(doc, "schema")), "vkocc.registers/1"), "register schema");
  CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(doc, "vendor_reported"), "cores")), 132);
  json_t *vj = json_object_get(doc, "vendor_registers");
  CHECK(json_is_true(json_object_get(vj, "regs_agree")) && json_is_true(json_object_get(vj, "unit_agree")), "agree");
  CHECK_EQ_U(json_array_size(json_object_get(doc, "points")), rd.count);
  CHECK(vkocc_register_model_from_json(json_object_get(doc, "register_model"), "mem", "$.register_model", &m2) == VKOCC_OK,
        "%s", vkocc_last_error());
  CHECK(m2.known && m2.regs_per_sm == m.regs_per_sm && m2.alloc_unit == m.alloc_unit && m2.partitions == m.partitions,
        "model back: %u regs, unit %u, %u partitions", m2.regs_per_sm, m2.alloc_unit, m2.partitions);
  /* without base_source and vr: neither they nor the vendor's figures */
  json_t *plain = vkocc_register_document(&dev, rd.points, rd.count, &rd.base, NULL, &m, NULL);
  CHECK(json_object_size(plain) == 6 && !json_object_get(plain, "vendor_reported") && !json_object_get(plain, "base_source"),
        "plain document: %zu members", json_object_size(plain));
  json_decref(plain);

  /* the sealed cache entry, read back whole by the public reader; an edited entry is a miss */
  CHECK(vkocc_register_cache_store(&dev, doc) == VKOCC_OK, "%s", vkocc_last_error());
  vkocc_register_doc cached;
  CHECK(vkocc_register_doc_from_cache(&dev, &cached), "the stored entry is a miss");
  CHECK(cached.count == rd.count && cached.model.known && cached.model.regs_per_sm == m.regs_per_sm, "cached: %u points",
        cached.count);
  vkocc_register_doc_free(&cached);
  char cache[1024];
  vkocc_register_cache_path(&dev, cache, sizeof cache);
  json_t *sealed = json_load_file(cache, 0, NULL);
  CHECK(json_is_object(json_object_get(sealed, "cache")), "no seal in %s", cache);
  json_object_set_new(json_object_get(sealed, "register_model"), "regs_per_sm", json_integer(1));
  json_dump_file(sealed, cache, JSON_INDENT(2));
  json_decref(sealed);
  CHECK(!vkocc_register_doc_from_cache(&dev, &cached), "an edited entry was read");
  unlink(cache);
  json_decref(doc);

  /* the surface document, whole */
  vkocc_calibration cal = {0};
  doc = vkocc_surface_document(&s, &cal, &d, -1);
  CHECK(!strcmp(json_string_value(json_object_get(doc, "schema")), "vkocc.surface/1"), "surface schema");
  CHECK(json_is_object(json_object_get(doc, "derived")) && json_is_object(json_object_get(doc, "calibration")),
        "surface document without derived limits or calibration");
  json_decref(doc);

  vkocc_register_doc_free(&rd);
  vkocc_surface_free(&s);
  char dir[1200];
  snprintf(dir, sizeof dir, "%s/vkocc", tmp);
  rmdir(dir);
  rmdir(tmp);
  return check_report();
}
