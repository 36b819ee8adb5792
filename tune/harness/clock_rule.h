/* Internal to libvkocc: clock-verified samples (pure logic; the readings come from core's clock probe,
 * core/gpucheck.h). A reading is the SM clock in any fixed unit (the probe's: subgroup-clock ticks per realtime
 * tick). The steady clock is what the device holds under load; a timed batch whose bracketing readings lie
 * below low_fraction of it was taken while the clock was still coming up (or had dropped) and is measured again,
 * a bounded number of times; a warm-up runs only when the evidence says the clock is low or not yet known. */
#ifndef VKOCC_TUNE_CLOCK_RULE_H
#define VKOCC_TUNE_CLOCK_RULE_H
#include <stdbool.h>
#include <stdint.h>

typedef struct tu_clock_rule {
  double low_fraction;   /* a reading below low_fraction x steady is low; 0: 0.85 (an H100's clock under load
                          * read 1.78..1.98 GHz, idle 0.34, an intermediate state 0.64) */
  uint32_t max_retries;  /* a low batch is measured again at most this often; 0: 3 */
} tu_clock_rule;

enum { TU_CLOCK_RECENT = 8 };
typedef struct tu_clock_state {
  double steady;                     /* the estimate; 0: none yet */
  double recent[TU_CLOCK_RECENT];    /* the last readings, oldest first */
  uint32_t nrecent;
  uint32_t readings;                 /* every reading observed */
} tu_clock_state;

/* A steady clock known before any reading (the device's fingerprint, measured under load): the estimate starts
 * there, so that a run whose device never leaves a low clock state does not take that state for steady. */
void tu_clock_seed(tu_clock_state *s, double steady);
/* Takes a reading (<= 0 or not finite: ignored). The steady estimate is the highest median of 3 consecutive
 * readings seen: a single high outlier does not raise it, a clock that settles higher does. */
void tu_clock_observe(tu_clock_state *s, double reading);

typedef enum {
  TU_CLOCK_OK,       /* both readings at the steady clock: keep the batch */
  TU_CLOCK_AGAIN,    /* a reading below it: measure the batch again */
  TU_CLOCK_KEPT,     /* below it, and the retries are spent: keep the batch, flagged */
  TU_CLOCK_UNKNOWN,  /* no reading or no steady estimate yet: keep it, no evidence either way */
} tu_clock_verdict;
/* The verdict on a batch bracketed by the readings before and after it (observe them first), retry the number of
 * times this batch was measured again already. */
tu_clock_verdict tu_clock_judge(const tu_clock_state *s, const tu_clock_rule *r, double before, double after,
                                uint32_t retry);
/* Whether a warm-up is needed before timing: no steady estimate from 3 readings yet, the clock still rising (the
 * last observed reading more than 2% above the one before), or last_reading low. */
bool tu_clock_needs_warmup(const tu_clock_state *s, const tu_clock_rule *r, double last_reading);
const char *tu_clock_verdict_name(tu_clock_verdict v);
#endif
