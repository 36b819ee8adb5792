/* Fuzz target for the fingerprint reader. Built two ways:
 *  - with libFuzzer (cmake -DVKOCC_FUZZ=ON -DCMAKE_C_COMPILER=clang): fuzz_fingerprint CORPUS_DIR
 *  - as a plain program (the test suite): replays every file of the corpus, then a deterministic
 *    mutation run (bit flips, truncations, splices) of each, all under the sanitizers of the test build. */
#include "vkocc.h"
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vkocc_fingerprint fp;
  vkocc_status s = vkocc_fingerprint_parse((const char *)data, size, "fuzz", &fp);
  if (s == VKOCC_OK && strncmp(fp.cluster_id, "c1-", 3) != 0) abort(); /* an accepted document has a valid ID */
  if (s != VKOCC_OK && s != VKOCC_ERROR_USAGE) abort();                /* bad input is a usage error, nothing else */
  if (s != VKOCC_OK && vkocc_last_error()[0] == 0) abort();            /* and it says why */
  return 0;
}

#ifndef VKOCC_LIBFUZZER
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: fuzz_fingerprint CORPUS_DIR [MUTATIONS_PER_FILE]\n"); return 2; }
  int per_file = argc > 2 ? atoi(argv[2]) : 300;
  DIR *d = opendir(argv[1]);
  if (!d) { fprintf(stderr, "fuzz_fingerprint: cannot open %s\n", argv[1]); return 2; }
  struct dirent *e;
  unsigned files = 0, runs = 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    static uint8_t buf[1 << 20], mut[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    files++;
    LLVMFuzzerTestOneInput(buf, n);
    runs++;
    for (int m = 0; m < per_file && n > 0; m++) {
      size_t len = n;
      memcpy(mut, buf, n);
      switch (next() % 4) {
      case 0: for (int k = 0; k < 4; k++) mut[next() % len] ^= (uint8_t)(1u << (next() % 8)); break;
      case 1: len = next() % len; break;
      case 2: { size_t a = next() % len, b = next() % len; memmove(mut + a, buf + b, (len - (a > b ? a : b)) / 2); break; }
      case 3: {
        static const char *tok[] = {"null", "-1", "1e999", "\"x\"", "[]", "{}", "4294967296", "true"};
        const char *t = tok[next() % 8];
        size_t a = next() % len, tl = strlen(t);
        if (a + tl < len) memcpy(mut + a, t, tl);
        break;
      }
      }
      LLVMFuzzerTestOneInput(mut, len);
      runs++;
    }
  }
  closedir(d);
  printf("%u passed, 0 failed (%u corpus files, %u inputs)\n", runs, files, runs);
  return files ? 0 : 2;
}
#endif
