/* Shared by the fuzz harnesses (tests/fuzz_<parser>.c). Each harness defines LLVMFuzzerTestOneInput and is
 * built two ways:
 *  - with libFuzzer (cmake -DVKOCC_FUZZ=ON -DCMAKE_C_COMPILER=clang, VKOCC_LIBFUZZER defined):
 *    fuzz_<parser>_libfuzzer CORPUS_DIR, see docs/fuzzing.md;
 *  - as a plain program (the test suite): replays every file of its corpus, then a deterministic mutation
 *    run (bit flips, truncations, splices, hostile tokens) of each, under the sanitizers of the test build.
 * A harness aborts on any broken invariant, so the fuzzer and the replay report it as a crash. */
#ifndef VKOCC_FUZZ_UTIL_H
#define VKOCC_FUZZ_UTIL_H
#include "vkocc.h"
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#if defined(FUZZ_STRUCTURED_MUTATOR) && !defined(VKOCC_LIBFUZZER)
/* A harness with a structure-aware mutator (fuzz_spirv.c) defines it; the replay applies it too. Returns the
 * new size, 0 when nothing applied. */
static size_t fuzz_structured_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed);
#endif

/* Inputs the parser accepted; the replay fails when none was, since then only the error paths ran. */
static unsigned fuzz_accepted;

#define FUZZ_CHECK(cond)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond);   \
      abort();                                                                            \
    }                                                                                     \
  } while (0)

/* Bad input must be a usage error with a message; `also` is one more status the caller allows (0: none). */
static inline void fuzz_check_status(vkocc_status s, vkocc_status also) {
  if (s == VKOCC_OK) return;
  FUZZ_CHECK(s == VKOCC_ERROR_USAGE || (also && s == also));
  FUZZ_CHECK(vkocc_last_error()[0] != 0);
}

/* The readers that take a path get the input through one in-memory file (no disk traffic per input):
 * opening /proc/self/fd/N of a memfd starts at offset 0, like a regular file. */
static inline const char *fuzz_file(const uint8_t *data, size_t size) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("vkocc-fuzz", 0);
    if (fd < 0) { perror("memfd_create"); abort(); }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) { perror("fuzz_file"); abort(); }
  return path;
}

/* A reference fingerprint from tests/data (FUZZ_DATA_DIR is set by tests/CMakeLists.txt). */
static inline void fuzz_reference(const char *name, vkocc_fingerprint *fp) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", FUZZ_DATA_DIR, name);
  if (vkocc_fingerprint_load(path, fp)) { fprintf(stderr, "fuzz: %s\n", vkocc_last_error()); abort(); }
}

#ifndef VKOCC_LIBFUZZER
static uint64_t fuzz_rng = 0x9E3779B97F4A7C15ull;
static uint64_t fuzz_next(void) {
  fuzz_rng ^= fuzz_rng << 13;
  fuzz_rng ^= fuzz_rng >> 7;
  fuzz_rng ^= fuzz_rng << 17;
  return fuzz_rng;
}

/* FUZZ_SAVE=FILE: each input is written there before it runs, so a failing one is left behind. */
static void fuzz_run(const uint8_t *data, size_t size) {
  static const char *save;
  static bool checked;
  if (!checked) { save = getenv("FUZZ_SAVE"); checked = true; }
  if (save) {
    FILE *f = fopen(save, "wb");
    if (f) { fwrite(data, 1, size, f); fclose(f); }
  }
  LLVMFuzzerTestOneInput(data, size);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s CORPUS_DIR [MUTATIONS_PER_FILE]\n", argv[0]); return 2; }
  int per_file = argc > 2 ? atoi(argv[2]) : 300;
  DIR *d = opendir(argv[1]);
  if (!d) { fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]); return 2; }
  struct dirent *e;
  unsigned files = 0, runs = 0;
  static uint8_t buf[1 << 20], mut[1 << 20];
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    files++;
    fprintf(stderr, "%s\n", e->d_name); /* the file whose mutation failed is the last one named */
    fuzz_run(buf, n);
    runs++;
    /* large files (the real measurements) get fewer mutations, so the replay stays within seconds */
    int mutations = n > 4096 ? (int)((uint64_t)per_file * 4096 / n) : per_file;
    for (int m = 0; m < mutations && n > 0; m++) {
      size_t len = n;
      memcpy(mut, buf, n);
      switch (fuzz_next() % 4) {
      case 0: for (int k = 0; k < 4; k++) mut[fuzz_next() % len] ^= (uint8_t)(1u << (fuzz_next() % 8)); break;
      case 1: len = fuzz_next() % len; break;
      case 2: {
        size_t a = fuzz_next() % len, b = fuzz_next() % len;
        memmove(mut + a, buf + b, (len - (a > b ? a : b)) / 2);
        break;
      }
      case 3: {
        static const char *tok[] = {"null", "-1", "1e999", "\"x\"", "[]", "{}", "4294967296", "true",
                                    "4294967295", "0", "\n", ","};
        const char *t = tok[fuzz_next() % 12];
        size_t a = fuzz_next() % len, tl = strlen(t);
        if (a + tl < len) memcpy(mut + a, t, tl);
        break;
      }
      }
      fuzz_run(mut, len);
      runs++;
    }
#ifdef FUZZ_STRUCTURED_MUTATOR
    for (int m = 0; m < mutations && n > 0; m++) {
      memcpy(mut, buf, n);
      size_t len = fuzz_structured_mutate(mut, n, sizeof mut, (unsigned)fuzz_next());
      if (len) fuzz_run(mut, len), runs++;
    }
#endif
  }
  closedir(d);
  printf("%u passed, 0 failed (%u corpus files, %u inputs, %u accepted by the parser)\n", runs, files, runs,
         fuzz_accepted);
  if (!fuzz_accepted) fprintf(stderr, "%s: no input of %s was accepted\n", argv[0], argv[1]);
  return files && fuzz_accepted ? 0 : 2;
}
#endif
#endif
