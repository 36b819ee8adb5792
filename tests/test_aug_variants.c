/* Augmentation variants and P of the pipeline as written through them, on lavapipe. Without a device: the
 * decision (probes/written.c) takes P measured with a variant whose statistics equal the written ones, on the
 * statistics of the H100 case (written 89 registers / 256 shared bytes, augmented 80 / 15616, synthetic variant
 * statistics: lavapipe reports none); every variant of every test shader passes spirv-val and the default (compact)
 * module is smaller than the earlier unrolled one. On lavapipe: each variant the probe can sleep with gives
 * P == LP_NUM_THREADS. argv: tests/shaders source dir, build dir of the .spv files, spirv-val path (may be empty). */
#include "lvp.h"
#include "compile.h"
#include "internal.h"
#include "../probes/written_internal.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *nv_names[] = {"Binary Size", "Stack Size", "Shared Memory Size", "Local Memory Size", "Register Count"};

static vkocc_derived h100(uint32_t shared_per_sm) {
  vkocc_derived d = {.sm_count = 132, .wg_per_sm = 32, .subgroups_per_sm = 64, .subgroups_per_sm_max = 64,
                     .subgroups_bound_seen = true, .subgroup_size = 32, .threads_per_sm = 2048,
                     .shared_per_sm = shared_per_sm, .shared_per_sm_max = shared_per_sm + 511, .shared_bound_seen = true};
  return d;
}
static const vkocc_register_model h100_regs = {.known = true, .subgroup_size = 32, .regs_per_sm = 65536,
                                               .regs_per_sm_max = 65536, .alloc_unit = 256, .alloc_unit_per_invocation = 8,
                                               .partitions = 4, .max_per_invocation = 255, .bound_seen = true};

static void test_decision(void) {
  double w[] = {4352, 0, 256, 68719476736.0, 89}, a[] = {9088, 0, 15616, 68719476736.0, 80};
  double v_differs[] = {6000, 0, 13568, 68719476736.0, 80}, v_equal[] = {5200, 0, 256, 68719476736.0, 89};
  double v_missing[] = {5200, 0, 256, 68719476736.0, NAN};
  /* equality ignores what does not bound occupancy (binary size), not registers or shared memory */
  CHECK(probes_written_stats_equal(5, nv_names, w, v_equal), "binary size alone differs: equal");
  CHECK(!probes_written_stats_equal(5, nv_names, w, a), "registers and shared differ");
  CHECK(!probes_written_stats_equal(5, nv_names, w, v_missing), "a statistic missing in one: not equal");
  const double *tried[] = {v_differs, NULL, v_missing, v_equal};
  CHECK(probes_written_pick_variant(5, nv_names, w, tried, 4) == 3, "the variant with the written statistics");
  CHECK(probes_written_pick_variant(5, nv_names, w, tried, 3) == -1, "none");
  vkocc_derived d = h100(49152);
  vkocc_written_answer o;
  vkocc_written_input in = {.nstats = 5, .names = nv_names, .written = w, .augmented = a, .wg_size = 256,
                            .shared_bytes = 256, .augmented_P = 396, .derived = &d, .registers = &h100_regs,
                            .variant_P = 264, .variant = "unrolled"};
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK_EQ_U(o.P, 264);
  CHECK_EQ_U(o.evidence, VKOCC_WRITTEN_VARIANT);
  CHECK(o.confirmed, "a measurement");
  CHECK_EQ_U(o.augmented_P, 396);
  CHECK_EQ_U(o.predicted_P, 264);
  CHECK(!strcmp(o.variant, "unrolled"), "variant %s", o.variant);
  CHECK_CONTAINS(o.reason, "the 'unrolled' augmentation compiles to the written statistics and measured P = 264");
  CHECK_CONTAINS(o.reason, "the per-SM model predicts 264");
  CHECK_CONTAINS(vkocc_written_evidence_name(o.evidence), "augmentation variant");
  /* a variant's measurement that the model does not reproduce: the measurement wins, the reason says so */
  in.variant_P = 396;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK && o.P == 396 && o.evidence == VKOCC_WRITTEN_VARIANT, "variant wins");
  CHECK_CONTAINS(o.reason, "(it does not agree)");
  /* no model, no register file: without a variant exit 1, with one the variant's measurement */
  in.derived = NULL, in.registers = NULL, in.variant_P = 0;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_ERROR_RUNTIME, "no model, no variant: not established");
  in.variant_P = 264;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK && o.P == 264 && o.evidence == VKOCC_WRITTEN_VARIANT && !o.predicted_P,
        "no model: the variant's P, no prediction (%u)", o.predicted_P);
  /* statistics equal: the default augmentation's P, the variant not used */
  in.augmented = w, in.derived = &d, in.registers = &h100_regs;
  CHECK(vkocc_written_decide(&in, &o) == VKOCC_OK && o.P == 396 && o.evidence == VKOCC_WRITTEN_EQUAL && !o.variant[0],
        "equal statistics: measured, evidence %d", o.evidence);
}

/* Writes the module to a temporary file and runs spirv-val on it; returns its exit code. */
static int validate(const char *spirv_val, const uint32_t *w, size_t n) {
  char path[] = "/tmp/vkocc-augv-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  ssize_t put = write(fd, w, n * 4);
  close(fd);
  if (put != (ssize_t)(n * 4)) return -1;
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' --target-env vulkan1.1 '%s' 1>&2", spirv_val, path);
  int rc = system(cmd);
  if (rc) fprintf(stderr, "spirv-val failed (kept: %s)\n", path);
  else unlink(path);
  return rc;
}

static void test_modules(const char *src, const char *spirv_val) {
  const char *files[] = {"histogram.comp", "reduction.comp", "uniform_image.comp", "regpressure.comp"};
  for (size_t f = 0; f < VKOCC_ARRAY_LEN(files); f++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", src, files[f]);
    uint32_t *spv;
    size_t words;
    if (compile_shader_load_file(path, VKOCC_SHADER_AUTO, NULL, NULL, 0, &spv, &words)) {
      CHECK(0, "%s: %s", path, vkocc_last_error());
      continue;
    }
    compile_spirv_info info;
    CHECK(compile_spirv_inspect(spv, words, path, NULL, NULL, 0, &info) == VKOCC_OK, "inspect %s", path);
    size_t size[VKOCC_AUG_VARIANTS] = {0};
    for (uint32_t v = 0; v < VKOCC_AUG_VARIANTS; v++) {
      uint32_t *aug;
      vkocc_status s = compile_spirv_augment_variant(spv, words, path, NULL, info.first_free_set, v, &aug, &size[v]);
      CHECK(s == VKOCC_OK, "%s %s: %s", path, compile_aug_variant_name(v), vkocc_last_error());
      if (s) continue;
      if (spirv_val && *spirv_val) CHECK(validate(spirv_val, aug, size[v]) == 0, "spirv-val: %s %s", path, compile_aug_variant_name(v));
      free(aug);
    }
    printf("%-20s written %5zu words; augmented: compact %5zu (%.2fx), unrolled %5zu (%.2fx), small %5zu, clock-only "
           "%5zu, rolled %5zu\n", files[f], words, size[0], (double)size[0] / words, size[1], (double)size[1] / words,
           size[2], size[3], size[4]);
    /* 96 steps fewer than the unrolled one: 4 instructions of 5 words each */
    CHECK(size[VKOCC_AUG_COMPACT] + 96 * 20 == size[VKOCC_AUG_UNROLLED], "%s: compact %zu vs unrolled %zu words", path,
          size[VKOCC_AUG_COMPACT], size[VKOCC_AUG_UNROLLED]);
    CHECK(size[VKOCC_AUG_CLOCK_ONLY] < size[VKOCC_AUG_SMALL] && size[VKOCC_AUG_SMALL] < size[VKOCC_AUG_COMPACT] &&
              size[VKOCC_AUG_ROLLED] < size[VKOCC_AUG_COMPACT], "%s: sizes in order", path);
    uint32_t *aug;
    size_t n;
    CHECK(compile_spirv_augment_variant(spv, words, path, NULL, info.first_free_set, VKOCC_AUG_VARIANTS, &aug, &n) ==
              VKOCC_ERROR_USAGE, "an unknown variant is refused");
    CHECK(compile_spirv_augment(spv, words, path, NULL, info.first_free_set, &aug, &n) == VKOCC_OK &&
              n == size[VKOCC_AUG_COMPACT], "the default is compact (%zu words)", n);
    free(aug);
    free(spv);
  }
}

/* On lavapipe: P == LP_NUM_THREADS with every variant whose sleep lavapipe runs to its time (not the rolled one:
 * lavapipe stops an inner loop after 65535 iterations in all). */
static void test_lavapipe(const char *src) {
  uint32_t expect = lvp_expected_p();
  if (!expect) return;
  vkocc_context *ctx;
  vkocc_calibration cal;
  if (!lvp_open(&ctx, &cal)) return;
  char path[1024];
  snprintf(path, sizeof path, "%s/histogram.comp", src);
  vkocc_spec_value wg64 = {0, 64};
  vkocc_shader_desc sh = {.path = path, .spec = &wg64, .nspec = 1};
  const uint32_t vs[] = {VKOCC_AUG_COMPACT, VKOCC_AUG_UNROLLED, VKOCC_AUG_SMALL, VKOCC_AUG_CLOCK_ONLY};
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(vs); i++) {
    uint32_t best = 0;
    vkocc_status s = VKOCC_OK;
    /* the comb can only undercount on a loaded machine (a starved worker): up to three tries, the largest counts */
    for (int attempt = 0; attempt < 3 && best < expect; attempt++) {
      vkocc_pipeline_result r;
      vkocc_probe_options po = {.method = VKOCC_METHOD_COMB, .augmentation = compile_aug_variant_name(vs[i])};
      s = vkocc_pipeline_occupancy(ctx, &cal, &sh, &po, false, &r);
      if (s) break;
      if (r.P > best) best = r.P;
      CHECK(r.written && r.written->evidence == VKOCC_WRITTEN_NO_STATISTICS && !r.written->variants[0],
            "lavapipe: no statistics, no variants tried");
      vkocc_pipeline_result_free(&r);
    }
    CHECK(s == VKOCC_OK, "%s: %s", compile_aug_variant_name(vs[i]), vkocc_last_error());
    CHECK(best == expect, "%s: P %u, expected %u", compile_aug_variant_name(vs[i]), best, expect);
  }
  /* a refusal says why, though the cache lookups for a register model (none in this empty cache) clear the last error
   * in between: the H100 case's statistics, registers 89 written / 80 augmented, the per-SM model given, no register
   * file */
  {
    double w[] = {4352, 0, 256, 68719476736.0, 89}, a[] = {9088, 0, 15616, 68719476736.0, 80};
    vkocc_pipeline_result r = {.P = 264, .wg_size = 256, .shared_bytes = 256, .nstats = 5};
    for (uint32_t k = 0; k < 5; k++) {
      snprintf(r.stats[k].name, sizeof r.stats[k].name, "%s", nv_names[k]);
      r.stats[k].value = w[k], r.stats[k].augmented = a[k];
    }
    vkocc_derived d = h100(233472);
    vkocc_status st = probes_written_apply(ctx, &d, NULL, NULL, false, &r);
    CHECK(st == VKOCC_ERROR_RUNTIME && strstr(vkocc_last_error(), "register counts differ (89 written, 80 augmented)"),
          "the refusal without a register file: status %d, \"%s\"", (int)st, vkocc_last_error());
    vkocc_pipeline_result_free(&r);
  }
  CHECK_EQ_U(compile_aug_resolve(VKOCC_AUG_AUTO, 4), VKOCC_AUG_UNROLLED); /* lavapipe (a CPU device): the unrolled loop */
  CHECK_EQ_U(compile_aug_resolve(VKOCC_AUG_AUTO, 2), VKOCC_AUG_COMPACT);  /* a discrete GPU: the compact one */
  CHECK_EQ_U(compile_aug_resolve(VKOCC_AUG_SMALL, 4), VKOCC_AUG_SMALL);   /* a variant asked for is the one built */
  CHECK_EQ_U(compile_aug_rounds_scale(VKOCC_AUG_COMPACT, 2), 4);
  CHECK_EQ_U(compile_aug_rounds_scale(VKOCC_AUG_COMPACT, 4), 1);
  vkocc_context_destroy(ctx);
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: test_aug_variants SRC_DIR [SPIRV_VAL]\n"); return 2; }
  char cache[] = "/tmp/vkocc-augv-cache-XXXXXX";
  CHECK(mkdtemp(cache) != NULL, "mkdtemp");
  setenv("XDG_CACHE_HOME", cache, 1);
  test_decision();
  test_modules(argv[1], argc > 2 ? argv[2] : NULL);
  test_lavapipe(argv[1]);
  return check_report();
}
