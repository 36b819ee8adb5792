/* The executor's device-side services for the tuning harness, on lavapipe (core/gpucheck.h): the compare
 * dispatch against the CPU harness's rule (a copy of its loop is the oracle here) for every element type,
 * planted mismatches at the first, middle and last index, NaN, infinities, denormals, tolerance edges, counts
 * beyond 2^24; restore by device copies; the written bindings of a module; the clock probe beside a batch; a
 * batch's whole span on the device. */
#include "check.h"
#include "gpucheck.h"
#include "vkocc.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

extern const uint32_t shaders_spv_compare_exact[], shaders_spv_clockprobe[];
extern const size_t shaders_spv_compare_exact_size, shaders_spv_clockprobe_size;

/* The oracle: the CPU harness's per-element rule (tune/harness/validate.c, compare()), element by element. */
typedef struct oracle { uint64_t count, first; double sum; bool pass; } oracle;
static oracle cpu_compare(const void *out, const void *exp, uint64_t n, core_elem t, core_cmp_mode m, double th) {
  oracle o = {0, UINT64_MAX, 0, true};
  size_t sz = core_elem_bytes(t);
  for (uint64_t k = 0; k < n; k++) {
    bool bad;
    if (m == VKOCC_CMP_EXACT) bad = memcmp((const uint8_t *)out + k * sz, (const uint8_t *)exp + k * sz, sz) != 0;
    else {
      double x = core_elem_value(out, k, t), y = core_elem_value(exp, k, t), d = fabs(x - y);
      if (isnan(x) != isnan(y) || (isnan(d) && !isnan(x))) d = INFINITY;
      else if (isnan(d)) d = 0;
      if (m == VKOCC_CMP_SUM) {
        o.sum += d;
        bad = d != 0;
      } else {
        double lim = m == VKOCC_CMP_REL ? th * fabs(y) : th;
        if (m == VKOCC_CMP_REL && y == 0) lim = th;
        bad = !(d <= lim);
      }
    }
    if (bad) {
      o.count++;
      if (o.first == UINT64_MAX) o.first = k;
    }
  }
  o.pass = m == VKOCC_CMP_SUM ? o.sum <= th : o.count == 0;
  return o;
}

static vkocc_context *ctx;

static void dev_buffer(const void *data, uint64_t bytes, core_buffer *b) {
  uint64_t size = (bytes + 3) / 4 * 4;
  CHECK(core_buffer_create(ctx, size, false, b) == VKOCC_OK, "buffer: %s", vkocc_last_error());
  uint8_t *tmp = calloc(1, size);
  memcpy(tmp, data, bytes);
  CHECK(core_buffer_upload(ctx, b, tmp, size) == VKOCC_OK, "upload: %s", vkocc_last_error());
  free(tmp);
}

/* The device's answer on (out, exp) against the oracle's; label names the case in failures. */
static void check_case(const char *label, const void *out, const void *exp, uint64_t n, core_elem t, core_cmp_mode m,
                       double th) {
  uint64_t bytes = n * core_elem_bytes(t);
  core_buffer a, e;
  dev_buffer(out, bytes, &a);
  dev_buffer(exp, bytes, &e);
  core_compare c;
  core_compare_desc d = {.actual = &a, .expected = &e, .count = n, .elem = t, .mode = m, .threshold = th};
  vkocc_status s = core_compare_create(ctx, &d, &c);
  CHECK(s == VKOCC_OK, "%s: compare_create: %s", label, vkocc_last_error());
  if (!s) {
    core_batch *b = core_context_batch(ctx);
    CHECK(core_batch_begin(b) == VKOCC_OK, "%s: begin", label);
    core_compare_record(b, &c);
    s = core_batch_run(b, 0, "device compare");
    CHECK(s == VKOCC_OK, "%s: run: %s", label, vkocc_last_error());
    core_compare_result r;
    core_compare_read(&c, &r);
    oracle o = cpu_compare(out, exp, n, t, m, th);
    CHECK(r.pass == o.pass, "%s: pass %d, the CPU says %d", label, r.pass, o.pass);
    CHECK(r.mismatches == o.count, "%s: %llu mismatches, the CPU counts %llu", label, (unsigned long long)r.mismatches,
          (unsigned long long)o.count);
    CHECK(r.first == o.first, "%s: first bad %llu, the CPU's %llu", label, (unsigned long long)r.first,
          (unsigned long long)o.first);
    if (o.first != UINT64_MAX && r.first == o.first) {
      double gx = core_elem_value(out, o.first, t), gy = core_elem_value(exp, o.first, t);
      CHECK((isnan(gx) && isnan(r.got)) || r.got == gx, "%s: got %.17g there, the data holds %.17g", label, r.got, gx);
      CHECK((isnan(gy) && isnan(r.want)) || r.want == gy, "%s: want %.17g there, the data holds %.17g", label, r.want, gy);
    }
    if (m == VKOCC_CMP_SUM)
      CHECK(r.sum == o.sum || (isinf(r.sum) && isinf(o.sum)), "%s: sum %.17g, the CPU's %.17g", label, r.sum, o.sum);
  }
  core_compare_destroy(ctx, &c);
  core_buffer_destroy(ctx, &a);
  core_buffer_destroy(ctx, &e);
}

/* Writes value v (as a double, converted to t) into element k. */
static void put(void *p, uint64_t k, core_elem t, double v) {
  uint8_t *b = p;
  switch (t) {
  case VKOCC_ELEM_U8: b[k] = (uint8_t)v; break;
  case VKOCC_ELEM_I8: b[k] = (uint8_t)(int8_t)v; break;
  case VKOCC_ELEM_U16: { uint16_t x = (uint16_t)v; memcpy(b + 2 * k, &x, 2); break; }
  case VKOCC_ELEM_I16: { int16_t x = (int16_t)v; memcpy(b + 2 * k, &x, 2); break; }
  case VKOCC_ELEM_U32: case VKOCC_ELEM_BOOL32: { uint32_t x = (uint32_t)v; memcpy(b + 4 * k, &x, 4); break; }
  case VKOCC_ELEM_I32: { int32_t x = (int32_t)v; memcpy(b + 4 * k, &x, 4); break; }
  case VKOCC_ELEM_U64: { uint64_t x = (uint64_t)v; memcpy(b + 8 * k, &x, 8); break; }
  case VKOCC_ELEM_I64: { int64_t x = (int64_t)v; memcpy(b + 8 * k, &x, 8); break; }
  case VKOCC_ELEM_F32: { float x = (float)v; memcpy(b + 4 * k, &x, 4); break; }
  case VKOCC_ELEM_F64: memcpy(b + 8 * k, &v, 8); break;
  }
}

/* Every type: equal data passes; mismatches planted at the first, middle and last index (each alone, then all
 * three) are counted and the first found, in exact and in per-element modes; the values there come back. */
static void test_types(void) {
  static const char *const names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "bool"};
  const uint64_t n = 1001; /* not a multiple of 4: the last word of 1- and 2-byte types is partial */
  for (int t = VKOCC_ELEM_U8; t <= VKOCC_ELEM_BOOL32; t++) {
    size_t bytes = n * core_elem_bytes(t);
    uint8_t *exp = calloc(1, bytes + 8), *out = calloc(1, bytes + 8);
    for (uint64_t k = 0; k < n; k++) put(exp, k, t, t == VKOCC_ELEM_BOOL32 ? (double)(k % 2) : (double)((k * 7) % 100));
    const uint64_t at[3] = {0, n / 2, n - 1};
    for (int m = VKOCC_CMP_EXACT; m <= VKOCC_CMP_REL; m++) {
      char label[96];
      memcpy(out, exp, bytes);
      snprintf(label, sizeof label, "%s mode %d equal", names[t], m);
      check_case(label, out, exp, n, t, m, 0);
      for (int w = 0; w < 4; w++) {
        memcpy(out, exp, bytes);
        for (int j = 0; j < 3; j++)
          if (w == 3 || w == j) put(out, at[j], t, t == VKOCC_ELEM_BOOL32 ? 1.0 - core_elem_value(exp, at[j], t) : 101.0);
        snprintf(label, sizeof label, "%s mode %d planted %s", names[t], m, w == 3 ? "first+middle+last" : w == 0 ? "first" : w == 1 ? "middle" : "last");
        check_case(label, out, exp, n, t, m, 0);
      }
    }
    /* a tolerance that covers the planted difference (101 against at most 99) */
    memcpy(out, exp, bytes);
    put(out, n - 1, t, 101.0);
    if (t != VKOCC_ELEM_BOOL32) {
      char label[96];
      snprintf(label, sizeof label, "%s abs within 101", names[t]);
      check_case(label, out, exp, n, t, VKOCC_CMP_ABS, 101);
      snprintf(label, sizeof label, "%s sum", names[t]);
      check_case(label, out, exp, n, t, VKOCC_CMP_SUM, 1000);
    }
    free(exp), free(out);
  }
}

/* NaN, infinities, denormals and the edges of each tolerance, in float and double: the device agrees with the
 * CPU's rule case by case (NaN = NaN passes per element, fails relative; equal infinities fail). */
static void test_specials(void) {
  const double nan = NAN, inf = INFINITY, den32 = 1.4e-45, den32b = 2.8e-45;
  struct { double x, y, th; core_cmp_mode m; const char *what; } cases[] = {
      {nan, nan, 0, VKOCC_CMP_ABS, "NaN = NaN, abs"},
      {nan, nan, 0.5, VKOCC_CMP_REL, "NaN = NaN, rel"},
      {nan, 1, 0, VKOCC_CMP_ABS, "NaN vs 1"},
      {1, nan, 1e30, VKOCC_CMP_ABS, "1 vs NaN"},
      {inf, inf, 0, VKOCC_CMP_ABS, "inf = inf, abs"},
      {inf, inf, 0.5, VKOCC_CMP_REL, "inf = inf, rel"},
      {inf, inf, 0, VKOCC_CMP_REL, "inf = inf, rel 0"},
      {-inf, inf, 1e30, VKOCC_CMP_ABS, "-inf vs inf"},
      {5, inf, 0.1, VKOCC_CMP_REL, "5 vs inf, rel"},
      {nan, inf, 0.1, VKOCC_CMP_REL, "NaN vs inf, rel"},
      {den32, 0, 0, VKOCC_CMP_ABS, "denormal vs 0"},
      {den32, den32b, 1.5e-45, VKOCC_CMP_ABS, "denormals within"},
      {1.5, 1.25, 0.25, VKOCC_CMP_ABS, "abs edge"},
      {1.5, 1.25, 0.24999999999999997, VKOCC_CMP_ABS, "abs below the edge"},
      {1.5, 1.25, 0.2, VKOCC_CMP_REL, "rel edge"},
      {1.5, 1.25, 0.19999999999999998, VKOCC_CMP_REL, "rel below the edge"},
      {0.25, 0, 0.25, VKOCC_CMP_REL, "rel at y = 0"},
      {-0.0, 0.0, 0, VKOCC_CMP_ABS, "-0 vs 0"},
      {3, 0, 2.9, VKOCC_CMP_SUM, "sum above"},
      {nan, 0, 1e300, VKOCC_CMP_SUM, "sum NaN"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int t = VKOCC_ELEM_F32; t <= VKOCC_ELEM_F64; t++) {
      const uint64_t n = 37;
      uint8_t out[8 * 37], exp[8 * 37];
      for (uint64_t k = 0; k < n; k++) put(out, k, t, 0.5 * k), put(exp, k, t, 0.5 * k);
      put(out, 20, t, cases[i].x), put(exp, 20, t, cases[i].y);
      char label[128];
      snprintf(label, sizeof label, "%s (%s)", cases[i].what, t == VKOCC_ELEM_F32 ? "f32" : "f64");
      check_case(label, out, exp, n, t, cases[i].m, cases[i].th);
    }
}

/* Counts past 2^24 (what a float counter would lose) and an index past it. */
static void test_large(void) {
  const uint64_t n = (1ull << 24) + 5;
  uint8_t *exp = calloc(1, n + 4), *out = calloc(1, n + 4);
  out[n - 1] = 1;
  check_case("u8 2^24+5, the last differs", out, exp, n, VKOCC_ELEM_U8, VKOCC_CMP_EXACT, 0);
  memset(out, 7, n);
  check_case("u8 2^24+5, all differ", out, exp, n, VKOCC_ELEM_U8, VKOCC_CMP_EXACT, 0);
  check_case("u8 2^24+5, all differ, abs", out, exp, n, VKOCC_ELEM_U8, VKOCC_CMP_ABS, 6);
  free(exp), free(out);
}

static void test_usage(void) {
  core_buffer a;
  CHECK(core_buffer_create(ctx, 64, false, &a) == VKOCC_OK, "buffer");
  core_compare c;
  core_compare_desc d = {.actual = &a, .expected = &a, .count = 17, .elem = VKOCC_ELEM_F32, .mode = VKOCC_CMP_ABS};
  CHECK(core_compare_create(ctx, &d, &c) == VKOCC_ERROR_USAGE, "17 floats in 64 bytes");
  CHECK_CONTAINS(vkocc_last_error(), "exceed the buffers");
  d.count = 0;
  CHECK(core_compare_create(ctx, &d, &c) == VKOCC_ERROR_USAGE, "no elements");
  core_buffer_destroy(ctx, &a);
}

/* Restore: a target written over is its pristine self again after core_batch_restore, from host data and from a
 * device copy; a restore of nothing records nothing. */
static void test_restore(void) {
  enum { N = 4096 };
  uint32_t *data = malloc(N * 4);
  for (uint32_t i = 0; i < N; i++) data[i] = i * 2654435761u;
  core_buffer t1, t2, back;
  CHECK(core_buffer_create(ctx, N * 4, false, &t1) == VKOCC_OK, "t1");
  CHECK(core_buffer_create(ctx, N * 4, false, &t2) == VKOCC_OK, "t2");
  CHECK(core_buffer_create(ctx, 2 * N * 4, true, &back) == VKOCC_OK, "back");
  CHECK(core_buffer_upload(ctx, &t2, data + 1, (N - 1) * 4) == VKOCC_OK, "t2 upload");
  core_restore r = {0};
  CHECK(core_restore_add(ctx, &r, &t1, data, N * 4) == VKOCC_OK, "add from host: %s", vkocc_last_error());
  CHECK(core_restore_add(ctx, &r, &t2, NULL, (N - 1) * 4) == VKOCC_OK, "add from device: %s", vkocc_last_error());
  CHECK(core_restore_add(ctx, &r, &t2, NULL, 6) == VKOCC_ERROR_USAGE, "6 bytes");
  CHECK(core_restore_add(ctx, &r, &t2, NULL, N * 8) == VKOCC_ERROR_USAGE, "beyond the target");
  CHECK_EQ_U(r.n, 2);
  for (int round = 0; round < 2; round++) {
    core_batch *b = core_context_batch(ctx);
    CHECK(core_batch_begin(b) == VKOCC_OK, "begin");
    core_batch_fill(b, &t1, 0, N * 4, 0xdeadbeefu); /* what a run would leave */
    core_batch_fill(b, &t2, 0, N * 4, 0xdeadbeefu);
    core_batch_barrier(b, VKOCC_SYNC_ALL);
    core_batch_restore(b, &r);
    core_batch_barrier(b, VKOCC_SYNC_ALL);
    core_batch_copy(b, &t1, &back, 0, 0, N * 4);
    core_batch_copy(b, &t2, &back, 0, N * 4, N * 4);
    core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_HOST);
    CHECK(core_batch_run(b, 0, "restore") == VKOCC_OK, "run: %s", vkocc_last_error());
    const uint32_t *got = back.map;
    CHECK(!memcmp(got, data, N * 4), "round %d: t1 restored from the host's data", round);
    CHECK(!memcmp(got + N, data + 1, (N - 1) * 4), "round %d: t2 restored from its device copy", round);
    CHECK(got[2 * N - 1] == 0xdeadbeefu, "round %d: t2's last word is outside the restored range", round);
  }
  core_restore_free(ctx, &r);
  CHECK(r.n == 0 && r.pairs == NULL, "freed");
  core_buffer_destroy(ctx, &t1), core_buffer_destroy(ctx, &t2), core_buffer_destroy(ctx, &back);
  free(data);
}

/* The written bindings of the compare shader (0 and 1 readonly, 2 written) and the clock probe (0 written). */
static void test_written(void) {
  CHECK_EQ_U(core_spirv_written_bindings(shaders_spv_compare_exact, shaders_spv_compare_exact_size / 4, 0), 4);
  CHECK_EQ_U(core_spirv_written_bindings(shaders_spv_compare_exact, shaders_spv_compare_exact_size / 4, 1), 0);
  CHECK_EQ_U(core_spirv_written_bindings(shaders_spv_clockprobe, shaders_spv_clockprobe_size / 4, 0), 1);
  uint32_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(core_spirv_written_bindings(junk, 8, 0) == ~0ull, "not SPIR-V: every binding may be written");
}

/* The probe beside a batch on lavapipe, whose clock does not change: readings before and after a dispatch agree
 * and agree with the calibration's clock ratio; a probe recorded and not yet run reads as none. */
static void test_probe(void) {
  core_clock_probe p;
  vkocc_status s = core_clock_probe_create(ctx, 3, &p);
  CHECK(s == VKOCC_OK, "probe: %s", vkocc_last_error());
  if (s) return;
  vkocc_calibration cal;
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
  CHECK(vkocc_calibrate(ctx, &co, &cal) == VKOCC_OK, "calibrate: %s", vkocc_last_error());
  double expect = cal.shader_clock_mhz * cal.ns_per_tick / 1e3; /* cycles per realtime tick */
  /* Each reading is lavapipe's two clocks read by a host thread, which the host may preempt between them: the host's
   * other work (the memcheck build of a quiet fresh-clone run) gave one reading of 0.69 beside 0.99. So 10 readings,
   * and the constant clock must read alike in 8 of them: one disturbed reading is the host's, a probe that reads
   * wrongly fails most of them. */
  double rd[10];
  uint32_t nrd = 0;
  CHECK(core_clock_probe_read(&p, 0) == 0, "nothing recorded yet");
  for (int batch = 0; batch < 5; batch++) {
    core_batch *b = core_context_batch(ctx);
    CHECK(core_batch_begin(b) == VKOCC_OK, "begin");
    core_clock_probe_record(b, &p, 0);
    if (batch == 0) core_clock_probe_record(b, &p, 2);
    core_clock_probe_record(b, &p, 1);
    CHECK(core_batch_run(b, 0, "probe") == VKOCC_OK, "run: %s", vkocc_last_error());
    for (uint32_t sl = 0; sl < 2; sl++) {
      double x = core_clock_probe_read(&p, sl);
      CHECK(x > 0, "batch %d slot %u: reading %g", batch, sl, x);
      rd[nrd++] = x;
    }
    CHECK(core_clock_probe_read(&p, 2) > 0, "batch %d: slot 2 keeps its last reading", batch);
  }
  /* recorded, never run: none (the slot's earlier reading is not passed off as this one) */
  core_batch *b = core_context_batch(ctx);
  CHECK(core_batch_begin(b) == VKOCC_OK, "begin");
  core_clock_probe_record(b, &p, 2);
  CHECK(core_clock_probe_read(&p, 2) == 0, "a probe recorded and not run reads %g", core_clock_probe_read(&p, 2));
  CHECK(core_batch_run(b, 0, "probe") == VKOCC_OK, "run: %s", vkocc_last_error());
  CHECK(core_clock_probe_read(&p, 2) > 0, "run: a reading");
  CHECK(core_clock_probe_read(&p, 3) == 0, "slot 3 does not exist");
  qsort(rd, nrd, sizeof *rd, cmp_double);
  printf("probe readings %.4f..%.4f cycles per realtime tick, calibration %.4f\n", rd[0], rd[nrd - 1], expect);
  double med = (rd[nrd / 2 - 1] + rd[nrd / 2]) / 2;
  uint32_t alike = 0;
  for (uint32_t i = 0; i < nrd; i++) alike += rd[i] >= med / 1.25 && rd[i] <= med * 1.25;
  CHECK(alike >= 8, "a constant clock reads alike: %u of %u readings within 25%% of their median %g (%g..%g)", alike,
        nrd, med, rd[0], rd[nrd - 1]);
  CHECK(med >= 0.75 * expect && med <= 1.25 * expect, "the readings' median %g against the calibration's ratio %g", med,
        expect);
  core_clock_probe_destroy(ctx, &p);
}

/* A compute copy (core_copy): every word of the range, a tail under 16 bytes included, and nothing after it;
 * sizes it refuses. */
static void test_copy(void) {
  enum { N = (1 << 18) + 3 }; /* words: 16-byte steps and a 12-byte tail */
  uint32_t *data = malloc(4 * (N + 1)), *got = NULL;
  for (uint32_t i = 0; i < N + 1; i++) data[i] = i * 2654435761u;
  core_buffer src, dst, back;
  CHECK(core_buffer_create(ctx, 4 * (N + 1), false, &src) == VKOCC_OK, "src");
  CHECK(core_buffer_create(ctx, 4 * (N + 1), false, &dst) == VKOCC_OK, "dst");
  CHECK(core_buffer_create(ctx, 4 * (N + 1), true, &back) == VKOCC_OK, "back");
  CHECK(core_buffer_upload(ctx, &src, data, 4 * (N + 1)) == VKOCC_OK, "upload");
  core_copy c;
  CHECK(core_copy_create(ctx, &src, &dst, 4 * N, &c) == VKOCC_OK, "create: %s", vkocc_last_error());
  CHECK_EQ_U(c.words, N / 4);
  core_batch *b = core_context_batch(ctx);
  CHECK(core_batch_begin(b) == VKOCC_OK, "begin");
  core_batch_fill(b, &dst, 0, 4 * (N + 1), 0xdeadbeefu);
  core_batch_barrier(b, VKOCC_SYNC_ALL);
  core_copy_record(b, &c);
  core_batch_barrier(b, VKOCC_SYNC_ALL);
  core_batch_copy(b, &dst, &back, 0, 0, 4 * (N + 1));
  core_batch_barrier(b, VKOCC_SYNC_TRANSFER_TO_HOST);
  CHECK(core_batch_run(b, 0, "copy") == VKOCC_OK, "run: %s", vkocc_last_error());
  got = back.map;
  CHECK(!memcmp(got, data, 4 * N), "every copied word");
  CHECK(got[N] == 0xdeadbeefu, "the word after the range is untouched: %08x", got[N]);
  core_copy_destroy(ctx, &c);
  CHECK(core_copy_create(ctx, &src, &dst, 6, &c) == VKOCC_ERROR_USAGE, "6 bytes");
  CHECK(core_copy_create(ctx, &src, &dst, 8 * N, &c) == VKOCC_ERROR_USAGE, "beyond the buffers");
  CHECK(core_copy_create(ctx, &src, &dst, 12, &c) == VKOCC_OK && c.words == 0, "12 bytes: the tail alone");
  core_copy_destroy(ctx, &c);
  core_buffer_destroy(ctx, &src), core_buffer_destroy(ctx, &dst), core_buffer_destroy(ctx, &back);
  free(data);
}

/* core_buffer_upload_to: the same bytes into two device buffers and a mapped one, in chunks of the context's staging
 * buffer (64 MiB: 80 MiB + 12 bytes is two chunks and a tail), each buffer read back whole; then a small upload
 * after the large one (the staging buffer kept) */
static void test_upload_to(void) {
  const uint64_t bytes = (80ull << 20) + 12;
  uint8_t *data = malloc(bytes);
  for (uint64_t i = 0; i < bytes; i++) data[i] = (uint8_t)(i * 2654435761u >> 13);
  core_buffer a, b, m, back;
  CHECK(core_buffer_create(ctx, bytes, false, &a) == VKOCC_OK && core_buffer_create(ctx, bytes, false, &b) == VKOCC_OK &&
        core_buffer_create(ctx, bytes, true, &m) == VKOCC_OK && core_buffer_create(ctx, bytes, true, &back) == VKOCC_OK,
        "buffers: %s", vkocc_last_error());
  core_buffer *to[3] = {&a, &m, &b};
  CHECK(core_buffer_upload_to(ctx, to, 3, data, bytes) == VKOCC_OK, "upload: %s", vkocc_last_error());
  CHECK(!memcmp(m.map, data, bytes), "the mapped buffer");
  for (int k = 0; k < 2; k++) {
    memset(back.map, 0, bytes);
    core_batch *bt = core_context_batch(ctx);
    CHECK(core_batch_begin(bt) == VKOCC_OK, "begin");
    core_batch_copy(bt, k ? &b : &a, &back, 0, 0, bytes);
    core_batch_barrier(bt, VKOCC_SYNC_TRANSFER_TO_HOST);
    CHECK(core_batch_run(bt, 0, "read back") == VKOCC_OK, "run: %s", vkocc_last_error());
    uint64_t first_bad = bytes;
    for (uint64_t i = 0; i < bytes && first_bad == bytes; i++)
      if (((uint8_t *)back.map)[i] != data[i]) first_bad = i;
    CHECK(first_bad == bytes, "buffer %d: first wrong byte at %llu of %llu", k, (unsigned long long)first_bad,
          (unsigned long long)bytes);
  }
  uint32_t small[3] = {7, 8, 9}, got[3] = {0};
  CHECK(core_buffer_upload(ctx, &a, small, sizeof small) == VKOCC_OK, "a small upload after");
  core_batch *bt = core_context_batch(ctx);
  CHECK(core_batch_begin(bt) == VKOCC_OK, "begin");
  core_batch_copy(bt, &a, &back, 0, 0, sizeof small);
  core_batch_barrier(bt, VKOCC_SYNC_TRANSFER_TO_HOST);
  CHECK(core_batch_run(bt, 0, "read back") == VKOCC_OK, "run");
  memcpy(got, back.map, sizeof got);
  CHECK(got[0] == 7 && got[1] == 8 && got[2] == 9, "small upload: %u %u %u", got[0], got[1], got[2]);
  core_buffer_destroy(ctx, &a), core_buffer_destroy(ctx, &b), core_buffer_destroy(ctx, &m);
  core_buffer_destroy(ctx, &back);
  free(data);
}

/* A batch's whole span on the device (core_batch.span_ns): from its first command to its last, untimed work
 * included; every batch has one, a batch with no timed span too; a batch begun and not run reads 0. */
static void test_span(void) {
  const VkDeviceSize bytes = 16u << 20;
  core_buffer a, c;
  CHECK(core_buffer_create(ctx, bytes, false, &a) == VKOCC_OK, "a: %s", vkocc_last_error());
  CHECK(core_buffer_create(ctx, bytes, false, &c) == VKOCC_OK, "c: %s", vkocc_last_error());
  core_batch *b = core_context_batch(ctx);
  for (int round = 0; round < 2; round++) {
    CHECK(core_batch_begin(b) == VKOCC_OK, "begin");
    for (int k = 0; k < 3; k++) { /* untimed: three copies like the timed one */
      core_batch_copy(b, &a, &c, 0, 0, bytes);
      core_batch_barrier(b, VKOCC_SYNC_ALL);
    }
    uint32_t t = core_batch_timer_start_after(b);
    core_batch_copy(b, &c, &a, 0, 0, bytes);
    core_batch_timer_stop(b, t);
    CHECK(core_batch_run(b, 0, "span") == VKOCC_OK, "run: %s", vkocc_last_error());
    double one = core_batch_record_of(b, t)->ns;
    printf("span: %.3f ms for 4 copies of %llu MiB, the timed one %.3f ms\n", b->span_ns / 1e6,
           (unsigned long long)(bytes >> 20), one / 1e6);
    CHECK(one > 0 && b->span_ns > 1.5 * one, "round %d: span %.0f ns, timed copy %.0f ns: the span holds the untimed copies",
          round, b->span_ns, one);
  }
  CHECK(core_batch_begin(b) == VKOCC_OK, "begin");
  CHECK(b->span_ns == 0, "begun: no span yet (%g)", b->span_ns);
  core_batch_copy(b, &a, &c, 0, 0, bytes);
  CHECK(core_batch_run(b, 0, "span") == VKOCC_OK, "run: %s", vkocc_last_error());
  CHECK(b->nrec == 0 && b->span_ns > 0, "no timed span: the batch's span %.0f ns", b->span_ns);
  core_buffer_destroy(ctx, &a), core_buffer_destroy(ctx, &c);
}

int main(void) {
  vkocc_context_options o = {.device = "llvmpipe"};
  if (vkocc_context_create(&o, &ctx)) {
    CHECK(0, "context: %s", vkocc_last_error());
    return check_report();
  }
  test_usage();
  test_types();
  test_specials();
  test_large();
  test_restore();
  test_written();
  test_probe();
  test_span();
  test_copy();
  test_upload_to();
  vkocc_context_destroy(ctx);
  return check_report();
}
