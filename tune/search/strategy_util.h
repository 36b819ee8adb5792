/* Internal to libvkocc: what the search strategies (tune/strategy_*.c) share: neighbourhoods over the value
 * indices of an enumerated space, initial designs (with the occupancy prior), and the record of what a
 * strategy has proposed and observed. */
#ifndef VKOCC_TUNE_STRATEGY_UTIL_H
#define VKOCC_TUNE_STRATEGY_UTIL_H
#include "search.h"

/* Neighbourhoods. The neighbour of configuration c along parameter p in direction dir (+1/-1) is the
 * configuration whose p takes the nearest value index in that direction that the space holds, every other
 * parameter unchanged; where the space has no such configuration (a parameter that applies only to some
 * variants, a constraint), the configuration with that value of p nearest to c in the others (L1 over value
 * indices, each scaled by its count; ties to the lower index). */
typedef struct tune_nbr {
  const tune_space *s;
  uint32_t *table, mask;     /* coordinates -> configuration, open addressing (UINT32_MAX empty) */
  uint32_t **start, **member; /* per parameter: configurations by value index (CSR) */
} tune_nbr;
void tune_nbr_init(tune_nbr *nb, const tune_space *s);
void tune_nbr_free(tune_nbr *nb);
int64_t tune_nbr_find(const tune_nbr *nb, const uint32_t *coord);
int64_t tune_nbr_step(const tune_nbr *nb, uint32_t c, uint32_t p, int dir);
/* The distinct neighbours of c (at most 2 * nparams) into out; the count. */
uint32_t tune_nbr_list(const tune_nbr *nb, uint32_t c, uint32_t *out);
/* The configuration nearest to coord (as above) whose skip[] is 0; -1 when none. Large spaces: a bounded,
 * deterministic scan. */
int64_t tune_nbr_nearest(const tune_nbr *nb, const uint32_t *coord, const uint8_t *skip);

/* What a strategy has proposed (seen) and what came back (y: log of the time; INFINITY invalid; NAN not yet
 * observed). best: the lowest y observed. */
typedef struct tune_track {
  uint32_t n, nseen, nobs;
  uint8_t *seen;
  double *y;
  int64_t best;
  double best_y;
} tune_track;
void tune_track_init(tune_track *t, uint32_t n);
void tune_track_free(tune_track *t);
void tune_track_propose(tune_track *t, uint32_t c);
void tune_track_observe(tune_track *t, uint32_t c, tune_eval e);

/* A configuration not yet seen, uniformly (bounded retries, then a scan from a random place); -1: none. */
int64_t tune_random_unseen(const tune_track *t, tune_rng *r);
/* An initial design of up to k configurations not yet seen: with s->prior_weight, drawn with probability
 * proportional to the weight (without replacement; uniformly once every weight left is 0); without, uniformly
 * at random. The count. */
uint32_t tune_design(const tune_space *s, const tune_track *t, tune_rng *r, uint32_t k, uint32_t *out);
/* The walk strategies' start: a design sized by the budget (a tiny budget is all design, since sampling beats a
 * walk from one start; a large one starts from the best of up to 16; `size` > 0 overrides), drawn on first use
 * into *design, then handed out one unseen configuration at a time (proposed on t); -1 once it is used up. */
int64_t tune_design_next(const tune_space *s, tune_track *t, tune_rng *r, uint64_t budget, uint32_t size,
                         uint32_t **design, uint32_t *ndesign, uint32_t *next);

/* A batch from a one-at-a-time proposer: what one() returns, up to max, until it returns -1 (nothing now). */
uint32_t tune_ask_each(void *st, uint32_t max, uint32_t *out, int64_t (*one)(void *st));

#endif
