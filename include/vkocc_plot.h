/* vkocc plots — libvkocc-plot, the only part of vkocc that links cairo (pkg-config vkocc-plot, CMake
 * vkocc::plot), so an application that does not plot links no cairo.
 *
 *   #include <vkocc_plot.h>
 *
 *   vkocc_surface s;
 *   vkocc_derived d;
 *   if (vkocc_surface_load("surface.json", &s) == VKOCC_OK &&
 *       vkocc_derive(s.points, s.count, s.subgroup_size, &d) == VKOCC_OK &&
 *       vkocc_plot_surface(&s, &d, "surface.png", NULL) == VKOCC_OK)
 *     puts("surface.png");
 *   else
 *     fprintf(stderr, "%s\n", vkocc_last_error());
 *   vkocc_surface_free(&s);
 *
 * Every plot picks PNG, SVG or PDF from the path's extension, writes through a temporary file and a rename
 * (nothing is left behind on error), and reports failures as the rest of vkocc does (vkocc_last_error()).
 */
#ifndef VKOCC_PLOT_H
#define VKOCC_PLOT_H

#include "vkocc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkocc_plot_options {
  uint32_t width, height;   /* pixels (PNG) or points (SVG, PDF); 0 = 1000 x 700 */
} vkocc_plot_options;

/* ---------------------------------------------------------------- a device's measurements
 * Titled with the device name and driver. */

/* Heatmap over workgroup size x shared memory; colour = occupancy (% of the per-SM thread maximum),
 * P printed in each cell where it fits, colour bar. Refined points are shown in the table only. */
vkocc_status vkocc_plot_surface(const vkocc_surface *s, const vkocc_derived *d, const char *path,
                                const vkocc_plot_options *o);
/* Occupancy against workgroup size, one line per shared size (measured points, the model between). */
vkocc_status vkocc_plot_wg(const vkocc_surface *s, const vkocc_derived *d, const uint32_t *shared, uint32_t n,
                           const char *path, const vkocc_plot_options *o);
/* Start-time histogram of one comb, its teeth and the estimated P. */
vkocc_status vkocc_plot_comb(const vkocc_interval *iv, uint32_t n, const char *title, const char *path,
                             const vkocc_plot_options *o);
/* Occupancy against registers per invocation, against shared memory and against workgroup size side by side
 * (as Nsight Compute's occupancy graphs), each through the point (wg_size, shared_bytes, registers) and drawn from
 * the model with the register file. VKOCC_ERROR_UNSUPPORTED when the register axis is unknown. dev may be NULL. */
vkocc_status vkocc_plot_registers(const vkocc_derived *d, const vkocc_register_model *m, const vkocc_device_info *dev,
                                  uint32_t wg_size, uint32_t shared_bytes, uint32_t registers, const char *path,
                                  const vkocc_plot_options *o);

/* The shared sizes `plot wg` draws by default: up to max, spread evenly over the ladder (first and last). */
uint32_t vkocc_plot_wg_default_sizes(const vkocc_surface *s, uint32_t *out, uint32_t max);

/* The heatmap drawn into the application's own cairo context (cairo_t, as `vkocc view` draws it in its
 * window), W x H. cursor_wg / cursor_sh: indices into the distinct workgroup and shared sizes
 * (vkocc_plot_surface_grid) of a highlighted point (-1: none), with the calculator's readout for it along
 * the bottom. */
struct _cairo;
void vkocc_plot_draw_surface(struct _cairo *cr, double W, double H, const vkocc_surface *s, const vkocc_derived *d,
                             int cursor_wg, int cursor_sh);
/* The number of distinct workgroup and shared sizes of the surface (the heatmap's rows and columns). */
void vkocc_plot_surface_grid(const vkocc_surface *s, uint32_t *nwg, uint32_t *nshared);
/* The heatmap point nearest position (x, y) as vkocc_plot_draw_surface lays it out on W x H: indices as for
 * its cursor; false outside the plot area. */
bool vkocc_plot_surface_cell_at(const vkocc_surface *s, double W, double H, double x, double y, int *cursor_wg,
                                int *cursor_sh);

/* ---------------------------------------------------------------- fingerprints */

/* Normalized surfaces side by side, titled with device names and cluster IDs. */
vkocc_status vkocc_plot_compare(const vkocc_fingerprint *fps, uint32_t n, const char *path,
                                const vkocc_plot_options *o);

/* ---------------------------------------------------------------- search convergence
 * The standard convergence plot of autotuning papers, as `vkocc tune --replay ... --plot FILE` draws it. */
typedef struct vkocc_convergence_curve {
  const char *label;            /* legend: the strategy (and "without occupancy" for an ablation) */
  uint32_t n;                   /* evaluations 1..n */
  const double *median;         /* n: fraction of the optimum (optimum time / best found time), median over seeds */
  const double *q1, *q3;        /* n: the quartiles (the band); NULL: no band */
  bool dashed;
  int32_t colour;               /* Okabe-Ito palette index (0..7, wraps); < 0: the curve's position */
} vkocc_convergence_curve;
/* Fraction of the optimum against evaluations (log axis), a line per curve in its quartile band, 95% of the
 * optimum and (space_size > 0) the 1%, 5% and 10% budgets marked. VKOCC_ERROR_USAGE for no curves, an empty
 * one, or a bad path. */
vkocc_status vkocc_plot_convergence(const vkocc_convergence_curve *curves, uint32_t ncurves, uint32_t space_size,
                                    const char *title, const char *subtitle, const char *path,
                                    const vkocc_plot_options *o);

#ifdef __cplusplus
}
#endif
#endif
