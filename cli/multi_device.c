/* --device all on surface and fingerprint: every device measured at once, each on its own thread with its
 * own context; one document per device and a summary that groups them by cluster ID. */
#include "cli.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *cmd;
  cli_common c;
  char spec[16];
  vkocc_surface_options o; /* surface */
  bool fingerprint, fresh, registers;
  json_t *doc;
  cli_device_result r;
  char file[1100];
} job;

static void fail(job *j, int rc) {
  j->r.rc = rc ? rc : 1;
  snprintf(j->r.error, sizeof j->r.error, "%s", vkocc_last_error());
}

static void *surface_job(void *arg) {
  job *j = arg;
  double t0 = vkocc_now_ms();
  vkocc_context_options co = cli_context_options(&j->c, j->spec);
  vkocc_context *ctx;
  vkocc_status st = vkocc_context_create(&co, &ctx);
  if (st) { fail(j, (int)st); return NULL; }
  double startup = vkocc_now_ms() - t0;
  vkocc_calibration cal;
  vkocc_calibrate_options cco;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &cco);
  vkocc_surface s;
  st = vkocc_calibrate(ctx, &cco, &cal);
  if (!st) st = vkocc_surface_measure(ctx, &cal, &j->o, &s);
  vkocc_context_destroy(ctx);
  if (st) { fail(j, (int)st); return NULL; }
  vkocc_derived d;
  vkocc_fingerprint fp;
  bool derived = vkocc_derive(s.points, s.count, s.subgroup_size, &d) == VKOCC_OK;
  if (derived && vkocc_fingerprint_from_surface(&s, &d, &fp) == VKOCC_OK)
    snprintf(j->r.cluster_id, sizeof j->r.cluster_id, "%s", fp.cluster_id);
  vkocc_clear_error();
  j->doc = vkocc_surface_document(&s, &cal, derived ? &d : NULL, startup);
  if (j->r.cluster_id[0]) json_object_set_new(j->doc, "cluster_id", json_string(j->r.cluster_id));
  vkocc_surface_free(&s);
  j->r.wall_ms = vkocc_now_ms() - t0;
  return NULL;
}

static void *fingerprint_job(void *arg) {
  job *j = arg;
  double t0 = vkocc_now_ms();
  cli_common c = j->c;
  c.device = j->spec, c.quiet = true; /* one progress line per thread would race on the terminal */
  cli_run run = {.name = "fingerprint", .device = true}; /* this thread's device, closed here */
  c.run = &run;
  vkocc_fingerprint fp;
  int rc = cli_fingerprint_device("fingerprint", &c, j->fresh, j->registers, &j->doc, &fp);
  cli_run_close(&run);
  if (rc) { fail(j, rc); return NULL; }
  snprintf(j->r.cluster_id, sizeof j->r.cluster_id, "%s", fp.cluster_id);
  j->r.wall_ms = vkocc_now_ms() - t0;
  return NULL;
}

/* out_path: NULL (nothing written) or PREFIX[.json]: PREFIX-INDEX.json per device, PREFIX-summary.json. */
static int run_all(const char *cmd, const cli_common *c, const vkocc_surface_options *o, bool fingerprint, bool fresh,
                   bool registers, const char *out_path) {
  if (out_path && !strcmp(out_path, "-"))
    return cli_error(cmd, 2, "-o -: --device all writes one file per device; use --json for stdout");
  vkocc_device_info *devs;
  uint32_t n;
  vkocc_status st = vkocc_enumerate_devices(&devs, &n);
  if (st) return cli_fail(cmd, st);
  char prefix[1024] = "";
  if (out_path) {
    snprintf(prefix, sizeof prefix, "%s", out_path);
    size_t len = strlen(prefix);
    if (len > 5 && !strcmp(prefix + len - 5, ".json")) prefix[len - 5] = 0;
    char summary[1100];
    snprintf(summary, sizeof summary, "%s-summary.json", prefix);
    int rc = cli_check_output(cmd, "-o", summary); /* before any measurement */
    if (rc) { free(devs); return rc; }
  }
  job *jobs = cli_xcalloc(n, sizeof *jobs);
  pthread_t *tid = cli_xcalloc(n, sizeof *tid);
  bool *started = cli_xcalloc(n, sizeof *started);
  double t0 = vkocc_now_ms();
  for (uint32_t i = 0; i < n; i++) {
    job *j = &jobs[i];
    j->cmd = cmd;
    j->c = *c;
    j->c.device = NULL;
    snprintf(j->spec, sizeof j->spec, "%u", i);
    if (o) j->o = *o;
    j->o.progress = NULL; /* several devices at once: no progress lines */
    j->fingerprint = fingerprint;
    j->fresh = fresh, j->registers = registers;
    j->r.index = i;
    snprintf(j->r.name, sizeof j->r.name, "%s", devs[i].name);
    vkocc_format_uuid(devs[i].uuid, j->r.uuid);
    started[i] = pthread_create(&tid[i], NULL, fingerprint ? fingerprint_job : surface_job, j) == 0;
    if (!started[i]) (fingerprint ? fingerprint_job : surface_job)(j);
  }
  for (uint32_t i = 0; i < n; i++)
    if (started[i]) pthread_join(tid[i], NULL);
  double wall = vkocc_now_ms() - t0;
  int rc = 0;
  for (uint32_t i = 0; i < n; i++) {
    job *j = &jobs[i];
    if (j->r.rc) {
      fprintf(stderr, "vkocc %s: device %u (%s): %s\n", cmd, i, j->r.name, j->r.error);
      if (!rc) rc = j->r.rc;
      continue;
    }
    if (prefix[0]) {
      snprintf(j->file, sizeof j->file, "%s-%u.json", prefix, i);
      if ((st = cli_json_write(j->doc, j->file))) {
        fprintf(stderr, "vkocc %s: %s\n", cmd, vkocc_last_error());
        j->r.rc = rc = (int)st;
        snprintf(j->r.error, sizeof j->r.error, "%s", vkocc_last_error());
        continue;
      }
      j->r.file = j->file;
    }
  }
  cli_device_result *res = cli_xcalloc(n ? n : 1, sizeof *res);
  for (uint32_t i = 0; i < n; i++) res[i] = jobs[i].r;
  json_t *sum = cli_device_summary(cmd, res, n, wall);
  if (prefix[0]) {
    char summary[1100];
    snprintf(summary, sizeof summary, "%s-summary.json", prefix);
    if ((st = cli_json_write(sum, summary)) && !rc) rc = cli_fail(cmd, st);
  }
  if (c->json) {
    json_t *docs = json_array();
    for (uint32_t i = 0; i < n; i++) json_array_append(docs, jobs[i].doc ? jobs[i].doc : json_null());
    json_object_set_new(sum, "documents", docs);
    int erc = cli_emit_json(cmd, json_incref(sum), NULL);
    if (!rc) rc = erc;
  } else {
    printf("%u device%s measured at once in %.0f ms\n", n, n == 1 ? "" : "s", wall);
    for (uint32_t i = 0; i < n; i++) {
      const cli_device_result *r = &res[i];
      printf("  %u  %-40s %-16s %8.0f ms  %s\n", r->index, r->name, r->rc ? "failed" : r->cluster_id[0] ? r->cluster_id : "-",
             r->wall_ms, r->rc ? r->error : r->file ? r->file : "");
    }
    json_t *cl = json_object_get(sum, "clusters");
    printf("clusters: %zu%s\n", json_array_size(cl), json_is_true(json_object_get(sum, "same_cluster"))
                                                        ? " (every device in one cluster)" : "");
    if (prefix[0]) printf("written:  %s-summary.json and one %s-INDEX.json per device\n", prefix, prefix);
  }
  json_decref(sum);
  for (uint32_t i = 0; i < n; i++) json_decref(jobs[i].doc);
  free(res); free(jobs); free(tid); free(started); free(devs);
  return rc;
}

int cli_all_devices(const char *cmd, const cli_common *c, const vkocc_surface_options *o, const char *out_path) {
  return run_all(cmd, c, o, false, false, false, out_path);
}

int cli_all_fingerprints(const cli_common *c, bool fresh, bool registers, const char *out_path) {
  return run_all("fingerprint", c, NULL, true, fresh, registers, out_path);
}
