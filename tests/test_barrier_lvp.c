/* The device-wide barrier on lavapipe (LP_NUM_THREADS=2, so P = 2): P measured for the barrier kernel's own
 * pipeline completes with the CPU's values, P + 1 ends within its bound and reports the timeout, a wrong
 * value is reported as wrong; plus the CLI's exit codes.
 * usage: test_barrier_lvp VKOCC_CLI TESTS_SHADER_DIR
 * Bounds: P runs wait at most 2000 ms per barrier (the longest wait seen at load 10 on 2 cores was 53 ms:
 * 38x margin; a loaded machine only stretches the waits, it cannot add workgroups), P + 1 runs 400 ms (the
 * timeout does not depend on the length, a short one keeps the test fast). The comb behind P never
 * overcounts; a starved worker thread can make it undercount, so P is measured up to 3 times for 2. */
#include "check.h"
#include "run.h"
#include "vkocc.h"
#include <stdlib.h>

static const char *cli, *dir;

static void cli_checks(uint32_t P) {
  char *out;
  int rc = run_fmt(&out, "%s barrier-test --P %u --runs 2 --bound-ms 2000 --json 2>&1", cli, P);
  CHECK(rc == 0, "P runs through the CLI: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "\"correct\": 2");
  CHECK_CONTAINS(out, "\"clock\": \"realtime\"");
  free(out);
  rc = run_fmt(&out, "%s barrier-test --P %u --extra 1 --bound-ms 300 2>&1", cli, P);
  CHECK(rc == 1, "P + 1 through the CLI: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "barrier timed out: fewer than P workgroups were resident");
  CHECK_CONTAINS(out, "timed out 1");
  free(out);
  /* a kernel from a file: <vkocc/device_barrier.glsl> comes from the library's embedded copy */
  rc = run_fmt(&out, "%s barrier-test --shader %s/barrier_user.comp --P %u --runs 2 --bound-ms 2000 2>&1", cli, dir, P);
  CHECK(rc == 0, "user kernel: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "correct 2, wrong 0");
  free(out);
  /* the control: one value off per round must be a wrong result, not a pass */
  rc = run_fmt(&out, "%s barrier-test --shader %s/barrier_wrong.comp --P %u --bound-ms 2000 2>&1", cli, dir, P);
  CHECK(rc == 1, "wrong kernel: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "wrong result");
  free(out);
  /* without a clock the iteration budget alone bounds the waits: P completes, P + 1 ends at the budget */
  rc = run_fmt(&out, "%s barrier-test --no-shader-clock --P %u --runs 2 2>&1", cli, P);
  CHECK(rc == 0, "P without a clock: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "no shader clock, iterations only");
  free(out);
  rc = run_fmt(&out, "%s barrier-test --no-shader-clock --P %u --extra 1 --max-iters 3000 2>&1", cli, P);
  CHECK(rc == 1, "P + 1 without a clock: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "a wait reached its iteration bound");
  free(out);
  /* bad input: exit 2, one line, before anything is measured */
  rc = run_fmt(&out, "%s barrier-test --extra lots 2>&1", cli);
  CHECK(rc == 2, "--extra lots: exit %d", rc);
  CHECK_CONTAINS(out, "--extra 'lots'");
  free(out);
  /* a bound beyond the shader's 32-bit tick range is clamped and says so: a flag is valid by itself, never
   * by a limit that a calibration of a noisy clock puts now here, now there */
  rc = run_fmt(&out, "%s barrier-test --P %u --runs 1 --bound-ms 5000 2>&1", cli, P);
  CHECK(rc == 0, "--bound-ms 5000 (above 2^31 ns ticks): exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "note: --bound-ms 5000 clamped to ");
  CHECK_CONTAINS(out, "2^31 - 1 ticks");
  free(out);
  rc = run_fmt(&out, "%s barrier-test --P %u --bound-ms 600001 2>&1", cli, P);
  CHECK(rc == 2, "--bound-ms 600001: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "expected a number 0.001..600000");
  free(out);
  rc = run_fmt(&out, "%s barrier-test --shader %s/no-such.comp 2>&1", cli, dir);
  CHECK(rc == 2, "missing shader: exit %d", rc);
  free(out);
  rc = run_fmt(&out, "%s barrier-test --shader %s/barrier_missing_include.comp --P %u 2>&1", cli, dir, P);
  CHECK(rc == 2, "unknown <vkocc/...> include: exit %d\n%s", rc, out);
  CHECK_CONTAINS(out, "no such vkocc include");
  free(out);
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: test_barrier_lvp VKOCC_CLI TESTS_SHADER_DIR\n"); return 2; }
  cli = argv[1];
  dir = argv[2];
  machine_busy();
  vkocc_context *ctx;
  vkocc_context_options co = {0};
  if (vkocc_context_create(&co, &ctx)) { fprintf(stderr, "%s\n", vkocc_last_error()); return 1; }
  vkocc_calibration cal;
  vkocc_calibrate_options cop = {.lengths = 4, .repeats = 3, .longest_ns = 1e6};
  CHECK(vkocc_calibrate(ctx, &cop, &cal) == VKOCC_OK, "%s", vkocc_last_error());

  /* P of the barrier kernel's pipeline, measured (no cache), then P workgroups: every run correct */
  vkocc_barrier_test_result r = {0};
  vkocc_status s = VKOCC_ERROR_RUNTIME;
  for (int attempt = 0; attempt < 3; attempt++) {
    vkocc_barrier_test_result_free(&r);
    vkocc_barrier_test_options o = {.runs = 3, .bound_ms = 2000, .cal = &cal};
    s = vkocc_barrier_test(ctx, &o, &r);
    fprintf(stderr, "attempt %d: P = %u, %u of %u runs correct, longest wait %.3f ms (%s)\n", attempt, r.P, r.correct,
            r.runs, r.runs ? r.run[0].max_wait_ms : 0, s ? vkocc_last_error() : "ok");
    if (r.P == 2) break;
  }
  CHECK_EQ_U(r.P, 2);
  CHECK(!r.P_from_cache && !r.P_given, "P was measured");
  CHECK(s == VKOCC_OK, "P runs: %s", vkocc_last_error());
  CHECK_EQ_U(r.groups, r.P);
  CHECK_EQ_U(r.correct, 3);
  CHECK_EQ_U(r.timed_out, 0);
  CHECK(!strcmp(r.bounds.clock, "realtime"), "clock %s", r.bounds.clock);
  CHECK_EQ_U(r.bounds.max_iters, VKOCC_BARRIER_CPU_MAX_ITERS);
  for (uint32_t i = 0; i < r.runs; i++) CHECK(r.run[i].max_wait_ms < 2000, "run %u waited %.1f ms", i, r.run[i].max_wait_ms);
  uint32_t P = r.P ? r.P : 2;
  vkocc_barrier_test_result_free(&r);

  /* P + 1: the extra workgroup cannot start while the P others wait, so a bound must fire, every waiter
   * stop, and the dispatch end */
  vkocc_barrier_test_options o = {.runs = 2, .bound_ms = 400, .cal = &cal, .P = P, .extra = 1};
  s = vkocc_barrier_test(ctx, &o, &r);
  CHECK(s == VKOCC_ERROR_RUNTIME, "P + 1 gave status %d", s);
  CHECK_CONTAINS(vkocc_last_error(), "barrier timed out: fewer than P workgroups were resident");
  CHECK_EQ_U(r.runs, 2);
  CHECK_EQ_U(r.timed_out, 2);
  CHECK_EQ_U(r.correct, 0);
  for (uint32_t i = 0; i < r.runs; i++) {
    const vkocc_barrier_run *x = &r.run[i];
    fprintf(stderr, "P + 1 run %u: abort bits %u, fired after %.1f ms, dispatch %.1f ms, host %.1f ms\n", i,
            x->abort_bits, x->fired_wait_ms, x->gpu_ms, x->wall_ms);
    /* the time bound fires first at any load seen (2300-10000 of the 60000 iterations by 1 s at load 9); a
     * much faster host could reach the iteration budget first, which is a timeout as well */
    CHECK((x->abort_bits & 3) && !(x->abort_bits & ~3u), "run %u: abort bits %u", i, x->abort_bits);
    if (x->abort_bits & 1)
      CHECK(x->fired_wait_ms >= 0.99 * 400, "run %u: fired after %.1f ms, before its 400 ms bound", i, x->fired_wait_ms);
    CHECK(x->wall_ms < 10000, "run %u: the dispatch took %.0f ms to end", i, x->wall_ms);
  }
  vkocc_barrier_test_result_free(&r);
  vkocc_context_destroy(ctx);
  cli_checks(P);
  return check_report();
}
