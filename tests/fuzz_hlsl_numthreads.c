/* Fuzz target for the scan of preprocessed HLSL for [numthreads(...)] arguments that name nothing
 * (compile_hlsl_numthreads_unknown, compile/compile.c: glslang crashes on them). Invariants: no read outside the input
 * (ASan), and a name it reports is an identifier that occurs in the input. */
#include "fuzz_util.h"
#include "compile.h"
#include "util.h"
#include <ctype.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char name[128];
  memset(name, 'x', sizeof name);
  /* an exact-size copy, so that ASan sees any read past the end */
  char *t = malloc(size ? size : 1);
  if (size) memcpy(t, data, size);
  if (compile_hlsl_numthreads_unknown(t, size, name, sizeof name)) {
    fuzz_accepted++;
    size_t n = strnlen(name, sizeof name);
    FUZZ_CHECK(n > 0 && n < sizeof name && (isalpha((unsigned char)name[0]) || name[0] == '_'));
    for (size_t k = 0; k < n; k++) FUZZ_CHECK(util_ident_char(name[k]));
    bool found = false;
    for (size_t i = 0; !found && n < sizeof name - 1 && i + n <= size; i++) found = !memcmp(t + i, name, n);
    FUZZ_CHECK(found || n == sizeof name - 1); /* (a longer name is cut to the buffer) */
  }
  free(t);
  return 0;
}
