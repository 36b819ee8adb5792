/* Plots with cairo: PNG, SVG or PDF by file extension. Colours: viridis for values (perceptually uniform,
 * colour-blind safe), Okabe-Ito for lines. Each plot draws into a canvas encoded in memory and written
 * (vkocc_write_file_atomic: temporary file and rename) only when everything succeeded. */
#include "internal.h"
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include "viewer.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { FMT_PNG, FMT_SVG, FMT_PDF } fmt;

typedef struct {
  cairo_surface_t *surface;
  cairo_t *cr;
  fmt format;
  const char *path; /* the caller's, alive until canvas_close */
  char *buf;        /* the encoded image, written to path at once by vkocc_write_file_atomic */
  size_t len, cap;
  double w, h;
} canvas;

/* Every label drawn, so SVG output can carry them as <title>/<desc>: cairo draws text as glyph outlines,
 * which neither screen readers nor searches can read. */
static _Thread_local char *labels;
static _Thread_local size_t labels_len;

static void record_label(const char *s) {
  size_t n = strlen(s);
  labels = realloc(labels, labels_len + n + 2);
  memcpy(labels + labels_len, s, n);
  labels_len += n;
  labels[labels_len++] = '\n';
  labels[labels_len] = 0;
}

static void xml_escape(FILE *f, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '<') fputs("&lt;", f);
    else if (c == '>') fputs("&gt;", f);
    else if (c == '&') fputs("&amp;", f);
    else fputc(c, f);
  }
}

/* cairo's stream sink: the image is encoded into memory, so nothing is written under any name until it
 * is complete (and then through the one atomic writer, with its checks on the target). */
static cairo_status_t buf_write(void *closure, const unsigned char *data, unsigned int n) {
  canvas *c = closure;
  if (c->len + n + 1 > c->cap) {
    size_t cap = c->cap ? c->cap : 1 << 16;
    while (cap < c->len + n + 1) cap *= 2;
    char *b = realloc(c->buf, cap);
    if (!b) return CAIRO_STATUS_WRITE_ERROR;
    c->buf = b, c->cap = cap;
  }
  memcpy(c->buf + c->len, data, n);
  c->len += n;
  c->buf[c->len] = 0;
  return CAIRO_STATUS_SUCCESS;
}

/* Inserts <title> (the first label) and <desc> (all labels) after the <svg ...> tag. */
static bool svg_add_text(canvas *c) {
  char *svg = c->buf, *tag = svg ? strstr(svg, "<svg") : NULL, *end = tag ? strchr(tag, '>') : NULL;
  char *out = NULL;
  size_t n = 0;
  FILE *f = end ? open_memstream(&out, &n) : NULL;
  if (!f) return false;
  fwrite(svg, 1, (size_t)(end + 1 - svg), f);
  const char *nl = labels ? strchr(labels, '\n') : NULL;
  fputs("\n<title>", f);
  if (nl) xml_escape(f, labels, (size_t)(nl - labels));
  fputs("</title>\n<desc>", f);
  if (labels) xml_escape(f, labels, labels_len);
  fputs("</desc>", f);
  fwrite(end + 1, 1, c->len - (size_t)(end + 1 - svg), f);
  bool ok = !ferror(f);
  ok = fclose(f) == 0 && ok;
  free(c->buf);
  c->buf = out, c->len = n, c->cap = n;
  return ok;
}

static vkocc_status canvas_open(canvas *c, const char *path, const vkocc_plot_options *o) {
  memset(c, 0, sizeof *c);
  free(labels);
  labels = NULL;
  labels_len = 0;
  const char *ext = strrchr(path, '.');
  if (ext && !strcasecmp(ext, ".png")) c->format = FMT_PNG;
  else if (ext && !strcasecmp(ext, ".svg")) c->format = FMT_SVG;
  else if (ext && !strcasecmp(ext, ".pdf")) c->format = FMT_PDF;
  else return vkocc_fail(VKOCC_ERROR_USAGE, "%s: unknown image type (use .png, .svg or .pdf)", path);
  c->w = o && o->width ? o->width : 1000;
  c->h = o && o->height ? o->height : 700;
  if (c->w < 200 || c->h < 150 || c->w > 10000 || c->h > 10000)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: size %gx%g is outside 200x150 .. 10000x10000", path, c->w, c->h);
  vkocc_status s = vkocc_output_check(path); /* a directory, device or missing folder: say so before drawing */
  if (s) return s;
  c->path = path;
  if (c->format == FMT_PNG) c->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)c->w, (int)c->h);
  else if (c->format == FMT_SVG) c->surface = cairo_svg_surface_create_for_stream(buf_write, c, c->w, c->h);
  else c->surface = cairo_pdf_surface_create_for_stream(buf_write, c, c->w, c->h);
  cairo_status_t st = cairo_surface_status(c->surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(c->surface);
    free(c->buf);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot create the image: %s", path, cairo_status_to_string(st));
  }
  c->cr = cairo_create(c->surface);
  cairo_set_source_rgb(c->cr, 1, 1, 1);
  cairo_paint(c->cr);
  return VKOCC_OK;
}

static vkocc_status canvas_close(canvas *c, bool ok) {
  cairo_status_t st = cairo_status(c->cr);
  cairo_destroy(c->cr);
  if (ok && st == CAIRO_STATUS_SUCCESS && c->format == FMT_PNG)
    st = cairo_surface_write_to_png_stream(c->surface, buf_write, c);
  cairo_surface_finish(c->surface);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(c->surface);
  cairo_surface_destroy(c->surface);
  bool text_ok = !ok || st != CAIRO_STATUS_SUCCESS || c->format != FMT_SVG || svg_add_text(c);
  free(labels);
  labels = NULL;
  labels_len = 0;
  vkocc_status s = VKOCC_OK;
  if (!ok) s = VKOCC_ERROR_USAGE; /* the caller has set the message */
  else if (st != CAIRO_STATUS_SUCCESS || !text_ok)
    s = vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot encode the image (%s)", c->path,
                   st != CAIRO_STATUS_SUCCESS ? cairo_status_to_string(st) : "out of memory");
  else s = vkocc_write_file_atomic(c->path, c->buf, c->len);
  free(c->buf);
  c->buf = NULL;
  return s;
}

/* viridis, sampled at 9 points and interpolated */
static void viridis(double t, double rgb[3]) {
  static const double v[9][3] = {{0.267, 0.005, 0.329}, {0.283, 0.141, 0.458}, {0.254, 0.265, 0.530},
                                 {0.207, 0.372, 0.553}, {0.164, 0.471, 0.558}, {0.128, 0.567, 0.551},
                                 {0.135, 0.659, 0.518}, {0.478, 0.821, 0.318}, {0.993, 0.906, 0.144}};
  if (!(t >= 0)) t = 0;
  if (t > 1) t = 1;
  double x = t * 8;
  int i = (int)x;
  if (i >= 8) i = 7;
  double f = x - i;
  for (int k = 0; k < 3; k++) rgb[k] = v[i][k] * (1 - f) + v[i + 1][k] * f;
}

/* 1, 2 or 5 times a power of ten, giving about `want` intervals over span */
static double nice_step(double span, int want) {
  double raw = span / want, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static const double okabe_ito[8][3] = {{0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451},
                                       {0.800, 0.475, 0.655}, {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914},
                                       {0.941, 0.894, 0.259}, {0.000, 0.000, 0.000}};

typedef enum { LEFT, CENTER, RIGHT } align;

static void text(cairo_t *cr, double x, double y, double size, bool bold, align a, const char *s) {
  record_label(s);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  double dx = a == LEFT ? 0 : a == CENTER ? -e.width / 2 - e.x_bearing : -e.width - e.x_bearing;
  cairo_move_to(cr, x + dx, y);
  cairo_show_text(cr, s);
}

static double text_width(cairo_t *cr, double size, const char *s) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  return e.width;
}

static void vtext(cairo_t *cr, double x, double y, double size, const char *s) {
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -M_PI / 2);
  text(cr, 0, 0, size, false, CENTER, s);
  cairo_restore(cr);
}

static void title(canvas *c, const char *main, const vkocc_device_info *d, bool has_device, const char *extra) {
  cairo_set_source_rgb(c->cr, 0, 0, 0);
  text(c->cr, c->w / 2, 28, 18, true, CENTER, main);
  char sub[1200];
  if (has_device)
    snprintf(sub, sizeof sub, "%s — %s %s%s%s", d->name, d->driver_name[0] ? d->driver_name : "driver",
             d->driver_info, extra ? " — " : "", extra ? extra : "");
  else snprintf(sub, sizeof sub, "%s", extra ? extra : "device unknown (data without device identity)");
  cairo_set_source_rgb(c->cr, 0.25, 0.25, 0.25);
  text(c->cr, c->w / 2, 50, 13, false, CENTER, sub);
}

/* vertical colour bar at x..x+w, y..y+h from 0 (bottom) to vmax */
static void colour_bar(cairo_t *cr, double x, double y, double w, double h, double vmax, const char *label,
                       const char *fmtstr) {
  for (int i = 0; i < 100; i++) {
    double rgb[3];
    viridis(i / 99.0, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_rectangle(cr, x, y + h - (i + 1) * h / 100, w, h / 100 + 0.5);
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, x, y, w, h);
  cairo_stroke(cr);
  char buf[32];
  for (int i = 0; i <= 4; i++) {
    double v = vmax * i / 4, yy = y + h - h * i / 4;
    snprintf(buf, sizeof buf, fmtstr, v);
    text(cr, x + w + 4, yy + 4, 11, false, LEFT, buf);
  }
  vtext(cr, x + w + 52, y + h / 2, 12, label);
}

/* One heatmap cell: viridis colour for t in [0, 1], its label centred where it fits, in black or white. */
static void heat_cell(cairo_t *cr, double x, double y, double cw, double ch, double t, const char *label,
                      double max_font) {
  double rgb[3];
  viridis(t, rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_rectangle(cr, x, y, cw + 0.5, ch + 0.5);
  cairo_fill(cr);
  double fs = fmin(max_font, ch * 0.7);
  if (fs >= 7 && text_width(cr, fs, label) < cw - 3) {
    double lum = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
    cairo_set_source_rgb(cr, lum > 0.5 ? 0 : 1, lum > 0.5 ? 0 : 1, lum > 0.5 ? 0 : 1);
    text(cr, x + cw / 2, y + ch / 2 + fs * 0.35, fs, false, CENTER, label);
  }
}

/* Horizontal grid lines with left labels: n intervals from 0 to vmax over the plot area. */
static void y_grid(cairo_t *cr, double L, double T, double pw, double ph, int n, double vmax, const char *fmtstr) {
  char buf[64];
  cairo_set_line_width(cr, 1);
  for (int i = 0; i <= n; i++) {
    double y = T + ph - ph * i / n;
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, L, y);
    cairo_line_to(cr, L + pw, y);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof buf, fmtstr, vmax * i / n);
    text(cr, L - 6, y + 4, 11, false, RIGHT, buf);
  }
}

static void kib_label(uint32_t bytes, char *out, size_t len) {
  if (bytes % 1024 == 0) snprintf(out, len, "%u", bytes / 1024);
  else snprintf(out, len, "%.2g", bytes / 1024.0);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The distinct workgroup sizes (wg) or shared sizes of the surface, ascending; refined points add no
 * shared-memory column. Sort and unique: O(n log n) for any file. */
static uint32_t distinct(const vkocc_surface *s, bool wg, uint32_t *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->count; i++)
    if (wg || !s->points[i].refined) out[n++] = wg ? s->points[i].wg_size : s->points[i].shared_bytes;
  qsort(out, n, sizeof *out, cmp_u32);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!m || out[m - 1] != out[i]) out[m++] = out[i];
  return m;
}

static int cmp_point(const void *a, const void *b) {
  const vkocc_surface_point *x = a, *y = b;
  if (x->wg_size != y->wg_size) return x->wg_size < y->wg_size ? -1 : 1;
  return (x->shared_bytes > y->shared_bytes) - (x->shared_bytes < y->shared_bytes);
}

/* The points sorted by (wg, shared), for find(). */
static vkocc_surface_point *sorted_points(const vkocc_surface *s) {
  vkocc_surface_point *p = malloc((s->count + 1) * sizeof *p);
  if (s->count) memcpy(p, s->points, s->count * sizeof *p);
  qsort(p, s->count, sizeof *p, cmp_point);
  return p;
}

static const vkocc_surface_point *find(const vkocc_surface_point *sorted, uint32_t n, uint32_t wg, uint32_t sh) {
  vkocc_surface_point key = {.wg_size = wg, .shared_bytes = sh};
  return bsearch(&key, sorted, n, sizeof *sorted, cmp_point);
}

/* Draws the surface heatmap on cr (w x h). cursor_wg / cursor_sh: indices of a highlighted cell (-1: none),
 * with the calculator's readout for it along the bottom. */
void vkocc_draw_surface(cairo_t *cr, double W, double H, const vkocc_surface *s, const vkocc_derived *d, int cursor_wg,
                        int cursor_sh) {
  canvas c = {.cr = cr, .w = W, .h = H};
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  uint32_t *wgs = malloc((s->count + 1) * sizeof *wgs), *shs = malloc((s->count + 1) * sizeof *shs);
  uint32_t nw = distinct(s, true, wgs), ns = distinct(s, false, shs);
  vkocc_surface_point *sorted = sorted_points(s);
  char extra[128];
  snprintf(extra, sizeof extra, "%u SMs, %u threads per SM", d->sm_count, d->threads_per_sm);
  title(&c, "Occupancy surface", &s->device, s->has_device, extra);
  bool readout = cursor_wg >= 0 && cursor_sh >= 0;
  double L = 80, R = 120, T = 70, B = readout ? 86 : 60, pw = c.w - L - R, ph = c.h - T - B;
  double cw = pw / ns, ch = ph / nw;
  char buf[256];
  for (uint32_t a = 0; a < nw; a++)
    for (uint32_t b = 0; b < ns; b++) {
      const vkocc_surface_point *p = find(sorted, s->count, wgs[a], shs[b]);
      double x = L + b * cw, y = T + ph - (a + 1) * ch;
      if (!p) {
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_rectangle(cr, x, y, cw, ch);
        cairo_fill(cr);
        continue;
      }
      vkocc_occupancy oc;
      vkocc_occupancy_from_P(d, p->wg_size, p->shared_bytes, p->P, &oc);
      snprintf(buf, sizeof buf, "%u", p->P);
      heat_cell(cr, x, y, cw, ch, oc.occupancy_pct / 100, buf, 11);
    }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  uint32_t wstep = (uint32_t)ceil(14.0 / ch);
  for (uint32_t a = 0; a < nw; a += wstep ? wstep : 1) {
    snprintf(buf, sizeof buf, "%u", wgs[a]);
    text(cr, L - 6, T + ph - (a + 0.5) * ch + 4, 11, false, RIGHT, buf);
  }
  double last = -1e9;
  for (uint32_t b = 0; b < ns; b++) {
    kib_label(shs[b], buf, sizeof buf);
    double x = L + (b + 0.5) * cw;
    if (x - last < text_width(cr, 11, buf) + 6) continue;
    text(cr, x, T + ph + 16, 11, false, CENTER, buf);
    last = x;
  }
  text(cr, L + pw / 2, T + ph + 38, 13, false, CENTER, "shared memory per workgroup [KiB]");
  vtext(cr, 22, T + ph / 2, 13, "workgroup size [threads]");
  colour_bar(cr, L + pw + 18, T, 18, ph, 100, "occupancy [% of per-SM thread maximum]", "%.0f%%");
  if (readout && (uint32_t)cursor_wg < nw && (uint32_t)cursor_sh < ns) {
    uint32_t wg = wgs[cursor_wg], sh = shs[cursor_sh];
    const vkocc_surface_point *p = find(sorted, s->count, wg, sh);
    vkocc_occupancy oc;
    if (p) vkocc_occupancy_from_P(d, wg, sh, p->P, &oc);
    else vkocc_occupancy_compute(d, wg, sh, &oc);
    cairo_set_source_rgb(cr, 1, 0.2, 0.2);
    cairo_set_line_width(cr, 3);
    cairo_rectangle(cr, L + cursor_sh * cw, T + ph - (cursor_wg + 1) * ch, cw, ch);
    cairo_stroke(cr);
    char kb[32];
    kib_label(sh, kb, sizeof kb);
    snprintf(buf, sizeof buf, "wg %u, %s KiB: P = %u (%u per SM), occupancy %.1f%%, binding: %s%s", wg, kb, oc.wgs,
             oc.wg_per_sm, oc.occupancy_pct, vkocc_limit_name(oc.binding), p ? "" : " (model)");
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, L, c.h - 14, 14, true, LEFT, buf);
  }
  free(wgs);
  free(shs);
  free(sorted);
}

void vkocc_surface_grid_size(const vkocc_surface *s, uint32_t *nwg, uint32_t *nshared) {
  uint32_t *t = malloc((s->count + 1) * sizeof *t);
  *nwg = distinct(s, true, t);
  *nshared = distinct(s, false, t);
  free(t);
}

vkocc_status vkocc_plot_surface(const vkocc_surface *s, const vkocc_derived *d, const char *path,
                                const vkocc_plot_options *o) {
  vkocc_clear_error();
  if (s->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "plot: the surface is empty");
  canvas c;
  vkocc_status st = canvas_open(&c, path, o);
  if (st) return st;
  vkocc_draw_surface(c.cr, c.w, c.h, s, d, -1, -1);
  return canvas_close(&c, true);
}

vkocc_status vkocc_plot_wg(const vkocc_surface *s, const vkocc_derived *d, const uint32_t *shared, uint32_t n,
                           const char *path, const vkocc_plot_options *o) {
  vkocc_clear_error();
  if (s->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "plot: the surface is empty");
  if (n == 0 || n > 8) return vkocc_fail(VKOCC_ERROR_USAGE, "plot wg: give 1 to 8 shared-memory sizes");
  canvas c;
  vkocc_status st = canvas_open(&c, path, o);
  if (st) return st;
  uint32_t *wgs = malloc((s->count + 1) * sizeof *wgs), nw = distinct(s, true, wgs);
  vkocc_surface_point *sorted = sorted_points(s);
  title(&c, "Impact of varying workgroup size", &s->device, s->has_device, NULL);
  cairo_t *cr = c.cr;
  double L = 80, R = 30, T = 70, B = 60, pw = c.w - L - R, ph = c.h - T - B;
  double xmax = wgs[nw - 1];
  char buf[64];
  y_grid(cr, L, T, pw, ph, 5, 100, "%.0f%%");
  /* at most 16 labels whatever the largest size; 64-bit, so the last step cannot wrap around */
  uint64_t xstep = xmax > 512 ? 128 : xmax > 128 ? 32 : 8;
  while (xmax / xstep > 16) xstep *= 2;
  for (uint64_t x = 0; x <= xmax; x += xstep) {
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)x);
    text(cr, L + pw * x / xmax, T + ph + 16, 11, false, CENTER, buf);
  }
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  text(cr, L + pw / 2, c.h - 18, 13, false, CENTER, "workgroup size [threads]");
  vtext(cr, 22, T + ph / 2, 13, "occupancy [% of per-SM thread maximum]");
  for (uint32_t k = 0; k < n; k++) {
    cairo_set_source_rgb(cr, okabe_ito[k][0], okabe_ito[k][1], okabe_ito[k][2]);
    cairo_set_line_width(cr, 2.2);
    /* the line through every multiple of the subgroup size (and every measured size), measured where the
     * surface has the point, the model elsewhere: a gap between measured sizes shows the model's steps
     * instead of a straight segment. At most 4096 steps: a file's sizes may be anything. */
    uint64_t sg = d->subgroup_size ? d->subgroup_size : 1, lo = wgs[0], hi = wgs[nw - 1];
    while ((hi - lo) / sg > 4096) sg *= 2;
    uint64_t x = lo;
    bool first = true;
    for (uint32_t a = 0; x <= hi;) {
      uint32_t w = (uint32_t)x;
      const vkocc_surface_point *p = find(sorted, s->count, w, shared[k]);
      vkocc_occupancy oc;
      if (p) vkocc_occupancy_from_P(d, w, shared[k], p->P, &oc);
      else vkocc_occupancy_compute(d, w, shared[k], &oc);
      double px = L + pw * w / xmax, py = T + ph - ph * oc.occupancy_pct / 100;
      if (first) cairo_move_to(cr, px, py);
      else cairo_line_to(cr, px, py);
      first = false;
      /* next: the next multiple of sg or the next measured size, whichever comes first */
      while (a < nw && wgs[a] <= x) a++;
      uint64_t next = (x / sg + 1) * sg;
      if (a < nw && wgs[a] < next) next = wgs[a];
      if (x == hi) break;
      x = next < hi ? next : hi;
    }
    cairo_stroke(cr);
    for (uint32_t a = 0; a < nw; a++) { /* measured points as dots */
      const vkocc_surface_point *p = find(sorted, s->count, wgs[a], shared[k]);
      if (!p) continue;
      vkocc_occupancy oc;
      vkocc_occupancy_from_P(d, wgs[a], shared[k], p->P, &oc);
      cairo_arc(cr, L + pw * wgs[a] / xmax, T + ph - ph * oc.occupancy_pct / 100, 3, 0, 2 * M_PI);
      cairo_fill(cr);
    }
    /* legend */
    double lx = L + pw - 190, ly = T + ph - 12 - 18 * (n - 1 - k);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, lx - 6, ly - 12, 196, 18);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, okabe_ito[k][0], okabe_ito[k][1], okabe_ito[k][2]);
    cairo_move_to(cr, lx, ly - 4);
    cairo_line_to(cr, lx + 24, ly - 4);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    char kb[32];
    kib_label(shared[k], kb, sizeof kb);
    snprintf(buf, sizeof buf, "%s KiB shared memory", kb);
    text(cr, lx + 30, ly, 11, false, LEFT, buf);
  }
  free(wgs);
  free(sorted);
  return canvas_close(&c, true);
}

vkocc_status vkocc_plot_comb(const vkocc_interval *iv, uint32_t n, const char *ttl, const char *path,
                             const vkocc_plot_options *o) {
  vkocc_clear_error();
  vkocc_comb_estimate e;
  vkocc_status st = vkocc_comb_estimate_P(iv, n, 0, &e);
  if (st) return vkocc_fail(VKOCC_ERROR_USAGE, "plot comb: %s", vkocc_last_error());
  canvas c;
  if ((st = canvas_open(&c, path, o))) return st;
  cairo_t *cr = c.cr;
  double t0 = INFINITY, t1 = -INFINITY;
  for (uint32_t i = 0; i < n; i++)
    if (iv[i].valid) { t0 = fmin(t0, iv[i].start); t1 = fmax(t1, iv[i].end); }
  double span = fmax(t1 - t0, 1), bin = fmax(e.median_sleep_ns / 40, span / 400);
  uint32_t nb = (uint32_t)ceil(span / bin) + 1, *h = calloc(nb, sizeof *h), hmax = 1;
  for (uint32_t i = 0; i < n; i++)
    if (iv[i].valid) {
      uint32_t k = (uint32_t)((iv[i].start - t0) / bin);
      if (k < nb && ++h[k] > hmax) hmax = h[k];
    }
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(cr, c.w / 2, 28, 18, true, CENTER, "Sleeping-workgroup comb: start times");
  cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
  text(cr, c.w / 2, 50, 13, false, CENTER, ttl);
  double L = 80, R = 30, T = 70, B = 60, pw = c.w - L - R, ph = c.h - T - B;
  char buf[128];
  /* whole numbers on the axis: at most 4 steps of an integer size (hmax 1 gave labels 0, 0, 0, 1, 1) */
  uint32_t steps = hmax < 4 ? hmax : 4;
  hmax = (hmax + steps - 1) / steps * steps;
  y_grid(cr, L, T, pw, ph, (int)steps, hmax, "%.0f");
  cairo_set_source_rgb(cr, okabe_ito[0][0], okabe_ito[0][1], okabe_ito[0][2]);
  for (uint32_t k = 0; k < nb; k++) {
    if (!h[k]) continue;
    double bh = ph * h[k] / hmax;
    cairo_rectangle(cr, L + pw * k / nb, T + ph - bh, fmax(pw / nb, 1.5), bh);
    cairo_fill(cr);
  }
  double step = nice_step(span / 1e3, 6);
  for (double us = 0; us <= span / 1e3 + 1e-9; us += step) {
    snprintf(buf, sizeof buf, step >= 1 ? "%.0f" : "%.1f", us);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, L + pw * us * 1e3 / span, T + ph + 16, 11, false, CENTER, buf);
  }
  /* each tooth's height above its first bin, so small teeth are visible too */
  {
    uint32_t tooth = 0;
    for (uint32_t k = 0; k < nb && tooth < e.teeth && tooth < VKOCC_MAX_TEETH; k++) {
      if (!h[k] || (k > 0 && h[k - 1])) continue;
      double bh = ph * h[k] / hmax;
      snprintf(buf, sizeof buf, "%u", e.tooth_heights[tooth++]);
      cairo_set_source_rgb(cr, 0, 0, 0);
      text(cr, L + pw * k / nb + 2, fmax(T + 44, T + ph - bh - 4), 11, false, LEFT, buf);
    }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  text(cr, L + pw / 2, c.h - 18, 13, false, CENTER, "start time after the first workgroup [µs]");
  vtext(cr, 22, T + ph / 2, 13, "workgroups started per bin");
  snprintf(buf, sizeof buf, "P = %u%s  (first tooth %u, %u teeth, %u records, bin %.1f µs)", e.P,
           e.lower_bound ? " or more" : "", e.tooth_heights[0], e.teeth, e.n_valid, bin / 1e3);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_rectangle(cr, L + pw - text_width(cr, 13, buf) - 24, T + 8, text_width(cr, 13, buf) + 16, 22);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, okabe_ito[1][0], okabe_ito[1][1], okabe_ito[1][2]);
  text(cr, L + pw - 16, T + 24, 13, true, RIGHT, buf);
  free(h);
  return canvas_close(&c, true);
}

vkocc_status vkocc_plot_compare(const vkocc_fingerprint *fps, uint32_t n, const char *path,
                                const vkocc_plot_options *o) {
  vkocc_clear_error();
  if (n == 0 || n > 6) return vkocc_fail(VKOCC_ERROR_USAGE, "plot compare: give 1 to 6 fingerprints");
  canvas c;
  vkocc_status st = canvas_open(&c, path, o);
  if (st) return st;
  cairo_t *cr = c.cr;
  double vmax = 1;
  for (uint32_t k = 0; k < n; k++)
    for (int a = 0; a < VKOCC_CANON_WG; a++)
      for (int b = 0; b < VKOCC_CANON_SHARED; b++)
        if (!isnan(fps[k].normalized[a][b])) vmax = fmax(vmax, fps[k].normalized[a][b]);
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(cr, c.w / 2, 28, 18, true, CENTER, "Normalized occupancy surfaces (resident workgroups per SM)");
  double L = 60, R = 110, T = 80, B = 50, gap = 30;
  double pw = (c.w - L - R - gap * (n - 1)) / n, ph = c.h - T - B;
  double cw = pw / VKOCC_CANON_SHARED, ch = ph / VKOCC_CANON_WG;
  char buf[300];
  for (uint32_t k = 0; k < n; k++) {
    double x0 = L + k * (pw + gap);
    cairo_set_source_rgb(cr, 0, 0, 0);
    snprintf(buf, sizeof buf, "%s", fps[k].device_name[0] ? fps[k].device_name : "(unnamed)");
    /* the whole name: on two lines (broken at a space) where one is too narrow, smaller type before cutting */
    double fs = 12;
    char *line2 = NULL;
    if (text_width(cr, fs, buf) > pw) {
      for (char *sp = strrchr(buf, ' '); sp; sp = sp > buf ? memrchr(buf, ' ', (size_t)(sp - buf)) : NULL) {
        *sp = 0;
        bool fits = text_width(cr, fs, buf) <= pw;
        *sp = ' ';
        if (fits) { *sp = 0; line2 = sp + 1; break; }
      }
      while (fs > 8 && (text_width(cr, fs, buf) > pw || (line2 && text_width(cr, fs, line2) > pw))) fs -= 0.5;
      char *last = line2 ? line2 : buf;
      while (strlen(last) > 4 && text_width(cr, fs, last) > pw) last[strlen(last) - 4] = 0, strcat(last, "...");
    }
    text(cr, x0 + pw / 2, line2 ? T - 38 : T - 24, fs, true, CENTER, buf);
    if (line2) text(cr, x0 + pw / 2, T - 24, fs, true, CENTER, line2);
    text(cr, x0 + pw / 2, T - 8, 11, false, CENTER, fps[k].cluster_id);
    for (int a = 0; a < VKOCC_CANON_WG; a++)
      for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
        double v = fps[k].normalized[a][b], x = x0 + b * cw, y = T + ph - (a + 1) * ch;
        if (isnan(v)) { /* the device cannot run this point: hatched grey */
          cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
          cairo_rectangle(cr, x, y, cw, ch);
          cairo_fill(cr);
          cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
          cairo_set_line_width(cr, 0.8);
          cairo_move_to(cr, x, y + ch);
          cairo_line_to(cr, x + cw, y);
          cairo_stroke(cr);
          continue;
        }
        snprintf(buf, sizeof buf, v == floor(v) ? "%.0f" : "%.1f", v);
        heat_cell(cr, x, y, cw, ch, v / vmax, buf, 10);
      }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x0, T, pw, ph);
    cairo_stroke(cr);
    for (int b = 0; b < VKOCC_CANON_SHARED; b += (cw < 26 ? 2 : 1)) {
      kib_label(vkocc_canonical_shared[b], buf, sizeof buf);
      text(cr, x0 + (b + 0.5) * cw, T + ph + 14, 10, false, CENTER, buf);
    }
    if (k == 0)
      for (int a = 0; a < VKOCC_CANON_WG; a += (ch < 12 ? 2 : 1)) {
        snprintf(buf, sizeof buf, "%u", vkocc_canonical_wg[a]);
        text(cr, x0 - 5, T + ph - (a + 0.5) * ch + 4, 10, false, RIGHT, buf);
      }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(cr, c.w / 2 - R / 2, c.h - 12, 13, false, CENTER, "shared memory per workgroup [KiB]");
  vtext(cr, 16, T + ph / 2, 13, "workgroup size [threads]");
  colour_bar(cr, c.w - R + 18, T, 18, ph, vmax, "workgroups per SM", "%.0f");
  return canvas_close(&c, true);
}

/* ---- occupancy against registers, shared memory and workgroup size (the register axis, docs/model.md) */

/* One panel: occupancy (%) over x = lo..hi in steps of step, the model at each; the current x marked. */
static void occ_panel(canvas *c, double L, double T, double pw, double ph, const char *xlabel, uint32_t lo, uint32_t hi,
                      uint32_t step, uint32_t cur, double (*occ)(void *, uint32_t), void *user, int colour) {
  cairo_t *cr = c->cr;
  char buf[64];
  y_grid(cr, L, T, pw, ph, 5, 100, "%.0f%%");
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  double span = hi > lo ? hi - lo : 1, xs = nice_step(span, 5);
  for (double x = ceil(lo / xs) * xs; x <= hi; x += xs) {
    snprintf(buf, sizeof buf, "%.0f", x);
    text(cr, L + pw * (x - lo) / span, T + ph + 16, 11, false, CENTER, buf);
  }
  text(cr, L + pw / 2, T + ph + 38, 13, false, CENTER, xlabel);
  cairo_set_source_rgb(cr, okabe_ito[colour][0], okabe_ito[colour][1], okabe_ito[colour][2]);
  cairo_set_line_width(cr, 2.2);
  double prev = -1;
  for (uint64_t x = lo; x <= hi; x += step) { /* a staircase: occupancy holds until the next value */
    double v = occ(user, (uint32_t)x), px = L + pw * (x - lo) / span, py = T + ph - ph * v / 100;
    if (prev < 0) cairo_move_to(cr, px, py);
    else cairo_line_to(cr, px, T + ph - ph * prev / 100), cairo_line_to(cr, px, py);
    prev = v;
  }
  cairo_line_to(cr, L + pw, T + ph - ph * prev / 100);
  cairo_stroke(cr);
  double v = occ(user, cur);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_arc(cr, L + pw * (cur - lo) / span, T + ph - ph * v / 100, 5, 0, 2 * M_PI);
  cairo_fill(cr);
  snprintf(buf, sizeof buf, "%u: %.1f%%", cur, v);
  text(cr, L + pw * (cur - lo) / span + 8, T + ph - ph * v / 100 - 8, 11, true, LEFT, buf);
}

typedef struct { const vkocc_derived *d; const vkocc_register_model *m; uint32_t wg, shared, regs; } occ_point;
static double occ_at(const occ_point *p, uint32_t wg, uint32_t shared, uint32_t regs) {
  vkocc_limits_per_sm l;
  vkocc_limits_per_sm_registers(p->d, p->m, wg, shared, regs, &l);
  return p->d->threads_per_sm ? 100.0 * l.wg_per_sm * wg / p->d->threads_per_sm : 0;
}
static double occ_regs(void *u, uint32_t x) { occ_point *p = u; return occ_at(p, p->wg, p->shared, x); }
static double occ_shared(void *u, uint32_t x) { occ_point *p = u; return occ_at(p, p->wg, x, p->regs); }
static double occ_wg(void *u, uint32_t x) { occ_point *p = u; return occ_at(p, x, p->shared, p->regs); }

vkocc_status vkocc_plot_registers(const vkocc_derived *d, const vkocc_register_model *m, const vkocc_device_info *dev,
                                  uint32_t wg, uint32_t shared, uint32_t regs, const char *path,
                                  const vkocc_plot_options *o) {
  vkocc_clear_error();
  if (!d || !d->wg_per_sm || !d->subgroups_per_sm || !d->threads_per_sm)
    return vkocc_fail(VKOCC_ERROR_USAGE, "plot registers: no derived limits");
  if (!m || !m->known) return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "plot registers: the register axis is unknown");
  if (!wg || !regs || wg > VKOCC_MAX_WG_SIZE || regs > 65536)
    return vkocc_fail(VKOCC_ERROR_USAGE, "plot registers: workgroup size 1..%u and registers 1..65536", VKOCC_MAX_WG_SIZE);
  vkocc_plot_options po = o ? *o : (vkocc_plot_options){0};
  if (!po.width) po.width = 1500;
  if (!po.height) po.height = 560;
  canvas c;
  vkocc_status st = canvas_open(&c, path, &po);
  if (st) return st;
  char extra[160];
  snprintf(extra, sizeof extra, "at %u threads, %u shared bytes, %u registers per invocation", wg, shared, regs);
  title(&c, "Occupancy against registers, shared memory and workgroup size", dev, dev && dev->name[0], extra);
  occ_point p = {d, m, wg, shared, regs};
  double gap = 70, L0 = 70, T = 80, B = 70, pw = (c.w - L0 - 3 * gap + 40) / 3, ph = c.h - T - B;
  uint32_t maxr = m->max_per_invocation ? m->max_per_invocation : 255, sg = d->subgroup_size ? d->subgroup_size : 1;
  uint32_t maxs = dev && dev->max_shared_bytes ? dev->max_shared_bytes : 49152, maxwg = 1024;
  if (dev && dev->max_invocations) maxwg = vkocc_device_max_wg_size(dev);
  if (regs > maxr) maxr = regs;
  if (shared > maxs) maxs = shared;
  if (wg > maxwg) maxwg = wg;
  vtext(c.cr, 22, T + ph / 2, 13, "occupancy [% of per-SM thread maximum]");
  occ_panel(&c, L0, T, pw, ph, "registers per invocation", 1, maxr, 1, regs, occ_regs, &p, 0);
  occ_panel(&c, L0 + pw + gap, T, pw, ph, "shared memory per workgroup [bytes]", 0, maxs, maxs >= 4096 ? 256 : 1,
            shared, occ_shared, &p, 1);
  occ_panel(&c, L0 + 2 * (pw + gap), T, pw, ph, "workgroup size [threads]", sg, maxwg, sg, wg, occ_wg, &p, 2);
  return canvas_close(&c, true);
}
