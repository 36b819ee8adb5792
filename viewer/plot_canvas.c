/* The plots' canvas: an image encoded in memory (PNG, SVG or PDF by file extension) and written
 * (vkocc_write_file_atomic: temporary file and rename) only when everything succeeded; labels as SVG <text>; the
 * colours (viridis for values, perceptually uniform and colour-blind safe; Okabe-Ito for lines) and the drawing
 * helpers every plot of plot.c shares (plot_internal.h). */
#include "util.h"
#include "plot_internal.h"
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Checked allocation (libvkocc-plot links only libvkocc's public API, not its internal helpers). */
static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) { fputs("vkocc plot: out of memory\n", stderr); abort(); }
  return q;
}
void *viewer_xmalloc(size_t n) { return xrealloc(NULL, n); }

static const cairo_user_data_key_t text_key;
static text_state *text_of(cairo_t *cr) { return cairo_get_user_data(cr, &text_key); }


static void record_label(text_state *ts, const char *s) {
  if (!ts) return;
  size_t n = strlen(s);
  ts->labels = xrealloc(ts->labels, ts->labels_len + n + 2);
  memcpy(ts->labels + ts->labels_len, s, n);
  ts->labels_len += n;
  ts->labels[ts->labels_len++] = '\n';
  ts->labels[ts->labels_len] = 0;
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

/* Inserts <title> (the first label) and <desc> (all labels) after the <svg ...> tag and the <text> elements
 * before </svg>. */
static bool svg_add_text(canvas *c) {
  char *svg = c->buf, *tag = svg ? strstr(svg, "<svg") : NULL, *end = tag ? strchr(tag, '>') : NULL;
  char *close = svg ? strstr(svg, "</svg>") : NULL;
  char *out = NULL;
  size_t n = 0;
  FILE *f = end && close > end ? open_memstream(&out, &n) : NULL;
  if (!f) return false;
  fwrite(svg, 1, (size_t)(end + 1 - svg), f);
  const text_state *ts = &c->text;
  const char *nl = ts->labels ? strchr(ts->labels, '\n') : NULL;
  fputs("\n<title>", f);
  if (nl) xml_escape(f, ts->labels, (size_t)(nl - ts->labels));
  fputs("</title>\n<desc>", f);
  if (ts->labels) xml_escape(f, ts->labels, ts->labels_len);
  fputs("</desc>", f);
  fwrite(end + 1, 1, (size_t)(close - (end + 1)), f);
  if (ts->svg_elems) fwrite(ts->svg_elems, 1, ts->svg_len, f);
  fputs(close, f);
  bool ok = !ferror(f);
  ok = fclose(f) == 0 && ok;
  free(c->buf);
  c->buf = out, c->len = n, c->cap = n;
  return ok;
}

/* One label as an SVG <text> at the device position of (x, y) in user space, anchored as `a`, rotated with
 * the current transformation, in the current source colour. */
static void svg_label(cairo_t *cr, text_state *ts, double x, double y, double size, bool bold, int a, const char *s) {
  cairo_matrix_t m;
  cairo_get_matrix(cr, &m);
  double dx = x, dy = y, r = 0, g = 0, b = 0, al = 1;
  cairo_user_to_device(cr, &dx, &dy);
  double scale = hypot(m.xx, m.yx), angle = atan2(m.yx, m.xx) * 180 / M_PI;
  cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &al);
  char *t = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&t, &n);
  if (!f) return;
  fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-family=\"sans-serif\" font-size=\"%.2f\"%s text-anchor=\"%s\" "
          "fill=\"rgb(%d,%d,%d)\"", dx, dy, size * scale, bold ? " font-weight=\"bold\"" : "",
          a == 0 ? "start" : a == 1 ? "middle" : "end", (int)lround(r * 255), (int)lround(g * 255), (int)lround(b * 255));
  if (fabs(angle) > 0.01) fprintf(f, " transform=\"rotate(%.2f %.2f %.2f)\"", angle, dx, dy);
  fputc('>', f);
  xml_escape(f, s, strlen(s));
  fputs("</text>\n", f);
  if (fclose(f) == 0) {
    ts->svg_elems = xrealloc(ts->svg_elems, ts->svg_len + n + 1);
    memcpy(ts->svg_elems + ts->svg_len, t, n + 1);
    ts->svg_len += n;
  }
  free(t);
}

static void text_state_reset(text_state *ts) {
  free(ts->labels), free(ts->svg_elems);
  memset(ts, 0, sizeof *ts);
}

/* Default sizes: PNG and SVG 1000 x 700 (pixels, points); PDF a page of 6.5 x 4 inches (468 x 288 points),
 * a figure for a paper's text width. A page narrower than 750 points is drawn at a larger scale and shrunk
 * (c->w, c->h: the drawing's units), so its type stays about 7 to 11 points. */
#define PDF_DEFAULT_W 468
#define PDF_DEFAULT_H 288

vkocc_status viewer_canvas_open(canvas *c, const char *path, const vkocc_plot_options *o) {
  memset(c, 0, sizeof *c);
  const char *ext = strrchr(path, '.');
  if (ext && !strcasecmp(ext, ".png")) c->format = FMT_PNG;
  else if (ext && !strcasecmp(ext, ".svg")) c->format = FMT_SVG;
  else if (ext && !strcasecmp(ext, ".pdf")) c->format = FMT_PDF;
  else return vkocc_fail(VKOCC_ERROR_USAGE, "%s: unknown image type (use .png, .svg or .pdf)", path);
  bool pdf = c->format == FMT_PDF;
  double pw = o && o->width ? o->width : pdf ? PDF_DEFAULT_W : 1000, ph = o && o->height ? o->height : pdf ? PDF_DEFAULT_H : 700;
  if (pw < 200 || ph < 150 || pw > 10000 || ph > 10000)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: size %gx%g is outside 200x150 .. 10000x10000", path, pw, ph);
  double k = pdf && pw < 750 ? 750 / pw : 1;
  c->w = pw * k, c->h = ph * k;
  vkocc_status s = vkocc_output_check(path); /* a directory, device or missing folder: say so before drawing */
  if (s) return s;
  c->path = path;
  if (c->format == FMT_PNG) c->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)pw, (int)ph);
  else if (c->format == FMT_SVG) c->surface = cairo_svg_surface_create_for_stream(buf_write, c, pw, ph);
  else c->surface = cairo_pdf_surface_create_for_stream(buf_write, c, pw, ph);
  cairo_status_t st = cairo_surface_status(c->surface);
  if (st != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(c->surface);
    free(c->buf);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot create the image: %s", path, cairo_status_to_string(st));
  }
  c->cr = cairo_create(c->surface);
  cairo_scale(c->cr, 1 / k, 1 / k);
  cairo_set_source_rgb(c->cr, 1, 1, 1);
  cairo_paint(c->cr);
  c->text.svg_text = c->format == FMT_SVG;
  cairo_set_user_data(c->cr, &text_key, &c->text, NULL);
  return VKOCC_OK;
}

vkocc_status viewer_canvas_close(canvas *c, bool ok) {
  cairo_status_t st = cairo_status(c->cr);
  cairo_destroy(c->cr);
  if (ok && st == CAIRO_STATUS_SUCCESS && c->format == FMT_PNG)
    st = cairo_surface_write_to_png_stream(c->surface, buf_write, c);
  cairo_surface_finish(c->surface);
  if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(c->surface);
  cairo_surface_destroy(c->surface);
  bool text_ok = !ok || st != CAIRO_STATUS_SUCCESS || c->format != FMT_SVG || svg_add_text(c);
  text_state_reset(&c->text);
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
double viewer_nice_step(double span, int want) {
  double raw = span / want, p = pow(10, floor(log10(raw))), f = raw / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

const double viewer_okabe_ito[8][3] = {{0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451},
                                       {0.800, 0.475, 0.655}, {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914},
                                       {0.941, 0.894, 0.259}, {0.000, 0.000, 0.000}};

void viewer_text(cairo_t *cr, double x, double y, double size, bool bold, align a, const char *s) {
  text_state *ts = text_of(cr);
  record_label(ts, s);
  if (ts && ts->svg_text) {
    svg_label(cr, ts, x, y, size, bold, (int)a, s);
    return;
  }
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  double dx = a == LEFT ? 0 : a == CENTER ? -e.width / 2 - e.x_bearing : -e.width - e.x_bearing;
  cairo_move_to(cr, x + dx, y);
  cairo_show_text(cr, s);
}

double viewer_text_width(cairo_t *cr, double size, const char *s) {
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  return e.width;
}

void viewer_vtext(cairo_t *cr, double x, double y, double size, const char *s) {
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -M_PI / 2);
  viewer_text(cr, 0, 0, size, false, CENTER, s);
  cairo_restore(cr);
}

/* A label in the largest size up to `size` (down to 8) that fits maxw. */
static void fit_text(cairo_t *cr, double x, double y, double size, bool bold, align a, double maxw, const char *s) {
  while (size > 8 && viewer_text_width(cr, size, s) * (bold ? 1.08 : 1) > maxw) size -= 0.5;
  viewer_text(cr, x, y, size, bold, a, s);
}

/* Text from (x, y) broken at spaces into lines of at most maxw, 14 units apart; returns the lines drawn. */
int viewer_wrap_text(cairo_t *cr, double x, double y, double size, double maxw, const char *s) {
  char line[600];
  int lines = 0;
  while (*s) {
    size_t n = strlen(s), cut = n;
    if (n >= sizeof line) n = cut = sizeof line - 1;
    snprintf(line, sizeof line, "%.*s", (int)n, s);
    while (viewer_text_width(cr, size, line) > maxw) { /* back to the previous space */
      char *sp = strrchr(line, ' ');
      if (!sp) break;
      *sp = 0;
      cut = (size_t)(sp - line);
    }
    viewer_text(cr, x, y + 14 * lines++, size, false, LEFT, line);
    s += cut;
    while (*s == ' ') s++;
  }
  return lines;
}

void viewer_title(canvas *c, const char *main, const vkocc_device_info *d, bool has_device, const char *extra) {
  cairo_set_source_rgb(c->cr, 0, 0, 0);
  fit_text(c->cr, c->w / 2, 28, 18, true, CENTER, c->w - 20, main);
  char sub[1200];
  if (has_device)
    snprintf(sub, sizeof sub, "%s — %s %s%s%s", d->name, d->driver_name[0] ? d->driver_name : "driver",
             d->driver_info, extra ? " — " : "", extra ? extra : "");
  else snprintf(sub, sizeof sub, "%s", extra ? extra : "device unknown (data without device identity)");
  cairo_set_source_rgb(c->cr, 0.25, 0.25, 0.25);
  fit_text(c->cr, c->w / 2, 50, 13, false, CENTER, c->w - 20, sub);
}

double viewer_scale_t(scale sc, double v) {
  if (!(sc.vmax > 0)) return 0;
  return sc.log ? log1p(fmax(v, 0)) / log1p(sc.vmax) : v / sc.vmax;
}

/* vertical colour bar at x..x+w, y..y+h from 0 (bottom) to vmax; ticks at 1, 2, 4, ... on a log scale */
void viewer_colour_bar(cairo_t *cr, double x, double y, double w, double h, scale sc, const char *label,
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
  double ticks[40];
  int n = 0;
  if (sc.log) {
    ticks[n++] = 0;
    for (double v = 1; v <= sc.vmax * 1.0001 && n < 39; v *= 2) ticks[n++] = v;
  } else { /* a 1-2-5 step: whole numbers for counts, 25% for occupancy */
    double st = sc.vmax == 100 ? 25 : fmax(1, viewer_nice_step(sc.vmax, 4));
    for (double v = 0; v <= sc.vmax * 1.0001 && n < 39; v += st) ticks[n++] = v;
  }
  double last = 1e9;
  for (int i = 0; i < n; i++) {
    double yy = y + h - h * viewer_scale_t(sc, ticks[i]);
    if (last - yy < 13 && i) continue; /* no labels on top of each other */
    snprintf(buf, sizeof buf, fmtstr, ticks[i]);
    cairo_move_to(cr, x + w, yy);
    cairo_line_to(cr, x + w + 3, yy);
    cairo_stroke(cr);
    viewer_text(cr, x + w + 5, yy + 4, 11, false, LEFT, buf);
    last = yy;
  }
  viewer_vtext(cr, x + w + 50, y + h / 2, 12, label);
}

/* One heatmap cell: viridis colour for t in [0, 1], its label centred where it fits, in black or white;
 * predicted: a small triangle in the top-right corner (the point was not measured). */
void viewer_heat_cell(cairo_t *cr, double x, double y, double cw, double ch, double t, const char *label,
                      double max_font, bool predicted) {
  viewer_heat_cell_at(cr, x, y, cw, ch, t, label, max_font, predicted, x + cw / 2, y + ch / 2);
}

/* heat_cell with the label centred on (lx, ly) as far as the cell allows: the point's true position */
void viewer_heat_cell_at(cairo_t *cr, double x, double y, double cw, double ch, double t, const char *label,
                         double max_font, bool predicted, double lx, double ly) {
  double rgb[3];
  viridis(t, rgb);
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_rectangle(cr, x, y, cw + 0.5, ch + 0.5);
  cairo_fill(cr);
  double lum = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2], ink = lum > 0.5 ? 0 : 1;
  double fs = fmin(max_font, ch * 0.7);
  double tw = label ? viewer_text_width(cr, fs, label) : 0;
  if (fs >= 6 && label && tw < cw - 3) {
    lx = fmin(fmax(lx, x + tw / 2 + 1.5), x + cw - tw / 2 - 1.5);
    ly = fmin(fmax(ly, y + fs * 0.5), y + ch - fs * 0.5);
    cairo_set_source_rgb(cr, ink, ink, ink);
    viewer_text(cr, lx, ly + fs * 0.35, fs, false, CENTER, label);
  }
  if (predicted && fmin(cw, ch) >= 7) { /* smaller cells: the caption counts them instead */
    double m = fmin(6, fmin(cw, ch) * 0.45);
    cairo_set_source_rgb(cr, ink, ink, ink);
    cairo_move_to(cr, x + cw - m, y);
    cairo_line_to(cr, x + cw, y);
    cairo_line_to(cr, x + cw, y + m);
    cairo_close_path(cr);
    cairo_fill(cr);
  }
}

/* Horizontal grid lines with left labels: n intervals from 0 to vmax over the plot area. */
void viewer_y_grid(cairo_t *cr, double L, double T, double pw, double ph, int n, double vmax, const char *fmtstr) {
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
    viewer_text(cr, L - 6, y + 4, 11, false, RIGHT, buf);
  }
}

void viewer_kib_label(uint32_t bytes, char *out, size_t len) {
  if (bytes % 1024 == 0) snprintf(out, len, "%u", bytes / 1024);
  else snprintf(out, len, "%.3g", bytes / 1024.0);
}
