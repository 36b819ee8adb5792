/* Dispatch bisection on a synthetic device: runtime = overhead + waves x wave (+ noise). */
#include "check.h"
#include "vkocc.h"
#include <math.h>

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

/* A busy CPU device: one worker runs alone, but two or more share the cores with other processes. */
typedef struct { uint32_t P, seed; double wave; } busy;

static vkocc_status busy_runtime(void *user, uint32_t groups, double *ns) {
  busy *b = user;
  b->seed = b->seed * 1664525u + 1013904223u;
  double u = (b->seed >> 8) / 16777216.0;
  double waves = (groups + b->P - 1) / b->P;
  *ns = 50e3 + waves * b->wave + (groups > 1 ? (0.6 + 0.8 * u) * b->wave : 0.01 * u * b->wave);
  return VKOCC_OK;
}

/* Launches ramp: workgroup i starts i x per_group after the first; a slot refills when its sleeper ends. */
typedef struct { uint32_t P; double overhead, per_group, wave; } ramp;

static vkocc_status ramp_runtime(void *user, uint32_t groups, double wave_ns, double *ns) {
  ramp *r = user;
  double waves = (groups + r->P - 1) / r->P;
  *ns = r->overhead + r->per_group * groups + waves * wave_ns + 200 * check_gauss();
  return VKOCC_OK;
}

static vkocc_status ramp_runtime_plain(void *user, uint32_t groups, double *ns) {
  return ramp_runtime(user, groups, 78e3, ns);
}

int main(void) {
  uint32_t Ps[] = {1, 2, 7, 132, 1056, 4224};
  for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++) {
    model m = {.P = Ps[i], .overhead = 8e3, .wave = 100e3};
    vkocc_bisect_estimate e;
    CHECK(vkocc_bisect_search(runtime, &m, 1, 1u << 20, 100e3, 1, &e) == VKOCC_OK, "clean P=%u", Ps[i]);
    CHECK(e.P == Ps[i] && e.certain && e.consistent, "clean: got %u for P=%u", e.P, Ps[i]);
    /* noisy: 5% of a wave, fastest of 3 */
    m.noise = 5e3;
    CHECK(vkocc_bisect_search(runtime, &m, 1, 1u << 20, 100e3, 3, &e) == VKOCC_OK, "noisy P=%u", Ps[i]);
    CHECK(e.P == Ps[i], "noisy: got %u for P=%u", e.P, Ps[i]);
    /* spikes: every 7th dispatch is preempted; the fastest of 3 ignores it */
    m.noise = 1e3;
    m.spike_every = 7;
    CHECK(vkocc_bisect_search(runtime, &m, 1, 1u << 20, 100e3, 3, &e) == VKOCC_OK, "spiky P=%u", Ps[i]);
    CHECK(e.P == Ps[i] && e.consistent, "spiky: got %u for P=%u", e.P, Ps[i]);
  }
  /* a right hint costs two sizes after the base, and the whole-wave check three more (2P, 2P+1, 3P+1) */
  model m = {.P = 4224, .overhead = 8e3, .wave = 100e3};
  vkocc_bisect_estimate e;
  CHECK(vkocc_bisect_search(runtime, &m, 4224, 1u << 20, 100e3, 1 | VKOCC_BISECT_EARLY_EXIT, &e) == VKOCC_OK, "hint");
  CHECK(e.P == 4224 && e.dispatches == 3 + 3, "right hint: P %u in %u dispatches", e.P, e.dispatches);
  CHECK(e.consistent && fabs(e.waves_2P - 1) < 0.1 && fabs(e.waves_2P1 - 2) < 0.1, "whole waves %.2f %.2f",
        e.waves_2P, e.waves_2P1);
  /* paired (drifting workload): each size's run comes with a one-workgroup run */
  CHECK(vkocc_bisect_search(runtime, &m, 4224, 1u << 20, 100e3, 1, &e) == VKOCC_OK, "hint paired");
  CHECK(e.P == 4224 && e.dispatches == 5 + 6, "right hint, paired: P %u in %u dispatches", e.P, e.dispatches);
  /* early exit: one-wave sizes stop at their first fast run; serialized sizes take all 5; the check's
   * sizes stop at their first run within their expected wave */
  m.noise = 1e3;
  CHECK(vkocc_bisect_search(runtime, &m, 4224, 1u << 20, 100e3, 5 | VKOCC_BISECT_EARLY_EXIT, &e) == VKOCC_OK, "early");
  CHECK(e.P == 4224 && e.dispatches == 5 + 1 + 5 + 3, "early exit: P %u in %u dispatches", e.P, e.dispatches);
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

  /* A busy CPU device (lavapipe, 2 threads beside 2 CPU hogs on 2 cores: measured, the fastest of 15
   * dispatches of 2 sleeping workgroups took 32 ms against 8 ms for one): whenever more than one worker
   * is busy, the OS adds 0.6-1.4 waves. The step then shows at 2 and the search ends at P = 1; the
   * whole-wave check must see that 2, 3 and 4 workgroups do not take 2, 3 and 4 waves. The old search
   * returned P = 1 here with nothing to tell it from a right answer. */
  int fooled = 0;
  for (int k = 0; k < 20; k++) {
    busy b = {.P = 2, .wave = 8e6, .seed = (uint32_t)k};
    vkocc_status st = vkocc_bisect_search(busy_runtime, &b, 1, 65535, 8e6, 5 | VKOCC_BISECT_EARLY_EXIT, &e);
    CHECK(st == VKOCC_OK, "busy: %s", vkocc_last_error());
    CHECK(e.P == 2 ? e.consistent : !e.consistent, "busy %d: P %u passed as consistent (%.2f, %.2f waves)", k, e.P,
          e.waves_2P, e.waves_2P1);
    fooled += e.P != 2;
  }
  CHECK(fooled >= 10, "the busy device must mislead the search itself (else this shows nothing): %d of 20", fooled);

  /* Standalone bisection on an H100: 3300 workgroups took 63 us to launch against a 78 us
   * sleep, and the ramp read as serialization (P = 2705). Synthetic device with that ramp. */
  ramp rm = {.P = 3300, .overhead = 8e3, .per_group = 63e3 / 3300};
  CHECK(vkocc_bisect_search(ramp_runtime_plain, &rm, 1, 1u << 20, 78e3, 3 | VKOCC_BISECT_EARLY_EXIT, &e) == VKOCC_OK,
        "ramp, unsized");
  CHECK(e.P != 3300, "the unsized search must be fooled by the ramp here (else this test shows nothing): P %u", e.P);
  rm.wave = 0;
  CHECK(vkocc_bisect_search_sized(ramp_runtime, &rm, 1, 1u << 20, 78e3, 8e6, 3 | VKOCC_BISECT_EARLY_EXIT, &e) ==
            VKOCC_OK, "ramp, sized: %s", vkocc_last_error());
  CHECK(e.P == 3300 && e.certain && e.consistent, "ramp, sized: P %u (wave %.0f ns, ramp %.0f ns)", e.P, e.wave_ns,
        e.ramp_ns);
  /* the half-wave margin covers the ramp of a whole wave (P: 63 us) twice over */
  CHECK(e.wave_ns >= 4 * 63e3 && e.ramp_ns > 0, "wave %.0f ns vs ramp %.0f ns", e.wave_ns, e.ramp_ns);
  /* a right hint with a sized wave also ends at P */
  CHECK(vkocc_bisect_search_sized(ramp_runtime, &rm, 3300, 1u << 20, 78e3, 8e6, 3 | VKOCC_BISECT_EARLY_EXIT, &e) ==
            VKOCC_OK && e.P == 3300, "ramp, sized, hint: P %u", e.P);
  /* a ramp no allowed wave can cover is an error naming it */
  CHECK(vkocc_bisect_search_sized(ramp_runtime, &rm, 1, 1u << 20, 78e3, 90e3, 3 | VKOCC_BISECT_EARLY_EXIT, &e) ==
            VKOCC_ERROR_RUNTIME, "ramp longer than the longest wave must fail");
  CHECK_CONTAINS(vkocc_last_error(), "launching");
  /* without a ramp the sized search keeps the given wave */
  rm.per_group = 0;
  CHECK(vkocc_bisect_search_sized(ramp_runtime, &rm, 1, 1u << 20, 78e3, 8e6, 3 | VKOCC_BISECT_EARLY_EXIT, &e) ==
            VKOCC_OK && e.P == 3300 && fabs(e.wave_ns - 78e3) < 2e3, "no ramp: P %u wave %.0f", e.P, e.wave_ns);
  return check_report();
}
