/* The arguments' data of a T1 spec on the host: t1_fill_data of a Generator over N elements (the expression
 * evaluated in blocks of i where it can be, on every core), best and median of R fills, with a hash of the bytes
 * so that two builds can be compared for the same output. No device.
 *   bench_generator [--n N] [--repeat R] [--type float|uint32|...] EXPR...   (default: the SAXPY and matmul specs') */
#include "t1.h"
#include "vkocc.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int run(const char *src, const char *type, long n, int repeat) {
  char text[4096];
  snprintf(text, sizeof text,
           "{\"General\": {\"FormatVersion\": 1}, \"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"X\", \"Type\": "
           "\"int\", \"Values\": \"[1]\"}]}, \"KernelSpecification\": {\"Language\": \"Vulkan\", \"KernelName\": \"main\", "
           "\"KernelFile\": \"k.comp\", \"ProblemSize\": [%ld], \"GlobalSize\": {\"X\": \"1\"}, \"LocalSize\": {\"X\": \"1\"}, "
           "\"Arguments\": [{\"Name\": \"in\", \"Type\": \"%s\", \"MemoryType\": \"Vector\", \"Size\": \"ProblemSize[0]\", "
           "\"FillType\": \"Generator\", \"DataSource\": \"%s\", \"AccessType\": \"ReadOnly\"}]}}", n, type, src);
  t1_spec s;
  if (t1_parse(text, strlen(text), "bench.json", ".", false, &s)) {
    fprintf(stderr, "bench_generator: %s\n", vkocc_last_error());
    return 1;
  }
  unsigned char *dst = malloc(s.args[0].bytes);
  double *ms = calloc((size_t)repeat, sizeof *ms);
  for (int r = 0; r < repeat; r++) {
    double t0 = util_now_ns();
    if (t1_fill_data(&s, &s.args[0].data, s.args[0].path, &s.args[0], dst)) {
      fprintf(stderr, "bench_generator: %s\n", vkocc_last_error());
      return 1;
    }
    ms[r] = (util_now_ns() - t0) / 1e6;
  }
  uint64_t h = 1469598103934665603ull; /* FNV-1a of the bytes */
  for (uint64_t i = 0; i < s.args[0].bytes; i++) h = (h ^ dst[i]) * 1099511628211ull;
  qsort(ms, (size_t)repeat, sizeof *ms, cmp);
  printf("%-32s %ld x %s: best %.1f ms, median %.1f, worst %.1f (%d fills), %.2f ns per element; bytes %016llx\n", src, n,
         type, ms[0], ms[repeat / 2], ms[repeat - 1], repeat, ms[0] * 1e6 / (double)n, (unsigned long long)h);
  free(ms);
  free(dst);
  t1_free(&s);
  return 0;
}

int main(int argc, char **argv) {
  long n = 16l << 20;
  int repeat = 5;
  const char *type = "float";
  static const struct option opts[] = {{"n", required_argument, 0, 'n'}, {"repeat", required_argument, 0, 'r'},
                                       {"type", required_argument, 0, 't'}, {0}};
  int c;
  while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    if (c == 'n') n = atol(optarg);
    else if (c == 'r') repeat = atoi(optarg);
    else if (c == 't') type = optarg;
    else return 2;
  }
  if (n <= 0 || repeat <= 0) return 2;
  static const char *def[] = {"(i % 1024) * 0.25", "i % 7", "(i % 1024) * 0.5 + i % 7", "(i // 8192) % 3 + 1",
                              "(i // 8192) % 4 + (i % 8192) % 5", "((i // 8192) % 3 + 1) * (12288 + 8192 * ((i % 8192) % 5))"};
  int rc = 0;
  if (optind < argc)
    for (int i = optind; i < argc; i++) rc |= run(argv[i], type, n, repeat);
  else
    for (size_t i = 0; i < sizeof def / sizeof *def; i++) rc |= run(def[i], type, n, repeat);
  return rc;
}
