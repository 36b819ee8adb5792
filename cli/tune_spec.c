/* vkocc tune SPEC.json -o RESULTS.json: the user's own kernel tuned from a T1 specification (tune/user.c),
 * written as a vkocc.tune-results/1 document of kind "user" (and T4 with --t4). docs/tune.md. */
#include "cli.h"
#include "io.h"
#include "../tune/user_results.h"
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *help =
    "usage: vkocc tune SPEC.json -o RESULTS.json [--t4 FILE] [--strategy NAME] [--budget N] [--fraction F]\n"
    "                  [--time S] [--seed N] [--resume] [--reference NAME=VALUE,...] [--name NAME] [--occupancy]\n"
    "                  [--only PARAM=V1,V2]... [--confirm K] [--spread S] [--max-runs N] [--timeout S] [--warmup-ms MS]\n"
    "                  [--warmup-ratio R] [--sentinel N] [--fingerprint FILE] [--json]\n"
    "                  [--device D] [--queue Q]\n"
    "Tunes the Vulkan compute kernel a T1 file describes (\"Language\": \"Vulkan\"; the subset vkocc reads is in\n"
    "docs/tune.md): its space less the conditions, searched by the spec's Search (or --strategy: brute_force,\n"
    "random_sample, ...) within its Budget (or --budget configurations, --fraction of the space, --time seconds).\n"
    "Parameters named like a specialization constant of the kernel reach it without a recompile; the others as\n"
    "-D defines (one compile per distinct set). P, the occupancy of each configuration's own pipeline, is measured\n"
    "when a condition or size names it (--occupancy: for every configuration). Each configuration's output is\n"
    "validated (ReferenceArguments, else the first configuration that runs or --reference) on poisoned buffers,\n"
    "then timed with queue timestamps until the runs' spread is below S (default 0.02) or a cap. A configuration\n"
    "that fails to compile, to run, in time, or validation is recorded with its T4 invalidity and never chosen.\n"
    "Writes every result with the device and its cluster ID to RESULTS.json (atomically; also every 10 s and on\n"
    "Ctrl-C), and with --t4 FILE the T4 results to FILE and their metadata beside it (FILE.metadata.json).\n"
    "--resume continues RESULTS.json (same spec file and device). --name: the kernel's name in results and\n"
    "policies (default: the spec file's stem). --only keeps the configurations whose PARAM is one of the values.\n"
    "--warmup-ms MS (default 500): at most this much device time of untimed dispatches of each configuration before\n"
    "it is timed, so clocks (a GPU's, a CPU's) that dropped while the host worked come back up; --warmup-ratio R\n"
    "(default 2): the warm-up lasts R times the host time the GPU sat idle since the last configuration (at least\n"
    "20 ms; a cold GPU gets MS; R 0: always MS). --sentinel N (default 64; 0: none): every N configurations the first\n"
    "correct one is timed again; its medians (\"clocks:\" line, $.measurement.sentinel) show whether the clocks drifted.\n"
    "--confirm K (default 0: none): at the end the K best by median are validated and timed again in 3 interleaved\n"
    "rounds, reported beside their medians. The search's medians rank: on an H100 a final round after a sweep of\n"
    "hundreds of configurations re-timed the best at 1.9-3.4x their medians: the GPU's clocks (docs/tune.md).\nExit 2: a spec outside the subset or that does not fit the kernel.\n";

static volatile sig_atomic_t stop_flag;
static void on_sigint(int sig) { (void)sig; stop_flag = 1; }

typedef struct state {
  const char *out, *t4;
  char t4_meta[1100];
  tune_device_id *dev;
  cli_common *c;
  double last_progress;
} state;

static void now_utc(char *out, size_t len) {
  time_t now = time(NULL);
  strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

static vkocc_status write_all(state *st, const tu_run *run) {
  char when[32];
  now_utc(when, sizeof when);
  json_t *doc = tu_results_json(run, st->dev, when);
  vkocc_status s = cli_json_write(doc, st->out);
  json_decref(doc);
  if (!s && st->t4) {
    json_t *t4 = tu_t4_results(run), *meta = tu_t4_metadata(run, st->dev);
    s = cli_json_write(t4, st->t4);
    if (!s) s = cli_json_write(meta, st->t4_meta);
    json_decref(t4), json_decref(meta);
  }
  return s;
}

/* nothing is written until some configuration got past compiling: a kernel that compiles for none is bad
 * input, and the previous results file must then stay as it was */
static bool worth_writing(const tu_run *run) {
  for (uint32_t i = 0; i < run->space.count; i++)
    if (run->r[i].measured && run->r[i].inv != TU_COMPILE) return true;
  return false;
}

static vkocc_status checkpoint(void *user, const tu_run *run) {
  return worth_writing(run) ? write_all(user, run) : VKOCC_OK;
}

static void progress(void *user, uint32_t done, uint32_t total, double best_ns, double eta_s) {
  state *st = user;
  double now = vkocc_now_ms();
  if (done < total && now - st->last_progress < 200) return;
  st->last_progress = now;
  char best[32] = "-", eta[32] = "-";
  if (isfinite(best_ns)) snprintf(best, sizeof best, "%.2f us", best_ns / 1e3);
  if (isfinite(eta_s) && eta_s >= 0) snprintf(eta, sizeof eta, "%.0f s", eta_s);
  fprintf(stderr, "\rtune %5u/%-5u  best %-12s  ETA %-8s", done, total, best, eta);
  if (done >= total) fputc('\n', stderr);
}

static vkocc_status reopen(void *user, vkocc_context **ctx) {
  state *st = user;
  vkocc_context_destroy(*ctx);
  *ctx = NULL;
  vkocc_context_options o = {.device = st->c->device, .queue = st->c->queue};
  return vkocc_context_create(&o, ctx);
}

int cmd_tune_spec(int argc, char **argv) {
  cli_common c = {0};
  const char *out = NULL, *t4 = NULL, *strategy = NULL, *reference = NULL, *name = NULL, *fp_path = NULL, *spec = NULL;
  bool resume = false, always_P = false;
  tune_budget budget = {0};
  uint32_t max_runs = 0, budget_n = 0;
  double spread = 0, timeout_s = 0, warmup_ms = 0, warmup_ratio = 0;
  int32_t sentinel = 0;
  uint64_t seed = 0;
  const char *only[32];
  uint32_t nonly = 0, confirm = 0;
  bool have_confirm = false;
  static const struct option opts[] = {
      {"output", required_argument, 0, 'o'}, {"t4", required_argument, 0, '4'}, {"strategy", required_argument, 0, 'S'},
      {"budget", required_argument, 0, 'b'}, {"fraction", required_argument, 0, 'F'}, {"time", required_argument, 0, 'T'},
      {"seed", required_argument, 0, 'e'}, {"resume", no_argument, 0, 'r'}, {"reference", required_argument, 0, 'R'},
      {"name", required_argument, 0, 'N'}, {"occupancy", no_argument, 0, 'P'}, {"spread", required_argument, 0, 's'},
      {"max-runs", required_argument, 0, 'm'}, {"timeout", required_argument, 0, 'x'}, {"warmup-ms", required_argument, 0, 'W'},
      {"warmup-ratio", required_argument, 0, 'U'}, {"sentinel", required_argument, 0, 'Y'},
      {"only", required_argument, 0, 'O'}, {"confirm", required_argument, 0, 'C'},
      {"fingerprint", required_argument, 0, 'f'}, {"json", no_argument, 0, 'j'}, {"device", required_argument, 0, 'd'},
      CLI_QUEUE_OPTION, {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "ho:d:", opts, NULL)) != -1) {
    switch (ch) {
    case 'o': out = optarg; break;
    case '4': t4 = optarg; break;
    case 'S':
      if (!tune_strategy_find(optarg)) {
        uint32_t n;
        const tune_strategy_def *const *all = tune_strategies(&n);
        char l[512] = "";
        for (uint32_t i = 0; i < n; i++) snprintf(l + strlen(l), sizeof l - strlen(l), "%s%s", i ? ", " : "", all[i]->name);
        return cli_error("tune", 2, "--strategy '%s': unknown (%s)", optarg, l);
      }
      strategy = optarg;
      break;
    case 'b':
      if (!cli_parse_u32(optarg, false, &budget_n) || !budget_n) return cli_error("tune", 2, "--budget '%s': expected a positive count of configurations", optarg);
      budget.max_evals = budget_n;
      break;
    case 'F':
      if (!cli_parse_double(optarg, 1e-9, 1, &budget.max_fraction)) return cli_error("tune", 2, "--fraction '%s': expected a number in (0, 1]", optarg);
      break;
    case 'T':
      if (!cli_parse_double(optarg, 1e-3, 1e9, &budget.max_seconds)) return cli_error("tune", 2, "--time '%s': expected positive seconds", optarg);
      break;
    case 'e': {
      char *end;
      seed = strtoull(optarg, &end, 10);
      if (!*optarg || *end) return cli_error("tune", 2, "--seed '%s': expected a non-negative integer", optarg);
      break;
    }
    case 'r': resume = true; break;
    case 'R': reference = optarg; break;
    case 'N': name = optarg; break;
    case 'P': always_P = true; break;
    case 's':
      if (!cli_parse_double(optarg, 1e-6, 1, &spread)) return cli_error("tune", 2, "--spread '%s': expected a number in (0, 1]", optarg);
      break;
    case 'm':
      if (!cli_parse_u32(optarg, false, &max_runs) || max_runs < 3 || max_runs > 1000)
        return cli_error("tune", 2, "--max-runs '%s': expected 3 to 1000", optarg);
      break;
    case 'W':
      if (!cli_parse_double(optarg, 0, 10000, &warmup_ms)) return cli_error("tune", 2, "--warmup-ms '%s': expected 0 to 10000", optarg);
      if (warmup_ms == 0) warmup_ms = -1; /* 0 given: none */
      break;
    case 'U':
      if (!cli_parse_double(optarg, 0, 100, &warmup_ratio)) return cli_error("tune", 2, "--warmup-ratio '%s': expected 0 to 100", optarg);
      if (warmup_ratio == 0) warmup_ratio = -1; /* 0 given: always the full --warmup-ms */
      break;
    case 'Y': {
      uint32_t n;
      if (!cli_parse_u32(optarg, false, &n) || n > 1000000) return cli_error("tune", 2, "--sentinel '%s': expected 0 to 1000000", optarg);
      sentinel = n ? (int32_t)n : -1;
      break;
    }
    case 'x':
      if (!cli_parse_double(optarg, 1e-9, 3600, &timeout_s)) return cli_error("tune", 2, "--timeout '%s': expected seconds", optarg);
      break;
    case 'O':
      if (nonly == 32) return cli_error("tune", 2, "--only: at most 32");
      only[nonly++] = optarg;
      break;
    case 'C':
      if (!cli_parse_u32(optarg, false, &confirm) || confirm > 64) return cli_error("tune", 2, "--confirm '%s': expected 0 to 64", optarg);
      have_confirm = true;
      break;
    case 'f': fp_path = optarg; break;
    case 'j': c.json = true; break;
    case 'd': c.device = optarg; break;
    case CLI_OPT_QUEUE: c.queue = optarg; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind >= argc) return cli_error("tune", 2, "expected a T1 file (see --help)");
  spec = argv[optind];
  if (optind + 1 < argc) return cli_error("tune", 2, "unexpected argument '%s'", argv[optind + 1]);
  if (!out) return cli_error("tune", 2, "-o FILE is required (the results document)");
  int rc = cli_check_output("tune", "-o", out);
  if (rc) return rc;
  state stt = {.out = out, .t4 = t4, .c = &c};
  if (t4) {
    if ((rc = cli_check_output("tune", "--t4", t4))) return rc;
    size_t l = strlen(t4);
    if (l > 5 && !strcmp(t4 + l - 5, ".json")) snprintf(stt.t4_meta, sizeof stt.t4_meta, "%.*s.metadata.json", (int)(l - 5), t4);
    else snprintf(stt.t4_meta, sizeof stt.t4_meta, "%s.metadata.json", t4);
    if (!strcmp(t4, out) || !strcmp(stt.t4_meta, out)) return cli_error("tune", 2, "--t4 %s: the same file as -o", t4);
    if ((rc = cli_check_output("tune", "--t4 (metadata)", stt.t4_meta))) return rc;
  }
  /* the spec is read and its space enumerated before anything touches the device */
  tu_run run;
  vkocc_status st = tu_prepare(spec, name, &run);
  if (st) return cli_fail("tune", st);

  double t0 = vkocc_now_ms();
  vkocc_context *ctx;
  tune_device_id dev;
  if ((rc = cli_tune_device(&c, fp_path, &ctx, &dev))) { tu_run_free(&run); return rc; }
  stt.dev = &dev;
  if (resume && access(out, F_OK) == 0 && (st = tu_results_resume(out, &run, dev.id.key))) {
    vkocc_context_destroy(ctx);
    tu_run_free(&run);
    return cli_fail("tune", st);
  }
  for (uint32_t i = 0; i < nonly; i++)
    if ((st = tu_restrict(&run, only[i]))) {
      vkocc_context_destroy(ctx);
      tu_run_free(&run);
      return cli_fail("tune", st);
    }
  if (run.resumed && cli_is_tty()) fprintf(stderr, "vkocc tune: %u configurations resumed from %s\n", run.resumed, out);
  tu_options o = {.strategy = strategy, .seed = seed, .budget = budget, .reference = reference, .always_P = always_P,
                  .target_spread = spread, .max_runs = max_runs, .timeout_s = timeout_s, .warmup_ms = warmup_ms, .reopen = reopen,
                  .warmup_ratio = warmup_ratio, .sentinel_every = sentinel,
                  .checkpoint = checkpoint, .user = &stt, .stop = &stop_flag,
                  .confirm = have_confirm && confirm ? (int32_t)confirm : -1};
  if (cli_is_tty()) o.progress = progress;
  struct sigaction sa = {.sa_handler = on_sigint}, old;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  st = tu_tune(&ctx, &run, &o);
  sigaction(SIGINT, &old, NULL);
  if (ctx) vkocc_context_destroy(ctx);
  (void)t0;
  if (st == VKOCC_ERROR_USAGE || st == VKOCC_ERROR_UNSUPPORTED) { /* nothing written: the spec does not fit */
    rc = cli_fail("tune", st);
    tu_run_free(&run);
    return rc;
  }
  if (st) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", vkocc_last_error());
    vkocc_status w = worth_writing(&run) ? write_all(&stt, &run) : VKOCC_OK;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < run.space.count; i++) kept += run.r[i].measured;
    rc = cli_error("tune", 1, "%s; %u configurations kept in %s%s", msg, kept, out,
                   w ? " (writing it failed too)" : " (--resume continues)");
    tu_run_free(&run);
    return rc;
  }
  if ((st = write_all(&stt, &run))) { tu_run_free(&run); return cli_fail("tune", st); }
  char sentinel_text[700] = "";
  double lo, hi, sp;
  bool drifted;
  if (tu_sentinel_summary(&run, &lo, &hi, &sp, &drifted)) {
    char key[512];
    t1_config_key(&run.spec, run.space.coord + (size_t)run.sentinel_config * run.spec.nparams, key, sizeof key);
    snprintf(sentinel_text, sizeof sentinel_text, "clocks:   sentinel %s timed %u times: medians %.2f..%.2f us (range %.2f%%, "
             "largest spread %.2f%%)\n", key, run.nsentinel, lo / 1e3, hi / 1e3, 100 * (hi - lo) / lo, 100 * sp);
    if (drifted)
      fprintf(stderr, "vkocc tune: warning: the sentinel's medians drifted %.1f%% during the run: times measured at different "
              "moments are not comparable (raise --warmup-ms or --warmup-ratio; see docs/tune.md)\n", 100 * (hi - lo) / lo);
  }
  if (c.json) {
    char when[32];
    now_utc(when, sizeof when);
    json_t *doc = tu_results_json(&run, &dev, when);
    tu_run_free(&run);
    return cli_emit_json("tune", doc, NULL);
  }
  uint32_t counts[6] = {0}, measured = 0;
  double sum[5] = {0};
  for (uint32_t i = 0; i < run.space.count; i++) {
    const tu_result *r = &run.r[i];
    if (!r->measured) continue;
    measured++, counts[r->inv]++;
    sum[0] += r->compile_ms, sum[1] += r->pipeline_ms, sum[2] += r->occupancy_ms, sum[3] += r->measure_ms, sum[4] += r->other_ms;
  }
  printf("kernel:   %s (%s, entry %s)\n", run.name, run.spec.kernel_file, run.spec.kernel_name);
  printf("device:   %s (cluster %s)\n", dev.id.key, dev.cluster_id);
  printf("space:    %llu configurations, %llu ruled out by the conditions, %u left out by --only, %u allowed; %u measured "
         "(%u resumed) by %s\n", (unsigned long long)run.space.total, (unsigned long long)run.space.constrained, run.filtered,
         run.space.count, measured, run.resumed, run.strategy);
  printf("validity: %u correct, %u compile, %u runtime, %u timeout, %u correctness, %u constraints (reference: %s)\n",
         counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], run.reference);
  double tot = sum[0] + sum[1] + sum[2] + sum[3] + sum[4];
  if (measured && tot > 0)
    printf("cost:     per configuration %.1f ms: compile %.1f, pipeline %.1f, occupancy %.1f, measurement %.1f, other %.1f "
           "(%u compiles for %u pipelines; arguments' data %.1f ms once)\n", tot / measured, sum[0] / measured,
           sum[1] / measured, sum[2] / measured, sum[3] / measured, sum[4] / measured, run.compiles, run.pipelines,
           run.setup_ms);
  if (sentinel_text[0]) printf("%s", sentinel_text);
  bool *shown = cli_xcalloc(run.space.count + 1, 1);
  for (int rank = 0; rank < 5; rank++) {
    int64_t b = -1;
    for (uint32_t i = 0; i < run.space.count; i++)
      if (!shown[i] && run.r[i].measured && run.r[i].inv == TU_CORRECT && run.r[i].runs &&
          (b < 0 || tu_rank_ns(&run.r[i]) < tu_rank_ns(&run.r[b])))
        b = i;
    if (b < 0) break;
    shown[b] = true;
    char key[512];
    t1_config_key(&run.spec, run.space.coord + (size_t)b * run.spec.nparams, key, sizeof key);
    char P[32] = "";
    if (run.r[b].P >= 0) snprintf(P, sizeof P, "P %lld  ", (long long)run.r[b].P);
    const tu_result *rb = &run.r[b];
    char fr[64] = "";
    if (rb->confirm_runs) snprintf(fr, sizeof fr, "  (final round %.2f us)", rb->confirm_ns / 1e3);
    printf("%s %10.2f us  spread %5.2f%%  runs %3u%s  %s%s\n", rank ? "         " : "best:    ", tu_rank_ns(rb) / 1e3,
           100 * rb->spread, rb->runs, fr, P, key);
  }
  free(shown);
  printf("written:  %s%s%s%s%s\n", out, t4 ? ", " : "", t4 ? t4 : "", t4 ? ", " : "", t4 ? stt.t4_meta : "");
  tu_run_free(&run);
  return 0;
}
