/* The register axis and P of the pipeline as written, without a device: the register-file derivation on
 * synthetic register surfaces (clean, noisy, missing points, no register statistic) built with CUDA's
 * occupancy rule (cuda_occupancy.h: warps per SM = Q x floor(floor(R / Q) / roundup(r x 32, U)), blocks =
 * that / warps per block), and the written-pipeline decision on the statistics an H100 gave. */
#include "check.h"
#include "vkocc.h"
#include <stdlib.h>

/* An H100 (driver 580) as vkocc measured it: 132 SMs, 32 workgroups, 64 subgroups of 32, shared memory per
 * SM 49152 on the graphics+compute family (102400 on the compute-only one); CUDA's register file. */
static vkocc_derived h100(uint32_t shared_per_sm) {
  vkocc_derived d = {.sm_count = 132, .wg_per_sm = 32, .subgroups_per_sm = 64, .subgroups_per_sm_max = 64,
                     .subgroups_bound_seen = true, .subgroup_size = 32, .threads_per_sm = 2048,
                     .shared_per_sm = shared_per_sm, .shared_per_sm_max = shared_per_sm + 511, .shared_bound_seen = true};
  return d;
}
static const vkocc_register_model h100_regs = {.known = true, .subgroup_size = 32, .regs_per_sm = 65536,
                                               .regs_per_sm_max = 65536, .alloc_unit = 256,
                                               .alloc_unit_per_invocation = 8, .partitions = 4,
                                               .max_per_invocation = 255, .bound_seen = true};

/* cudaOccMaxActiveBlocksPerMultiprocessor's register limit (compute capability >= 2) */
static uint32_t cuda_reg_blocks(uint32_t R, uint32_t U, uint32_t Q, uint32_t regs, uint32_t wg) {
  uint32_t a = (regs * 32 + U - 1) / U * U, k = (wg + 31) / 32;
  return Q * ((R / Q) / a) / k;
}
static uint32_t cuda_P(const vkocc_derived *d, uint32_t R, uint32_t U, uint32_t Q, uint32_t wg, uint32_t regs,
                       uint32_t shared) {
  uint32_t k = (wg + 31) / 32, p = d->wg_per_sm;
  if (d->subgroups_per_sm / k < p) p = d->subgroups_per_sm / k;
  if (shared && d->shared_per_sm / shared < p) p = d->shared_per_sm / shared;
  uint32_t r = cuda_reg_blocks(R, U, Q, regs, wg);
  if (r < p) p = r;
  return p * d->sm_count;
}

static uint32_t make_surface(const vkocc_derived *d, vkocc_register_point *pts) {
  static const uint32_t wgs[] = {64, 128, 192, 256, 384, 512, 768, 1024};
  uint32_t n = 0;
  for (size_t a = 0; a < sizeof wgs / sizeof *wgs; a++)
    for (uint32_t r = 16; r <= 255; r += 7) {
      if ((uint64_t)((r * 32 + 255) / 256 * 256) * ((wgs[a] + 31) / 32) > 65536) continue; /* a block's register cap */
      pts[n] = (vkocc_register_point){.wg_size = wgs[a], .registers = r, .P = cuda_P(d, 65536, 256, 4, wgs[a], r, 0),
                                      .requested = r};
      n++;
    }
  return n;
}

static void test_derive_clean(void) {
  vkocc_derived d = h100(102400);
  vkocc_register_point pts[512];
  uint32_t n = make_surface(&d, pts);
  vkocc_register_model m;
  CHECK(vkocc_derive_registers(pts, n, &d, &m) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(m.known, "known");
  CHECK_EQ_U(m.regs_per_sm, 65536);
  CHECK_EQ_U(m.alloc_unit, 256);
  CHECK_EQ_U(m.alloc_unit_per_invocation, 8);
  CHECK_EQ_U(m.partitions, 4);
  CHECK_EQ_U(m.explained, n);
  CHECK_EQ_U(m.total, n);
  CHECK(m.bound_seen, "registers bound somewhere");
  CHECK_EQ_U(m.max_per_invocation, 254);
  CHECK(!m.max_capped, "every point got one register per live value asked for: no cap seen");
  /* as the H100 did at wg 64: 256 live values asked for, 255 registers given (the rest spilled): the cap */
  pts[n] = (vkocc_register_point){.wg_size = 64, .registers = 255, .P = cuda_P(&d, 65536, 256, 4, 64, 255, 0),
                                  .requested = 256};
  CHECK(vkocc_derive_registers(pts, n + 1, &d, &m) == VKOCC_OK && m.max_per_invocation == 255 && m.max_capped,
        "capped %d at %u", m.max_capped, m.max_per_invocation);
  /* every point predicted as CUDA's calculator gives it */
  uint32_t same = 0;
  for (uint32_t i = 0; i < n; i++)
    same += vkocc_register_limit(&m, pts[i].wg_size, pts[i].registers) ==
            cuda_reg_blocks(65536, 256, 4, pts[i].registers, pts[i].wg_size);
  CHECK_EQ_U(same, n);
}

static void test_derive_noisy_missing(void) {
  vkocc_derived d = h100(102400);
  vkocc_register_point pts[512];
  uint32_t n = make_surface(&d, pts);
  /* three points off by one SM's worth: listed as unexplained, the fit unchanged */
  pts[5].P += 132, pts[40].P -= 132, pts[77].P += 264;
  vkocc_register_model m;
  CHECK(vkocc_derive_registers(pts, n, &d, &m) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(m.regs_per_sm, 65536);
  CHECK_EQ_U(m.alloc_unit_per_invocation, 8);
  CHECK_EQ_U(m.explained, n - 3);
  CHECK_EQ_U(m.n_unexplained, 3);
  CHECK(m.unexplained[0] == 5 && m.unexplained[1] == 40 && m.unexplained[2] == 77, "unexplained %u %u %u",
        m.unexplained[0], m.unexplained[1], m.unexplained[2]);
  /* every other point missing */
  n = make_surface(&d, pts);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i += 2) pts[k++] = pts[i];
  CHECK(vkocc_derive_registers(pts, k, &d, &m) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(m.explained, k);
  CHECK(m.regs_per_sm <= 65536 && m.regs_per_sm_max >= 65536, "65536 in [%u, %u]", m.regs_per_sm, m.regs_per_sm_max);
  for (uint32_t i = 0; i < k; i++)
    if (vkocc_register_limit(&m, pts[i].wg_size, pts[i].registers) != cuda_reg_blocks(65536, 256, 4, pts[i].registers,
                                                                                        pts[i].wg_size) &&
        pts[i].P / 132 != cuda_P(&d, 65536, 256, 4, pts[i].wg_size, pts[i].registers, 0) / 132)
      CHECK(0, "point %u mispredicted", i);
}

/* lavapipe: no register statistic (every count 0): the axis is unknown, said once, never guessed */
static void test_unknown(void) {
  vkocc_derived d = {.sm_count = 2, .wg_per_sm = 1, .subgroups_per_sm = 1, .subgroup_size = 8, .threads_per_sm = 1024};
  vkocc_register_point pts[4] = {{64, 0, 0, 2, 8}, {64, 0, 0, 2, 64}, {256, 0, 0, 2, 8}, {256, 0, 0, 2, 64}};
  vkocc_register_model m;
  CHECK(vkocc_derive_registers(pts, 4, &d, &m) == VKOCC_ERROR_RUNTIME, "no statistic");
  CHECK(!m.known, "unknown");
  CHECK_CONTAINS(vkocc_last_error(), "unknown");
  CHECK_EQ_U(vkocc_register_limit(&m, 64, 40), VKOCC_NO_LIMIT);
  vkocc_limits_per_sm l;
  vkocc_limits_per_sm_registers(&d, &m, 64, 0, 40, &l);
  CHECK_EQ_U(l.registers, VKOCC_NO_LIMIT);
}

static void test_limits(void) {
  vkocc_derived d = h100(49152);
  vkocc_limits_per_sm l;
  vkocc_limits_per_sm_registers(&d, &h100_regs, 256, 256, 89, &l);
  CHECK_EQ_U(l.registers, 2);
  CHECK_EQ_U(l.wg_per_sm, 2);
  CHECK_EQ_U(l.binding, VKOCC_LIMIT_REGISTERS);
  CHECK(!strcmp(vkocc_limit_name(l.binding), "registers"), "%s", vkocc_limit_name(l.binding));
  vkocc_limits_per_sm_registers(&d, &h100_regs, 256, 15616, 80, &l);
  CHECK_EQ_U(l.registers, 3);
  CHECK_EQ_U(l.shared_memory, 3);
  CHECK_EQ_U(l.binding, VKOCC_LIMIT_REGISTERS | VKOCC_LIMIT_SHARED);
  CHECK_EQ_U(vkocc_model_P(&d, &h100_regs, 256, 256, 89, NULL), 264);
}

/* The statistics of the H100 case: the compiler gave the written module 89 registers and 256 shared bytes,
 * the augmented one 80 registers and 15616 bytes (a spill into shared memory); the comb measured 396. */
static const char *nv_names[] = {"Binary Size", "Stack Size", "Shared Memory Size", "Local Memory Size", "Register Count"};

static vkocc_written_input h100_case(double *w, double *a, const vkocc_derived *d, const vkocc_register_model *rm) {
  double wv[] = {4352, 0, 256, 68719476736.0, 89}, av[] = {9088, 0, 15616, 68719476736.0, 80};
  memcpy(w, wv, sizeof wv);
  memcpy(a, av, sizeof av);
  return (vkocc_written_input){.nstats = 5, .names = nv_names, .written = w, .augmented = a, .wg_size = 256,
                              .shared_bytes = 256, .augmented_P = 396, .derived = d, .registers = rm};
}

static void test_written_h100(void) {
  double w[5], a[5];
  vkocc_written_answer o;
  for (int fam = 0; fam < 2; fam++) { /* graphics+compute (48 KiB) and compute-only (100 KiB) */
    vkocc_derived d = h100(fam ? 102400 : 49152);
    vkocc_written_input in = h100_case(w, a, &d, &h100_regs);
    CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK, "%s", vkocc_last_error());
    CHECK_EQ_U(o.P, 264);
    CHECK(o.P != 396, "never the augmented P");
    CHECK_EQ_U(o.augmented_P, 396);
    CHECK_EQ_U(o.predicted_P, 264);
    CHECK_EQ_U(o.predicted_augmented_P, 396);
    CHECK_EQ_U(o.evidence, VKOCC_WRITTEN_PREDICTED);
    CHECK(!o.confirmed, "the measurement shows 396, not 264 directly");
    CHECK_EQ_U(o.binding, VKOCC_LIMIT_REGISTERS);
    CHECK_EQ_U(o.written_registers, 89);
    CHECK_EQ_U(o.augmented_registers, 80);
    CHECK_EQ_U(o.written_shared, 256);
    CHECK_EQ_U(o.augmented_shared, 15616);
    CHECK_CONTAINS(o.differs, "Register Count 89 written / 80 augmented");
    CHECK_CONTAINS(o.differs, "Shared Memory Size 256 written / 15616 augmented");
    CHECK(!strstr(o.differs, "Binary"), "binary size does not bound occupancy: %s", o.differs);
    CHECK_CONTAINS(vkocc_written_evidence_name(o.evidence), "predicted from written statistics by the per-SM model");
  }
  /* no register model: not established, exit 1, never 396 */
  vkocc_derived d = h100(49152);
  vkocc_written_input in = h100_case(w, a, &d, NULL);
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_ERROR_RUNTIME, "no register file");
  CHECK_EQ_U(o.P, 0);
  CHECK_CONTAINS(vkocc_last_error(), "could not establish P of the pipeline as written");
  CHECK_CONTAINS(vkocc_last_error(), "register counts differ (89 written, 80 augmented)");
  CHECK_CONTAINS(vkocc_last_error(), "--unmodified");
  /* no model at all */
  in = h100_case(w, a, NULL, NULL);
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_ERROR_RUNTIME, "no model");
  CHECK_CONTAINS(vkocc_last_error(), "no per-SM model");
  /* a model that does not reproduce the augmented measurement (here: it predicts 396, 264 was measured) */
  in = h100_case(w, a, &d, &h100_regs);
  in.augmented_P = 264;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_ERROR_RUNTIME, "model contradicted");
  CHECK_CONTAINS(vkocc_last_error(), "predicts P = 396 for the augmented pipeline");
  /* --unmodified: measured on the pipeline as written */
  in = h100_case(w, a, &d, NULL);
  in.unmodified = true;
  in.augmented_P = 264;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK && o.P == 264 && o.evidence == VKOCC_WRITTEN_UNMODIFIED, "unmodified");
  CHECK(!strcmp(vkocc_written_evidence_name(o.evidence), "--unmodified"), "name");
}

static void test_written_other(void) {
  double w[5], a[5];
  vkocc_written_answer o;
  vkocc_derived d = h100(102400);
  /* equal statistics (binary size aside): the measured P */
  vkocc_written_input in = h100_case(w, a, &d, NULL);
  a[2] = 256, a[4] = 89;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK && o.P == 396 && o.evidence == VKOCC_WRITTEN_EQUAL, "equal: %s",
        vkocc_last_error());
  CHECK(!strcmp(vkocc_written_evidence_name(o.evidence), "measured: statistics equal"), "name");
  /* no statistics (lavapipe) */
  in.nstats = 0;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK && o.P == 396 && o.evidence == VKOCC_WRITTEN_NO_STATISTICS, "none");
  /* the histogram on the compute-only family: 16 / 17 registers, 4096 shared bytes both, wg 64, P 3300: the
   * augmented pipeline uses no less and already reaches the shared-memory limit (25 per SM) */
  in = h100_case(w, a, &d, NULL);
  w[2] = a[2] = 4096, w[4] = 16, a[4] = 17;
  in.wg_size = 64, in.shared_bytes = 4096, in.augmented_P = 3300;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(o.P, 3300);
  CHECK_EQ_U(o.evidence, VKOCC_WRITTEN_BOUNDED);
  CHECK(o.confirmed, "bounded is measured");
  /* the same where the augmented P is below the written pipeline's known limits: registers could explain it */
  in.augmented_P = 2640;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_ERROR_RUNTIME, "not bounded, no register file");
  /* with the register file: both get 25 per SM by the model, but 2640 was measured: the model is contradicted */
  in.registers = &h100_regs;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_ERROR_RUNTIME, "contradicted");
  /* written uses fewer registers but more shared memory than augmented, registers unknown, equal otherwise */
  in = h100_case(w, a, &d, NULL);
  w[4] = a[4] = 40, w[2] = 8192, a[2] = 16384;
  in.wg_size = 128, in.shared_bytes = 8192, in.augmented_P = 6 * 132;
  /* written: shared 12 per SM, slots 16: predicted 12 x 132 > 6 x 132 measured, registers unknown could bind */
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_ERROR_RUNTIME, "unknown register limit in between");
  CHECK_CONTAINS(vkocc_last_error(), "register limit is unknown");
  in.registers = &h100_regs; /* 40 -> 40 x 32 = 1280 per warp: 12 warps per partition, 48 per SM, 12 workgroups */
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK && o.P == 12 * 132 && o.evidence == VKOCC_WRITTEN_PREDICTED,
        "predicted %u: %s", o.P, vkocc_last_error());
  /* a statistic vkocc does not know differs */
  const char *names[] = {"Register Count", "Frobnication Level"};
  double w2[] = {32, 1}, a2[] = {32, 2};
  vkocc_written_input u = {.nstats = 2, .names = names, .written = w2, .augmented = a2, .wg_size = 64,
                           .augmented_P = 4224, .derived = &d, .registers = &h100_regs};
  CHECK(vkocc_written_decide(&u, &o) == VKOCC_ERROR_RUNTIME, "unknown statistic");
  CHECK_CONTAINS(vkocc_last_error(), "'Frobnication Level' differs");
  /* the written pipeline's statistics missing */
  w2[1] = NAN, a2[1] = 1;
  CHECK(vkocc_written_decide(&u, &o) == VKOCC_ERROR_RUNTIME, "missing");
  /* RADV names: VGPRs differ, Spilled VGPRs ignored, LDS size equal */
  const char *rn[] = {"VGPRs", "SGPRs", "Spilled VGPRs", "LDS size", "Subgroups per SIMD"};
  double rw[] = {64, 32, 0, 0, 16}, ra[] = {64, 32, 4, 0, 16};
  vkocc_written_input r = {.nstats = 5, .names = rn, .written = rw, .augmented = ra, .wg_size = 64, .augmented_P = 100};
  CHECK(vkocc_written_decide(&r, &o) == VKOCC_OK && o.evidence == VKOCC_WRITTEN_EQUAL, "spills do not bound");
  ra[4] = 12;
  CHECK(vkocc_written_decide(&r, &o) == VKOCC_ERROR_RUNTIME, "subgroups per SIMD differ: no model");
}

int main(void) {
  test_derive_clean();
  test_derive_noisy_missing();
  test_unknown();
  test_limits();
  test_written_h100();
  test_written_other();
  return check_report();
}
