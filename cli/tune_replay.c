/* vkocc tune --replay RESULTS [--strategy S,...] [--budget N] [--seeds K] [--ablation] [--json] [--plot FILE]
 * and vkocc tune --list-strategies: search strategies replayed over a recorded space, no device
 * (vkocc_tune_replay; docs/tune.md, "Search strategies and replay"). */
#include "cli.h"
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *help =
    "usage: vkocc tune --replay RESULTS [--strategy S[,S...]|all] [--budget N] [--seeds K] [--seed S0]\n"
    "                  [--fingerprint FILE] [--ablation | --no-occupancy] [--attributes JSON] [--json] [-o FILE]\n"
    "                  [--plot FILE]\n"
    "       vkocc tune --list-strategies [--verbose]\n"
    "Runs search strategies over a complete recorded space with no device: RESULTS is a vkocc tune results\n"
    "document (vkocc tune -o) or a T4 results file (Kernel Tuner, KTT). Each strategy runs with K seeds (default\n"
    "50, seeds S0.. with S0 default 1) up to N evaluations (default: the whole space) and reports, per evaluation\n"
    "count, the best time found against the space's optimum (the fraction optimum / best): the evaluations until\n"
    "95% of the optimum, the fraction at budgets of 1%, 2%, 5% and 10% of the space, median and quartiles over seeds.\n"
    "Occupancy features (resident workgroups per SM, limiting resource, P, waves) come from the device model of\n"
    "a fingerprint (--fingerprint, else fingerprint.json beside RESULTS); --ablation runs every strategy also\n"
    "without them, --no-occupancy only without. --json prints a vkocc.tune-replay/1 document (-o FILE writes it);\n"
    "--plot FILE draws the convergence plot (.png, .svg, .pdf). --attributes passes a JSON object to the strategies\n"
    "as T1 Search.Attributes (one strategy). docs/tune.md.\n";

static void replay_progress(void *user, const char *label, uint32_t done, uint32_t total) {
  (void)user;
  fprintf(stderr, "\rvkocc tune: replaying %s (%u of %u)   ", label, done + 1, total);
}

static void fmt_to95(double v, uint32_t budget, char *out, size_t len) {
  if (isfinite(v)) snprintf(out, len, "%.0f", v);
  else snprintf(out, len, ">%u", budget);
}

/* The replay's options; cmd_tune.c reads them too, to tell the replay from the other forms of tune. */
enum { O_REPLAY = 3000, O_STRAT, O_BUDGET, O_SEEDS, O_SEED, O_FP, O_ABL, O_NOOCC, O_JSON, O_PLOT, O_LIST, O_VERB, O_ATTR };
const struct option cli_tune_replay_options[] = {
    {"replay", required_argument, 0, O_REPLAY}, {"strategy", required_argument, 0, O_STRAT},
    {"budget", required_argument, 0, O_BUDGET}, {"seeds", required_argument, 0, O_SEEDS},
    {"seed", required_argument, 0, O_SEED}, {"fingerprint", required_argument, 0, O_FP},
    {"ablation", no_argument, 0, O_ABL}, {"no-occupancy", no_argument, 0, O_NOOCC}, {"json", no_argument, 0, O_JSON},
    {"plot", required_argument, 0, O_PLOT}, {"list-strategies", no_argument, 0, O_LIST},
    {"verbose", no_argument, 0, O_VERB}, {"attributes", required_argument, 0, O_ATTR}, {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0}};

int cli_tune_replay(cli_run *runner, int argc, char **argv) {
  (void)runner; /* offline: no device */
  const char *replay = NULL, *strategies = "all", *fp = NULL, *plot = NULL, *out = NULL, *attr_text = NULL;
  uint32_t budget = 0, seeds = 50, seed0 = 1;
  bool json = false, list = false, verbose = false, ablation = false, no_occ = false;
  int ch;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "ho:", cli_tune_replay_options, NULL)) != -1) {
    switch (ch) {
    case O_REPLAY: replay = optarg; break;
    case O_STRAT: strategies = optarg; break;
    case O_BUDGET:
      if (!cli_parse_u32(optarg, false, &budget) || !budget) return cli_error("tune", 2, "--budget '%s': expected 1 or more evaluations", optarg);
      break;
    case O_SEEDS:
      if (!cli_parse_u32(optarg, false, &seeds) || !seeds || seeds > 100000) return cli_error("tune", 2, "--seeds '%s': expected 1 to 100000", optarg);
      break;
    case O_SEED:
      if (!cli_parse_u32(optarg, false, &seed0)) return cli_error("tune", 2, "--seed '%s': expected an unsigned integer", optarg);
      break;
    case O_FP: fp = optarg; break;
    case O_ABL: ablation = true; break;
    case O_NOOCC: no_occ = true; break;
    case O_JSON: json = true; break;
    case O_PLOT: plot = optarg; break;
    case O_LIST: list = true; break;
    case O_VERB: verbose = true; break;
    case O_ATTR: attr_text = optarg; break;
    case 'o': out = optarg; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind < argc) return cli_error("tune", 2, "--replay takes no kernel or spec: unexpected '%s'", argv[optind]);
  if (list) {
    if (replay) return cli_error("tune", 2, "--list-strategies and --replay do not go together");
    const char *name, *summary;
    for (uint32_t i = 0; (name = vkocc_tune_strategy(i, &summary)); i++)
      verbose ? printf("%-24s %s\n", name, summary) : printf("%s\n", name);
    return 0;
  }
  if (ablation && no_occ) return cli_error("tune", 2, "--ablation already runs without occupancy; drop --no-occupancy");
  int rc;
  if (out && !strcmp(out, "-")) out = NULL, json = true; /* "-": standard output, as everywhere */
  if (out && (rc = cli_check_output("tune", "-o", out))) return rc;
  /* an output that is an input would be destroyed */
  const char *inputs[] = {replay, fp};
  if ((out && (rc = cli_check_not_input("tune", "-o", out, inputs, 2))) ||
      (plot && (rc = cli_check_not_input("tune", "--plot", plot, inputs, 2))))
    return rc;
#ifndef VKOCC_HAVE_CAIRO
  if (plot) return cli_error("tune", 3, "--plot: this vkocc was built without cairo (VKOCC_WITH_VIEWER=OFF)");
#endif
  if (plot && (rc = cli_check_output("tune", "--plot", plot))) return rc;
  const char *ext = plot ? strrchr(plot, '.') : NULL;
  if (plot && (!ext || (strcasecmp(ext, ".png") && strcasecmp(ext, ".svg") && strcasecmp(ext, ".pdf"))))
    return cli_error("tune", 2, "--plot %s: unknown image type (use .png, .svg or .pdf)", plot);
  /* the strategies: a comma list or all */
  const char *pick[64];
  uint32_t npick = 0;
  char *copy = NULL;
  if (strcasecmp(strategies, "all")) {
    char *save = NULL;
    copy = cli_xstrdup(strategies);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      if (!vkocc_tune_strategy_find(t)) {
        rc = cli_error("tune", 2, "--strategy '%s': unknown (vkocc tune --list-strategies)", t);
        free(copy);
        return rc;
      }
      if (npick == 64) break;
      pick[npick++] = t;
    }
    if (!npick) {
      free(copy);
      return cli_error("tune", 2, "--strategy '%s': no strategy named", strategies);
    }
  }
  json_t *attrs = NULL;
  if (attr_text) {
    json_error_t je;
    if (npick != 1) { free(copy); return cli_error("tune", 2, "--attributes: name one strategy with --strategy"); }
    if (!(attrs = json_loads(attr_text, 0, &je)) || !json_is_object(attrs)) {
      json_decref(attrs);
      free(copy);
      return cli_error("tune", 2, "--attributes '%s': expected a JSON object (%s)", attr_text, attrs ? "not an object" : je.text);
    }
  }
  if (!replay) { json_decref(attrs); free(copy); return cli_error("tune", 2, "--replay RESULTS is required (or --list-strategies)"); }
  vkocc_tune_replay_options ro = {.fingerprint = fp, .strategies = npick ? pick : NULL, .nstrategies = npick,
                                  .ablation = ablation, .no_occupancy = no_occ, .attributes = attrs, .budget = budget,
                                  .seeds = seeds, .first_seed = seed0,
                                  .progress = cli_is_tty() && !json ? replay_progress : NULL};
  json_t *doc = NULL;
  uint32_t constrained = 0;
  vkocc_status st = vkocc_tune_replay(replay, &ro, &doc, &constrained);
  if (cli_is_tty() && !json) fputs("\r\033[K", stderr);
  json_decref(attrs);
  free(copy);
  if (st) return cli_fail("tune", st);
  vkocc_tune_replay_report rp;
  if ((st = vkocc_tune_replay_report_read(doc, &rp))) {
    json_decref(doc);
    return cli_fail("tune", st);
  }
  uint32_t nruns = rp.nruns, B = rp.budget;
  if (fp && !rp.nfeatures)
    fprintf(stderr, "vkocc tune: --fingerprint %s: no occupancy features: %s\n", fp, rp.feature_note);
  bool both = ablation && rp.nfeatures;
  /* a run's label: the strategy, and which half of an ablation it is */
  char(*label)[96] = cli_xcalloc(nruns ? nruns : 1, sizeof *label);
  for (uint32_t i = 0; i < nruns; i++)
    snprintf(label[i], sizeof label[i], "%s%s", rp.runs[i].strategy,
             both && !rp.runs[i].occupancy ? " (no occupancy)" : "");
  rc = 0;
  if (out && (st = cli_json_write(doc, out))) rc = cli_fail("tune", st);
#ifdef VKOCC_HAVE_CAIRO
  if (!rc && plot) {
    vkocc_convergence_curve *cv = cli_xcalloc(nruns, sizeof *cv);
    for (uint32_t i = 0; i < nruns; i++)
      cv[i] = (vkocc_convergence_curve){label[i],
                                        rp.runs[i].budget,
                                        rp.runs[i].median,
                                        rp.runs[i].q1,
                                        rp.runs[i].q3,
                                        !rp.runs[i].occupancy && rp.nfeatures && ablation,
                                        (int32_t)(both ? i / 2 : i)};
    char title[700], sub[700];
    snprintf(title, sizeof title, "search convergence: %s", rp.space);
    snprintf(sub, sizeof sub, "%u configurations, optimum %.1f us; %u seeds; %s", rp.configurations,
             rp.optimum_ns / 1e3, seeds,
             rp.nfeatures ? "occupancy features from the fingerprint" : "no occupancy features");
    if ((st = vkocc_plot_convergence(cv, nruns, rp.configurations, title, sub, plot, NULL))) rc = cli_fail("tune", st);
    free(cv);
  }
#endif
  if (!rc && json) { rc = cli_emit_json("tune", json_incref(doc), NULL); }
  if (!rc && !json) {
    /* with -o FILE the table goes to stderr: stdout stays quiet, as everywhere -o is given */
    FILE *o = out ? stderr : stdout;
    fprintf(o, "space:     %s: %s, %u configurations (%u valid)%s\n", replay, rp.space, rp.configurations, rp.valid,
            constrained ? " after constraints" : "");
    fprintf(o, "optimum:   %.1f us: %s\n", rp.optimum_ns / 1e3, rp.optimum);
    if (rp.nfeatures) {
      fprintf(o, "features:  occupancy, wg_per_sm, limit, P, waves from %s (%s); prior weight occupancy^4\n",
              rp.fingerprint, rp.feature_note);
    } else {
      fprintf(o, "features:  none (%s)\n", rp.feature_note);
    }
    fprintf(o, "replay:    %u seeds from %u, budget %u evaluations (%.1f%% of the space)\n\n", seeds, seed0, B,
            100.0 * B / rp.configurations);
    /* the budgets of 1, 5 and 10% of the space (the 2% one is in the document) */
    const uint32_t *at0 = rp.runs[0].at_evaluations;
    fprintf(o, "%-36s %-18s %-23s %-8s %-8s %-8s %s\n", "strategy", "evals to 95%", "", "@1%", "@5%", "@10%", "optimum found");
    char hdr[64];
    snprintf(hdr, sizeof hdr, "median [q1, q3]");
    fprintf(o, "%-36s %-42s %-8u %-8u %-8u (of %u seeds)\n", "", hdr, at0[0], at0[2], at0[3], seeds);
    for (uint32_t i = 0; i < nruns; i++) {
      const vkocc_tune_replay_run *r = &rp.runs[i];
      char a[24], b[24], c[24], cell[80], f1[16] = "-", f5[16] = "-", f10[16] = "-";
      fmt_to95(r->to95[0], r->budget, a, sizeof a);
      fmt_to95(r->to95[1], r->budget, b, sizeof b);
      fmt_to95(r->to95[2], r->budget, c, sizeof c);
      snprintf(cell, sizeof cell, "%s [%s, %s]", a, b, c);
      if (isfinite(r->at_median[0])) snprintf(f1, sizeof f1, "%.3f", r->at_median[0]);
      if (isfinite(r->at_median[2])) snprintf(f5, sizeof f5, "%.3f", r->at_median[2]);
      if (isfinite(r->at_median[3])) snprintf(f10, sizeof f10, "%.3f", r->at_median[3]);
      fprintf(o, "%-36s %-42s %-8s %-8s %-8s %u\n", label[i], cell, f1, f5, f10, r->seeds_finding_optimum);
    }
    fprintf(o, "\n@1%%, @5%%, @10%%: median fraction of the optimum in runs with that budget (the strategies size their\n"
           "designs by the budget); below: the curve of the runs with the whole budget, median [q1, q3]:\n%-8s", "N");
    for (uint32_t i = 0; i < nruns; i++) fprintf(o, " %-24.24s", label[i]);
    fprintf(o, "\n");
    static const uint32_t marks[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000};
    for (size_t m = 0; m <= (sizeof marks / sizeof marks[0]); m++) {
      uint32_t e = m < (sizeof marks / sizeof marks[0]) ? marks[m] : B; /* the marks up to the budget, then the budget */
      if (e > B || (m < (sizeof marks / sizeof marks[0]) && e == B)) continue;
      fprintf(o, "%-8u", e);
      for (uint32_t i = 0; i < nruns; i++) {
        char cell[40];
        snprintf(cell, sizeof cell, "%.3f [%.3f, %.3f]", rp.runs[i].median[e - 1], rp.runs[i].q1[e - 1],
                 rp.runs[i].q3[e - 1]);
        fprintf(o, " %-24s", cell);
      }
      fprintf(o, "\n");
    }
    if (out) fprintf(o, "written:   %s\n", out);
    if (plot) fprintf(o, "plot:      %s\n", plot);
  }
  json_decref(doc);
  free(label);
  vkocc_tune_replay_report_free(&rp);
  return rc;
}
