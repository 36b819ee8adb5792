/* Internal to libvkocc: racing, the decision that stops timing a configuration that cannot win (pure logic; the
 * harness, tune/harness/time.c, feeds it the runs).
 *
 * The stopping rule asks "is this configuration's median known to the target spread?"; a search only needs to know
 * whether a configuration can still be the best. A configuration whose FASTEST run so far is slower than the
 * incumbent's median (the best valid configuration measured to the full rule) by more than the margin is behind the
 * best: it stops, recorded as "stopped: behind the best" with its runs. Every other configuration (a contender) keeps
 * the full rule. The fastest run decides, so one slow run (a noisy contender, a load episode of the host) never
 * stops a configuration: every run it had must lie beyond the margin.
 *
 * The margin: tu_race_margin(noise) = max(TU_RACE_FLOOR, TU_RACE_K x noise), noise the largest of the incumbent's
 * spread, the median spread of every configuration measured to the full rule so far and the spread of the candidate's
 * own runs (spread = MAD / median, what the rule measures). For normal noise sigma = 1.4826 MAD, and 3 sigma is 4.45 MADs: a run of a configuration as fast
 * as the incumbent lies beyond median + 4.5 MADs with probability 0.13% or less, and two runs both beyond it 2e-6.
 * The floor (5%) covers what the spreads of one configuration's runs do not see: the incumbent's own median is known
 * to its spread only, and a device's state between configurations (an H100 measured the same configuration within
 * 0.23-1.75% over a run, docs/tune.md's sentinel) moves every run of one configuration alike. */
#ifndef VKOCC_TUNE_RACE_H
#define VKOCC_TUNE_RACE_H
#include <stdbool.h>
#include <stdint.h>

#define TU_RACE_K 4.5
#define TU_RACE_FLOOR 0.05
/* the fewest runs that may stop a configuration (the validation run among them where it counts) */
#define TU_RACE_MIN_RUNS 2
/* what a results document says of a configuration the race stopped ($.results[].stopped, a T4 measurement) */
#define TU_STOPPED_BEHIND "behind the best"

typedef struct tu_race {
  int64_t best;       /* the incumbent: the configuration (caller's index), -1: none yet */
  double best_ns;     /* its median */
  double best_spread; /* its spread (MAD / median) */
  double *spreads;    /* the spreads of every configuration measured to the full rule (nspreads) */
  /* the early runs' bias: the largest ratio, over the configurations measured to the full rule, of the fastest of
   * their first TU_RACE_MIN_RUNS runs to their median (1: none seen). A configuration's first runs can be slower than
   * its later ones by more than its spread says (lavapipe on a loaded 2-core host: the first two 1.14-1.56x the
   * median); a race judges a candidate on its first runs, so it holds them against the incumbent's median times
   * this ratio. On a GPU with the evidence warm-up it stays near 1. */
  double early_bias;
  uint32_t nspreads, cap;
} tu_race;

/* what the race decided on a configuration's runs */
typedef struct tu_race_verdict {
  bool behind;        /* stop: the fastest run lies beyond best_ns x (1 + margin) */
  double fastest_ns;  /* the fastest of the runs */
  double best_ns;     /* the incumbent's median it was held against (0: none) */
  double noise, margin; /* the noise measured and the margin it gave */
  double bias;        /* the early runs' bias it was held to (>= 1): behind means fastest > best_ns x bias x (1 + margin) */
} tu_race_verdict;

void tu_race_init(tu_race *r);
void tu_race_free(tu_race *r);
/* A valid configuration measured to the full rule (never a stopped one): its spread joins the noise, the fastest of
 * its first TU_RACE_MIN_RUNS runs (early_ns; <= 0: unknown) over its median the early bias, and it becomes the
 * incumbent when its median is below the incumbent's. Medians that are not positive and finite are ignored. */
void tu_race_note(tu_race *r, int64_t config, double median_ns, double spread, double early_ns);
/* The noise the rule has measured so far: max(the incumbent's spread, the median of the spreads noted); 0: none. */
double tu_race_noise(const tu_race *r);
/* max(TU_RACE_FLOOR, TU_RACE_K x noise) */
double tu_race_margin(double noise);
/* The decision on a configuration's n runs so far (ns, any order; their own spread joins the noise). behind only when racing (not full_rule: every
 * configuration to the full rule), with an incumbent and at least TU_RACE_MIN_RUNS runs, all of them (the fastest)
 * slower than the incumbent's median by more than the margin. */
tu_race_verdict tu_race_judge(const tu_race *r, bool full_rule, const double *ns, uint32_t n);
/* The fewest runs of a configuration's first timed batch: racing with an incumbent, what TU_RACE_MIN_RUNS still needs
 * (1 where the validation run counted as the first: first_counts); else min_runs, the full rule's. */
uint32_t tu_race_first_runs(const tu_race *r, bool full_rule, bool first_counts, uint32_t min_runs);
/* Whether the validation run (the first dispatch on poisoned outputs, before the warm-up) may count as the first
 * timed run: on a device that does not compile the shader inside its first dispatch (a CPU device such as lavapipe
 * JITs it there: 3.5-30 ms against a 10-20 ms vadd run) and whose clock probe read the steady clock on both sides
 * of it (a GPU's clocks drop while the host builds the pipeline: then it is slow). */
bool tu_race_validation_counts(bool cpu_device, bool clock_steady);
#endif
