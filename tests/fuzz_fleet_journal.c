/* Fuzz target for the journal a fleet's coordinator keeps beside its results document (tune/fleet/journal.c), read
 * back by --resume: the input is what follows the header (this build's header is put before it, so every
 * input reaches the records). Invariants: nothing crashes; every result taken is measured, of a known validity,
 * its strings terminated, a valid one with runs and a positive median; each names a device entry that exists,
 * and the entries' counts add up to what was taken. A valid record built here is taken, so the accepting path
 * is always reached whatever the corpus. */
#include "fuzz_util.h"
#include "../tune/fleet/fleet.h"
#include <math.h>

static tu_run run;
static bool ready;

/* the journal is opened through the file door, which takes only a regular file (not fuzz_file's /proc/self/fd link) */
static char journal_path[64];
static void remove_journal_file(void) { if (journal_path[0]) unlink(journal_path); }
static const char *journal_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  char *path = journal_path;
  if (fd < 0) {
    snprintf(journal_path, sizeof journal_path, "/tmp/vkocc-fuzz-journal-XXXXXX");
    if ((fd = mkstemp(journal_path)) < 0) { perror("mkstemp"); abort(); }
    atexit(remove_journal_file);
  }
  if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) { perror("journal_file"); abort(); }
  return path;
}

static void reset(void) {
  for (uint32_t c = 0; c < run.space.count; c++) {
    free(run.r[c].times_ns);
    memset(&run.r[c], 0, sizeof run.r[c]);
    run.r[c].P = -1;
  }
  run.resumed = 0;
}

static void check(const uint8_t *data, size_t size) {
  uint8_t *buf = malloc(FLEET_JOURNAL_HEADER + size + 1);
  fleet_journal_header(&run, buf);
  if (size) memcpy(buf + FLEET_JOURNAL_HEADER, data, size);
  const char *path = journal_file(buf, FLEET_JOURNAL_HEADER + size);
  free(buf);
  reset();
  json_t *devices = json_array(), *attrib = json_object();
  uint32_t applied = 0;
  vkocc_status st = fleet_journal_read(path, &run, devices, attrib, &applied, NULL);
  if (st) FUZZ_CHECK(st == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), path)); /* a refusal names the journal */
  uint32_t measured = 0;
  for (uint32_t c = 0; c < run.space.count; c++) {
    const tu_result *r = &run.r[c];
    if (!r->measured) continue;
    measured++;
    FUZZ_CHECK((unsigned)r->inv <= TU_CONSTRAINTS);
    FUZZ_CHECK(memchr(r->error, 0, sizeof r->error) && memchr(r->when, 0, sizeof r->when));
    if (r->inv == TU_CORRECT) FUZZ_CHECK(r->runs && r->median_ns > 0 && isfinite(r->median_ns));
    FUZZ_CHECK(r->times_ns != NULL);
  }
  FUZZ_CHECK(measured == applied && run.resumed == applied);
  json_int_t counted = 0;
  size_t i;
  json_t *d;
  json_array_foreach(devices, i, d) {
    FUZZ_CHECK(json_is_string(json_object_get(d, "key")));
    counted += json_integer_value(json_object_get(d, "measured"));
  }
  FUZZ_CHECK(counted == (json_int_t)applied);
  const char *k;
  json_object_foreach(attrib, k, d) FUZZ_CHECK(json_integer_value(d) >= 0 && (size_t)json_integer_value(d) < json_array_size(devices));
  if (applied) fuzz_accepted++;
  json_decref(devices), json_decref(attrib);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ready) {
    ready = true;
    if (tu_prepare(FUZZ_DATA_DIR "/tune/scale_wrong.json", NULL, &run)) {
      fprintf(stderr, "%s\n", vkocc_last_error());
      abort();
    }
    /* a valid record of this build: configuration 3, correct, 3 runs */
    tu_result *r = &run.r[3];
    r->measured = true, r->inv = TU_CORRECT, r->runs = 3, r->median_ns = 1000;
    r->times_ns = malloc(3 * sizeof *r->times_ns);
    r->times_ns[0] = 990, r->times_ns[1] = 1000, r->times_ns[2] = 1010;
    char *rec = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&rec, &len);
    fleet_journal_record(f, &run, 3, "10de:2330 test device", "00112233-4455-6677-8899-aabbccddeeff", 0, "host");
    fclose(f);
    check((const uint8_t *)rec, len);
    FUZZ_CHECK(run.r[3].measured && run.r[3].runs == 3 && run.resumed == 1);
    free(rec);
  }
  check(data, size);
  return 0;
}
