/* A shared search's normalization (tune/fleet/fleet.h, docs/fleet.md "Boards that differ"): each device's factor
 * from the common references it measures again, times ranked divided by it where it applies, the drift, and the
 * final round that re-times the candidates on every device where the factors could decide the ranking. */
#include "fleet_internal.h"

/* ---- a shared search: times normalized to common references, the final round */

bool fleet_reference_of(const fleet_point *p, uint32_t n, double *ref_ns, double *spread) {
  *ref_ns = 0, *spread = 0;
  if (!n) return false;
  double *v = util_xmalloc(n * sizeof *v), *d = util_xmalloc(n * sizeof *d);
  for (uint32_t i = 0; i < n; i++) v[i] = p[i].median_ns, d[i] = p[i].spread;
  double ref = util_median(v, n), sp = util_median(d, n) / sqrt((double)n);
  if (n >= 2 && ref > 0) {
    for (uint32_t i = 0; i < n; i++) v[i] = fabs(p[i].median_ns - ref);
    double mad = util_median(v, n) / ref;
    if (mad > sp) sp = mad;
  }
  free(v), free(d);
  if (!(ref > 0) || !isfinite(ref) || !isfinite(sp)) return false;
  *ref_ns = ref, *spread = sp;
  return true;
}

bool fleet_factor_of(const double *ratio, const double *noise, uint32_t n, double *factor, double *spread) {
  *factor = 0, *spread = 0;
  if (!n) return false;
  double *v = util_xmalloc(n * sizeof *v);
  memcpy(v, ratio, n * sizeof *v);
  double fa = util_median(v, n);
  for (uint32_t i = 0; i < n; i++) v[i] = fabs(ratio[i] - fa);
  double mad = n >= 2 && fa > 0 ? util_median(v, n) / fa : 0;
  memcpy(v, noise, n * sizeof *v);
  double nz = util_median(v, n);
  free(v);
  if (!(fa > 0) || !isfinite(fa) || !isfinite(mad) || !isfinite(nz)) return false;
  *factor = fa, *spread = mad > nz ? mad : nz;
  return true;
}

/* the device whose speed normalized times are in: the group's first with a reference point (-1: none yet) */
int32_t fleet_base_slot(const fleet *f, uint32_t gi) {
  for (uint32_t s = 0; s < f->nslots; s++)
    if (f->slots[s].group == gi && f->slots[s].npts) return (int32_t)s;
  return -1;
}

/* device s's time of reference j: its points of j (fleet_reference_of) */
static bool ref_time(const fleet *f, uint32_t s, uint32_t j, double *t, double *u) {
  const fleet_slot *sl = &f->slots[s];
  fleet_point *p = util_xmalloc((sl->npts + 1) * sizeof *p);
  uint32_t n = 0;
  for (uint32_t i = 0; i < sl->npts; i++)
    if (sl->pts[i].ref == j) p[n++] = sl->pts[i];
  bool ok = fleet_reference_of(p, n, t, u);
  free(p);
  return ok;
}

/* Device s's factor against the base device (1 for the base itself, spread 0) from the references both measured:
 * fleet_factor_of over their ratios. *nratios: how many. False without a common reference. */
bool fleet_slot_factor(const fleet *f, uint32_t gi, uint32_t s, double *factor, double *spread, uint32_t *nratios) {
  const group *g = &f->g[gi];
  int32_t b = g->norm ? fleet_base_slot(f, gi) : -1;
  double ratio[NREF], noise[NREF], ts, us, tb, ub;
  uint32_t n = 0;
  for (uint32_t j = 0; b >= 0 && j < g->nrefs; j++)
    if (ref_time(f, s, j, &ts, &us) && ref_time(f, (uint32_t)b, j, &tb, &ub)) {
      ratio[n] = ts / tb, noise[n] = (uint32_t)b == s ? 0 : sqrt(us * us + ub * ub);
      n++;
    }
  if (nratios) *nratios = n;
  if (b >= 0 && (uint32_t)b == s && n) return *factor = 1, *spread = 0, true;
  return fleet_factor_of(ratio, noise, n, factor, spread);
}

/* how far the factors of devices a and c may put one configuration's normalized time (INFINITY: unknown) */
static double pair_spread(const fleet *f, uint32_t gi, uint32_t a, uint32_t c) {
  double fa, ua, fc, uc;
  if (a == c) return 0;
  if (!fleet_slot_factor(f, gi, a, &fa, &ua, NULL) || !fleet_slot_factor(f, gi, c, &fc, &uc, NULL)) return INFINITY;
  return sqrt(ua * ua + uc * uc);
}

/* Whether device s's factor is applied: only where the boards' offset exceeds the factor's spread. Within it, the
 * references' own configuration-dependence decides the factor more than the boards do, and dividing by it adds
 * noise: on two H200s (docs/results/h100x2/fleet, run 5) a factor of 1.0079 +- 1.03% from 4 references put 61 of
 * 117 configurations within their spreads of the other board, raw times 75, the best constant possible 73. */
static bool factor_applies(const fleet *f, uint32_t gi, uint32_t s, double *factor) {
  double u;
  bool known = fleet_slot_factor(f, gi, s, factor, &u, NULL);
  return fleet_factor_applies(known, *factor, u);
}

bool fleet_drift_of(const fleet_point *p, uint32_t n, uint32_t *ref, uint32_t *npoints, double *range, double *spread) {
  bool any = false;
  *ref = 0, *npoints = 0, *range = 0, *spread = 0;
  for (uint32_t j = 0; j < NREF; j++) {
    double lo = INFINITY, hi = 0, u = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
      if (p[i].ref == j) k++, lo = fmin(lo, p[i].median_ns), hi = fmax(hi, p[i].median_ns), u = fmax(u, p[i].spread);
    if (k < 2 || !(lo > 0)) continue;
    double r = (hi - lo) / lo;
    if (!any || r > *range) *ref = j, *npoints = k, *range = r, *spread = u, any = true;
  }
  return any;
}

bool fleet_factor_applies(bool known, double factor, double spread) { return known && fabs(factor - 1) > spread; }

/* a time device s measured, in the base device's speed (raw where its factor does not apply) */
double fleet_norm_ns(const fleet *f, uint32_t gi, uint32_t s, double raw) {
  double fa;
  return factor_applies(f, gi, s, &fa) ? raw / fa : raw;
}

double fleet_result_norm_ns(const fleet *f, uint32_t gi, uint32_t c) {
  const group *g = &f->g[gi];
  double raw = g->run.r[c].median_ns;
  return g->who[c] >= 0 ? fleet_norm_ns(f, gi, (uint32_t)g->who[c], raw) : raw;
}

static bool result_valid(const tu_result *r) { return r->measured && r->inv == TU_CORRECT && r->runs > 0 && r->median_ns > 0; }

/* every reference known so far, on device s (its start, the end) */
void fleet_ask_references(fleet *f, uint32_t s) {
  const group *g = &f->g[f->slots[s].group];
  for (uint32_t j = 0; j < g->nrefs; j++) fleet_ask_again(f, s, g->refs[j], FOR_REFERENCE);
}

/* a point of reference j on device sl: its time as r measured it, after sl's search results so far */
static void add_point(fleet_slot *sl, uint32_t j, const tu_result *r) {
  sl->pts = util_xrealloc(sl->pts, (sl->npts + 1) * sizeof *sl->pts);
  sl->pts[sl->npts++] = (fleet_point){.ref = j, .after = sl->measured, .median_ns = r->median_ns, .spread = r->spread,
                                      .runs = r->runs};
}

void fleet_again_result(fleet *f, uint32_t s, const msg *m) {
  fleet_slot *sl = &f->slots[s];
  group *g = &f->g[sl->group];
  if (sl->again_inflight) sl->again_inflight--;
  if (sl->dead || !result_valid(&m->r)) return;
  for (uint32_t j = 0; m->purpose == FOR_REFERENCE && j < g->nrefs; j++) {
    if (g->refs[j] != m->config) continue;
    add_point(sl, j, &m->r);
    return;
  }
  for (uint32_t k = 0; m->purpose == FOR_FINAL && k < g->ncand; k++) {
    if (g->cand[k] != m->config) continue;
    sl->fin[k] = util_xrealloc(sl->fin[k], (sl->nfin[k] + m->r.runs) * sizeof *sl->fin[k]);
    memcpy(sl->fin[k] + sl->nfin[k], m->r.times_ns, m->r.runs * sizeof *m->r.times_ns);
    sl->nfin[k] += m->r.runs;
  }
}

/* A reference is the fastest valid result of a window of results (by raw median, among those measured for this
 * search): re-timing it on every other device costs each of them one measurement, which on a slow kernel is most of
 * what normalizing costs (matmul 8192 on two H200s, docs/results/h100x2/fleet run 8: the references the first valid
 * results happened to be, 48-112 ms a run, 0.3-0.7 s a measurement, against the best's 29 ms). Windows of count /
 * (2 NREF) valid results (at least 2), one after the other, so that the references are of different kinds (their
 * ratios show how much the boards' difference depends on the configuration). */

/* The window's fastest becomes reference nrefs: its own result is the first point of the device that measured it,
 * and every other device of the cluster measures it once known. */
void fleet_close_window(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  if (g->win_best < 0 || g->nrefs >= NREF) return;
  uint32_t c = (uint32_t)g->win_best, s = (uint32_t)g->who[c];
  fleet_slot *sl = &f->slots[s];
  const tu_result *r = &g->run.r[c];
  g->win_best = -1, g->win_n = 0;
  if (sl->dead) return;
  add_point(sl, g->nrefs, r);
  g->refs[g->nrefs++] = c;
  for (uint32_t k = 0; k < f->nslots; k++)
    if (k != s && f->slots[k].group == gi) fleet_ask_again(f, k, c, FOR_REFERENCE);
}

/* The reference a device times at its end: the cheapest (the fastest as first measured). Every device has an earlier
 * point of every reference, so any of them shows a drift there; on Kernel Tuner's matmul at 8192 they cost 29 to 49 ms
 * a run. */
uint32_t fleet_end_reference(const group *g) {
  uint32_t best = g->refs[0];
  for (uint32_t j = 1; j < g->nrefs; j++)
    if (g->run.r[g->refs[j]].median_ns < g->run.r[best].median_ns) best = g->refs[j];
  return best;
}

/* After a result for the search (recorded). The references: the fastest of each window of valid results
 * (close_window), each measured on every other device once known. Then one of them, in turn, every `every`
 * configurations of a device and at its end, so that a drift shows. */
void fleet_reference_due(fleet *f, uint32_t s, uint32_t c) {
  fleet_slot *sl = &f->slots[s];
  group *g = &f->g[sl->group];
  if (!g->norm) return;
  sl->since_ref++;
  const tu_result *r = &g->run.r[c];
  if (result_valid(r) && !r->stopped && g->nrefs < NREF) { /* a result the race stopped is no reference: 2 runs */
    if (g->win_best < 0 || r->median_ns < g->run.r[g->win_best].median_ns) g->win_best = c;
    uint32_t window = g->run.space.count / (2 * NREF);
    if (++g->win_n >= (window > 2 ? window : 2)) fleet_close_window(f, sl->group);
  }
  if (g->nrefs && g->every && sl->since_ref >= g->every) fleet_ask_again(f, s, g->refs[sl->ref_turn++ % g->nrefs], FOR_REFERENCE);
}

/* The final round's candidates. The best by normalized time, and each configuration another device measured whose
 * normalized time lies within the normalization's uncertainty of it (the two devices' reference spreads
 * combined): only there can the factors' error change the ranking, so only then is there a final round (no
 * candidate beside the best: its own raw median is the answer). With options->confirm K: the K best, always. The
 * note says which. */
void fleet_pick_candidates(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  uint32_t want = f->o->confirm > 0 ? (uint32_t)f->o->confirm : FINAL_MAX;
  if (want > FINAL_MAX) want = FINAL_MAX;
  g->ncand = 0;
  int64_t first = -1;
  double t0 = INFINITY, dmin = INFINITY, umax = 0;
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    double t = result_valid(&g->run.r[c]) ? fleet_result_norm_ns(f, gi, c) : INFINITY;
    if (t < t0) t0 = t, first = c;
  }
  if (first < 0) return;
  g->cand[g->ncand++] = (uint32_t)first;
  int32_t sb = g->who[first];
  uint32_t close = 0;
  while (g->ncand < want) {
    int64_t next = -1;
    double bt = INFINITY, bu = 0;
    for (uint32_t c = 0; c < g->run.space.count; c++) {
      bool taken = false;
      for (uint32_t k = 0; k < g->ncand && !taken; k++) taken = g->cand[k] == c;
      if (taken || !result_valid(&g->run.r[c])) continue;
      double t = fleet_result_norm_ns(f, gi, c), u = 0;
      int32_t sk = g->who[c];
      if (f->o->confirm <= 0) { /* only where the factors could be what ranks it below the best */
        if (sb < 0 || sk < 0 || sk == sb) continue;
        u = pair_spread(f, gi, (uint32_t)sb, (uint32_t)sk);
        if (t / t0 - 1 >= u) continue; /* (an unknown factor: INFINITY, a candidate) */
      }
      if (t < bt) bt = t, next = c, bu = u;
    }
    if (next < 0) break;
    g->cand[g->ncand++] = (uint32_t)next;
    if (f->o->confirm <= 0) close++, dmin = fmin(dmin, bt / t0 - 1), umax = fmax(umax, bu);
  }
  if (close && isinf(umax))
    snprintf(g->note, sizeof g->note, "a device measured no reference: %u configuration%s it measured within %.2f%% of the best "
             "by normalized time go to a final round", close, close == 1 ? "" : "s", 100 * dmin);
  else if (close)
    snprintf(g->note, sizeof g->note, "the normalization's uncertainty (up to %.2f%%) exceeds the difference between the best "
             "by normalized time and %u configuration%s another device measured (from %.2f%%): a final round decides", 100 * umax,
             close, close == 1 ? "" : "s", 100 * dmin);
  else if (f->o->confirm <= 0)
    snprintf(g->note, sizeof g->note, "the best by normalized time leads what other devices measured by more than the "
             "normalization's uncertainty: no final round");
  if (g->ncand < 2) g->ncand = 0; /* nothing to decide: the best's own raw median */
}

/* The final round's answer: the raw times of one device (the base device when it timed them all), as the
 * record's final round, so that tu_best ranks by them. */
void fleet_final_record(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  int32_t pick = -1;
  uint32_t most = 0, b = (uint32_t)fleet_base_slot(f, gi);
  for (uint32_t s = 0; s < f->nslots; s++) {
    const fleet_slot *sl = &f->slots[s];
    if (sl->group != gi || sl->dead) continue;
    uint32_t n = 0;
    for (uint32_t k = 0; k < g->ncand; k++) n += sl->nfin[k] > 0;
    if (n > most || (n == most && n && s == b)) most = n, pick = (int32_t)s;
  }
  g->final_slot = pick;
  if (pick < 0) return;
  fleet_slot *sl = &f->slots[pick];
  for (uint32_t k = 0; k < g->ncand; k++) {
    tu_result *r = &g->run.r[g->cand[k]];
    uint32_t n = sl->nfin[k];
    if (!n) continue;
    double *v = util_xmalloc(n * sizeof *v);
    memcpy(v, sl->fin[k], n * sizeof *v);
    double med = util_median(v, n);
    for (uint32_t i = 0; i < n; i++) v[i] = fabs(sl->fin[k][i] - med);
    r->confirm_ns = med, r->confirm_spread = med > 0 ? util_median(v, n) / med : 0, r->confirm_runs = n;
    free(v);
  }
}

/* The cluster's best: in a shared search the final round's lowest raw time on its device, else (interrupted, no
 * final round) the lowest normalized time, given as its raw median; -1 none. *ns: that raw time, *slot: whose. */
int64_t fleet_best(const fleet *f, uint32_t gi, double *ns, int32_t *slot) {
  const group *g = &f->g[gi];
  int64_t b = -1;
  *ns = INFINITY, *slot = -1;
  if (!g->who) return -1; /* the group was refused before its search was made (a resumed file refused) */
  if (!g->norm) {
    b = tu_best(&g->run);
    if (b >= 0) *ns = tu_rank_ns(&g->run.r[b]), *slot = g->who[b];
    return b;
  }
  for (uint32_t k = 0; g->final_slot >= 0 && k < g->ncand; k++) {
    const tu_result *r = &g->run.r[g->cand[k]];
    if (r->confirm_runs && r->confirm_ns < *ns) *ns = r->confirm_ns, b = g->cand[k];
  }
  if (b >= 0) {
    *slot = g->final_slot;
    return b;
  }
  double bt = INFINITY;
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    if (!result_valid(&g->run.r[c])) continue;
    double t = fleet_result_norm_ns(f, gi, c);
    if (t < bt) bt = t, b = c;
  }
  if (b >= 0) *ns = g->run.r[b].median_ns, *slot = g->who[b];
  return b;
}

/* $.fleet.normalization: the references, each device's points and factor, the final round's candidates on each */
json_t *fleet_norm_json(const fleet *f, uint32_t gi, const int32_t *index) {
  const group *g = &f->g[gi];
  const t1_spec *sp = &g->run.spec;
  int32_t b = fleet_base_slot(f, gi);
  json_t *n = json_object(), *devs = json_array(), *cands = json_array(), *refs = json_array();
  for (uint32_t j = 0; j < g->nrefs; j++) json_array_append_new(refs, t1_config_json(sp, g->run.space.coord + (size_t)g->refs[j] * sp->nparams));
  json_object_set_new(n, "references", refs);
  json_object_set_new(n, "every", json_integer(g->every));
  json_object_set_new(n, "base_device", b >= 0 && index[b] >= 0 ? json_integer(index[b]) : json_null());
  for (uint32_t s = 0; s < f->nslots; s++) {
    const fleet_slot *sl = &f->slots[s];
    if (sl->group != gi || index[s] < 0) continue;
    json_t *d = json_pack("{s:i}", "device", index[s]), *pts = json_array(), *times = json_array(), *ratios = json_array();
    for (uint32_t i = 0; i < sl->npts; i++)
      json_array_append_new(pts, json_pack("{s:i, s:i, s:f, s:f, s:i}", "reference", (int)sl->pts[i].ref, "after",
                                           (int)sl->pts[i].after, "median_ns", sl->pts[i].median_ns, "spread",
                                           sl->pts[i].spread, "runs", (int)sl->pts[i].runs));
    json_object_set_new(d, "points", pts);
    for (uint32_t j = 0; j < g->nrefs; j++) {
      double t, u, tb, ub;
      bool mine = ref_time(f, s, j, &t, &u), base = b >= 0 && ref_time(f, (uint32_t)b, j, &tb, &ub);
      json_array_append_new(times, mine ? json_real(t) : json_null());
      json_array_append_new(ratios, mine && base ? json_real(t / tb) : json_null());
    }
    json_object_set_new(d, "reference_ns", times);
    json_object_set_new(d, "ratios", ratios);
    double fa, u;
    uint32_t nr;
    bool ok = fleet_slot_factor(f, gi, s, &fa, &u, &nr);
    json_object_set_new(d, "factor", ok ? json_real(fa) : json_null());
    json_object_set_new(d, "factor_spread", ok ? json_real(u) : json_null());
    json_object_set_new(d, "applied", json_boolean(fleet_factor_applies(ok, fa, u)));
    uint32_t dref, dn;
    double range, dspread;
    if (fleet_drift_of(sl->pts, sl->npts, &dref, &dn, &range, &dspread))
      json_object_set_new(d, "drift", json_pack("{s:i, s:i, s:f, s:f, s:b}", "reference", (int)dref, "points", (int)dn, "range",
                                                range, "largest_spread", dspread, "drifted", tu_drifted(range, dspread)));
    else json_object_set_new(d, "drift", json_null());
    json_array_append_new(devs, d);
  }
  json_object_set_new(n, "devices", devs);
  for (uint32_t k = 0; k < g->ncand; k++) {
    uint32_t c = g->cand[k];
    const tu_result *r = &g->run.r[c];
    json_t *e = json_pack("{s:o, s:f, s:f}", "config", t1_config_json(sp, g->run.space.coord + (size_t)c * sp->nparams),
                          "median_ns", r->median_ns, "normalized_ns", fleet_result_norm_ns(f, gi, c));
    json_object_set_new(e, "device", g->who[c] >= 0 && index[g->who[c]] >= 0 ? json_integer(index[g->who[c]]) : json_null());
    json_t *times = json_array();
    for (uint32_t s = 0; s < f->nslots; s++) {
      const fleet_slot *sl = &f->slots[s];
      if (sl->group != gi || index[s] < 0 || !sl->nfin[k]) continue;
      double *v = util_xmalloc(sl->nfin[k] * sizeof *v);
      memcpy(v, sl->fin[k], sl->nfin[k] * sizeof *v);
      double med = util_median(v, sl->nfin[k]);
      for (uint32_t i = 0; i < sl->nfin[k]; i++) v[i] = fabs(sl->fin[k][i] - med);
      json_array_append_new(times, json_pack("{s:i, s:f, s:f, s:i}", "device", index[s], "median_ns", med, "spread",
                                             med > 0 ? util_median(v, sl->nfin[k]) / med : 0.0, "runs", (int)sl->nfin[k]));
      free(v);
    }
    json_object_set_new(e, "final_round", times);
    json_array_append_new(cands, e);
  }
  json_object_set_new(n, "final_round", json_pack("{s:o, s:i, s:o}", "device",
                                                  g->final_slot >= 0 && index[g->final_slot] >= 0 ? json_integer(index[g->final_slot])
                                                                                                   : json_null(),
                                                  "rounds", FINAL_ROUNDS, "candidates", cands));
  json_object_set_new(n, "note", g->note[0] ? json_string(g->note) : json_null());
  return n;
}
