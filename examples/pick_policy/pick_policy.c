/* pick_policy: what an application does at start-up with the installed vkocc library: fingerprint the
 * device, pick the tuned parameters of one kernel from a policy database, print them.
 *
 *   pick_policy --db POLICY_DB --kernel NAME [--fingerprint FILE | --fresh] [--var NAME=VALUE]...
 *               [--param NAME]...
 *
 * The device is VKOCC_DEVICE's (else vkocc's default). Without --fingerprint the device is fingerprinted
 * by vkocc_fingerprint_measure (calibration and the occupancy surface on the canonical grid: seconds on a
 * GPU, about a minute on lavapipe), through the same cache as `vkocc fingerprint`, so a second start reuses
 * it (--fresh measures again); --fingerprint FILE reads a fingerprint that `vkocc fingerprint -o FILE` wrote.
 * The policy: an entry for this very device, else for its cluster, else the nearest cluster, else the
 * kernel's default (docs/policy.md), under the conditions --var gives (problem size, element type...).
 * --param NAME prints one tuned parameter the way an application reads it: typed, by name.
 * Build: examples/pick_policy/README.md (pkg-config or CMake). Exit status: vkocc's (0 ok, 1 runtime,
 * 2 bad usage or input, 3 the device lacks what is needed). */
#include <vkocc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 16
#define MAX_PARAMS 16

static int fail(const char *what, vkocc_status st) {
  fprintf(stderr, "pick_policy: %s: %s\n", what, vkocc_last_error());
  return (int)st;
}

int main(int argc, char **argv) {
  const char *db_path = NULL, *kernel = NULL, *fp_path = NULL;
  bool fresh = false;
  vkocc_policy_var vars[MAX_VARS];
  uint32_t nvars = 0, nparams = 0;
  const char *params[MAX_PARAMS];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("usage: pick_policy --db POLICY_DB --kernel NAME [--fingerprint FILE | --fresh] [--var NAME=VALUE]...\n"
             "                   [--param NAME]...\n");
      return 0;
    }
    if (!strcmp(a, "--fresh")) { fresh = true; continue; }
    if (!v) return fprintf(stderr, "pick_policy: %s needs a value (--help)\n", a), 2;
    if (!strcmp(a, "--db")) db_path = v;
    else if (!strcmp(a, "--kernel")) kernel = v;
    else if (!strcmp(a, "--fingerprint")) fp_path = v;
    else if (!strcmp(a, "--param") && nparams < MAX_PARAMS) params[nparams++] = v;
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
  const vkocc_device_info dev = *vkocc_context_device(ctx); /* a copy: it outlives the context */
  printf("vkocc:       %s\n", vkocc_version());
  printf("device:      %s (%s %s), subgroup size %u\n", dev.name, dev.driver_name, dev.driver_info, dev.subgroup_size);

  vkocc_fingerprint fp;
  vkocc_fingerprint_details det = {0};
  vkocc_fingerprint_options fo = {.fresh = fresh};
  /* a whole fingerprint file carries its device and SM count too, so the exact-device rule applies to it */
  st = fp_path ? vkocc_fingerprint_load_details(fp_path, &fp, &det, NULL) : vkocc_fingerprint_measure(ctx, &fo, &fp, &det);
  vkocc_context_destroy(ctx);
  if (st) return vkocc_fingerprint_details_free(&det), vkocc_policy_db_free(db), fail(fp_path ? fp_path : "fingerprint", st);
  if (fp_path) printf("fingerprint: %s (read from %s)\n", fp.cluster_id, fp_path);
  else if (det.from_cache) printf("fingerprint: %s (%u SMs; from the cache %s)\n", fp.cluster_id, det.derived.sm_count, det.cache_path);
  else printf("fingerprint: %s (%u SMs; measured in %.1f s)\n", fp.cluster_id, det.derived.sm_count, det.elapsed_ms / 1e3);

  /* one call: the exact device (from the details), its cluster, the nearest cluster, the default */
  vkocc_policy_choice choice;
  st = vkocc_policy_select_fingerprint(db, kernel, &fp, &det, vars, nvars, 0, &choice);
  vkocc_fingerprint_details_free(&det);
  vkocc_policy_db_free(db);
  if (st) return fail(kernel, st);
  printf("policy:      %s: rule %s", kernel, vkocc_policy_rule_name(choice.rule));
  if (choice.rule != VKOCC_POLICY_DEFAULT)
    printf(" (cluster %s, distance %.4f, entry %d)", choice.cluster_id, choice.distance, choice.entry);
  printf("\nparameters:  %s\n", choice.params_json);
  if (choice.note[0]) printf("note:        %s\n", choice.note);
  /* typed, by name: an integer, else a number, else a string (a parameter the choice lacks: exit 2) */
  for (uint32_t i = 0; i < nparams && !st; i++) {
    int64_t iv;
    double fv;
    char sv[256];
    if (!vkocc_policy_param_int(&choice, params[i], &iv)) printf("  %s = %lld\n", params[i], (long long)iv);
    else if (!vkocc_policy_param_float(&choice, params[i], &fv)) printf("  %s = %g\n", params[i], fv);
    else if (!(st = vkocc_policy_param_string(&choice, params[i], sv, sizeof sv))) printf("  %s = %s\n", params[i], sv);
  }
  if (st) fail(kernel, st);
  vkocc_policy_choice_free(&choice);
  return (int)st;
}
