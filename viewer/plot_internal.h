/* The plots' canvas and drawing helpers (plot_canvas.c), shared by the plots of libvkocc-plot (plot.c): the canvas
 * encoded in memory and written atomically, labels as SVG <text>, viridis and Okabe-Ito colours, text, titles, colour
 * bars, heat cells, grids. libvkocc-plot sees libvkocc's public API only. */
#ifndef VKOCC_VIEWER_PLOT_INTERNAL_H
#define VKOCC_VIEWER_PLOT_INTERNAL_H
#include "vkocc_plot.h"
#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { FMT_PNG, FMT_SVG, FMT_PDF } fmt;

/* Every label drawn, so SVG output can carry them as <title>/<desc>; and in SVG output the labels
 * themselves: cairo's SVG surface draws text as glyph outlines, which neither searches, screen readers nor
 * copy and paste can read, so there viewer_text() draws nothing and each label becomes an SVG <text> element
 * (appended over the drawing when the canvas closes). The canvas holds it; viewer_text() finds it through the cairo
 * context's user data (a context the application gave, which no canvas opened, records nothing). */
typedef struct {
  char *labels;
  size_t labels_len;
  bool svg_text;   /* the canvas is SVG: labels as <text> */
  char *svg_elems; /* the <text> elements */
  size_t svg_len;
} text_state;

typedef struct {
  cairo_surface_t *surface;
  cairo_t *cr;
  fmt format;
  const char *path; /* the caller's, alive until viewer_canvas_close */
  char *buf;        /* the encoded image, written to path at once by vkocc_write_file_atomic */
  size_t len, cap;
  double w, h;
  text_state text;
} canvas;

typedef enum { LEFT, CENTER, RIGHT } align;

/* A colour scale: linear from 0 to vmax, or logarithmic (log(1 + v) / log(1 + vmax)), which keeps small
 * values apart when a few large ones set the top. */
typedef struct { double vmax; bool log; } scale;

extern const double viewer_okabe_ito[8][3];
void *viewer_xmalloc(size_t n);
vkocc_status viewer_canvas_open(canvas *c, const char *path, const vkocc_plot_options *o);
vkocc_status viewer_canvas_close(canvas *c, bool ok);
double viewer_nice_step(double span, int want);
void viewer_text(cairo_t *cr, double x, double y, double size, bool bold, align a, const char *s);
double viewer_text_width(cairo_t *cr, double size, const char *s);
void viewer_vtext(cairo_t *cr, double x, double y, double size, const char *s);
int viewer_wrap_text(cairo_t *cr, double x, double y, double size, double maxw, const char *s);
void viewer_title(canvas *c, const char *main, const vkocc_device_info *d, bool has_device, const char *extra);
double viewer_scale_t(scale sc, double v);
void viewer_colour_bar(cairo_t *cr, double x, double y, double w, double h, scale sc, const char *label,
                       const char *fmtstr);
void viewer_heat_cell(cairo_t *cr, double x, double y, double cw, double ch, double t, const char *label,
                      double max_font, bool predicted);
void viewer_heat_cell_at(cairo_t *cr, double x, double y, double cw, double ch, double t, const char *label,
                         double max_font, bool predicted, double lx, double ly);
void viewer_y_grid(cairo_t *cr, double L, double T, double pw, double ph, int n, double vmax, const char *fmtstr);
void viewer_kib_label(uint32_t bytes, char *out, size_t len);

#endif
