#include "cli.h"
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *help =
    "usage: vkocc fingerprint [-o FILE] [--json] [--fresh] [--device D|all] [--queue Q] [--no-shader-clock]\n"
    "Characterizes the device: clock calibration, the occupancy surface on the canonical grid, the derived\n"
    "per-SM limits, the surface normalized per SM and its cluster ID; writes one JSON document (schema\n"
    "vkocc.fingerprint/1, docs/fingerprint.schema.json) and prints a summary. A fingerprint of the same\n"
    "device (UUID) and driver version is reused from the XDG cache directory unless --fresh.\n"
    "--device all: every device at once (own thread and context each); -o PREFIX writes PREFIX-N.json per\n"
    "device and PREFIX-summary.json (devices grouped by cluster ID).\n";

/* Keyed by device UUID, driver version and queue family (the shared memory per SM depends on it on NVIDIA);
 * also by LP_NUM_THREADS, which changes what lavapipe is without changing its UUID. */
static void cache_path(const vkocc_device_info *d, char *out, size_t len) {
  char dir[900], uuid[37];
  out[0] = 0;
  if (vkocc_cache_dir(dir, sizeof dir)) return;
  vkocc_format_uuid(d->uuid, uuid);
  const char *lp = getenv("LP_NUM_THREADS");
  snprintf(out, len, "%s/fingerprint-%s-%08x-q%u%s%s.json", dir, uuid, d->driver_version, d->compute_queue_family,
           lp ? "-lp" : "", lp ? lp : "");
  for (char *p = out + strlen(dir) + 1; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '.')) *p = '_';
}

void cli_fingerprint_cache_path(const vkocc_device_info *d, char *out, size_t len) { cache_path(d, out, len); }

/* The cached fingerprint at cpath, when written by this very version of vkocc and whole. */
static bool load_cached(const char *cpath, json_t **doc, vkocc_fingerprint *fp) {
  if (!cpath[0] || access(cpath, R_OK) != 0) return false;
  /* reused only when written by this very version of vkocc (measurement code changes between versions) */
  json_error_t e;
  if (vkocc_fingerprint_load(cpath, fp) != VKOCC_OK || !(*doc = json_load_file(cpath, 0, &e))) {
    vkocc_clear_error();
    return false;
  }
  const char *v = json_string_value(json_object_get(*doc, "tool_version"));
  /* and only when whole: a file stripped of its device, surface or derived limits is measured again */
  json_t *der = json_object_get(*doc, "derived");
  vkocc_surface cs;
  bool whole = json_is_object(json_object_get(*doc, "device")) && json_is_object(der) &&
               json_integer_value(json_object_get(der, "sm_count")) > 0 && vkocc_surface_load(cpath, &cs) == VKOCC_OK;
  if (whole) whole = cs.has_device, vkocc_surface_free(&cs);
  vkocc_clear_error();
  if (v && !strcmp(v, vkocc_version()) && whole) {
    if (cli_is_tty()) /* progress and notes only on a terminal (DESIGN.md) */
      fprintf(stderr, "vkocc fingerprint: using the cached fingerprint %s (--fresh measures again)\n", cpath);
    return true;
  }
  json_decref(*doc);
  *doc = NULL;
  return false;
}

/* The cache file named from the device list alone (an instance, no device opened: issue 13); "" when the
 * device or queue choice does not resolve (the measuring path then reports it). */
static void cache_path_without_device(const cli_common *c, char *out, size_t len) {
  out[0] = 0;
  vkocc_device_info *d;
  uint32_t n, idx, fam;
  bool fell_back;
  if (vkocc_enumerate_devices(&d, &n)) { vkocc_clear_error(); return; }
  const char *spec = c->device ? c->device : getenv("VKOCC_DEVICE");
  const char *q = c->queue ? c->queue : getenv("VKOCC_QUEUE");
  if (!vkocc_select_device_from(d, n, spec, c->device ? "--device" : "VKOCC_DEVICE", &idx) &&
      !vkocc_select_queue_family(&d[idx], q, "--queue", &fam, &fell_back)) {
    char choice[16] = "compute";
    if (q && *q) snprintf(choice, sizeof choice, "%s", q);
    for (char *p = choice; *p; p++) *p = (char)tolower((unsigned char)*p);
    vkocc_device_use_queue_family(&d[idx], fam, choice);
    cache_path(&d[idx], out, len);
  }
  vkocc_clear_error();
  free(d);
}

/* Measures (or reuses) the fingerprint of the device named by c; *doc gets the whole document. */
int cli_fingerprint_device(const cli_common *c, bool fresh, json_t **doc, vkocc_fingerprint *fp) {
  char cpath[1024];
  if (!fresh && !c->no_clock) {
    cache_path_without_device(c, cpath, sizeof cpath);
    if (load_cached(cpath, doc, fp)) return 0;
  }
  vkocc_context *ctx;
  int rc = cli_open("fingerprint", c, &ctx);
  if (rc) return rc;
  const vkocc_device_info *d = vkocc_context_device(ctx);
  cache_path(d, cpath, sizeof cpath);
  if (!fresh && !c->no_clock && load_cached(cpath, doc, fp)) {
    vkocc_context_destroy(ctx);
    return 0;
  }
  double t0 = vkocc_now_ms();
  vkocc_calibration cal;
  vkocc_status st = vkocc_calibrate(ctx, NULL, &cal);
  vkocc_surface s;
  vkocc_surface_options so = {.wg_sizes = vkocc_canonical_wg, .wg_count = VKOCC_CANON_WG,
                              .shared = vkocc_canonical_shared, .shared_count = VKOCC_CANON_SHARED, .no_refine = true};
  /* the canonical grid, clipped to what the device can run */
  uint32_t wg[VKOCC_CANON_WG], sh[VKOCC_CANON_SHARED], nw = 0, ns = 0;
  for (int i = 0; i < VKOCC_CANON_WG; i++) if (vkocc_canonical_wg[i] <= d->max_invocations && vkocc_canonical_wg[i] <= d->max_wg_size_x) wg[nw++] = vkocc_canonical_wg[i];
  for (int i = 0; i < VKOCC_CANON_SHARED; i++) if (vkocc_canonical_shared[i] <= d->max_shared_bytes) sh[ns++] = vkocc_canonical_shared[i];
  so.wg_sizes = wg, so.wg_count = nw, so.shared = sh, so.shared_count = ns;
  if (cli_is_tty()) so.progress = cli_progress;
  if (!st) st = vkocc_surface_measure(ctx, &cal, &so, &s);
  vkocc_context_destroy(ctx);
  if (st) return cli_fail("fingerprint", st);
  vkocc_derived der;
  if ((st = vkocc_derive(s.points, s.count, s.subgroup_size, &der)) || (st = vkocc_fingerprint_from_surface(&s, &der, fp))) {
    vkocc_surface_free(&s);
    return cli_fail("fingerprint", st);
  }
  char when[32];
  time_t now = time(NULL);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  *doc = vkocc_fingerprint_json(fp);
  json_object_set_new(*doc, "schema", json_string("vkocc.fingerprint/1"));
  json_object_set_new(*doc, "tool_version", json_string(vkocc_version()));
  json_object_set_new(*doc, "device", vkocc_device_info_json(&s.device));
  json_object_set_new(*doc, "calibration", vkocc_calibration_json(&cal));
  json_object_set_new(*doc, "derived", vkocc_derived_json(&der, &s));
  vkocc_vendor_check vc;
  vkocc_vendor_check_compute(&s.device.vendor, &der, &vc);
  json_t *vcj = vkocc_vendor_check_json(&vc, s.device.vendor.source); /* a cross-check, not in the cluster ID */
  if (vcj) json_object_set_new(*doc, "vendor_reported", vcj);
  json_t *surf = vkocc_surface_json(&s);
  json_object_del(surf, "device");
  json_object_set_new(*doc, "surface", surf);
  json_object_set_new(*doc, "measurement", json_pack("{s:s, s:s, s:I, s:s, s:f}", "date", when, "method",
                                                     s.method == VKOCC_METHOD_COMB ? "comb" : "bisect", "repeat",
                                                     (json_int_t)s.repeat, "grid", "canonical", "elapsed_ms",
                                                     vkocc_now_ms() - t0));
  vkocc_surface_free(&s);
  if (cpath[0] && !c->no_clock) vkocc_json_write(*doc, cpath); /* a cache that cannot be written is no error */
  return 0;
}

void cli_print_fingerprint(json_t *doc, const vkocc_fingerprint *fp) {
  json_t *dev = json_object_get(doc, "device"), *der = json_object_get(doc, "derived");
  json_t *cal = json_object_get(doc, "calibration");
  printf("device:      %s (%s %s)\n", json_string_value(json_object_get(dev, "name")),
         json_string_value(json_object_get(dev, "driver_name")), json_string_value(json_object_get(dev, "driver_info")));
  vkocc_device_info di;
  char qt[96] = "queue family unknown (not recorded)";
  if (vkocc_device_info_from_json(dev, "fingerprint", "$.device", &di) == VKOCC_OK) cli_queue_text(&di, qt, sizeof qt);
  else vkocc_clear_error();
  printf("%s\n", qt);
  json_t *nspt = json_object_get(cal, "ns_per_realtime_tick"), *mhz = json_object_get(cal, "shader_clock_mhz");
  char rt[32] = "n/a", sc[32] = "n/a";
  if (json_is_number(nspt)) snprintf(rt, sizeof rt, "%.4f", json_number_value(nspt));
  if (json_is_number(mhz)) snprintf(sc, sizeof sc, "%.1f", json_number_value(mhz));
  printf("clocks:      realtime %s ns/tick, shader %s MHz, dispatch overhead %.1f us\n", rt, sc,
         json_number_value(json_object_get(cal, "dispatch_overhead_ns")) / 1e3);
  bool sg_seen = json_is_true(json_object_get(der, "subgroup_limit_seen"));
  bool sh_seen = json_is_true(json_object_get(der, "shared_limit_seen"));
  printf("derived:     %lld SMs; per SM %lld workgroups, %lld%s subgroups of %lld (%lld%s threads), %lld%s shared bytes "
         "(%lld/%lld points explained)\n",
         json_integer_value(json_object_get(der, "sm_count")), json_integer_value(json_object_get(der, "workgroups_per_sm")),
         json_integer_value(json_object_get(der, "subgroups_per_sm")), sg_seen ? "" : " or more",
         json_integer_value(json_object_get(der, "subgroup_size")), json_integer_value(json_object_get(der, "threads_per_sm")),
         sg_seen ? "" : " or more", json_integer_value(json_object_get(der, "shared_bytes_per_sm")), sh_seen ? "" : " or more",
         json_integer_value(json_object_get(der, "points_explained")), json_integer_value(json_object_get(der, "points")));
  cli_print_vendor_check("vendor:      ", json_object_get(doc, "vendor_reported"));
  printf("cluster ID:  %s\n", fp->cluster_id);
  printf("normalized surface: resident workgroups per SM ('-': the device cannot run the point)\n%8s", "wg \\ B");
  for (int b = 0; b < VKOCC_CANON_SHARED; b++) printf(" %6u", vkocc_canonical_shared[b]);
  printf("\n");
  for (int a = 0; a < VKOCC_CANON_WG; a++) {
    printf("%8u", vkocc_canonical_wg[a]);
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      double v = fp->normalized[a][b];
      if (isnan(v)) printf(" %6s", "-");
      else if (v == floor(v)) printf(" %6.0f", v);
      else printf(" %6.2f", v);
    }
    printf("\n");
  }
}

int cmd_fingerprint(int argc, char **argv) {
  cli_common c = {0};
  const char *out = NULL;
  bool fresh = false;
  static const struct option opts[] = {{"device", required_argument, 0, 'd'}, CLI_QUEUE_OPTION, {"json", no_argument, 0, 'j'},
                                       {"output", required_argument, 0, 'o'}, {"fresh", no_argument, 0, 'f'},
                                       {"no-shader-clock", no_argument, 0, 'n'}, {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case 'd': c.device = optarg; break;
    case CLI_OPT_QUEUE: c.queue = optarg; break;
    case 'j': c.json = true; break;
    case 'o': out = optarg; break;
    case 'f': fresh = true; break;
    case 'n': c.no_clock = true; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind < argc) return cli_error("fingerprint", 2, "unexpected argument '%s'", argv[optind]);
  int rc = cli_check_output("fingerprint", "-o", out); /* before a measurement of half a minute */
  if (rc) return rc;
  if (c.device && !strcmp(c.device, "all")) return cli_all_fingerprints(&c, fresh, out); /* multi_device.c */
  json_t *doc;
  vkocc_fingerprint fp;
  if ((rc = cli_fingerprint_device(&c, fresh, &doc, &fp))) return rc;
  if (out) {
    vkocc_status st = vkocc_json_write(doc, out);
    if (st) { json_decref(doc); return cli_fail("fingerprint", st); }
  }
  if (c.json) return cli_emit_json("fingerprint", doc, NULL);
  cli_print_fingerprint(doc, &fp);
  if (out) printf("written:     %s\n", out);
  json_decref(doc);
  return 0;
}
