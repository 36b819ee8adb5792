/* Commands to the devices (tune/fleet/fleet_internal.h): a command to a worker of this rank or, over MPI, of
 * another; a measurement asked again (a reference, the final round); a device given up, its configurations back to
 * the search. */
#include "fleet_internal.h"

vkocc_status fleet_send_command(fleet *f, const cmd *c) {
  if (f->slots[c->worker].rank == f->rank) {
    /* this rank's workers come first, in order */
    fleet_worker_command(f, &f->w[c->worker], c);
    return VKOCC_OK;
  }
  return fleet_mpi_send(f->slots[c->worker].rank, TAG_CMD, c, sizeof *c, f->silent_ms);
}

vkocc_status fleet_send_cmd(fleet *f, uint32_t sl, int kind, uint32_t config, const char *reference) {
  cmd c = {.kind = kind, .worker = sl, .config = config};
  if (reference) snprintf(c.reference, sizeof c.reference, "%s", reference);
  return fleet_send_command(f, &c);
}

/* A device given up: its configurations in flight go back to the search (another device measures them); a cluster
 * without a device left stops its search. */
void fleet_slot_failed(fleet *f, uint32_t s, const char *why) {
  fleet_slot *sl = &f->slots[s];
  group *g = &f->g[sl->group];
  if (sl->dead) return;
  sl->dead = true;
  snprintf(sl->error, sizeof sl->error, "%s", why);
  for (uint32_t i = 0; i < sl->ninflight; i++) tune_search_requeue(g->ts, sl->inflight[i]); /* another device measures them */
  sl->ninflight = 0, sl->again_inflight = 0;
  bool alive = false;
  for (uint32_t k = 0; k < f->nslots; k++) alive |= f->slots[k].group == sl->group && !f->slots[k].dead;
  if (!alive && !g->finished) {
    snprintf(g->stopped, sizeof g->stopped, "every device of the cluster failed; the last: %s", why);
    tune_search_stop(g->ts);
  }
  tu_note_to(f->o->note, f->o->user, "vkocc tune: device %s (rank %d) left the search: %s", sl->dev.id.name, sl->rank, why);
}

/* configuration c measured again on device s (a reference, or the final round); it goes first on the worker */
void fleet_ask_again(fleet *f, uint32_t s, uint32_t c, int32_t purpose) {
  fleet_slot *sl = &f->slots[s];
  if (sl->dead || !sl->started) return;
  cmd x = {.kind = CMD_AGAIN, .purpose = purpose, .worker = s, .config = c};
  vkocc_status st = VKOCC_OK;
  if (sl->rank == f->rank) fleet_worker_command(f, &f->w[s], &x);
  else st = fleet_mpi_send(sl->rank, TAG_CMD, &x, sizeof x, f->silent_ms);
  if (st) {
    fleet_slot_failed(f, s, vkocc_last_error());
    return;
  }
  sl->again_inflight++;
  if (purpose == FOR_REFERENCE) sl->since_ref = 0;
}
