/* Named decisions the CLI, the library and the tests share, so they cannot drift apart. */
#include "internal.h"
#include <string.h>

void vkocc_calibrate_preset(vkocc_calibration_preset preset, vkocc_calibrate_options *out) {
  memset(out, 0, sizeof *out); /* FULL: vkocc_calibrate's defaults */
  if (preset == VKOCC_CALIBRATION_QUICK) {
    /* enough for the sleep lengths of a probe: 4 lengths x 3 repeats, the longest 1 ms (about 0.1 s) */
    out->lengths = 4;
    out->repeats = 3;
    out->longest_ns = 1e6;
  }
}

static const struct { const char *name; vkocc_method m; } methods[] = {
    {"auto", 0}, {"comb", VKOCC_METHOD_COMB}, {"bisect", VKOCC_METHOD_BISECT}, {"both", VKOCC_METHOD_BOTH}};

vkocc_status vkocc_method_parse(const char *text, const char *source, vkocc_method *out) {
  for (size_t i = 0; text && i < VKOCC_ARRAY_LEN(methods); i++)
    if (!strcmp(text, methods[i].name)) {
      *out = methods[i].m;
      vkocc_clear_error();
      return VKOCC_OK;
    }
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s '%s': expected comb, bisect, both or auto", source ? source : "method",
                    text ? text : "");
}

const char *vkocc_method_name(vkocc_method m) {
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(methods); i++)
    if (methods[i].m == m) return methods[i].name;
  return "unknown";
}
