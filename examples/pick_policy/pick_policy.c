/* pick_policy: what an application does at start-up with the installed vkocc library: fingerprint the
 * device, pick the tuned parameters of one kernel from a policy database, print them.
 *
 *   pick_policy --db POLICY_DB --kernel NAME [--fingerprint FILE | --fresh] [--var NAME=VALUE]...
 *
 * The device is VKOCC_DEVICE's (else vkocc's default). Without --fingerprint the device is fingerprinted
 * by vkocc_fingerprint_measure (calibration and the occupancy surface on the canonical grid: seconds on a
 * GPU, about a minute on lavapipe), through the same cache as `vkocc fingerprint`, so a second start reuses
 * it (--fresh measures again); --fingerprint FILE reads a fingerprint that `vkocc fingerprint -o FILE` wrote.
 * Build: examples/pick_policy/README.md (pkg-config or CMake). Exit status: vkocc's (0 ok, 1 runtime,
 * 2 bad usage or input, 3 the device lacks what is needed). */
#include <vkocc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 16

static int fail(const char *what, vkocc_status st) {
  fprintf(stderr, "pick_policy: %s: %s\n", what, vkocc_last_error());
  return (int)st;
}

int main(int argc, char **argv) {
  const char *db_path = NULL, *kernel = NULL, *fp_path = NULL;
  bool fresh = false;
  vkocc_policy_var vars[MAX_VARS];
  uint32_t nvars = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("usage: pick_policy --db POLICY_DB --kernel NAME [--fingerprint FILE | --fresh] [--var NAME=VALUE]...\n");
      return 0;
    }
    if (!strcmp(a, "--fresh")) { fresh = true; continue; }
    if (!v) return fprintf(stderr, "pick_policy: %s needs a value (--help)\n", a), 2;
    if (!strcmp(a, "--db")) db_path = v;
    else if (!strcmp(a, "--kernel")) kernel = v;
    else if (!strcmp(a, "--fingerprint")) fp_path = v;
    else if (!strcmp(a, "--var") && nvars < MAX_VARS && strchr(v, '=') && v[0] != '=') {
      char *eq = strchr(argv[i + 1], '='); /* NAME=VALUE, split in place */
      *eq = 0;
      vars[nvars++] = (vkocc_policy_var){argv[i + 1], eq + 1};
    } else return fprintf(stderr, "pick_policy: bad option %s %s (--help)\n", a, v), 2;
    i++;
  }
  if (!db_path || !kernel) return fprintf(stderr, "pick_policy: give --db POLICY_DB and --kernel NAME (--help)\n"), 2;

  /* the database first: a bad file is reported before any device work */
  vkocc_policy_db *db;
  vkocc_status st = vkocc_policy_db_load(db_path, &db);
  if (st) return fail("policy database", st);

  vkocc_context *ctx;
  if ((st = vkocc_context_create(NULL, &ctx))) return vkocc_policy_db_free(db), fail("device", st);
  const vkocc_device_info *d = vkocc_context_device(ctx);
  printf("vkocc:       %s\n", vkocc_version());
  printf("device:      %s (%s %s), subgroup size %u\n", d->name, d->driver_name, d->driver_info, d->subgroup_size);

  vkocc_fingerprint fp;
  vkocc_fingerprint_details det = {0};
  vkocc_fingerprint_options fo = {.fresh = fresh};
  st = fp_path ? vkocc_fingerprint_load(fp_path, &fp) : vkocc_fingerprint_measure(ctx, &fo, &fp, &det);
  vkocc_context_destroy(ctx);
  if (st) return vkocc_policy_db_free(db), fail(fp_path ? fp_path : "fingerprint", st);
  if (fp_path) printf("fingerprint: %s (read from %s)\n", fp.cluster_id, fp_path);
  else if (det.from_cache) printf("fingerprint: %s (%u SMs; from the cache %s)\n", fp.cluster_id, det.derived.sm_count, det.cache_path);
  else printf("fingerprint: %s (%u SMs; measured in %.1f s)\n", fp.cluster_id, det.derived.sm_count, det.elapsed_ms / 1e3);
  vkocc_fingerprint_details_free(&det);

  vkocc_policy_choice choice;
  st = vkocc_policy_select(db, kernel, &fp, vars, nvars, 0, &choice);
  vkocc_policy_db_free(db);
  if (st) return fail(kernel, st);
  static const char *const rules[] = {"?", "exact cluster", "nearest cluster", "kernel default"};
  const char *rule = (unsigned)choice.rule < 4 ? rules[choice.rule] : "?";
  if (choice.rule == VKOCC_POLICY_DEFAULT) printf("policy:      %s: %s\n", kernel, rule);
  else printf("policy:      %s: %s %s (distance %.4f, entry %d)\n", kernel, rule, choice.cluster_id, choice.distance,
              choice.entry);
  printf("parameters:  %s\n", choice.params_json);
  vkocc_policy_choice_free(&choice);
  return 0;
}
