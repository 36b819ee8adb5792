/* vkocc tune SPEC.json --device all|D1,D2,... and the same under mpirun/srun: one spec tuned on several devices
 * and ranks (vkocc_tune_fleet, docs/fleet.md). Each device is fingerprinted (the cache) for its cluster ID and
 * opened here; the library measures on all of them and writes one results document per cluster. */
#include "cli.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) { (void)sig; stop_flag = 1; }

/* Whether `device` is exactly the name of a device of this host (a name may hold commas: "llvmpipe (LLVM 15.0.6,
 * 256 bits)"), case aside. */
static bool exact_name(const vkocc_device_info *devs, uint32_t nd, const char *s, size_t len) {
  for (uint32_t i = 0; i < nd; i++)
    if (strlen(devs[i].name) == len && !strncasecmp(devs[i].name, s, len)) return true;
  return false;
}

bool cli_tune_fleet_wanted(const char *device) {
  if (vkocc_mpi_built() && vkocc_mpi_launched(NULL, NULL)) return true;
  if (!device) return false;
  if (!strcmp(device, "all")) return true;
  if (!strchr(device, ',')) return false;
  /* a comma: a list, unless the whole is one device's exact name */
  vkocc_device_info *devs;
  uint32_t nd;
  if (vkocc_enumerate_devices(&devs, &nd)) { vkocc_clear_error(); return true; }
  bool one = exact_name(devs, nd, device, strlen(device));
  free(devs);
  return !one;
}

/* Splits a --device list at its commas, keeping together the pieces that make one device's exact name:
 * at each place the longest run of pieces that is a device's name, else the piece up to the next comma. */
static char **split_devices(const char *list, const vkocc_device_info *devs, uint32_t nd, uint32_t *n) {
  uint32_t np = 1;
  for (const char *q = list; *q; q++) np += *q == ',';
  const char **piece = malloc(np * sizeof *piece);
  size_t *plen = malloc(np * sizeof *plen);
  np = 0;
  for (const char *q = list;; ) {
    size_t l = strcspn(q, ",");
    piece[np] = q, plen[np++] = l;
    if (!q[l]) break;
    q += l + 1;
  }
  char **out = malloc(np * sizeof *out);
  *n = 0;
  for (uint32_t i = 0; i < np;) {
    uint32_t take = 1;
    for (uint32_t j = np; j > i + 1; j--) {
      size_t len = (size_t)(piece[j - 1] + plen[j - 1] - piece[i]);
      if (exact_name(devs, nd, piece[i], len)) { take = j - i; break; }
    }
    size_t len = (size_t)(piece[i + take - 1] + plen[i + take - 1] - piece[i]);
    out[(*n)++] = strndup(piece[i], len);
    i += take;
  }
  free(piece);
  free(plen);
  return out;
}

/* The devices to measure on: "all", a comma list, or under MPI without --device the one of this rank's local
 * index (one rank per GPU of a host, e.g. srun --gpus-per-task=1 or mpirun -n GPUS). Each entry is resolved
 * here, before anything is measured: one that names no device, more entries than the host has devices, or
 * one device named twice (two searches would time each other) is exit 2 at once. */
static int device_list(const char *who, const char *device, char ***out, uint32_t *n) {
  *out = NULL, *n = 0;
  vkocc_device_info *devs;
  uint32_t nd;
  vkocc_status st = vkocc_enumerate_devices(&devs, &nd);
  if (st) return cli_fail(who, st);
  if (!nd) { free(devs); return cli_error(who, 3, "no Vulkan device"); }
  char buf[32];
  int local = 0;
  if (!device) device = getenv("VKOCC_DEVICE");
  if (!device && vkocc_mpi_launched(NULL, &local)) snprintf(buf, sizeof buf, "%d", local % (int)nd), device = buf;
  else if (!device) device = "0";
  char **list = NULL;
  int rc = 0;
  if (!strcmp(device, "all")) {
    list = calloc(nd, sizeof *list);
    for (uint32_t i = 0; i < nd; i++) {
      list[i] = malloc(16);
      snprintf(list[i], 16, "%u", i);
    }
    *n = nd;
  } else {
    list = split_devices(device, devs, nd, n);
    const char *same = getenv("VKOCC_TEST_SAME_DEVICE"); /* the fleet's test-only switch: a device may repeat */
    bool may_repeat = same && !strcmp(same, "1");
    uint32_t *idx = calloc(*n ? *n : 1, sizeof *idx);
    if (!*n) rc = cli_error(who, 2, "--device '%.200s': expected all or a comma-separated list", device);
    for (uint32_t i = 0; i < *n && !rc; i++)
      if (!list[i][0]) rc = cli_error(who, 2, "--device '%.200s%s': an empty entry (expected all or a comma-separated "
                                      "list of indices, names or UUIDs)", device, strlen(device) > 200 ? "..." : "");
    for (uint32_t i = 0; i < *n && !rc; i++)
      if ((st = vkocc_select_device_from(devs, nd, list[i], "--device", &idx[i]))) rc = cli_fail(who, st);
    if (!rc && *n > nd && !may_repeat)
      rc = cli_error(who, 2, "--device: %u devices named, but this host has %u: a device named twice would time two "
                     "searches against each other", *n, nd);
    for (uint32_t i = 0; i < *n && !rc; i++) {
      for (uint32_t k = 0; k < i && !rc && !may_repeat; k++)
        if (idx[k] == idx[i])
          rc = cli_error(who, 2, "--device: '%s' and '%s' are both device %u (%s): named twice (two searches would "
                         "time each other)", list[k], list[i], idx[i], devs[idx[i]].name);
    }
    free(idx);
  }
  free(devs);
  if (rc) {
    for (uint32_t i = 0; i < *n; i++) free(list[i]);
    free(list);
    *n = 0;
    return rc;
  }
  *out = list;
  return 0;
}

/* --fingerprint FILE for every device: each must be the file's device (--allow-other-device: anyway) */
static int given_fingerprint(const char *who, const cli_common *c, const char *path, vkocc_context *ctx, vkocc_fingerprint *fp,
                             vkocc_fingerprint_details *det) {
  vkocc_status st = vkocc_fingerprint_load(path, fp);
  if (st) return cli_fail(who, st);
  vkocc_device_identity id;
  if ((st = vkocc_document_device(path, &id))) return cli_fail(who, st);
  const vkocc_device_info *d = vkocc_context_device(ctx);
  if (!c->allow_other_device && (memcmp(id.uuid, d->uuid, 16) || id.driver_version != d->driver_version))
    return cli_error(who, 2, "--fingerprint %s: measured on %s, not on device %s (%s): leave --fingerprint out (each device's "
                     "is measured or taken from the cache), or pass --allow-other-device to use it anyway", path, id.name,
                     c->device ? c->device : "0", d->name);
  json_error_t e;
  det->document = json_load_file(path, 0, &e); /* the device details beside the surface; the file was read above */
  return 0;
}

/* One device's context opened (and --fingerprint checked against it) on a thread of its own: a driver takes
 * tenths of a second per device to create one, which the devices then spend side by side. */
typedef struct opener {
  const char *who;           /* "tune", under MPI with the rank */
  const cli_common *c;
  const char *fp_path;
  vkocc_tune_fleet_member *m;
  vkocc_fingerprint *fp;
  vkocc_fingerprint_details *det;
  int rc;
} opener;

static void *open_member(void *arg) {
  opener *op = arg;
  const cli_common *c = op->c;
  vkocc_context_options co = cli_context_options(c, op->m->device);
  vkocc_status st = vkocc_context_create(&co, &op->m->ctx);
  if (st) op->rc = cli_fail(op->who, st);
  else if (op->fp_path) op->rc = given_fingerprint(op->who, c, op->fp_path, op->m->ctx, op->fp, op->det);
  return NULL;
}

static void *close_member(void *ctx) {
  vkocc_context_destroy(ctx);
  return NULL;
}

static int tune_policy(const char *db, const char *const *results, uint32_t n) {
  vkocc_status st = vkocc_policy_build(results, n, false, db, NULL);
  if (st) return cli_fail("tune", st);
  /* the transfer report beside it: what each cluster's best is worth on the others */
  char report[1100];
  size_t l = strlen(db);
  if (l > 5 && !strcmp(db + l - 5, ".json")) snprintf(report, sizeof report, "%.*s.transfer.json", (int)(l - 5), db);
  else snprintf(report, sizeof report, "%s.transfer.json", db);
  st = vkocc_policy_transfer(results, n, false, 0, report, NULL);
  if (st) fprintf(stderr, "vkocc tune: note: no transfer report: %s\n", vkocc_last_error());
  fprintf(stderr, "policy:   %s%s%s\n", db, st ? "" : ", transfer report ", st ? "" : report);
  return 0;
}

/* The store is written by this process alone (rank 0 under MPI: the coordinator is the one writer); the results
 * documents are already on disk, so a refusal here loses no measurement and says how to add them later. */
static int tune_store(const char *store, const char *const *results, uint32_t n) {
  vkocc_policy_store_options so = {0};
  vkocc_policy_store_added a;
  vkocc_status st = vkocc_policy_store_add(store, results, n, &so, &a);
  if (st) {
    int rc = cli_fail("tune", st);
    fprintf(stderr, "vkocc tune: the results are in %s%s: vkocc policy add --db %s adds them\n", results[0],
            n > 1 ? " and beside it" : "", store);
    return rc;
  }
  fprintf(stderr, "store:    %s (%llu results added, %llu there already)\n", store, (unsigned long long)a.results_added,
          (unsigned long long)a.results_present);
  return 0;
}

int cli_tune_after_check(const cli_tune_after *after, const char *const *files, uint32_t n) {
  int rc = 0;
  if (after->policy && (rc = cli_check_not_input("tune", "--policy", after->policy, files, n))) return rc;
  if (after->store && (rc = cli_check_not_input("tune", "--db", after->store, files, n))) return rc;
  if (after->policy && after->store && !strcmp(after->policy, after->store))
    return cli_error("tune", 2, "--db %s: the same file as --policy", after->store);
  /* the store as the add at the end will find it, before anything is measured (it is looked at again then) */
  vkocc_status st;
  if (after->store && (st = vkocc_policy_store_can_add(after->store, NULL))) return cli_fail("tune", st);
  return 0;
}

int cli_tune_after_run(const cli_tune_after *after, const char *const *results, uint32_t n) {
  int rc = 0;
  if (!n) return 0;
  if (after->policy && (rc = tune_policy(after->policy, results, n))) return rc;
  if (after->store) rc = tune_store(after->store, results, n);
  return rc;
}

/* Under MPI a rank that stops before the tuning tells the others why (vkocc_tune_fleet_refuse), so that every rank
 * ends at once and the reason, naming the rank, reaches the user instead of a rank that waits for it. */
static int refused(bool mpi, int rc) {
  if (mpi && rc) vkocc_tune_fleet_refuse(cli_last_message());
  return rc;
}

int cli_tune_fleet(cli_common *c, const char *spec, const char *name, const char *fp_path, bool resume, const char *t4,
                   const cli_tune_after *after, vkocc_tune_options *o) {
  int rank = 0, rc;
  bool mpi = vkocc_mpi_built() && vkocc_mpi_launched(&rank, NULL);
  /* under MPI every message names its rank: which of several processes stopped, and why */
  char who[160] = "tune";
  if (mpi) {
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    snprintf(who, sizeof who, "tune: rank %d (%s)", rank, host);
  }
  if (t4) return refused(mpi, cli_error(who, 2, "--t4: not with several devices or ranks (one results document per cluster)"));
  if (!o->output) return refused(mpi, cli_error(who, 2, "-o FILE is required with several devices or ranks (-o -: not these)"));
  /* only the coordinator writes, so only it checks and locks the output */
  const char *files[] = {spec, fp_path, o->output};
  if (rank == 0 && ((rc = cli_check_output(who, "-o", o->output)) || (rc = cli_tune_after_check(after, files, 3)) ||
                    (rc = cli_lock_output(who, o->output))))
    return refused(mpi, rc);
  char **names;
  uint32_t n;
  /* where a run's wall goes outside the tuning (docs/fleet.md): listing the devices, opening them, closing them */
  double t_list = vkocc_now_ms();
  /* With --fingerprint nothing is measured before the contexts: the first device named ("all": 0) is opened while
   * the devices are listed (a Vulkan instance of its own, 0.13-0.17 s on two H200s), on a thread */
  const char *dev = c->device ? c->device : getenv("VKOCC_DEVICE");
  char first[256] = "";
  if (fp_path && dev && !mpi) snprintf(first, sizeof first, "%.*s", (int)strcspn(dev, ","), !strcmp(dev, "all") ? "0" : dev);
  vkocc_tune_fleet_member early_m = {.device = first, .queue = c->queue};
  vkocc_fingerprint early_fp;
  vkocc_fingerprint_details early_det;
  memset(&early_fp, 0, sizeof early_fp), memset(&early_det, 0, sizeof early_det);
  opener early = {.who = who, .c = c, .fp_path = fp_path, .m = &early_m, .fp = &early_fp, .det = &early_det};
  pthread_t early_th;
  bool early_on = first[0] && !pthread_create(&early_th, NULL, open_member, &early);
  rc = device_list(who, c->device, &names, &n);
  if (early_on) pthread_join(early_th, NULL);
  if (!rc && early_on && !early.rc && strcmp(names[0], first)) early_on = false; /* (not the first after all) */
  if (rc || !early_on || early.rc) {
    if (early_m.ctx) vkocc_context_destroy(early_m.ctx);
    if (early_det.document) vkocc_fingerprint_details_free(&early_det);
    if (!rc && early_on) rc = early.rc;
    early_on = false;
  }
  if (rc) return refused(mpi, rc);
  double t_open = vkocc_now_ms();
  vkocc_tune_fleet_member *m = calloc(n, sizeof *m);
  vkocc_fingerprint *fps = calloc(n, sizeof *fps);
  vkocc_fingerprint_details *det = calloc(n, sizeof *det);
  /* the fingerprints one device at a time (one may have to be measured, which wants the host to itself), then every
   * device's context at once */
  for (uint32_t i = 0; i < n && !rc; i++) {
    cli_common one = *c;
    one.device = names[i], one.quiet = true;
    if (!fp_path && (rc = cli_fingerprint_measure(who, &one, false, &fps[i], &det[i]))) break;
    m[i].device = names[i], m[i].queue = c->queue, m[i].fp = &fps[i], m[i].details = &det[i];
  }
  opener *ops = calloc(n, sizeof *ops);
  pthread_t *th = calloc(n, sizeof *th);
  bool *started = calloc(n, sizeof *started);
  if (early_on) m[0].ctx = early_m.ctx, fps[0] = early_fp, det[0] = early_det;
  for (uint32_t i = 0; i < n && !rc; i++) {
    ops[i] = (opener){.who = who, .c = c, .fp_path = fp_path, .m = &m[i], .fp = &fps[i], .det = &det[i]};
    if (i == 0 && early_on) continue;
    if (n == 1 || pthread_create(&th[i], NULL, open_member, &ops[i])) open_member(&ops[i]);
    else started[i] = true;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (started[i]) pthread_join(th[i], NULL);
    if (!rc) rc = ops[i].rc;
  }
  free(ops), free(th), free(started);
  refused(mpi, rc);
  double t_opened = vkocc_now_ms();
  vkocc_tune_fleet_report rep;
  memset(&rep, 0, sizeof rep);
  if (!rc) {
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term); /* mpirun ends the other ranks with SIGTERM when one is lost */
    o->stop = &stop_flag;
    vkocc_status st = vkocc_tune_fleet(spec, name, m, n, resume, o, &rep);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (st) rc = st == VKOCC_ERROR_USAGE || st == VKOCC_ERROR_UNSUPPORTED ? cli_fail(who, st) : cli_error(who, 1, "%s", vkocc_last_error());
  }
  if (!rc && rep.coordinator) {
    uint32_t valid = 0;
    json_t *clusters = json_array();
    FILE *so = stderr; /* the results went to files: stdout stays quiet unless --json */
    fprintf(so, "fleet:    %u devices on %u rank%s, %u cluster%s, %.1f s%s\n", rep.workers, rep.ranks, rep.ranks == 1 ? "" : "s",
            rep.nclusters, rep.nclusters == 1 ? "" : "s", rep.wall_ms / 1e3, mpi ? " (MPI)" : "");
    for (uint32_t k = 0; k < rep.nclusters; k++) {
      const vkocc_tune_fleet_cluster *cl = &rep.clusters[k];
      valid += cl->valid;
      fprintf(so, "cluster:  %s: %u devices, %u measured (%u resumed), %u valid%s%s\n", cl->cluster_id, cl->devices,
              cl->measured, cl->resumed, cl->valid, cl->stopped[0] ? "; stopped: " : "", cl->stopped);
      if (cl->normalization[0]) fprintf(so, "factors:  %s\n", cl->normalization);
      /* the references' drift, or a lone device's sentinel as one device's run says it (its warning too) */
      char clocks[700];
      snprintf(clocks, sizeof clocks, "%s", cl->clocks);
      if (cl->has_sentinel) cli_sentinel_line(&cl->sentinel, clocks, sizeof clocks);
      else if (cl->drifted)
        fprintf(stderr, "vkocc tune: warning: %s: a reference's medians drifted on a device during the run: times measured at "
                "different moments are not comparable (raise --warmup-ms or --warmup-ratio; see docs/tune.md)\n", cl->cluster_id);
      if (clocks[0]) fprintf(so, "clocks:   %s\n", clocks);
      if (cl->valid) fprintf(so, "best:     %10.2f us  %s\n", cl->best_ns / 1e3, cl->best_key);
      fprintf(so, "written:  %s\n", cl->output);
      json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I}", "cluster_id", cl->cluster_id, "output", cl->output, "devices",
                            (json_int_t)cl->devices, "measured", (json_int_t)cl->measured, "resumed", (json_int_t)cl->resumed,
                            "valid", (json_int_t)cl->valid);
      json_object_set_new(j, "best_ns", cl->valid ? json_real(cl->best_ns) : json_null());
      json_object_set_new(j, "stopped", cl->stopped[0] ? json_string(cl->stopped) : json_null());
      json_object_set_new(j, "normalization", cl->normalization[0] ? json_string(cl->normalization) : json_null());
      json_object_set_new(j, "clocks", clocks[0] ? json_string(clocks) : json_null());
      json_object_set_new(j, "drifted", json_boolean(cl->drifted));
      json_array_append_new(clusters, j);
    }
    if (c->json)
      cli_emit_json("tune", json_pack("{s:I, s:I, s:f, s:o}", "ranks", (json_int_t)rep.ranks, "devices", (json_int_t)rep.workers,
                                      "wall_ms", rep.wall_ms, "clusters", clusters), NULL);
    else json_decref(clusters);
    if (!valid) rc = cli_error(who, 1, "no valid configuration in any cluster");
    if (!rc && (after->policy || after->store)) {
      const char **files = calloc(rep.nclusters + 1, sizeof *files);
      uint32_t nf = 0;
      for (uint32_t k = 0; k < rep.nclusters; k++)
        if (rep.clusters[k].valid) files[nf++] = rep.clusters[k].output;
      rc = cli_tune_after_run(after, files, nf);
      free(files);
    }
  }
  bool times = !rc && rep.coordinator;
  double tuned_ms = rep.wall_ms, t_close = vkocc_now_ms();
  vkocc_tune_fleet_report_free(&rep);
  /* the contexts closed side by side as well (each writes its device's pipeline cache) */
  pthread_t *cl = calloc(n, sizeof *cl);
  bool *closing = calloc(n, sizeof *closing);
  for (uint32_t i = 0; i < n; i++)
    if (m[i].ctx && n > 1 && !pthread_create(&cl[i], NULL, close_member, m[i].ctx)) closing[i] = true, m[i].ctx = NULL;
  for (uint32_t i = 0; i < n; i++)
    if (closing[i]) pthread_join(cl[i], NULL);
  free(cl), free(closing);
  for (uint32_t i = 0; i < n; i++) {
    if (m[i].ctx) vkocc_context_destroy(m[i].ctx);
    if (m[i].details) vkocc_fingerprint_details_free(&det[i]);
    free(names[i]);
  }
  free(names), free(m), free(fps), free(det);
  if (times)
    fprintf(stderr, "times:    devices listed %.2f s, opened %.2f s, tuned %.2f s, closed %.2f s\n", (t_open - t_list) / 1e3,
            (t_opened - t_open) / 1e3, tuned_ms / 1e3, (vkocc_now_ms() - t_close) / 1e3);
  return rc;
}
