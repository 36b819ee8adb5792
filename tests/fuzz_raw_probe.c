/* Fuzz target for the raw probe reader (vkocc_raw_probe_load, `vkocc plot comb`), then the comb estimate
 * that consumes the intervals it returns. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vkocc_interval *iv;
  uint32_t n;
  vkocc_device_info dev;
  vkocc_status s = vkocc_raw_probe_load(fuzz_file(data, size), &iv, &n, &dev);
  fuzz_check_status(s, 0);
  if (s) { FUZZ_CHECK(iv == NULL); return 0; }
  fuzz_accepted++;
  FUZZ_CHECK(n > 0 && iv);
  vkocc_comb_estimate e;
  s = vkocc_comb_estimate_P(iv, n, 0, &e);
  FUZZ_CHECK(s == VKOCC_OK || s == VKOCC_ERROR_RUNTIME); /* RUNTIME: no valid record */
  FUZZ_CHECK(e.n_valid + e.n_missing == n);
  if (s == VKOCC_OK) FUZZ_CHECK(e.P >= 1 && e.P <= e.n_valid && e.teeth >= 1 && e.teeth <= e.n_valid);
  /* and with an explicit minimum dwell, the other branch of the estimate */
  if (s == VKOCC_OK) FUZZ_CHECK(vkocc_comb_estimate_P(iv, n, 1.0, &e) == VKOCC_OK);
  free(iv);
  return 0;
}
