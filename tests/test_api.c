/* The library API that needs no device: per-limit counts and the workgroup-size suggestion on
 * synthetic derived limits (ties to the larger size, a shared-memory-bound and a workgroup-slot-bound case,
 * agreement with the occupancy model over a sweep), the presets, method names, vkocc_fingerprint_save
 * (atomic, bad paths), vkocc_last_error being cleared by a call that succeeds, and the device identity of
 * documents. */
#include "check.h"
#include "io.h"
#include "vkocc.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static vkocc_derived model(uint32_t sms, uint32_t W, uint32_t S, uint32_t sg, uint32_t M, bool m_seen) {
  vkocc_derived d = {.sm_count = sms, .wg_per_sm = W, .subgroups_per_sm = S, .subgroups_per_sm_max = S,
                     .subgroups_bound_seen = true, .subgroup_size = sg, .threads_per_sm = S * sg,
                     .shared_per_sm = M, .shared_per_sm_max = M, .shared_bound_seen = m_seen};
  return d;
}

static uint32_t fixed_shared(void *user, uint32_t wg) { (void)wg; return *(const uint32_t *)user; }
static uint32_t none_fit(void *user, uint32_t wg) { (void)user; (void)wg; return VKOCC_NO_LIMIT; }
/* only sizes that are multiples of 96 can be used (a kernel's tiling), others report VKOCC_NO_LIMIT */
static uint32_t tiles_of_96(void *user, uint32_t wg) { (void)user; return wg % 96 ? VKOCC_NO_LIMIT : 0; }

static void test_limits(void) {
  /* H100-like: 32 workgroup slots, 64 subgroups of 32 (2048 threads), 100 KiB shared memory per SM */
  vkocc_derived d = model(132, 32, 64, 32, 102400, true);
  vkocc_limits_per_sm l;
  vkocc_limits_per_sm_compute(&d, 96, 8192, &l);
  CHECK_EQ_U(l.workgroup_slots, 32);
  CHECK_EQ_U(l.subgroup_slots, 21);  /* 64 / ceil(96 / 32) */
  CHECK_EQ_U(l.threads, 21);         /* 2048 / 96 */
  CHECK_EQ_U(l.shared_memory, 12);   /* 102400 / 8192 */
  CHECK(l.registers == VKOCC_NO_LIMIT, "registers are unknown in Vulkan");
  CHECK_EQ_U(l.wg_per_sm, 12);
  CHECK_EQ_U(l.binding, VKOCC_LIMIT_SHARED);
  /* no shared memory: that limit does not apply */
  vkocc_limits_per_sm_compute(&d, 1024, 0, &l);
  CHECK(l.shared_memory == VKOCC_NO_LIMIT, "shared_memory at 0 bytes: %u", l.shared_memory);
  CHECK_EQ_U(l.wg_per_sm, 2);
  CHECK_EQ_U(l.binding, VKOCC_LIMIT_SUBGROUPS);
  /* M never seen binding is a lower bound only: like the model, it does not limit */
  vkocc_derived lb = model(1, 32, 64, 32, 16384, false);
  vkocc_limits_per_sm_compute(&lb, 64, 16384, &l);
  CHECK(l.shared_memory == VKOCC_NO_LIMIT && l.wg_per_sm == 32, "unseen M: shared %u, wg/SM %u", l.shared_memory,
        l.wg_per_sm);
  /* the counts agree with the occupancy model everywhere (a sweep, odd sizes included) */
  uint32_t bad = 0;
  for (uint32_t wg = 1; wg <= 1024; wg += 7)
    for (uint32_t sh = 0; sh <= 102400; sh += 4099) {
      vkocc_occupancy oc;
      vkocc_occupancy_compute(&d, wg, sh, &oc);
      vkocc_limits_per_sm_compute(&d, wg, sh, &l);
      if (l.wg_per_sm != oc.wg_per_sm || l.binding != oc.binding) bad++;
    }
  CHECK(bad == 0, "%u points where the per-limit counts disagree with vkocc_occupancy_compute", bad);
}

static void test_suggest(void) {
  vkocc_derived d = model(132, 32, 64, 32, 102400, true);
  vkocc_wg_suggestion w;
  /* no shared memory: every size from 64 to 1024 reaches 100%; ties go to the larger size */
  CHECK(vkocc_suggest_wg_size(&d, NULL, NULL, 1024, 0, &w) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(w.wg_size, 1024);
  CHECK_NEAR(w.occupancy.occupancy_pct, 100, 1e-9);
  CHECK_EQ_U(w.candidates, 32);
  /* up to 1000: 992 threads are 31 subgroups, 2 fit (97%); the largest size at 100% is 512 (16 subgroups) */
  CHECK(vkocc_suggest_wg_size(&d, NULL, NULL, 1000, 0, &w) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(w.wg_size, 512);
  CHECK_EQ_U(w.candidates, 31);
  /* shared-memory bound: 20000 bytes per workgroup, 3 fit in 64 KiB; up to 512 threads the best is 512
   * (3 x 512 = 1536 threads, 75%), with shared memory binding (subgroup slots would allow 4) */
  uint32_t sh = 20000;
  d = model(132, 32, 64, 32, 65536, true);
  CHECK(vkocc_suggest_wg_size(&d, fixed_shared, &sh, 512, 0, &w) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(w.wg_size, 512);
  CHECK_EQ_U(w.shared_bytes, 20000);
  CHECK_EQ_U(w.limits.wg_per_sm, 3);
  CHECK_EQ_U(w.limits.subgroup_slots, 4);
  CHECK_EQ_U(w.limits.binding, VKOCC_LIMIT_SHARED);
  CHECK_NEAR(w.occupancy.occupancy_pct, 75, 1e-9);
  CHECK_EQ_U(w.occupancy.wgs, 3 * 132); /* device totals with the SM count */
  /* the same up to 1024: 1024 threads x 2 = 100% beats 512 x 3 */
  CHECK(vkocc_suggest_wg_size(&d, fixed_shared, &sh, 1024, 0, &w) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(w.wg_size, 1024);
  /* workgroup-slot bound: 16 slots; up to 64 threads the answer is 64 (16 x 64 = 1024 threads), bound by slots */
  vkocc_derived ws = model(0, 16, 64, 32, 65536, true); /* SM count unknown: values per SM still work */
  CHECK(vkocc_suggest_wg_size(&ws, NULL, NULL, 64, 0, &w) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(w.wg_size, 64);
  CHECK_EQ_U(w.limits.wg_per_sm, 16);
  CHECK_EQ_U(w.limits.binding, VKOCC_LIMIT_WORKGROUPS);
  CHECK_NEAR(w.occupancy.occupancy_pct, 50, 1e-9);
  CHECK_EQ_U(w.occupancy.wgs, 0); /* no device totals without the SM count */
  /* sizes a kernel cannot use are skipped; none left is a usage error */
  CHECK(vkocc_suggest_wg_size(&d, tiles_of_96, NULL, 1024, 0, &w) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(w.wg_size % 96 == 0 && w.candidates == 10, "tiles of 96: wg %u of %u candidates", w.wg_size, w.candidates);
  CHECK(vkocc_suggest_wg_size(&d, none_fit, NULL, 1024, 0, &w) == VKOCC_ERROR_USAGE, "none fits");
  CHECK_CONTAINS(vkocc_last_error(), "none of 0 candidate sizes");
  /* more shared memory than the device allows per workgroup */
  sh = 60000;
  CHECK(vkocc_suggest_wg_size(&d, fixed_shared, &sh, 1024, 49152, &w) == VKOCC_ERROR_USAGE, "above the maximum");
  vkocc_derived empty = {0};
  CHECK(vkocc_suggest_wg_size(&empty, NULL, NULL, 0, 0, &w) == VKOCC_ERROR_USAGE, "no limits");
  /* a success clears the message of the failure before */
  CHECK(vkocc_suggest_wg_size(&d, NULL, NULL, 0, 0, &w) == VKOCC_OK && vkocc_last_error()[0] == 0,
        "last error after a success: '%s'", vkocc_last_error());
  CHECK_EQ_U(w.wg_size, 2048); /* 0: up to the threads per SM; one workgroup of 2048 is 100% too: the larger */
}

static void test_presets(void) {
  vkocc_calibrate_options q, f;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &q);
  vkocc_calibrate_preset(VKOCC_CALIBRATION_FULL, &f);
  CHECK(q.lengths == 4 && q.repeats == 3 && q.longest_ns == 1e6, "quick: %u %u %g", q.lengths, q.repeats, q.longest_ns);
  CHECK(f.lengths == 0 && f.repeats == 0 && f.longest_ns == 0, "full: the defaults");
  const vkocc_method ms[] = {0, VKOCC_METHOD_COMB, VKOCC_METHOD_BISECT, VKOCC_METHOD_BOTH};
  for (int i = 0; i < 4; i++) {
    vkocc_method m = 99;
    CHECK(vkocc_method_parse(vkocc_method_name(ms[i]), "--method", &m) == VKOCC_OK && m == ms[i], "round trip %d", i);
  }
  vkocc_method m;
  CHECK(vkocc_method_parse("combs", "--method", &m) == VKOCC_ERROR_USAGE, "bad method");
  CHECK_CONTAINS(vkocc_last_error(), "--method 'combs': expected comb, bisect, both or auto");
  vkocc_device_info di = {.max_invocations = 1024, .max_wg_size_x = 512};
  CHECK_EQ_U(vkocc_device_max_wg_size(&di), 512);
  di.max_wg_size_x = 2048;
  CHECK_EQ_U(vkocc_device_max_wg_size(&di), 1024);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = calloc(1, 1 << 20);
  size_t n = fread(b, 1, (1 << 20) - 1, f);
  b[n] = 0;
  fclose(f);
  return b;
}

static void test_save(const char *data) {
  char dir[] = "/tmp/vkocc-api-XXXXXX", path[300], src[300];
  if (!mkdtemp(dir)) { CHECK(0, "mkdtemp"); return; }
  snprintf(src, sizeof src, "%s/fp-hopper-132.json", data);
  vkocc_fingerprint fp, back;
  CHECK(vkocc_fingerprint_load(src, &fp) == VKOCC_OK, "%s", vkocc_last_error());
  /* without details: the normalized part and the device's name, read back to the same fingerprint */
  snprintf(path, sizeof path, "%s/fp.json", dir);
  check_write_tmp(dir, "fp.json", "old content");
  CHECK(vkocc_fingerprint_save(&fp, NULL, path) == VKOCC_OK, "save: %s", vkocc_last_error());
  CHECK(vkocc_fingerprint_load(path, &back) == VKOCC_OK, "reload: %s", vkocc_last_error());
  CHECK(!strcmp(back.cluster_id, fp.cluster_id) && !strcmp(back.device_name, "hopper (132 SMs)"), "%s %s",
        back.cluster_id, back.device_name);
  char *text = slurp(path);
  CHECK_CONTAINS(text, "\"schema\": \"vkocc.fingerprint/3\"");
  CHECK_CONTAINS(text, "\"tool_version\": ");
  free(text);
  /* bad paths: a directory, a missing directory; nothing written, the old file kept */
  CHECK(vkocc_fingerprint_save(&fp, NULL, dir) == VKOCC_ERROR_USAGE, "a directory");
  snprintf(path, sizeof path, "%s/missing/fp.json", dir);
  CHECK(vkocc_fingerprint_save(&fp, NULL, path) != VKOCC_OK, "missing directory");
  CHECK_CONTAINS(vkocc_last_error(), path);
  CHECK(vkocc_fingerprint_save(&fp, NULL, "") == VKOCC_ERROR_USAGE, "empty path");
  char cmd[400];
  snprintf(cmd, sizeof cmd, "ls -A %s", dir);
  FILE *p = popen(cmd, "r");
  char list[256] = "";
  size_t n = p ? fread(list, 1, sizeof list - 1, p) : 0;
  list[n] = 0;
  if (p) pclose(p);
  CHECK(!strcmp(list, "fp.json\n"), "only fp.json in the directory (no temporaries): '%s'", list);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0, "cleanup");
}

/* one stamp for every document: schema NAME/1 and tool_version, first, whatever the object held */
static void test_stamp(void) {
  json_t *doc = json_pack("{s:i, s:s}", "a", 1, "schema", "old/7");
  vkocc_doc_stamp(doc, "vkocc.test");
  char *text = json_dumps(doc, JSON_COMPACT);
  char want[128];
  snprintf(want, sizeof want, "{\"schema\":\"vkocc.test/%d\",\"tool_version\":\"%s\",\"a\":1}", VKOCC_SCHEMA_VERSION,
           vkocc_version());
  CHECK(text && !strcmp(text, want), "stamped: %s", text ? text : "(null)");
  free(text);
  json_decref(doc);
  json_t *v2 = json_pack("{s:s}", "schema", "vkocc.test/2");
  CHECK(util_json_check_schema(v2, "f.json", "vkocc.test") == VKOCC_ERROR_USAGE, "version 2 refused");
  json_decref(v2);
  CHECK_CONTAINS(vkocc_last_error(), "f.json: $.schema: version 2 of vkocc.test is not supported");
}

/* The device identity every document carries: one reader for the whole device object of a measurement and the
 * short form of tuning results, the key the same either way, a fingerprint's derived SM count in it, and a
 * document without a device or a malformed one refused with the file and JSON path. */
static void test_device_identity(const char *data) {
  char path[1024];
  vkocc_device_identity a, b;
  snprintf(path, sizeof path, "%s/surface-h100.json", data);
  CHECK(vkocc_document_device(path, &a) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(!strcmp(a.name, "NVIDIA H100 80GB HBM3"), "name %s", a.name);
  CHECK_EQ_U(a.vendor_id, 0x10de);
  CHECK_EQ_U(a.device_id, 0x2330);
  CHECK_EQ_U(a.driver_version, 2435301632u);
  CHECK_EQ_U(a.device_type, 2); /* VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU */
  CHECK(a.uuid[0] == 0x13 && a.uuid[1] == 0x97 && a.uuid[15] == 0x26, "uuid %02x%02x..%02x", a.uuid[0], a.uuid[1], a.uuid[15]);
  CHECK_EQ_U(a.queue_family, 2);
  CHECK_EQ_U(a.sm_count, 0); /* a surface holds no derived limits */
  CHECK(!strcmp(a.key, "10de:2330 NVIDIA H100 80GB HBM3 | 580.159.04 | sm 0"), "key %s", a.key);
  /* a fingerprint: the same device with the SM count its derived limits hold, as tuning results key it */
  snprintf(path, sizeof path, "%s/fp-h100-v2-registers.json", data);
  CHECK(vkocc_document_device(path, &b) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(b.sm_count, 132);
  CHECK(!strcmp(b.key, "10de:2330 NVIDIA H100 80GB HBM3 | 580.159.04 | sm 132"), "key %s", b.key);
  /* the short form written back and read again: the same identity and key */
  json_t *o = io_device_identity_json(&b);
  vkocc_device_identity c;
  CHECK(io_device_identity_from_json(o, "mem", "$.device", true, &c) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(!strcmp(c.key, b.key) && !strcmp(c.name, b.name) && c.sm_count == 132 && c.driver_version == b.driver_version &&
        c.vendor_id == b.vendor_id && c.device_id == b.device_id, "short form: %s", c.key);
  CHECK_EQ_U(c.queue_family, UINT32_MAX); /* the short form does not record it */
  json_object_del(o, "key");
  CHECK(io_device_identity_from_json(o, "mem", "$.device", true, &c) == VKOCC_ERROR_USAGE, "key required");
  CHECK_CONTAINS(vkocc_last_error(), "mem: $.device.key");
  CHECK(io_device_identity_from_json(o, "mem", "$.device", false, &c) == VKOCC_OK && !strcmp(c.key, b.key),
        "key computed: %s", c.key);
  json_decref(o);
  /* the identity of a device as vkocc_device_key names it */
  vkocc_device_info d = {.vendor_id = 0x10005, .device_id = 0, .name = "llvmpipe", .driver_name = "llvmpipe",
                         .compute_queue_family = 0, .compute_queue_flags = 7};
  char key[600];
  vkocc_device_key(&d, 2, key, sizeof key);
  vkocc_device_identity_of(&d, 2, &c);
  CHECK(!strcmp(c.key, key) && !strcmp(key, "10005:0000 llvmpipe | llvmpipe | sm 2"), "key %s / %s", c.key, key);
  CHECK_EQ_U(c.queue_family, 0);
  CHECK_EQ_U(c.queue_flags, 7);
  /* documents that name no device, and files that are no documents */
  snprintf(path, sizeof path, "%s/policy-db.json", data);
  CHECK(vkocc_document_device(path, &c) == VKOCC_ERROR_USAGE, "a policy database names no device");
  CHECK_CONTAINS(vkocc_last_error(), "policy-db.json: $.device: this vkocc.policy-db/1 document names no device");
  snprintf(path, sizeof path, "%s/h100-grid.csv", data);
  CHECK(vkocc_document_device(path, &c) == VKOCC_ERROR_USAGE, "a CSV is no document");
  CHECK_CONTAINS(vkocc_last_error(), "h100-grid.csv");
  json_t *doc = json_pack("{s:s, s:{s:i}}", "schema", "vkocc.probe/1", "device", "name", 5);
  bool has = true;
  CHECK(io_doc_device(doc, "p.json", &c, &has) == VKOCC_ERROR_USAGE && !has, "a malformed device accepted");
  CHECK_CONTAINS(vkocc_last_error(), "p.json: $.device.name");
  json_decref(doc);
}

/* Policy documents from results files through the public calls: the database written and returned as text,
 * read back by vkocc_policy_db_load; the transfer report; no results, or a file that is no results, refused. */
static void test_policy_documents(const char *data) {
  char h[1024], r[1024], db[1024];
  snprintf(h, sizeof h, "%s/../../docs/results/lavapipe/tune/lp2/histogram-u32.json", data);
  snprintf(r, sizeof r, "%s/../../docs/results/lavapipe/tune/lp2/reduce-u32.json", data);
  snprintf(db, sizeof db, "/tmp/vkocc-test-api-db-%d.json", (int)getpid());
  const char *results[] = {h, r};
  char *text = NULL;
  CHECK(vkocc_policy_build(results, 2, false, db, &text) == VKOCC_OK, "build: %s", vkocc_last_error());
  CHECK(text && strstr(text, "\"schema\": \"vkocc.policy-db/2\"") && text[strlen(text) - 1] == '\n', "text: %.80s",
        text ? text : "(null)");
  vkocc_policy_db *pdb = NULL;
  CHECK(vkocc_policy_db_load(db, &pdb) == VKOCC_OK, "load: %s", vkocc_last_error());
  vkocc_policy_choice ch;
  vkocc_policy_var vars[] = {{"element_type", "u32"}};
  CHECK(pdb && vkocc_policy_select(pdb, "histogram", NULL, vars, 1, 0, &ch) == VKOCC_OK && ch.rule == VKOCC_POLICY_DEFAULT,
        "select: %s", vkocc_last_error());
  if (pdb) vkocc_policy_choice_free(&ch);
  vkocc_policy_db_free(pdb);
  free(text);
  unlink(db);
  CHECK(vkocc_policy_transfer(results, 2, true, 0, NULL, &text) == VKOCC_OK, "transfer: %s", vkocc_last_error());
  CHECK(text && strstr(text, "\"schema\": \"vkocc.policy-transfer/1\""), "transfer text");
  free(text);
  CHECK(vkocc_policy_build(results, 0, false, NULL, NULL) == VKOCC_ERROR_USAGE, "no results accepted");
  CHECK_CONTAINS(vkocc_last_error(), "no tuning results given");
  char fp[1024];
  snprintf(fp, sizeof fp, "%s/fp-hopper-132.json", data);
  const char *bad[] = {h, fp};
  CHECK(vkocc_policy_build(bad, 2, false, NULL, NULL) == VKOCC_ERROR_USAGE, "a fingerprint taken for results");
  CHECK_CONTAINS(vkocc_last_error(), "fp-hopper-132.json: $.schema");
}

/* A shader inspected with no device: its shape under the specialization constants, compile errors named. */
static void test_shader_inspect(const char *data) {
  char path[1024];
  snprintf(path, sizeof path, "%s/../shaders/histogram.comp", data);
  vkocc_spec_value spec[] = {{0, 128}};
  vkocc_shader_desc sh = {.path = path, .spec = spec, .nspec = 1};
  vkocc_shader_info info;
  CHECK(vkocc_shader_inspect(NULL, &sh, &info) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(!strcmp(info.entry, "main"), "entry %s", info.entry);
  CHECK_EQ_U(info.wg[0], 128);
  CHECK_EQ_U(info.wg_size, 128);
  CHECK_EQ_U(info.shared_bytes, 256 * 4); /* BINS = 256 words */
  CHECK(info.shared_exact, "shared bytes exact");
  uint32_t *spv = NULL;
  size_t words = 0;
  CHECK(vkocc_shader_spirv(&sh, &spv, &words) == VKOCC_OK && words > 5 && spv[0] == 0x07230203, "SPIR-V");
  vkocc_shader_desc m = {.spirv = spv, .spirv_words = words, .name = "h.spv", .spec = (vkocc_spec_value[]){{0, 64}}, .nspec = 1};
  CHECK(vkocc_shader_inspect(NULL, &m, &info) == VKOCC_OK && info.wg_size == 64, "from SPIR-V: %s", vkocc_last_error());
  free(spv);
  vkocc_shader_desc bad = {.source = "#version 450\nvoid main() { x = 1; }\n", .source_len = 36, .lang = VKOCC_SHADER_GLSL,
                           .name = "bad.comp"};
  CHECK(vkocc_shader_inspect(NULL, &bad, &info) == VKOCC_ERROR_USAGE, "a shader that does not compile");
  CHECK_CONTAINS(vkocc_last_error(), "bad.comp:2");
}

/* Files written whole and checked before measuring; a surface file with its model (a fingerprint without its
 * surface reads as model only). */
static void test_files(const char *data) {
  char dir[256], path[512];
  snprintf(dir, sizeof dir, "/tmp/vkocc-test-api-files-%d", (int)getpid());
  CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
  CHECK(vkocc_output_check(dir) == VKOCC_ERROR_USAGE, "a directory accepted as output");
  snprintf(path, sizeof path, "%s/out.txt", dir);
  CHECK(vkocc_output_check(path) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(vkocc_write_file_atomic(path, "abc\n", 4) == VKOCC_OK, "%s", vkocc_last_error());
  FILE *f = fopen(path, "r");
  char got[8] = "";
  CHECK(f && fgets(got, sizeof got, f) && !strcmp(got, "abc\n"), "content '%s'", got);
  if (f) fclose(f);
  unlink(path);
  rmdir(dir);
  vkocc_surface s;
  vkocc_derived d;
  bool model_only = false;
  snprintf(path, sizeof path, "%s/fp-hopper-132.json", data);
  CHECK(vkocc_surface_load_model(path, &s, &d, &model_only) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(model_only && s.count == 0 && d.wg_per_sm > 0, "model only: %d, %u points, W %u", model_only, s.count, d.wg_per_sm);
  vkocc_surface_free(&s);
  snprintf(path, sizeof path, "%s/surface-h100.json", data);
  CHECK(vkocc_surface_load_model(path, &s, &d, &model_only) == VKOCC_OK && !model_only && s.count > 100,
        "a surface: %u points", s.count);
  vkocc_surface_free(&s);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]); return 2; }
  test_device_identity(argv[1]);
  test_policy_documents(argv[1]);
  test_shader_inspect(argv[1]);
  test_files(argv[1]);
  test_limits();
  test_suggest();
  test_presets();
  test_save(argv[1]);
  test_stamp();
  return check_report();
}
