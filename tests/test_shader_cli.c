/* vkocc probe/calc/surface --shader on lavapipe (LP_NUM_THREADS=2): P in the probe JSON shape, the limit
 * that binds against a surface, a sweep over specialization constants, and bad input: one line, exit 2,
 * nothing written. argv: vkocc binary, tests/shaders source dir, build dir of the .spv files. */
#include "check.h"
#include "run.h"
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: %s VKOCC SRC_DIR SPV_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *src = argv[2], *spv = argv[3];
  char *out;
  char cache[] = "/tmp/vkocc-shader-cli-XXXXXX"; /* calc --shader caches: start from none */
  CHECK(mkdtemp(cache) != NULL, "mkdtemp");
  setenv("XDG_CACHE_HOME", cache, 1);
  /* probe.P in the usual JSON shape, from glslc's SPIR-V with the workgroup size specialized */
  /* the comb only undercounts (a worker thread starved by a loaded CI machine): up to 3 tries for P = 2 */
  int rc = 0;
  json_error_t e;
  json_t *doc = NULL;
  for (int attempt = 0; attempt < 3; attempt++) {
    if (attempt) free(out);
    json_decref(doc);
    rc = run_fmt(&out, "%s probe --shader %s/histogram.comp.spv --spec 0=64 --spec 1=512 --method comb --no-cache "
                 "--json 2>/dev/null", bin, spv);
    doc = json_loads(out, 0, &e);
    if (doc && json_integer_value(json_object_get(json_object_get(doc, "probe"), "P")) == 2) break;
  }
  CHECK(rc == 0, "probe --shader exit %d: %s", rc, out);
  CHECK(doc != NULL, "JSON: %s", e.text);
  if (doc) {
    CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(doc, "probe"), "P")), 2);
    json_t *sh = json_object_get(doc, "shader");
    CHECK_EQ_U(json_integer_value(json_object_get(sh, "wg_size")), 64);
    CHECK_EQ_U(json_integer_value(json_object_get(sh, "shared_bytes")), 2048);
    json_decref(doc);
  }
  free(out);
  /* against a surface: per SM and the binding limit */
  for (int attempt = 0; attempt < 3; attempt++) {
    if (attempt) free(out);
    rc = run_fmt(&out, "%s probe --shader %s/reduction.hlsl --entry CSMain --method comb --from %s/lvp2-surface.csv "
                 "--no-cache 2>&1", bin, src, src);
    if (strstr(out, "P = 2")) break;
  }
  CHECK(rc == 0, "probe --from exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "P = 2");
  CHECK_CONTAINS(out, "per SM: 1.00 workgroups measured (2 SMs)");
  CHECK_CONTAINS(out, "surface predicts P = 2; binding limit: workgroup slots");
  free(out);
  /* calc --shader: one point live */
  for (int attempt = 0; attempt < 3; attempt++) {
    if (attempt) free(out);
    rc = run_fmt(&out, "%s calc --shader %s/uniform_image.comp 2>&1", bin, src);
    if (strstr(out, "P = 2")) break;
  }
  CHECK(rc == 0, "calc --shader exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "workgroup 8x8x1 (64 threads), 0 shared bytes");
  CHECK_CONTAINS(out, "P = 2");
  free(out);
  /* surface --shader --vary: every combination, written to a file */
  char path[] = "/tmp/vkocc-shsurf-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  unlink(path);
  rc = run_fmt(&out, "%s surface --shader %s/histogram.comp --vary 0=32,128 --vary 1=64,2048 -o %s 2>&1", bin, src, path);
  CHECK(rc == 0, "surface --shader exit %d: %s", rc, out);
  /* every combination, in order (exact P is test_shader_lvp's, with retries; one sweep here may undercount) */
  CHECK_CONTAINS(out, "32         64         32       256 ");
  CHECK_CONTAINS(out, "128        2048       128      8192 ");
  json_t *sd = json_load_file(path, 0, &e);
  CHECK(sd != NULL, "surface file: %s", e.text);
  if (sd) {
    json_t *pts = json_object_get(sd, "points");
    CHECK_EQ_U(json_array_size(pts), 4);
    const uint32_t want_wg[4] = {32, 32, 128, 128}, want_sh[4] = {256, 8192, 256, 8192};
    for (size_t i = 0; i < json_array_size(pts) && i < 4; i++) {
      json_t *p = json_array_get(pts, i);
      json_int_t P = json_integer_value(json_object_get(p, "P"));
      CHECK(json_integer_value(json_object_get(p, "wg_size")) == want_wg[i] &&
            json_integer_value(json_object_get(p, "shared_bytes")) == want_sh[i] && P >= 1 && P <= 2,
            "point %zu: P %lld", i, (long long)P);
    }
    json_decref(sd);
  }
  unlink(path);
  free(out);

  /* bad input: exit 2, one line, no output file */
  struct { const char *args, *needle; } bad[] = {
      {"probe --shader %s/bad_syntax.comp", "bad_syntax.comp:5: error"},
      {"probe --shader %s/too_much_shared.comp", "above maxComputeSharedMemorySize"},
      {"probe --shader %s/histogram.comp --spec 5=1", "no specialization constant with ID 5"},
      {"probe --shader %s/reduction.comp --entry other", "no entry point 'other'"},
      {"probe --shader %s/nonexistent.comp", "cannot read the shader file"},
      {"probe --shader %s/histogram.comp --wg 64", "drop --wg"},
      {"surface --shader %s/histogram.comp --vary 0=64 --spec 7=1 -o /tmp/vkocc-never-written.json",
       "no specialization constant with ID 7"},
  };
  unlink("/tmp/vkocc-never-written.json");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char fmt[512];
    snprintf(fmt, sizeof fmt, "%%s %s 2>&1", bad[i].args);
    rc = run_fmt(&out, fmt, bin, src);
    CHECK(rc == 2, "'%s': exit %d", bad[i].args, rc);
    CHECK_CONTAINS(out, bad[i].needle);
    CHECK(strchr(out, '\n') == out + strlen(out) - 1, "one line: %s", out);
    free(out);
  }
  CHECK(access("/tmp/vkocc-never-written.json", F_OK) != 0, "nothing written on bad input");
  rc = run_fmt(&out, "%s probe --shader %s/fragment.frag.spv 2>&1", bin, spv);
  CHECK(rc == 2, "fragment: exit %d", rc);
  CHECK_CONTAINS(out, "no compute entry point");
  free(out);
  /* a module that does not compile is refused before a device is opened: the same line on a machine with none */
  static const char *const cmds[] = {"calc", "probe", "surface"};
  for (int k = 0; k < 3; k++) {
    rc = run_fmt(&out,
                 "VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json %s %s --shader "
                 "%s/../hostile/set_100.comp%s 2>&1",
                 bin, cmds[k], src, k == 2 ? " --vary 0=64" : "");
    CHECK(rc == 2, "%s --shader, no device, a module that does not compile: exit %d", cmds[k], rc);
    CHECK_CONTAINS(out, "set_100.comp does not compile");
    CHECK(strchr(out, '\n') == out + strlen(out) - 1, "one line: %s", out);
    free(out);
  }
  char rm[256];
  snprintf(rm, sizeof rm, "rm -rf '%s'", cache);
  CHECK(system(rm) == 0, "removing %s", cache);
  return check_report();
}
