/* One T1 spec tuned on several devices and MPI ranks (tune/fleet/fleet.h, include/vkocc.h "tuning on several
 * devices", docs/fleet.md): the run set up and run (vkocc_tune_fleet).
 *
 * Rank 0 (the only rank without MPI) holds the coordinator: per cluster a merged record (a tu_run that no harness
 * measures into), a search (ask/tell) and a results document. Workers are host threads, one per member, each with
 * its own context and tu_run; tu_tune runs in each with tu_options.drive, which waits for a configuration, measures
 * it through the harness's own evaluation and posts the result. The coordinator hands a configuration to every free
 * worker of a cluster, takes results in any order, journals each one, and checkpoints the document every 10 s. A
 * worker that fails gives its configuration back to the search (another worker of its cluster measures it); when
 * none is left the cluster's search stops and the document says why.
 *
 * Without ReferenceArguments the reference outputs come from the first configuration that runs. All workers of a
 * cluster must compare against the same one, so only the first worker measures until that configuration is known;
 * the others then start with it as their reference (measuring it once themselves for its outputs).
 *
 * Several devices in a cluster: boards of one model differ, per configuration (docs/fleet.md, "Boards that
 * differ"). Each device measures reference configurations again (worker.again: before its next configuration);
 * the search ranks by times divided by each device's factor where that factor lies outside its spread, and where
 * the factors could decide the ranking the candidates are measured again on every device (the final round).
 *
 * Under MPI the other ranks run the same workers behind an agent that forwards their results to rank 0 and rank
 * 0's commands to them; MPI is called from the main thread of each rank only. Both sides send a heartbeat; a rank
 * silent too long is given up (its configurations go to the others), and an agent whose coordinator is gone stops. */
#include "fleet_internal.h"
#include <unistd.h>

static void output_of(const char *output, const char *cluster, uint32_t ng, char *out, size_t len) {
  size_t l = strlen(output);
  if (ng == 1) snprintf(out, len, "%s", output);
  else if (l > 5 && !strcmp(output + l - 5, ".json")) snprintf(out, len, "%.*s-%s.json", (int)(l - 5), output, cluster);
  else snprintf(out, len, "%s-%s", output, cluster);
}

static void fleet_free(fleet *f) {
  for (uint32_t i = 0; i < f->nw; i++) tu_run_free(&f->w[i].run), pthread_cond_destroy(&f->w[i].cond);
  free(f->w);
  for (uint32_t i = 0; i < f->ng; i++) {
    group *g = &f->g[i];
    tune_search_close(g->ts);
    tu_run_free(&g->run);
    if (g->jf) fclose(g->jf);
    free(g->who), free(g->prev_who), free(g->told);
    json_decref(g->prev_devices), json_decref(g->attrib);
  }
  for (uint32_t s = 0; s < f->nslots; s++) {
    free(f->slots[s].pts);
    for (uint32_t k = 0; k < FINAL_MAX; k++) free(f->slots[s].fin[k]);
  }
  free(f->g), free(f->slots), free(f->heard), free(f->lost);
  for (msg *m; (m = fleet_take(f, 0));) fleet_msg_free(m);
  pthread_mutex_destroy(&f->mu), pthread_cond_destroy(&f->out_cond);
}

/* A spec whose conditions name the device's limits: a group's search takes the smallest of its members' (each
 * member must run every configuration it proposes), before anything is resumed into it. */
static vkocc_status bind_group_limits(fleet *f, uint32_t gi) {
  limits_t lim;
  bool have = false;
  for (uint32_t s = 0; s < f->nslots; s++) {
    if (f->slots[s].group != gi) continue;
    for (int k = 0; k < TEXPR_NDEVICE; k++) lim[k] = have && lim[k] < f->slots[s].limits[k] ? lim[k] : f->slots[s].limits[k];
    have = true;
  }
  return have ? tu_bind_device(&f->g[gi].run, lim) : VKOCC_OK;
}

/* The groups of the slots (by cluster ID, in the order they first appear), their records, resumed, and searches. */
static vkocc_status make_groups(fleet *f) {
  const vkocc_tune_options *o = f->o;
  f->g = util_xcalloc(f->nslots, sizeof *f->g);
  for (uint32_t s = 0; s < f->nslots; s++) {
    uint32_t gi = 0;
    while (gi < f->ng && strcmp(f->g[gi].cluster_id, f->slots[s].dev.cluster_id)) gi++;
    if (gi == f->ng) {
      snprintf(f->g[gi].cluster_id, sizeof f->g[gi].cluster_id, "%s", f->slots[s].dev.cluster_id);
      f->g[gi].dev = f->slots[s].dev;
      f->ng++;
    }
    f->slots[s].group = gi, f->g[gi].nslots++;
  }
  vkocc_status st;
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    output_of(o->output, g->cluster_id, f->ng, g->output, sizeof g->output);
    snprintf(g->journal, sizeof g->journal, "%s.journal", g->output);
    if ((st = tu_prepare(f->spec_path, f->name, &g->run))) return st;
    if ((st = bind_group_limits(f, gi))) return st;
    if (f->resume && (st = fleet_resume_group(f, g))) return st;
    if (!g->prev_devices) g->prev_devices = json_array();
    /* --only after the resumed results, as one device does: those are kept whatever it says */
    for (uint32_t i = 0; i < o->nonly; i++)
      if ((st = tu_restrict(&g->run, o->only[i]))) return st;
    g->who = util_xmalloc(((size_t)g->run.space.count + 1) * sizeof *g->who);
    g->told = util_xcalloc((size_t)g->run.space.count + 1, 1);
    g->prev_who = util_xmalloc(((size_t)g->run.space.count + 1) * sizeof *g->prev_who);
    for (uint32_t c = 0; c < g->run.space.count; c++) g->who[c] = -1;
    fleet_attribute_resumed(g);
    if (o->strategy) snprintf(g->run.strategy, sizeof g->run.strategy, "%s", o->strategy);
    g->run.seed = o->seed;
    if (o->budget_evals || o->budget_fraction > 0 || o->budget_seconds > 0)
      g->run.budget = (tune_budget){.max_evals = o->budget_evals, .max_fraction = o->budget_fraction,
                                    .max_seconds = o->budget_seconds};
    const tune_strategy_def *def = tune_strategy_find(g->run.strategy);
    if (!def) return vkocc_fail(VKOCC_ERROR_USAGE, "unknown search strategy '%s'", g->run.strategy);
    g->chunk = !strcmp(def->name, "brute_force") ? CHUNK : 1;
    const t1_spec *s = &g->run.spec;
    for (uint32_t i = 0; i < s->nparams && i < 32; i++) g->names[i] = s->params[i].name, g->nvals[i] = s->params[i].nvalues;
    g->sp = (tune_space){.nparams = s->nparams, .nconfigs = g->run.space.count, .coord = g->run.space.coord,
                         .param_names = g->names, .nvalues = g->nvals};
    if ((st = tune_search_open(&g->sp, def, g->run.seed, s->search_attrs, &g->run.budget, &g->ts))) {
      if (st == VKOCC_ERROR_USAGE) {
        char m[600];
        snprintf(m, sizeof m, "%s", vkocc_last_error());
        st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.Search.Attributes: %s", s->file, m);
      }
      return st;
    }
    g->norm = g->nslots >= 2, g->phase = PH_SEARCH, g->final_slot = -1, g->win_best = -1;
    g->every = o->sentinel_every > 0 ? (uint32_t)o->sentinel_every : o->sentinel_every < 0 ? 0 : 64;
    g->ref_known = !fleet_needs_reference_run(&g->run, o) || g->run.reference[0];
    snprintf(g->reference, sizeof g->reference, "%s", g->run.reference);
    /* what the journal held goes into the document before a fresh journal starts */
    if (g->resumed && (st = fleet_checkpoint(f, g))) return st;
    if (!g->jf && (st = fleet_journal_open(g))) return st;
    g->last_cp = vkocc_now_ms();
  }
  return VKOCC_OK;
}

/* A device alone in its cluster has no references to show a drift: it times its own sentinel, as one device does,
 * and its points go into the cluster's document ($.measurement.sentinel). This rank's workers only (the slots
 * before the other ranks'): another rank's sentinel stays there. */
static void adopt_sentinels(fleet *f) {
  for (uint32_t s = 0; f->g && s < f->nw && s < f->nslots; s++) {
    if (f->slots[s].group >= f->ng) continue; /* refused before its group was made */
    group *g = &f->g[f->slots[s].group];
    const tu_run *wr = &f->w[s].run;
    if (g->norm || f->slots[s].rank != f->rank || !wr->nsentinel) continue;
    free(g->run.sentinel);
    g->run.sentinel = util_xmalloc(wr->nsentinel * sizeof *wr->sentinel);
    memcpy(g->run.sentinel, wr->sentinel, wr->nsentinel * sizeof *wr->sentinel);
    g->run.nsentinel = wr->nsentinel, g->run.sentinel_config = wr->sentinel_config, g->run.sentinel_ms = wr->sentinel_ms;
  }
}

static bool same_device_allowed(void) {
  const char *e = getenv("VKOCC_TEST_SAME_DEVICE");
  return e && !strcmp(e, "1");
}

static void report_of(fleet *f, vkocc_tune_fleet_report *out) {
  out->nclusters = f->ng;
  out->clusters = util_xcalloc(f->ng + 1, sizeof *out->clusters);
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    vkocc_tune_fleet_cluster *c = &out->clusters[gi];
    snprintf(c->cluster_id, sizeof c->cluster_id, "%s", g->cluster_id);
    snprintf(c->output, sizeof c->output, "%s", g->output);
    snprintf(c->stopped, sizeof c->stopped, "%s", g->stopped);
    c->devices = g->nslots, c->resumed = g->resumed, c->best_ns = INFINITY;
    for (uint32_t i = 0; i < g->run.space.count; i++)
      if (g->run.r[i].measured) c->measured++, c->valid += g->run.r[i].inv == TU_CORRECT;
    if (g->norm) fleet_normalization_line(f, gi, c->normalization, sizeof c->normalization);
    if (g->norm) fleet_clocks_line(f, gi, c->clocks, sizeof c->clocks, &c->drifted);
    else if ((c->has_sentinel = tu_sentinel_of(&g->run, &c->sentinel))) c->drifted = c->sentinel.drifted;
    int32_t who;
    int64_t b = fleet_best(f, gi, &c->best_ns, &who);
    if (b >= 0) {
      t1_config_key(&g->run.spec, g->run.space.coord + (size_t)b * g->run.spec.nparams, c->best_key, sizeof c->best_key);
    }
  }
}

static vkocc_status finish(fleet *f, vkocc_status st) {
  char msgbuf[1024];
  snprintf(msgbuf, sizeof msgbuf, "%s", st ? vkocc_last_error() : "");
  vkocc_status out = st;
  bool all_failed = f->ng > 0;
  for (uint32_t gi = 0; gi < f->ng; gi++) {
    group *g = &f->g[gi];
    all_failed &= g->stopped[0] && strcmp(g->stopped, "interrupted");
    /* a kernel that compiles for no configuration is bad input: nothing written */
    uint32_t measured = 0, compile = 0;
    const char *first = NULL;
    for (uint32_t i = 0; i < g->run.space.count; i++)
      if (g->run.r[i].measured) {
        measured++;
        if (g->run.r[i].inv == TU_COMPILE) { compile++; if (!first) first = g->run.r[i].error; }
      }
    if (!out && measured && compile == measured) {
      out = vkocc_fail(VKOCC_ERROR_USAGE, "%s: $.KernelSpecification.KernelFile: %s compiles for none of the %u configurations "
                       "tried; the first: %.400s", g->run.spec.file, g->run.spec.kernel_file, measured, first);
      snprintf(msgbuf, sizeof msgbuf, "%s", vkocc_last_error());
    }
    if (out == VKOCC_ERROR_USAGE) continue;
    vkocc_status w = fleet_checkpoint(f, g);
    if (!w && g->jf) fclose(g->jf), g->jf = NULL, remove(g->journal);
    if (w && !out) out = w, snprintf(msgbuf, sizeof msgbuf, "%s", vkocc_last_error());
  }
  if (!out && all_failed) {
    out = VKOCC_ERROR_RUNTIME;
    snprintf(msgbuf, sizeof msgbuf, "%s", f->g[0].stopped);
  }
  return out ? vkocc_fail(out, "%s", msgbuf) : VKOCC_OK;
}

/* This rank cannot take part (why): rank 0 hears every other rank and tells them; another rank tells rank 0. The
 * error message (why) is kept. */
static void fleet_refuse(fleet *f, vkocc_status st, const char *why) {
  char keep[1024];
  snprintf(keep, sizeof keep, "%s", why);
  if (f->rank != 0) fleet_refuse_to_coordinator(f, keep);
  else {
    char **hellos = util_xcalloc((size_t)f->nranks + 1, sizeof *hellos);
    size_t *lens = util_xcalloc((size_t)f->nranks + 1, sizeof *lens);
    fleet_admit(f, "", hellos, lens, keep);
    for (int r = 0; r <= f->nranks; r++) free(hellos[r]);
    free(hellos), free(lens);
  }
  vkocc_fail(st ? st : VKOCC_ERROR_USAGE, "%s", keep);
}

/* the slots: this rank's members, then every other rank's in rank order (hellos[r]: rank r's hello) */
static void fill_slots(fleet *f, uint32_t n, const tune_device_id *ids, const limits_t *lims, char **hellos) {
  f->nslots = n;
  for (int r = 1; r < f->nranks; r++) f->nslots += ((hello *)hellos[r])->n;
  f->slots = util_xcalloc(f->nslots, sizeof *f->slots);
  uint32_t s = 0;
  for (uint32_t i = 0; i < n; i++, s++) {
    f->slots[s].rank = 0, f->slots[s].dev = ids[i];
    memcpy(f->slots[s].limits, lims[i], sizeof lims[i]);
    fleet_host_name(f->slots[s].host, sizeof f->slots[s].host);
  }
  for (int r = 1; r < f->nranks; r++) {
    hello *h = (hello *)hellos[r];
    for (uint32_t i = 0; i < h->n; i++, s++) {
      f->slots[s].rank = r;
      memcpy(&f->slots[s].dev, hellos[r] + sizeof(hello) + i * sizeof(tune_device_id), sizeof(tune_device_id));
      memcpy(f->slots[s].limits, hellos[r] + sizeof(hello) + h->n * sizeof(tune_device_id) + i * sizeof(limits_t),
             sizeof(limits_t));
      snprintf(f->slots[s].host, sizeof f->slots[s].host, "%s", h->host);
    }
  }
}

/* two ranks on one GPU would time each other (each search its own measurements beside the other's): refused,
 * naming every rank on that GPU */
static vkocc_status one_rank_per_gpu(fleet *f) {
  vkocc_status st = VKOCC_OK;
  for (uint32_t a = 0; a < f->nslots && !st; a++) {
    char ranks[400] = "";
    size_t at = 0;
    uint32_t shared = 0;
    for (uint32_t b = 0; b < f->nslots; b++)
      if (b == a || (!memcmp(f->slots[a].dev.id.uuid, f->slots[b].dev.id.uuid, 16) &&
                     !strcmp(f->slots[a].dev.id.key, f->slots[b].dev.id.key) && !strcmp(f->slots[a].host, f->slots[b].host))) {
        bool named = false; /* a rank once (one rank's device named twice is that rank's refusal) */
        for (uint32_t k = 0; k < b && !named; k++)
          named = f->slots[k].rank == f->slots[b].rank && (k == a || (!memcmp(f->slots[a].dev.id.uuid, f->slots[k].dev.id.uuid, 16) &&
                  !strcmp(f->slots[a].dev.id.key, f->slots[k].dev.id.key) && !strcmp(f->slots[a].host, f->slots[k].host)));
        if (named) continue;
        shared++;
        if (at < sizeof ranks) at += (size_t)snprintf(ranks + at, sizeof ranks - at, "%s%d", at ? ", " : "", f->slots[b].rank);
      }
    char *last = strrchr(ranks, ',');
    if (last && (size_t)(last - ranks) + 5 < sizeof ranks) { /* "0, 1 and 2" */
      char tail[400];
      snprintf(tail, sizeof tail, " and%s", last + 1);
      snprintf(last, sizeof ranks - (size_t)(last - ranks), "%s", tail);
    }
    if (shared > 1 && !same_device_allowed())
      st = vkocc_fail(VKOCC_ERROR_USAGE, "ranks %s %s measure on %s of %s: two searches on one GPU would time each other; "
                      "start one rank per GPU of a host (srun --gpus-per-task=1, mpirun -n GPUS), or one rank per host "
                      "with --device all", ranks, shared == 2 ? "both" : "all", f->slots[a].dev.id.name, f->slots[a].host);
  }
  return st;
}

/* Rank 0: every rank admitted, the slots and groups made, this rank's workers started, the search coordinated and
 * its documents written */
static vkocc_status run_coordinator(fleet *f, const vkocc_tune_fleet_member *members, uint32_t n, const tune_device_id *ids,
                                    const limits_t *lims, const char *hash, vkocc_tune_fleet_report *out) {
  vkocc_status st = VKOCC_OK;
  char **hellos = util_xcalloc((size_t)f->nranks + 1, sizeof *hellos);
  size_t *lens = util_xcalloc((size_t)f->nranks + 1, sizeof *lens);
  if (f->mpi) st = fleet_admit(f, hash, hellos, lens, NULL);
  if (!st) {
    fill_slots(f, n, ids, lims, hellos);
    st = one_rank_per_gpu(f);
    if (!st) st = make_groups(f);
    if (st && f->mpi) { /* the others wait to be admitted: tell them why not */
      welcome wc = {.ok = 0};
      snprintf(wc.error, sizeof wc.error, "the coordinator stopped before measuring: %s", vkocc_last_error());
      for (int r = 1; r < f->nranks; r++) fleet_mpi_send(r, TAG_WELCOME, &wc, sizeof wc, f->silent_ms);
    }
    if (!st && f->mpi) st = fleet_welcome_ranks(f, hellos);
    for (uint32_t i = 0; i < n && !st; i++) {
      const group *g = &f->g[f->slots[i].group];
      st = fleet_make_worker(f, &f->w[i], &members[i], i, g->run.space.count, g->run.space.coord);
    }
    if (!st) st = fleet_start_workers(f);
    if (!st) st = fleet_coordinate(f);
    else if (f->ng) fleet_stop_workers(f);
    fleet_stop_workers(f);
    if (f->loop_end_ms > 0) f->joined_ms = vkocc_now_ms() - f->t0;
    adopt_sentinels(f);
    /* the goodbye says whether a rank was lost, so no rank waits for it in MPI_Finalize */
    const char lost = f->peer_lost ? 1 : 0;
    for (int r = 1; f->mpi && r < f->nranks; r++)
      if (!f->lost || !f->lost[r]) fleet_mpi_send(r, TAG_BYE, &lost, 1, f->silent_ms);
    if (f->ng && st != VKOCC_ERROR_USAGE) st = finish(f, st);
    if (out) {
      report_of(f, out);
      out->coordinator = true;
    }
  }
  for (int r = 0; r <= f->nranks; r++) free(hellos[r]);
  free(hellos), free(lens);
  return st;
}

vkocc_status vkocc_tune_fleet(const char *spec_path, const char *name, const vkocc_tune_fleet_member *members, uint32_t n,
                              bool resume, const vkocc_tune_options *o, vkocc_tune_fleet_report *out) {
  vkocc_clear_error();
  static const vkocc_tune_options none = {0};
  if (!o) o = &none;
  if (out) memset(out, 0, sizeof *out);
  if (!spec_path || !members || !n) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_fleet: no spec or no device");
  double t0 = vkocc_now_ms();
  fleet F = {.o = o, .spec_path = spec_path, .name = name, .resume = resume, .nranks = 1, .t0 = t0, .shared = tu_shared_new()};
  fleet *f = &F;
  const char *silent = getenv("VKOCC_FLEET_SILENT_S");
  f->silent_ms = 1e3 * (silent && strtod(silent, NULL) > 0 ? strtod(silent, NULL) : 30);
  pthread_mutex_init(&f->mu, NULL), pthread_cond_init(&f->out_cond, NULL);
  vkocc_status st = VKOCC_OK;
  bool mpi_inited = false;
  if (fleet_mpi_built() && vkocc_mpi_launched(NULL, NULL)) {
    if ((st = fleet_mpi_init(&f->rank, &f->nranks))) return st;
    f->mpi = f->nranks > 1, mpi_inited = true;
    f->heard = util_xcalloc((size_t)f->nranks + 1, sizeof *f->heard);
    f->lost = util_xcalloc((size_t)f->nranks + 1, sizeof *f->lost);
  }
  /* who this rank's members are; a device named twice would time two searches against each other */
  tune_device_id *ids = util_xcalloc(n, sizeof *ids);
  limits_t *lims = util_xcalloc(n, sizeof *lims);
  for (uint32_t i = 0; i < n && !st; i++) {
    json_t *det = members[i].details ? vkocc_fingerprint_details_json(members[i].details) : NULL;
    tune_device_id_fill(&ids[i], vkocc_context_device(members[i].ctx), det, members[i].fp);
    tu_device_limits(members[i].ctx, lims[i]);
    if (!members[i].fp) snprintf(ids[i].cluster_id, sizeof ids[i].cluster_id, "unknown");
    for (uint32_t k = 0; k < i && !st; k++)
      if (!memcmp(ids[k].id.uuid, ids[i].id.uuid, 16) && !strcmp(ids[k].id.key, ids[i].id.key) && !same_device_allowed())
        st = vkocc_fail(VKOCC_ERROR_USAGE, "--device: %s is named twice (two searches would time each other)",
                        ids[i].id.name);
  }
  tu_run probe;
  char hash[40] = "";
  if (!st && !(st = tu_prepare(spec_path, name, &probe))) {
    snprintf(hash, sizeof hash, "%s", probe.spec.hash);
    tu_run_free(&probe);
    if (!o->output && f->rank == 0) st = vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_tune_fleet: options->output is required");
  }
  /* under MPI a rank that cannot go on (its spec, its devices) says so in place of its hello: the coordinator then
   * stops every rank at once, naming it, instead of waiting for a hello that never comes */
  if (st && f->mpi) fleet_refuse(f, st, vkocc_last_error());
  if (!st) {
    f->nw = n;
    f->w = util_xcalloc(n, sizeof *f->w);
    if (f->rank != 0) {
      st = fleet_agent(f, members, ids, lims, hash);
    } else {
      st = run_coordinator(f, members, n, ids, lims, hash, out);
    }
  }
  if (out) out->ranks = (uint32_t)f->nranks, out->workers = f->nslots ? f->nslots : n, out->wall_ms = vkocc_now_ms() - t0;
  char keep[1024];
  snprintf(keep, sizeof keep, "%s", vkocc_last_error());
  fleet_stop_workers(f);
  bool lost = f->peer_lost;
  double silent_ms = f->silent_ms;
  fleet_free(f);
  tu_shared_free(F.shared);
  free(ids);
  free(lims);
  if (mpi_inited) fleet_mpi_finalize(lost, silent_ms, st ? 1 : 0, o->note, o->user);
  return st ? vkocc_fail(st, "%s", keep) : VKOCC_OK;
}

void vkocc_tune_fleet_report_free(vkocc_tune_fleet_report *r) {
  if (!r) return;
  free(r->clusters);
  memset(r, 0, sizeof *r);
}

void vkocc_tune_fleet_refuse(const char *why) {
  vkocc_clear_error();
  if (!fleet_mpi_built() || !vkocc_mpi_launched(NULL, NULL)) return;
  fleet F = {.nranks = 1};
  const char *silent = getenv("VKOCC_FLEET_SILENT_S");
  F.silent_ms = 1e3 * (silent && strtod(silent, NULL) > 0 ? strtod(silent, NULL) : 30);
  if (fleet_mpi_init(&F.rank, &F.nranks)) return;
  F.mpi = F.nranks > 1;
  if (F.mpi) fleet_refuse(&F, VKOCC_ERROR_USAGE, why && why[0] ? why : "(no reason given)");
  fleet_mpi_finalize(false, F.silent_ms, 2, NULL, NULL); /* no caller's options to note to */
}

bool vkocc_mpi_built(void) { return fleet_mpi_built(); }

bool vkocc_mpi_launched(int *rank, int *local_rank) {
  /* Open MPI's mpirun, MPICH/Hydra (PMI), Slurm's srun (PMIx or PMI2) */
  static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS", NULL};
  static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL};
  static const char *const locals[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", NULL};
  long size = 0;
  for (const char *const *e = sizes; *e && size <= 0; e++)
    if (getenv(*e)) size = strtol(getenv(*e), NULL, 10);
  /* srun without an MPI step still sets SLURM_NTASKS: it counts only with a rank variable beside it */
  long r = -1, l = -1;
  for (const char *const *e = ranks; *e && r < 0; e++)
    if (getenv(*e)) r = strtol(getenv(*e), NULL, 10);
  for (const char *const *e = locals; *e && l < 0; e++)
    if (getenv(*e)) l = strtol(getenv(*e), NULL, 10);
  if (rank) *rank = r > 0 ? (int)r : 0;
  if (local_rank) *local_rank = l > 0 ? (int)l : 0;
  return size > 1 && r >= 0;
}
