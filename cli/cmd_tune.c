/* vkocc tune KERNEL --size N -o FILE: the harness (tune/tune.c) over one of the shipped kernels
 * (kernels/), written as a vkocc.tune-results/1 document that --resume continues (docs/tune.md). */
#include "cli.h"
#include "io.h"
#include "tune_help.h"
#include "tune_replay.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *help =
    "usage: vkocc tune histogram|reduce --size N (-o FILE | --json) [--type u32|f32] [--resume] [--only PARAM=V1,V2]...\n"
    "                  [--fingerprint FILE] [--spread S] [--max-runs N] [--threads N] [--json] [--device D] [--queue Q]\n"
    "Benchmarks every configuration of a shipped kernel (histogram: 256-bin histogram of u32; reduce: sum of u32\n"
    "or f32) on N elements: the cartesian product of its parameters less what the device's limits rule out,\n"
    "pipelines created in parallel through the pipeline cache, warm-up dispatches discarded, queue timestamps\n"
    "around each dispatch, repeated until the runs' spread (MAD / median) is below S (default 0.02) or a cap,\n"
    "every configuration's answer checked against a CPU reference (a wrong one is reported, never chosen).\n"
    "Writes every result with the device's fingerprint summary (cluster ID from the cached fingerprint, measured\n"
    "when there is none, or from --fingerprint FILE) to FILE (schema vkocc.tune-results/1), atomically, also\n"
    "every 10 s while measuring. --resume continues FILE: configurations already measured are skipped; a file of\n"
    "another kernel, type, size or device is refused. --only keeps the configurations whose PARAM is one of the\n"
    "values, and those without PARAM (repeatable). --json prints the document on stdout (with or without -o).\n"
    "Sizes take K/M suffixes (x1024). On a terminal: progress with elapsed time, ETA and the best so far.\n"
    "docs/tune.md.\n"
    "       vkocc tune SPEC.json -o FILE ...   tunes your own Vulkan kernel from a T1 file (vkocc tune SPEC.json --help)\n"
    "       vkocc tune --replay RESULTS ... | --list-strategies   search strategies over recorded results (--replay R --help)\n";

typedef struct ckpt {
  const char *path;
  const tune_device_id *dev;
  double t0;
  const tune_run *run; /* for the progress line's best so far */
} ckpt;

static void progress(void *user, const char *phase, uint32_t done, uint32_t total) {
  cli_tune_progress(((const ckpt *)user)->run, phase, done, total);
}

static void now_utc(char *out, size_t len) {
  time_t now = time(NULL);
  strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

static vkocc_status save(void *user, const tune_run *run) {
  ckpt *c = user;
  char when[32];
  now_utc(when, sizeof when);
  json_t *doc = tune_results_json(run, c->dev, when, vkocc_now_ms() - c->t0);
  vkocc_status s = vkocc_json_write(doc, c->path);
  json_decref(doc);
  return s;
}

/* `vkocc tune SPEC.json ...`: the first operand (skipping option values) ends in .json: a T1 spec */
static bool spec_mode(int argc, char **argv) {
  static const char *const with_value[] = {"-o", "--output", "--t4", "--strategy", "--budget", "--fraction", "--time",
                                           "--seed", "--reference", "--name", "--spread", "--max-runs", "--timeout",
                                           "--fingerprint", "--device", "-d", "--queue", "--size", "--type", "--only",
                                           "--threads", "--confirm", "--warmup-ms", NULL};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) return i + 1 < argc && strlen(argv[i + 1]) > 5 && !strcmp(argv[i + 1] + strlen(argv[i + 1]) - 5, ".json");
    if (a[0] == '-') {
      for (const char *const *w = with_value; *w; w++)
        if (!strcmp(a, *w)) { i++; break; }
      continue;
    }
    size_t l = strlen(a);
    return l > 5 && !strcmp(a + l - 5, ".json");
  }
  return false;
}

int cmd_tune(int argc, char **argv) {
  /* --replay and --list-strategies need no device: cli/tune_replay.c */
  if (cli_tune_replay_wanted(argc, argv)) return cli_tune_replay(argc, argv);
  if (spec_mode(argc, argv)) return cmd_tune_spec(argc, argv);
  cli_common c = {0};
  const char *out = NULL, *type = NULL, *fp_path = NULL, *only[32];
  uint32_t nonly = 0, size = 0, max_runs = 0, threads = 0;
  bool resume = false, have_size = false;
  double spread = 0;
  static const struct option opts[] = {
      {"size", required_argument, 0, 'n'}, {"type", required_argument, 0, 't'}, {"output", required_argument, 0, 'o'},
      {"resume", no_argument, 0, 'r'}, {"only", required_argument, 0, 'O'}, {"fingerprint", required_argument, 0, 'f'},
      {"spread", required_argument, 0, 's'}, {"max-runs", required_argument, 0, 'm'}, {"threads", required_argument, 0, 'T'},
      {"json", no_argument, 0, 'j'}, {"device", required_argument, 0, 'd'}, CLI_QUEUE_OPTION,
      {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "ho:d:", opts, NULL)) != -1) {
    switch (ch) {
    case 'n':
      if (!cli_parse_u32(optarg, true, &size) || size == 0 || size > 0x7fffffffu)
        return cli_error("tune", 2, "--size '%s': expected 1 to 2^31-1 elements (K/M suffixes)", optarg);
      have_size = true;
      break;
    case 't': type = optarg; break;
    case 'o': out = optarg; break;
    case 'r': resume = true; break;
    case 'O':
      if (nonly == 32) return cli_error("tune", 2, "--only: at most 32");
      only[nonly++] = optarg;
      break;
    case 'f': fp_path = optarg; break;
    case 's':
      if (!cli_parse_double(optarg, 1e-6, 1, &spread)) return cli_error("tune", 2, "--spread '%s': expected a number in (0, 1]", optarg);
      break;
    case 'm':
      if (!cli_parse_u32(optarg, false, &max_runs) || max_runs < 3 || max_runs > 1000)
        return cli_error("tune", 2, "--max-runs '%s': expected 3 to 1000", optarg);
      break;
    case 'T':
      if (!cli_parse_u32(optarg, false, &threads) || threads < 1 || threads > 64)
        return cli_error("tune", 2, "--threads '%s': expected 1 to 64", optarg);
      break;
    case 'j': c.json = true; break;
    case 'd': c.device = optarg; break;
    case CLI_OPT_QUEUE: c.queue = optarg; break;
    case 'h': fputs(help, stdout); cli_tune_print_params(stdout); return 0;
    default: fputs(help, stderr); cli_tune_print_params(stderr); return 2;
    }
  }
  if (optind >= argc) return cli_error("tune", 2, "expected a kernel name: histogram or reduce (see --help)");
  const char *kname = argv[optind];
  if (optind + 1 < argc) return cli_error("tune", 2, "unexpected argument '%s'", argv[optind + 1]);
  const tune_kernel_def *k = vkocc_kernel_find(kname);
  if (!k) return cli_error("tune", 2, "unknown kernel '%s' (kernels: histogram, reduce)", kname);
  bool f32;
  if (tune_parse_type(k, type, &f32)) return cli_fail("tune", VKOCC_ERROR_USAGE);
  if (!have_size) return cli_error("tune", 2, "--size N is required (elements)");
  if (!out && !c.json) return cli_error("tune", 2, "-o FILE or --json is required (where the results document goes)");
  if (!out && resume) return cli_error("tune", 2, "--resume needs -o FILE (the document to continue)");
  int rc = cli_check_output("tune", "-o", out);
  if (rc) return rc;
  /* a previous document is read before anything is measured; a bad one is left as it is */
  tune_doc prev = {0};
  bool have_prev = false;
  if (resume && access(out, F_OK) == 0) {
    if (tune_results_load(out, NULL, &prev)) return cli_error("tune", 2, "--resume: %s", vkocc_last_error());
    have_prev = true;
    if (prev.k != k || prev.f32 != f32 || prev.n != size) {
      rc = cli_error("tune", 2, "--resume: %s holds %s %s at --size %llu, not %s %s at --size %u", out, prev.k->name,
                     prev.f32 ? "f32" : "u32", (unsigned long long)prev.n, k->name, f32 ? "f32" : "u32", size);
      tune_doc_free(&prev);
      return rc;
    }
  }
  double t0 = vkocc_now_ms();
  /* the device's fingerprint summary: a given file, else the cached one (measured when absent) */
  vkocc_context *ctx;
  tune_device_id dev;
  if ((rc = cli_tune_device(&c, fp_path, &ctx, &dev))) { tune_doc_free(&prev); return rc; }
  vkocc_status st;
  if (have_prev && strcmp(prev.dev.id.key, dev.id.key)) {
    rc = cli_error("tune", 2, "--resume: %s was measured on '%s', not on this device ('%s')", out, prev.dev.id.key, dev.id.key);
    vkocc_context_destroy(ctx);
    tune_doc_free(&prev);
    return rc;
  }
  ckpt cp = {.path = out, .dev = &dev, .t0 = t0};
  tune_options o = {.threads = threads, .target_spread = spread, .max_runs = max_runs, .only = only, .nonly = nonly,
                    .checkpoint = out ? save : NULL, .user = &cp};
  if (cli_is_tty()) o.progress = progress;
  tune_run run;
  if ((st = tune_prepare(ctx, k, size, f32, &o, &run))) {
    vkocc_context_destroy(ctx);
    tune_doc_free(&prev);
    return cli_fail("tune", st);
  }
  uint32_t resumed = 0;
  for (uint32_t i = 0; i < prev.count; i++) {
    uint32_t j = 0;
    while (j < run.count && strcmp(run.r[j].key, prev.r[i].key)) j++;
    if (j == run.count) {
      if (run.count == run.space_total) continue;
      run.count++; /* measured before under other --only filters: kept, nothing lost */
    }
    run.r[j] = prev.r[i];
    resumed++;
  }
  if (have_prev) run.pipelines_ms = prev.pipelines_ms > 0 ? prev.pipelines_ms : 0, run.measure_ms = prev.measure_ms > 0 ? prev.measure_ms : 0;
  tune_doc_free(&prev);
  if (resumed && cli_is_tty()) fprintf(stderr, "vkocc tune: %u configurations resumed from %s\n", resumed, out);
  double prev_pipelines_ms = run.pipelines_ms, prev_measure_ms = run.measure_ms; /* from the resumed runs */
  cp.run = &run;
  st = tune_measure(ctx, &run, &o);
  vkocc_context_destroy(ctx);
  if (st) {
    if (out) save(&cp, &run); /* what was measured is kept for --resume */
    tune_run_free(&run);
    return cli_fail("tune", st);
  }
  char when[32];
  now_utc(when, sizeof when);
  json_t *doc = tune_results_json(&run, &dev, when, vkocc_now_ms() - t0);
  if (out && (st = vkocc_json_write(doc, out))) { json_decref(doc); tune_run_free(&run); return cli_fail("tune", st); }
  if (c.json) {
    tune_run_free(&run);
    return cli_emit_json("tune", doc, NULL);
  }
  json_decref(doc);
  uint32_t valid = 0, invalid = 0;
  for (uint32_t i = 0; i < run.count; i++) run.r[i].valid ? valid++ : invalid++;
  printf("kernel:   %s %s, %llu elements\n", k->name, f32 ? "f32" : "u32", (unsigned long long)run.n);
  printf("device:   %s (cluster %s)\n", dev.id.key, dev.cluster_id);
  printf("space:    %u configurations, %u pruned by the device (%s), %u left out by --only; %u measured (%u resumed), "
         "%u valid, %u invalid\n", run.space_total, run.pruned, run.pruned ? run.prune_note : "none", run.filtered,
         run.count, resumed, valid, invalid);
  /* this run's parts add up to its total; the resumed runs' time is said apart */
  printf("time:     this run %.1f s (pipelines %.1f s, measuring %.1f s, the rest fingerprint and set-up)",
         (vkocc_now_ms() - t0) / 1e3, (run.pipelines_ms - prev_pipelines_ms) / 1e3, (run.measure_ms - prev_measure_ms) / 1e3);
  if (resumed) printf("; with the %u resumed: pipelines %.1f s, measuring %.1f s", resumed, run.pipelines_ms / 1e3,
                      run.measure_ms / 1e3);
  printf("\n");
  for (uint32_t i = 0; i < run.count; i++)
    if (!run.r[i].valid) printf("invalid:  %s: %s\n", run.r[i].key, run.r[i].error);
  /* the five fastest valid configurations */
  bool *shown = vkocc_xcalloc(run.count + 1, 1);
  for (int rank = 0; rank < 5; rank++) {
    int b = -1;
    for (uint32_t i = 0; i < run.count; i++)
      if (!shown[i] && run.r[i].valid && (b < 0 || run.r[i].median_ns < run.r[b].median_ns)) b = (int)i;
    if (b < 0) break;
    shown[b] = true;
    printf("%s %10.1f us  spread %5.2f%%  runs %3u  %s\n", rank ? "         " : "best:    ", run.r[b].median_ns / 1e3,
           100 * run.r[b].spread, run.r[b].runs, run.r[b].key);
  }
  free(shown);
  if (out) printf("written:  %s\n", out);
  tune_run_free(&run);
  return 0;
}
