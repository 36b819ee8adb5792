/* The hostile tuning corpus (tests/hostile_tune/, written by generate.py): T1 specs, results files, resumes,
 * replays, policy databases and headers, outputs that are inputs, concurrent writers, another device's
 * fingerprint. Each MANIFEST line is a shell command run in a fresh copy of the corpus, with a time limit;
 * it must end with the exit status the line names and say its SUBSTRING. No crash (a signal or a sanitizer's
 * report), no hang (the limit). Prints the counts: cases, failures, crashes, hangs.
 * usage: test_hostile_tune VKOCC CORPUS_DIR FINGERPRINT [--baseline]  (--baseline: for a binary without the
 * --foreign-fingerprint flag, to count what an older vkocc gets wrong; always exits 0) */
#define _DEFAULT_SOURCE
#include "check.h"
#include "run.h"
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

#define LIMIT_S 120

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return strdup("");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
  if (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) b[0] = 0;
  fclose(f);
  return b;
}

int main(int argc, char **argv) {
  if (argc < 4) return fprintf(stderr, "usage: %s VKOCC CORPUS_DIR FINGERPRINT [--baseline] [FILTER]\n", argv[0]), 2;
  static char bin[4096], dir[4096], fp[4096], fast[4200];
  if (!realpath(argv[1], bin) || !realpath(argv[2], dir) || !realpath(argv[3], fp))
    return fprintf(stderr, "%s, %s or %s: no such file\n", argv[1], argv[2], argv[3]), 2;
  bool baseline = argc > 4 && !strcmp(argv[4], "--baseline");
  const char *filter = argc > 5 ? argv[5] : argc > 4 && !baseline ? argv[4] : NULL;
  char tmp[] = "/tmp/vkocc-hostile-tune-XXXXXX";
  if (!mkdtemp(tmp)) return perror("mkdtemp"), 1;
  char cache[96];
  snprintf(cache, sizeof cache, "%s/cache", tmp);
  mkdir(cache, 0755);
  setenv("XDG_CACHE_HOME", cache, 1);
  setenv("V", bin, 1);
  setenv("FP", fp, 1);
  snprintf(fast, sizeof fast, "--max-runs 3 --warmup-ms 0 --sentinel 0 --fingerprint %s%s", fp,
           baseline ? "" : " --foreign-fingerprint");
  setenv("FAST", fast, 1);
  char mpath[4200];
  snprintf(mpath, sizeof mpath, "%s/MANIFEST", dir);
  FILE *m = fopen(mpath, "r");
  if (!m) return perror(mpath), 1;
  unsigned cases = 0, failed = 0, crashes = 0, hangs = 0;
  /* every line first: the corpus may be written again while the cases run */
  static char text[1 << 22];
  size_t tl = fread(text, 1, sizeof text - 1, m);
  text[tl] = 0;
  fclose(m);
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#') continue;
    char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2) continue;
    *t1 = *t2 = 0;
    char *code_s = line, *sub = t1 + 1, *cmd = t2 + 1; /* SUBSTRING may be empty */
    if (filter && !strstr(cmd, filter)) continue;
    int want = atoi(code_s);
    char work[128], script[160], out[160], err[160], *drop;
    snprintf(work, sizeof work, "%s/c%u", tmp, cases);
    /* the corpus as links (a copy per case was most of the run's time); what a case writes is its own */
    run_fmt(&drop, "mkdir -p %s && cp -rs %s/. %s", work, dir, work);
    free(drop);
    snprintf(script, sizeof script, "%s/cmd.sh", work);
    FILE *s = fopen(script, "w");
    if (!s) return perror(script), 1;
    fprintf(s, "%s\n", cmd);
    fclose(s);
    snprintf(out, sizeof out, "%s/stdout", work);
    snprintf(err, sizeof err, "%s/stderr", work);
    cases++;
    double t0 = now_s();
    int rc = run_fmt(&drop, "cd %s && timeout -s KILL %d sh cmd.sh >stdout 2>stderr", work, LIMIT_S);
    free(drop);
    double secs = now_s() - t0;
    char *o = slurp(out), *e = slurp(err);
    bool crash = rc < 0 || (rc > 9 && rc != 137) || strstr(e, "Sanitizer") || strstr(e, "runtime error") ||
                 strstr(o, "runtime error");
    bool hang = rc == 137 || rc == 124;
    bool ok = !crash && !hang && rc == want && (!sub[0] || strstr(o, sub) || strstr(e, sub));
    crashes += crash, hangs += hang, failed += !ok;
    if (!ok)
      fprintf(stderr, "FAIL %s\n  exit %d (expected %d, %.1f s)%s%s, expected to say '%s'\n  stdout: %.400s\n  stderr: %.600s\n",
              cmd, rc, want, secs, crash ? " CRASH" : "", hang ? " HANG" : "", sub, o, e);
    if (!baseline) CHECK(ok, "case %u: %.200s", cases, cmd);
    if (ok) run_fmt(&drop, "rm -rf %s", work), free(drop);
    free(o), free(e);
  }
  printf("hostile tuning corpus: %u cases, %u failed (%u crashes, %u hangs)\n", cases, failed, crashes, hangs);
  if (!failed) {
    char *drop;
    run_fmt(&drop, "rm -rf %s", tmp);
    free(drop);
  }
  int rc = check_report();
  return baseline ? 0 : rc;
}
