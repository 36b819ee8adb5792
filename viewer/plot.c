/* Plots with cairo: PNG, SVG or PDF by file extension. Colours: viridis for values (perceptually uniform,
 * colour-blind safe), Okabe-Ito for lines. Each plot draws into a canvas encoded in memory and written
 * (vkocc_write_file_atomic: temporary file and rename) only when everything succeeded. */
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

/* libvkocc-plot reaches libvkocc only through the public API: its own comparator, not core's */
static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}


/* The distinct workgroup sizes (wg) or shared sizes of the surface, ascending; refined: with the shared
 * sizes only refined points have (else the ladder alone). Sort and unique: O(n log n) for any file. */
static uint32_t distinct(const vkocc_surface *s, bool wg, bool refined, uint32_t *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->count; i++)
    if (wg || refined || !s->points[i].refined) out[n++] = wg ? s->points[i].wg_size : s->points[i].shared_bytes;
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
  vkocc_surface_point *p = viewer_xmalloc((s->count + 1) * sizeof *p);
  if (s->count) memcpy(p, s->points, s->count * sizeof *p);
  qsort(p, s->count, sizeof *p, cmp_point);
  return p;
}

static const vkocc_surface_point *find(const vkocc_surface_point *sorted, uint32_t n, uint32_t wg, uint32_t sh) {
  vkocc_surface_point key = {.wg_size = wg, .shared_bytes = sh};
  return bsearch(&key, sorted, n, sizeof *sorted, cmp_point);
}

/* Whether the per-SM thread maximum is known (not only a lower bound, as on lavapipe where every point reads
 * P = LP_NUM_THREADS): only then is "occupancy" a fraction of it. */
static bool occupancy_known(const vkocc_derived *d) { return d->subgroups_bound_seen && d->threads_per_sm; }

/* "132 SMs, 2048 threads per SM" with "(ambiguous)" and "or more" where the derivation says so */
static void derived_text(const vkocc_derived *d, char *out, size_t len) {
  snprintf(out, len, "%u %s%s, %u%s threads per SM", d->sm_count, d->sm_count == 1 ? "SM" : "SMs",
           d->sm_count_ambiguous ? " (ambiguous)" : "", d->threads_per_sm,
           d->subgroups_bound_seen ? "" : " or more");
}

/* The heatmap's geometry: both axes linear in workgroup size and shared bytes, so every point sits at its
 * true position; each point's cell reaches halfway to its row's neighbours (refined sizes make narrow cells
 * where P steps). */
typedef struct {
  double L, T, pw, ph;
  double x0, x1, y0, y1; /* the data range shown: shared bytes, workgroup size */
} heat_geom;

static double gx(const heat_geom *g, double sh) { return g->L + g->pw * (sh - g->x0) / (g->x1 - g->x0); }
static double gy(const heat_geom *g, double wg) { return g->T + g->ph - g->ph * (wg - g->y0) / (g->y1 - g->y0); }

/* edges of value i among sorted v[0..n): halfway to the neighbours, the outer ones at lo / hi */
static void cell_edges(const uint32_t *v, uint32_t n, uint32_t i, double lo, double hi, double *a, double *b) {
  *a = i ? (v[i - 1] + (double)v[i]) / 2 : lo;
  *b = i + 1 < n ? (v[i] + (double)v[i + 1]) / 2 : hi;
}

static void heat_geometry(const uint32_t *wgs, uint32_t nw, const uint32_t *shs, uint32_t ns, double L, double T,
                          double pw, double ph, heat_geom *g) {
  double gx0 = ns > 1 ? shs[1] - (double)shs[0] : fmax(shs[0], 1024), gx1 = ns > 1 ? shs[ns - 1] - (double)shs[ns - 2] : gx0;
  double gy0 = nw > 1 ? wgs[1] - (double)wgs[0] : fmax(wgs[0], 1), gy1 = nw > 1 ? wgs[nw - 1] - (double)wgs[nw - 2] : gy0;
  /* the outer cells as wide as the ladder's first and last steps would make them (at most 1/8 of the axis) */
  double xs = shs[ns - 1] - (double)shs[0], ys = wgs[nw - 1] - (double)wgs[0];
  *g = (heat_geom){L, T, pw, ph, shs[0] - fmin(gx0, fmax(xs, 1) / 8) / 2, shs[ns - 1] + fmin(gx1, fmax(xs, 1) / 8) / 2,
                   wgs[0] - fmin(gy0, fmax(ys, 1) / 8) / 2, wgs[nw - 1] + fmin(gy1, fmax(ys, 1) / 8) / 2};
}

/* The cell's rectangle of point (wgs[a], shs-of-its-row): the row's own shared sizes decide its width. */
typedef struct { const vkocc_surface_point *p; double x, y, w, h; } heat_cell_box;

/* The cells of row a (wg wgs[a]) into out (its points in shared order); returns how many. */
static uint32_t row_cells(const heat_geom *g, const vkocc_surface_point *sorted, uint32_t n, const uint32_t *wgs,
                          uint32_t nw, uint32_t a, heat_cell_box *out, uint32_t *tmp) {
  /* the row's points are contiguous in sorted order */
  vkocc_surface_point key = {.wg_size = wgs[a], .shared_bytes = 0};
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (cmp_point(&sorted[mid], &key) < 0) lo = mid + 1;
    else hi = mid;
  }
  uint32_t m = 0;
  for (uint32_t i = lo; i < n && sorted[i].wg_size == wgs[a]; i++) tmp[m++] = sorted[i].shared_bytes;
  double ya, yb;
  cell_edges(wgs, nw, a, g->y0, g->y1, &ya, &yb);
  for (uint32_t k = 0; k < m; k++) {
    double xa, xb;
    cell_edges(tmp, m, k, g->x0, g->x1, &xa, &xb);
    out[k] = (heat_cell_box){&sorted[lo + k], gx(g, xa), gy(g, yb), gx(g, xb) - gx(g, xa), gy(g, ya) - gy(g, yb)};
  }
  return m;
}

/* Draws the surface heatmap on cr (w x h). cursor_wg / cursor_sh: indices into the distinct workgroup and
 * shared sizes (vkocc_plot_surface_grid) of a highlighted point (-1: none), with the calculator's readout
 * for it along the bottom. */
void vkocc_plot_draw_surface(struct _cairo *cr, double W, double H, const vkocc_surface *s, const vkocc_derived *d, int cursor_wg,
                        int cursor_sh) {
  canvas c = {.cr = cr, .w = W, .h = H};
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  uint32_t *wgs = viewer_xmalloc((s->count + 1) * sizeof *wgs), *shs = viewer_xmalloc((s->count + 1) * sizeof *shs);
  uint32_t *tmp = viewer_xmalloc((s->count + 1) * sizeof *tmp);
  heat_cell_box *cells = viewer_xmalloc((s->count + 1) * sizeof *cells);
  uint32_t nw = distinct(s, true, true, wgs), ns = distinct(s, false, true, shs);
  vkocc_surface_point *sorted = sorted_points(s);
  char extra[200];
  derived_text(d, extra, sizeof extra);
  viewer_title(&c, "Occupancy surface", &s->device, s->has_device, extra);
  bool readout = cursor_wg >= 0 && cursor_sh >= 0, occ = occupancy_known(d);
  uint32_t pmax = 1, npred = 0;
  for (uint32_t i = 0; i < s->count; i++) pmax = s->points[i].P > pmax ? s->points[i].P : pmax, npred += s->points[i].predicted;
  double L = 80, R = 120, T = 70, B = readout ? 124 : 104, pw = c.w - L - R, ph = c.h - T - B;
  heat_geom g;
  heat_geometry(wgs, nw, shs, ns, L, T, pw, ph, &g);
  char buf[256];
  scale sc = {occ ? 100 : pmax, false};
  for (uint32_t a = 0; a < nw; a++) {
    uint32_t m = row_cells(&g, sorted, s->count, wgs, nw, a, cells, tmp);
    for (uint32_t k = 0; k < m; k++) {
      const vkocc_surface_point *p = cells[k].p;
      vkocc_occupancy oc;
      vkocc_occupancy_from_P(d, p->wg_size, p->shared_bytes, p->P, &oc);
      snprintf(buf, sizeof buf, "%u", p->P);
      viewer_heat_cell_at(cr, cells[k].x, cells[k].y, cells[k].w, cells[k].h, viewer_scale_t(sc, occ ? oc.occupancy_pct : p->P), buf,
                   11, p->predicted, gx(&g, p->shared_bytes), gy(&g, p->wg_size));
    }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  /* y: the workgroup sizes at their positions, as many as fit */
  double lasty = 1e9;
  for (uint32_t a = 0; a < nw; a++) {
    double y = gy(&g, wgs[a]);
    if (lasty - y < 14 && a + 1 < nw) continue;
    if (lasty - y < 14) continue;
    snprintf(buf, sizeof buf, "%u", wgs[a]);
    viewer_text(cr, L - 6, y + 4, 11, false, RIGHT, buf);
    lasty = y;
  }
  /* x: round KiB values as labels; a tick under every shared size measured or predicted (the true positions) */
  double xstep = 1024; /* KiB labels at a power-of-two step, at most about 12 */
  while ((g.x1 - fmax(g.x0, 0)) / xstep > 12) xstep *= 2;
  for (double v = 0; v <= g.x1; v += xstep) {
    if (v < g.x0) continue;
    viewer_kib_label((uint32_t)v, buf, sizeof buf);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_move_to(cr, gx(&g, v), T + ph);
    cairo_line_to(cr, gx(&g, v), T + ph + 7);
    cairo_stroke(cr);
    viewer_text(cr, gx(&g, v), T + ph + 19, 11, false, CENTER, buf);
  }
  cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
  cairo_set_line_width(cr, 0.8);
  for (uint32_t b = 0; b < ns; b++) {
    cairo_move_to(cr, gx(&g, shs[b]), T + ph);
    cairo_line_to(cr, gx(&g, shs[b]), T + ph + 3.5);
    cairo_stroke(cr);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  viewer_text(cr, L + pw / 2, T + ph + 38, 13, false, CENTER, "shared memory per workgroup [KiB]");
  viewer_vtext(cr, 22, T + ph / 2, 13, "workgroup size [threads]");
  char cap[800];
  if (occ)
    viewer_colour_bar(cr, L + pw + 18, T, 18, ph, sc, "occupancy [% of the per-SM thread maximum]", "%.0f%%");
  else
    viewer_colour_bar(cr, L + pw + 18, T, 18, ph, sc, "P [workgroups resident, whole device]", "%.0f");
  char pred[160] = "";
  if (npred) snprintf(pred, sizeof pred, " Corner mark: predicted (by the adaptive surface or calc's model; %u of %u), not measured.",
                      npred, s->count);
  snprintf(cap, sizeof cap, "Numbers: P, the workgroups resident at once on the whole device (not per SM), where they "
           "fit. Colour: %s. Points at their true sizes, cells reaching halfway to their neighbours; axis ticks: the %u "
           "shared sizes, each number at its point.%s", occ ? "occupancy (resident threads per SM / the per-SM maximum)"
           : "P (the per-SM thread maximum is only a lower bound here: no occupancy in %)", ns, pred);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  viewer_wrap_text(cr, L, T + ph + 58, 11, c.w - L - 10, cap);
  if (readout && (uint32_t)cursor_wg < nw && (uint32_t)cursor_sh < ns) {
    uint32_t wg = wgs[cursor_wg], sh = shs[cursor_sh];
    const vkocc_surface_point *p = find(sorted, s->count, wg, sh);
    vkocc_occupancy oc;
    if (p) vkocc_occupancy_from_P(d, wg, sh, p->P, &oc);
    else vkocc_occupancy_compute(d, wg, sh, &oc);
    /* the row's cell that holds the size */
    uint32_t m = row_cells(&g, sorted, s->count, wgs, nw, (uint32_t)cursor_wg, cells, tmp);
    double x = gx(&g, sh), cx = x - 3, cwid = 6, ya, yb;
    for (uint32_t k = 0; k < m; k++)
      if (x >= cells[k].x - 0.01 && x <= cells[k].x + cells[k].w + 0.01) { cx = cells[k].x, cwid = cells[k].w; break; }
    cell_edges(wgs, nw, (uint32_t)cursor_wg, g.y0, g.y1, &ya, &yb);
    cairo_set_source_rgb(cr, 1, 0.2, 0.2);
    cairo_set_line_width(cr, 3);
    cairo_rectangle(cr, cx, gy(&g, yb), fmax(cwid, 4), gy(&g, ya) - gy(&g, yb));
    cairo_stroke(cr);
    char kb[32];
    viewer_kib_label(sh, kb, sizeof kb);
    snprintf(buf, sizeof buf, "wg %u, %s KiB: P = %u (%u per SM), occupancy %.1f%%, binding: %s%s", wg, kb, oc.wgs,
             oc.wg_per_sm, oc.occupancy_pct, vkocc_limit_name(oc.binding),
             !p ? " (model)" : p->predicted ? " (predicted)" : "");
    cairo_set_source_rgb(cr, 0, 0, 0);
    viewer_text(cr, L, c.h - 10, 14, true, LEFT, buf);
  }
  free(wgs), free(shs), free(tmp), free(cells), free(sorted);
}

void vkocc_plot_surface_grid(const vkocc_surface *s, uint32_t *nwg, uint32_t *nshared) {
  uint32_t *t = viewer_xmalloc((s->count + 1) * sizeof *t);
  *nwg = distinct(s, true, true, t);
  *nshared = distinct(s, false, true, t);
  free(t);
}

bool vkocc_plot_surface_cell_at(const vkocc_surface *s, double W, double H, double x, double y, int *cursor_wg,
                           int *cursor_sh) {
  uint32_t *wgs = viewer_xmalloc((s->count + 1) * sizeof *wgs), *shs = viewer_xmalloc((s->count + 1) * sizeof *shs);
  uint32_t nw = distinct(s, true, true, wgs), ns = distinct(s, false, true, shs);
  double L = 80, R = 120, T = 70, B = 124, pw = W - L - R, ph = H - T - B;
  heat_geom g;
  heat_geometry(wgs, nw, shs, ns, L, T, pw, ph, &g);
  bool in = x >= L && x <= L + pw && y >= T && y <= T + ph;
  if (in) { /* the nearest size on each axis */
    double sh = g.x0 + (x - L) / pw * (g.x1 - g.x0), wg = g.y0 + (T + ph - y) / ph * (g.y1 - g.y0);
    int bw = 0, bs = 0;
    for (uint32_t a = 1; a < nw; a++) if (fabs(wgs[a] - wg) < fabs(wgs[bw] - wg)) bw = (int)a;
    for (uint32_t b = 1; b < ns; b++) if (fabs(shs[b] - sh) < fabs(shs[bs] - sh)) bs = (int)b;
    *cursor_wg = bw, *cursor_sh = bs;
  }
  free(wgs), free(shs);
  return in;
}

vkocc_status vkocc_plot_surface(const vkocc_surface *s, const vkocc_derived *d, const char *path,
                                const vkocc_plot_options *o) {
  vkocc_clear_error();
  if (s->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "plot: the surface is empty");
  canvas c;
  vkocc_status st = viewer_canvas_open(&c, path, o);
  if (st) return st;
  vkocc_plot_draw_surface(c.cr, c.w, c.h, s, d, -1, -1);
  return viewer_canvas_close(&c, true);
}

/* A legend entry: a line (dash: none), a marker (0 none, 1 filled dot, 2 hollow dot) and its text. */
static void legend_entry(cairo_t *cr, double x, double y, const double rgb[3], bool line, int marker, const char *label) {
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]); /* the line in the caller's width */
  if (line) {
    cairo_move_to(cr, x, y - 4);
    cairo_line_to(cr, x + 24, y - 4);
    cairo_stroke(cr);
  }
  if (marker) {
    cairo_new_path(cr);
    cairo_arc(cr, x + 12, y - 4, 3.5, 0, 2 * M_PI);
    if (marker == 1) cairo_fill(cr);
    else {
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_fill_preserve(cr);
      cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
      cairo_set_line_width(cr, 1.5);
      cairo_stroke(cr);
    }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  viewer_text(cr, x + 30, y, 11, false, LEFT, label);
}

uint32_t vkocc_plot_wg_default_sizes(const vkocc_surface *s, uint32_t *out, uint32_t max) {
  uint32_t *shs = viewer_xmalloc((s->count + 1) * sizeof *shs), ns = distinct(s, false, false, shs), n = 0;
  if (max > ns) max = ns;
  /* evenly over the ladder, the first and the last always */
  for (uint32_t k = 0; k < max; k++) {
    uint32_t i = max == 1 ? 0 : (uint32_t)llround((double)k * (ns - 1) / (max - 1));
    if (!n || out[n - 1] != shs[i]) out[n++] = shs[i];
  }
  free(shs);
  return n;
}

vkocc_status vkocc_plot_wg(const vkocc_surface *s, const vkocc_derived *d, const uint32_t *shared, uint32_t n,
                           const char *path, const vkocc_plot_options *o) {
  vkocc_clear_error();
  if (s->count == 0) return vkocc_fail(VKOCC_ERROR_USAGE, "plot: the surface is empty");
  if (n == 0 || n > 8) return vkocc_fail(VKOCC_ERROR_USAGE, "plot wg: give 1 to 8 shared-memory sizes");
  canvas c;
  vkocc_status st = viewer_canvas_open(&c, path, o);
  if (st) return st;
  uint32_t *wgs = viewer_xmalloc((s->count + 1) * sizeof *wgs), nw = distinct(s, true, true, wgs);
  vkocc_surface_point *sorted = sorted_points(s);
  char extra[200];
  derived_text(d, extra, sizeof extra);
  viewer_title(&c, "Impact of varying workgroup size", &s->device, s->has_device, extra);
  cairo_t *cr = c.cr;
  bool occ = occupancy_known(d);
  char buf[128];
  /* the legend right of the plot area, as wide as its longest entry: never over the lines, never clipped */
  double lw = viewer_text_width(cr, 11, "predicted, not measured");
  for (uint32_t k = 0; k < n; k++) {
    char kb[32];
    viewer_kib_label(shared[k], kb, sizeof kb);
    snprintf(buf, sizeof buf, "%s KiB shared memory", kb);
    lw = fmax(lw, viewer_text_width(cr, 11, buf));
  }
  double L = 80, R = lw + 30 + 30, T = 70, B = 76, pw = c.w - L - R, ph = c.h - T - B;
  double xmax = wgs[nw - 1], ymax = 100;
  if (!occ) { /* P in workgroups (device-wide): the per-SM thread maximum is a lower bound only */
    ymax = 1;
    for (uint32_t i = 0; i < s->count; i++) ymax = fmax(ymax, s->points[i].P);
  }
  /* whole-number steps for counts, the top a little above the highest */
  double ystep = occ ? 20 : fmax(1, viewer_nice_step(ymax, 5));
  if (!occ) ymax = ceil(ymax * 1.1 / ystep) * ystep;
  viewer_y_grid(cr, L, T, pw, ph, (int)lround(ymax / ystep), ymax, "%.0f");
  if (occ) { /* the % sign on the labels */
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, T - 10, L - 2, ph + 20);
    cairo_fill(cr);
    viewer_y_grid(cr, L, T, pw, ph, 5, 100, "%.0f%%");
  }
  /* at most 16 labels whatever the largest size; 64-bit, so the last step cannot wrap around */
  uint64_t xstep = xmax > 512 ? 128 : xmax > 128 ? 32 : 8;
  while (xmax / xstep > 16) xstep *= 2;
  cairo_set_source_rgb(cr, 0, 0, 0);
  for (uint64_t x = 0; x <= xmax; x += xstep) {
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)x);
    viewer_text(cr, L + pw * x / xmax, T + ph + 16, 11, false, CENTER, buf);
  }
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  viewer_text(cr, L + pw / 2, T + ph + 36, 13, false, CENTER, "workgroup size [threads]");
  viewer_vtext(cr, 22, T + ph / 2, 13, occ ? "occupancy [% of the per-SM thread maximum]"
                                    : "P [workgroups resident, whole device]");
  for (uint32_t k = 0; k < n; k++) {
    const double *col = viewer_okabe_ito[k];
    cairo_set_source_rgb(cr, col[0], col[1], col[2]);
    /* the first line widest: where lines coincide (sizes the limits treat alike) each stays visible */
    double lwid = 1.5 + 0.8 * (n - 1 - k);
    cairo_set_line_width(cr, lwid);
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
      double v = occ ? oc.occupancy_pct : oc.wgs;
      double px = L + pw * w / xmax, py = T + ph - ph * v / ymax;
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
    for (uint32_t a = 0; a < nw; a++) { /* the file's points: filled where measured, hollow where predicted */
      const vkocc_surface_point *p = find(sorted, s->count, wgs[a], shared[k]);
      if (!p) continue;
      vkocc_occupancy oc;
      vkocc_occupancy_from_P(d, wgs[a], shared[k], p->P, &oc);
      double v = occ ? oc.occupancy_pct : p->P;
      cairo_new_path(cr);
      cairo_arc(cr, L + pw * wgs[a] / xmax, T + ph - ph * v / ymax, 3, 0, 2 * M_PI);
      if (p->predicted) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, col[0], col[1], col[2]);
        cairo_set_line_width(cr, 1.3);
        cairo_stroke(cr);
      } else {
        cairo_set_source_rgb(cr, col[0], col[1], col[2]);
        cairo_fill(cr);
      }
    }
    char kb[32];
    viewer_kib_label(shared[k], kb, sizeof kb);
    snprintf(buf, sizeof buf, "%s KiB shared memory", kb);
    cairo_set_line_width(cr, lwid);
    legend_entry(cr, L + pw + 16, T + 12 + 20 * k, col, true, 0, buf);
  }
  static const double grey[3] = {0.3, 0.3, 0.3};
  legend_entry(cr, L + pw + 16, T + 12 + 20 * n + 10, grey, false, 1, "measured");
  legend_entry(cr, L + pw + 16, T + 12 + 20 * n + 30, grey, false, 2, "predicted, not measured");
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  if (occ)
    snprintf(buf, sizeof buf, "Occupancy: resident threads per SM / %u; the line follows the model between the "
             "file's points.", d->threads_per_sm);
  else
    snprintf(buf, sizeof buf, "P: workgroups resident at once on the whole device (the per-SM thread maximum is only "
             "a lower bound here).");
  viewer_wrap_text(cr, L, T + ph + 56, 11, c.w - L - 10, buf);
  free(wgs);
  free(sorted);
  return viewer_canvas_close(&c, true);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

vkocc_status vkocc_plot_comb(const vkocc_interval *iv, uint32_t n, const char *ttl, const char *path,
                             const vkocc_plot_options *o) {
  vkocc_clear_error();
  vkocc_comb_estimate e;
  vkocc_status st = vkocc_comb_estimate_P(iv, n, 0, &e);
  if (st) return vkocc_fail(VKOCC_ERROR_USAGE, "plot comb: %s", vkocc_last_error());
  canvas c;
  if ((st = viewer_canvas_open(&c, path, o))) return st;
  cairo_t *cr = c.cr;
  /* the teeth as the estimate groups them: runs of start times without a gap above half the median sleep;
   * each drawn as one bar, as high as the workgroups it started, from its first start to its last */
  double *t = viewer_xmalloc((n + 1) * sizeof *t);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (iv[i].valid) t[m++] = iv[i].start;
  qsort(t, m, sizeof *t, cmp_double);
  double t0 = m ? t[0] : 0, t1 = t0;
  for (uint32_t i = 0; i < n; i++)
    if (iv[i].valid) t1 = fmax(t1, iv[i].end);
  double span = fmax(t1 - t0, 1), gap = e.median_sleep_ns / 2;
  uint32_t *th = viewer_xmalloc((m + 1) * sizeof *th), *tf = viewer_xmalloc((m + 1) * sizeof *tf), nt = 0, hmax = 1;
  for (uint32_t i = 0; i < m; i++) {
    if (!i || t[i] - t[i - 1] > gap) tf[nt] = i, th[nt++] = 0;
    if (++th[nt - 1] > hmax) hmax = th[nt - 1];
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  viewer_text(cr, c.w / 2, 28, 18, true, CENTER, "Sleeping-workgroup comb: start times");
  cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
  viewer_text(cr, c.w / 2, 50, 13, false, CENTER, ttl);
  char buf[256];
  /* the estimate above the plot area, clear of the bars */
  snprintf(buf, sizeof buf, "P = %u%s   (first tooth %u, %u teeth, %u records, median sleep %.1f µs)", e.P,
           e.lower_bound ? " or more: every workgroup overlapped, dispatch more to find the limit" : "",
           e.tooth_heights[0], e.teeth, e.n_valid, e.median_sleep_ns / 1e3);
  cairo_set_source_rgb(cr, viewer_okabe_ito[1][0], viewer_okabe_ito[1][1], viewer_okabe_ito[1][2]);
  viewer_text(cr, c.w / 2, 72, 13, true, CENTER, buf);
  double L = 80, R = 30, T = 90, B = 76, pw = c.w - L - R, ph = c.h - T - B;
  /* whole numbers on the axis, a 1-2-5 step, the top a little above the highest tooth */
  double ystep = fmax(1, viewer_nice_step(hmax, 4));
  double ytop = ceil((hmax * 1.08) / ystep) * ystep;
  viewer_y_grid(cr, L, T, pw, ph, (int)lround(ytop / ystep), ytop, "%.0f");
  cairo_set_source_rgb(cr, viewer_okabe_ito[0][0], viewer_okabe_ito[0][1], viewer_okabe_ito[0][2]);
  for (uint32_t k = 0; k < nt; k++) {
    double a = t[tf[k]] - t0, b = t[tf[k] + th[k] - 1] - t0, bh = ph * th[k] / ytop;
    double x = L + pw * a / span, w = fmax(pw * (b - a) / span, 2.5);
    cairo_rectangle(cr, x, T + ph - bh, w, bh);
    cairo_fill(cr);
  }
  if (nt <= 40) /* each tooth's height where the labels fit */
    for (uint32_t k = 0, last = 0; k < nt; k++) {
      double x = L + pw * (t[tf[k]] - t0) / span;
      if (k && x - last < 16) continue;
      snprintf(buf, sizeof buf, "%u", th[k]);
      cairo_set_source_rgb(cr, 0, 0, 0);
      viewer_text(cr, x + 1, T + ph - ph * th[k] / ytop - 4, 10, false, CENTER, buf);
      last = (uint32_t)x;
    }
  double unit = span > 20e6 ? 1e6 : 1e3; /* ms beyond 20 ms, else µs */
  double step = viewer_nice_step(span / unit, 6);
  for (double u = 0; u <= span / unit + 1e-9; u += step) {
    snprintf(buf, sizeof buf, step >= 1 ? "%.0f" : "%.1f", u);
    cairo_set_source_rgb(cr, 0, 0, 0);
    viewer_text(cr, L + pw * u * unit / span, T + ph + 16, 11, false, CENTER, buf);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  viewer_text(cr, L + pw / 2, T + ph + 36, 13, false, CENTER,
       unit == 1e6 ? "start time after the first workgroup [ms]" : "start time after the first workgroup [µs]");
  viewer_vtext(cr, 22, T + ph / 2, 13, "workgroups started in the tooth");
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  viewer_wrap_text(cr, L, T + ph + 58, 11, c.w - L - 10,
       "Each bar: one tooth, the workgroups that started together (no gap over half a sleep), from its first start "
       "to its last.");
  free(t), free(th), free(tf);
  return viewer_canvas_close(&c, true);
}

vkocc_status vkocc_plot_compare(const vkocc_fingerprint *fps, uint32_t n, const char *path,
                                const vkocc_plot_options *o) {
  vkocc_clear_error();
  if (n == 0 || n > 6) return vkocc_fail(VKOCC_ERROR_USAGE, "plot compare: give 1 to 6 fingerprints");
  canvas c;
  vkocc_status st = viewer_canvas_open(&c, path, o);
  if (st) return st;
  cairo_t *cr = c.cr;
  double vmax = 1;
  for (uint32_t k = 0; k < n; k++)
    for (int a = 0; a < VKOCC_CANON_WG; a++)
      for (int b = 0; b < VKOCC_CANON_SHARED; b++)
        if (!isnan(fps[k].normalized[a][b])) vmax = fmax(vmax, fps[k].normalized[a][b]);
  scale sc = {vmax, true}; /* logarithmic: 1 and 2 workgroups per SM stay apart beside 32 */
  cairo_set_source_rgb(cr, 0, 0, 0);
  viewer_text(cr, c.w / 2, 28, 18, true, CENTER, "Normalized occupancy surfaces (resident workgroups per SM)");
  double L = 60, R = 150, T = 100, B = 76, gap = 30;
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
    if (viewer_text_width(cr, fs, buf) > pw) {
      for (char *sp = strrchr(buf, ' '); sp; sp = sp > buf ? memrchr(buf, ' ', (size_t)(sp - buf)) : NULL) {
        *sp = 0;
        bool fits = viewer_text_width(cr, fs, buf) <= pw;
        *sp = ' ';
        if (fits) { *sp = 0; line2 = sp + 1; break; }
      }
      while (fs > 8 && (viewer_text_width(cr, fs, buf) > pw || (line2 && viewer_text_width(cr, fs, line2) > pw))) fs -= 0.5;
      char *last = line2 ? line2 : buf;
      while (strlen(last) > 4 && viewer_text_width(cr, fs, last) > pw) last[strlen(last) - 4] = 0, strcat(last, "...");
    }
    viewer_text(cr, x0 + pw / 2, line2 ? T - 50 : T - 36, fs, true, CENTER, buf);
    if (line2) viewer_text(cr, x0 + pw / 2, T - 36, fs, true, CENTER, line2);
    viewer_text(cr, x0 + pw / 2, T - 21, 11, false, CENTER, fps[k].cluster_id);
    /* the distance to the first panel's fingerprint (docs/fingerprint.md), and what the threshold makes of it */
    if (k > 0) {
      double dist = vkocc_fingerprint_distance(&fps[0], &fps[k]);
      snprintf(buf, sizeof buf, "distance to the first: %.3f (%s)", dist,
               !strcmp(fps[0].cluster_id, fps[k].cluster_id) ? "same cluster ID"
               : dist <= VKOCC_CLUSTER_THRESHOLD ? "within 0.02: one cluster" : "above 0.02: another cluster");
    } else {
      snprintf(buf, sizeof buf, "%s", n > 1 ? "the reference for the distances" : "");
    }
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    if (buf[0]) viewer_text(cr, x0 + pw / 2, T - 7, 10, false, CENTER, buf);
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
        viewer_heat_cell(cr, x, y, cw, ch, viewer_scale_t(sc, v), buf, 10, false);
      }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x0, T, pw, ph);
    cairo_stroke(cr);
    for (int b = 0; b < VKOCC_CANON_SHARED; b += (cw < 26 ? 2 : 1)) {
      viewer_kib_label(vkocc_canonical_shared[b], buf, sizeof buf);
      viewer_text(cr, x0 + (b + 0.5) * cw, T + ph + 14, 10, false, CENTER, buf);
    }
    if (k == 0)
      for (int a = 0; a < VKOCC_CANON_WG; a += (ch < 12 ? 2 : 1)) {
        snprintf(buf, sizeof buf, "%u", vkocc_canonical_wg[a]);
        viewer_text(cr, x0 - 5, T + ph - (a + 0.5) * ch + 4, 10, false, RIGHT, buf);
      }
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  viewer_text(cr, L + (c.w - L - R) / 2, T + ph + 34, 13, false, CENTER, "shared memory per workgroup [KiB]");
  viewer_vtext(cr, 16, T + ph / 2, 13, "workgroup size [threads]");
  double bx = c.w - R + 18;
  viewer_colour_bar(cr, bx, T, 18, ph - 60, sc, "workgroups per SM (log scale)", "%.0f");
  /* the hatching's legend under the colour bar */
  cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
  cairo_rectangle(cr, bx, T + ph - 34, 18, 18);
  cairo_fill(cr);
  cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
  cairo_set_line_width(cr, 0.8);
  cairo_move_to(cr, bx, T + ph - 16);
  cairo_line_to(cr, bx + 18, T + ph - 34);
  cairo_stroke(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  viewer_text(cr, bx + 24, T + ph - 27, 10, false, LEFT, "beyond the");
  viewer_text(cr, bx + 24, T + ph - 15, 10, false, LEFT, "device's limits");
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  snprintf(buf, sizeof buf, "Numbers: P / SM count, the workgroups resident per SM on the canonical grid. Distance: "
           "the mean relative difference per point (threshold %.2f).", VKOCC_CLUSTER_THRESHOLD);
  viewer_wrap_text(cr, L, T + ph + 56, 11, c.w - L - 10, buf);
  return viewer_canvas_close(&c, true);
}

/* ---- occupancy against registers, shared memory and workgroup size (the register axis, docs/model.md) */

/* One panel: occupancy (%) over x = lo..hi in steps of step, the model at each; the current x marked. */
static void occ_panel(canvas *c, double L, double T, double pw, double ph, const char *xlabel, uint32_t lo, uint32_t hi,
                      uint32_t step, uint32_t cur, double (*occ)(void *, uint32_t), void *user, int colour) {
  cairo_t *cr = c->cr;
  char buf[64];
  viewer_y_grid(cr, L, T, pw, ph, 5, 100, "%.0f%%");
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, L, T, pw, ph);
  cairo_stroke(cr);
  double span = hi > lo ? hi - lo : 1, xs = viewer_nice_step(span, 5);
  for (double x = ceil(lo / xs) * xs; x <= hi; x += xs) {
    snprintf(buf, sizeof buf, "%.0f", x);
    viewer_text(cr, L + pw * (x - lo) / span, T + ph + 16, 11, false, CENTER, buf);
  }
  viewer_text(cr, L + pw / 2, T + ph + 38, 13, false, CENTER, xlabel);
  cairo_set_source_rgb(cr, viewer_okabe_ito[colour][0], viewer_okabe_ito[colour][1], viewer_okabe_ito[colour][2]);
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
  viewer_text(cr, L + pw * (cur - lo) / span + 8, T + ph - ph * v / 100 - 8, 11, true, LEFT, buf);
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
  vkocc_status st = viewer_canvas_open(&c, path, &po);
  if (st) return st;
  char extra[160];
  snprintf(extra, sizeof extra, "at %u threads, %u shared bytes, %u registers per invocation", wg, shared, regs);
  viewer_title(&c, "Occupancy against registers, shared memory and workgroup size", dev, dev && dev->name[0], extra);
  occ_point p = {d, m, wg, shared, regs};
  double gap = 70, L0 = 70, T = 80, B = 70, pw = (c.w - L0 - 3 * gap + 40) / 3, ph = c.h - T - B;
  uint32_t maxr = m->max_per_invocation ? m->max_per_invocation : 255, sg = d->subgroup_size ? d->subgroup_size : 1;
  uint32_t maxs = dev && dev->max_shared_bytes ? dev->max_shared_bytes : 49152, maxwg = 1024;
  if (dev && dev->max_invocations) maxwg = vkocc_device_max_wg_size(dev);
  if (regs > maxr) maxr = regs;
  if (shared > maxs) maxs = shared;
  if (wg > maxwg) maxwg = wg;
  viewer_vtext(c.cr, 22, T + ph / 2, 13, "occupancy [% of per-SM thread maximum]");
  occ_panel(&c, L0, T, pw, ph, "registers per invocation", 1, maxr, 1, regs, occ_regs, &p, 0);
  occ_panel(&c, L0 + pw + gap, T, pw, ph, "shared memory per workgroup [bytes]", 0, maxs, maxs >= 4096 ? 256 : 1,
            shared, occ_shared, &p, 1);
  occ_panel(&c, L0 + 2 * (pw + gap), T, pw, ph, "workgroup size [threads]", sg, maxwg, sg, wg, occ_wg, &p, 2);
  return viewer_canvas_close(&c, true);
}
