/* vkocc tune KERNEL --size N -o FILE: a tuning session (vkocc_tune_open_kernel) over one of the shipped
 * kernels (kernels/, measured through its built-in T1 spec), written as a vkocc.tune-results/1 document that
 * --resume continues (docs/tune.md). */
#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc tune histogram|reduce --size N (-o FILE | --json) [--type u32|f32] [--resume] [--only PARAM=V1,V2]...\n"
    "                  [--fingerprint FILE] [--spread S] [--max-runs N] [--full-rule] [--threads N] [--json] [--device D]\n"
    "                  [--queue Q]\n"
    "Benchmarks every configuration of a shipped kernel (histogram: 256-bin histogram of u32; reduce: sum of u32\n"
    "or f32) on N elements through its built-in T1 spec, by the harness of `vkocc tune SPEC.json`: its space less\n"
    "what the device's limits rule out, each configuration's answer checked against a CPU reference (a wrong one\n"
    "is reported, never chosen), then queue timestamps around each dispatch, repeated until the runs' spread\n"
    "(MAD / median) is below S (default 0.02) or a cap; a configuration whose fastest run is behind the best's median\n"
    "by more than the noise measured stops after 2 runs (recorded as stopped; --full-rule: every one to the rule).\n"
    "--threads N: host threads that build the next pipelines.\n"
    "Writes every result with the device's fingerprint summary (cluster ID from the cached fingerprint, measured\n"
    "when there is none, or from --fingerprint FILE) to FILE (schema vkocc.tune-results/1), atomically, also\n"
    "every 10 s while measuring (-o -: standard output; with -o FILE the summary goes to stderr). Exit 1 when\n"
    "no configuration is valid. --fingerprint FILE must be this device's (--allow-other-device: anyway). --resume continues FILE: configurations already measured are skipped; a file of\n"
    "another kernel, type, size or device is refused. --only keeps the configurations whose PARAM is one of the\n"
    "values, and those without PARAM (repeatable). --json prints the document on stdout (with or without -o).\n"
    "Sizes take K/M suffixes (x1024). On a terminal: progress with elapsed time, ETA and the best so far.\n"
    "docs/tune.md.\n"
    "       vkocc tune SPEC.json -o FILE ...   tunes your own Vulkan kernel from a T1 file (vkocc tune SPEC.json --help)\n"
    "       vkocc tune --replay RESULTS ... | --list-strategies   search strategies over recorded results (--replay R --help)\n";

/* The kernels and every value each parameter takes: what --only accepts. */
static void print_params(FILE *f) {
  char *text = vkocc_tune_kernels_text();
  fprintf(f, "Kernels, and the values of each parameter (--only PARAM=V1,V2 takes these):\n%s", text);
  free(text);
}

/* The progress line with the best valid configuration measured so far. */
static void progress(void *user, const vkocc_tune_progress *p) {
  (void)user;
  char best[320] = "";
  if (p->best_key) snprintf(best, sizeof best, "best %.1f us %.120s", p->best_ns / 1e3, p->best_key);
  cli_progress_line(p->phase, p->done, p->total, best);
}

/* Which of tune's forms argv asks for, from one parse over the options of all three (so an option's value is never
 * read as the operand): --replay or --list-strategies: the replay (no device); else a first operand ending in .json:
 * a T1 spec; else a shipped kernel. The form's own parse then reads argv again and says what is wrong with it. */
typedef enum { TUNE_KERNEL, TUNE_SPEC, TUNE_REPLAY } tune_form;
static tune_form tune_form_of(int argc, char **argv, const struct option *kernel_opts) {
  const struct option *tables[] = {kernel_opts, cli_tune_spec_options, cli_tune_replay_options};
  struct option all[128];
  size_t n = 0;
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (const struct option *o = tables[t]; o->name && n < 127; o++) {
      bool seen = false;
      for (size_t i = 0; i < n && !seen; i++) seen = !strcmp(all[i].name, o->name);
      if (!seen) all[n] = (struct option){o->name, o->has_arg, NULL, (int)(1000 + n)}, n++;
    }
  all[n] = (struct option){0};
  bool replay = false;
  int ch, saved_opterr = opterr;
  opterr = 0, optind = 1;
  while ((ch = getopt_long(argc, argv, "ho:d:", all, NULL)) != -1)
    if (ch >= 1000 && (!strcmp(all[ch - 1000].name, "replay") || !strcmp(all[ch - 1000].name, "list-strategies")))
      replay = true;
  const char *operand = optind < argc ? argv[optind] : NULL;
  opterr = saved_opterr, optind = 1;
  if (replay) return TUNE_REPLAY;
  size_t l = operand ? strlen(operand) : 0;
  return l > 5 && !strcmp(operand + l - 5, ".json") ? TUNE_SPEC : TUNE_KERNEL;
}

/* The session opened: checks, the device, the run, the summary. */
static int tune_kernel(vkocc_tune_session *s, const cli_common *c, bool have_size, const char *out, bool resume,
                       const char *fp_path, const vkocc_tune_options *o) {
  if (!have_size) return cli_error("tune", 2, "--size N is required (elements)");
  if (!out && !c->json) return cli_error("tune", 2, "-o FILE or --json is required (where the results document goes)");
  if (!out && resume) return cli_error("tune", 2, "--resume needs -o FILE (the document to continue)");
  int rc = cli_check_output("tune", "-o", out);
  if (rc || (rc = cli_check_not_input("tune", "-o", out, &fp_path, fp_path ? 1 : 0)) || (rc = cli_lock_output("tune", out)))
    return rc;
  /* a previous document is read before anything is measured; a bad one is left as it is */
  vkocc_status st;
  if (resume && (st = vkocc_tune_resume(s, out))) return cli_fail("tune", st);
  double t0 = vkocc_now_ms();
  /* the device's fingerprint summary: a given file, else the cached one (measured when absent) */
  vkocc_context *ctx;
  if ((rc = cli_tune_device(c, fp_path, s, &ctx))) return rc;
  if ((st = vkocc_tune_prepare(s, ctx, o))) {
    return cli_fail("tune", st);
  }
  vkocc_tune_summary sum;
  vkocc_tune_summarize(s, &sum);
  if (sum.resumed && cli_is_tty()) fprintf(stderr, "vkocc tune: %u configurations resumed from %s\n", sum.resumed, out);
  st = vkocc_tune_run(s, &ctx, o);
  if (st) return cli_fail("tune", st); /* what was measured is in out for --resume */
  vkocc_tune_summarize(s, &sum);
  /* a tune in which nothing is valid has no answer: exit 1 (its results are written) */
  int final = sum.valid ? 0 : cli_error("tune", 1, "no valid configuration among the %u measured", sum.measured);
  if (c->json) {
    json_t *doc;
    if ((st = vkocc_tune_results_document(s, &doc))) return cli_fail("tune", st);
    int rj = cli_emit_json("tune", doc, NULL);
    return final ? final : rj;
  }
  FILE *so = out ? stderr : stdout; /* the results went to -o: stdout stays quiet */
  fprintf(so, "kernel:   %s %s, %llu elements\n", sum.kernel, sum.element_type, (unsigned long long)sum.problem_size);
  fprintf(so, "device:   %s (cluster %s)\n", sum.device_key, sum.cluster_id);
  fprintf(so, "space:    %llu configurations, %llu pruned by the device (%s), %u left out by --only; %u measured (%u resumed), "
         "%u valid, %u invalid\n", (unsigned long long)sum.space_total, (unsigned long long)sum.ruled_out,
         sum.ruled_out ? sum.ruled_out_note : "none", sum.filtered, sum.measured, sum.resumed, sum.valid, sum.invalid);
  /* this run's parts add up to its total; the resumed runs' time is said apart */
  fprintf(so, "time:     this run %.1f s (pipelines %.1f s, measuring %.1f s, the rest fingerprint and set-up)",
         (vkocc_now_ms() - t0) / 1e3, (sum.pipelines_ms - sum.resumed_pipelines_ms) / 1e3,
         (sum.measure_ms - sum.resumed_measure_ms) / 1e3);
  if (sum.resumed) fprintf(so, "; with the %u resumed: pipelines %.1f s, measuring %.1f s", sum.resumed, sum.pipelines_ms / 1e3,
                          sum.measure_ms / 1e3);
  fprintf(so, "\n");
  vkocc_tune_result r;
  for (uint32_t i = 0; i < sum.count; i++)
    if (!vkocc_tune_result_get(s, i, &r) && r.validity != VKOCC_TUNE_CORRECT) fprintf(so, "invalid:  %s: %s\n", r.key, r.error);
  /* the five fastest valid configurations */
  uint32_t top[5], ntop = vkocc_tune_ranking(s, 5, top);
  for (uint32_t rank = 0; rank < ntop; rank++) {
    vkocc_tune_result_get(s, top[rank], &r);
    fprintf(so, "%s %10.1f us  spread %5.2f%%  runs %3u  %s\n", rank ? "         " : "best:    ", r.median_ns / 1e3,
           100 * r.spread, r.runs, r.key);
  }
  if (out) fprintf(so, "written:  %s\n", out);
  return final;
}

int cmd_tune(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  const char *out = NULL, *type = NULL, *fp_path = NULL, *only[32];
  uint32_t nonly = 0, size = 0, max_runs = 0, threads = 0;
  bool resume = false, have_size = false, full_rule = false;
  double spread = 0;
  static const struct option opts[] = {
      {"size", required_argument, 0, 'n'}, {"type", required_argument, 0, 't'}, {"output", required_argument, 0, 'o'},
      {"resume", no_argument, 0, 'r'}, {"only", required_argument, 0, 'O'}, {"fingerprint", required_argument, 0, 'f'},
      {"spread", required_argument, 0, 's'}, {"max-runs", required_argument, 0, 'm'}, {"threads", required_argument, 0, 'T'}, {"full-rule", no_argument, 0, 'u'},
      {"json", no_argument, 0, 'j'}, {"device", required_argument, 0, 'd'}, CLI_QUEUE_OPTION,
      {"allow-other-device", no_argument, 0, 'G'}, {"help", no_argument, 0, 'h'}, {0}};
  switch (tune_form_of(argc, argv, opts)) {
  case TUNE_REPLAY: return cli_tune_replay(run, argc, argv); /* cli/tune_replay.c */
  case TUNE_SPEC: return cmd_tune_spec(run, argc, argv);     /* cli/tune_spec.c */
  case TUNE_KERNEL: break;
  }
  int ch;
  while ((ch = getopt_long(argc, argv, "ho:d:", opts, NULL)) != -1) {
    switch (ch) {
    case 'n':
      if (!cli_parse_u32(optarg, true, &size) || size == 0 || size > 0x7fffffffu)
        return cli_error("tune", 2, "--size '%s': expected 1 to 2^31-1 elements (K/M suffixes)", optarg);
      have_size = true;
      break;
    case 't': type = optarg; break;
    case 'o': out = optarg; break; /* "-": standard output (below) */
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
    case 'u': full_rule = true; break;
    case 'G': c.allow_other_device = true; break;
    case 'd': c.device = optarg; break;
    case CLI_OPT_QUEUE: c.queue = optarg; break;
    case 'h': fputs(help, stdout); print_params(stdout); return 0;
    default: fputs(help, stderr); print_params(stderr); return 2;
    }
  }
  if (out && !strcmp(out, "-")) { /* standard output, as everywhere */
    if (resume) return cli_error("tune", 2, "--resume needs -o FILE (the document to continue)");
    out = NULL, c.json = true;
  }
  if (optind >= argc) return cli_error("tune", 2, "expected a kernel name: histogram or reduce (see --help)");
  const char *kname = argv[optind];
  if (optind + 1 < argc) return cli_error("tune", 2, "unexpected argument '%s'", argv[optind + 1]);
  vkocc_tune_session *s;
  vkocc_status st = vkocc_tune_open_kernel(kname, type, size, &s);
  if (st) return cli_fail("tune", st);
  int rc = tune_kernel(s, &c, have_size, out, resume, fp_path, &(vkocc_tune_options){.threads = threads, .target_spread = spread,
                       .max_runs = max_runs, .full_rule = full_rule, .only = only, .nonly = nonly, .output = out,
                       .progress = cli_is_tty() ? progress : NULL, .note = cli_tune_note});
  vkocc_tune_close(s);
  return rc;
}
