/* Runs a shell command, capturing stdout+stderr and the exit code (for CLI tests). */
#ifndef VKOCC_TEST_RUN_H
#define VKOCC_TEST_RUN_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

static int run_cmd(const char *cmd, char **output) {
  FILE *p = popen(cmd, "r");
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (p && (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += got;
    if (n + 1 >= cap) buf = realloc(buf, cap *= 2);
  }
  buf[n] = 0;
  int st = p ? pclose(p) : -1;
  *output = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs and prints on failure; returns the exit code. */
static int run_fmt(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static int run_fmt(char **out, const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = run_cmd(cmd, out);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  /* each command's wall time in the test's log: where a test's time goes */
  fprintf(stderr, "$ %s  -> exit %d (%.1f s)\n", cmd, rc,
          (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
  return rc;
}
#endif
