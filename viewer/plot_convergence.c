/* The convergence plot of search replays (vkocc_plot_convergence): fraction of the optimum against
 * evaluations, a line per strategy (median over seeds) in a band (quartiles; none for dashed ones), on a log axis of evaluations
 * with the 1%, 5% and 10% budgets of the space marked. Okabe-Ito colours (colour-blind safe); ablations
 * dashed. PNG, SVG or PDF by extension, written atomically when everything succeeded. */
#include "util.h"
#include "vkocc_plot.h"
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct sink { char *buf; size_t len, cap; } sink;

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int n) {
  sink *s = closure;
  if (s->len + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 1 << 16;
    while (cap < s->len + n + 1) cap *= 2;
    char *b = realloc(s->buf, cap);
    if (!b) return CAIRO_STATUS_WRITE_ERROR;
    s->buf = b, s->cap = cap;
  }
  memcpy(s->buf + s->len, data, n);
  s->len += n;
  return CAIRO_STATUS_SUCCESS;
}

/* Okabe-Ito, ordered so that neighbours differ most: blue, vermillion, bluish green, reddish purple, orange,
 * black, sky blue, yellow */
static const double colours[8][3] = {{0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451},
                                     {0.800, 0.475, 0.655}, {0.902, 0.624, 0.000}, {0.000, 0.000, 0.000},
                                     {0.337, 0.706, 0.914}, {0.941, 0.894, 0.259}};

static void label(cairo_t *cr, double x, double y, double size, int align, const char *s) {
  cairo_text_extents_t e;
  cairo_set_font_size(cr, size);
  cairo_text_extents(cr, s, &e);
  double dx = align == 0 ? 0 : align == 1 ? -e.width / 2 - e.x_bearing : -e.width - e.x_bearing;
  cairo_move_to(cr, x + dx, y);
  cairo_show_text(cr, s);
}

static void xml_text(FILE *f, const char *s) {
  for (; s && *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else fputc(*s, f);
  }
}

/* cairo draws text as glyph outlines, which neither screen readers nor searches read: the SVG gets the
 * title as <title> and the curves (label, fraction of the optimum at the end) as <desc>. */
static bool svg_text(sink *out, const char *title, const vkocc_convergence_curve *curves, uint32_t n) {
  char *svg = out->buf, *tag = svg ? strstr(svg, "<svg") : NULL, *end = tag ? strchr(tag, '>') : NULL;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = end ? open_memstream(&buf, &len) : NULL;
  if (!f) return false;
  fwrite(svg, 1, (size_t)(end + 1 - svg), f);
  fputs("\n<title>", f);
  xml_text(f, title ? title : "search convergence");
  fputs("</title>\n<desc>fraction of the optimum (optimum time / best found) against evaluations, median over seeds:", f);
  for (uint32_t i = 0; i < n; i++) {
    fputc('\n', f);
    xml_text(f, curves[i].label);
    fprintf(f, ": %.3f after %u evaluations", curves[i].median[curves[i].n - 1], curves[i].n);
  }
  fputs("</desc>", f);
  fwrite(end + 1, 1, out->len - (size_t)(end + 1 - svg), f);
  if (fclose(f)) { free(buf); return false; }
  free(out->buf);
  out->buf = buf, out->len = len, out->cap = len + 1;
  return true;
}

vkocc_status vkocc_plot_convergence(const vkocc_convergence_curve *curves, uint32_t ncurves, uint32_t space_size,
                                    const char *title, const char *subtitle, const char *path,
                                    const vkocc_plot_options *o) {
  if (!path) return vkocc_fail(VKOCC_ERROR_USAGE, "convergence plot: no output path");
  if (!ncurves || !curves) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no curve to plot", path);
  uint32_t xmax = 1;
  for (uint32_t i = 0; i < ncurves; i++) {
    if (!curves[i].median || !curves[i].n)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: curve %u (%s) is empty", path, i, curves[i].label ? curves[i].label : "");
    if (curves[i].n > xmax) xmax = curves[i].n;
  }
  const char *ext = strrchr(path, '.');
  int fmt = ext && !strcasecmp(ext, ".png") ? 0 : ext && !strcasecmp(ext, ".svg") ? 1 : ext && !strcasecmp(ext, ".pdf") ? 2 : -1;
  if (fmt < 0) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: unknown image type (use .png, .svg or .pdf)", path);
  double W = o && o->width ? o->width : 1000, H = o && o->height ? o->height : 700;
  if (W < 200 || H < 150 || W > 10000 || H > 10000)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: size %gx%g is outside 200x150 .. 10000x10000", path, W, H);
  vkocc_status st = vkocc_output_check(path);
  if (st) return st;
  sink out = {0};
  cairo_surface_t *surf = fmt == 0 ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)W, (int)H)
                          : fmt == 1 ? cairo_svg_surface_create_for_stream(sink_write, &out, W, H)
                                     : cairo_pdf_surface_create_for_stream(sink_write, &out, W, H);
  if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(surf);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot create the image", path);
  }
  cairo_t *cr = cairo_create(surf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  double s = W / 1000, L = 80 * s, R = W - 300 * s, T = 80 * s, B = H - 70 * s;
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  label(cr, L, 32 * s, 18 * s, 0, title ? title : "search convergence");
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  if (subtitle) label(cr, L, 56 * s, 13 * s, 0, subtitle);
  /* axes: x log10 from 1 to xmax, y 0..1 */
  double lx = log10((double)(xmax > 1 ? xmax : 2));
#define XP(e) (L + (R - L) * log10((double)(e)) / lx)
#define YP(f) (B - (B - T) * (f))
  cairo_set_line_width(cr, 1 * s);
  for (int i = 0; i <= 10; i++) {
    double f = i / 10.0;
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, L, YP(f));
    cairo_line_to(cr, R, YP(f));
    cairo_stroke(cr);
    char t[16];
    snprintf(t, sizeof t, "%.1f", f);
    cairo_set_source_rgb(cr, 0, 0, 0);
    label(cr, L - 8 * s, YP(f) + 4 * s, 12 * s, 2, t);
  }
  static const double ticks[] = {1, 2, 5};
  for (double dec = 1; dec <= xmax; dec *= 10)
    for (int i = 0; i < 3; i++) {
      double e = dec * ticks[i];
      if (e > xmax) break;
      cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
      cairo_move_to(cr, XP(e), T);
      cairo_line_to(cr, XP(e), B);
      cairo_stroke(cr);
      char t[24];
      snprintf(t, sizeof t, "%.0f", e);
      cairo_set_source_rgb(cr, 0, 0, 0);
      label(cr, XP(e), B + 18 * s, 12 * s, 1, t);
    }
  label(cr, (L + R) / 2, H - 25 * s, 14 * s, 1, "evaluations (log scale)");
  cairo_save(cr);
  cairo_translate(cr, 25 * s, (T + B) / 2);
  cairo_rotate(cr, -1.5707963267948966); /* -pi/2 */
  label(cr, 0, 0, 14 * s, 1, "fraction of the optimum (optimum time / best found)");
  cairo_restore(cr);
  /* 95% of the optimum, and the 1%, 5%, 10% budgets */
  cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
  double dash[] = {6 * s, 4 * s};
  cairo_set_dash(cr, dash, 2, 0);
  cairo_move_to(cr, L, YP(0.95));
  cairo_line_to(cr, R, YP(0.95));
  cairo_stroke(cr);
  label(cr, L + 4 * s, YP(0.95) - 4 * s, 11 * s, 0, "95%");
  static const double pct[] = {1, 5, 10};
  for (int i = 0; i < 3 && space_size; i++) {
    double e = ceil(pct[i] / 100 * space_size);
    if (e < 1 || e > xmax) continue;
    cairo_move_to(cr, XP(e), T);
    cairo_line_to(cr, XP(e), B);
    cairo_stroke(cr);
    char t[32];
    snprintf(t, sizeof t, "%.0f%% (%.0f)", pct[i], e);
    label(cr, XP(e) + 3 * s, T + 12 * s + 13 * s * i, 11 * s, 0, t);
  }
  cairo_set_dash(cr, NULL, 0, 0);
  cairo_rectangle(cr, L, T, R - L, B - T);
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_stroke(cr);
  /* bands, then lines on top */
  cairo_save(cr);
  cairo_rectangle(cr, L, T, R - L, B - T);
  cairo_clip(cr);
  for (uint32_t i = 0; i < ncurves; i++) {
    const vkocc_convergence_curve *c = &curves[i];
    if (!c->q1 || !c->q3 || c->dashed) continue; /* ablations: the line alone, or the bands blur */
    const double *rgb = colours[(c->colour >= 0 ? (uint32_t)c->colour : i) % 8];
    for (uint32_t e = 0; e < c->n; e++) {
      double x = XP(e + 1), y = YP(c->q3[e]);
      if (!e) cairo_move_to(cr, x, y);
      else cairo_line_to(cr, x, y);
    }
    for (uint32_t e = c->n; e-- > 0;) cairo_line_to(cr, XP(e + 1), YP(c->q1[e]));
    cairo_close_path(cr);
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], 0.12);
    cairo_fill(cr);
  }
  for (uint32_t i = 0; i < ncurves; i++) {
    const vkocc_convergence_curve *c = &curves[i];
    const double *rgb = colours[(c->colour >= 0 ? (uint32_t)c->colour : i) % 8];
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 2.2 * s);
    double d2[] = {7 * s, 4 * s};
    cairo_set_dash(cr, c->dashed ? d2 : NULL, c->dashed ? 2 : 0, 0);
    for (uint32_t e = 0; e < c->n; e++) {
      /* a step line: the best so far holds until the next improvement */
      double x = XP(e + 1), y = YP(c->median[e]);
      if (!e) cairo_move_to(cr, x, y);
      else {
        cairo_line_to(cr, x, YP(c->median[e - 1]));
        cairo_line_to(cr, x, y);
      }
    }
    cairo_stroke(cr);
  }
  cairo_restore(cr);
  /* legend */
  cairo_set_dash(cr, NULL, 0, 0);
  for (uint32_t i = 0; i < ncurves; i++) {
    const double *rgb = colours[(curves[i].colour >= 0 ? (uint32_t)curves[i].colour : i) % 8];
    double y = T + 10 * s + 22 * s * i;
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 2.5 * s);
    double d2[] = {7 * s, 4 * s};
    cairo_set_dash(cr, curves[i].dashed ? d2 : NULL, curves[i].dashed ? 2 : 0, 0);
    cairo_move_to(cr, R + 12 * s, y);
    cairo_line_to(cr, R + 42 * s, y);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_source_rgb(cr, 0, 0, 0);
    label(cr, R + 48 * s, y + 4 * s, 12 * s, 0, curves[i].label ? curves[i].label : "?");
  }
  label(cr, R + 12 * s, T + 10 * s + 22 * s * ncurves + 8 * s, 11 * s, 0, "line: median over seeds");
  label(cr, R + 12 * s, T + 10 * s + 22 * s * ncurves + 24 * s, 11 * s, 0, "band: quartiles (solid lines)");
#undef XP
#undef YP
  cairo_status_t cs = cairo_status(cr);
  cairo_destroy(cr);
  if (cs == CAIRO_STATUS_SUCCESS && fmt == 0) cs = cairo_surface_write_to_png_stream(surf, sink_write, &out);
  cairo_surface_finish(surf);
  if (cs == CAIRO_STATUS_SUCCESS) cs = cairo_surface_status(surf);
  cairo_surface_destroy(surf);
  if (cs != CAIRO_STATUS_SUCCESS) st = vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot encode the image (%s)", path, cairo_status_to_string(cs));
  else if (fmt == 1 && !svg_text(&out, title, curves, ncurves))
    st = vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: cannot encode the image (out of memory)", path);
  else st = vkocc_write_file_atomic(path, out.buf, out.len);
  free(out.buf);
  return st;
}
