/* vkocc_tune_replay (include/vkocc.h): the whole `vkocc tune --replay` report as one document
 * (vkocc.tune-replay/1): the recorded space read (tune/session/replay.c), each strategy run over the seeds, with and
 * without the occupancy features as asked, and their statistics. */
#include "replay.h"
#include "io.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct replay_run {
  const tune_strategy_def *def;
  bool occ;
  tune_replay_stats st;
  char label[96];
} replay_run;

vkocc_status vkocc_tune_replay(const char *results, const vkocc_tune_replay_options *options, struct json_t **report,
                               uint32_t *constrained) {
  vkocc_clear_error();
  if (!results || !report) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_replay: no results file");
  vkocc_tune_replay_options none = {.first_seed = 1};
  const vkocc_tune_replay_options *o = options ? options : &none;
  uint32_t seeds = o->seeds ? o->seeds : 50;
  /* the strategies: those named, or every one but brute force */
  uint32_t ns, npick = 0;
  const tune_strategy_def *const *all = tune_strategies(&ns);
  const tune_strategy_def **pick = util_xcalloc(ns + o->nstrategies + 1, sizeof *pick);
  if (!o->strategies) {
    for (uint32_t i = 0; i < ns; i++)
      if (strcmp(all[i]->name, "brute_force")) pick[npick++] = all[i];
  } else {
    for (uint32_t i = 0; i < o->nstrategies; i++)
      if (!(pick[npick++] = tune_strategy_find(o->strategies[i]))) {
        free(pick);
        return vkocc_fail(VKOCC_ERROR_USAGE, "--strategy '%s': unknown (vkocc tune --list-strategies)", o->strategies[i]);
      }
  }
  if (!npick) {
    free(pick);
    return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_replay: no strategy named");
  }
  tune_replay_space sp;
  vkocc_status st = tune_replay_load(results, o->fingerprint, &sp);
  if (st) {
    free(pick);
    return st;
  }
  bool both = o->ablation && sp.s.nfeatures;
  uint32_t nruns = npick * (both ? 2 : 1), k = 0;
  replay_run *runs = util_xcalloc(nruns, sizeof *runs);
  for (uint32_t i = 0; i < npick; i++) {
    runs[k].def = pick[i], runs[k].occ = !o->no_occupancy && sp.s.nfeatures;
    snprintf(runs[k].label, sizeof runs[k].label, "%s", pick[i]->name);
    k++;
    if (both) {
      runs[k].def = pick[i], runs[k].occ = false;
      snprintf(runs[k].label, sizeof runs[k].label, "%s (no occupancy)", pick[i]->name);
      k++;
    }
  }
  free(pick);
  for (uint32_t i = 0; i < nruns && !st; i++) {
    if (o->progress) o->progress(o->user, runs[i].label, i, nruns);
    st = tune_replay_run(&sp, runs[i].def, o->attributes, runs[i].occ, o->budget, seeds, o->first_seed, &runs[i].st);
  }
  if (!st) {
    char best[512];
    tune_replay_config_text(&sp, (uint32_t)sp.optimum, best, sizeof best);
    uint32_t B = runs[0].st.budget;
    json_t *doc = vkocc_doc_new(VKOCC_DOC_TUNE_REPLAY), *jr = json_array(), *feat = json_array();
    json_object_set_new(doc, "results", json_string(results));
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
    json_object_set_new(doc, "first_seed", json_integer((json_int_t)o->first_seed));
    json_object_set_new(doc, "budget", json_integer(B));
    for (uint32_t i = 0; i < nruns; i++)
      json_array_append_new(jr, tune_replay_stats_json(&sp, runs[i].def->name, runs[i].occ, &runs[i].st));
    json_object_set_new(doc, "runs", jr);
    if (nruns == 1) json_object_set_new(doc, "median_fraction", json_real(runs[0].st.median[B - 1]));
    *report = doc;
    if (constrained) *constrained = sp.constrained;
  }
  for (uint32_t i = 0; i < nruns; i++) tune_replay_stats_free(&runs[i].st);
  free(runs);
  tune_replay_space_free(&sp);
  return st;
}
