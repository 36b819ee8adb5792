/* Every output option is honoured or refused, never ignored. For every command, the options that produce
 * output (-o, --json, --raw, --csv, --screenshot) are read from its --help text; each one the help names
 * must be exercised by a case below (a new one without a case fails here), and each case either exits 0
 * with the output there (a file of JSON or an image, JSON or CSV on stdout) or exits non-zero with a
 * message and no file. An option the help does not name is refused (exit 2, no file).
 * Runs on lavapipe (a few seconds of measurement each for the device commands). */
#include "check.h"
#include "run.h"
#include <jansson.h>
#include <sys/stat.h>

static const char *bin, *data, *shaders;
static char dir[64];

static const char *const commands[] = {"devices", "calibrate", "probe", "surface", "calc", "fingerprint", "cluster",
                                       "policy", "plot", "view", "tune", "barrier-test"};
static const char *const outputs[] = {"-o", "--json", "--raw", "--csv", "--screenshot"};
#define NCMD (sizeof commands / sizeof *commands)
#define NOPT (sizeof outputs / sizeof *outputs)

/* Whether the word before p (text starts at text) is another command's name: "calc -o JSON" in plot's help
 * speaks of calc's option, not plot's. */
static bool after_other_command(const char *text, const char *p, const char *cmd) {
  if (!cmd || p - text < 2 || p[-1] != ' ') return false;
  const char *end = p - 1, *start = end;
  while (start > text && start[-1] != ' ' && start[-1] != '\n' && start[-1] != '(') start--;
  for (size_t i = 0; i < NCMD; i++)
    if (strcmp(commands[i], cmd) && (size_t)(end - start) == strlen(commands[i]) &&
        !strncmp(start, commands[i], (size_t)(end - start)))
      return true;
  return false;
}

/* Whether text (cmd's help; NULL: a case's option list) names the option as a word: "-o FILE", "[--json]",
 * "--json |", "--csv." */
static bool names_option(const char *text, const char *opt, const char *cmd) {
  size_t n = strlen(opt);
  for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt)) {
    char before = p == text ? ' ' : p[-1], after = p[n];
    if ((before == ' ' || before == '[' || before == '\n' || before == '|' || before == '(') &&
        (after == ' ' || after == ']' || after == '\n' || after == ',' || after == '.' || after == ':' || after == 0) &&
        !after_other_command(text, p, cmd))
      return true;
  }
  return false;
}

/* A case: the command line (%O output file, %R raw file, %D data dir, %S shader dir, %T tuning results),
 * the options it exercises, and whether it must be honoured (retried on a runtime failure: a loaded
 * machine can make a measurement disagree). */
typedef struct { const char *cmd, *args, *opts; bool must; } test_case;
static const test_case cases[] = {
    {"devices", "devices --json -o %O", "-o --json", true},
    {"calibrate", "calibrate --json -o %O", "-o --json", true},
    {"probe", "probe --wg 32 --shmem 0 --json -o %O --raw %R", "-o --json --raw", true},
    {"probe", "probe --shader %S/reduction.comp --json -o %O", "-o --json", true},
    {"probe", "probe --shader %S/reduction.comp -o %O", "-o", true},
    {"probe", "probe --shader %S/reduction.comp --raw %R", "--raw", false},
    {"probe", "probe --wg 32 --shmem 0 --csv", "--csv", false},
    {"surface", "surface --wg 32,64 --shmem 0,1K --json -o %O", "-o --json", true},
    {"surface", "surface --shader %S/histogram.comp --vary 0=32 --vary 1=64 --json -o %O", "-o --json", true},
    {"calc", "calc --from %D/h100-grid.csv --wg 64 --shmem 0 --json -o %O", "-o --json", true},
    {"calc", "calc --from %D/h100-grid.csv --table --csv -o %O", "-o --csv", true},
    {"calc", "calc --shader %S/reduction.comp --json -o %O", "-o --json", true},
    {"calc", "calc --shader %S/reduction.comp -o %O", "-o", true},
    {"calc", "calc --shader %S/reduction.comp --csv", "--csv", false},
    {"fingerprint", "fingerprint --json -o %O", "-o --json", true},
    {"cluster", "cluster %D/fp-hopper-114.json %D/fp-hopper-132.json --json -o %O", "-o --json", true},
    {"tune", "tune histogram --size 4K -o %T --only variant=global_atomics --only wg_size=64 --max-runs 3 --json",
     "-o --json", true},
    {"policy", "policy build %T -o %O --json", "-o --json", true},
    {"policy", "policy select --db %D/policy-db.json --kernel radix_sort --fingerprint %D/fp-hopper-114.json --json",
     "--json", true},
    {"policy", "policy transfer %T --json", "--json", false},
    {"plot", "plot surface %D/surface-h100.json -o %O.svg", "-o", true},
    {"view", "view %D/surface-h100.json --screenshot %O.png", "--screenshot", false},
    {"barrier-test", "barrier-test --json", "--json", true},
};

static void expand(const char *args, int k, char *out, size_t n, char *o, char *r) {
  snprintf(o, 128, "%s/out-%d", dir, k);
  snprintf(r, 128, "%s/raw-%d", dir, k);
  size_t w = 0;
  for (const char *p = args; *p && w + 1 < n; p++) {
    const char *sub = NULL;
    if (*p == '%' && p[1]) {
      switch (p[1]) {
      case 'O': sub = o; break;
      case 'R': sub = r; break;
      case 'D': sub = data; break;
      case 'S': sub = shaders; break;
      case 'T': {
        static char t[128];
        snprintf(t, sizeof t, "%s/tune.json", dir);
        sub = t;
        break;
      }
      }
    }
    if (sub) {
      w += (size_t)snprintf(out + w, n - w, "%s", sub);
      p++;
    } else {
      out[w++] = *p;
    }
  }
  out[w < n ? w : n - 1] = 0;
}

static bool exists(const char *p) { struct stat st; return stat(p, &st) == 0; }

static bool json_file(const char *p) {
  json_error_t e;
  json_t *d = json_load_file(p, 0, &e);
  json_decref(d);
  return d != NULL;
}

static void run_case(int k, const test_case *c) {
  char args[1024], o[128], r[128], line[2048], err[160];
  expand(c->args, k, args, sizeof args, o, r);
  snprintf(err, sizeof err, "%s/err-%d", dir, k);
  const bool plot_o = strstr(c->args, "%O.svg") != NULL, shot = strstr(c->args, "%O.png") != NULL;
  char ofile[140];
  snprintf(ofile, sizeof ofile, "%s%s", o, plot_o ? ".svg" : shot ? ".png" : "");
  if (strstr(c->args, "-o %T")) snprintf(ofile, sizeof ofile, "%s/tune.json", dir); /* the results policy reads */
  int rc = 0;
  char *out = NULL;
  for (int attempt = 0; attempt < 3; attempt++) {
    unlink(ofile), unlink(r);
    free(out);
    snprintf(line, sizeof line, "%s %s 2>%s", bin, args, err);
    rc = run_fmt(&out, "%s", line);
    if (!(c->must && rc == 1)) break; /* a measurement that disagreed under load: measured again */
  }
  char *msg = NULL;
  run_cmd((snprintf(line, sizeof line, "cat %s", err), line), &msg);
  if (rc != 0) {
    CHECK(!c->must, "'%s' must be honoured: exit %d: %s", args, rc, msg);
    CHECK(strstr(msg, "vkocc") != NULL, "'%s' refused without a message (exit %d)", args, rc);
    CHECK(!exists(ofile) && !exists(r), "'%s' refused (exit %d) but left an output file", args, rc);
  } else {
    if (strstr(c->opts, "-o")) {
      CHECK(exists(ofile), "'%s': exit 0 but -o wrote nothing", args);
      if (!plot_o && !strstr(c->opts, "--csv")) CHECK(json_file(ofile), "'%s': -o file is not JSON", args);
    }
    if (strstr(c->opts, "--raw")) CHECK(json_file(r), "'%s': exit 0 but --raw wrote no JSON", args);
    if (strstr(c->opts, "--screenshot")) CHECK(exists(ofile), "'%s': exit 0 but no screenshot", args);
    /* calc and a pipeline's P (probe --shader) write -o's file alone: nothing on standard output */
    bool quiet = strstr(c->opts, "-o") && (!strcmp(c->cmd, "calc") || strstr(c->args, "probe --shader"));
    if (quiet) CHECK(out[0] == 0, "'%s': -o wrote the file and also printed: %.200s", args, out);
    else if (strstr(c->opts, "--json")) {
      json_error_t e;
      json_t *d = json_loads(out, 0, &e);
      CHECK(d != NULL, "'%s': --json printed no JSON document: %.200s", args, out);
      json_decref(d);
    }
    if (strstr(c->opts, "--csv") && strstr(c->opts, "-o"))
      CHECK(exists(ofile), "'%s': exit 0 but -o wrote nothing", args);
    else if (strstr(c->opts, "--csv")) CHECK(strchr(out, ',') != NULL, "'%s': --csv printed no CSV", args);
    if (strstr(c->opts, "--csv") && strstr(c->opts, "-o")) { /* the chosen format: CSV, not JSON */
      char *csv = NULL;
      run_cmd((snprintf(line, sizeof line, "head -c 200 %s", ofile), line), &csv);
      CHECK(csv && !strncmp(csv, "wg_size,", 8), "'%s': -o with --csv wrote no CSV: %.200s", args, csv ? csv : "");
      free(csv);
    }
  }
  free(out);
  free(msg);
}

int main(int argc, char **argv) {
  if (argc < 4) return fprintf(stderr, "usage: %s VKOCC DATA_DIR SHADER_DIR\n", argv[0]), 2;
  bin = argv[1], data = argv[2], shaders = argv[3];
  snprintf(dir, sizeof dir, "/tmp/vkocc-opts-XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  char cache[96];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  mkdir(cache, 0755);
  setenv("XDG_CACHE_HOME", cache, 1); /* a fresh cache: nothing answered from an earlier run */
  /* every output option a help text names has a case */
  bool in_help[NCMD][NOPT] = {{0}};
  for (size_t i = 0; i < NCMD; i++) {
    char *help;
    int rc = run_fmt(&help, "%s %s --help 2>&1", bin, commands[i]);
    if (rc != 0) { /* a command this build lacks (view without GLFW, plot without cairo) */
      free(help);
      continue;
    }
    for (size_t j = 0; j < NOPT; j++) {
      in_help[i][j] = names_option(help, outputs[j], commands[i]);
      if (!in_help[i][j]) continue;
      bool covered = false;
      for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        covered |= !strcmp(cases[k].cmd, commands[i]) && names_option(cases[k].opts, outputs[j], NULL);
      CHECK(covered, "'%s --help' names %s, and no case here exercises it", commands[i], outputs[j]);
    }
    free(help);
  }
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    size_t i = 0;
    while (i < NCMD && strcmp(commands[i], cases[k].cmd)) i++;
    char *help;
    int rc = run_fmt(&help, "%s %s --help >/dev/null 2>&1", bin, cases[k].cmd);
    free(help);
    if (rc != 0) continue;
    run_case((int)k, &cases[k]);
  }
  /* options a help does not name: refused (exit 2), no file */
  for (size_t i = 0; i < NCMD; i++)
    for (size_t j = 0; j < NOPT; j++) {
      if (in_help[i][j]) continue;
      char *out, path[128];
      snprintf(path, sizeof path, "%s/unnamed-%zu-%zu", dir, i, j);
      bool takes_arg = strcmp(outputs[j], "--json") && strcmp(outputs[j], "--csv");
      int rc = run_fmt(&out, "%s %s %s %s 2>&1", bin, commands[i], outputs[j], takes_arg ? path : "");
      CHECK(rc == 2 || (rc != 0 && strstr(out, "vkocc")), "'%s %s' (not in its help): exit %d, expected a refusal: %.200s",
            commands[i], outputs[j], rc, out);
      CHECK(!exists(path), "'%s %s' (not in its help) wrote %s", commands[i], outputs[j], path);
      free(out);
    }
  char *out;
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
