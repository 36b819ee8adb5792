/* The tuner's stopping rule on synthetic timings (tu_enough_runs, tune/harness/decide.c): it stops only when the spread
 * target is met after the fewest runs, or after 3 runs once the time per configuration is spent; a noisy
 * configuration keeps being timed (the trials loop's run cap ends it), whatever the number of runs so far. */
#include "check.h"
#include "user.h"
#include <math.h>

/* n runs around 1000 ns: the first 1000, then +rel and -rel in turn (an odd n: MAD / median = rel exactly; an even
 * n: the median moves up by rel / 2 and the spread is about rel / 2) */
static void runs_of(double *ns, uint32_t n, double rel) {
  for (uint32_t i = 0; i < n; i++) ns[i] = 1000.0 * (1 + (i % 2 ? rel : -rel) * (i > 0));
}

int main(void) {
  double ns[64];
  tu_options o = {0}; /* the defaults: target spread 2%, at least 5 runs, 2 s per configuration */
  /* tight runs: stop at the fifth, not before */
  runs_of(ns, 64, 0.001);
  for (uint32_t n = 1; n < 5; n++) CHECK(!tu_enough_runs(&o, ns, n, 0), "%u tight runs: fewer than 5, go on", n);
  CHECK(tu_enough_runs(&o, ns, 5, 0), "5 tight runs: stop");
  CHECK(tu_enough_runs(&o, ns, 12, 0), "12 tight runs: stop");
  /* just inside and just outside the 2% target */
  runs_of(ns, 64, 0.019);
  CHECK(tu_enough_runs(&o, ns, 9, 0), "1.9%% spread over 9 runs: stop");
  runs_of(ns, 64, 0.05);
  /* a spread above the target never stops by count, at any number of runs below the cap */
  for (uint32_t n = 1; n <= 64; n++) CHECK(!tu_enough_runs(&o, ns, n, 10), "5%% spread, %u runs, 10 ms: go on", n);
  /* the time: after 2 s, three runs are enough; two are not */
  CHECK(!tu_enough_runs(&o, ns, 2, 2500), "2 runs after 2.5 s: go on");
  CHECK(tu_enough_runs(&o, ns, 3, 2500), "3 runs after 2.5 s: stop");
  CHECK(!tu_enough_runs(&o, ns, 3, 1900), "3 runs after 1.9 s: go on");
  /* one slow outlier among tight runs: the MAD ignores it */
  runs_of(ns, 64, 0.001);
  ns[2] = 5000;
  CHECK(tu_enough_runs(&o, ns, 5, 0), "an outlier among 5: stop");
  /* the options: a looser target, more runs, another time */
  runs_of(ns, 64, 0.05);
  CHECK(!tu_enough_runs(&o, ns, 7, 0), "5%% spread: go on");
  o.target_spread = 0.06;
  CHECK(tu_enough_runs(&o, ns, 7, 0), "5%% spread with a 6%% target: stop");
  o.min_runs = 9;
  CHECK(!tu_enough_runs(&o, ns, 8, 0) && tu_enough_runs(&o, ns, 9, 0), "min_runs 9: stop at the ninth");
  o = (tu_options){.max_config_s = 0.5};
  runs_of(ns, 64, 0.1);
  CHECK(!tu_enough_runs(&o, ns, 4, 400) && tu_enough_runs(&o, ns, 4, 600), "0.5 s per configuration");
  /* no time: a median of 0 (nothing measured) never meets a spread target */
  for (uint32_t i = 0; i < 8; i++) ns[i] = 0;
  CHECK(!tu_enough_runs(&(tu_options){0}, ns, 8, 0), "zero times: go on");
  return check_report();
}
