/* Fuzz target for the replay loader (tune_replay_load: T4 results files and vkocc tune-results documents),
 * then what `vkocc tune --replay` runs on a space it accepted: every strategy over it with a small budget. */
#include "fuzz_util.h"
#include "../tune/session/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tune_replay_space sp;
  vkocc_status s = tune_replay_load(fuzz_file(data, size), NULL, &sp);
  fuzz_check_status(s, 0);
  if (s) return 0;
  fuzz_accepted++;
  FUZZ_CHECK(sp.s.nconfigs >= 1 && sp.optimum >= 0 && sp.optimum < sp.s.nconfigs && sp.nvalid >= 1);
  FUZZ_CHECK(sp.truth[sp.optimum].valid && sp.truth[sp.optimum].time_ns == sp.optimum_ns);
  for (uint32_t c = 0; c < sp.s.nconfigs; c++) {
    for (uint32_t p = 0; p < sp.s.nparams; p++) FUZZ_CHECK(sp.s.coord[(size_t)c * sp.s.nparams + p] < sp.s.nvalues[p]);
    FUZZ_CHECK(!sp.truth[c].valid || sp.truth[c].time_ns >= sp.optimum_ns);
    char text[256];
    tune_replay_config_text(&sp, c, text, sizeof text);
  }
  uint32_t ns;
  const tune_strategy_def *const *all = tune_strategies(&ns);
  for (uint32_t i = 0; i < ns; i++) {
    tune_replay_stats st;
    FUZZ_CHECK(tune_replay_run(&sp, all[i], NULL, i % 2 == 0, 12, 2, 1, &st) == VKOCC_OK);
    for (uint32_t e = 0; e < st.budget; e++) FUZZ_CHECK(st.median[e] >= 0 && st.median[e] <= 1 + 1e-12);
    json_decref(tune_replay_stats_json(&sp, all[i]->name, true, &st));
    tune_replay_stats_free(&st);
  }
  tune_replay_space_free(&sp);
  return 0;
}
