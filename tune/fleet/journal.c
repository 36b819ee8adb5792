/* The journal beside a results document (tune/fleet/fleet.h): each result appended as it arrives, read back by
 * --resume after the document's own results. */
#include "fleet_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

/* The journal: each result as it arrives (the configuration's key, the device's key, the result's bytes and its
 * times), so a run killed between two checkpoints loses only what was in flight. A checkpoint empties it. Its
 * header pins the layout, the vkocc version and the spec; a journal that does not match is set aside. */
typedef struct jhead { char magic[8]; uint32_t layout; char version[32]; char hash[40]; } jhead;
_Static_assert(sizeof(jhead) == FLEET_JOURNAL_HEADER, "the journal's header");
static void journal_header(const tu_run *run, jhead *h);
static bool result_shape(tu_result *r);
void fleet_journal_header(const tu_run *run, void *out) { journal_header(run, out); }

static void journal_header(const tu_run *run, jhead *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, "vkoccFJ1", 8);
  h->layout = (uint32_t)sizeof(tu_result);
  snprintf(h->version, sizeof h->version, "%s", vkocc_version());
  snprintf(h->hash, sizeof h->hash, "%s", run->spec.hash);
}

/* through the door for the files vkocc makes itself: a link (to a file or to nothing), a FIFO or a device put at
 * OUTPUT.journal is refused naming it, never followed, written or waited on */
vkocc_status fleet_journal_open(group *g) {
  int fd;
  vkocc_status st = util_door_open(g->journal, O_WRONLY | O_CREAT | O_TRUNC, 0644, &fd);
  if (st) return st;
  g->jf = fdopen(fd, "wb");
  if (!g->jf) {
    int e = errno;
    close(fd);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot write the journal: %s", g->journal, strerror(e));
  }
  jhead h;
  journal_header(&g->run, &h);
  fwrite(&h, sizeof h, 1, g->jf);
  fflush(g->jf);
  return VKOCC_OK;
}

void fleet_journal_record(FILE *f, const tu_run *run, uint32_t c, const char *device_key, const char *uuid, int32_t rank,
                          const char *host) {
  char key[1024], h[64] = "", u[40] = "";
  snprintf(u, sizeof u, "%s", uuid);
  t1_config_key(&run->spec, run->space.coord + (size_t)c * run->spec.nparams, key, sizeof key);
  snprintf(h, sizeof h, "%s", host);
  const tu_result *r = &run->r[c];
  uint32_t kl = (uint32_t)strlen(key), dl = (uint32_t)strlen(device_key);
  fwrite(&kl, 4, 1, f), fwrite(key, 1, kl, f);
  fwrite(&dl, 4, 1, f), fwrite(device_key, 1, dl, f);
  fwrite(u, 1, sizeof u, f), fwrite(&rank, 4, 1, f), fwrite(h, 1, sizeof h, f);
  fwrite(r, sizeof *r, 1, f);
  if (r->runs) fwrite(r->times_ns, sizeof *r->times_ns, r->runs, f);
  fflush(f);
}

static void journal_append(group *g, uint32_t c, const fleet_slot *sl) {
  char uuid[37];
  vkocc_format_uuid(sl->dev.id.uuid, uuid);
  if (g->jf) fleet_journal_record(g->jf, &g->run, c, sl->dev.id.key, uuid, sl->rank, sl->host);
}

void fleet_journal_restart(const fleet *f, group *g) {
  if (g->jf) fclose(g->jf), g->jf = NULL;
  if (fleet_journal_open(g)) /* something put in its place since the start: the document holds what was measured */
    tu_note_to(f->o->note, f->o->user, "vkocc tune: note: no journal from now on: %s", vkocc_last_error());
}

void fleet_record(fleet *f, group *g, uint32_t sl, uint32_t c, tu_result *r) {
  tu_run *run = &g->run;
  free(run->r[c].times_ns);
  run->r[c] = *r;
  r->times_ns = NULL;
  run->order = util_xrealloc(run->order, ((size_t)run->nevals + 1) * sizeof *run->order);
  run->order[run->nevals++] = c;
  g->who[c] = (int32_t)sl;
  f->slots[sl].measured++;
  f->slots[sl].last_ms = vkocc_now_ms() - f->t0;
  if (f->slots[sl].measured == 1) f->slots[sl].first_ms = f->slots[sl].last_ms;
  run->measure_ms += r->measure_ms, run->pipelines_ms += r->pipeline_ms, run->compile_ms += r->compile_ms;
  run->occupancy_ms += r->occupancy_ms;
  run->device_ms += r->device_ms; /* the configurations' device time: each worker's setup stays its own */
  journal_append(g, c, &f->slots[sl]);
}

/* ---- resume: the document, then the journal's results it does not hold yet */

static json_t *key_index(const tu_run *run) {
  json_t *index = json_object();
  for (uint32_t c = 0; c < run->space.count; c++) {
    char key[1024];
    t1_config_key(&run->spec, run->space.coord + (size_t)c * run->spec.nparams, key, sizeof key);
    json_object_set_new(index, key, json_integer(c));
  }
  return index;
}

vkocc_status fleet_resume_group(const fleet *f, group *g) {
  vkocc_status st;
  g->prev_devices = json_array(), g->attrib = json_object();
  if (access(g->output, F_OK) == 0) {
    if ((st = tu_results_resume(g->output, &g->run, g->dev.id.key))) return st;
    json_t *doc;
    if ((st = io_doc_load(g->output, VKOCC_DOC_TUNE_RESULTS, &doc))) return st;
    json_t *devs = json_object_get(doc, "devices");
    if (json_is_array(devs)) json_array_extend(g->prev_devices, devs);
    else json_array_append(g->prev_devices, json_object_get(doc, "device")); /* one device measured it all */
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(doc, "results"), i, e) {
      char *k = json_dumps(json_object_get(e, "config"), JSON_COMPACT | JSON_SORT_KEYS);
      json_t *d = json_object_get(e, "device");
      if (k) json_object_set_new(g->attrib, k, json_integer(json_is_integer(d) ? json_integer_value(d) : 0));
      free(k);
    }
    json_decref(doc);
  }
  g->resumed = g->run.resumed;
  uint32_t applied = 0;
  bool set_aside = false;
  st = fleet_journal_read(g->journal, &g->run, g->prev_devices, g->attrib, &applied, &set_aside);
  if (set_aside)
    tu_note_to(f->o->note, f->o->user, "vkocc tune: note: %s is the journal of another spec or vkocc build; set aside",
               g->journal);
  g->resumed += applied;
  return st;
}

/* a bool holding another byte is undefined behaviour once loaded: tu_result's bools checked as bytes first */
bool fleet_bools_ok(const unsigned char *b) {
  return b[offsetof(tu_result, measured)] <= 1 && b[offsetof(tu_result, P_model)] <= 1;
}
bool fleet_result_from_bytes(const void *bytes, tu_result *r) {
  if (!fleet_bools_ok(bytes)) return false;
  memcpy(r, bytes, sizeof *r);
  return result_shape(r); /* its numbers: tu_record_check, where the journal is read */
}

bool fleet_result_sane(tu_result *r) {
  /* a valid result is ranked by its median: it needs runs and a positive, finite one */
  return result_shape(r) && (r->inv != TU_CORRECT || (r->runs && r->median_ns > 0 && isfinite(r->median_ns)));
}

static bool result_shape(tu_result *r) {
  r->error[sizeof r->error - 1] = 0, r->when[sizeof r->when - 1] = 0;
  r->times_ns = NULL;
  /* the clock evidence goes into the document as numbers: nothing a corrupt journal makes non-finite */
  if (!isfinite(r->clock_min) || !isfinite(r->clock_max) || !isfinite(r->clock_steady))
    r->clock_min = r->clock_max = r->clock_steady = 0;
  if (!isfinite(r->device_ms) || !isfinite(r->wait_ms)) r->device_ms = r->wait_ms = 0;
  /* P from another configuration: a known kind, and an index the reader bounds (or none) */
  if (r->P_memo > TU_P_SAME_RESOURCES) r->P_memo = TU_P_OWN;
  if (r->P_from < -1) r->P_from = -1;
  return r->measured && (unsigned)r->inv <= TU_CONSTRAINTS && r->runs <= 1000000;
}

vkocc_status fleet_journal_read(const char *path, tu_run *run, json_t *devices, json_t *attrib, uint32_t *applied,
                                bool *set_aside) {
  *applied = 0;
  int fd;
  vkocc_status ost = util_door_open(path, O_RDONLY, 0, &fd);
  if (ost && errno == ENOENT) { vkocc_clear_error(); return VKOCC_OK; } /* no journal: the run before ended normally */
  if (ost) return ost; /* a link, a FIFO, a device: named, never followed or waited on */
  FILE *jf = fdopen(fd, "rb");
  if (!jf) {
    close(fd);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot read %s: %s", path, strerror(errno));
  }
  jhead h, want;
  journal_header(run, &want);
  if (fread(&h, sizeof h, 1, jf) != 1 || memcmp(&h, &want, sizeof h)) {
    fclose(jf);
    if (set_aside) *set_aside = true;
    return VKOCC_OK;
  }
  json_t *index = key_index(run);
  /* each configuration at most once in a journal (the coordinator records a configuration once per run) */
  int64_t *first = util_xmalloc(((size_t)run->space.count + 1) * sizeof *first);
  for (uint32_t c = 0; c <= run->space.count; c++) first[c] = -1;
  vkocc_status st = VKOCC_OK;
  /* A record cut short is the end (a kill while it was written); a whole record that is not one vkocc writes is
   * refused, never resumed: its numbers would be ranked */
  for (uint32_t rec = 1;; rec++) {
    uint32_t kl, dl;
    char key[1024], dkey[700];
    tu_result r;
    if (fread(&kl, 4, 1, jf) != 1) break;
    if (kl >= sizeof key) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u: a key of %u bytes: not a journal vkocc writes "
                                            "(remove it to resume from the document alone)", path, rec, kl); break; }
    if (fread(key, 1, kl, jf) != kl || fread(&dl, 4, 1, jf) != 1) break;
    key[kl] = 0;
    if (dl >= sizeof dkey) { st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u (%s): a device key of %u bytes: not a journal "
                                             "vkocc writes (remove it to resume from the document alone)", path, rec, key, dl); break; }
    if (fread(dkey, 1, dl, jf) != dl) break;
    int32_t rank;
    char host[64], uuid[40];
    if (fread(uuid, 1, sizeof uuid, jf) != sizeof uuid || fread(&rank, 4, 1, jf) != 1 || fread(host, 1, sizeof host, jf) != sizeof host)
      break;
    dkey[dl] = 0, host[sizeof host - 1] = 0, uuid[sizeof uuid - 1] = 0;
    unsigned char raw[sizeof r];
    if (fread(raw, sizeof raw, 1, jf) != 1) break;
    if (!fleet_result_from_bytes(raw, &r)) {
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u (%s): not a result vkocc writes (a flag, an invalidity or a count of "
                      "runs out of range): refused (remove the journal to resume from the document alone)", path, rec, key);
      break;
    }
    r.times_ns = util_xmalloc(((size_t)r.runs + 1) * sizeof *r.times_ns);
    if (r.runs && fread(r.times_ns, sizeof *r.times_ns, r.runs, jf) != r.runs) { free(r.times_ns); break; }
    json_t *ci = json_object_get(index, key);
    int64_t c = ci ? json_integer_value(ci) : -1;
    /* the one check of a recorded result (tune/results/user_results.h), as --resume from a document and --replay do */
    tu_record rv = {.config = c, .empty = !strcmp(key, "{}"), .valid = r.inv == TU_CORRECT, .times = r.times_ns,
                    .ntimes = r.runs, .time = r.median_ns, .time_is_median = true, .times_name = "its times",
                    .time_name = "median_ns"};
    char why[300];
    bool ok = tu_record_check(&rv, first, rec, "record %lld", why, sizeof why);
    if (ok && rv.valid && !r.runs) ok = false, snprintf(why, sizeof why, "a valid result without runs");
    if (!ok) {
      free(r.times_ns);
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: record %u (%s): %s: refused, nothing resumed (remove the journal to resume "
                      "from the document alone)", path, rec, key, why);
      break;
    }
    /* the device: one the resumed document names, else a new entry (a name that is no text: the record is not) */
    int32_t d = -1;
    for (size_t k = 0; k < json_array_size(devices) && d < 0; k++) {
      json_t *p = json_array_get(devices, k);
      if (fleet_same_device_entry(p, dkey, uuid, rank, host)) d = (int32_t)k;
    }
    json_t *entry = d < 0 ? json_pack("{s:s, s:s, s:i, s:s, s:i}", "key", dkey, "uuid", uuid, "rank", rank, "host", host,
                                      "measured", 0) : NULL;
    if (run->r[c].measured || (d < 0 && !entry)) { /* the document holds it already (a kill after a checkpoint) */
      json_decref(entry);
      free(r.times_ns);
      continue;
    }
    if (d < 0) d = (int32_t)json_array_size(devices), json_array_append_new(devices, entry);
    free(run->r[c].times_ns);
    r.P_from = -1; /* an index into the space of the run that wrote it (another --only, another order) */
    run->r[c] = r;
    json_t *p = json_array_get(devices, (size_t)d);
    json_object_set_new(p, "measured", json_integer(json_integer_value(json_object_get(p, "measured")) + 1));
    json_object_set_new(attrib, key, json_integer(d));
    run->resumed++, (*applied)++;
  }
  free(first);
  json_decref(index);
  fclose(jf);
  return st;
}

/* after --only: each resumed configuration's device, by its key */
void fleet_attribute_resumed(group *g) {
  for (uint32_t c = 0; c < g->run.space.count; c++) {
    g->prev_who[c] = -1;
    if (!g->attrib || !g->run.r[c].measured) continue;
    char key[1024];
    t1_config_key(&g->run.spec, g->run.space.coord + (size_t)c * g->run.spec.nparams, key, sizeof key);
    json_t *d = json_object_get(g->attrib, key);
    if (d) g->prev_who[c] = (int32_t)json_integer_value(d);
  }
}

/* a device entry of a document: the same device (key and UUID: two GPUs of one model share the key), rank and host */
bool fleet_same_device_entry(json_t *p, const char *key, const char *uuid, int64_t rank, const char *host) {
  const char *pk = json_string_value(json_object_get(p, "key")), *pu = json_string_value(json_object_get(p, "uuid"));
  const char *ph = json_string_value(json_object_get(p, "host"));
  return pk && pu && ph && !strcmp(pk, key) && !strcmp(pu, uuid) && !strcmp(ph, host) &&
         json_integer_value(json_object_get(p, "rank")) == rank;
}
