/* Internal: drawing shared by the plots and the interactive viewer (cli/cmd_view.c). */
#ifndef VKOCC_VIEWER_H
#define VKOCC_VIEWER_H
#include "vkocc.h"
#include <cairo.h>
void vkocc_draw_surface(cairo_t *cr, double w, double h, const vkocc_surface *s, const vkocc_derived *d, int cursor_wg,
                        int cursor_sh);
void vkocc_surface_grid_size(const vkocc_surface *s, uint32_t *nwg, uint32_t *nshared);
#endif
