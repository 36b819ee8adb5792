/* JSON at the edges: conversions of the library's structs (jansson). Internal to vkocc and its CLI. */
#ifndef VKOCC_JSONIO_H
#define VKOCC_JSONIO_H
#include "vkocc.h"
#include <jansson.h>

json_t *vkocc_device_info_json(const vkocc_device_info *d);
json_t *vkocc_linfit_json(const vkocc_linfit *f);
json_t *vkocc_calibration_json(const vkocc_calibration *c);
json_t *vkocc_probe_result_json(const vkocc_probe_result *r);
json_t *vkocc_intervals_json(const vkocc_interval *iv, uint32_t n);
/* Writes a JSON document through a temporary file and a rename (path "-" = stdout). */
vkocc_status vkocc_json_write(json_t *doc, const char *path);
#endif
