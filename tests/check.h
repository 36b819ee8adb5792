/* Minimal test support: CHECK counts, prints failures with location, and the closing line is
 * "N passed, N failed" (what CI reads). */
#ifndef VKOCC_CHECK_H
#define VKOCC_CHECK_H
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                          \
  do {                                                                            \
    if (cond) check_passed++;                                                     \
    else {                                                                        \
      check_failed++;                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);     \
      fprintf(stderr, __VA_ARGS__);                                               \
      fputc('\n', stderr);                                                        \
    }                                                                             \
  } while (0)
#define CHECK_EQ_U(a, b) CHECK((a) == (b), "%s = %llu, expected %llu", #a, (unsigned long long)(a), (unsigned long long)(b))
#define CHECK_NEAR(a, b, tol) CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s = %.9g, expected %.9g +- %.3g", #a, (double)(a), (double)(b), (double)(tol))
#define CHECK_CONTAINS(hay, needle) CHECK((hay) && strstr((hay), (needle)), "'%s' does not contain '%s'", (hay) ? (hay) : "(null)", (needle))

static inline int check_report(void) {
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}

/* Writes text to DIR/NAME and returns the path (a static buffer). */
static inline const char *check_write_tmp(const char *dir, const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) { fputs(text, f); fclose(f); }
  return path;
}

/* Deterministic pseudo-random numbers for synthetic data (xorshift + Box-Muller). */
static unsigned long long check_rng = 88172645463325252ull;
static inline double check_uniform(void) {
  check_rng ^= check_rng << 13; check_rng ^= check_rng >> 7; check_rng ^= check_rng << 17;
  return (double)(check_rng >> 11) / 9007199254740992.0;
}
static inline double check_gauss(void) {
  double u = check_uniform() + 1e-12, v = check_uniform();
  return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}
/* The library's two refusals of a clock calibration the host disturbed (both VKOCC_REASON_NOISY): a poor fit, or a
 * line the queue timestamps do not allow. A test that calibrates only to check something else takes either. */
static inline bool calibration_refused(const char *out) {
  return out && (strstr(out, "calibration disturbed") || strstr(out, "calibration implausible"));
}
/* Device tests on lavapipe share the CPU with whatever else runs: "busy" when the 1-minute load average
 * is above the core count (printed, so a log says which assertions applied). */
static inline bool machine_busy(void) {
  double load = 0;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &load) != 1) load = 0;
    fclose(f);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  fprintf(stderr, "1-minute load %.2f on %ld cores: %s\n", load, cores, load > cores ? "busy" : "quiet");
  return load > cores;
}

#endif
