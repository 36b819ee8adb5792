/* Plants a document in the live lavapipe device's fingerprint (or register) cache, sealed as vkocc seals it (the key covers
 * the device, driver, queue family, the driver's environment and vkocc's version), for tests that need a
 * cache hit without measuring. lp: the LP_NUM_THREADS the command will run with (NULL: unset); the rest of
 * the environment is this process's, which the command inherits. */
#ifndef VKOCC_TEST_CACHE_PLANT_H
#define VKOCC_TEST_CACHE_PLANT_H
#include "../characterize/characterize.h"
#include "../io/registers_io.h"
#include "internal.h"
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static inline bool plant_entry(json_t *doc, const char *xdg, const char *lp, bool registers) {
  char *old_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
  char *old_lp = getenv("LP_NUM_THREADS") ? strdup(getenv("LP_NUM_THREADS")) : NULL;
  setenv("XDG_CACHE_HOME", xdg, 1);
  if (lp) setenv("LP_NUM_THREADS", lp, 1);
  else unsetenv("LP_NUM_THREADS");
  vkocc_device_info *devs = NULL;
  uint32_t n = 0;
  bool ok = false;
  if (vkocc_enumerate_devices(&devs, &n) == VKOCC_OK)
    for (uint32_t i = 0; i < n && !ok; i++)
      if (strstr(devs[i].name, "llvmpipe"))
        ok = (registers ? vkocc_register_cache_store(&devs[i], doc) : characterize_fingerprint_cache_store(&devs[i], doc)) == VKOCC_OK;
  free(devs);
  if (old_xdg) setenv("XDG_CACHE_HOME", old_xdg, 1);
  else unsetenv("XDG_CACHE_HOME");
  if (old_lp) setenv("LP_NUM_THREADS", old_lp, 1);
  else unsetenv("LP_NUM_THREADS");
  free(old_xdg);
  free(old_lp);
  return ok;
}
static inline bool plant_fingerprint(json_t *doc, const char *xdg, const char *lp) {
  return plant_entry(doc, xdg, lp, false);
}
/* the same for the device's register document (vkocc surface --registers keeps it there) */
static inline bool plant_registers(json_t *doc, const char *xdg, const char *lp) { return plant_entry(doc, xdg, lp, true); }
#endif
