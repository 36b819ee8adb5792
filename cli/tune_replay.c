/* vkocc tune --replay RESULTS [--strategy S,...] [--budget N] [--seeds K] [--ablation] [--json] [--plot FILE]
 * and vkocc tune --list-strategies: search strategies replayed over a recorded space, no device
 * (tune/replay.c; docs/tune.md, "Search strategies and replay"). */
#include "tune_replay.h"
#include "cli.h"
#include "io.h"
#include "../tune/replay.h"
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

bool cli_tune_replay_wanted(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) break;
    if (!strcmp(argv[i], "--list-strategies") || !strcmp(argv[i], "--replay") || !strncmp(argv[i], "--replay=", 9))
      return true;
  }
  return false;
}

typedef struct run { const tune_strategy_def *def; bool occ; tune_replay_stats st; char label[96]; uint32_t colour; } run;

static void fmt_to95(double v, uint32_t budget, char *out, size_t len) {
  if (isfinite(v)) snprintf(out, len, "%.0f", v);
  else snprintf(out, len, ">%u", budget);
}

int cli_tune_replay(int argc, char **argv) {
  const char *replay = NULL, *strategies = "all", *fp = NULL, *plot = NULL, *out = NULL, *attr_text = NULL;
  uint32_t budget = 0, seeds = 50, seed0 = 1;
  bool json = false, list = false, verbose = false, ablation = false, no_occ = false;
  enum { O_REPLAY = 3000, O_STRAT, O_BUDGET, O_SEEDS, O_SEED, O_FP, O_ABL, O_NOOCC, O_JSON, O_PLOT, O_LIST, O_VERB, O_ATTR };
  static const struct option opts[] = {
      {"replay", required_argument, 0, O_REPLAY}, {"strategy", required_argument, 0, O_STRAT},
      {"budget", required_argument, 0, O_BUDGET}, {"seeds", required_argument, 0, O_SEEDS},
      {"seed", required_argument, 0, O_SEED}, {"fingerprint", required_argument, 0, O_FP},
      {"ablation", no_argument, 0, O_ABL}, {"no-occupancy", no_argument, 0, O_NOOCC}, {"json", no_argument, 0, O_JSON},
      {"plot", required_argument, 0, O_PLOT}, {"list-strategies", no_argument, 0, O_LIST},
      {"verbose", no_argument, 0, O_VERB}, {"attributes", required_argument, 0, O_ATTR}, {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
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
  uint32_t ns;
  const tune_strategy_def *const *all = tune_strategies(&ns);
  if (list) {
    if (replay) return cli_error("tune", 2, "--list-strategies and --replay do not go together");
    for (uint32_t i = 0; i < ns; i++) verbose ? printf("%-24s %s\n", all[i]->name, all[i]->summary) : printf("%s\n", all[i]->name);
    return 0;
  }
  if (ablation && no_occ) return cli_error("tune", 2, "--ablation already runs without occupancy; drop --no-occupancy");
  int rc;
  if (out && (rc = cli_check_output("tune", "-o", out))) return rc;
#ifndef VKOCC_HAVE_CAIRO
  if (plot) return cli_error("tune", 3, "--plot: this vkocc was built without cairo (VKOCC_WITH_VIEWER=OFF)");
#endif
  if (plot && (rc = cli_check_output("tune", "--plot", plot))) return rc;
  const char *ext = plot ? strrchr(plot, '.') : NULL;
  if (plot && (!ext || (strcasecmp(ext, ".png") && strcasecmp(ext, ".svg") && strcasecmp(ext, ".pdf"))))
    return cli_error("tune", 2, "--plot %s: unknown image type (use .png, .svg or .pdf)", plot);
  /* the strategies: a comma list or all */
  const tune_strategy_def *pick[64];
  uint32_t npick = 0;
  if (!strcasecmp(strategies, "all")) {
    for (uint32_t i = 0; i < ns && npick < 64; i++)
      if (strcmp(all[i]->name, "brute_force")) pick[npick++] = all[i];
  } else {
    char *copy = vkocc_xstrdup(strategies), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      const tune_strategy_def *d = tune_strategy_find(t);
      if (!d) {
        rc = cli_error("tune", 2, "--strategy '%s': unknown (vkocc tune --list-strategies)", t);
        free(copy);
        return rc;
      }
      if (npick == 64) break;
      pick[npick++] = d;
    }
    free(copy);
    if (!npick) return cli_error("tune", 2, "--strategy '%s': no strategy named", strategies);
  }
  json_t *attrs = NULL;
  if (attr_text) {
    json_error_t je;
    if (npick != 1) return cli_error("tune", 2, "--attributes: name one strategy with --strategy");
    if (!(attrs = json_loads(attr_text, 0, &je)) || !json_is_object(attrs)) {
      json_decref(attrs);
      return cli_error("tune", 2, "--attributes '%s': expected a JSON object (%s)", attr_text, attrs ? "not an object" : je.text);
    }
  }
  if (!replay) { json_decref(attrs); return cli_error("tune", 2, "--replay RESULTS is required (or --list-strategies)"); }
  tune_replay_space sp;
  vkocc_status st = tune_replay_load(replay, fp, &sp);
  if (st) { json_decref(attrs); return cli_fail("tune", st); }
  if (fp && !sp.s.nfeatures) fprintf(stderr, "vkocc tune: --fingerprint %s: no occupancy features: %s\n", fp, sp.feature_note);
  uint32_t nruns = npick * (ablation && sp.s.nfeatures ? 2 : 1);
  run *runs = vkocc_xcalloc(nruns, sizeof *runs);
  uint32_t k = 0;
  for (uint32_t i = 0; i < npick; i++) {
    runs[k].def = pick[i], runs[k].occ = !no_occ && sp.s.nfeatures, runs[k].colour = i;
    snprintf(runs[k].label, sizeof runs[k].label, "%s", pick[i]->name);
    k++;
    if (ablation && sp.s.nfeatures) {
      runs[k].def = pick[i], runs[k].occ = false, runs[k].colour = i;
      snprintf(runs[k].label, sizeof runs[k].label, "%s (no occupancy)", pick[i]->name);
      k++;
    }
  }
  for (uint32_t i = 0; i < nruns && !st; i++) {
    if (cli_is_tty() && !json) fprintf(stderr, "\rvkocc tune: replaying %s (%u of %u)   ", runs[i].label, i + 1, nruns);
    st = tune_replay_run(&sp, runs[i].def, attrs, runs[i].occ, budget, seeds, seed0, &runs[i].st);
  }
  if (cli_is_tty() && !json) fputs("\r\033[K", stderr);
  json_decref(attrs);
  if (st) {
    for (uint32_t i = 0; i < nruns; i++) tune_replay_stats_free(&runs[i].st);
    free(runs);
    tune_replay_space_free(&sp);
    return cli_fail("tune", st);
  }
  char best[512];
  tune_replay_config_text(&sp, (uint32_t)sp.optimum, best, sizeof best);
  uint32_t B = runs[0].st.budget;
  /* the document */
  json_t *doc = vkocc_doc_new(VKOCC_DOC_TUNE_REPLAY), *jr = json_array(), *feat = json_array();
  json_object_set_new(doc, "results", json_string(replay));
  json_object_set_new(doc, "space", json_string(sp.what));
  json_object_set_new(doc, "configurations", json_integer(sp.s.nconfigs));
  json_object_set_new(doc, "valid", json_integer(sp.nvalid));
  json_object_set_new(doc, "optimum_ns", json_real(sp.optimum_ns));
  json_object_set_new(doc, "optimum", json_string(best));
  for (uint32_t j = 0; j < sp.s.nfeatures; j++) json_array_append_new(feat, json_string(sp.feature_names[j]));
  json_object_set_new(doc, "features", feat);
  json_object_set_new(doc, "fingerprint", sp.fingerprint[0] ? json_string(sp.fingerprint) : json_null());
  json_object_set_new(doc, "feature_note", json_string(sp.feature_note));
  json_object_set_new(doc, "seeds", json_integer(seeds));
  json_object_set_new(doc, "first_seed", json_integer(seed0));
  json_object_set_new(doc, "budget", json_integer(B));
  for (uint32_t i = 0; i < nruns; i++) json_array_append_new(jr, tune_replay_stats_json(&sp, runs[i].def->name, runs[i].occ, &runs[i].st));
  json_object_set_new(doc, "runs", jr);
  if (nruns == 1) json_object_set_new(doc, "median_fraction", json_real(runs[0].st.median[B - 1]));
  rc = 0;
  if (out && (st = vkocc_json_write(doc, out))) rc = cli_fail("tune", st);
#ifdef VKOCC_HAVE_CAIRO
  if (!rc && plot) {
    vkocc_convergence_curve *cv = vkocc_xcalloc(nruns, sizeof *cv);
    for (uint32_t i = 0; i < nruns; i++)
      cv[i] = (vkocc_convergence_curve){runs[i].label, runs[i].st.budget, runs[i].st.median, runs[i].st.q1, runs[i].st.q3,
                                        !runs[i].occ && sp.s.nfeatures && ablation, (int32_t)runs[i].colour};
    char title[700], sub[700];
    snprintf(title, sizeof title, "search convergence: %s", sp.what);
    snprintf(sub, sizeof sub, "%u configurations, optimum %.1f us; %u seeds; %s", sp.s.nconfigs, sp.optimum_ns / 1e3,
             seeds, sp.s.nfeatures ? "occupancy features from the fingerprint" : "no occupancy features");
    if ((st = vkocc_plot_convergence(cv, nruns, sp.s.nconfigs, title, sub, plot, NULL))) rc = cli_fail("tune", st);
    free(cv);
  }
#endif
  if (!rc && json) {
    rc = cli_emit_json("tune", doc, NULL);
    doc = NULL;
  }
  if (!rc && !json) {
    printf("space:     %s: %s, %u configurations (%u valid)%s\n", replay, sp.what, sp.s.nconfigs, sp.nvalid,
           sp.constrained ? " after constraints" : "");
    printf("optimum:   %.1f us: %s\n", sp.optimum_ns / 1e3, best);
    if (sp.s.nfeatures) {
      printf("features:  occupancy, wg_per_sm, limit, P, waves from %s (%s); prior weight occupancy^4\n",
             sp.fingerprint, sp.feature_note);
    } else {
      printf("features:  none (%s)\n", sp.feature_note);
    }
    printf("replay:    %u seeds from %u, budget %u evaluations (%.1f%% of the space)\n\n", seeds, seed0, B,
           100.0 * B / sp.s.nconfigs);
    uint32_t e1 = tune_replay_at_percent(&sp, 1), e5 = tune_replay_at_percent(&sp, 5), e10 = tune_replay_at_percent(&sp, 10);
    printf("%-36s %-18s %-23s %-8s %-8s %-8s %s\n", "strategy", "evals to 95%", "", "@1%", "@5%", "@10%", "optimum found");
    char hdr[64];
    snprintf(hdr, sizeof hdr, "median [q1, q3]");
    printf("%-36s %-42s %-8u %-8u %-8u (of %u seeds)\n", "", hdr, e1, e5, e10, seeds);
    for (uint32_t i = 0; i < nruns; i++) {
      tune_replay_stats *r = &runs[i].st;
      char a[24], b[24], c[24], cell[80], f1[16] = "-", f5[16] = "-", f10[16] = "-";
      fmt_to95(r->to95_median, r->budget, a, sizeof a), fmt_to95(r->to95_q1, r->budget, b, sizeof b);
      fmt_to95(r->to95_q3, r->budget, c, sizeof c);
      snprintf(cell, sizeof cell, "%s [%s, %s]", a, b, c);
      if (isfinite(r->at_median[0])) snprintf(f1, sizeof f1, "%.3f", r->at_median[0]);
      if (isfinite(r->at_median[2])) snprintf(f5, sizeof f5, "%.3f", r->at_median[2]);
      if (isfinite(r->at_median[3])) snprintf(f10, sizeof f10, "%.3f", r->at_median[3]);
      printf("%-36s %-42s %-8s %-8s %-8s %u\n", runs[i].label, cell, f1, f5, f10, r->found_optimum);
    }
    printf("\n@1%%, @5%%, @10%%: median fraction of the optimum in runs with that budget (the strategies size their\n"
           "designs by the budget); below: the curve of the runs with the whole budget, median [q1, q3]:\n%-8s", "N");
    for (uint32_t i = 0; i < nruns; i++) printf(" %-24.24s", runs[i].label);
    printf("\n");
    static const uint32_t marks[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000};
    for (size_t m = 0; m <= VKOCC_ARRAY_LEN(marks); m++) {
      uint32_t e = m < VKOCC_ARRAY_LEN(marks) ? marks[m] : B; /* the marks up to the budget, then the budget */
      if (e > B || (m < VKOCC_ARRAY_LEN(marks) && e == B)) continue;
      printf("%-8u", e);
      for (uint32_t i = 0; i < nruns; i++) {
        char cell[40];
        snprintf(cell, sizeof cell, "%.3f [%.3f, %.3f]", runs[i].st.median[e - 1], runs[i].st.q1[e - 1], runs[i].st.q3[e - 1]);
        printf(" %-24s", cell);
      }
      printf("\n");
    }
    if (out) printf("written:   %s\n", out);
    if (plot) printf("plot:      %s\n", plot);
  }
  json_decref(doc);
  for (uint32_t i = 0; i < nruns; i++) tune_replay_stats_free(&runs[i].st);
  free(runs);
  tune_replay_space_free(&sp);
  return rc;
}
