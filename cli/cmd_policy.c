/* vkocc policy build | select | transfer (docs/policy.md, docs/tune.md). */
#include "cli.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc policy build (RESULT... | --db STORE) (-o DB | --json) [--statistic median|min]\n"
    "       vkocc policy select --db FILE --kernel NAME [--system-db STORE] [--size N] [--fingerprint FILE]\n"
    "                           [--var NAME=VALUE ...] [--threshold T] [--json] [--device D] [--queue Q]\n"
    "       vkocc policy transfer (RESULT... | --db STORE) [--threshold T] [--statistic median|min] [--json]\n"
    "       vkocc policy header (DB | --db STORE) -o FILE   (a C header of the parameter sets per cluster ID)\n"
    "       vkocc policy add --db STORE [--wait SECONDS] [--allow-network-fs] [--json] FILE...\n"
    "       vkocc policy check --db STORE   (PRAGMA integrity_check and the store's counts)\n"
    "build: a policy database (schema vkocc.policy-db/2) from `vkocc tune` results of one or more devices: per\n"
    "kernel, element type and problem-size bucket, an entry for each exact device (its best), one per cluster\n"
    "(best geometric-mean efficiency over the cluster's devices) and a default (best worst-case efficiency over\n"
    "every result).\n"
    "select: picks tuned parameters: an entry for the exact device, else for its cluster ID, else for the nearest\n"
    "known cluster within T (default 0.02), else the kernel's default. The --var decision variables\n"
    "(problem_size, element_type) narrow every rule to the entries whose conditions they meet; a problem size\n"
    "outside every bucket takes the nearest bucket; a variable not given narrows nothing (problem_size missing:\n"
    "the entry tuned at the largest size), and the 'note:' line names it with the values the database has.\n"
    "The exact-device rule needs the fingerprint's device and SM count (a whole fingerprint file, or the live\n"
    "device). Without --fingerprint the live device is fingerprinted (or its cached fingerprint reused).\n"
    "Prints the parameters, the rule that chose them and why the earlier rules did not.\n"
    "transfer: for each result file's device, the configuration each rule picks from the OTHER devices' results\n"
    "(cluster, nearest cluster, default, name-keyed lookup, and what select would answer) and its efficiency\n"
    "there (its best time / the chosen configuration's time, from the target's own results: no device needed),\n"
    "with the performance-portability metric (harmonic mean over the devices, 0 if any has no answer).\n"
    "--statistic min: each configuration's fastest run stands for it instead of its median (robust to other\n"
    "work on a loaded host, which only adds time).\n"
    "The policy store (docs/policy-store.md): one SQLite file (WAL journal) that many machines fill and every\n"
    "application reads. add: tuning results (vkocc tune -o), T4 results (with their .metadata.json beside them)\n"
    "and JSON policy databases into STORE (created when absent), all files in one transaction: a result added\n"
    "twice is stored once; a file that contradicts the store (another time for the same configuration, device\n"
    "and size; another spec under a kernel's name) is refused with the reason and nothing is added (exit 2).\n"
    "A writer waits at most --wait SECONDS (default 60) for another's lock, then exit 1 naming the store and the\n"
    "processes that have it open. A store on a network file system (NFS, CIFS/SMB, AFS, Ceph, Lustre, 9p, FUSE,\n"
    "...) is refused for writing unless --allow-network-fs: SQLite's locks may not hold there. A symbolic link,\n"
    "a FIFO, a damaged file, a store of a newer schema or a truncated WAL is refused (exit 2), nothing written.\n"
    "--db STORE in select, build, transfer and header reads the store (select: its entries by the same rules;\n"
    "--system-db: a read-only system store under the user's --db, whose entries for a device or cluster replace\n"
    "the system's); build --db writes today's JSON database of the store (a store holding one imported\n"
    "database and no results gives it back byte for byte). check: exit 0 when intact, 2 when damaged.\n";

/* The RESULT files of argv[first..]: at least one */
static int results_given(int argc, int first) {
  if (first >= argc) return cli_error("policy", 2, "expected at least one RESULT file (vkocc tune -o)");
  return 0;
}

/* The document's text on stdout (--json), then parsed for the summary */
static int print_text(const char *text) {
  if (fputs(text, stdout) == EOF || fflush(stdout) != 0 || ferror(stdout))
    return cli_error("policy", 1, "cannot write to standard output: %s", strerror(errno));
  return 0;
}

static int statistic(const char *arg, bool *use_min) {
  if (!strcmp(arg, "median") || !strcmp(arg, "min")) { *use_min = !strcmp(arg, "min"); return 0; }
  return cli_error("policy", 2, "--statistic '%s': expected median or min", arg);
}

static int cmd_build(cli_run *run, int argc, char **argv) {
  const char *out = NULL, *store = NULL;
  bool json = false, use_min = false;
  static const struct option opts[] = {{"output", required_argument, 0, 'o'}, {"json", no_argument, 0, 'j'},
                                       {"statistic", required_argument, 0, 'S'}, {"db", required_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
    switch (ch) {
    case 'b': store = optarg; break;
    case 'o': out = optarg; break;
    case 'j': json = true; break;
    case 'S': if (statistic(optarg, &use_min)) return 2; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (!out && !json) return cli_error("policy", 2, "build: -o DB or --json is required (where the database goes)");
  if (out && !strcmp(out, "-")) out = NULL, json = true; /* "-": standard output, as everywhere */
  int rc = cli_check_output("policy", "-o", out);
  if (rc) return rc;
  if (store && optind < argc) return cli_error("policy", 2, "build: give RESULT files or --db STORE, not both");
  if (!store && (rc = results_given(argc, optind))) return rc;
  if ((rc = cli_check_not_input("policy", "-o", out, store ? &store : (const char *const *)argv + optind,
                                store ? 1 : (uint32_t)(argc - optind)))) return rc;
  char *text;
  vkocc_status st = store ? vkocc_policy_store_export(store, use_min, out, &text)
                          : vkocc_policy_build((const char *const *)argv + optind, (uint32_t)(argc - optind), use_min, out, &text);
  if (st) return cli_fail("policy", st);
  if (json) {
    rc = print_text(text);
    free(text);
    return rc;
  }
  json_t *db = json_loads(text, 0, NULL);
  free(text);
  const char *kname;
  json_t *k;
  json_object_foreach(json_object_get(db, "kernels"), kname, k) {
    json_t *entries = json_object_get(k, "entries"), *def = json_object_get(k, "default");
    size_t dev = 0;
    for (size_t i = 0; i < json_array_size(entries); i++) dev += json_object_get(json_array_get(entries, i), "device") != NULL;
    char *p = json_dumps(json_object_get(def, "params"), JSON_COMPACT | JSON_SORT_KEYS);
    /* the database went to -o: stdout stays quiet, the summary is for the terminal */
    fprintf(stderr, "%-10s %zu device entries, %zu cluster entries; default %s (worst efficiency %.3f, geometric mean %.3f)\n",
           kname, dev, json_array_size(entries) - dev, p ? p : "-",
           json_number_value(json_object_get(def, "worst_efficiency")), json_number_value(json_object_get(def, "geomean_efficiency")));
    free(p);
  }
  fprintf(stderr, "clusters:  %zu\nwritten:   %s\n", json_object_size(json_object_get(db, "clusters")), out);
  json_decref(db);
  return 0;
}

static void cell(json_t *a, char *buf, size_t len) {
  if (!json_is_object(a)) { snprintf(buf, len, "-"); return; }
  snprintf(buf, len, "%.3f", json_number_value(json_object_get(a, "efficiency")));
}

static int cmd_transfer(cli_run *run, int argc, char **argv) {
  bool json = false, use_min = false;
  const char *store = NULL;
  double threshold = VKOCC_CLUSTER_THRESHOLD;
  static const struct option opts[] = {{"threshold", required_argument, 0, 't'}, {"json", no_argument, 0, 'j'},
                                       {"statistic", required_argument, 0, 'S'}, {"db", required_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (ch) {
    case 'b': store = optarg; break;
    case 't':
      if (!cli_parse_double(optarg, 1e-12, 1, &threshold))
        return cli_error("policy", 2, "--threshold '%s': expected a number in (0, 1]", optarg);
      break;
    case 'j': json = true; break;
    case 'S': if (statistic(optarg, &use_min)) return 2; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (store && optind < argc) return cli_error("policy", 2, "transfer: give RESULT files or --db STORE, not both");
  int rc = store ? 0 : results_given(argc, optind);
  if (rc) return rc;
  char *text;
  vkocc_status st = store ? vkocc_policy_store_transfer(store, use_min, threshold, NULL, &text)
                          : vkocc_policy_transfer((const char *const *)argv + optind, (uint32_t)(argc - optind), use_min,
                                                  threshold, NULL, &text);
  if (st) return cli_fail("policy", st);
  if (json) {
    rc = print_text(text);
    free(text);
    return rc;
  }
  json_t *rep = json_loads(text, 0, NULL);
  free(text);
  static const char *const rules[] = {"device", "cluster", "nearest", "default", "name", "policy"};
  size_t gi;
  json_t *g;
  json_array_foreach(json_object_get(rep, "groups"), gi, g) {
    printf("%s%s %s: efficiency = target's best time / chosen configuration's time on the target ('-': no answer)\n",
           gi ? "\n" : "", json_string_value(json_object_get(g, "kernel")), json_string_value(json_object_get(g, "element_type")));
    printf("%-58s %10s %7s %7s %7s %7s %7s %7s  %s\n", "target device (size)", "best us", "device", "cluster", "nearest",
           "default", "name", "policy", "policy rule / nearest distance");
    size_t ti;
    json_t *t;
    json_array_foreach(json_object_get(g, "targets"), ti, t) {
      json_t *r = json_object_get(t, "rules");
      char label[128], c[6][16];
      /* "NAME... | sm N (size)": the SM count tells apart devices of one name */
      const char *key = json_string_value(json_object_get(t, "device")), *sm = strrchr(key, '|');
      size_t nl = strcspn(key, "|");
      snprintf(label, sizeof label, "%.*s|%s (%lld)", (int)(nl > 34 ? 34 : nl), key, sm ? sm + 1 : "",
               json_integer_value(json_object_get(t, "problem_size")));
      for (int i = 0; i < 6; i++) cell(json_object_get(r, rules[i]), c[i], sizeof c[i]);
      json_t *nr = json_object_get(r, "nearest"), *pol = json_object_get(r, "policy");
      char tail[96] = "";
      if (json_is_object(pol)) snprintf(tail, sizeof tail, "%s", json_string_value(json_object_get(pol, "rule")));
      if (json_is_object(nr))
        snprintf(tail + strlen(tail), sizeof tail - strlen(tail), " / %.3f", json_number_value(json_object_get(nr, "distance")));
      printf("%-58s %10.1f %7s %7s %7s %7s %7s %7s  %s\n", label, json_number_value(json_object_get(t, "best_ns")) / 1e3,
             c[0], c[1], c[2], c[3], c[4], c[5], tail);
    }
    json_t *pp = json_object_get(g, "portability");
    printf("%-58s %10s", "performance portability (harmonic mean)", "");
    for (int i = 0; i < 6; i++) printf(" %7.3f", json_number_value(json_object_get(pp, rules[i])));
    printf("\n");
  }
  json_decref(rep);
  return 0;
}

static int cmd_select(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  const char *db_path = NULL, *kernel = NULL, *fp_path = NULL, *system_db = NULL;
  double threshold = VKOCC_CLUSTER_THRESHOLD;
  vkocc_policy_var vars[64];
  uint32_t nv = 0;
  static const struct option opts[] = {
      {"db", required_argument, 0, 'b'}, {"kernel", required_argument, 0, 'k'},
      {"fingerprint", required_argument, 0, 'f'}, {"var", required_argument, 0, 'v'},
      {"threshold", required_argument, 0, 't'}, {"json", no_argument, 0, 'j'}, {"device", required_argument, 0, 'd'}, CLI_QUEUE_OPTION,
      {"size", required_argument, 0, 'n'}, {"system-db", required_argument, 0, 's'}, {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "hd:", opts, NULL)) != -1) {
    switch (ch) {
    case 'n': /* --size N: the problem_size decision variable (a user kernel's: the product of its ProblemSize) */
      if (nv == 64) return cli_error("policy", 2, "--size: at most 64 variables");
      vars[nv++] = (vkocc_policy_var){"problem_size", optarg};
      break;
    case 'b': db_path = optarg; break;
    case 's': system_db = optarg; break;
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
  /* a store (SQLite) or today's JSON database; a system store only under a user store */
  bool store = vkocc_policy_store_is(db_path);
  if (system_db && !store) return cli_error("policy", 2, "--system-db: layering needs a policy store as --db (SQLite; vkocc policy add --db)");
  /* a store with a fingerprint file: the device's key first, so that only its entries and the cluster entries are read */
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det = {0};
  char key[640] = "";
  if (store && fp_path) {
    vkocc_status fs = vkocc_fingerprint_load_details(fp_path, &fp, &det, NULL);
    if (fs) { vkocc_fingerprint_details_free(&det); return cli_fail("policy", fs); }
    if (det.device.name[0]) vkocc_device_key(&det.device, det.derived.sm_count, key, sizeof key);
  }
  vkocc_status st = store ? vkocc_policy_store_load(db_path, system_db, kernel, key, &db) : vkocc_policy_db_load(db_path, &db);
  if (st) { vkocc_fingerprint_details_free(&det); return cli_fail("policy", st); }
  if (!fp_path) {
    /* an unknown kernel is a usage error: say so before fingerprinting the device (half a minute) */
    vkocc_policy_choice probe_choice;
    st = vkocc_policy_select(db, kernel, NULL, vars, nv, threshold, &probe_choice);
    if (st == VKOCC_OK) vkocc_policy_choice_free(&probe_choice);
    if (st == VKOCC_ERROR_USAGE) { vkocc_policy_db_free(db); return cli_fail("policy", st); }
  }
  if (fp_path && !store) {
    if ((st = vkocc_fingerprint_load_details(fp_path, &fp, &det, NULL))) {
      vkocc_fingerprint_details_free(&det);
      vkocc_policy_db_free(db);
      return cli_fail("policy", st);
    }
  } else if (!fp_path) {
    /* with the device and derived SM count of the live fingerprint, for the exact-device rule */
    int rc = cli_fingerprint_measure("policy", &c, false, &fp, &det);
    if (rc) { vkocc_policy_db_free(db); return rc; }
  }
  if (det.device.name[0]) vkocc_device_key(&det.device, det.derived.sm_count, key, sizeof key);
  /* the kind of queue family this device's fingerprint was measured on: entries tuned on it are preferred */
  const char *qkind = det.device.name[0] ? vkocc_queue_kind_name(det.device.compute_queue_flags) : "unknown";
  vkocc_policy_choice ch2;
  st = vkocc_policy_select_fingerprint(db, kernel, &fp, &det, vars, nv, threshold, &ch2);
  vkocc_fingerprint_details_free(&det);
  vkocc_policy_db_free(db);
  if (st) return cli_fail("policy", st);
  if (c.json) {
    json_error_t e;
    json_t *params = json_loads(ch2.params_json, 0, &e);
    json_t *out = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:o}", "schema", vkocc_doc_schema_string(VKOCC_DOC_POLICY_CHOICE), "kernel", kernel,
                            "rule", vkocc_policy_rule_name(ch2.rule), "device_key", key, "device_cluster", fp.cluster_id,
                            "cluster", ch2.cluster_id, "distance", ch2.distance, "params", params ? params : json_null());
    json_object_set_new(out, "note", ch2.note[0] ? json_string(ch2.note) : json_null());
    json_object_set_new(out, "queue_kind", json_string(qkind));
    json_object_set_new(out, "entry_queue_kind", ch2.queue_kind[0] ? json_string(ch2.queue_kind) : json_null());
    vkocc_policy_choice_free(&ch2);
    return cli_emit_json("policy", out, NULL);
  }
  printf("kernel:  %s\nrule:    %s", kernel, vkocc_policy_rule_name(ch2.rule));
  if (ch2.rule == VKOCC_POLICY_DEVICE) printf(" (entry %d for this exact device: %s)", ch2.entry, key);
  if (ch2.rule == VKOCC_POLICY_CLUSTER) printf(" (entry %d for cluster %s)", ch2.entry, ch2.cluster_id);
  if (ch2.rule == VKOCC_POLICY_NEAREST)
    printf(" (entry %d for cluster %s at distance %.4f from %s)", ch2.entry, ch2.cluster_id, ch2.distance, fp.cluster_id);
  printf("\nparams:  %s\n", ch2.params_json);
  if (ch2.queue_kind[0])
    printf("queue:   tuned on a %s queue family; this device's fingerprint: %s\n", ch2.queue_kind, qkind);
  if (ch2.note[0]) printf("note:    %s\n", ch2.note);
  vkocc_policy_choice_free(&ch2);
  return 0;
}

static int cmd_add(cli_run *run, int argc, char **argv) {
  const char *store = NULL;
  bool json = false;
  vkocc_policy_store_options o = {0};
  static const struct option opts[] = {{"db", required_argument, 0, 'b'}, {"wait", required_argument, 0, 'w'},
                                       {"allow-network-fs", no_argument, 0, 'N'}, {"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  double wait;
  while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (ch) {
    case 'b': store = optarg; break;
    case 'w':
      if (!cli_parse_double(optarg, 0.001, 86400, &wait))
        return cli_error("policy", 2, "--wait '%s': expected seconds in (0, 86400]", optarg);
      o.wait_ms = (uint32_t)(wait * 1000 + 0.5);
      if (!o.wait_ms) o.wait_ms = 1;
      break;
    case 'N': o.allow_network_fs = true; break;
    case 'j': json = true; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (!store) return cli_error("policy", 2, "add: --db STORE is required (the SQLite file to add to)");
  if (optind >= argc) return cli_error("policy", 2, "add: expected at least one file (results, T4 results, a policy database)");
  vkocc_policy_store_added a;
  vkocc_status st = vkocc_policy_store_add(store, (const char *const *)argv + optind, (uint32_t)(argc - optind), &o, &a);
  if (st) return cli_fail("policy", st);
  if (json) {
    json_t *out = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "store", store, "files", (json_int_t)a.files,
                            "results_added", (json_int_t)a.results_added, "results_present", (json_int_t)a.results_present,
                            "databases_added", (json_int_t)a.databases_added, "databases_present",
                            (json_int_t)a.databases_present, "entries_added", (json_int_t)a.entries_added,
                            "kernels_rebuilt", (json_int_t)a.kernels_rebuilt);
    return cli_emit_json("policy", out, NULL);
  }
  printf("store:     %s\nfiles:     %u\nresults:   %llu added, %llu there already\n", store, a.files,
         (unsigned long long)a.results_added, (unsigned long long)a.results_present);
  if (a.databases_added || a.databases_present)
    printf("databases: %u added (%u entries), %u there already\n", a.databases_added, a.entries_added, a.databases_present);
  if (a.kernels_rebuilt) printf("policy:    built again for %u kernel%s\n", a.kernels_rebuilt, a.kernels_rebuilt == 1 ? "" : "s");
  return 0;
}

static int cmd_check(cli_run *run, int argc, char **argv) {
  const char *store = NULL;
  static const struct option opts[] = {{"db", required_argument, 0, 'b'}, {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (ch) {
    case 'b': store = optarg; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (!store && optind < argc) store = argv[optind++];
  if (!store) return cli_error("policy", 2, "check: --db STORE is required");
  if (optind < argc) return cli_error("policy", 2, "check: unexpected argument '%s'", argv[optind]);
  char *report = NULL;
  vkocc_status st = vkocc_policy_store_check(store, &report);
  if (st) return cli_fail("policy", st);
  int rc = print_text(report);
  free(report);
  return rc;
}

/* select fingerprints the live device when no --fingerprint names one; the others read files only */
static const cli_command subcommands[] = {
    {"build", cmd_build, "a policy database from tuning results", CLI_NO_DEVICE},
    {"select", cmd_select, "tuned parameters for a device", CLI_DEVICE},
    {"transfer", cmd_transfer, "how each rule's picks fare on the other devices' results", CLI_NO_DEVICE},
    {"header", cmd_policy_header, "a C header of the parameter sets per cluster ID", CLI_NO_DEVICE},
    {"add", cmd_add, "results and policy databases into a policy store (SQLite)", CLI_NO_DEVICE},
    {"check", cmd_check, "a policy store's integrity and counts", CLI_NO_DEVICE},
};

int cmd_policy(cli_run *run, int argc, char **argv) {
  (void)run;
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) { fputs(help, stdout); return 0; }
  const cli_command *sub = cli_find_command(subcommands, sizeof subcommands / sizeof subcommands[0],
                                            argc >= 2 ? argv[1] : NULL);
  if (sub) return cli_dispatch(sub, "policy", argc - 1, argv + 1);
  return cli_error("policy", 2, "expected 'policy build', 'policy select', 'policy transfer', 'policy header', 'policy add' or 'policy check' (see vkocc policy --help)");
}
