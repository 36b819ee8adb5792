/* vkocc tune SPEC.json -o RESULTS.json: the user's own kernel tuned from a T1 specification (a tuning session,
 * vkocc_tune_open_spec), written as a vkocc.tune-results/1 document of kind "user" (and T4 with --t4). docs/tune.md. */
#include "cli.h"
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc tune SPEC.json -o RESULTS.json [--t4 FILE] [--strategy NAME] [--budget N] [--fraction F]\n"
    "                  [--time S] [--seed N] [--resume] [--reference NAME=VALUE,...] [--name NAME] [--occupancy]\n"
    "                  [--only PARAM=V1,V2]... [--confirm K] [--spread S] [--max-runs N] [--full-rule] [--timeout S]\n"
    "                  [--warmup-ms MS] [--warmup-ratio R] [--sentinel N] [--fingerprint FILE [--allow-other-device]] [--json]\n"
    "                  [--device D|all|D1,D2,...] [--queue Q] [--policy DB] [--db STORE] [--threads N]\n"
    "Tunes the Vulkan compute kernel a T1 file describes (\"Language\": \"Vulkan\"; the subset vkocc reads is in\n"
    "docs/tune.md): its space less the conditions, searched by the spec's Search (or --strategy: brute_force,\n"
    "random_sample, ...) within its Budget (or --budget configurations, --fraction of the space, --time seconds).\n"
    "Parameters named like a specialization constant of the kernel reach it without a recompile; the others as\n"
    "-D defines (one compile per distinct set). P, the occupancy of each configuration's own pipeline, is measured\n"
    "when a condition or size names it (--occupancy: for every configuration). Each configuration's output is\n"
    "validated (ReferenceArguments, else the first configuration that runs or --reference) on poisoned buffers,\n"
    "then timed with queue timestamps until the runs' spread is below S (default 0.02) or a cap. A configuration\n"
    "that fails to compile, to run, in time, or validation is recorded with its T4 invalidity and never chosen.\n"
    "Racing: a configuration whose fastest run is slower than the best's median by more than the noise the rule\n"
    "measured (4.5 x the spread, at least 5%, beyond how much slower first runs were than their medians) stops after\n"
    "2 runs, recorded as stopped (\"stopped\": \"behind the best\") with the runs it had; --full-rule times every\n"
    "configuration to the rule instead (every median to S).\n"
    "Writes every result with the device and its cluster ID to RESULTS.json (atomically; also every 10 s and on\n"
    "Ctrl-C), and with --t4 FILE the T4 results to FILE and their metadata beside it (FILE.metadata.json).\n"
    "-o -: the results document on standard output (else stdout stays quiet: the summary goes to stderr). Exit 1\n"
    "when no configuration is valid. --fingerprint FILE: the cluster ID from FILE, which must be this device's\n"
    "(deviceUUID and driver version; --allow-other-device takes another device's anyway); this device's also gives P\n"
    "its per-SM limits where the cache has none.\n"
    "--device all (or D1,D2,...; a device's exact name is one entry, commas and all; each entry is resolved before\n"
    "anything is measured, and a device named twice is refused): every device measures at once; those of one\n"
    "cluster ID share one search, each\n"
    "cluster gets its own results document (RESULTS-CLUSTER.json when there are several); under mpirun or srun every\n"
    "rank measures and rank 0 searches and writes (docs/fleet.md). --policy DB: at the end, the policy database of\n"
    "the results (as vkocc policy build) and its transfer report beside it (DB.transfer.json). --db STORE: at the\n"
    "end, the results added to the SQLite policy store (as vkocc policy add --db STORE; under mpirun by rank 0 alone,\n"
    "the one writer; docs/policy-store.md).\n"
    "--resume continues RESULTS.json (same spec file and device). --name: the kernel's name in results and\n"
    "policies (default: the spec file's stem). --only keeps the configurations whose PARAM is one of the values.\n"
    "--warmup-ms MS (default 500): at most this much device time of untimed dispatches of each configuration before\n"
    "it is timed, so clocks that dropped while the host worked come back up; --warmup-ratio R (default 2): the\n"
    "warm-up lasts R times the host time the GPU sat idle since the last configuration (at least 20 ms; a cold device\n"
    "gets MS, a CPU device 20 ms after that: the host's work keeps it busy; R 0: always MS). --sentinel N (default 64; 0: none): every N configurations the first\n"
    "correct one is timed again; its medians (\"clocks:\" line, $.measurement.sentinel) show whether the clocks drifted.\n"
    "--confirm K (default 0: none): at the end the K best by median are validated and timed again in 3 interleaved\n"
    "rounds, reported beside their medians. The search's medians rank: on an H100 a final round after a sweep of\n"
    "hundreds of configurations re-timed the best at 1.9-3.4x their medians: the GPU's clocks (docs/tune.md).\n"
    "--threads N (1 to 64; default one per core less one, at most 16): host threads that compile and create the\n"
    "pipelines of the configurations the strategy proposes next (brute_force, random_sample) while the device\n"
    "measures.\nExit 2: a spec outside the subset or that does not fit the kernel.\n";

static volatile sig_atomic_t stop_flag;
static void on_sigint(int sig) { (void)sig; stop_flag = 1; }

typedef struct state {
  const cli_common *c;
  double last_progress;
} state;

static void progress(void *user, const vkocc_tune_progress *p) {
  state *st = user;
  uint32_t done = p->done, total = p->total;
  double best_ns = p->best_ns, eta_s = p->eta_s, now = vkocc_now_ms();
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
  vkocc_context_options o = cli_context_options(st->c, NULL);
  o.disable_shader_clock = false; /* as before: a reopened device has its clock */
  vkocc_status s = vkocc_context_create(&o, ctx);
  if (st->c->run) st->c->run->ctx = *ctx; /* the runner closes the device the command holds at its end */
  return s;
}

static int tune_spec(vkocc_tune_session *s, cli_common *c, bool resume, const char *fp_path, vkocc_tune_options *o,
                     const char *t4_meta);

/* The spec's options; cmd_tune.c reads them too, to tell the forms of tune apart. */
const struct option cli_tune_spec_options[] = {
    {"output", required_argument, 0, 'o'}, {"t4", required_argument, 0, '4'}, {"strategy", required_argument, 0, 'S'},
    {"budget", required_argument, 0, 'b'}, {"fraction", required_argument, 0, 'F'}, {"time", required_argument, 0, 'T'},
    {"seed", required_argument, 0, 'e'}, {"resume", no_argument, 0, 'r'}, {"reference", required_argument, 0, 'R'},
    {"name", required_argument, 0, 'N'}, {"occupancy", no_argument, 0, 'P'}, {"spread", required_argument, 0, 's'},
    {"max-runs", required_argument, 0, 'm'}, {"full-rule", no_argument, 0, 'u'}, {"timeout", required_argument, 0, 'x'}, {"warmup-ms", required_argument, 0, 'W'},
    {"warmup-ratio", required_argument, 0, 'U'}, {"sentinel", required_argument, 0, 'Y'},
    {"only", required_argument, 0, 'O'}, {"confirm", required_argument, 0, 'C'},
    {"fingerprint", required_argument, 0, 'f'}, {"allow-other-device", no_argument, 0, 'G'},
    {"json", no_argument, 0, 'j'}, {"device", required_argument, 0, 'd'}, {"policy", required_argument, 0, 'L'},
    {"db", required_argument, 0, 'B'}, {"threads", required_argument, 0, 'H'}, CLI_QUEUE_OPTION, {"help", no_argument, 0, 'h'}, {0}};

static int tune_one(cli_common *c, const char *spec, const char *name, const char *fp_path, bool resume, const char *out,
                    const char *t4, const cli_tune_after *after, vkocc_tune_options *o);

int cmd_tune_spec(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  cli_tune_after after = {0};
  const char *out = NULL, *t4 = NULL, *strategy = NULL, *reference = NULL, *name = NULL, *fp_path = NULL, *spec = NULL;
  bool resume = false, always_P = false;
  vkocc_tune_options o = {.note = cli_tune_note};
  uint32_t max_runs = 0, budget_n = 0;
  double spread = 0, timeout_s = 0, warmup_ms = 0, warmup_ratio = 0;
  int32_t sentinel = 0;
  uint64_t seed = 0;
  const char *only[32];
  uint32_t nonly = 0, confirm = 0;
  bool have_confirm = false;
  int ch;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "ho:d:", cli_tune_spec_options, NULL)) != -1) {
    switch (ch) {
    case 'o': out = optarg; break;
    case '4': t4 = optarg; break;
    case 'S':
      if (!vkocc_tune_strategy_find(optarg)) {
        char l[512] = "";
        const char *name;
        for (uint32_t i = 0; (name = vkocc_tune_strategy(i, NULL)); i++)
          snprintf(l + strlen(l), sizeof l - strlen(l), "%s%s", i ? ", " : "", name);
        return cli_error("tune", 2, "--strategy '%s': unknown (%s)", optarg, l);
      }
      strategy = optarg;
      break;
    case 'b':
      if (!cli_parse_u32(optarg, false, &budget_n) || !budget_n) return cli_error("tune", 2, "--budget '%s': expected a positive count of configurations", optarg);
      o.budget_evals = budget_n;
      break;
    case 'F':
      if (!cli_parse_double(optarg, 1e-9, 1, &o.budget_fraction)) return cli_error("tune", 2, "--fraction '%s': expected a number in (0, 1]", optarg);
      break;
    case 'T':
      if (!cli_parse_double(optarg, 1e-3, 1e9, &o.budget_seconds)) return cli_error("tune", 2, "--time '%s': expected positive seconds", optarg);
      break;
    case 'e': {
      char *end;
      seed = strtoull(optarg, &end, 10);
      if (!*optarg || *end) return cli_error("tune", 2, "--seed '%s': expected a non-negative integer", optarg);
      break;
    }
    case 'r': resume = true; break;
    case 'u': o.full_rule = true; break;
    case 'R': reference = optarg; break;
    case 'N': name = optarg; break;
    case 'P': always_P = true; break;
    case 's':
      if (!cli_parse_double(optarg, 1e-6, 1, &spread)) return cli_error("tune", 2, "--spread '%s': expected a number in (0, 1]", optarg);
      break;
    case 'H':
      if (!cli_parse_u32(optarg, false, &o.threads) || o.threads < 1 || o.threads > 64)
        return cli_error("tune", 2, "--threads '%s': expected 1 to 64", optarg);
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
    case 'G': c.allow_other_device = true; break;
    case 'j': c.json = true; break;
    case 'd': c.device = optarg; break;
    case 'L': after.policy = optarg; break;
    case 'B': after.store = optarg; break;
    case CLI_OPT_QUEUE: c.queue = optarg; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind >= argc) return cli_error("tune", 2, "expected a T1 file (see --help)");
  spec = argv[optind];
  if (optind + 1 < argc) return cli_error("tune", 2, "unexpected argument '%s'", argv[optind + 1]);
  if (!out) return cli_error("tune", 2, "-o FILE is required (the results document; -o -: standard output)");
  o.strategy = strategy, o.seed = seed, o.reference = reference, o.always_occupancy = always_P;
  o.target_spread = spread, o.max_runs = max_runs, o.timeout_s = timeout_s, o.warmup_ms = warmup_ms;
  o.warmup_ratio = warmup_ratio, o.sentinel_every = sentinel, o.only = only, o.nonly = nonly;
  if (cli_tune_fleet_wanted(c.device)) { /* several devices or ranks: one search per cluster (cli/tune_fleet.c) */
    o.output = strcmp(out, "-") ? out : NULL;
    return cli_tune_fleet(&c, spec, name, fp_path, resume, t4, &after, &o);
  }
  o.confirm = have_confirm ? (int32_t)confirm : 0;
  return tune_one(&c, spec, name, fp_path, resume, out, t4, &after, &o);
}

/* One device: the outputs checked, the spec opened, the run, its policy. */
static int tune_one(cli_common *c, const char *spec, const char *name, const char *fp_path, bool resume, const char *out,
                    const char *t4, const cli_tune_after *after, vkocc_tune_options *o) {
  if (!strcmp(out, "-")) { /* standard output, as everywhere: the document at the end, no file */
    if (resume) return cli_error("tune", 2, "--resume needs -o FILE (the document to continue)");
    out = NULL, c->json = true;
  }
  int rc = cli_check_output("tune", "-o", out);
  if (rc) return rc;

  char t4_meta[1100] = "";
  if (t4) {
    if ((rc = cli_check_output("tune", "--t4", t4))) return rc;
    vkocc_tune_t4_metadata_path(t4, t4_meta, sizeof t4_meta);
    if (!strcmp(t4, out) || !strcmp(t4_meta, out)) return cli_error("tune", 2, "--t4 %s: the same file as -o", t4);
    if ((rc = cli_check_output("tune", "--t4 (metadata)", t4_meta))) return rc;
  }
  /* the spec is read and its space enumerated before anything touches the device */
  vkocc_tune_session *s;
  vkocc_status st = vkocc_tune_open_spec(spec, name, &s);
  if (st) return cli_fail("tune", st);
  /* an output that is an input (the spec, its kernel, the fingerprint) would be destroyed; a second writer of one
   * results file would lose one's runs */
  vkocc_tune_summary sum0;
  vkocc_tune_summarize(s, &sum0);
  const char *inputs[] = {spec, sum0.kernel_file, fp_path, out, t4};
  if ((rc = cli_check_not_input("tune", "-o", out, inputs, 3)) || (t4 && (rc = cli_check_not_input("tune", "--t4", t4, inputs, 3))) ||
      (rc = cli_tune_after_check(after, inputs, 5)) || (rc = cli_lock_output("tune", out))) {
    vkocc_tune_close(s);
    return rc;
  }
  o->output = out, o->t4_output = t4;
  rc = tune_spec(s, c, resume, fp_path, o, t4_meta);
  vkocc_tune_close(s);
  if (!rc && out) rc = cli_tune_after_run(after, (const char *const[]){out}, 1);
  return rc;
}

/* The session opened: the device, the run, the summary. */
static int tune_spec(vkocc_tune_session *s, cli_common *c, bool resume, const char *fp_path, vkocc_tune_options *o,
                     const char *t4_meta) {
  int rc;
  vkocc_context *ctx;
  vkocc_status st;
  if ((rc = cli_tune_device(c, fp_path, s, &ctx))) return rc;
  if ((resume && (st = vkocc_tune_resume(s, o->output))) || (st = vkocc_tune_prepare(s, ctx, o)))
    return cli_fail("tune", st);
  vkocc_tune_summary sum;
  vkocc_tune_summarize(s, &sum);
  if (sum.resumed && cli_is_tty()) fprintf(stderr, "vkocc tune: %u configurations resumed from %s\n", sum.resumed, o->output);
  state stt = {.c = c};
  o->reopen = reopen, o->user = &stt, o->stop = &stop_flag;
  if (cli_is_tty()) o->progress = progress;
  struct sigaction sa = {.sa_handler = on_sigint}, old;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  st = vkocc_tune_run(s, &ctx, o);
  sigaction(SIGINT, &old, NULL);
  c->run->ctx = ctx; /* a lost device reopened (or none left): the runner closes what is open now */
  /* a spec that does not fit: nothing written; else what was measured is kept (the message says where) */
  if (st) return st == VKOCC_ERROR_USAGE || st == VKOCC_ERROR_UNSUPPORTED ? cli_fail("tune", st) : cli_error("tune", 1, "%s", vkocc_last_error());
  /* a tune in which nothing is valid has no answer: exit 1 (its results are written, for --resume and the record) */
  vkocc_tune_summarize(s, &sum);
  int final = 0;
  if (sum.validity[0] == 0) {
    vkocc_tune_result r0;
    const char *why = "";
    for (uint32_t i = 0; i < sum.count && !why[0]; i++)
      if (!vkocc_tune_result_get(s, i, &r0) && r0.measured && r0.error && r0.error[0]) why = r0.error;
    final = cli_error("tune", 1, "no valid configuration among the %u measured%s%s%s", sum.measured, why[0] ? " (the first: " : "",
                      why, why[0] ? ")" : "");
  }
  char sentinel_text[700] = "";
  vkocc_tune_sentinel sen;
  if (vkocc_tune_sentinel_get(s, &sen)) cli_sentinel_line(&sen, sentinel_text, sizeof sentinel_text);
  if (c->json) {
    json_t *doc;
    if ((st = vkocc_tune_results_document(s, &doc))) return cli_fail("tune", st);
    int rj = cli_emit_json("tune", doc, NULL);
    return final ? final : rj;
  }
  /* the results went to -o: stdout stays quiet, the summary goes to the terminal's stderr */
  FILE *so = stderr;
  const uint32_t *counts = sum.validity, measured = sum.measured;
  const double *sum_ms = sum.cost_ms;
  fprintf(so, "kernel:   %s (%s, entry %s)\n", sum.kernel, sum.kernel_file, sum.entry);
  fprintf(so, "device:   %s (cluster %s)\n", sum.device_key, sum.cluster_id);
  fprintf(so, "space:    %llu configurations, %llu ruled out by the conditions, %u left out by --only, %u allowed; %u measured "
         "(%u resumed) by %s\n", (unsigned long long)sum.space_total, (unsigned long long)sum.ruled_out, sum.filtered,
         sum.count, measured, sum.resumed, sum.strategy);
  fprintf(so, "validity: %u correct, %u compile, %u runtime, %u timeout, %u correctness, %u constraints (reference: %s)\n",
         counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], sum.reference);
  double tot = sum_ms[0] + sum_ms[1] + sum_ms[2] + sum_ms[3] + sum_ms[4];
  if (measured && tot > 0)
    fprintf(so, "cost:     per configuration %.1f ms: compile %.1f, pipeline %.1f, occupancy %.1f, measurement %.1f, other %.1f "
           "(%u compiles for %u pipelines; arguments' data %.1f ms once)\n", tot / measured, sum_ms[0] / measured,
           sum_ms[1] / measured, sum_ms[2] / measured, sum_ms[3] / measured, sum_ms[4] / measured, sum.compiles,
           sum.pipelines, sum.setup_ms);
  if (sentinel_text[0]) fprintf(so, "clocks:   %s\n", sentinel_text);
  /* racing: how many stopped behind the best, and the timed runs of those and of the contenders */
  uint32_t nstopped = 0, ncont = 0;
  uint64_t runs_stopped = 0, runs_cont = 0;
  for (uint32_t i = 0; i < sum.count; i++) {
    vkocc_tune_result ri;
    if (vkocc_tune_result_get(s, i, &ri) || !ri.measured || !ri.runs) continue;
    if (ri.stopped) nstopped++, runs_stopped += ri.runs;
    else ncont++, runs_cont += ri.runs;
  }
  if (!o->full_rule)
    fprintf(so, "race:     %u stopped behind the best (%llu timed runs, %.1f each), %u to the full rule (%llu runs, %.1f each)\n",
            nstopped, (unsigned long long)runs_stopped, nstopped ? (double)runs_stopped / nstopped : 0.0, ncont,
            (unsigned long long)runs_cont, ncont ? (double)runs_cont / ncont : 0.0);
  else
    fprintf(so, "race:     off (--full-rule): %u configurations, %llu timed runs\n", ncont, (unsigned long long)runs_cont);
  uint32_t top[5], ntop = vkocc_tune_ranking(s, 5, top);
  for (uint32_t rank = 0; rank < ntop; rank++) {
    vkocc_tune_result rb;
    vkocc_tune_result_get(s, top[rank], &rb);
    char P[32] = "";
    if (rb.P >= 0) snprintf(P, sizeof P, "P %lld  ", (long long)rb.P);
    char fr[64] = "";
    if (rb.final_runs) snprintf(fr, sizeof fr, "  (final round %.2f us)", rb.final_ns / 1e3);
    else if (rb.stopped) snprintf(fr, sizeof fr, "  (stopped: behind the best)");
    fprintf(so, "%s %10.2f us  spread %5.2f%%  runs %3u%s  %s%s\n", rank ? "         " : "best:    ", rb.rank_ns / 1e3,
           100 * rb.spread, rb.runs, fr, P, rb.key);
  }
  const char *out = o->output, *t4 = o->t4_output;
  fprintf(so, "written:  %s%s%s%s%s\n", out, t4 ? ", " : "", t4 ? t4 : "", t4 ? ", " : "", t4 ? t4_meta : "");
  return final;
}
