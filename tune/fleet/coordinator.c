/* The coordinator (tune/fleet/fleet_internal.h): per cluster a search whose configurations it hands to every free
 * device, taking the results in any order; work stealing, what comes next told ahead, the documents and the
 * checkpoints, a device that fails, the loop that runs it all. */
#include "fleet_internal.h"

bool fleet_needs_reference_run(const tu_run *run, const vkocc_tune_options *o) {
  if (run->spec.nrefs || (o->reference && o->reference[0])) return false;
  for (uint32_t i = 0; i < run->spec.nargs; i++)
    if (run->spec.args[i].output) return true;
  return false;
}
static json_t *fleet_document(fleet *f, group *g) {
  char when[32];
  util_utc_now(when, sizeof when);
  json_t *doc = tu_results_json(&g->run, &g->dev, when);
  /* every device that measured in this cluster, the resumed document's first */
  json_t *devs = json_array();
  size_t nprev = g->prev_devices ? json_array_size(g->prev_devices) : 0;
  for (size_t i = 0; i < nprev; i++) json_array_append_new(devs, json_deep_copy(json_array_get(g->prev_devices, i)));
  uint8_t *claimed = util_xcalloc(nprev + 1, 1);
  int32_t *index = util_xcalloc(f->nslots + 1, sizeof *index);
  for (uint32_t s = 0; s < f->nslots; s++) {
    fleet_slot *sl = &f->slots[s];
    index[s] = -1;
    if (sl->group != (uint32_t)(g - f->g)) continue;
    json_t *d = io_device_identity_json(&sl->dev.id);
    char uuid[37];
    vkocc_format_uuid(sl->dev.id.uuid, uuid);
    json_object_set_new(d, "uuid", json_string(uuid));
    json_object_set_new(d, "rank", json_integer(sl->rank));
    json_object_set_new(d, "host", json_string(sl->host));
    json_object_set_new(d, "measured", json_integer(sl->measured));
    /* where this run's time went on it: told to start, its first result, its last (ms since the fleet began) */
    if (sl->measured)
      json_object_set_new(d, "timeline", json_pack("{s:f, s:f, s:f, s:I, s:f, s:I}", "go_ms", sl->go_ms, "first_result_ms",
                                                   sl->first_ms, "last_result_ms", sl->last_ms, "compiles",
                                                   (json_int_t)sl->compiles, "setup_ms", sl->setup_ms, "stolen",
                                                   (json_int_t)sl->stolen));
    if (sl->error[0]) json_object_set_new(d, "error", json_string(sl->error));
    /* the same device, rank and host in the resumed document: one entry, its counts added */
    for (size_t i = 0; i < nprev && index[s] < 0; i++) {
      json_t *p = json_array_get(devs, i);
      if (claimed[i] || !fleet_same_device_entry(p, sl->dev.id.key, uuid, sl->rank, sl->host)) continue;
      claimed[i] = 1, index[s] = (int32_t)i;
      json_object_set_new(d, "measured", json_integer(sl->measured + json_integer_value(json_object_get(p, "measured"))));
      json_array_set_new(devs, i, d);
    }
    if (index[s] >= 0) continue;
    index[s] = (int32_t)json_array_size(devs);
    json_array_append_new(devs, d);
  }
  free(claimed);
  json_object_set_new(doc, "devices", devs);
  /* each result names its device: the results are in the record's evaluation order, then resumed ones */
  json_t *res = json_object_get(doc, "results");
  json_t *keys = json_object(), *norms = json_object();
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    int32_t d = g->who[c] >= 0 ? index[g->who[c]] : g->prev_who ? g->prev_who[c] : -1;
    if (d < 0 || !g->run.r[c].measured) continue;
    char key[1024];
    t1_config_key(&g->run.spec, g->run.space.coord + (size_t)c * g->run.spec.nparams, key, sizeof key);
    json_object_set_new(keys, key, json_integer(d));
    if (g->norm) json_object_set_new(norms, key, json_real(fleet_result_norm_ns(f, (uint32_t)(g - f->g), c)));
  }
  size_t i;
  json_t *e;
  json_array_foreach(res, i, e) {
    char *k = json_dumps(json_object_get(e, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    json_t *d = k ? json_object_get(keys, k) : NULL;
    if (d) json_object_set(e, "device", d);
    /* the time the search ranked it by: its median in the base device's speed */
    json_t *nv = k ? json_object_get(norms, k) : NULL;
    if (nv) json_object_set(e, "normalized_ns", nv);
    free(k);
  }
  json_decref(keys), json_decref(norms);
  json_t *fl = json_pack("{s:i, s:I, s:s?}", "ranks", f->nranks, "devices", (json_int_t)g->nslots, "stopped",
                         g->stopped[0] ? g->stopped : NULL);
  /* before the search (the spec, the groups, the workers' threads started) and after it (the workers' harnesses
   * closed), ms: the library's own part of a run outside elapsed_ms */
  if (f->joined_ms > 0)
    json_object_set_new(fl, "outside_ms", json_pack("{s:f, s:f}", "before", f->loop_ms, "after", f->joined_ms - f->loop_end_ms));
  if (g->norm) {
    uint32_t gi = (uint32_t)(g - f->g);
    json_object_set_new(fl, "normalization", fleet_norm_json(f, gi, index));
    /* the best: a raw time one device measured (the final round's, else the normalized best's own median) */
    double ns;
    int32_t who;
    int64_t b = fleet_best(f, gi, &ns, &who);
    if (b >= 0) {
      const t1_spec *sp = &g->run.spec;
      json_t *best = json_pack("{s:o, s:f, s:I, s:s}", "config", t1_config_json(sp, g->run.space.coord + (size_t)b * sp->nparams),
                               "median_ns", ns, "P", (json_int_t)g->run.r[b].P, "ranked_by",
                               g->final_slot >= 0 && g->run.r[b].confirm_runs ? "final_round" : "normalized");
      json_object_set_new(best, "normalized_ns", json_real(fleet_result_norm_ns(f, gi, (uint32_t)b)));
      json_object_set_new(best, "device", who >= 0 && index[who] >= 0 ? json_integer(index[who]) : json_null());
      json_object_set_new(doc, "best", best);
    }
  }
  free(index);
  json_object_set_new(doc, "fleet", fl);
  return doc;
}
vkocc_status fleet_checkpoint(fleet *f, group *g) {
  bool worth = false;
  for (uint32_t c = 0; c < g->run.space.count && !worth; c++) worth = g->run.r[c].measured && g->run.r[c].inv != TU_COMPILE;
  g->last_cp = vkocc_now_ms();
  if (!worth) return VKOCC_OK; /* a kernel that compiles for nothing leaves the previous file as it was */
  json_t *doc = fleet_document(f, g);
  vkocc_status st = util_json_write(doc, g->output);
  json_decref(doc);
  if (!st) fleet_journal_restart(f, g); /* everything it held is in the document now */
  return st;
}

/* The search handed out everything: last reference points, then the final round on every device; true when the
 * cluster is done. */
static bool after_search(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  if (!g->norm || g->phase == PH_DONE || (f->o->stop && *f->o->stop) || g->stopped[0]) return true;
  for (uint32_t s = 0; s < f->nslots; s++)
    if (f->slots[s].group == gi && !f->slots[s].dead && f->slots[s].again_inflight) return false;
  if (g->phase == PH_SEARCH && !g->nrefs && g->win_best >= 0) {
    fleet_close_window(f, gi); /* a search shorter than one window: its fastest is the only reference */
    return false;
  }
  if (g->phase == PH_SEARCH) {
    g->phase = PH_LAST_REF;
    bool asked = false;
    for (uint32_t s = 0; s < f->nslots && g->nrefs; s++)
      if (f->slots[s].group == gi && !f->slots[s].end_ref && f->slots[s].started && !f->slots[s].dead)
        fleet_ask_again(f, s, fleet_end_reference(g), FOR_REFERENCE), asked = true;
    if (asked) return false;
  }
  if (g->phase == PH_LAST_REF) {
    g->phase = PH_FINAL;
    fleet_pick_candidates(f, gi);
    for (uint32_t s = 0; s < f->nslots; s++)
      for (uint32_t round = 0; f->slots[s].group == gi && round < FINAL_ROUNDS; round++)
        for (uint32_t k = 0; k < g->ncand; k++) fleet_ask_again(f, s, g->cand[k], FOR_FINAL);
    return false;
  }
  fleet_final_record(f, gi);
  g->phase = PH_DONE;
  return true;
}

/* A worker's result (a thread of this process, or a rank over MPI) is taken on the terms of a recorded one: the one
 * check of tune/results/user_results.h (its times positive and finite, its median theirs), as the journal and
 * --resume read a result. Which configuration it is was checked by the coordinator itself (one it handed out), so
 * the check sees it as the only configuration of a space of one. A worker that sends one that fails is given up:
 * its configurations go to the others and the document names why. */
static bool result_checked(fleet *f, msg *m) {
  int64_t first = -1;
  tu_record rv = {.config = 0, .valid = m->r.inv == TU_CORRECT, .times = m->r.times_ns, .ntimes = m->r.runs,
                  .time = m->r.median_ns, .time_is_median = true, .times_name = "its times", .time_name = "median_ns"};
  char why[300], msg_text[400];
  if (tu_record_check(&rv, &first, 0, "", why, sizeof why)) return true;
  snprintf(msg_text, sizeof msg_text, "sent a result that is not one vkocc records: %s", why);
  fleet_slot_failed(f, m->worker, msg_text);
  return false;
}

static void handle(fleet *f, msg *m) {
  if (m->worker >= f->nslots) return;
  fleet_slot *sl = &f->slots[m->worker];
  group *g = &f->g[sl->group];
  if (m->kind == MSG_RESULT) sl->compiles = m->compiles, sl->setup_ms = m->setup_ms;
  if (m->kind == MSG_RESULT && !result_checked(f, m)) return;
  if (m->kind == MSG_FAILED) {
    fleet_slot_failed(f, m->worker, m->error);
    return;
  }
  if (m->purpose != FOR_SEARCH) {
    fleet_again_result(f, m->worker, m);
    return;
  }
  uint32_t k = 0;
  while (k < sl->ninflight && sl->inflight[k] != m->config) k++;
  if (k == sl->ninflight) return; /* a late result of a worker given up on */
  sl->inflight[k] = sl->inflight[--sl->ninflight];
  tune_eval e = {.valid = m->r.inv == TU_CORRECT && m->r.runs > 0, .time_ns = m->r.median_ns};
  if (e.valid) e.time_ns = fleet_norm_ns(f, sl->group, m->worker, m->r.median_ns);
  if (tune_search_tell(g->ts, m->config, e)) return;
  fleet_record(f, g, m->worker, m->config, &m->r);
  fleet_reference_due(f, m->worker, m->config);
  /* the reference as the workers name it ("ReferenceArguments", a configuration's key) goes into the document */
  if (!g->run.reference[0] && m->reference[0]) snprintf(g->run.reference, sizeof g->run.reference, "%s", m->reference);
  if (!g->ref_known && m->reference[0]) {
    g->ref_known = true;
    snprintf(g->reference, sizeof g->reference, "%s", m->reference);
  }
}

/* How many configurations a worker of group gi holds at once: the group's chunk, but at most half of an even share
 * of those not handed out yet (guided self-scheduling), so that the last ones are shared out among its devices in
 * ever smaller parts rather than left queued on one while another idles. */
static uint32_t hold_limit(const fleet *f, uint32_t gi) {
  const group *g = &f->g[gi];
  if (g->chunk <= 1) return g->chunk;
  uint32_t held = 0, live = 0;
  for (uint32_t s = 0; s < f->nslots; s++)
    if (f->slots[s].group == gi && !f->slots[s].dead) held += f->slots[s].ninflight, live++;
  uint64_t done = (uint64_t)g->run.nevals + held, left = g->run.space.count > done ? g->run.space.count - done : 0;
  uint64_t share = live ? (left + 2 * live - 1) / (2 * live) : g->chunk;
  return share >= g->chunk ? g->chunk : share < 1 ? 1 : (uint32_t)share;
}

/* What the search of a shared group will hand out next, told once to every live worker of the group (CMD_AHEAD). */
static void tell_ahead(fleet *f, uint32_t gi) {
  group *g = &f->g[gi];
  if (g->nslots < 2 || g->chunk <= 1) return;
  uint32_t next[AHEAD], n = tune_search_peek(g->ts, AHEAD, next);
  for (uint32_t i = 0; i < n; i++) {
    if (next[i] >= g->run.space.count || g->told[next[i]]) continue;
    g->told[next[i]] = 1;
    for (uint32_t s = 0; s < f->nslots; s++)
      if (f->slots[s].group == gi && f->slots[s].started && !f->slots[s].dead) {
        cmd c = {.kind = CMD_AHEAD, .worker = s, .config = next[i]};
        if (f->slots[s].rank == f->rank) fleet_worker_command(f, &f->w[s], &c);
        else if (fleet_mpi_send(f->slots[s].rank, TAG_CMD, &c, sizeof c, f->silent_ms)) fleet_slot_failed(f, s, vkocc_last_error());
      }
  }
}

/* Device s of group gi has nothing and the search nothing more to hand out: it takes half of what another device of
 * this rank holds but has not started (the end of its queue; the one it measures stays), so that no device idles at
 * the end while another works through a queue (configurations of up to 1 s on matmul 8192 left one H200 idle for
 * 0.6 s of an 11 s run). A worker of another rank is not stolen from (its queue is on that rank). */
static void steal(fleet *f, uint32_t gi, uint32_t s) {
  fleet_slot *sl = &f->slots[s];
  if (sl->rank != f->rank || sl->dead || !sl->started || sl->ninflight) return;
  int32_t v = -1;
  uint32_t most = 0;
  pthread_mutex_lock(&f->mu);
  for (uint32_t k = 0; k < f->nslots; k++)
    if (k != s && f->slots[k].group == gi && f->slots[k].rank == f->rank && !f->slots[k].dead && f->w[k].ntodo > most)
      most = f->w[k].ntodo, v = (int32_t)k;
  uint32_t c[CHUNK], n = 0;
  if (v >= 0) {
    worker *w = &f->w[v];
    for (uint32_t take = (w->ntodo + 1) / 2; n < take; n++) c[n] = w->todo[(w->head + --w->ntodo) % CHUNK];
  }
  pthread_mutex_unlock(&f->mu);
  for (uint32_t i = n; i-- > 0;) {
    fleet_slot *vs = &f->slots[v];
    for (uint32_t k = 0; k < vs->ninflight; k++)
      if (vs->inflight[k] == c[i]) {
        vs->inflight[k] = vs->inflight[--vs->ninflight];
        break;
      }
    sl->inflight[sl->ninflight++] = c[i], sl->stolen++, sl->end_ref = false;
    if (fleet_send_cmd(f, s, CMD_MEASURE, c[i], NULL)) fleet_slot_failed(f, s, vkocc_last_error());
  }
}

/* Hands work to every free worker; false when every group is finished. */
static bool dispatch(fleet *f) {
  bool any = false;
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    if (g->finished) continue;
    bool handed = true;
    for (uint32_t s = 0; s < f->nslots && handed; s++) {
      fleet_slot *sl = &f->slots[s];
      /* a worker is topped up whenever it holds less than it may: it never waits for the coordinator, and its pool
       * builds what it holds while the device measures (tu_prefetch) */
      if (sl->group != gi || sl->dead || sl->ninflight >= hold_limit(f, gi)) continue;
      if (!sl->started) {
        /* until the reference configuration is known, one worker measures */
        bool other = false;
        for (uint32_t k = 0; k < f->nslots; k++) other |= k != s && f->slots[k].group == gi && f->slots[k].started && !f->slots[k].dead;
        if (!g->ref_known && other) continue;
        cmd go = {.kind = CMD_GO, .purpose = g->norm, .worker = s};
        snprintf(go.reference, sizeof go.reference, "%s", g->ref_known ? g->reference : "");
        if (fleet_send_command(f, &go)) { fleet_slot_failed(f, s, vkocc_last_error()); continue; }
        sl->started = true, sl->go_ms = vkocc_now_ms() - f->t0;
        fleet_ask_references(f, s);
      }
      if (g->chunk == 1 && sl->ninflight) continue;
      uint32_t c[CHUNK], want = hold_limit(f, gi) > sl->ninflight ? hold_limit(f, gi) - sl->ninflight : 0, n;
      handed = false;
      while (want && !sl->dead && (n = tune_search_ask(g->ts, want, c))) {
        for (uint32_t i = 0; i < n; i++) {
          if (g->run.r[c[i]].measured) { /* resumed: its recorded result, nothing measured */
            tu_result *r = &g->run.r[c[i]];
            tune_search_tell(g->ts, c[i], (tune_eval){.valid = r->inv == TU_CORRECT && r->runs > 0, .time_ns = r->median_ns});
            g->run.order = util_xrealloc(g->run.order, ((size_t)g->run.nevals + 1) * sizeof *g->run.order);
            g->run.order[g->run.nevals++] = c[i];
            continue;
          }
          if (sl->dead) { tune_search_requeue(g->ts, c[i]); continue; }
          sl->inflight[sl->ninflight++] = c[i], want--, handed = true, sl->end_ref = false;
          if (fleet_send_cmd(f, s, CMD_MEASURE, c[i], NULL)) fleet_slot_failed(f, s, vkocc_last_error());
        }
      }
    }
    for (uint32_t s = 0; g->chunk > 1 && s < f->nslots; s++) {
      fleet_slot *sl = &f->slots[s];
      if (sl->group != gi) continue;
      steal(f, gi, s);
      /* still nothing: it times its end-of-search reference now rather than after the others' last results */
      if (g->norm && g->nrefs && g->phase == PH_SEARCH && sl->started && !sl->dead && !sl->ninflight && !sl->again_inflight &&
          !sl->end_ref) {
        fleet_ask_again(f, s, fleet_end_reference(g), FOR_REFERENCE);
        sl->end_ref = true;
      }
    }
    tell_ahead(f, gi);
    if (!tune_search_inflight(g->ts)) {
      uint32_t c;
      /* nothing in flight and nothing to hand out: the search is over */
      if (!tune_search_ask(g->ts, 1, &c)) g->finished = after_search(f, gi);
      else tune_search_requeue(g->ts, c);
    }
    any |= !g->finished;
  }
  return any;
}

/* ---- the summary's lines */

/* the summary's line: each device's factor, and what the final round said */
void fleet_normalization_line(const fleet *f, uint32_t gi, char *out, size_t len) {
  const group *g = &f->g[gi];
  size_t at = 0;
  out[0] = 0;
  if (fleet_base_slot(f, gi) < 0) {
    snprintf(out, len, "no reference measured on any device: times are raw");
    return;
  }
  uint32_t i = 0;
  for (uint32_t s = 0; s < f->nslots && at < len; s++) {
    if (f->slots[s].group != gi) continue;
    double fa, u;
    uint32_t nr;
    if (!fleet_slot_factor(f, gi, s, &fa, &u, &nr)) at += (size_t)snprintf(out + at, len - at, "%sworker %u: no reference", i ? "; " : "", s);
    else at += (size_t)snprintf(out + at, len - at, "%sworker %u x%.4f (+-%.2f%%, %u reference%s, %u points%s)", i ? "; " : "", s,
                                fa, 100 * u, nr, nr == 1 ? "" : "s", f->slots[s].npts,
                                (int32_t)s == fleet_base_slot(f, gi) || fleet_factor_applies(true, fa, u) ? "" : ", within its spread of 1: not applied");
    i++;
  }
  if (at < len && g->note[0]) at += (size_t)snprintf(out + at, len - at, "; %s", g->note);
  double bns;
  int32_t bwho;
  int64_t best = fleet_best(f, gi, &bns, &bwho);
  if (at < len && best >= 0 && bwho >= 0 && g->final_slot < 0)
    at += (size_t)snprintf(out + at, len - at, "; the best's time is worker %d's raw median (normalized: %.2f us)", bwho,
                           fleet_result_norm_ns(f, gi, (uint32_t)best) / 1e3);
  if (at < len && g->final_slot >= 0) {
    double ns;
    int32_t who;
    bool kept = g->ncand && fleet_best(f, gi, &ns, &who) == (int64_t)g->cand[0];
    snprintf(out + at, len - at, "; the final round on %s %s the normalized ranking's first", f->slots[g->final_slot].dev.id.name,
             kept ? "kept" : "overturned");
  }
}

/* The clocks as the references timed again on each device show them */
void fleet_clocks_line(const fleet *f, uint32_t gi, char *out, size_t len, bool *drifted) {
  size_t at = 0;
  out[0] = 0, *drifted = false;
  for (uint32_t s = 0; s < f->nslots && at < len; s++) {
    const fleet_slot *sl = &f->slots[s];
    uint32_t ref, n;
    double range, spread;
    if (sl->group != gi || !fleet_drift_of(sl->pts, sl->npts, &ref, &n, &range, &spread)) continue;
    bool d = tu_drifted(range, spread);
    *drifted |= d;
    at += (size_t)snprintf(out + at, len - at, "%sworker %u: reference %u timed %u times, range %.2f%% (largest spread %.2f%%)%s",
                           at ? "; " : "", s, ref, n, 100 * range, 100 * spread, d ? ": drifted" : "");
  }
}

vkocc_status fleet_coordinate(fleet *f) {
  const vkocc_tune_options *o = f->o;
  double t0 = vkocc_now_ms();
  f->loop_ms = t0 - f->t0;
  bool stopped = false;
  double stop_ms = 0;
  for (int r = 0; f->mpi && r < f->nranks; r++) f->heard[r] = t0;
  while (dispatch(f)) {
    /* interrupted: what is in flight may still come, but not from a rank that was ended with this one */
    if (stopped && vkocc_now_ms() - stop_ms > 3000) break;
    if (o->stop && *o->stop && !stopped) {
      stopped = true, stop_ms = vkocc_now_ms();
      for (uint32_t gi = 0; gi < f->ng; gi++) {
        tune_search_stop(f->g[gi].ts);
        if (!f->g[gi].stopped[0]) snprintf(f->g[gi].stopped, sizeof f->g[gi].stopped, "interrupted");
      }
    }
    bool got = false;
    void *buf;
    size_t len;
    int from, tag;
    while (f->mpi && fleet_mpi_poll(&from, &tag, &buf, &len)) {
      if (from > 0 && from < f->nranks) f->heard[from] = vkocc_now_ms();
      msg *m = tag == TAG_MSG && from > 0 && from < f->nranks && !f->lost[from] ? fleet_recv_msg(buf, len) : NULL;
      free(buf);
      if (m) handle(f, m), fleet_msg_free(m), got = true;
    }
    if (f->mpi) fleet_watch_ranks(f);
    for (msg *m; (m = fleet_take(f, got ? 0 : f->mpi ? 2 : 50));) handle(f, m), fleet_msg_free(m), got = true;
    for (uint32_t gi = 0; gi < f->ng; gi++)
      if (vkocc_now_ms() - f->g[gi].last_cp > 10e3) fleet_checkpoint(f, &f->g[gi]);
  }
  for (uint32_t gi = 0; gi < f->ng; gi++) f->g[gi].run.elapsed_ms += vkocc_now_ms() - t0;
  f->loop_end_ms = vkocc_now_ms() - f->t0;
  return stopped ? vkocc_fail(VKOCC_ERROR_RUNTIME, "interrupted") : VKOCC_OK;
}
