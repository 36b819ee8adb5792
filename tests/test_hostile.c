/* The hostile corpus (tests/hostile/, written by generate.py): every module a hostile user could bring
 * goes through `vkocc calc --shader` on lavapipe with a time limit, and must give the outcome its MANIFEST
 * line names: exit 0 with a P of 1..LP_NUM_THREADS (lavapipe's P; the comb never overcounts, a starved
 * host can undercount), or exit 2/3 with the reason in the message. No crash (a signal or a sanitizer's
 * exit), no hang (the limit), no exit 0 where a refusal is due.
 * With a second argument FILE, the outcomes are also written there as a Markdown table (docs/hostile.md). */
#include "check.h"
#include "run.h"
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>

#define LIMIT_S 60

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

/* The last line of the message, without the "vkocc calc: " prefix. */
static void reason_of(const char *err, char *out, size_t n) {
  const char *end = err + strlen(err);
  while (end > err && (end[-1] == '\n' || end[-1] == ' ')) end--;
  const char *start = end;
  while (start > err && start[-1] != '\n') start--;
  if (!strncmp(start, "vkocc calc: ", 12)) start += 12;
  snprintf(out, n, "%.*s", (int)(end - start), start);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s VKOCC CORPUS_DIR [TABLE.md]\n", argv[0]), 2;
  const char *bin = argv[1], *dir = argv[2];
  FILE *table = argc > 3 ? fopen(argv[3], "w") : NULL;
  const char *lp = getenv("LP_NUM_THREADS");
  unsigned threads = lp && atoi(lp) > 0 ? (unsigned)atoi(lp) : 2;
  char tmp[] = "/tmp/vkocc-hostile-XXXXXX";
  if (!mkdtemp(tmp)) return perror("mkdtemp"), 1;
  char cache[96];
  snprintf(cache, sizeof cache, "%s/cache", tmp);
  mkdir(cache, 0755);
  setenv("XDG_CACHE_HOME", cache, 1); /* every module measured here, none answered from an earlier run */
  char mpath[1024];
  snprintf(mpath, sizeof mpath, "%s/MANIFEST", dir);
  FILE *m = fopen(mpath, "r");
  if (!m) return perror(mpath), 1;
  if (table) fprintf(table, "| module | args | exit | answer or reason |\n|---|---|---|---|\n");
  unsigned cases = 0, crashes = 0, hangs = 0, wrong0 = 0, counts[4] = {0};
  /* every case first: the refusals run two at a time (nothing is measured there, so they cannot disturb
   * each other), the measurements one at a time */
  typedef struct { char *file, *sub, *args; int want; } hcase;
  hcase *cs = calloc(1024, sizeof *cs);
  unsigned ncs = 0;
  char line[4096];
  while (ncs < 1024 && fgets(line, sizeof line, m)) {
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\n")] = 0;
    char *file = strtok(line, "\t"), *code_s = strtok(NULL, "\t"), *sub = strtok(NULL, "\t"), *args = strtok(NULL, "\t");
    if (!file || !code_s) continue;
    cs[ncs++] = (hcase){strdup(file), strdup(sub ? sub : ""), strdup(args ? args : ""), atoi(code_s)};
  }
  fclose(m);
#define CMD "(timeout -s KILL %d %s calc --shader '%s/%s' %s --json >%s/o%u 2>%s/e%u; echo $? >%s/r%u)"
  for (unsigned a = 0; a < ncs; a++) {
    if (cs[a].want == 0) continue;
    unsigned b = a + 1;
    while (b < ncs && cs[b].want == 0) b++;
    char *drop;
    if (b < ncs)
      run_fmt(&drop, CMD " & " CMD "; wait", LIMIT_S, bin, dir, cs[a].file, cs[a].args, tmp, a, tmp, a, tmp, a, LIMIT_S, bin,
              dir, cs[b].file, cs[b].args, tmp, b, tmp, b, tmp, b);
    else
      run_fmt(&drop, CMD, LIMIT_S, bin, dir, cs[a].file, cs[a].args, tmp, a, tmp, a, tmp, a);
    free(drop);
    a = b;
  }
  for (unsigned c = 0; c < ncs; c++) {
    const char *file = cs[c].file, *sub = cs[c].sub, *args = cs[c].args;
    int want = cs[c].want;
    cases++;
    char out[128], err[128], rcf[128];
    snprintf(out, sizeof out, "%s/o%u", tmp, c);
    snprintf(err, sizeof err, "%s/e%u", tmp, c);
    snprintf(rcf, sizeof rcf, "%s/r%u", tmp, c);
    int rc = 0;
    char *o = NULL, *e = NULL, *drop;
    if (want != 0) { /* ran above */
      char *r = slurp(rcf);
      rc = r[0] ? atoi(r) : -1;
      free(r);
      o = slurp(out), e = slurp(err);
    }
    for (int attempt = 0; want == 0 && attempt < 3; attempt++) {
      free(o), free(e);
      rc = run_fmt(&drop, "timeout -s KILL %d %s calc --shader '%s/%s' %s --json >%s 2>%s", LIMIT_S, bin, dir, file, args, out,
                   err);
      free(drop);
      o = slurp(out), e = slurp(err);
      /* a measurement a loaded host made disagree, or a clock fit it spoiled, is measured again (an honest refusal
       * that names the busy machine, never an answer, never a crash) */
      if (!(want == 0 && rc == 1 &&
            (strstr(e, "could not establish P") || strstr(e, "less busy machine") || strstr(e, "busy machine?") ||
             calibration_refused(e))))
        break;
    }
    char reason[300];
    reason_of(e, reason, sizeof reason);
    bool crash = rc < 0 || (rc > 3 && rc != 137) || strstr(e, "Sanitizer") || strstr(e, "runtime error");
    bool hang = rc == 137 || rc == 124;
    crashes += crash, hangs += hang;
    if (rc >= 0 && rc <= 3) counts[rc]++;
    CHECK(!crash, "%s %s: crashed (exit %d): %.300s", file, args, rc, e);
    CHECK(!hang, "%s %s: no answer within %d s", file, args, LIMIT_S);
    CHECK(rc == want, "%s %s: exit %d, expected %d: %s", file, args, rc, want, reason);
    char answer[340];
    if (rc == 0) {
      json_error_t je;
      json_t *doc = json_loads(o, 0, &je);
      json_int_t P = json_integer_value(json_object_get(json_object_get(doc, "probe"), "P"));
      bool ok = P >= 1 && P <= (json_int_t)threads;
      if (want != 0 || !ok) wrong0++;
      CHECK(ok, "%s %s: exit 0 with P = %lld, expected 1..%u", file, args, (long long)P, threads);
      json_t *sh = json_object_get(doc, "shader");
      snprintf(answer, sizeof answer, "P = %lld (workgroup %lld, %lld shared bytes, %lld descriptors)", (long long)P,
               (long long)json_integer_value(json_object_get(sh, "wg_size")),
               (long long)json_integer_value(json_object_get(sh, "shared_bytes")),
               (long long)json_integer_value(json_object_get(sh, "descriptors")));
      json_decref(doc);
    } else {
      CHECK(reason[0] && strstr(reason, sub), "%s %s: exit %d without '%s' in its reason: %s", file, args, rc, sub, reason);
      snprintf(answer, sizeof answer, "%s", reason);
    }
    if (table) {
      char a[340];
      size_t k = 0;
      for (const char *p = answer; *p && k + 2 < sizeof a; p++) { /* a table cell: no pipes, paths shortened */
        if (*p == '|') a[k++] = '/';
        else a[k++] = *p;
      }
      a[k] = 0;
      char *at;
      while ((at = strstr(a, dir))) memmove(at, at + strlen(dir) + 1, strlen(at + strlen(dir) + 1) + 1);
      fprintf(table, "| `%s` | %s%s%s | %d | %s |\n", file, args[0] ? "`" : "", args[0] ? (strlen(args) > 40 ? "--entry (200 chars)" : args) : "",
              args[0] ? "`" : "", rc, a);
    }
    free(o), free(e);
  }
  for (unsigned c = 0; c < ncs; c++) free(cs[c].file), free(cs[c].sub), free(cs[c].args);
  free(cs);
  printf("hostile corpus: %u cases: exit 0: %u, 1: %u, 2: %u, 3: %u; crashes %u, hangs %u, wrong exit-0 answers %u\n", cases,
         counts[0], counts[1], counts[2], counts[3], crashes, hangs, wrong0);
  if (table) {
    fprintf(table, "\n%u cases: exit 0: %u, exit 1: %u, exit 2: %u, exit 3: %u; crashes %u, hangs %u, wrong exit-0 answers %u.\n",
            cases, counts[0], counts[1], counts[2], counts[3], crashes, hangs, wrong0);
    fclose(table);
  }
  CHECK(cases >= 100, "only %u cases", cases);
  char *drop;
  run_fmt(&drop, "rm -rf %s", tmp);
  free(drop);
  return check_report();
}
