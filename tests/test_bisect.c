/* Dispatch bisection on a synthetic device: runtime = overhead + waves x wave (+ noise). */
#include "check.h"
#include "vkocc.h"

typedef struct { uint32_t P; double overhead, wave, noise, spike_every, drift; uint32_t calls; } model;

static vkocc_status runtime(void *user, uint32_t groups, double *ns) {
  model *m = user;
  m->calls++;
  double waves = (groups + m->P - 1) / m->P;
  /* drift: the workload's speed wanders slowly (a chase on a busy CPU), by up to +-drift */
  double speed = 1 + m->drift * sin(m->calls / 5.0);
  *ns = m->overhead + speed * (waves * m->wave + 0.02 * m->wave * (groups / (double)m->P)) + m->noise * check_gauss();
  if (m->spike_every > 0 && m->calls % (uint32_t)m->spike_every == 0) *ns += 3 * m->wave; /* a preemption */
  return VKOCC_OK;
}

int main(void) {
  uint32_t Ps[] = {1, 2, 7, 132, 1056, 4224};
  for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++) {
    model m = {.P = Ps[i], .overhead = 8e3, .wave = 100e3};
    vkocc_bisect_estimate e;
    CHECK(vkocc_bisect_search(runtime, &m, 1, 1u << 20, 100e3, 1, &e) == VKOCC_OK, "clean P=%u", Ps[i]);
    CHECK(e.P == Ps[i] && e.certain, "clean: got %u for P=%u", e.P, Ps[i]);
    /* noisy: 5% of a wave, fastest of 3 */
    m.noise = 5e3;
    CHECK(vkocc_bisect_search(runtime, &m, 1, 1u << 20, 100e3, 3, &e) == VKOCC_OK, "noisy P=%u", Ps[i]);
    CHECK(e.P == Ps[i], "noisy: got %u for P=%u", e.P, Ps[i]);
    /* spikes: every 7th dispatch is preempted; the fastest of 3 ignores it */
    m.noise = 1e3;
    m.spike_every = 7;
    CHECK(vkocc_bisect_search(runtime, &m, 1, 1u << 20, 100e3, 3, &e) == VKOCC_OK, "spiky P=%u", Ps[i]);
    CHECK(e.P == Ps[i], "spiky: got %u for P=%u", e.P, Ps[i]);
  }
  /* a right hint costs two sizes after the base */
  model m = {.P = 4224, .overhead = 8e3, .wave = 100e3};
  vkocc_bisect_estimate e;
  CHECK(vkocc_bisect_search(runtime, &m, 4224, 1u << 20, 100e3, 1 | VKOCC_BISECT_EARLY_EXIT, &e) == VKOCC_OK, "hint");
  CHECK(e.P == 4224 && e.dispatches == 3, "right hint: P %u in %u dispatches", e.P, e.dispatches);
  /* paired (drifting workload): each size's run comes with a one-workgroup run */
  CHECK(vkocc_bisect_search(runtime, &m, 4224, 1u << 20, 100e3, 1, &e) == VKOCC_OK, "hint paired");
  CHECK(e.P == 4224 && e.dispatches == 5, "right hint, paired: P %u in %u dispatches", e.P, e.dispatches);
  /* early exit: one-wave sizes stop at their first fast run; serialized sizes take all 5 */
  m.noise = 1e3;
  CHECK(vkocc_bisect_search(runtime, &m, 4224, 1u << 20, 100e3, 5 | VKOCC_BISECT_EARLY_EXIT, &e) == VKOCC_OK, "early");
  CHECK(e.P == 4224 && e.dispatches == 5 + 1 + 5, "early exit: P %u in %u dispatches", e.P, e.dispatches);
  m.noise = 0;
  /* wrong hints, both sides */
  CHECK(vkocc_bisect_search(runtime, &m, 5000, 1u << 20, 100e3, 1, &e) == VKOCC_OK && e.P == 4224, "high hint %u", e.P);
  CHECK(vkocc_bisect_search(runtime, &m, 100, 1u << 20, 100e3, 1, &e) == VKOCC_OK && e.P == 4224, "low hint %u", e.P);
  /* a drifting workload: speed wanders +-40% over a few dispatches; paired runs cancel it */
  for (size_t i = 0; i < 3; i++) {
    uint32_t P = (uint32_t[]){2, 132, 4224}[i];
    model dm = {.P = P, .overhead = 8e3, .wave = 1e6, .drift = 0.4};
    CHECK(vkocc_bisect_search(runtime, &dm, 1, 1u << 20, 1e6, 5, &e) == VKOCC_OK && e.P == P, "paired: %u for P=%u",
          e.P, P);
  }
  /* no serialization below the cap: not certain */
  CHECK(vkocc_bisect_search(runtime, &m, 1, 1024, 100e3, 1, &e) == VKOCC_OK && !e.certain && e.P == 1024,
        "capped: P %u certain %d", e.P, e.certain);
  CHECK(vkocc_bisect_search(runtime, &m, 1, 1024, 0, 1, &e) == VKOCC_ERROR_RUNTIME, "zero wave must fail");
  return check_report();
}
