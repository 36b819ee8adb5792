/* An output is none of the inputs: every command that writes (-o, --plot, --screenshot, ...) refuses, with
 * exit 2 naming both, an output that is the same file as a file its command line names, by device and inode:
 * the same path, another spelling, a symbolic link or a hard link to it. The input is left as it was; a
 * fresh output is written. No device: the commands read documents only. */
#include "check.h"
#include "run.h"
#include <stdlib.h>
#include <sys/stat.h>

static char dir[] = "/tmp/vkocc-not-input-XXXXXX";

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  b[fread(b, 1, (size_t)n, f)] = 0;
  fclose(f);
  return b;
}

int main(int argc, char **argv) {
  if (argc < 4) return fprintf(stderr, "usage: test_cli_not_input VKOCC DATA plot|noplot\n"), 2;
  const char *cli = argv[1], *data = argv[2];
  bool plots = !strcmp(argv[3], "plot"); /* built with the plots (VKOCC_WITH_VIEWER) */
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  char cmd[4096], *out;
  snprintf(cmd, sizeof cmd, "cd %s && cp %s/surface-h100.json s.json && cp s.json s.svg && cp %s/fp-hopper-132.json a.json && "
           "cp %s/fp-hopper-114.json b.json && ln -s a.json l.png && ln -s s.json l.json && ln s.json hard.json",
           dir, data, data, data);
  CHECK(system(cmd) == 0, "setup");
  char *surface = NULL, *fa = NULL;
  snprintf(cmd, sizeof cmd, "%s/s.json", dir);
  surface = slurp(cmd);
  snprintf(cmd, sizeof cmd, "%s/a.json", dir);
  fa = slurp(cmd);
  CHECK(surface && fa, "inputs copied");

  static const struct {
    const char *args, *out, *in; /* the command (in dir), the output and the input the message must name */
    bool plot;
  } cases[] = {
      {"calc --from s.json --table -o s.json", "-o s.json", "the input s.json", false},
      {"calc --from=s.json --table --output=./s.json", "-o ./s.json", "the input s.json (by another path", false},
      {"calc --from s.json --table -o hard.json", "-o hard.json", "the input s.json (by another path or a hard link)", false},
      {"calc --from l.json --table -o s.json", "-o s.json", "the input l.json (through a link)", false},
      {"cluster a.json b.json -o a.json", "-o a.json", "the input a.json", false},
      {"cluster a.json b.json --json -o b.json", "-o b.json", "the input b.json", false},
      {"plot compare a.json b.json -o l.png", "-o l.png", "the input a.json (through a link)", true},
      {"plot surface s.svg -o s.svg", "-o s.svg", "the input s.svg", true},
      {"policy build s.json -o hard.json", "-o hard.json", "the input s.json", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].plot && !plots) continue;
    int rc = run_fmt(&out, "cd %s && %s %s 2>&1", dir, cli, cases[i].args);
    CHECK(rc == 2, "%s: exit %d: %s", cases[i].args, rc, out);
    CHECK_CONTAINS(out, cases[i].out);
    CHECK_CONTAINS(out, cases[i].in);
    CHECK_CONTAINS(out, "which writing it would destroy");
    printf("%-48s -> exit %d: %s", cases[i].args, rc, out);
    free(out);
  }
  /* the inputs as they were */
  snprintf(cmd, sizeof cmd, "%s/s.json", dir);
  char *after = slurp(cmd);
  CHECK(after && !strcmp(after, surface), "s.json changed");
  free(after);
  snprintf(cmd, sizeof cmd, "%s/a.json", dir);
  after = slurp(cmd);
  CHECK(after && !strcmp(after, fa), "a.json changed");
  free(after);
  struct stat st;
  snprintf(cmd, sizeof cmd, "%s/l.png", dir);
  CHECK(lstat(cmd, &st) == 0 && S_ISLNK(st.st_mode), "the link l.png was replaced");

  /* other outputs are written as before */
  int rc = run_fmt(&out, "cd %s && %s calc --from s.json --table -o new.json 2>&1 && %s cluster a.json b.json -o c.json 2>&1",
                   dir, cli, cli);
  CHECK(rc == 0, "fresh outputs: exit %d: %s", rc, out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/new.json", dir);
  CHECK(stat(cmd, &st) == 0 && st.st_size > 0, "new.json written");
  if (plots) {
    rc = run_fmt(&out, "cd %s && %s plot surface s.json -o new.svg 2>&1", dir, cli);
    CHECK(rc == 0, "plot: exit %d: %s", rc, out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/new.svg", dir);
    CHECK(stat(cmd, &st) == 0 && st.st_size > 0, "new.svg written");
  }
  free(surface);
  free(fa);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) {}
  return check_report();
}
