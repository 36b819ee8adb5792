/* Fuzz target for the T1 reader (tune/spec/t1.c, without looking files up), then what `vkocc tune` does with an
 * accepted spec before it needs a device: the space enumeration (when the product is small), the sizes and
 * the key of the first configurations, the conditions naming P at several P, and the argument fills. Bad
 * input must be a usage error whose message starts with the file name. */
#include "fuzz_util.h"
#include "../tune/spec/t1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  t1_spec s;
  vkocc_status st = t1_parse((const char *)data, size, "fuzz.json", "/nonexistent", false, &s);
  fuzz_check_status(st, 0);
  if (st) { FUZZ_CHECK(!strncmp(vkocc_last_error(), "fuzz.json: ", 11)); return 0; }
  fuzz_accepted++;
  uint64_t total = 1;
  for (uint32_t i = 0; i < s.nparams; i++) total *= s.params[i].nvalues;
  if (total <= 20000) {
    t1_space sp;
    st = t1_enumerate(&s, &sp);
    fuzz_check_status(st, 0);
    if (!st) {
      FUZZ_CHECK(sp.count >= 1 && sp.count + sp.constrained == sp.total && sp.total == total);
      for (uint32_t c = 0; c < sp.count && c < 4; c++) {
        const uint32_t *coord = sp.coord + (size_t)c * s.nparams;
        for (uint32_t i = 0; i < s.nparams; i++) FUZZ_CHECK(coord[i] < s.params[i].nvalues);
        char key[1024], why[256];
        t1_config_key(&s, coord, key, sizeof key);
        FUZZ_CHECK(key[0] == '{');
        uint32_t l[3], g[3];
        for (int64_t P = 1; P <= 1000; P *= 10) {
          bool ok;
          fuzz_check_status(t1_sizes(&s, coord, P, l, g), 0);
          fuzz_check_status(t1_check_P(&s, coord, P, &ok, why, sizeof why), 0);
        }
      }
      t1_space_free(&sp);
    }
  }
  for (uint32_t i = 0; i < s.nargs; i++) {
    t1_arg *a = &s.args[i];
    if (a->bytes > (1u << 16) || a->data.fill == T1_FILL_BINARY) continue;
    void *buf = malloc(a->bytes);
    fuzz_check_status(t1_fill_data(&s, &a->data, a->path, a, buf), 0);
    free(buf);
  }
  t1_free(&s);
  return 0;
}
