/* The MPI ranks' protocol (tune/fleet/fleet_internal.h) over the transport of fleet_mpi.c: a rank's hello and the
 * coordinator's welcome, the agent that runs a rank's workers for rank 0, the heartbeat that gives a silent rank up. */
#include "fleet_internal.h"
#include <stddef.h>
#include <unistd.h>

/* ---- MPI: what ranks other than 0 send and receive */

static vkocc_status send_msg(fleet *f, const msg *m) {
  size_t nt = m->kind == MSG_RESULT ? m->r.runs : 0, len = sizeof *m + nt * sizeof(double);
  char *buf = util_xmalloc(len);
  memcpy(buf, m, sizeof *m);
  if (nt) memcpy(buf + sizeof *m, m->r.times_ns, nt * sizeof(double));
  vkocc_status st = fleet_mpi_send(0, TAG_MSG, buf, len, f->silent_ms);
  free(buf);
  return st;
}

msg *fleet_recv_msg(const void *buf, size_t len) {
  if (len < sizeof(msg) || !fleet_bools_ok((const unsigned char *)buf + offsetof(msg, r))) return NULL;
  msg *m = util_xmalloc(sizeof *m);
  memcpy(m, buf, sizeof *m);
  m->next = NULL, m->r.times_ns = NULL;
  m->reference[sizeof m->reference - 1] = 0, m->error[sizeof m->error - 1] = 0;
  if (m->kind == MSG_RESULT && !fleet_result_sane(&m->r)) { free(m); return NULL; }
  size_t nt = m->kind == MSG_RESULT ? m->r.runs : 0;
  if (len != sizeof *m + nt * sizeof(double)) { free(m); return NULL; }
  m->r.times_ns = util_xmalloc((nt + 1) * sizeof(double));
  if (nt) memcpy(m->r.times_ns, (const char *)buf + sizeof *m, nt * sizeof(double));
  return m;
}

/* A rank other than 0: says who it is, waits to be admitted, then forwards. */
/* A rank other than 0 that cannot take part (its spec, its devices): the coordinator is told why, in place of
 * the hello it waits for, so that it stops every rank at once naming this one; this rank waits for its word
 * (bounded) so that all ranks end together. */
void fleet_refuse_to_coordinator(fleet *f, const char *why) {
  hello h;
  memset(&h, 0, sizeof h);
  snprintf(h.version, sizeof h.version, "%s", vkocc_version());
  h.layout = (uint32_t)sizeof(tu_result);
  fleet_host_name(h.host, sizeof h.host);
  snprintf(h.refused, sizeof h.refused, "%.690s", why[0] ? why : "(no reason given)");
  if (fleet_mpi_send(0, TAG_HELLO, &h, sizeof h, f->silent_ms)) return;
  void *buf = NULL;
  size_t len;
  int from, tag;
  for (double t0 = vkocc_now_ms(); vkocc_now_ms() - t0 < f->silent_ms; usleep(1000))
    if (fleet_mpi_poll(&from, &tag, &buf, &len)) {
      free(buf);
      if (tag == TAG_WELCOME) break;
    }
}

vkocc_status fleet_agent(fleet *f, const vkocc_tune_fleet_member *members, const tune_device_id *ids,
                          const limits_t *lims, const char *hash) {
  size_t hl = sizeof(hello) + f->nw * (sizeof(tune_device_id) + sizeof(limits_t));
  char *hb = util_xcalloc(1, hl);
  hello *h = (hello *)hb;
  snprintf(h->version, sizeof h->version, "%s", vkocc_version());
  snprintf(h->hash, sizeof h->hash, "%s", hash);
  h->layout = (uint32_t)sizeof(tu_result), h->n = f->nw;
  fleet_host_name(h->host, sizeof h->host);
  memcpy(hb + sizeof(hello), ids, f->nw * sizeof *ids);
  memcpy(hb + sizeof(hello) + f->nw * sizeof *ids, lims, f->nw * sizeof *lims);
  vkocc_status st = fleet_mpi_send(0, TAG_HELLO, hb, hl, f->silent_ms);
  free(hb);
  if (st) return st;
  void *buf = NULL;
  size_t len;
  int from, tag;
  for (double t0 = vkocc_now_ms(); !fleet_mpi_poll(&from, &tag, &buf, &len); usleep(1000))
    if (vkocc_now_ms() - t0 > f->silent_ms)
      return vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: no word from the coordinator (rank 0) for %.0f s", f->rank,
                        f->silent_ms / 1e3);
  if (tag != TAG_WELCOME || len < sizeof(welcome)) {
    free(buf);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: an unexpected first message from the coordinator", f->rank);
  }
  welcome wc;
  memcpy(&wc, buf, sizeof wc);
  if (!wc.ok) {
    free(buf);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s", wc.error);
  }
  const char *p = (const char *)buf + sizeof wc;
  for (uint32_t i = 0; i < f->nw && !st; i++) {
    uint32_t count, np;
    memcpy(&count, p, 4), memcpy(&np, p + 4, 4), p += 8;
    st = fleet_make_worker(f, &f->w[i], &members[i], wc.base + i, count, (const uint32_t *)p);
    p += (size_t)count * np * sizeof(uint32_t);
  }
  free(buf);
  if (!st) st = fleet_start_workers(f);
  if (st) return st;
  /* forward: commands to the workers, their messages to the coordinator, until it says goodbye */
  double heard = vkocc_now_ms(), beat = 0;
  for (bool bye = false; !bye;) {
    bool idle = true;
    if (f->o->stop && *f->o->stop) break; /* mpirun ends every rank when one is lost */
    double now = vkocc_now_ms();
    /* twice the limit and a beat: the coordinator may spend up to one limit on a send to a rank that died (every
     * send to a rank waits that long before it gives the rank up), beating no one meanwhile; at one limit, a rank
     * that died took the live ones with it (seen beside a loaded suite: rank 2 stopped while rank 0 waited on 1) */
    if (now - heard > 2 * f->silent_ms + BEAT_MS) {
      st = vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: the coordinator (rank 0) silent for %.0f s: stopped (the coordinator's "
                      "journal holds what was measured: --resume continues)", f->rank, (now - heard) / 1e3);
      break;
    }
    if (now - beat > BEAT_MS) {
      beat = now;
      if (fleet_mpi_send(0, TAG_BEAT, "", 0, f->silent_ms)) heard = -INFINITY; /* MPI says rank 0 is gone */
    }
    while (fleet_mpi_poll(&from, &tag, &buf, &len)) {
      idle = false;
      if (from == 0) heard = vkocc_now_ms();
      if (tag == TAG_BYE) bye = true, f->peer_lost |= len > 0 && ((const char *)buf)[0] == 1;
      else if (tag == TAG_CMD && len == sizeof(cmd)) {
        cmd c;
        memcpy(&c, buf, sizeof c);
        if (c.worker >= wc.base && c.worker - wc.base < f->nw) fleet_worker_command(f, &f->w[c.worker - wc.base], &c);
      }
      free(buf);
    }
    for (msg *m; (m = fleet_take(f, idle ? 2 : 0));) {
      vkocc_status sst = st ? VKOCC_OK : send_msg(f, m);
      if (sst) st = vkocc_fail(VKOCC_ERROR_RUNTIME, "rank %d: the coordinator (rank 0) is gone (%s): stopped (its journal holds "
                               "what was measured: --resume continues)", f->rank, vkocc_last_error());
      fleet_msg_free(m);
    }
    if (st) break;
  }
  if (st) f->peer_lost = true;
  fleet_stop_workers(f);
  return st;
}

/* Rank 0: every other rank's hello, checked against its own; the slots of all ranks. own: not NULL when the
 * coordinator itself cannot go on (why): every rank is still heard, then told so. */
vkocc_status fleet_admit(fleet *f, const char *hash, char **hellos, size_t *lens, const char *own) {
  char refuse[1100] = "";
  if (own) snprintf(refuse, sizeof refuse, "the coordinator (rank 0) stopped before measuring: %.900s", own);
  int got = 0;
  double t0 = vkocc_now_ms();
  bool said = false;
  while (got < f->nranks - 1) {
    void *buf;
    size_t len;
    int from, tag;
    if (!fleet_mpi_poll(&from, &tag, &buf, &len)) {
      if (!said && vkocc_now_ms() - t0 > 10e3) { /* a wait that speaks: each rank fingerprints and opens its devices first */
        said = true;
        tu_note_to(f->o->note, f->o->user, "vkocc tune: rank 0 waits for %d of %d other ranks to report (each fingerprints "
                   "and opens its devices first)", f->nranks - 1 - got, f->nranks - 1);
      }
      usleep(1000);
      continue;
    }
    if (tag != TAG_HELLO || from <= 0 || from >= f->nranks || hellos[from] || len < sizeof(hello)) { free(buf); continue; }
    hellos[from] = buf, lens[from] = len, got++;
    hello h;
    memcpy(&h, buf, sizeof h);
    h.host[sizeof h.host - 1] = 0, h.refused[sizeof h.refused - 1] = 0, h.version[sizeof h.version - 1] = 0;
    h.hash[sizeof h.hash - 1] = 0;
    if (refuse[0]) continue; /* the first reason is said (each rank prints its own as well) */
    if (h.refused[0]) snprintf(refuse, sizeof refuse, "rank %d (%s) cannot take part: %.700s", from, h.host, h.refused);
    else if (strcmp(h.version, vkocc_version()) || h.layout != sizeof(tu_result))
      snprintf(refuse, sizeof refuse, "rank %d (%s) runs vkocc %s (result layout %u bytes), the coordinator vkocc %s (%u "
               "bytes): every rank needs the same vkocc", from, h.host, h.version, h.layout, vkocc_version(),
               (unsigned)sizeof(tu_result));
    else if (strcmp(h.hash, hash))
      snprintf(refuse, sizeof refuse, "rank %d (%s) read a spec of hash %s, the coordinator %s (%s): every rank needs the "
               "same spec file", from, h.host, h.hash, hash, f->spec_path);
    else if (len != sizeof(hello) + h.n * (sizeof(tune_device_id) + sizeof(limits_t)))
      snprintf(refuse, sizeof refuse, "rank %d (%s): a malformed hello", from, h.host);
  }
  if (refuse[0]) {
    welcome wc = {.ok = 0};
    snprintf(wc.error, sizeof wc.error, "%.870s; nothing was measured", refuse);
    for (int r = 1; r < f->nranks; r++) fleet_mpi_send(r, TAG_WELCOME, &wc, sizeof wc, f->silent_ms);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s", wc.error);
  }
  return VKOCC_OK;
}

vkocc_status fleet_welcome_ranks(fleet *f, char **hellos) {
  uint32_t base = f->nw;
  for (int r = 1; r < f->nranks; r++) {
    hello h;
    memcpy(&h, hellos[r], sizeof h);
    size_t len = sizeof(welcome);
    for (uint32_t i = 0; i < h.n; i++) {
      const group *g = &f->g[f->slots[base + i].group];
      len += 8 + (size_t)g->run.space.count * g->run.spec.nparams * sizeof(uint32_t);
    }
    char *buf = util_xcalloc(1, len), *p = buf + sizeof(welcome);
    welcome wc = {.ok = 1, .base = base};
    memcpy(buf, &wc, sizeof wc);
    for (uint32_t i = 0; i < h.n; i++) {
      const group *g = &f->g[f->slots[base + i].group];
      uint32_t count = g->run.space.count, np = g->run.spec.nparams;
      memcpy(p, &count, 4), memcpy(p + 4, &np, 4), p += 8;
      memcpy(p, g->run.space.coord, (size_t)count * np * sizeof(uint32_t)), p += (size_t)count * np * sizeof(uint32_t);
    }
    vkocc_status st = fleet_mpi_send(r, TAG_WELCOME, buf, len, f->silent_ms);
    free(buf);
    if (st) return st;
    base += h.n;
  }
  return VKOCC_OK;
}

/* The coordinator's heartbeat to every rank, and ranks silent for too long given up: their devices leave the
 * search, their configurations in flight go back to it */
void fleet_watch_ranks(fleet *f) {
  double now = vkocc_now_ms();
  if (now - f->last_beat < BEAT_MS) return;
  f->last_beat = now;
  for (int r = 1; r < f->nranks; r++) {
    if (f->lost[r]) continue;
    bool silent = now - f->heard[r] > f->silent_ms;
    if (!silent && !fleet_mpi_send(r, TAG_BEAT, "", 0, f->silent_ms)) continue;
    f->lost[r] = f->peer_lost = true;
    char why[300];
    const char *host = "?";
    for (uint32_t s = 0; s < f->nslots; s++)
      if (f->slots[s].rank == r) host = f->slots[s].host;
    if (silent) snprintf(why, sizeof why, "rank %d (%s) silent for %.0f s: lost", r, host, (now - f->heard[r]) / 1e3);
    else snprintf(why, sizeof why, "rank %d (%s) lost: %.200s", r, host, vkocc_last_error());
    for (uint32_t s = 0; s < f->nslots; s++)
      if (f->slots[s].rank == r) fleet_slot_failed(f, s, why);
  }
}

void fleet_host_name(char *out, size_t len) {
  if (gethostname(out, len)) snprintf(out, len, "?");
  out[len - 1] = 0;
}
