#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc view FILE [--width W --height H] [--script KEYS] [--screenshot OUT.png]\n"
    "Interactive surface viewer (GLFW): arrow keys or the mouse move a cursor over workgroup size and\n"
    "shared memory; the readout shows P, occupancy and the binding limit there. Q or Escape closes.\n"
    "FILE is any surface vkocc writes (surface, surface --shader --vary, fingerprint, calc -o JSON) or a CSV\n"
    "wg_size,shared_bytes,P (calc --csv output reads back too).\n"
    "--script KEYS: comma-separated keys (left,right,up,down) applied after the first frame, through the\n"
    "same handler as the keyboard; --screenshot OUT.png: save the window's framebuffer, then close.\n";

#if defined(VKOCC_HAVE_GLFW) && defined(VKOCC_HAVE_CAIRO)
#include <cairo.h>
#include <GLFW/glfw3.h>

typedef struct {
  vkocc_surface s;
  vkocc_derived d;
  uint32_t nw, ns;
  int cw, cs; /* cursor: workgroup-size row, shared-memory column */
  bool dirty;
} view_state;

static void move(view_state *v, int key) {
  if (key == GLFW_KEY_LEFT && v->cs > 0) v->cs--;
  if (key == GLFW_KEY_RIGHT && v->cs + 1 < (int)v->ns) v->cs++;
  if (key == GLFW_KEY_DOWN && v->cw > 0) v->cw--;
  if (key == GLFW_KEY_UP && v->cw + 1 < (int)v->nw) v->cw++;
  v->dirty = true;
}

static void on_key(GLFWwindow *w, int key, int sc, int action, int mods) {
  (void)sc, (void)mods;
  if (action == GLFW_RELEASE) return;
  if (key == GLFW_KEY_ESCAPE || key == GLFW_KEY_Q) glfwSetWindowShouldClose(w, 1);
  else move(glfwGetWindowUserPointer(w), key);
}

static void on_cursor(GLFWwindow *w, double x, double y) {
  view_state *v = glfwGetWindowUserPointer(w);
  int W, H;
  glfwGetWindowSize(w, &W, &H);
  int cw, cs; /* the point nearest the pointer, by the heatmap's own layout */
  if (vkocc_plot_surface_cell_at(&v->s, W, H, x, y, &cw, &cs) && (cs != v->cs || cw != v->cw)) {
    v->cs = cs, v->cw = cw, v->dirty = true;
  }
}

/* Renders into the back buffer; swap decides whether it is shown now (a screenshot reads it first). */
static void render(GLFWwindow *w, view_state *v, cairo_surface_t *img, bool swap) {
  int W = cairo_image_surface_get_width(img), H = cairo_image_surface_get_height(img);
  cairo_t *cr = cairo_create(img);
  vkocc_plot_draw_surface(cr, W, H, &v->s, &v->d, v->cw, v->cs);
  cairo_destroy(cr);
  cairo_surface_flush(img);
  glClearColor(1, 1, 1, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  glRasterPos2f(-1, 1);
  glPixelZoom(1, -1); /* cairo rows go down, GL rows go up */
  glPixelStorei(GL_UNPACK_ROW_LENGTH, cairo_image_surface_get_stride(img) / 4);
  glDrawPixels(W, H, GL_BGRA, GL_UNSIGNED_BYTE, cairo_image_surface_get_data(img));
  glFinish();
  if (swap) glfwSwapBuffers(w);
  v->dirty = false;
}

static void draw(GLFWwindow *w, view_state *v, cairo_surface_t *img) { render(w, v, img, true); }

static cairo_status_t png_sink(void *f, const unsigned char *data, unsigned int n) {
  return fwrite(data, 1, n, f) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int screenshot(GLFWwindow *w, const char *path) {
  int W, H;
  glfwGetFramebufferSize(w, &W, &H);
  cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
  unsigned char *px = cairo_image_surface_get_data(img);
  int stride = cairo_image_surface_get_stride(img);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ROW_LENGTH, stride / 4);
  unsigned char *tmp = cli_xmalloc((size_t)stride * H);
  glReadPixels(0, 0, W, H, GL_BGRA, GL_UNSIGNED_BYTE, tmp);
  for (int y = 0; y < H; y++) memcpy(px + (size_t)y * stride, tmp + (size_t)(H - 1 - y) * stride, (size_t)stride);
  free(tmp);
  cairo_surface_mark_dirty(img);
  /* encoded in memory, then written by the one atomic writer (checks on the target, temporary + rename) */
  char *png = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&png, &len);
  cairo_status_t st = f ? cairo_surface_write_to_png_stream(img, png_sink, f) : CAIRO_STATUS_NO_MEMORY;
  if (f && fclose(f) != 0 && st == CAIRO_STATUS_SUCCESS) st = CAIRO_STATUS_NO_MEMORY;
  cairo_surface_destroy(img);
  vkocc_status s = st == CAIRO_STATUS_SUCCESS ? vkocc_write_file_atomic(path, png, len)
                                              : vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot encode the PNG (%s)", path,
                                                           cairo_status_to_string(st));
  free(png);
  return s ? cli_fail("view", s) : 0;
}

int cmd_view(cli_run *run, int argc, char **argv) {
  uint32_t width = 1000, height = 700;
  const char *script = NULL, *shot = NULL;
  static const struct option opts[] = {{"width", required_argument, 0, 'W'}, {"height", required_argument, 0, 'H'},
                                       {"script", required_argument, 0, 's'}, {"screenshot", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (ch) {
    case 'W': if (!cli_parse_u32(optarg, false, &width) || width < 400 || width > 4000) return cli_error("view", 2, "--width '%s': expected 400..4000", optarg); break;
    case 'H': if (!cli_parse_u32(optarg, false, &height) || height < 300 || height > 4000) return cli_error("view", 2, "--height '%s': expected 300..4000", optarg); break;
    case 's': script = optarg; break;
    case 'o': shot = optarg; break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind + 1 != argc) return cli_error("view", 2, "give one surface file (see --help)");
  if (shot && (strlen(shot) < 4 || strcasecmp(shot + strlen(shot) - 4, ".png")))
    return cli_error("view", 2, "--screenshot '%s': expected a .png path", shot);
  int orc = cli_check_output("view", "--screenshot", shot);
  if (orc) return orc;
  /* the script is checked before anything opens */
  int keys[256], nkeys = 0;
  if (script) {
    char *copy = cli_xstrdup(script), *save = NULL;
    for (char *k = strtok_r(copy, ",", &save); k && nkeys < 256; k = strtok_r(NULL, ",", &save)) {
      int key = !strcmp(k, "left") ? GLFW_KEY_LEFT : !strcmp(k, "right") ? GLFW_KEY_RIGHT : !strcmp(k, "up") ? GLFW_KEY_UP
                : !strcmp(k, "down") ? GLFW_KEY_DOWN : -1;
      if (key < 0) {
        int rc = cli_error("view", 2, "--script: unknown key '%s' (left, right, up, down)", k);
        free(copy);
        return rc;
      }
      keys[nkeys++] = key;
    }
    free(copy);
  }
  view_state v = {0};
  bool model_only;
  vkocc_status st = vkocc_surface_load_model(argv[optind], &v.s, &v.d, &model_only);
  if (st) return cli_fail("view", st);
  if (model_only) {
    vkocc_surface_free(&v.s);
    return cli_error("view", 2, "view needs a measured surface: %s is a fingerprint without one (its normalized "
                     "surface: vkocc plot compare %s)", argv[optind], argv[optind]);
  }
  if ((st = vkocc_derive(v.s.points, v.s.count, v.s.subgroup_size, &v.d))) {
    vkocc_surface_free(&v.s);
    return cli_fail("view", st);
  }
  vkocc_plot_surface_grid(&v.s, &v.nw, &v.ns);
  if (!glfwInit()) {
    vkocc_surface_free(&v.s);
    return cli_error("view", 3, "cannot open a window: GLFW found no display (is DISPLAY set? try xvfb-run)");
  }
  glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  GLFWwindow *w = glfwCreateWindow((int)width, (int)height, "vkocc view", NULL, NULL);
  if (!w) {
    glfwTerminate();
    vkocc_surface_free(&v.s);
    return cli_error("view", 3, "cannot open a %ux%u OpenGL window", width, height);
  }
  glfwMakeContextCurrent(w);
  glfwSetWindowUserPointer(w, &v);
  glfwSetKeyCallback(w, on_key);
  glfwSetCursorPosCallback(w, on_cursor);
  cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)width, (int)height);
  draw(w, &v, img);
  for (int i = 0; i < nkeys; i++) {
    on_key(w, keys[i], 0, GLFW_PRESS, 0);
    draw(w, &v, img);
  }
  int rc = 0;
  if (shot) {
    render(w, &v, img, false); /* the current frame, read from the back buffer before it is shown */
    rc = screenshot(w, shot);
  } else {
    while (!glfwWindowShouldClose(w)) {
      glfwWaitEvents();
      if (v.dirty) draw(w, &v, img);
    }
  }
  cairo_surface_destroy(img);
  glfwDestroyWindow(w);
  glfwTerminate();
  vkocc_surface_free(&v.s);
  return rc;
}
#else
int cmd_view(cli_run *run, int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) { fputs(help, stdout); return 0; }
  return cli_error("view", 3, "this vkocc was built without GLFW (install libglfw3-dev and rebuild)");
}
#endif
