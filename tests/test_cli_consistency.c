/* CLI consistency, from committed data with no device: calc repeats the device the file
 * records; one wording of the derived limits; calc --csv for one point with the columns of the JSON rows;
 * calc --suggest-wg and the per-limit counts; -o on the commands that write data; CSV rows with a field
 * missing quoted; getopt's messages prefixed "vkocc CMD"; plots: whole-number comb axis, whole device
 * names on compare, plot wg following the model where the surface has no point. */
#include "check.h"
#include "run.h"
#include <stdint.h>
#include <unistd.h>

static char dir[] = "/tmp/vkocc-consistency-XXXXXX";

static const char *file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
  return path;
}

static char *slurp(const char *path) {
  char *out, cmd[600];
  snprintf(cmd, sizeof cmd, "cat %s", path);
  run_cmd(cmd, &out);
  return out;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static void test_calc(const char *bin, const char *data) {
  char *out;
  /* the device the file records, not "other" / 0.0.0 / no clocks */
  int rc = run_fmt(&out, "%s calc --wg 128 --shmem 0 --from %s/surface-h100.json --json", bin, data);
  CHECK(rc == 0, "calc --json exit %d", rc);
  CHECK_CONTAINS(out, "\"device_type\": \"discrete\"");
  CHECK_CONTAINS(out, "\"api_version\": \"1.4.312\"");
  CHECK_CONTAINS(out, "\"driver_version\": \"580.159.4.0\"");
  CHECK_CONTAINS(out, "\"timestamp_period\": 1.0");
  CHECK(strstr(out, "\"shader_clock\": {\n      \"extension\": true,\n      \"subgroup\": true,\n      \"device\": true"),
        "shader clocks from the file: %s", out);
  CHECK_CONTAINS(out, "\"limits_per_sm\"");
  CHECK_CONTAINS(out, "\"registers\": null");
  free(out);
  /* -o writes what --json prints, there alone: standard output stays quiet */
  char o1[300];
  snprintf(o1, sizeof o1, "%s/calc.json", dir);
  rc = run_fmt(&out, "%s calc --wg 128 --shmem 0 --from %s/surface-h100.json -o %s", bin, data, o1);
  CHECK(rc == 0 && out[0] == 0, "calc -o printed on stdout too: %s", out);
  free(out);
  char *written = slurp(o1);
  CHECK_CONTAINS(written, "\"schema\": \"vkocc.calc/1\"");
  CHECK_CONTAINS(written, "\"device_type\": \"discrete\"");
  free(written);
  rc = run_fmt(&out, "%s calc --wg 128 --shmem 0 --from %s/surface-h100.json -o /nonexistent/dir/c.json 2>&1", bin, data);
  CHECK(rc == 2 && strstr(out, "vkocc calc: -o: "), "calc -o to a missing directory: exit %d: %s", rc, out);
  free(out);
  /* --csv for one point: a header and one row, the per-SM and per-limit columns of the JSON rows */
  rc = run_fmt(&out, "%s calc --wg 96 --shmem 8K --from %s/h100-grid.csv --csv", bin, data);
  CHECK(rc == 0, "calc --csv one point: exit %d: %s", rc, out);
  CHECK(!strcmp(out, "wg_size,shared_bytes,occupancy_pct,workgroups,subgroups,threads,workgroups_per_sm,"
                     "subgroups_per_sm,threads_per_sm,limit,source,limit_workgroup_slots,limit_subgroup_slots,"
                     "limit_threads,limit_shared_memory\n96,8192,56.25,1584,4752,152064,12,36,1152,shared memory,"
                     "measured,32,21,21,12\n"), "one CSV row: %s", out);
  free(out);
  /* the derived limits worded alike, plural right */
  rc = run_fmt(&out, "%s calc --wg 32 --shmem 0 --from %s", bin,
               file("one.csv", "wg_size,shared_bytes,P\n32,0,1\n64,0,1\n1024,0,1\n"));
  CHECK(rc == 0, "one SM: exit %d", rc);
  CHECK_CONTAINS(out, "derived: 1 SM; per SM: 1 workgroup, ");
  CHECK(!strstr(out, "1 SMs") && !strstr(out, "1 workgroups"), "singular: %s", out);
  free(out);
  /* --suggest-wg: text and JSON */
  rc = run_fmt(&out, "%s calc --suggest-wg --shared-base 20000 --max-wg 512 --from %s/h100-grid.csv", bin, data);
  CHECK(rc == 0, "suggest: exit %d", rc);
  CHECK_CONTAINS(out, "suggested workgroup size: 512 threads, 20000 shared bytes");
  CHECK_CONTAINS(out, "workgroups per SM by limit: workgroup slots 32, subgroup slots 4, threads 4, shared memory 5");
  free(out);
  rc = run_fmt(&out, "%s calc --suggest-wg --shared-per-thread 16 --from %s/h100-grid.csv --json", bin, data);
  CHECK(rc == 0 && strstr(out, "\"suggestion\"") && strstr(out, "\"wg_size\": 1024"), "suggest --json: %s", out);
  free(out);
  rc = run_fmt(&out, "%s calc --suggest-wg --wg 64 --from %s/h100-grid.csv 2>&1", bin, data);
  CHECK(rc == 2 && strstr(out, "--suggest-wg chooses the workgroup size"), "suggest with --wg: %s", out);
  free(out);
  rc = run_fmt(&out, "%s calc --shared-per-thread 16 --wg 64 --shmem 0 --from %s/h100-grid.csv 2>&1", bin, data);
  CHECK(rc == 2 && strstr(out, "go with --suggest-wg"), "--shared-per-thread alone: %s", out);
  free(out);
  /* a CSV row with a field missing names the row; an empty field names the column */
  rc = run_fmt(&out, "%s calc --table --from %s 2>&1", bin, file("miss.csv", "wg_size,shared_bytes,P\n256,2\n"));
  CHECK(rc == 2, "256,2: exit %d", rc);
  CHECK_CONTAINS(out, "miss.csv:2: '256,2': expected 3 comma-separated fields wg_size,shared_bytes,P, found 2");
  free(out);
  rc = run_fmt(&out, "%s calc --table --from %s 2>&1", bin, file("empty.csv", "wg_size,shared_bytes,P\n256,,2\n"));
  CHECK(rc == 2 && strstr(out, "empty.csv:2: shared_bytes is empty"), "256,,2: %s", out);
  free(out);
}

static void test_prefixes(const char *bin, const char *data, bool have_plot) {
  const char *cmds[] = {"calc", "cluster", "plot surface", "fingerprint", "probe", "calibrate", "surface"};
  char *out;
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    if (!have_plot && !strncmp(cmds[i], "plot", 4)) continue; /* without cairo every plot is exit 3 */
    char want[64];
    snprintf(want, sizeof want, "vkocc %.*s: unrecognized option '--bogus'", (int)strcspn(cmds[i], " "), cmds[i]);
    int rc = run_fmt(&out, "%s %s --bogus 2>&1", bin, cmds[i]);
    CHECK(rc == 2, "%s --bogus: exit %d", cmds[i], rc);
    CHECK_CONTAINS(out, want);
    free(out);
  }
  /* cluster -o */
  char o[300];
  snprintf(o, sizeof o, "%s/clusters.json", dir);
  int rc = run_fmt(&out, "%s cluster %s/fp-hopper-132.json %s/fp-rdna-40.json -o %s", bin, data, data, o);
  CHECK(rc == 0, "cluster -o: exit %d", rc);
  free(out);
  char *w = slurp(o);
  CHECK_CONTAINS(w, "\"schema\": \"vkocc.clusters/1\"");
  CHECK_CONTAINS(w, "\"clusters_count\": 2");
  free(w);
}

static void test_plots(const char *bin, const char *data) {
  char *out, svg[300];
  /* comb: three starts far apart, one per bin: the axis reads 0 and 1, not 0, 0, 0, 1, 1 */
  const char *raw = file("raw.json", "{\"schema\": \"vkocc.raw-probe/1\", \"intervals_ns\": [[0, 1000000], "
                                     "[2000000, 3000000], [4000000, 5000000]]}");
  snprintf(svg, sizeof svg, "%s/comb.svg", dir);
  int rc = run_fmt(&out, "%s plot comb %s -o %s 2>&1", bin, raw, svg);
  CHECK(rc == 0, "plot comb: exit %d: %s", rc, out);
  free(out);
  char *t = slurp(svg);
  CHECK(!strstr(t, "\n0\n0\n") && strstr(t, "\n0\n1\n"), "comb y labels: %s", strstr(t, "<desc>") ? strstr(t, "<desc>") : t);
  free(t);
  /* compare: six panels of a long name: each name whole, on two lines where one is too narrow */
  char cmd[1400], args[1200] = "";
  snprintf(cmd, sizeof cmd, "sed 's/\"hopper (132 SMs)\"/\"llvmpipe (LLVM 15.0.6, 256 bits)\"/' %s/fp-hopper-132.json "
           "> %s/long.json", data, dir);
  CHECK(system(cmd) == 0, "long name");
  for (int i = 0; i < 6; i++) snprintf(args + strlen(args), sizeof args - strlen(args), " %s/long.json", dir);
  snprintf(svg, sizeof svg, "%s/compare.svg", dir);
  rc = run_fmt(&out, "%s plot compare%s -o %s --width 1200 2>&1", bin, args, svg);
  CHECK(rc == 0, "plot compare: exit %d: %s", rc, out);
  free(out);
  t = slurp(svg);
  CHECK(count(t, "llvmpipe (LLVM 15.0.6,\n256 bits)") + count(t, "llvmpipe (LLVM 15.0.6, 256 bits)") == 6 &&
        !strstr(t, "..."), "device names whole: %s", strstr(t, "<desc>") ? strstr(t, "<desc>") : t);
  free(t);
  /* wg: measured at 32, 64, 96 and 1024 threads only (no shared memory): between 96 and 1024 the line must
   * follow the model (it rises to 100% at 160 threads, then falls), not run straight from 96 to 1024 */
  const char *sparse = file("sparse.json", "{\"schema\": \"vkocc.surface/1\", \"subgroup_size\": 32, \"points\": ["
                            "{\"wg_size\": 32, \"shared_bytes\": 0, \"P\": 4224}, {\"wg_size\": 1024, \"shared_bytes\": 0, "
                            "\"P\": 264}, {\"wg_size\": 64, \"shared_bytes\": 8192, \"P\": 1584}, {\"wg_size\": 96, "
                            "\"shared_bytes\": 8192, \"P\": 1584}, {\"wg_size\": 1024, \"shared_bytes\": 8192, \"P\": 264}, "
                            "{\"wg_size\": 32, \"shared_bytes\": 16384, \"P\": 792}]}");
  snprintf(svg, sizeof svg, "%s/wg.svg", dir);
  rc = run_fmt(&out, "%s plot wg %s --shmem 0 -o %s 2>&1", bin, sparse, svg);
  CHECK(rc == 0, "plot wg: exit %d: %s", rc, out);
  free(out);
  t = slurp(svg);
  /* the series' line: the first path stroked 1.5 wide (one line); x is linear in the workgroup size, from the
   * first vertex (32 threads) to the last (1024) */
  const char *line = strstr(t, "stroke-width:1.5");
  const char *d = line ? strstr(line, "d=\"M ") : NULL;
  uint32_t between = 0, vertices = 0;
  double xs[8192];
  for (const char *p = d ? d + 3 : NULL; p && *p && *p != '"' && vertices < 8192;) {
    double x, y;
    int used;
    if (sscanf(p, " %*[ML] %lf %lf%n", &x, &y, &used) != 2) break;
    xs[vertices++] = x;
    p += used;
  }
  if (vertices >= 2) {
    double x32 = xs[0], x1024 = xs[vertices - 1], per = (x1024 - x32) / (1024 - 32), x96 = x32 + per * 64;
    for (uint32_t i = 0; i < vertices; i++) between += xs[i] > x96 + 1 && xs[i] < x1024 - 1;
  }
  CHECK(vertices >= 4 && between >= 3, "plot wg: %u vertices, %u between 96 and 1024 threads", vertices, between);
  free(t);
}

int main(int argc, char **argv) {
  if (argc < 3 || !mkdtemp(dir)) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *data = argv[2];
  /* a vkocc built without cairo (VKOCC_WITH_VIEWER=OFF) answers --help but refuses every plot with 3 */
  char *o;
  int rc = run_fmt(&o, "%s plot surface %s/none.csv -o %s/none.svg 2>&1", bin, dir, dir);
  bool have_plot = rc != 3;
  free(o);
  test_calc(bin, data);
  test_prefixes(bin, data, have_plot);
  if (have_plot) test_plots(bin, data);
  else printf("plot: not built with cairo; the plot checks are skipped\n");
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 2;
  return check_report();
}
