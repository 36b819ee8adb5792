#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc policy select --db FILE --kernel NAME [--fingerprint FILE] [--var NAME=VALUE ...]\n"
    "                           [--threshold T] [--json] [--device D] [--queue Q]\n"
    "Picks tuned parameters for a kernel from a policy database (schema vkocc.policy-db/1, docs/policy.md):\n"
    "an entry for the device's cluster ID, else for the nearest known cluster within T (default 0.02), else\n"
    "the kernel's default; entries also need their conditions on the --var decision variables to hold.\n"
    "Without --fingerprint the live device is fingerprinted (or its cached fingerprint reused).\n"
    "Prints the parameters and the rule that chose them.\n";

static const char *rule_name(vkocc_policy_rule r) {
  return r == VKOCC_POLICY_EXACT ? "exact" : r == VKOCC_POLICY_NEAREST ? "nearest" : "default";
}

int cmd_policy(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "select") && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")))
    return cli_error("policy", 2, "expected 'policy select' (see vkocc policy --help)");
  if (strcmp(argv[1], "select")) { fputs(help, stdout); return 0; }
  argc--, argv++;
  cli_common c = {0};
  const char *db_path = NULL, *kernel = NULL, *fp_path = NULL;
  double threshold = VKOCC_CLUSTER_THRESHOLD;
  vkocc_policy_var vars[64];
  uint32_t nv = 0;
  static const struct option opts[] = {
      {"db", required_argument, 0, 'b'}, {"kernel", required_argument, 0, 'k'},
      {"fingerprint", required_argument, 0, 'f'}, {"var", required_argument, 0, 'v'},
      {"threshold", required_argument, 0, 't'}, {"json", no_argument, 0, 'j'}, {"device", required_argument, 0, 'd'}, CLI_QUEUE_OPTION,
      {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "hd:", opts, NULL)) != -1) {
    switch (ch) {
    case 'b': db_path = optarg; break;
    case 'k': kernel = optarg; break;
    case 'f': fp_path = optarg; break;
    case 'd': c.device = optarg; break;
    case CLI_OPT_QUEUE: c.queue = optarg; break;
    case 'j': c.json = true; break;
    case 'v': {
      char *eq = strchr(optarg, '=');
      if (!eq || eq == optarg || nv == 64)
        return cli_error("policy", 2, "--var '%s': expected NAME=VALUE (at most 64)", optarg);
      *eq = 0;
      vars[nv++] = (vkocc_policy_var){optarg, eq + 1};
      break;
    }
    case 't':
      if (!cli_parse_double(optarg, 1e-12, 1, &threshold))
        return cli_error("policy", 2, "--threshold '%s': expected a number in (0, 1]", optarg);
      break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind < argc) return cli_error("policy", 2, "unexpected argument '%s'", argv[optind]);
  if (!db_path || !kernel) return cli_error("policy", 2, "--db and --kernel are required (see --help)");
  vkocc_policy_db *db;
  vkocc_status st = vkocc_policy_db_load(db_path, &db);
  if (st) return cli_fail("policy", st);
  if (!fp_path) {
    /* an unknown kernel is a usage error: say so before fingerprinting the device (half a minute) */
    vkocc_policy_choice probe_choice;
    st = vkocc_policy_select(db, kernel, NULL, vars, nv, threshold, &probe_choice);
    if (st == VKOCC_OK) vkocc_policy_choice_free(&probe_choice);
    if (st == VKOCC_ERROR_USAGE) { vkocc_policy_db_free(db); return cli_fail("policy", st); }
  }
  vkocc_fingerprint fp;
  if (fp_path) {
    if ((st = vkocc_fingerprint_load(fp_path, &fp))) { vkocc_policy_db_free(db); return cli_fail("policy", st); }
  } else {
    json_t *doc;
    int rc = cli_fingerprint_device(&c, false, &doc, &fp);
    if (rc) { vkocc_policy_db_free(db); return rc; }
    json_decref(doc);
  }
  vkocc_policy_choice ch2;
  st = vkocc_policy_select(db, kernel, &fp, vars, nv, threshold, &ch2);
  vkocc_policy_db_free(db);
  if (st) return cli_fail("policy", st);
  if (c.json) {
    json_error_t e;
    json_t *params = json_loads(ch2.params_json, 0, &e);
    json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:o}", "schema", "vkocc.policy-choice/1", "kernel", kernel,
                            "rule", rule_name(ch2.rule), "device_cluster", fp.cluster_id, "cluster", ch2.cluster_id,
                            "distance", ch2.distance, "params", params ? params : json_null());
    vkocc_policy_choice_free(&ch2);
    return cli_emit_json("policy", doc, NULL);
  }
  printf("kernel:  %s\nrule:    %s", kernel, rule_name(ch2.rule));
  if (ch2.rule == VKOCC_POLICY_EXACT) printf(" (entry %d for cluster %s)", ch2.entry, ch2.cluster_id);
  if (ch2.rule == VKOCC_POLICY_NEAREST)
    printf(" (entry %d for cluster %s at distance %.4f from %s)", ch2.entry, ch2.cluster_id, ch2.distance, fp.cluster_id);
  if (ch2.rule == VKOCC_POLICY_DEFAULT) printf(" (no entry for cluster %s or a cluster within %.3f)", fp.cluster_id, threshold);
  printf("\nparams:  %s\n", ch2.params_json);
  vkocc_policy_choice_free(&ch2);
  return 0;
}
