/* The tuning harness's device side on a real device (core/gpucheck.h): what validation, restore and the clock
 * evidence cost, and what the clock does after the host lets the device idle. Not a test: it reports.
 *   build/bench/bench_gpucheck [--device D] [--mi N] [--mode M]   (N Mi floats, default 64; M core_cmp_mode, 1 abs)
 * Prints, per line, NAME value unit:
 *   compare on the device (device ns of the compare and fetch dispatches; host ms of the whole submission),
 *   the CPU path it replaces (copy to a host-visible buffer + an element loop in double),
 *   restore of one buffer by a device copy, one clock probe's device time,
 *   clock readings (SM ticks per realtime tick) through a busy batch after idle gaps of 0..1000 ms. */
#include "clock_rule.h"
#include "gpucheck.h"
#include "vkocc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *v, int n) {
  qsort(v, n, sizeof *v, by_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
static void sleep_ms(double ms) {
  struct timespec ts = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
  nanosleep(&ts, NULL);
}
#define TRY(x)                                                                   \
  do {                                                                           \
    vkocc_status s_ = (x);                                                       \
    if (s_) {                                                                    \
      fprintf(stderr, "bench_gpucheck: %s: %s\n", #x, vkocc_last_error());       \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main(int argc, char **argv) {
  const char *device = NULL;
  uint64_t mi = 64;
  int mode = VKOCC_CMP_ABS;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!strcmp(argv[i], "--mi")) mi = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--mode")) mode = atoi(argv[i + 1]);
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  vkocc_context_options o = {.device = device};
  vkocc_context *ctx;
  TRY(vkocc_context_create(&o, &ctx));
  printf("device %s\n", vkocc_context_device(ctx)->name);
  const uint64_t n = mi << 20, bytes = 4 * n;
  float *host = malloc(bytes);
  for (uint64_t i = 0; i < n; i++) host[i] = (float)(i % 1024) * 0.5f + (float)(i % 7);
  core_buffer act, exp, back;
  TRY(core_buffer_create(ctx, bytes, false, &act));
  TRY(core_buffer_create(ctx, bytes, false, &exp));
  TRY(core_buffer_create(ctx, bytes, true, &back));
  TRY(core_buffer_upload(ctx, &exp, host, bytes));
  host[n - 1] += 1; /* one mismatch, at the last index */
  TRY(core_buffer_upload(ctx, &act, host, bytes));
  host[n - 1] -= 1;
  core_batch b;
  TRY(core_batch_create(ctx, 256, &b));

  /* compare on the device */
  core_compare cmp;
  core_compare_desc d = {.actual = &act, .expected = &exp, .count = n, .elem = VKOCC_ELEM_F32, .mode = (core_cmp_mode)mode};
  TRY(core_compare_create(ctx, &d, &cmp));
  enum { REP = 9 };
  double dev_ns[REP], host_ms[REP];
  core_compare_result res;
  for (int r = 0; r < REP; r++) {
    double t0 = vkocc_now_ms();
    TRY(core_batch_begin(&b));
    uint32_t t = core_batch_timer_start(&b);
    core_compare_record(&b, &cmp);
    core_batch_timer_stop(&b, t);
    TRY(core_batch_run(&b, 0, "compare"));
    core_compare_read(&cmp, &res);
    host_ms[r] = vkocc_now_ms() - t0;
    dev_ns[r] = core_batch_record_of(&b, t)->ns;
  }
  double cmp_ns = median(dev_ns, REP);
  printf("compare_device_ns %.0f ns (median of %d, %llu floats)\n", cmp_ns, REP, (unsigned long long)n);
  printf("compare_device_submission_ms %.3f ms\n", median(host_ms, REP));
  printf("compare_result pass %d mismatches %llu first %llu got %.9g want %.9g\n", res.pass,
         (unsigned long long)res.mismatches, (unsigned long long)res.first, res.got, res.want);

  /* the CPU path it replaces: the output copied to the host, compared there */
  double cpu_ms[3], copy_ns[3];
  for (int r = 0; r < 3; r++) {
    double t0 = vkocc_now_ms();
    TRY(core_batch_begin(&b));
    uint32_t t = core_batch_timer_start(&b);
    core_batch_copy(&b, &act, &back, 0, 0, bytes);
    core_batch_timer_stop(&b, t);
    core_batch_barrier(&b, VKOCC_SYNC_TRANSFER_TO_HOST);
    TRY(core_batch_run(&b, 0, "readback"));
    copy_ns[r] = core_batch_record_of(&b, t)->ns;
    const float *out = back.map;
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
      double x = out[i], y = host[i], dd = fabs(x - y);
      if (isnan(x) != isnan(y) || (isnan(dd) && !isnan(x))) dd = INFINITY;
      else if (isnan(dd)) dd = 0;
      if (!(dd <= 0)) bad++;
    }
    cpu_ms[r] = vkocc_now_ms() - t0;
    if (bad != 1) printf("cpu_compare_unexpected %llu\n", (unsigned long long)bad);
  }
  printf("readback_device_ns %.0f ns\n", median(copy_ns, 3));
  printf("readback_and_cpu_compare_ms %.3f ms (median of 3)\n", median(cpu_ms, 3));

  /* restore of one buffer by a device copy */
  core_restore rs = {0};
  TRY(core_restore_add(ctx, &rs, &act, NULL, bytes));
  double rest_ns[REP];
  for (int r = 0; r < REP; r++) {
    TRY(core_batch_begin(&b));
    uint32_t t = core_batch_timer_start(&b);
    core_batch_restore(&b, &rs);
    core_batch_timer_stop(&b, t);
    TRY(core_batch_run(&b, 0, "restore"));
    rest_ns[r] = core_batch_record_of(&b, t)->ns;
  }
  printf("restore_device_ns %.0f ns (one %llu-byte buffer)\n", median(rest_ns, REP), (unsigned long long)bytes);
  /* the same restore by a compute copy (core_copy), with the barriers the harness puts around it */
  core_copy cc;
  TRY(core_copy_create(ctx, &rs.pairs[0].pristine, &act, bytes, &cc));
  for (int r = 0; r < REP; r++) {
    TRY(core_batch_begin(&b));
    uint32_t t = core_batch_timer_start(&b);
    core_batch_barrier(&b, VKOCC_SYNC_ALL);
    core_copy_record(&b, &cc);
    core_batch_barrier(&b, VKOCC_SYNC_ALL);
    core_batch_timer_stop(&b, t);
    TRY(core_batch_run(&b, 0, "compute restore"));
    rest_ns[r] = core_batch_record_of(&b, t)->ns;
  }
  printf("restore_compute_ns %.0f ns (the same buffer by a compute copy, %u workgroups)\n", median(rest_ns, REP), cc.groups);
  core_copy_destroy(ctx, &cc);
  /* a whole submission's cost seen from the host and on the device: an empty batch, and one timed compare */
  double sub_ms[REP], span_ns[REP];
  for (int r = 0; r < REP; r++) {
    double t0 = vkocc_now_ms();
    TRY(core_batch_begin(&b));
    core_batch_barrier(&b, VKOCC_SYNC_ALL);
    TRY(core_batch_run(&b, 0, "empty"));
    sub_ms[r] = vkocc_now_ms() - t0;
    span_ns[r] = b.span_ns;
  }
  printf("empty_submission_ms %.3f ms host, span %.0f ns device\n", median(sub_ms, REP), median(span_ns, REP));
  double up0 = vkocc_now_ms();
  TRY(core_buffer_upload(ctx, &act, host, bytes));
  printf("host_upload_ms %.3f ms (the same bytes from the host, through staging)\n", vkocc_now_ms() - up0);

  /* clock evidence: after an idle gap, a busy batch (compare dispatches) with a probe before, every 8
   * dispatches, and after */
  core_clock_probe p;
  vkocc_status ps = core_clock_probe_create(ctx, 64, &p);
  if (ps) printf("clock_probe unsupported: %s\n", vkocc_last_error());
  else {
    double probe_ns[REP];
    for (int r = 0; r < REP; r++) {
      TRY(core_batch_begin(&b));
      uint32_t t = core_batch_timer_start(&b);
      core_clock_probe_record(&b, &p, 0);
      core_batch_timer_stop(&b, t);
      TRY(core_batch_run(&b, 0, "probe"));
      probe_ns[r] = core_batch_record_of(&b, t)->ns;
    }
    printf("probe_device_ns %.0f ns\n", median(probe_ns, REP));
    tu_clock_state st = {0};
    const double gaps[] = {1000, 0, 0, 0, 10, 50, 100, 200, 500, 1000, 0, 0};
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++) {
      sleep_ms(gaps[g]);
      TRY(core_batch_begin(&b));
      uint32_t slot = 0;
      uint32_t t = core_batch_timer_start(&b);
      core_clock_probe_record(&b, &p, slot++);
      /* about 20 ms of compares (8 to 64) */
      int busy = cmp_ns > 0 ? (int)(20e6 / cmp_ns) : 64;
      busy = busy < 8 ? 8 : busy > 64 ? 64 : busy;
      for (int k = 0; k < busy; k++) {
        core_compare_record(&b, &cmp);
        if (k % 8 == 7) core_clock_probe_record(&b, &p, slot++);
      }
      core_batch_timer_stop(&b, t);
      TRY(core_batch_run(&b, 0, "busy batch"));
      printf("gap_ms %.0f busy_ms %.2f readings", gaps[g], core_batch_record_of(&b, t)->ns / 1e6);
      for (uint32_t s = 0; s < slot; s++) printf(" %.4f", core_clock_probe_read(&p, s));
      double first = core_clock_probe_read(&p, 0), last = core_clock_probe_read(&p, slot - 1);
      bool warm = tu_clock_needs_warmup(&st, NULL, first);
      tu_clock_verdict v = tu_clock_judge(&st, NULL, first, last, 0);
      for (uint32_t s = 0; s < slot; s++) tu_clock_observe(&st, core_clock_probe_read(&p, s));
      printf(" | steady %.4f verdict %s warm-up %s\n", st.steady, tu_clock_verdict_name(v), warm ? "yes" : "no");
    }
    core_clock_probe_destroy(ctx, &p);
  }
  core_restore_free(ctx, &rs);
  core_compare_destroy(ctx, &cmp);
  core_batch_destroy(&b);
  core_buffer_destroy(ctx, &act), core_buffer_destroy(ctx, &exp), core_buffer_destroy(ctx, &back);
  free(host);
  vkocc_context_destroy(ctx);
  return 0;
}
