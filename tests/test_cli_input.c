/* Input files through the commands that read them: values out of range, contradictions and
 * fingerprints without a surface end in one line naming the file and the field, exit 2, no output file;
 * large or extreme files are answered in seconds. No device: calc, plot and view only read files. */
#include "check.h"
#include "run.h"
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/vkocc-input-XXXXXX";

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
  return path;
}

/* vkocc ARGS must exit with want, print one line holding needle, and leave no file at out (if given) */
static void expect(const char *bin, const char *args, int want, const char *needle, const char *out) {
  char *o;
  double t0 = now_s();
  /* cairo and fontconfig keep one-time allocations (as in test_cli_plot); calc is checked for leaks */
  bool lib = !strncmp(args, "plot", 4) || !strncmp(args, "view", 4);
  int rc = run_fmt(&o, "%stimeout 60 %s %s 2>&1", lib ? "ASAN_OPTIONS=detect_leaks=0 " : "", bin, args);
  double dt = now_s() - t0;
  CHECK(rc == want, "'%s': exit %d, expected %d: %s", args, rc, want, o);
  CHECK_CONTAINS(o, needle);
  if (want == 2) CHECK(strchr(o, '\n') == o + strlen(o) - 1, "'%s': the error must be one line: %s", args, o);
  if (out) CHECK(access(out, F_OK) != 0, "'%s' left %s", args, out);
  CHECK(dt < 20, "'%s' took %.1f s (hang guard)", args, dt);
  free(o);
}

int main(int argc, char **argv) {
  if (argc < 3 || !mkdtemp(dir)) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *data = argv[2];
  char a[2048], img[600], w[600], n[600];
  snprintf(img, sizeof img, "%s/p.svg", dir);
  char *o;
  /* a vkocc built without cairo (VKOCC_WITH_VIEWER=OFF) answers --help but refuses every plot with 3 */
  int rc = run_fmt(&o, "%s plot surface %s/none.csv -o %s", bin, dir, img);
  bool have_plot = rc != 3;
  free(o);
  rc = run_fmt(&o, "%s view %s/none.csv", bin, dir); /* without GLFW: 3, as plot without cairo */
  bool have_view = rc != 3;
  free(o);

  /* the reproducers: SIGFPE (wg 2^32-1), heap overflow in calc --table and an endless plot wg (wg 2^32-128) */
  snprintf(w, sizeof w, "%s", file("w.csv", "wg_size,shared_bytes,P\n4294967295,0,1\n"));
  snprintf(n, sizeof n, "%s", file("n.csv", "wg_size,shared_bytes,P\n4294967168,0,1\n"));
  snprintf(a, sizeof a, "calc --from %s --wg 32 --shmem 0", w);
  expect(bin, a, 2, "w.csv:2: wg_size 4294967295 is out of range (at most 65536)", NULL);
  snprintf(a, sizeof a, "calc --from %s --table --shmem 0", n);
  expect(bin, a, 2, "n.csv:2: wg_size 4294967168 is out of range", NULL);
  if (have_plot) {
    snprintf(a, sizeof a, "plot surface %s -o %s", w, img);
    expect(bin, a, 2, "w.csv:2: wg_size", img);
    snprintf(a, sizeof a, "plot wg %s -o %s", w, img);
    expect(bin, a, 2, "w.csv:2: wg_size", img);
    snprintf(a, sizeof a, "plot wg %s -o %s", n, img);
    expect(bin, a, 2, "n.csv:2: wg_size 4294967168 is out of range", img);
  }
  if (have_view) { /* refused before any window opens: no display needed */
    snprintf(a, sizeof a, "view %s", w);
    expect(bin, a, 2, "w.csv:2: wg_size", NULL);
  }
  const char *wj = file("w.json", "{\"schema\": \"vkocc.surface/1\", \"points\": [{\"wg_size\": 4294967295, "
                                  "\"shared_bytes\": 0, \"P\": 1}]}");
  snprintf(a, sizeof a, "calc --from %s --wg 32 --shmem 0", wj);
  expect(bin, a, 2, "w.json: $.points[0].wg_size: 4294967295 is out of range", NULL);
  /* P 2^32-1 took 65 s: now out of range at once; the largest accepted P (2^31-2 has 192 divisors) in
   * well under a second */
  snprintf(a, sizeof a, "calc --from %s --wg 32 --shmem 0", file("big.csv", "wg_size,shared_bytes,P\n32,0,4294967295\n"));
  expect(bin, a, 2, "big.csv:2: P 4294967295 is out of range (at most 2147483647)", NULL);
  snprintf(a, sizeof a, "calc --from %s --wg 32 --shmem 0", file("big2.csv", "wg_size,shared_bytes,P\n32,0,2147483646\n"));
  expect(bin, a, 0, "derived: 2147483646 SMs", NULL);
  /* fuzz finding F2 in surface JSON (over 10 s in the fuzzer): one 9-digit P among small ones */
  snprintf(a, sizeof a, "calc --table --shmem 0 --from %s",
           file("f2.json", "{\"schema\":\"vkocc.surface/1\",\"points\":[{\"wg_size\":16,\"shared_bytes\":0,\"P\":64},"
                "{\"wg_size\":1024,\"shared_bytes\":0,\"P\":2},{\"wg_size\":32,\"shared_bytes\":3276,\"P\":100010003}]}"));
  /* the one formatter of derived limits: "ambiguous" shown here as in surface and fingerprint */
  expect(bin, a, 0, "derived: 2 SMs (ambiguous: another SM count explains as many points); per SM: 32 workgroups, "
                    "32 subgroups (1024 threads; subgroup size 32, inferred), 0 or more shared bytes; 2/3 points "
                    "explained", NULL);
  /* leniency */
  snprintf(a, sizeof a, "calc --table --from %s", file("zeros.csv", "wg_size,shared_bytes,P\n32,0,0\n64,0,0\n"));
  expect(bin, a, 2, "zeros.csv: every point has P = 0", NULL);
  snprintf(a, sizeof a, "calc --table --from %s", file("dup.csv", "wg_size,shared_bytes,P\n32,0,4224\n32,0,4223\n"));
  expect(bin, a, 2, "dup.csv:3: wg_size 32, shared_bytes 0 again, with P 4223 (line 2 has P 4224)", NULL);
  snprintf(a, sizeof a, "calc --table --from %s", file("lead.csv", "wg_size,shared_bytes,P\n,32,0,4224\n"));
  expect(bin, a, 2, "lead.csv:2: ',32,0,4224': expected 3 comma-separated fields wg_size,shared_bytes,P, found 4", NULL);
  snprintf(a, sizeof a, "calc --wg 64 --shmem 0 --from %s", file("bom.csv", "\xEF\xBB\xBFwg_size,shared_bytes,P\n32,0,64\n64,0,64\n"));
  expect(bin, a, 0, "resident workgroups", NULL);

  /* fingerprints without a surface (the repository's own): calc works from what they hold */
  snprintf(a, sizeof a, "calc --wg 96 --shmem 8K --from %s/fp-hopper-132.json", data);
  expect(bin, a, 0, "resident workgroups            12\n", NULL);
  rc = run_fmt(&o, "%s %s", bin, a);
  CHECK_CONTAINS(o, "the SM count is unknown, the counts below are per SM");
  CHECK_CONTAINS(o, "occupancy: 56.25% of 2048 threads per SM; binding limit: shared memory");
  CHECK_CONTAINS(o, "derived: SM count unknown (values per SM); per SM: 32 workgroups, 64 subgroups (2048 threads; "
                    "subgroup size 32), 102400 shared bytes");
  CHECK(!strstr(o, "0 SMs"), "no '0 SMs': %s", o);
  free(o);
  rc = run_fmt(&o, "%s calc --table --shmem 16K --json --from %s/fp-rdna-40.json", bin, data);
  CHECK(rc == 0, "calc --json from a normalized fingerprint: exit %d", rc);
  CHECK_CONTAINS(o, "\"sm_count\": null");
  CHECK_CONTAINS(o, "\"workgroups_per_sm\"");
  free(o);
  if (have_plot) {
    snprintf(a, sizeof a, "plot surface %s/fp-hopper-132.json -o %s", data, img);
    expect(bin, a, 2, "plot surface needs a measured surface: ", img);
    snprintf(a, sizeof a, "plot wg %s/fp-hopper-132.json -o %s", data, img);
    expect(bin, a, 2, "fp-hopper-132.json is a fingerprint without one (its normalized surface: vkocc plot compare", img);
  }
  if (have_view) {
    snprintf(a, sizeof a, "view %s/fp-hopper-132.json", data);
    expect(bin, a, 2, "view needs a measured surface", NULL);
  }

  /* P 0 at a point the document's device runs: refused naming the file and the JSON path; from a CSV (no device
   * limits) the point is said to be one the device cannot run, never "0 resident (measured)" */
  {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sed '0,/\"P\": 4,/s//\"P\": 0,/' %s/lvp-adaptive.json > %s/p0.json", data, dir);
    CHECK(system(cmd) == 0, "p0.json");
    snprintf(a, sizeof a, "calc --from %s/p0.json --wg 8 --shmem 0", dir);
    expect(bin, a, 2, "p0.json: $.points[0].P: 0 at workgroup 8 threads, 0 shared bytes, a point the document's device", NULL);
    file("p0.csv", "wg_size,shared_bytes,P\n32,0,4\n64,0,0\n32,1024,4\n");
    snprintf(a, sizeof a, "%s calc --from %s/p0.csv --wg 64 --shmem 0 2>&1", bin, dir);
    rc = run_fmt(&o, "%s", a);
    CHECK(rc == 0, "p0.csv: exit %d: %s", rc, o);
    CHECK_CONTAINS(o, "(P 0 in the file: the device cannot run this point)");
    CHECK(!strstr(o, "(measured)"), "P 0 said to be measured: %s", o);
    free(o);
  }

  /* a fingerprint's signature: a value of 1e308 is out of range (said so), an edited signature is named as
   * the signature, not as the normalized surface */
  {
    char cmd[4096];
    const char *h100 = "%s/../../docs/results/h100/tune-fresh-cache/fp-own.json";
    char fp[600];
    snprintf(fp, sizeof fp, h100, data);
    snprintf(cmd, sizeof cmd, "sed 's/\"value\": 4.108886719,/\"value\": 1e308,/' %s > %s/big.json && "
             "sed '/\"shared_latency\"/,/\"quantized\"/s/29\\.0/40.0/g' %s > %s/edsig.json", fp, dir, fp, dir);
    CHECK(system(cmd) == 0, "signature files");
    snprintf(a, sizeof a, "cluster %s/big.json %s", dir, fp);
    expect(bin, a, 2, "big.json: $.signature.values.fma_latency: value: 1e+308 is out of range", NULL);
    snprintf(a, sizeof a, "cluster %s/edsig.json %s", dir, fp);
    expect(bin, a, 2, "edsig.json: $.signature: edited: the cluster ID \"c3-096e9dd83834\" does not match its signature's "
                      "values", NULL);
    snprintf(a, sizeof a, "cluster %s %s", fp, fp);
    expect(bin, a, 0, "c3-096e9dd83834 (2 members)", NULL);
  }

  /* 20,000 rows took 63 s */
  snprintf(a, sizeof a, "%s/rows.csv", dir);
  FILE *f = fopen(a, "w");
  fputs("wg_size,shared_bytes,P\n", f);
  for (unsigned wg = 32; wg <= 1024; wg += 32)
    for (unsigned s = 0; s < 625 * 64; s += 64) {
      unsigned k = (wg + 31) / 32, p = 32;
      if (64 / k < p) p = 64 / k;
      if (s && 102400 / s < p) p = 102400 / s;
      fprintf(f, "%u,%u,%u\n", wg, s, p * 132);
    }
  fclose(f);
  double t0 = now_s();
  rc = run_fmt(&o, "%s calc --wg 96 --shmem 8K --from %s", bin, a);
  double dt = now_s() - t0;
  printf("calc from 20000 rows: %.3f s\n", dt);
  CHECK(rc == 0, "20000 rows: exit %d", rc);
  CHECK_CONTAINS(o, "derived: 132 SMs; per SM: 32 workgroups, 64 subgroups (2048 threads; subgroup size 32, "
                    "inferred), 102400 shared bytes; 20000/20000 points explained");
  CHECK(dt < 20, "20000 rows took %.1f s (hang guard)", dt);
  free(o);

  snprintf(a, sizeof a, "rm -rf %s", dir);
  if (system(a)) return 2;
  return check_report();
}
