/* The hostile tuning corpus (tests/hostile_tune/, written by generate.py): T1 specs, results files, resumes,
 * replays, policy databases and headers, outputs that are inputs, concurrent writers, another device's
 * fingerprint. Each MANIFEST line is a shell command run in a fresh copy of the corpus, with a time limit;
 * it must end with the exit status the line names and say its SUBSTRING. No crash (a signal or a sanitizer's
 * report), no hang (the limit). Prints the counts: cases, failures, crashes, hangs.
 * usage: test_hostile_tune VKOCC CORPUS_DIR FINGERPRINT [--baseline]  (--baseline: for a binary without the
 * --allow-other-device flag, to count what an older vkocc gets wrong; always exits 0) */
#define _DEFAULT_SOURCE
#include "check.h"
#include "run.h"
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>


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
           baseline ? "" : " --allow-other-device");
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
  /* the cases: a folder each (the corpus as links; what a case writes is its own), run two at a time, those
   * that run processes side by side themselves alone */
  typedef struct hcase { int want; bool ok; const char *sub, *cmd; char work[128]; } hcase;
  hcase *cs = calloc(4096, sizeof *cs);
  char list[128], serial[128], *drop;
  snprintf(list, sizeof list, "%s/parallel", tmp);
  snprintf(serial, sizeof serial, "%s/serial", tmp);
  FILE *lp = fopen(list, "w"), *ls = fopen(serial, "w");
  if (!cs || !lp || !ls) return perror(tmp), 1;
  /* the corpus's names: a case gets links to the hand-made files and to the generated ones (g_*) its command
   * names (a copy of all 360 per case was half of this test's time, most of it in the kernel) */
  static char names[1024][256];
  unsigned nnames = 0;
  DIR *dp = opendir(dir);
  if (!dp) return perror(dir), 1;
  for (struct dirent *de; (de = readdir(dp)) && nnames < 1024;)
    if (de->d_name[0] != '.') snprintf(names[nnames++], sizeof names[0], "%s", de->d_name);
  closedir(dp);
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line && cases < 4096; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#') continue;
    char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2) continue;
    *t1 = *t2 = 0;
    hcase *c = &cs[cases];
    c->want = atoi(line), c->sub = t1 + 1, c->cmd = t2 + 1; /* SUBSTRING may be empty */
    if (filter && !strstr(c->cmd, filter)) continue;
    snprintf(c->work, sizeof c->work, "%s/c%u", tmp, cases);
    if (mkdir(c->work, 0755)) return perror(c->work), 1;
    char path[600], target[4400];
    for (unsigned k = 0; k < nnames; k++) {
      if (!strncmp(names[k], "g_", 2) && !strstr(c->cmd, names[k])) continue;
      snprintf(target, sizeof target, "%s/%s", dir, names[k]);
      snprintf(path, sizeof path, "%s/%s", c->work, names[k]);
      if (symlink(target, path)) return perror(path), 1;
    }
    snprintf(path, sizeof path, "%s/cmd.sh", c->work);
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    fprintf(f, "%s\n", c->cmd);
    fclose(f);
    snprintf(path, sizeof path, "%s/run.sh", c->work);
    if (!(f = fopen(path, "w"))) return perror(path), 1;
    fprintf(f, "cd %s || exit 1\nt0=$(date +%%s.%%N)\ntimeout -s KILL %d sh cmd.sh >stdout 2>stderr\necho $? >rc\n"
               "awk \"BEGIN { print $(date +%%s.%%N) - $t0 }\" >secs\n", c->work, LIMIT_S);
    fclose(f);
    fprintf(strstr(c->cmd, "for i in") ? ls : lp, "%s/run.sh\n", c->work);
    cases++;
  }
  fclose(lp), fclose(ls);
  run_fmt(&drop, "xargs -P 2 -n 1 sh <%s; xargs -n 1 sh <%s", list, serial);
  free(drop);
  for (unsigned i = 0; i < cases; i++) {
    hcase *c = &cs[i];
    char path[200];
    snprintf(path, sizeof path, "%s/rc", c->work);
    char *r = slurp(path);
    int rc = r[0] ? atoi(r) : -1;
    free(r);
    snprintf(path, sizeof path, "%s/secs", c->work);
    char *sec = slurp(path);
    double secs = atof(sec);
    free(sec);
    snprintf(path, sizeof path, "%s/stdout", c->work);
    char *o = slurp(path);
    snprintf(path, sizeof path, "%s/stderr", c->work);
    char *e = slurp(path);
    bool crash = rc < 0 || (rc > 9 && rc != 137) || strstr(e, "Sanitizer") || strstr(e, "runtime error") ||
                 strstr(o, "runtime error");
    bool hang = rc == 137 || rc == 124;
    bool ok = !crash && !hang && rc == c->want && (!c->sub[0] || strstr(o, c->sub) || strstr(e, c->sub));
    crashes += crash, hangs += hang, failed += !ok;
    if (!ok)
      fprintf(stderr, "FAIL %s\n  exit %d (expected %d, %.1f s)%s%s, expected to say '%s'\n  stdout: %.400s\n  stderr: %.600s\n",
              c->cmd, rc, c->want, secs, crash ? " CRASH" : "", hang ? " HANG" : "", c->sub, o, e);
    if (!baseline) CHECK(ok, "case %u: %.200s", i + 1, c->cmd);
    c->ok = ok;
    free(o), free(e);
  }
  /* a failed case's folder stays for a look; one rm for the rest (one per case took 20-40 s) */
  if (failed)
    for (unsigned i = 0; i < cases; i++)
      if (cs[i].ok) run_fmt(&drop, "rm -rf %s", cs[i].work), free(drop);
  free(cs);
  printf("hostile tuning corpus: %u cases, %u failed (%u crashes, %u hangs)\n", cases, failed, crashes, hangs);
  if (!failed) {
    run_fmt(&drop, "rm -rf %s", tmp);
    free(drop);
  }
  int rc = check_report();
  return baseline ? 0 : rc;
}
