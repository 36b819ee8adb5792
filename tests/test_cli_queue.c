/* The queue family (--queue / VKOCC_QUEUE): selection rules on synthetic devices (an NVIDIA-like one with a
 * compute-only family, one without), the CLI on lavapipe (one graphics+compute+transfer family), the device
 * JSON's queue_family / queue_families, and documents written before vkocc recorded the family.
 * Why it matters: on NVIDIA the shared memory per SM differs by family (docs/results/h100/carveout/). */
#include "check_json.h"
#include "internal.h"
#include "io.h"
#include "run.h"
#include "cache_plant.h"
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#define G VK_QUEUE_GRAPHICS_BIT
#define C VK_QUEUE_COMPUTE_BIT
#define T VK_QUEUE_TRANSFER_BIT
#define S VK_QUEUE_SPARSE_BINDING_BIT

static void family(vkocc_device_info *d, uint32_t flags, uint32_t ts) {
  uint32_t i = d->queue_family_count++;
  d->queue_families[i].flags = flags;
  d->queue_families[i].queue_count = 1;
  d->queue_families[i].timestamp_valid_bits = ts;
}

/* Returns the status; *fam and *fb the choice. */
static vkocc_status pick(const vkocc_device_info *d, const char *spec, uint32_t *fam, bool *fb) {
  *fam = UINT32_MAX;
  vkocc_status s = vkocc_select_queue_family(d, spec, "--queue", fam, fb);
  if (!s) vkocc_clear_error();
  return s;
}

static void selection_rules(void) {
  uint32_t f;
  bool fb;
  /* H100/H200 with driver 580: 0 graphics+compute, 1 transfer, 2 compute, 3 video (no timestamps) */
  vkocc_device_info nv = {.name = "NVIDIA-like"};
  family(&nv, G | C | T | S, 64);
  family(&nv, T | S, 64);
  family(&nv, C | T | S, 64);
  family(&nv, 0x20 /* video decode */, 0);
  CHECK(pick(&nv, NULL, &f, &fb) == VKOCC_OK && f == 2 && !fb, "default: compute-only family 2, got %u", f);
  CHECK(pick(&nv, "compute", &f, &fb) == VKOCC_OK && f == 2 && !fb, "compute: family 2, got %u", f);
  CHECK(pick(&nv, "COMPUTE", &f, &fb) == VKOCC_OK && f == 2, "case-insensitive");
  CHECK(pick(&nv, "graphics", &f, &fb) == VKOCC_OK && f == 0 && !fb, "graphics: family 0, got %u", f);
  CHECK(pick(&nv, "0", &f, &fb) == VKOCC_OK && f == 0, "index 0");
  CHECK(pick(&nv, "2", &f, &fb) == VKOCC_OK && f == 2, "index 2");
  CHECK(pick(&nv, "1", &f, &fb) == VKOCC_ERROR_UNSUPPORTED, "family 1 has no compute");
  CHECK_CONTAINS(vkocc_last_error(), "queue family 1 of NVIDIA-like has no compute");
  CHECK_CONTAINS(vkocc_last_error(), "families: 0 graphics+compute+transfer+sparse, 64-bit timestamps; 1 transfer");
  CHECK(pick(&nv, "4", &f, &fb) == VKOCC_ERROR_USAGE, "family 4 does not exist");
  CHECK_CONTAINS(vkocc_last_error(), "has no queue family 4");
  CHECK_CONTAINS(vkocc_last_error(), "3 0x20, no timestamps");
  CHECK(pick(&nv, "99999999999999999999", &f, &fb) == VKOCC_ERROR_USAGE, "huge index");
  CHECK(pick(&nv, "-1", &f, &fb) == VKOCC_ERROR_USAGE, "negative index");
  CHECK(pick(&nv, "2x", &f, &fb) == VKOCC_ERROR_USAGE, "trailing junk");
  CHECK(pick(&nv, "gfx", &f, &fb) == VKOCC_ERROR_USAGE, "unknown word");
  CHECK_CONTAINS(vkocc_last_error(), "expected compute, graphics or a queue family index");
  CHECK(!strcmp(vkocc_queue_kind_name(nv.queue_families[2].flags), "compute-only"), "kind of family 2");
  CHECK(!strcmp(vkocc_queue_kind_name(nv.queue_families[0].flags), "graphics+compute"), "kind of family 0");
  CHECK(!strcmp(vkocc_queue_kind_name(T), "other") && !strcmp(vkocc_queue_kind_name(0), "unknown"), "kinds");

  /* a compute-only family without timestamps is skipped by the default; asked for by index it is refused */
  vkocc_device_info nots = {.name = "no-ts"};
  family(&nots, C, 0);
  family(&nots, G | C, 36);
  CHECK(pick(&nots, "compute", &f, &fb) == VKOCC_OK && f == 1 && fb, "compute falls back to 1, got %u", f);
  CHECK(pick(&nots, "0", &f, &fb) == VKOCC_ERROR_UNSUPPORTED, "family 0 lacks timestamps");
  CHECK_CONTAINS(vkocc_last_error(), "no timestamps");

  /* only compute-only: graphics cannot be had (exit 3, the device lacks it) */
  vkocc_device_info co = {.name = "compute-only-device"};
  family(&co, C | T, 64);
  CHECK(pick(&co, "graphics", &f, &fb) == VKOCC_ERROR_UNSUPPORTED, "no graphics family");
  CHECK_CONTAINS(vkocc_last_error(), "has no graphics+compute queue family");
  CHECK_CONTAINS(vkocc_last_error(), "0 compute+transfer");
  CHECK(pick(&co, NULL, &f, &fb) == VKOCC_OK && f == 0 && !fb, "default on compute-only device");

  vkocc_device_info none = {.name = "none"};
  family(&none, T, 64);
  CHECK(pick(&none, NULL, &f, &fb) == VKOCC_ERROR_UNSUPPORTED, "no compute family at all");
}

static json_t *load_json(const char *text) {
  json_error_t e;
  json_t *doc = json_loads(text, 0, &e);
  CHECK(doc != NULL, "not JSON: %s", e.text);
  return doc;
}

static json_t *llvmpipe_of(json_t *devices_doc) {
  json_t *devs = json_object_get(devices_doc, "devices");
  for (size_t i = 0; i < json_array_size(devs); i++) {
    const char *name = json_string_value(json_object_get(json_array_get(devs, i), "name"));
    if (name && strstr(name, "llvmpipe")) return json_array_get(devs, i);
  }
  return NULL;
}

/* calibrate --json with the given queue flags: the document's device.queue_family (new reference).
 * This test checks the queue choice, not the clock fit: a fit refused as disturbed on a busy machine
 * (exit 1, the document still printed with calibration.poor_fit true) still records the family it ran on;
 * test_calibrate_lvp holds the fit itself to its bar. */
static json_t *calibrate_queue(const char *bin, const char *env, const char *flags, int *rc, char **err) {
  char *out, errpath[64];
  snprintf(errpath, sizeof errpath, "/tmp/vkocc-queue-test-%d.err", (int)getpid());
  *rc = run_fmt(&out, "%s %s calibrate %s --json --lengths 6 --repeats 3 --longest-ms 1 2>%s", env, bin, flags,
                errpath);
  json_t *q = NULL;
  if (*rc == 0 || *rc == 1) {
    json_t *doc = load_json(out);
    bool poor = json_is_true(json_object_get(json_object_get(doc, "calibration"), "poor_fit"));
    if (*rc == 1 && !poor) CHECK(false, "calibrate exit 1 without a poor fit in its document: %.300s", out);
    if (*rc == 1 && poor) *rc = 0; /* the refusal is the calibration's; the family is what is checked here */
    q = json_incref(json_object_get(json_object_get(doc, "device"), "queue_family"));
    json_decref(doc);
  }
  free(out);
  run_fmt(err, "cat %s; rm -f %s", errpath, errpath);
  return q;
}

static void cli_on_lavapipe(const char *bin) {
  char *out, *err;
  int rc = run_fmt(&out, "%s devices --json 2>/dev/null", bin);
  CHECK(rc == 0, "devices --json exit %d", rc);
  json_t *doc = load_json(out);
  json_t *lp = llvmpipe_of(doc);
  CHECK(lp != NULL, "no llvmpipe in devices --json");
  json_t *qf = json_object_get(lp, "queue_families");
  CHECK(json_array_size(qf) == 1, "llvmpipe has %zu queue families, expected 1", json_array_size(qf));
  json_t *f0 = json_array_get(qf, 0), *fl = json_object_get(f0, "flags");
  CHECK(json_is_true(json_object_get(fl, "graphics")) && json_is_true(json_object_get(fl, "compute")) &&
            json_is_true(json_object_get(fl, "transfer")), "family 0 flags");
  CHECK(json_integer_value(json_object_get(f0, "timestamp_valid_bits")) == 64, "family 0 timestamps");
  CHECK(json_array_size(json_object_get(f0, "chosen_by")) == 2, "both choices pick family 0");
  json_t *q = json_object_get(lp, "queue_family");
  CHECK(json_integer_value(json_object_get(q, "index")) == 0, "default family 0");
  CHECK(!strcmp(json_string_value(json_object_get(q, "kind")), "graphics+compute"), "default kind");
  json_decref(doc);
  free(out);

  rc = run_fmt(&out, "%s devices 2>&1", bin);
  CHECK(rc == 0, "devices exit %d", rc);
  CHECK_CONTAINS(out, "queue family 0: graphics+compute+transfer, 1 queue, 64-bit timestamps");
  CHECK_CONTAINS(out, "--queue compute (default; no compute-only family), --queue graphics");
  free(out);

  /* --queue graphics: family 0, recorded as chosen by graphics; no note */
  q = calibrate_queue(bin, "", "--queue graphics", &rc, &err);
  CHECK(rc == 0, "--queue graphics exit %d: %s", rc, err);
  CHECK(json_integer_value(json_object_get(q, "index")) == 0, "graphics: index");
  CHECK(!strcmp(json_string_value(json_object_get(q, "kind")) ?: "", "graphics+compute"), "graphics: kind");
  CHECK(!strcmp(json_string_value(json_object_get(q, "choice")) ?: "", "graphics"), "graphics: choice");
  CHECK(json_is_true(json_object_get(json_object_get(q, "flags"), "graphics")), "graphics: flags");
  CHECK(!strstr(err, "note:"), "graphics printed a note: %s", err);
  json_decref(q);
  free(err);

  /* --queue compute: no compute-only family here, family 0 and a note that says so */
  q = calibrate_queue(bin, "", "--queue compute", &rc, &err);
  CHECK(rc == 0, "--queue compute exit %d: %s", rc, err);
  CHECK(json_integer_value(json_object_get(q, "index")) == 0, "compute: index");
  CHECK(!strcmp(json_string_value(json_object_get(q, "choice")) ?: "", "compute"), "compute: choice");
  CHECK_CONTAINS(err, "has no compute-only queue family");
  CHECK_CONTAINS(err, "measuring on queue family 0 (graphics+compute)");
  json_decref(q);
  free(err);

  /* the default says nothing (it is no request); the environment and an index work like the flag */
  q = calibrate_queue(bin, "VKOCC_QUEUE=", "", &rc, &err);
  CHECK(rc == 0 && !strstr(err, "note:"), "default: exit %d, %s", rc, err);
  CHECK(!strcmp(json_string_value(json_object_get(q, "choice")) ?: "", "compute"), "default choice");
  json_decref(q);
  free(err);
  q = calibrate_queue(bin, "VKOCC_QUEUE=graphics", "", &rc, &err);
  CHECK(rc == 0 && !strcmp(json_string_value(json_object_get(q, "choice")) ?: "", "graphics"), "VKOCC_QUEUE=graphics");
  json_decref(q);
  free(err);
  q = calibrate_queue(bin, "VKOCC_QUEUE=graphics", "--queue 0", &rc, &err); /* the flag wins */
  CHECK(rc == 0 && !strcmp(json_string_value(json_object_get(q, "choice")) ?: "", "0"), "--queue 0 over the env");
  json_decref(q);
  free(err);

  /* text output names the family */
  rc = run_fmt(&out, "%s calibrate --queue graphics --lengths 6 --repeats 3 --longest-ms 1 2>&1", bin);
  /* exit 1 is a poor clock fit or a line the timestamps do not allow (a busy machine), which the text still reports in
   * full */
  CHECK(rc == 0 || rc == 1, "calibrate text exit %d", rc);
  if (rc == 1)
    CHECK(strstr(out, "calibration disturbed: poor fit after 3 attempts") ||
              strstr(out, "calibration implausible after 3 attempts"),
          "calibrate text: exit 1 without the refusal: %s", out);
  CHECK_CONTAINS(out, "queue family 0 (graphics+compute, --queue graphics)");
  free(out);

  /* a family the device lacks: exit 2, one line naming the families */
  rc = run_fmt(&out, "%s calibrate --queue 7 2>&1", bin);
  CHECK(rc == 2, "--queue 7 exit %d", rc);
  CHECK_CONTAINS(out, "--queue '7'");
  CHECK_CONTAINS(out, "has no queue family 7; families: 0 graphics+compute+transfer, 64-bit timestamps");
  CHECK(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
  free(out);
  rc = run_fmt(&out, "%s probe --wg 8 --shmem 0 --queue 7 2>&1", bin);
  CHECK(rc == 2, "probe --queue 7 exit %d", rc);
  free(out);
  const char *bad[] = {"foo", "-1", "''", "1.5", "computer"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    rc = run_fmt(&out, "%s calibrate --queue %s 2>&1", bin, bad[i]);
    CHECK(rc == 2, "--queue %s exit %d", bad[i], rc);
    CHECK_CONTAINS(out, "expected compute, graphics or a queue family index");
    CHECK(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
    free(out);
  }
  rc = run_fmt(&out, "VKOCC_QUEUE=bogus %s calibrate 2>&1", bin);
  CHECK(rc == 2, "VKOCC_QUEUE=bogus exit %d", rc);
  CHECK_CONTAINS(out, "VKOCC_QUEUE 'bogus'");
  free(out);
  rc = run_fmt(&out, "%s probe --help", bin);
  CHECK(rc == 0, "probe --help");
  CHECK_CONTAINS(out, "[--queue Q]");
  free(out);
}

/* The pipeline cache file is per queue family. */
static void pipeline_cache_per_family(const char *bin) {
  char dir[] = "/tmp/vkocc-queue-cache-XXXXXX", *out;
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  int rc = run_fmt(&out, "XDG_CACHE_HOME=%s %s calibrate --queue 0 --lengths 6 --repeats 3 --longest-ms 1 "
                   ">/dev/null 2>&1; ls %s/vkocc", dir, bin, dir);
  CHECK(rc == 0, "ls exit %d", rc);
  CHECK(strstr(out, "pipelines-") && strstr(out, "-q0.bin"), "no per-family pipeline cache: %s", out);
  free(out);
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
}

/* The fingerprint cache is keyed by the family: a document planted under lavapipe's key for family 0 is what
 * `fingerprint --queue graphics` (family 0 there) returns, without measuring. */
static void fingerprint_cache_per_family(const char *bin, const char *data) {
  char dir[] = "/tmp/vkocc-queue-fp-XXXXXX", *out, path[1200];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  int rc = run_fmt(&out, "%s devices --json 2>/dev/null", bin);
  json_t *doc = load_json(out), *lp = llvmpipe_of(doc);
  free(out);
  const char *uuid = json_string_value(json_object_get(lp, "uuid"));
  long long drv = json_integer_value(json_object_get(lp, "driver_version_raw"));
  CHECK(rc == 0 && uuid, "devices --json for the cache key");
  /* a whole fingerprint (device, surface, derived limits): the cache takes no less */
  snprintf(path, sizeof path, "%s/../../docs/results/h100/fingerprint/fingerprint-1.json", data);
  json_t *fp = check_load_json(path);
  json_object_set_new(fp, "tool_version", json_string(vkocc_version())); /* the cache takes only its own version */
  snprintf(path, sizeof path, "mkdir -p %s/vkocc", dir);
  run_fmt(&out, "%s", path);
  free(out);
  snprintf(path, sizeof path, "%s/vkocc/fingerprint-%s-%08llx-q0-lp2.json", dir, uuid ? uuid : "", (unsigned long long)drv);
  CHECK(plant_fingerprint(fp, dir, "2"), "cannot plant %s", path); /* sealed under lavapipe's key */
  CHECK(access(path, R_OK) == 0, "the planted entry is not at %s", path);
  /* bounded: were the entry not reused, lavapipe would be measured for most of a minute */
  rc = run_fmt(&out, "XDG_CACHE_HOME=%s LP_NUM_THREADS=2 timeout 30 %s fingerprint --queue graphics --json 2>/dev/null",
               dir, bin);
  CHECK(rc == 0, "cached fingerprint exit %d", rc);
  CHECK_CONTAINS(out, "c1-dace7ddcd2e0"); /* the planted H100 fingerprint's, not lavapipe's */
  free(out);
  json_decref(fp);
  json_decref(doc);
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
}

/* Device objects with and without the new fields. */
static void documents(const char *data) {
  char path[1024];
  vkocc_surface s;
  /* written before the queue family was recorded: compute_queue_family only */
  snprintf(path, sizeof path, "%s/surface-h100.json", data);
  CHECK(vkocc_surface_load(path, &s) == VKOCC_OK, "old surface: %s", vkocc_last_error());
  CHECK(s.has_device && s.device.compute_queue_family == 2, "old surface family %u", s.device.compute_queue_family);
  CHECK(s.device.compute_queue_flags == 0 && s.device.queue_choice[0] == 0, "old surface: flags unknown");
  vkocc_surface_free(&s);
  /* ... and a real H100 fingerprint of that time */
  snprintf(path, sizeof path, "%s/../../docs/results/h100/fingerprint/fingerprint-1.json", data);
  vkocc_fingerprint fp;
  CHECK(vkocc_fingerprint_load(path, &fp) == VKOCC_OK, "old fingerprint: %s", vkocc_last_error());
  CHECK(!strcmp(fp.cluster_id, "c1-dace7ddcd2e0"), "old fingerprint cluster %s", fp.cluster_id);
  CHECK(vkocc_surface_load(path, &s) == VKOCC_OK, "old fingerprint as surface: %s", vkocc_last_error());
  CHECK(s.device.compute_queue_family == 2 && !s.device.compute_queue_flags, "old fingerprint device");
  vkocc_surface_free(&s);

  /* round trip: what the writer writes the reader reads back */
  vkocc_device_info d = {.name = "NV", .compute_queue_family = 2};
  family(&d, G | C | T, 64);
  family(&d, T, 64);
  family(&d, C | T, 64);
  vkocc_device_use_queue_family(&d, 2, "compute");
  json_t *o = vkocc_device_info_json(&d);
  vkocc_device_info back;
  CHECK(io_device_info_from_json(o, "mem", "$.device", &back) == VKOCC_OK, "round trip: %s", vkocc_last_error());
  CHECK(back.compute_queue_family == 2 && back.compute_queue_flags == (C | T), "round trip family %u flags %u",
        back.compute_queue_family, back.compute_queue_flags);
  CHECK(!strcmp(back.queue_choice, "compute") && back.queue_family_count == 3, "round trip choice/count");
  CHECK(back.queue_families[0].flags == (G | C | T) && back.queue_families[1].timestamp_valid_bits == 64, "families");
  CHECK(!strcmp(json_string_value(json_object_get(json_object_get(o, "queue_family"), "kind")), "compute-only"),
        "kind written");
  /* the flags object alone (no vk_queue_flags) is enough */
  json_object_del(json_object_get(o, "queue_family"), "vk_queue_flags");
  CHECK(io_device_info_from_json(o, "mem", "$.device", &back) == VKOCC_OK && back.compute_queue_flags == (C | T),
        "flags object: %u", back.compute_queue_flags);
  /* wrong types are named by their path */
  json_object_set_new(json_object_get(o, "queue_family"), "kind", json_string("gpu"));
  CHECK(io_device_info_from_json(o, "mem", "$.device", &back) == VKOCC_ERROR_USAGE, "bad kind accepted");
  CHECK_CONTAINS(vkocc_last_error(), "$.device.queue_family.kind");
  json_object_set_new(o, "queue_family", json_integer(5));
  CHECK(io_device_info_from_json(o, "mem", "$.device", &back) == VKOCC_ERROR_USAGE, "queue_family 5 accepted");
  CHECK_CONTAINS(vkocc_last_error(), "$.device.queue_family: expected an object");
  json_object_del(o, "queue_family");
  json_object_set_new(json_array_get(json_object_get(o, "queue_families"), 1), "timestamp_valid_bits", json_string("x"));
  CHECK(io_device_info_from_json(o, "mem", "$.device", &back) == VKOCC_ERROR_USAGE, "bad timestamp bits accepted");
  CHECK_CONTAINS(vkocc_last_error(), "$.device.queue_families[1].timestamp_valid_bits");
  json_decref(o);
  vkocc_clear_error();
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s VKOCC_BINARY DATA_DIR\n", argv[0]); return 2; }
  selection_rules();
  documents(argv[2]);
  cli_on_lavapipe(argv[1]);
  pipeline_cache_per_family(argv[1]);
  fingerprint_cache_per_family(argv[1], argv[2]);
  return check_report();
}
