/* `policy select` from a policy store in one process (docs/policy-store.md): opening the store, reading the kernel's
 * view and selecting, repeated; the median and the worst of the repetitions. The cold process (vkocc policy select)
 * and the additions are timed by bench/bench_policy_store.sh.
 *   build-rel/bench/bench_policy_store STORE FINGERPRINT [KERNEL [REPS]] */
#include "vkocc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s STORE FINGERPRINT [KERNEL [REPS]]\n", argv[0]), 2;
  const char *kernel = argc > 3 ? argv[3] : "histogram";
  int reps = argc > 4 ? atoi(argv[4]) : 200;
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det = {0};
  if (vkocc_fingerprint_load_details(argv[2], &fp, &det, NULL)) return fprintf(stderr, "%s\n", vkocc_last_error()), 2;
  double *t = calloc((size_t)reps, sizeof *t), *cpu = calloc((size_t)reps, sizeof *cpu);
  vkocc_policy_var v = {"problem_size", "1048576"};
  char rule[16] = "", params[256] = "";
  for (int i = 0; i < reps; i++) {
    double t0 = vkocc_now_ms(), c0 = cpu_ms();
    vkocc_policy_db *db;
    vkocc_policy_choice c;
    char key[640] = "";
    vkocc_device_key(&det.device, det.derived.sm_count, key, sizeof key);
    if (vkocc_policy_store_load(argv[1], NULL, kernel, key, &db) ||
        vkocc_policy_select_fingerprint(db, kernel, &fp, &det, &v, 1, 0, &c))
      return fprintf(stderr, "%s\n", vkocc_last_error()), 1;
    t[i] = vkocc_now_ms() - t0, cpu[i] = cpu_ms() - c0;
    snprintf(rule, sizeof rule, "%s", vkocc_policy_rule_name(c.rule));
    snprintf(params, sizeof params, "%s", c.params_json);
    vkocc_policy_choice_free(&c);
    vkocc_policy_db_free(db);
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  qsort(cpu, (size_t)reps, sizeof *cpu, cmp);
  printf("select from %s: %d repetitions (open, read the kernel's view, select), wall median %.3f ms, min %.3f ms, "
         "max %.3f ms; CPU time median %.3f ms, min %.3f ms; rule %s, params %s\n", argv[1], reps, t[reps / 2], t[0],
         t[reps - 1], cpu[reps / 2], cpu[0], rule, params);
  vkocc_fingerprint_details_free(&det);
  free(t), free(cpu);
  return 0;
}
