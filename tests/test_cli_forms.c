/* A command's form comes from parsing its options, never from scanning argv for a word: tune's three forms (a
 * shipped kernel, a T1 spec, the replay) and surface --registers. An option's value is never taken for the operand
 * or the switch, an option spelled short (getopt's unique prefix) or one the old word lists lacked still counts, and
 * the options of one form are refused beside the other. No device: every case ends before one is opened. */
#include "check.h"
#include "run.h"
#include <stdlib.h>
#include <unistd.h>

static const char *bin;
static char dir[] = "/tmp/vkocc-forms-XXXXXX";

/* vkocc ARGS exits with want and its output (stdout and stderr) holds needle */
static void expect(const char *args, int want, const char *needle) {
  char *o;
  int rc = run_fmt(&o, "%s %s 2>&1", bin, args);
  CHECK(rc == want, "'%s': exit %d, expected %d: %s", args, rc, want, o);
  CHECK_CONTAINS(o, needle);
  free(o);
}

int main(int argc, char **argv) {
  if (argc < 2 || !mkdtemp(dir)) { fprintf(stderr, "usage: %s VKOCC\n", argv[0]); return 2; }
  bin = argv[1];
  const char *kernel = "usage: vkocc tune histogram|reduce", *spec = "usage: vkocc tune SPEC.json",
             *replay = "usage: vkocc tune --replay", *grid = "usage: vkocc surface [--wg",
             *registers = "usage: vkocc surface --registers";
  /* tune: a value that ends in .json is no operand; the first operand decides */
  expect("tune --fingerprint x.json reduce --help", 0, kernel);
  expect("tune --fing x.json reduce --help", 0, kernel); /* --fingerprint, spelled short */
  expect("tune --fingerprint x.json y.json --help", 0, spec);
  expect("tune --help -- y.json", 0, spec);
  /* --sentinel and --warmup-ratio take values (the word list of the scan lacked them) */
  char a[600];
  snprintf(a, sizeof a, "tune --sentinel 3 /nonexistent/spec.json -o %s/r.json", dir);
  expect(a, 2, "/nonexistent/spec.json");
  expect("tune --warmup-ratio 0.5 y.json --help", 0, spec);
  /* the replay by its options; a file named --replay is no switch */
  expect("tune --replay r.json --help", 0, replay);
  expect("tune --replay=r.json --help", 0, replay);
  expect("tune --list-strategies --help", 0, replay);
  expect("tune -o --replay --help", 0, kernel);
  expect("tune --fingerprint --list-strategies reduce --help", 0, kernel);

  /* surface --registers: an option of surface's one parse */
  expect("surface --registers --help", 0, registers);
  expect("surface --help --registers", 0, registers);
  expect("surface --regist --help", 0, registers); /* --registers, spelled short */
  expect("surface -o --registers --help", 0, grid);  /* a file named --registers */
  expect("surface --registers --shmem 1K", 2, "--shmem does not go with --registers");
  expect("surface --registers --full", 2, "--full does not go with --registers");
  expect("surface --live 0-64:8", 2, "--live goes with --registers");
  expect("surface --from x.json", 2, "--from goes with --registers");
  rmdir(dir);
  return check_report();
}
