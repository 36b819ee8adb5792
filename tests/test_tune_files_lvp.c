/* The files tune makes beside its output, and the records it takes back, on lavapipe.
 * 1. OUTPUT.lock and OUTPUT.journal: a symbolic link to a file, a symbolic link to nothing, a FIFO and a directory
 *    planted at each, with `tune --device all` and with `--resume`: exit 2 naming the path and what is there, the
 *    link's target untouched (a link to nothing still names nothing), within seconds (a FIFO journal blocked
 *    forever, a link's target was truncated).
 * 2. The one check of a recorded result (tu_record_check) through its three readers: forged journal records (a
 *    median that is not the median of its times, a negative time, a configuration twice, one outside the space)
 *    are refused with exit 2 naming the journal and the record, never resumed as the best, while an honest record
 *    is resumed; T4 replays with a configuration listed twice, an empty configuration, a negative runtime or a
 *    correct record without a positive time are refused with exit 2 naming the file and the entry.
 * 3. `tune --db STORE` on one device, as a user runs it: the results file written and its results added to the store
 *    once; a second tune of the same kernel into the same store (other measurements of the same configurations) keeps
 *    its results file and says how to add it, the store unchanged; a store that is a symbolic link is refused before
 *    anything is measured.
 * argv: vkocc, the source tree. */
#include "check.h"
#include "run.h"
#include "../tune/fleet/fleet.h"
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/vkocc-tunefiles-XXXXXX";
static const char *bin, *src;
static char common[1024];

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *slurp(const char *name) {
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "rb");
  if (!f) return NULL;
  char *b = calloc(1, 4096);
  size_t n = fread(b, 1, 4095, f);
  b[n] = 0;
  fclose(f);
  return b;
}

static bool exists(const char *name) {
  char p[1200];
  struct stat st;
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return lstat(p, &st) == 0;
}

static void test_planted(void) {
  static const char *const at[] = {"lock", "journal"};
  static const struct { const char *name, *plant, *says; } kinds[] = {
      {"link to a file", "ln -s victim out.json.%s", "a symbolic link, not a regular file"},
      {"link to nothing", "ln -s nothing out.json.%s", "a symbolic link to nothing, not a regular file"},
      {"FIFO", "mkfifo out.json.%s", "a FIFO, not a regular file"},
      {"directory", "mkdir out.json.%s", "a directory, not a regular file"},
  };
  printf("%-16s | %-8s | %-10s | exit | seconds\n", "planted", "at", "mode");
  for (size_t a = 0; a < 2; a++)
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
      for (int resume = 0; resume < 2; resume++) {
        char plant[200], *out;
        snprintf(plant, sizeof plant, kinds[k].plant, at[a]);
        run_fmt(&out, "cd %s && rm -rf out.json out.json.lock out.json.journal nothing && printf victim > victim && %s", dir,
                plant);
        free(out);
        double t0 = now_s();
        int rc = run_fmt(&out, "cd %s && timeout -s KILL 60 %s tune s.json -o out.json --device all %s%s 2>&1", dir, bin, common,
                         resume ? " --resume" : "");
        double wall = now_s() - t0;
        printf("%-16s | %-8s | %-10s | %4d | %.1f\n", kinds[k].name, at[a], resume ? "--resume" : "--device all", rc, wall);
        char want[200];
        snprintf(want, sizeof want, "out.json.%s: %s", at[a], kinds[k].says);
        CHECK(rc == 2, "%s at out.json.%s%s: exit %d:\n%s", kinds[k].name, at[a], resume ? " (--resume)" : "", rc, out);
        CHECK_CONTAINS(out, want);
        CHECK(wall < 30, "%s at out.json.%s: %.1f s", kinds[k].name, at[a], wall);
        free(out);
        char *v = slurp("victim");
        CHECK(v && !strcmp(v, "victim"), "the link's target was written: '%s'", v ? v : "(gone)");
        free(v);
        CHECK(!exists("nothing"), "the dangling link's target was created");
        CHECK(!exists("out.json"), "out.json written though refused");
      }
}

/* A journal of this build for s.json: the header, then each record as the coordinator writes it. */
typedef struct { uint32_t c; bool valid; double median; double times[3]; } forged;
static void write_journal(tu_run *run, const char *name, const forged *f, uint32_t n) {
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *j = fopen(p, "wb");
  unsigned char head[FLEET_JOURNAL_HEADER];
  fleet_journal_header(run, head);
  fwrite(head, sizeof head, 1, j);
  for (uint32_t i = 0; i < n; i++) {
    tu_result *r = &run->r[f[i].c];
    free(r->times_ns);
    memset(r, 0, sizeof *r);
    r->measured = true, r->inv = f[i].valid ? TU_CORRECT : TU_CORRECTNESS, r->P = -1, r->P_from = -1;
    r->runs = 3, r->median_ns = f[i].median;
    r->times_ns = malloc(3 * sizeof *r->times_ns);
    memcpy(r->times_ns, f[i].times, sizeof f[i].times);
    fleet_journal_record(j, run, f[i].c, "10de:2330 forged device", "00112233-4455-6677-8899-aabbccddeeff", 0, "host");
  }
  fclose(j);
}

static void test_forged_journal(void) {
  char spec[1200];
  snprintf(spec, sizeof spec, "%s/s.json", dir);
  tu_run run;
  if (tu_prepare(spec, NULL, &run)) {
    CHECK(false, "tu_prepare: %s", vkocc_last_error());
    return;
  }
  static const struct { const char *what; forged rec[2]; uint32_t n; const char *says; } cases[] = {
      {"a median that is not its times'", {{3, true, 1, {5000, 5000, 5000}}}, 1,
       "record 1 ({\"ITEMS\":8,\"WG\":32}): median_ns is not the median of its times"},
      {"a negative time", {{3, true, 5000, {-5, 5000, 5000}}}, 1, "record 1 ({\"ITEMS\":8,\"WG\":32}): its times holds a time that "
       "is not a positive number"},
      {"a valid result of time 0", {{3, true, 0, {0, 0, 0}}}, 1, "not a positive number"},
      {"a configuration twice", {{1, true, 5000, {4990, 5000, 5010}}, {1, true, 1, {1, 1, 1}}}, 2,
       "record 2 ({\"ITEMS\":2,\"WG\":32}): this configuration appears twice (first at record 1)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *out;
    run_fmt(&out, "cd %s && rm -f f.json f.json.journal f.json.lock", dir);
    free(out);
    write_journal(&run, "f.json.journal", cases[k].rec, cases[k].n);
    /* VKOCC_TEST_CORPUS_OUT=DIR: the records (after the header) for the journal's fuzz corpus */
    const char *corpus = getenv("VKOCC_TEST_CORPUS_OUT");
    if (corpus) {
      run_fmt(&out, "tail -c +%d %s/f.json.journal > %s/forged-%zu", FLEET_JOURNAL_HEADER + 1, dir, corpus, k);
      free(out);
    }
    int rc = run_fmt(&out, "cd %s && timeout -s KILL 60 %s tune s.json -o f.json --device all --resume %s 2>&1", dir, bin, common);
    CHECK(rc == 2, "%s: exit %d:\n%s", cases[k].what, rc, out);
    CHECK_CONTAINS(out, "f.json.journal: ");
    CHECK_CONTAINS(out, cases[k].says);
    CHECK(!exists("f.json"), "%s: a document written from a refused journal", cases[k].what);
    free(out);
  }
  /* an honest record is resumed and the run completes the space around it */
  char *out;
  run_fmt(&out, "cd %s && rm -f f.json f.json.journal f.json.lock", dir);
  free(out);
  forged good = {1, true, 5000, {4990, 5000, 5010}};
  write_journal(&run, "f.json.journal", &good, 1);
  int rc = run_fmt(&out, "cd %s && timeout -s KILL 120 %s tune s.json -o f.json --device all --resume %s 2>&1", dir, bin, common);
  CHECK(rc == 0, "an honest journal: exit %d:\n%s", rc, out);
  CHECK_CONTAINS(out, "12 measured (1 resumed)");
  free(out);
  char *doc = slurp("f.json");
  CHECK(doc != NULL, "no document after resuming an honest journal");
  free(doc);
  tu_run_free(&run);
}

static void write_text(const char *name, const char *text) {
  char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  fputs(text, f);
  fclose(f);
}

static void test_forged_t4(void) {
#define REC(cfg, inv, t) "{\"configuration\": " cfg ", \"invalidity\": \"" inv "\", \"times\": {\"runtimes\": " t "}, " \
                         "\"measurements\": [{\"name\": \"time\", \"value\": 1.5, \"unit\": \"ms\"}]}"
  static const struct { const char *name, *text, *says; int rc; } cases[] = {
      {"twice.json", "{\"results\": [" REC("{\"x\": 1}", "correct", "[1, 2]") ", " REC("{\"x\": 2}", "correct", "[1, 2]") ", "
       REC("{\"x\": 1}", "correct", "[1, 2]") "]}", "twice.json: $.results[2].configuration: this configuration appears twice "
       "(first at $.results[0])", 2},
      {"empty.json", "{\"results\": [" REC("{\"x\": 1}", "correct", "[1, 2]") ", " REC("{}", "correct", "[1, 2]") "]}",
       "empty.json: $.results[1].configuration: an empty configuration", 2},
      {"negative.json", "{\"results\": [" REC("{\"x\": 1}", "correct", "[1, -2]") ", " REC("{\"x\": 2}", "correct", "[1, 2]") "]}",
       "negative.json: $.results[0].configuration: times.runtimes holds a time that is not a positive number", 2},
      {"zero.json", "{\"results\": [" REC("{\"x\": 1}", "correct", "[1, 2]") ", {\"configuration\": {\"x\": 2}, \"invalidity\": "
       "\"correct\", \"measurements\": [{\"name\": \"time\", \"value\": 0, \"unit\": \"ms\"}]}]}",
       "zero.json: $.results[1].configuration: a valid result needs a positive time measurement", 2},
      {"good.json", "{\"results\": [" REC("{\"x\": 1}", "correct", "[1, 2]") ", " REC("{\"x\": 2}", "compile", "[]") ", "
       REC("{\"x\": 3}", "correct", "[1, 2]") "]}", "3 configurations", 0},
  };
#undef REC
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    write_text(cases[k].name, cases[k].text);
    char *out;
    int rc = run_fmt(&out, "cd %s && %s tune --replay %s --strategy random --seeds 2 2>&1", dir, bin, cases[k].name);
    CHECK(rc == cases[k].rc, "%s: exit %d, not %d:\n%s", cases[k].name, rc, cases[k].rc, out);
    CHECK_CONTAINS(out, cases[k].says);
    free(out);
  }
}

static void test_db_one_device(void) {
  char *out;
  int rc = run_fmt(&out, "cd %s && %s tune s.json -o d1.json --db d.sqlite %s 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "store:    d.sqlite (12 results added, 0 there already)");
  free(out);
  rc = run_fmt(&out, "%s policy check --db %s/d.sqlite 2>&1", bin, dir);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "integrity: ok");
  CHECK_CONTAINS(out, "\nresults: 12\n");
  CHECK_CONTAINS(out, "\nruns: 1\n");
  free(out);
  /* tuned again: its own measurements of the same configurations on the same device */
  rc = run_fmt(&out, "cd %s && %s tune s.json -o d2.json --db d.sqlite %s 2>&1", dir, bin, common);
  CHECK(rc == 2, "a second tune into the store: exit %d, expected 2:\n%s", rc, out);
  CHECK_CONTAINS(out, "in the store already with another measurement");
  CHECK_CONTAINS(out, "vkocc tune: the results are in d2.json: vkocc policy add --db d.sqlite adds them");
  CHECK(exists("d2.json"), "the second tune's results file is kept");
  free(out);
  rc = run_fmt(&out, "%s policy check --db %s/d.sqlite 2>&1", bin, dir);
  CHECK_CONTAINS(out, "\nresults: 12\n");
  free(out);
  /* a store that is a link: refused before the search, nothing measured or written */
  double t0 = now_s();
  rc = run_fmt(&out, "cd %s && ln -sf d.sqlite link.sqlite && %s tune s.json -o d3.json --db link.sqlite %s 2>&1", dir,
               bin, common);
  CHECK(rc == 2, "--db a link: exit %d:\n%s", rc, out);
  CHECK_CONTAINS(out, "is a symbolic link");
  CHECK(!exists("d3.json"), "results written though the store was refused");
  CHECK(now_s() - t0 < 30, "refused after %.1f s", now_s() - t0);
  free(out);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_tune_files_lvp VKOCC SOURCE_DIR\n");
    return 2;
  }
  bin = argv[1], src = argv[2];
  if (!mkdtemp(dir)) return 1;
  char *out;
  run_fmt(&out, "cp %s/tests/data/tune/scale_wrong.json %s/s.json && cp %s/tests/data/tune/scale_wrong.comp %s/", src, dir, src, dir);
  free(out);
  snprintf(common, sizeof common, "--max-runs 5 --sentinel 0 --seed 1 --fingerprint %s/tests/data/fp-hopper-132.json "
           "--allow-other-device", src);
  test_planted();
  test_forged_journal();
  test_forged_t4();
  test_db_one_device();
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
