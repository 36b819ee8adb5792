/* A T1 output's device compare chosen and worded as the CPU harness's compare() (tune/harness/gpu_validate.h), no device. */
#include "check.h"
#include "gpu_validate.h"
#include <math.h>
#include <stdlib.h>

static t1_arg arg(const char *name, t1_etype t, uint32_t comp_bytes, uint64_t count, uint32_t comps) {
  t1_arg a = {0};
  a.name = (char *)name;
  a.type = t, a.comp_bytes = comp_bytes, a.count = count, a.comps = comps, a.bytes = count * comps * comp_bytes;
  a.vector = true, a.output = true;
  return a;
}


/* The host's shortcut for outputs equal to the reference byte for byte: it passes exactly where compare()'s loop would
 * pass them. */
static void bytes_pass(void) {
  t1_arg f = arg("result", T1E_F32, 4, 8, 1), u = arg("hist", T1E_U32, 4, 8, 1), g = arg("y", T1E_F64, 8, 4, 1);
  t1_ref side = {.method = T1_SIDE_BY_SIDE, .threshold = 0.1}, neg = {.method = T1_SIDE_BY_SIDE, .threshold = -1};
  t1_ref nan_th = {.method = T1_SIDE_BY_SIDE_REL, .threshold = NAN}, sum = {.method = T1_ABS_DIFF, .threshold = 0};
  float want[8] = {3, 5, 7, NAN, -0.0f, 1e30f, 2, 4}, got[8];
  memcpy(got, want, sizeof got);
  CHECK(tu_host_bytes_pass(&f, &side, got, want), "equal floats, a NaN beside the same NaN: pass");
  CHECK(tu_host_bytes_pass(&f, NULL, got, want), "equal floats at the default threshold 0: pass");
  CHECK(tu_host_bytes_pass(&f, &sum, got, want), "equal floats, AbsoluteDifference at 0: the sum is 0");
  CHECK(!tu_host_bytes_pass(&f, &neg, got, want), "a negative threshold: left to the loop (which fails every element)");
  CHECK(!tu_host_bytes_pass(&f, &nan_th, got, want), "a NaN threshold: left to the loop");
  got[6] = 2.0000002f;
  CHECK(!tu_host_bytes_pass(&f, &side, got, want), "one element differs by a bit: left to the loop (it is within 0.1 there)");
  got[6] = 2;
  want[5] = got[5] = INFINITY;
  CHECK(!tu_host_bytes_pass(&f, &side, got, want), "an infinite expected element: the loop judges inf - inf, not the bytes");
  uint32_t hu[8] = {1, 2, 3, 4, 5, 6, 7, 8}, hv[8];
  memcpy(hv, hu, sizeof hv);
  CHECK(tu_host_bytes_pass(&u, NULL, hv, hu), "equal integers, exact: pass");
  hv[7] = 9;
  CHECK(!tu_host_bytes_pass(&u, NULL, hv, hu), "integers that differ: not settled by the bytes");
  double dw[4] = {1, -INFINITY, 3, 4};
  CHECK(!tu_host_bytes_pass(&g, &side, dw, dw), "doubles with an infinite expected element: left to the loop");
  dw[1] = 2;
  CHECK(tu_host_bytes_pass(&g, &side, dw, dw), "equal finite doubles: pass");

  /* a large output through the same shortcut (its cost beside the element loop is a benchmark's figure, in
   * docs/results/lavapipe/tune-speed/vadd-ktt, not a timed check here) */
  uint64_t n = 16u << 20;
  t1_arg big = arg("result", T1E_F32, 4, n, 1);
  float *x = malloc(n * 4), *y = malloc(n * 4);
  for (uint64_t k = 0; k < n; k++) x[k] = y[k] = (float)(2 * k + 3);
  CHECK(tu_host_bytes_pass(&big, &side, x, y), "16 Mi equal floats pass");
  x[n - 1] = -1;
  CHECK(!tu_host_bytes_pass(&big, &side, x, y), "16 Mi floats, the last one differs: left to the loop");
  free(x), free(y);
}

int main(void) {
  core_compare_desc d;
  t1_arg f4 = arg("y", T1E_F32, 4, 100, 4), u = arg("hist", T1E_U32, 4, 256, 1), c = arg("raw", T1E_CUSTOM, 12, 10, 1);
  t1_arg b = arg("flags", T1E_BOOL, 4, 8, 1), l = arg("big", T1E_I64, 8, 3, 1);
  t1_ref rel = {.method = T1_SIDE_BY_SIDE_REL, .threshold = 0.01}, sum = {.method = T1_ABS_DIFF, .threshold = 0};
  t1_ref side = {.method = T1_SIDE_BY_SIDE, .threshold = 2};
  tu_gpu_compare_desc(&f4, NULL, NULL, NULL, &d);
  CHECK(d.mode == VKOCC_CMP_ABS && d.elem == VKOCC_ELEM_F32 && d.threshold == 0, "floats without a reference entry: side by side at 0");
  CHECK_EQ_U(d.count, 400);
  tu_gpu_compare_desc(&f4, &rel, NULL, NULL, &d);
  CHECK(d.mode == VKOCC_CMP_REL && d.threshold == 0.01, "relative");
  tu_gpu_compare_desc(&u, NULL, NULL, NULL, &d);
  CHECK(d.mode == VKOCC_CMP_EXACT && d.elem == VKOCC_ELEM_U32, "integers at 0: exact");
  tu_gpu_compare_desc(&u, &sum, NULL, NULL, &d);
  CHECK(d.mode == VKOCC_CMP_SUM, "AbsoluteDifference at 0 stays a sum (the CPU's tolerance path)");
  tu_gpu_compare_desc(&u, &side, NULL, NULL, &d);
  CHECK(d.mode == VKOCC_CMP_ABS && d.threshold == 2, "integers within 2");
  tu_gpu_compare_desc(&c, &side, NULL, NULL, &d);
  CHECK(d.mode == VKOCC_CMP_EXACT && d.elem == VKOCC_ELEM_U8 && d.count == 120, "custom: bytes, exact whatever the reference says");
  tu_gpu_compare_desc(&b, NULL, NULL, NULL, &d);
  CHECK(d.mode == VKOCC_CMP_EXACT && d.elem == VKOCC_ELEM_BOOL32, "bool");
  tu_gpu_compare_desc(&l, NULL, NULL, NULL, &d);
  CHECK(d.elem == VKOCC_ELEM_I64 && d.count == 3, "int64");

  char why[300];
  core_compare_result r = {.pass = false, .mismatches = 2, .first = 7, .got = 1.5, .want = 1.25};
  tu_gpu_compare_why(&f4, NULL, &r, why, sizeof why);
  CHECK(!strcmp(why, "y[7] = 1.5, expected 1.25 (side by side, threshold 0)"), "%s", why);
  tu_gpu_compare_why(&f4, &rel, &r, why, sizeof why);
  CHECK(!strcmp(why, "y[7] = 1.5, expected 1.25 (relative, threshold 0.01)"), "%s", why);
  r.got = 17, r.want = 16;
  tu_gpu_compare_why(&u, NULL, &r, why, sizeof why);
  CHECK(!strcmp(why, "hist[7] = 17, expected 16"), "%s", why);
  r.sum = 3.5;
  tu_gpu_compare_why(&u, &sum, &r, why, sizeof why);
  CHECK(!strcmp(why, "hist: the absolute differences sum to 3.5, threshold 0"), "%s", why);
  r.got = NAN, r.want = 1;
  tu_gpu_compare_why(&f4, NULL, &r, why, sizeof why);
  CHECK(!strcmp(why, "y[7] = nan, expected 1 (side by side, threshold 0)"), "%s", why);
  r.pass = true;
  tu_gpu_compare_why(&f4, NULL, &r, why, sizeof why);
  CHECK(!why[0], "a pass has no message");
  bytes_pass();
  return check_report();
}
