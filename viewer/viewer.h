/* Internal: drawing shared by the plots and the interactive viewer (cli/cmd_view.c). */
#ifndef VKOCC_VIEWER_H
#define VKOCC_VIEWER_H
#include "vkocc_plot.h"
#include <cairo.h>
void vkocc_draw_surface(cairo_t *cr, double w, double h, const vkocc_surface *s, const vkocc_derived *d, int cursor_wg,
                        int cursor_sh);
void vkocc_surface_grid_size(const vkocc_surface *s, uint32_t *nwg, uint32_t *nshared);
/* The heatmap point nearest window position (x, y) as vkocc_draw_surface lays it out on W x H with a
 * readout: indices as for its cursor; false outside the plot area. */
bool vkocc_surface_cell_at(const vkocc_surface *s, double W, double H, double x, double y, int *cursor_wg,
                           int *cursor_sh);
/* The shared sizes `plot wg` draws by default: up to max, spread evenly over the ladder (first and last). */
uint32_t vkocc_plot_wg_default_sizes(const vkocc_surface *s, uint32_t *out, uint32_t max);
#endif
