/* Plots from committed data: each kind renders at the requested size, is not blank (many distinct colours in
 * the plot area), SVG carries the axis titles and the device name; bad input leaves no output file. The
 * interactive viewer opens under Xvfb, moves its cursor, screenshots and closes (when built with GLFW). */
#include "check.h"
#include "run.h"
#include <cairo.h>
#include <stdint.h>
#include <unistd.h>

static char dir[] = "/tmp/vkocc-plot-XXXXXX";

/* distinct colours in the central 60% of the image (the plot area) */
static unsigned distinct_colours(const char *png, int *w, int *h) {
  cairo_surface_t *s = cairo_image_surface_create_from_png(png);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) { *w = *h = 0; return 0; }
  *w = cairo_image_surface_get_width(s);
  *h = cairo_image_surface_get_height(s);
  const unsigned char *px = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  static uint32_t seen[4096];
  unsigned n = 0;
  for (int y = *h / 5; y < *h * 4 / 5 && n < 4096; y += 2)
    for (int x = *w / 5; x < *w * 4 / 5 && n < 4096; x += 2) {
      uint32_t c = *(const uint32_t *)(px + (size_t)y * stride + 4 * (size_t)x) & 0xFFFFFF;
      bool found = false;
      for (unsigned k = 0; k < n && !found; k++) found = seen[k] == c;
      if (!found) seen[n++] = c;
    }
  cairo_surface_destroy(s);
  return n;
}

static void check_png(const char *bin, const char *args, int w, int h, unsigned min_colours, const char *name) {
  char *out;
  int rc = run_fmt(&out, "%s plot %s -o %s/%s.png --width %d --height %d 2>&1", bin, args, dir, name, w, h);
  CHECK(rc == 0, "%s: exit %d: %s", name, rc, out);
  free(out);
  char png[300];
  snprintf(png, sizeof png, "%s/%s.png", dir, name);
  int pw, ph;
  unsigned n = distinct_colours(png, &pw, &ph);
  CHECK(pw == w && ph == h, "%s: size %dx%d, asked %dx%d", name, pw, ph, w, h);
  CHECK(n >= min_colours, "%s: only %u distinct colours in the plot area", name, n);
}

static void check_svg(const char *bin, const char *args, const char *name, const char *const *needles, int nn) {
  char *out;
  int rc = run_fmt(&out, "%s plot %s -o %s/%s.svg 2>&1", bin, args, dir, name);
  CHECK(rc == 0, "%s svg: exit %d: %s", name, rc, out);
  free(out);
  rc = run_fmt(&out, "cat %s/%s.svg", dir, name);
  for (int i = 0; i < nn; i++) CHECK(strstr(out, needles[i]) != NULL, "%s.svg lacks '%s'", name, needles[i]);
  free(out);
}

static void check_bad(const char *bin, const char *args, const char *outname, int want_rc, const char *needle) {
  char *out, path[300];
  snprintf(path, sizeof path, "%s/%s", dir, outname);
  int rc = run_fmt(&out, "%s plot %s -o %s 2>&1", bin, args, path);
  CHECK(rc == want_rc, "bad '%s': exit %d, expected %d", args, rc, want_rc);
  CHECK_CONTAINS(out, needle);
  CHECK(strchr(out, '\n') == out + strlen(out) - 1, "error must be one line: %s", out);
  CHECK(access(path, F_OK) != 0, "no output file may be left: %s", path);
  free(out);
  char *ls;
  run_fmt(&ls, "ls %s | grep -c tmp || true", dir);
  CHECK(atoi(ls) == 0, "temporary files left in %s", dir);
  free(ls);
}

int main(int argc, char **argv) {
  if (argc < 3 || !mkdtemp(dir)) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *data = argv[2];
  char a[1024];
  /* the renders: surface has a full viridis heatmap; wg lines; comb bars; compare three panels */
  snprintf(a, sizeof a, "surface %s/surface-h100.json", data);
  check_png(bin, a, 900, 640, 40, "surface");
  /* SVG labels are <text> elements (searchable); every one of the file's 47 shared sizes is drawn (the 11 of
   * the ladder and the refinements); the caption says what the numbers and colours mean */
  const char *svg_surface[] = {"NVIDIA H100 80GB HBM3", ">workgroup size [threads]</text>",
                               ">shared memory per workgroup [KiB]</text>",
                               "occupancy [% of the per-SM thread maximum]", "the 47 shared sizes",
                               "on the whole device (not per SM)", "132 SMs, 2048 threads per SM"};
  check_svg(bin, a, "surface", svg_surface, 7);
  /* a calc CSV with model rows: they read as predicted and are marked (the caption counts them) */
  char *cout;
  run_fmt(&cout, "%s calc --from %s/surface-h100.json --table --shmem 20000 --csv > %s/mixed.csv", bin, data, dir);
  free(cout);
  snprintf(a, sizeof a, "surface %s/mixed.csv --width 3000", dir); /* wide: the caption on one line */
  const char *svg_pred[] = {"Corner mark: predicted (by the adaptive surface or calc's model; 32 of 32)"};
  check_svg(bin, a, "predicted", svg_pred, 1);
  snprintf(a, sizeof a, "wg %s/surface-h100.json --shmem 0,8K,32K", data);
  check_png(bin, a, 800, 500, 6, "wg");
  const char *svg_wg[] = {"NVIDIA H100 80GB HBM3", "workgroup size [threads]", "8 KiB shared memory", ">measured</text>",
                          ">predicted, not measured</text>"};
  check_svg(bin, a, "wg", svg_wg, 5);
  /* by default a line per size of the ladder (six spread over it, the first and the last included) */
  snprintf(a, sizeof a, "wg %s/surface-h100.json", data);
  const char *svg_wg_default[] = {">0 KiB shared memory</text>", ">48 KiB shared memory</text>",
                                  ">12 KiB shared memory</text>"};
  check_svg(bin, a, "wg-default", svg_wg_default, 3);
  snprintf(a, sizeof a, "wg %s/surface-h100.json --shmem 0,8K,32K", data);
  snprintf(a, sizeof a, "comb %s/raw-comb-h100.json", data);
  check_png(bin, a, 700, 400, 3, "comb");
  const char *svg_comb[] = {"NVIDIA H100 80GB HBM3", "P = 792", "workgroups started in the tooth"};
  check_svg(bin, a, "comb", svg_comb, 3);
  snprintf(a, sizeof a, "compare %s/fp-hopper-132.json %s/fp-ampere-82.json %s/fp-rdna-40.json", data, data, data);
  check_png(bin, a, 1200, 600, 20, "compare");
  const char *svg_cmp[] = {"hopper (132 SMs)", "c1-dace7ddcd2e0", "ampere-ga102 (82 SMs)", "workgroups per SM (log scale)",
                           "distance to the first: ", ">beyond the</text>"};
  check_svg(bin, a, "compare", svg_cmp, 6);
  char *out;
  int rc = run_fmt(&out, "%s plot surface %s/h100-grid.csv -o %s/csv.pdf && head -c 5 %s/csv.pdf", bin, data, dir, dir);
  CHECK(rc == 0 && !strncmp(out, "%PDF-", 5), "pdf from csv: %s", out);
  free(out);
  /* a PDF is a 6.5 x 4 inch page by default (468 x 288 points), --width/--height in points otherwise */
  rc = run_fmt(&out, "grep -a -c 'MediaBox \\[ 0 0 468 288 \\]' %s/csv.pdf", dir);
  CHECK(rc == 0 && atoi(out) >= 1, "default PDF page is not 468 x 288: %s", out);
  free(out);
  /* bad input: one line, non-zero exit, no file */
  check_bad(bin, "surface /nonexistent.json", "x.png", 2, "/nonexistent.json");
  snprintf(a, sizeof a, "surface %s/policy-db.json", data);
  check_bad(bin, a, "x.png", 2, "$.schema: expected \"vkocc.surface/1\"");
  snprintf(a, sizeof a, "printf '{\"schema\":\"vkocc.surface/1\",\"points\":[]}' > %s/empty.json; %s plot surface %s/empty.json",
           dir, bin, dir);
  rc = run_fmt(&out, "%s -o %s/e.png 2>&1", a, dir);
  CHECK(rc == 2 && strstr(out, "the surface is empty") && access("e.png", F_OK) != 0, "empty surface: %s", out);
  free(out);
  snprintf(a, sizeof a, "surface %s/surface-h100.json", data);
  check_bad(bin, a, "x.gif", 2, "unknown image type");
  snprintf(a, sizeof a, "comb %s/surface-h100.json", data);
  check_bad(bin, a, "x.png", 2, "$.schema: expected \"vkocc.raw-probe/1\"");
  snprintf(a, sizeof a, "compare %s/surface-h100.json", data);
  check_bad(bin, a, "x.png", 2, "$.schema: expected \"vkocc.fingerprint/3\"");
  rc = run_fmt(&out, "%s plot pie %s/surface-h100.json -o %s/p.png 2>&1", bin, data, dir);
  CHECK(rc == 2 && strstr(out, "unknown plot 'pie'"), "unknown kind: %s", out);
  free(out);
  /* the interactive viewer under Xvfb: open, move, screenshot, close */
  rc = run_fmt(&out, "%s view --help", bin);
  bool have_view = rc == 0 && strstr(out, "usage: vkocc view");
  free(out);
  if (have_view && system("command -v xvfb-run > /dev/null") == 0) {
    rc = run_fmt(&out, "xvfb-run -a %s view %s/surface-h100.json --script right,right,right,up,up,up,up,up "
                 "--screenshot %s/view.png 2>&1", bin, data, dir);
    CHECK(rc == 0, "view under Xvfb: exit %d: %s", rc, out);
    free(out);
    char png[300];
    snprintf(png, sizeof png, "%s/view.png", dir);
    int w, h;
    unsigned n = distinct_colours(png, &w, &h);
    CHECK(w == 1000 && h == 700 && n >= 40, "view screenshot %dx%d with %u colours", w, h, n);
    /* the cursor is drawn in red (1, 0.2, 0.2) around wg 192, 6 KiB: the screenshot must contain it */
    cairo_surface_t *s = cairo_image_surface_create_from_png(png);
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), red = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const unsigned char *p = px + (size_t)y * stride + 4 * (size_t)x; /* BGRA */
        red += p[2] > 240 && p[1] > 40 && p[1] < 60 && p[0] > 40 && p[0] < 60;
      }
    cairo_surface_destroy(s);
    CHECK(red > 50, "the cursor is not in the screenshot (%d red pixels)", red);
    rc = run_fmt(&out, "xvfb-run -a %s view %s/surface-h100.json --script sideways --screenshot %s/v2.png 2>&1", bin, data, dir);
    CHECK(rc == 2 && strstr(out, "unknown key 'sideways'"), "bad script key: %s", out);
    free(out);
  } else {
    printf("view: not built with GLFW or no xvfb-run; the viewer test is skipped\n");
  }
  /* occupancy against registers, shared memory and workgroup size (a register document) */
  snprintf(a, sizeof a, "registers %s/registers-synthetic-h100.json --wg 256 --regs 89 --shmem 256", data);
  check_png(bin, a, 1200, 500, 4, "registers");
  const char *svg_regs[] = {"registers per invocation", "89: 25.0%", "shared memory per workgroup", "workgroup size"};
  check_svg(bin, a, "registers", svg_regs, 4);
  snprintf(a, sizeof a, "registers %s/h100-grid.csv --wg 256 --regs 89", data);
  check_bad(bin, a, "r.png", 2, "h100-grid.csv");
  snprintf(a, sizeof a, "rm -rf %s", dir);
  if (system(a)) return 2;
  return check_report();
}
