/* One configuration measured (tune/harness/harness.h): the recipe of phases, each timed: prepare (prepare.c),
 * validate (validate.c), warm and trials (time.c), and the summary (decide.c). */
#include "harness.h"

/* The measurement of one configuration: its phases in turn, each timed, until one does not say go on. */
static const struct phase {
  tu_phase id;
  tu_outcome (*run)(harness *h, trial *t);
} recipe[] = {{TU_PHASE_PREPARE, tu_phase_prepare}, {TU_PHASE_VALIDATE, tu_phase_validate}, {TU_PHASE_WARM, tu_phase_warm},
              {TU_PHASE_TRIALS, tu_phase_trials}};

vkocc_status tu_measure_config(harness *h, uint32_t c, tu_result *r) {
  double t_start = vkocc_now_ms();
  memset(r, 0, sizeof *r);
  r->P = -1, r->P_from = -1, r->measured = true;
  util_utc_now(r->when, sizeof r->when);
  config *x = tu_config_of(h, c);
  trial t = {.c = c, .x = x, .coord = x->coord, .r = r, .timeout_s = h->o->timeout_s > 0 ? h->o->timeout_s : 5};
  tu_outcome out = TU_GO;
  h->late_setup_ms = 0; /* made outside a configuration (the final round): already the run's */
  const bool cpu = vkocc_context_device(CTX(h))->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
  for (size_t i = 0; i < sizeof recipe / sizeof recipe[0] && out == TU_GO; i++) {
    double t0 = vkocc_now_ms(), late0 = t.late_setup_ms;
    bool timed = recipe[i].id == TU_PHASE_WARM || recipe[i].id == TU_PHASE_TRIALS;
    if (cpu && timed) tu_pool_hold(h, x, true);
    out = recipe[i].run(h, &t);
    if (cpu && timed) tu_pool_hold(h, x, false);
    r->phase_ms[recipe[i].id] = vkocc_now_ms() - t0 - (t.late_setup_ms - late0);
  }
  core_kernel_destroy(CTX(h), &t.k);
  if (out == TU_STOP) {
    r->measured = false;
    return t.st;
  }
  double t0 = vkocc_now_ms();
  tu_phase_summary(h, &t, t_start);
  r->phase_ms[TU_PHASE_SUMMARY] = vkocc_now_ms() - t0;
  return t.st;
}
