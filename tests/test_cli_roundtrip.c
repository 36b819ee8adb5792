/* Every document vkocc writes, vkocc reads: each kind is written on lavapipe (surface, fingerprint, shader
 * surface, raw probe, calc JSON and CSV, tuning results, policy database) and read back through every command
 * that takes it (calc --from, plot surface / wg / comb / compare, view under Xvfb, cluster, tune --resume,
 * policy build / select / transfer). The CSV and the calc JSON round-trip: calc --from their own output prints
 * them again. Outputs that no command takes (devices, calibration, probe, clusters, transfer report, policy
 * choice) are records for people and scripts. */
#include "check.h"
#include "run.h"
#include <unistd.h>

static char dir[] = "/tmp/vkocc-roundtrip-XXXXXX";
static const char *bin;

/* runs `vkocc ARGS` (stderr kept with stdout), checks exit 0 and returns the output (caller frees) */
static char *ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *ok(const char *what, const char *fmt, ...) {
  char args[3000], *out;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  int rc = run_fmt(&out, "cd %s && %s %s 2>&1", dir, bin, args);
  CHECK(rc == 0, "%s: exit %d: %s", what, rc, out);
  return out;
}

static char *slurp(const char *name) {
  char *out;
  run_fmt(&out, "cat %s/%s", dir, name);
  return out;
}

/* Reads a surface-like file back through every command that takes one. */
static bool have_view; /* built with GLFW, and Xvfb to open a window in */

static void read_surface(const char *file, const char *point, const char *want) {
  char *out = ok(file, "calc --from %s %s", file, point);
  if (!strcmp(want, "(file)")) /* a point of the file, measured or (adaptive surface) predicted: not the model */
    CHECK(out && (strstr(out, "(measured)") || strstr(out, "(predicted)")), "%s %s: not the file's point: %s", file,
          point, out);
  else CHECK_CONTAINS(out, want);
  free(out);
  free(ok(file, "calc --from %s --table --json", file));
  free(ok(file, "calc --from %s --suggest-wg --shared-per-thread 4", file));
  free(ok(file, "plot surface %s -o %s.surface.png", file, file));
  free(ok(file, "plot wg %s -o %s.wg.svg", file, file));
  free(ok(file, "plot surface %s -o %s.surface.pdf", file, file));
  if (have_view) {
    char *out;
    int rc = run_fmt(&out, "cd %s && xvfb-run -a %s view %s --script right,up --screenshot %s.view.png 2>&1", dir, bin,
                     file, file);
    CHECK(rc == 0, "%s: view exit %d: %s", file, rc, out);
    free(out);
  }
}

int main(int argc, char **argv) {
  if (argc < 3 || !mkdtemp(dir)) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  bin = argv[1];
  const char *data = argv[2];
  char shaders[1100];
  snprintf(shaders, sizeof shaders, "%s/../shaders", data);

  char *v;
  have_view = run_fmt(&v, "%s view --help 2>&1", bin) == 0 && strstr(v, "usage: vkocc view") &&
              system("command -v xvfb-run > /dev/null") == 0;
  free(v);
  if (have_view) { /* a build without GLFW answers --help too: ask for a window */
    have_view = run_fmt(&v, "%s view /nonexistent.json 2>&1", bin) != 3;
    free(v);
  }

  /* ---- write every kind */
  free(ok("surface", "surface -o surface.json"));
  free(ok("fingerprint", "fingerprint -o fp.json"));
  free(ok("shader surface", "surface --shader %s/histogram.comp --vary 0=32,64 --vary 1=64,2048 -o shader.json", shaders));
  free(ok("raw probe", "probe --wg 64 --shmem 0 --method comb --raw raw.json"));
  free(ok("calc csv", "calc --from surface.json --table --csv -o calc.csv"));
  free(ok("calc table json", "calc --from surface.json --table -o calc-table.json"));
  free(ok("calc json", "calc --from surface.json --wg 64 --shmem 0 -o calc-point.json"));
  free(ok("tune", "tune reduce --size 5003 --only wg_size=32,256 --only elements_per_thread=1 --max-runs 3 "
             "--fingerprint fp.json -o tune.json"));

  /* ---- surface kinds through calc and plot */
  char *s = slurp("shader.json");
  CHECK_CONTAINS(s, "\"schema\": \"vkocc.shader-surface/1\"");
  free(s);
  /* the shader's first point: workgroup 32, 64 bins = 256 shared bytes, measured (not the model) */
  read_surface("shader.json", "--wg 32 --shmem 256", "(measured)");
  read_surface("surface.json", "--wg 64 --shmem 0", "(file)");
  read_surface("fp.json", "--wg 64 --shmem 0", "(file)");
  read_surface("calc.csv", "--wg 64 --shmem 0", "(file)");
  read_surface("calc-table.json", "--wg 64 --shmem 0", "(file)");
  /* calc-point.json holds one point: too little to derive limits from, yet it reads (then fails derivation
   * with its own message, not a schema error) */
  char *out;
  run_fmt(&out, "cd %s && %s calc --from calc-point.json --wg 64 --shmem 0 2>&1", dir, bin);
  CHECK(strstr(out, "expected \"vkocc.surface/1\"") == NULL, "calc -o JSON must read back: %s", out);
  free(out);

  /* the CSV and the table JSON round-trip exactly: calc --from calc's own output prints the same table */
  free(ok("csv again", "calc --from calc.csv --table --csv > calc2.csv"));
  free(ok("json again", "calc --from calc-table.json --table --csv > calc3.csv"));
  char *a = slurp("calc.csv"), *b = slurp("calc2.csv"), *c = slurp("calc3.csv");
  CHECK(strlen(a) > 100 && !strcmp(a, b), "calc --csv does not round-trip:\n%.400s\n---\n%.400s", a, b);
  CHECK(!strcmp(a, c), "calc -o JSON does not round-trip to the same CSV:\n%.400s\n---\n%.400s", a, c);
  free(a), free(b), free(c);

  /* lavapipe's per-SM thread maximum is only a lower bound: the plot says "or more" and colours by P */
  free(ok("plot lavapipe svg", "plot surface surface.json -o lvp.svg"));
  char *svg = slurp("lvp.svg");
  CHECK_CONTAINS(svg, "or more threads per SM");
  CHECK_CONTAINS(svg, ">P [workgroups resident, whole device]</text>");
  free(svg);

  /* ---- the other kinds through the commands that take them */
  free(ok("plot comb", "plot comb raw.json -o comb.png"));
  free(ok("plot compare", "plot compare fp.json %s/fp-hopper-132.json -o compare.svg", data));
  out = ok("cluster", "cluster fp.json %s/fp-hopper-132.json %s/fp-hopper-114.json --json -o clusters.json", data, data);
  CHECK_CONTAINS(out, "\"schema\": \"vkocc.clusters/1\"");
  free(out);
  out = ok("tune --resume", "tune reduce --size 5003 --only wg_size=32,256 --only elements_per_thread=1 --max-runs 3 "
           "--fingerprint fp.json --resume -o tune.json");
  CHECK_CONTAINS(out, "8 measured (8 resumed)");
  free(out);
  free(ok("policy build", "policy build tune.json -o db.json"));
  out = ok("policy select", "policy select --db db.json --kernel reduce --fingerprint fp.json --var element_type=u32 "
           "--var problem_size=5003");
  CHECK_CONTAINS(out, "rule:    device");
  free(out);
  /* no variables on the device the database was built on: still the device rule, the missing variables named */
  out = ok("policy select, no variables", "policy select --db db.json --kernel reduce --fingerprint fp.json");
  CHECK_CONTAINS(out, "rule:    device");
  CHECK_CONTAINS(out, "note:    no element_type given (the database has u32)");
  CHECK_CONTAINS(out, "no problem_size given (the database has 5003 (tuned)): the entry tuned at 5003, the largest");
  free(out);
  out = ok("policy --help", "policy --help");
  CHECK_CONTAINS(out, "a variable not given");
  free(out);
  free(ok("policy transfer", "policy transfer tune.json --json"));

  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
